# Recursion and cycles in call graphs: inclusive costs never counted twice,
# <cycle N> rows, --cycles=no, and the tree view, on a hand-written
# Callgrind file and on a real run of valgrind --tool=callgrind.
cg="$DATA/cycles/mutual.callgrind"

# Until the Callgrind reader is built in, there is nothing to check here.
run "$PLUMB" report "$cg"
case "$err" in
*"unknown format"*) skip "t_cycles" "this plumb does not read Callgrind files yet"; return 0 ;;
esac

run "$PLUMB" report --format csv --threshold 0 "$cg"
same "hand-written: report exits 0" "$rc" 0
py "hand-written: every number as worked out in the file" '
import csv, sys
rows = {r["function"]: r for r in csv.DictReader(sys.stdin)}
want = {"main": (7, 137), "fib": (5, 100), "fib'"'"'2": (95, 95), "C": (20, 20),
        "A <cycle 1>": (4, 12), "B <cycle 1>": (6, 18), "<cycle 1>": (10, 30)}
got = {n: (int(r["exclusive.Ir"]), int(r["inclusive.Ir"])) for n, r in rows.items()}
assert got == want, got
assert rows["<cycle 1>"]["calls"] == "1" and rows["<cycle 1>"]["cycle"] == "1", rows["<cycle 1>"]
assert rows["fib'"'"'2"]["calls"] == "2", rows["fib'"'"'2"]
'

run "$PLUMB" report --format csv --cycles=no "$cg"
py "hand-written: --cycles=no drops the cycle row and tags, keeps the numbers" '
import csv, sys
rows = {r["function"]: r for r in csv.DictReader(sys.stdin)}
assert "<cycle 1>" not in rows and "A" in rows and "cycle" not in rows["A"], list(rows)
assert rows["A"]["inclusive.Ir"] == "12" and rows["B"]["inclusive.Ir"] == "18", rows
'
run "$PLUMB" report --format csv --no-cycles "$cg"; a=$out
run "$PLUMB" report --format csv --cycles=no "$cg"
same "--no-cycles = --cycles=no" "$a" "$out"
expect_err "--cycles takes yes or no" 2 "--cycles expects yes or no" "$PLUMB" report --cycles=maybe "$cg"

run "$PLUMB" report --format json "$cg"
py "hand-written: JSON cycle fields" '
import json, sys
r = json.load(sys.stdin)
f = {x["name"]: x for x in r["functions"]}
assert f["A"]["cycle"] == 1 and f["B"]["cycle"] == 1 and f["main"]["cycle"] is None
assert r["cycles"] == [{"cycle": 1, "name": "<cycle 1>", "exclusive": [10], "inclusive": [30], "calls": 1,
    "members": [{"name": "A", "file": "mutual.c", "module": "mutual"},
                {"name": "B", "file": "mutual.c", "module": "mutual"}]}], r["cycles"]
