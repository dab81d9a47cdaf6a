#!/usr/bin/env python3
"""A straightforward Python reader of an aprof report: the routine table.

    aprof_flat.py [--tsv] FILE.aprof

The peer of `plumb report --view flat` in bench/aprof.sh (aprof-helper is
not packaged in Debian). It reads the r and p lines of a report of version
2 or later (the fields are at the same places in versions 4 to 6, 12 or 18
of them; research/aprof.md section 1.5) and prints what aprof-plot's
routine table shows: per routine its calls, the number of input sizes,
the cumulative cost (the sum of real sums, recursion counted once) and the
self cost (the sum of self sums) with their shares of k, sorted by
cumulative cost, largest first. q and x lines (calling contexts) are not
read. --tsv prints routine, calls, cost and self cost separated by tabs
(bench/aprof.sh checks them against plumb's).
"""
import sys


def main():
    tsv = len(sys.argv) == 3 and sys.argv[1] == "--tsv"
    if len(sys.argv) != 2 + tsv:
        sys.exit("usage: aprof_flat.py [--tsv] FILE.aprof")
    names, objects = {}, {}
    calls, inputs, cost, self_cost = {}, {}, {}, {}
    total = 0
    with open(sys.argv[-1], encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            tag = line[:2]
            if tag == "p ":
                field = line.split()
                rid = field[1]
                calls[rid] += int(field[7])
                inputs[rid] += 1
                cost[rid] += int(field[8])
                self_cost[rid] += int(field[9])
            elif tag == "r ":
                # r "name" "object" id: names hold spaces, never quotes
                _, name, _, obj, rest = line.split('"', 4)
                rid = rest.split()[0]
                names[rid], objects[rid] = name, obj
                calls[rid] = inputs[rid] = cost[rid] = self_cost[rid] = 0
            elif tag == "k ":
                total = int(line.split()[1])
    total = total or sum(self_cost.values()) or 1
    rows = sorted(names, key=lambda r: (-cost[r], names[r]))
    out = sys.stdout
    if tsv:
        for r in rows:
            out.write(f"{names[r]}\t{calls[r]}\t{cost[r]}\t{self_cost[r]}\n")
        return
    out.write(f"{'Cost':>20} {'Cost %':>7} {'Self':>20} {'Self %':>7} {'Calls':>12} "
              f"{'Inputs':>7}  Routine  Binary\n")
    for r in rows:
        out.write(f"{cost[r]:>20,} {100 * cost[r] / total:>7.1f} {self_cost[r]:>20,} "
                  f"{100 * self_cost[r] / total:>7.1f} {calls[r]:>12,} {inputs[r]:>7}  "
                  f"{names[r]}  {objects[r].rsplit('/', 1)[-1]}\n")


if __name__ == "__main__":
    main()
