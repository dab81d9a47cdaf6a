#!/usr/bin/env python3
"""Write a large synthetic Callgrind file of another shape than gen_callgrind.py's,
the same one for the same arguments.

usage: gen_callgrind_wide.py OUT SIZE_MB [SEED]

Where gen_callgrind.py writes one part with short names and instruction
addresses, this one writes what `valgrind --tool=callgrind --cache-sim=yes
--separate-threads=yes` of a big C++ program gives when its threads are put
in one file: four parts (`part:`, `thread:`), each with its own compressed
names (they start again in each part, as the format says), `positions: line`
only, nine cache events (Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw), and
distinct long names: every function has a name of its own of 60 to 140
characters (namespaces, templates, arguments) and a source file of its own,
so no two fn= lines of a part share a name, and interning sees no repeats.
About 1,500 functions per MB; each part holds a quarter of them, plus calls to
functions of the whole program. The file comes out within a few percent of
SIZE_MB."""
import random
import sys

EVENTS = "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw"
PARTS = 4


def main():
    out_path, size_mb = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    rng = random.Random(seed)
    nfn = 1530 * size_mb
    spaces = ["core", "detail", "io", "net", "util", "sched", "mem", "text", "geom", "db"]
    types = ["int", "long", "char const*", "std::string const&", "double", "void*",
             "std::vector<int, std::allocator<int> > const&", "unsigned long"]

    def fn_name(i):
        ns = spaces[i % len(spaces)]
        cls = f"Component{i % 977}Impl{i % 13}"
        args = ", ".join(types[(i >> k) % len(types)] for k in range(1 + i % 4))
        tmpl = f"<{types[i % len(types)]}, {i % 7}>" if i % 3 == 0 else ""
        return f"{ns}::v{i % 5}::{cls}{tmpl}::method_{i}({args}) const"

    def file_name(i):
        return f"/home/build/project/src/{spaces[i % len(spaces)]}/module_{i % 211}/unit_{i}.cpp"

    line_of = [1 + (i * 37) % 5000 for i in range(nfn)]
    hot = [rng.randrange(nfn) for _ in range(500)]
    out = open(out_path, "w", buffering=1 << 22)
    out.write("# callgrind format\nversion: 1\ncreator: gen_callgrind_wide.py\n")
    per_part = (nfn + PARTS - 1) // PARTS
    for part in range(PARTS):
        tot = [0] * 9
        fn_id, file_id = {}, {}

        def file_ref(k):
            if k in file_id:
                return f"({file_id[k]})"
            file_id[k] = len(file_id) + 1
            return f"({file_id[k]}) {file_name(k)}"

        def fn_ref(i):
            if i in fn_id:
                return f"({fn_id[i]})"
            fn_id[i] = len(fn_id) + 1
            return f"({fn_id[i]}) {fn_name(i)}"

        out.write(f"\npid: 4242\ncmd: ./server --threads {PARTS}\npart: {part + 1}\n"
                  f"thread: {part + 1}\n\npositions: line\nevents: {EVENTS}\n\n"
                  "ob=(1) /usr/bin/server\n")
        for i in range(part * per_part, min(nfn, (part + 1) * per_part)):
            chunk = [f"fl={file_ref(i)}\n", f"fn={fn_ref(i)}\n"]
            line = line_of[i]
            for _ in range(rng.randint(4, 16)):
                if rng.random() < 0.15:
                    callee = hot[rng.randrange(len(hot))] if rng.random() < 0.3 else rng.randrange(nfn)
                    chunk.append(f"cfi={file_ref(callee)}\ncfn={fn_ref(callee)}\n")
                    chunk.append(f"calls={rng.choice((1, 2, 5, 40, 1000))} {line_of[callee]}\n")
                    inc = [rng.randint(10, 10 ** 6)]
                    inc += [inc[0] // (2 + k) for k in range(2)] + [inc[0] // (50 + 10 * k) for k in range(6)]
                    chunk.append(f"{line} " + " ".join(map(str, inc)) + "\n")
                    # calls= names the callee's file: the caller's is named again
                    chunk.append(f"fi={file_ref(i)}\n")
                    continue
                line += rng.choice((0, 1, 1, 1, 2, 3))
                ir = int(10 ** rng.uniform(0, 5))
                c = [ir, ir // 2, ir // 4] + [rng.randrange(ir // 50 + 1) for _ in range(6)]
                while len(c) > 1 and c[-1] == 0:
                    c.pop()
                chunk.append(f"{line} " + " ".join(map(str, c)) + "\n")
                for k, v in enumerate(c):
                    tot[k] += v
            out.write("".join(chunk))
        out.write("\ntotals: " + " ".join(map(str, tot)) + "\n")
    out.close()


main()