rec = {(a["name"], a["recursive"]) for a in f["fib'"'"'2"]["callers"]}
assert rec == {("fib", False), ("fib'"'"'2", True)}, rec
'

run "$PLUMB" report --view tree --format csv --threshold 0 "$cg"
same "hand-written: tree exits 0" "$rc" 0
py "hand-written: tree rows" '
import csv, sys
rows = [(r["function"], r["inclusive.Ir"], r["calls"]) for r in csv.DictReader(sys.stdin)]
want = [("main", "137", ""), ("fib", "100", "1"), ("fib'"'"'2", "95", "2"),
        ("fib'"'"'2 [recursive]", "", "50"), ("A <cycle 1>", "30", "1"), ("C", "8", "1"),
        ("B <cycle 1>", "", "2"), ("C", "12", "1"), ("A <cycle 1> [recursive]", "", "1")]
assert rows == want, rows
'
run "$PLUMB" report --view bottom-up --format csv "$cg"
same "hand-written: bottom-up exits 0" "$rc" 0
for v in callers callees butterfly lines files modules parts threads; do
	run "$PLUMB" report --view $v --format csv "$cg"
	same "hand-written: view $v exits 0" "$rc" 0
done

# A real run: compile, profile, report.
if ! command -v valgrind > /dev/null 2>&1 || ! command -v cc > /dev/null 2>&1; then
	skip "callgrind run" "valgrind or cc not installed"
else
	cc -O0 -g -o rec "$DATA/cycles/recursion.c" &&
		valgrind --tool=callgrind --callgrind-out-file=cg.out ./rec > /dev/null 2> vg.err
	run "$PLUMB" report --format csv --threshold 0 cg.out
	if [ "$rc" -ne 0 ]; then
		fail "callgrind run: plumb report reads callgrind.out" "$err"
	else
		total=$(awk -F, 'NR > 1 && $6 == "main" { print $4 }' .out)
		# Callgrind's own inclusive cost of the calls into main: the cost line
		# after each calls= line whose cfn= names main.
		into_main=$(python3 -c '
import re, sys
names, callee, total, want = {}, None, 0, False
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    m = re.match(r"c?fn=\((\d+)\)(?: (.*))?$", line)
    if m:
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        if line.startswith("cfn="):
            callee = names.get(m.group(1))
        continue
    if line.startswith("calls="):
        want = callee == "main"
        continue
    if want:
        total += int(line.split()[1])
        want = False
print(total)' cg.out)
		same "callgrind run: main's inclusive = callgrind's cost of the call into main" "$total" "$into_main"
		py "callgrind run: no inclusive above the total; a <cycle 1> row; fib not inflated" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
by = {r["function"]: r for r in rows}
top = max(int(r["inclusive.Ir"]) for r in rows)
for r in rows:
    assert int(r["inclusive.Ir"]) <= top, r
assert "<cycle 1>" in by, sorted(by)[:20]
members = [n for n in by if n.endswith(" <cycle 1>")]
assert len(members) >= 2 and all(n.startswith(("is_even", "is_odd")) for n in members), members
assert sum(int(by[n]["inclusive.Ir"]) for n in members) == int(by["<cycle 1>"]["inclusive.Ir"])
fib2 = by["fib'"'"'2"]
assert fib2["exclusive.Ir"] == fib2["inclusive.Ir"], fib2
'
		run "$PLUMB" report --format json cg.out
		py "callgrind run: JSON totals bound every inclusive cost" '
import json, sys
r = json.load(sys.stdin)
t = r["totals"][0]
bad = [(f["name"], f["inclusive"][0]) for f in r["functions"] if f["inclusive"][0] > t]
assert not bad, bad
assert r["cycles"] and r["cycles"][0]["inclusive"][0] <= t
'
		run "$PLUMB" report --format csv --cycles=no cg.out
		py "callgrind run: --cycles=no removes the cycle row" '
import csv, sys
assert not [r for r in csv.DictReader(sys.stdin) if "cycle" in r["function"]]
'
		run "$PLUMB" report --view tree --format csv cg.out
		py "callgrind run: tree view has main and a cut recursion" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
names = [r["function"] for r in rows]
assert "main" in names and any(n.endswith("[recursive]") for n in names), names[:30]
'
	fi
fi

# Parts: the hand-written file has one; --part 1 is all of it, --part 2 an error.
run "$PLUMB" report --view parts --format csv "$cg"
py "parts view numbers the one part" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert len(rows) == 1 and rows[0]["part"] == "1" and rows[0]["exclusive.Ir"] == "137", rows
'
run "$PLUMB" report --format csv --part 1 "$cg"; a=$out
run "$PLUMB" report --format csv "$cg"
same "--part 1 of a one-part file = everything" "$a" "$out"
expect_err "--part beyond the parts is refused" 2 "no part 2" "$PLUMB" report --part 2 "$cg"
expect_err "--part 0 is refused" 2 "--part expects a part number from 1" "$PLUMB" report --part 0 "$cg"

# A cycle named as a symspec: its own block in the butterfly.
run "$PLUMB" report --butterfly '<cycle 1>' --format csv "$cg"
py "--butterfly '<cycle 1>': main's call in, the cycle, its members" '
import csv, sys
rows = [(r["function"], r["attributed.Ir"]) for r in csv.DictReader(sys.stdin)]
assert rows == [("main", "30"), ("<cycle 1>", "30"), ("A <cycle 1>", "12"), ("B <cycle 1>", "18")], rows
'

# Every event, derived ones included, in every view of a call graph.
der="$DATA/cycles/derived.callgrind"
for v in flat callers callees butterfly tree bottom-up lines files modules parts; do
	run "$PLUMB" report --view $v --format csv --threshold 0 "$der"
	py "derived event: view $v has columns for Ir, Dr and Sum" '
import csv, sys
head = next(csv.reader(sys.stdin))
for e in ("Ir", "Dr", "Sum"):
    assert any(h.endswith("." + e) and not h.startswith("percent") for h in head), (e, head)
'
done
run "$PLUMB" report --format csv "$der"
py "derived event: inclusive Sum of a self-recursive function counted once" '
import csv, sys
f = {r["function"]: r for r in csv.DictReader(sys.stdin)}["f"]
assert (f["inclusive.Ir"], f["inclusive.Dr"], f["inclusive.Sum"], f["exclusive.Sum"]) == ("18", "4", "26", "14"), f
'
if command -v valgrind > /dev/null 2>&1 && [ -x rec ]; then
	valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file=cs.out ./rec > /dev/null 2>&1
	n=$(awk '/^events:/ { print NF - 1; exit }' cs.out)
	for v in flat tree bottom-up butterfly lines files modules parts; do
		run "$PLUMB" report --view $v --format csv cs.out
		got=$(printf '%s\n' "$out" | head -1 | tr ',' '\n' | grep -c '^exclusive\.')
		same "callgrind --cache-sim: view $v shows all $n events" "$got" "$n"
	done
fi
