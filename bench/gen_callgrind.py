#!/usr/bin/env python3
"""Write a large synthetic Callgrind file, the same one for the same arguments.

usage: gen_callgrind.py OUT SIZE_MB [SEED]

The file looks like `valgrind --tool=callgrind --dump-instr=yes` output of a
big program: `positions: instr line`, `events: Ir Dr Dw`, compressed names
(fl=, fn=, cfi=, cfn= with "(id) name" at first use and "(id)" afterwards),
one cost line per instruction with relative positions (+N, -N, *) and
trailing zero costs dropped, about one call in ten lines (cfi=/cfn=/calls=
and the call-site line with inclusive costs), and totals: at the end.
There are 2,000 functions and 50 source files per MB (200,000 and 5,000 for
100 MB), with C and C++ names; callees are skewed towards a few hot
functions. SIZE_MB sets the amount of functions; the file comes out within a
few percent of it."""
import random
import sys


def main():
    out_path, size_mb = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    rng = random.Random(seed)
    nfn = 2000 * size_mb
    nfiles = max(1, 50 * size_mb)
    words = ["parse", "read", "write", "hash", "lookup", "insert", "scan", "emit", "fold",
             "merge", "sort", "split", "load", "store", "alloc", "free", "init", "run"]

    def fn_name(i):
        w = words[i % len(words)]
        if i % 10 < 3:
            return f"ns{i % 97}::Class{i % 1013}::{w}_{i}(int, char const*) const"
        return f"{w}_{i}"

    file_of = [rng.randrange(nfiles) for _ in range(nfn)]
    addr_of = [0x400000 + i * 0x400 for i in range(nfn)]
    line_of = [10 + (i * 7) % 3000 for i in range(nfn)]
    fn_defined = bytearray(nfn)
    file_defined = bytearray(nfiles)
    hot = [rng.randrange(nfn) for _ in range(2000)]

    def file_ref(k):
        if file_defined[k]:
            return f"({k + 1})"
        file_defined[k] = 1
        return f"({k + 1}) /src/module{k % 64}/file{k}.c"

    def fn_ref(i):
        if fn_defined[i]:
            return f"({i + 1})"
        fn_defined[i] = 1
        return f"({i + 1}) {fn_name(i)}"

    def costs(ir, dr, dw):
        if dw:
            return f" {ir} {dr} {dw}"
        if dr:
            return f" {ir} {dr}"
        return f" {ir}"

    def rel(new, old):
        d = new - old
        if d == 0:
            return "*"
        if 0 < old and -100 < d < 100:
            return f"+{d}" if d > 0 else f"-{-d}"
        return None

    tot = [0, 0, 0]
    out = open(out_path, "w", buffering=1 << 22)
    out.write("# callgrind format\nversion: 1\ncreator: gen_callgrind.py\npid: 1\n"
              f"cmd:  ./bench {size_mb}\npart: 1\n\n\ndesc: I1 cache: \ndesc: D1 cache: \n"
              "desc: LL cache: \n\ndesc: Timerange: Basic block 0 - 1000000\n"
              "desc: Trigger: Program termination\n\npositions: instr line\n"
              "events: Ir Dr Dw\n\n\nob=(1) /usr/bin/bench\n")
    cur_file = -1
    for i in range(nfn):
        chunk = []
        k = file_of[i]
        if k != cur_file:
            chunk.append(f"fl={file_ref(k)}\n")
            cur_file = k
        chunk.append(f"fn={fn_ref(i)}\n")
        addr, line = addr_of[i], line_of[i]
        chunk.append(f"{addr:#x} {line}")
        ir = rng.randint(1, 40)
        chunk.append(costs(ir, 0, 0) + "\n")
        tot[0] += ir
        for _ in range(rng.randint(10, 40)):
            if rng.random() < 0.1:
                callee = hot[rng.randrange(len(hot))] if rng.random() < 0.5 else rng.randrange(nfn)
                if file_of[callee] != cur_file:
                    chunk.append(f"cfi={file_ref(file_of[callee])}\n")
                chunk.append(f"cfn={fn_ref(callee)}\n")
                calls = rng.choice((1, 1, 1, 2, 3, 10, 100, 1000))
                chunk.append(f"calls={calls} {addr_of[callee]:#x} {line_of[callee]}\n")
                inc = rng.randint(10, 10 ** 6)
                chunk.append("* *" + costs(inc, inc // 3, inc // 7) + "\n")
                continue
            naddr = addr + rng.randint(1, 7)
            r = rng.random()
            nline = line + (0 if r < 0.6 else 1 if r < 0.9 else rng.randint(-3, 5))
            nline = max(nline, 1)
            ir = int(10 ** rng.uniform(0, 5))
            dr = ir // 2 if rng.random() < 0.4 else 0
            dw = ir // 3 if rng.random() < 0.2 else 0
            chunk.append(rel(naddr, addr) + " " + (rel(nline, line) or str(nline)) +
                         costs(ir, dr, dw) + "\n")
            tot[0] += ir
            tot[1] += dr
            tot[2] += dw
            addr, line = naddr, nline
        out.write("".join(chunk))
    out.write(f"\ntotals: {tot[0]} {tot[1]} {tot[2]}\n")
    out.close()


main()
