#!/usr/bin/env python3
"""Write a Callgrind file of several parts for the parallel reader's tests:
the same file for the same arguments.

usage: gen_cg_parts.py OUT PARTS FUNCTIONS [SEED] [BAD]

Each part has its own header (part:, thread:, positions:, events:) and its
own compressed names: ids are defined "(id) name" at first use in the part
and used as "(id)" after, and the same id names another function in the
next part. Functions come back several times in a part (fn=(id) far from
its definition); first cost lines are absolute or relative (+N, *); there
are fi= lines, calls with and without a new cfn=, cob=/cfi=, jumps,
written zeros, unknown lines (warnings), and totals: lines, the second
part's wrong (a warning). BAD (0 to 1): a bad cost line that far into the
file (an error with its line number)."""
import random
import sys


def main():
    out, nparts, nfn = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    bad = float(sys.argv[5]) if len(sys.argv) > 5 else None
    rng = random.Random(seed)
    lines = ["# callgrind format", "version: 1", "creator: gen_cg_parts.py", "pid: 7",
             "cmd: ./t", "event: Sum = Ir + Dr", "event: Ir : instructions"]
    for part in range(1, nparts + 1):
        lines += ["", f"part: {part}"]
        if part % 2 == 0:
            lines.append(f"thread: {part}")
        lines += ["positions: instr line", "events: Ir Dr", ""]
        ids = list(range(1, nfn + 1))
        rng.shuffle(ids)  # this part's id of each function
        defined = set()
        files_defined = set()
        tot = [0, 0]

        def fname(f):
            if f in defined:
                return f"({ids[f]})"
            defined.add(f)
            return f"({ids[f]}) fn_{f}_{'x' * (f % 5)}"

        def file_ref(k):
            if k in files_defined:
                return f"({k + 1})"
            files_defined.add(k)
            return f"({k + 1}) /src/f{k}.c"

        lines.append("ob=(1) /bin/t")
        addr, line = 0, 0
        for visit in range(nfn * 3):
            f = rng.randrange(nfn) if visit >= nfn else visit
            lines.append(f"fl={file_ref(f % 7)}")
            lines.append(f"fn={fname(f)}")
            base = 0x1000 + f * 0x100
            if rng.random() < 0.7 or addr == 0:
                addr, line = base, 10 + f
                lines.append(f"{addr:#x} {line} 1")
            else:
                addr, line = addr + 3, line + 1
                lines.append(f"+3 +1 1")
            tot[0] += 1
            callee = None
            for _ in range(rng.randint(2, 12)):
                r = rng.random()
                if r < 0.15:
                    if callee is None or rng.random() < 0.7:
                        callee = rng.randrange(nfn)
                        if rng.random() < 0.3:
                            lines.append("cob=(2) /lib/libx.so" if rng.random() < 0.5 else "cob=(1)")
                        if rng.random() < 0.5:
                            lines.append(f"cfi={file_ref(callee % 7)}")
                        lines.append(f"cfn={fname(callee)}")
                    n = rng.choice((1, 2, 10))
                    lines.append(f"calls={n} {0x1000 + callee * 0x100:#x} {10 + callee}")
                    inc = rng.randint(1, 1000)
                    lines.append(f"* * {inc} {inc // 3}")
                elif r < 0.2:
                    lines.append(f"fi={file_ref(rng.randrange(7))}")
                elif r < 0.23:
                    lines.append(f"jump={rng.randint(1, 9)} +{rng.randint(1, 9)} *")
                    addr += 1
                    lines.append(f"+1 * {rng.randint(1, 9)}")
                    tot[0] += int(lines[-1].split()[2])
                elif r < 0.232:
                    lines.append("xyz=unknown")
                else:
                    da, dl = rng.randint(1, 6), rng.choice((0, 0, 1, -1, 2))
                    if line + dl < 1:
                        dl = 0
                    addr, line = addr + da, line + dl
                    ir, dr = rng.randint(0, 500), rng.choice((0, 0, 3, 7))
                    pl = "*" if dl == 0 else f"{dl:+d}"
                    lines.append(f"+{da} {pl} {ir} {dr}")
                    tot[0] += ir
                    tot[1] += dr
        if part == 2:
            tot[0] += 1
        lines.append(f"totals: {tot[0]} {tot[1]}")
    if bad is not None:
        at = int(len(lines) * bad)
        while not lines[at][:1].isdigit() and lines[at][:1] not in "+*":
            at += 1
        lines[at] = "+1 0xZZ 5"
    open(out, "w").write("\n".join(lines) + "\n")


main()
