# plumb diff: each function's (or line's) cost in two profiles and the
# change, largest first; one-sided functions with 0 on the other side.

printf 'main;a 10\nmain;b 5\n' > base.folded
printf 'main;a 4\nmain;c 7\nmain;b 5\n' > new.folded

run "$PLUMB" diff --format csv base.folded new.folded
same "csv: exact columns and rows, largest exclusive change first" "$out" \
"function,file,module,exclusive_base,exclusive_new,exclusive_delta,inclusive_base,inclusive_new,inclusive_delta
c,,,0,7,7,0,7,7
a,,,10,4,-6,10,4,-6
main,,,0,0,0,15,16,1
b,,,5,5,0,5,5,0"

run "$PLUMB" diff --sort inclusive --format csv base.folded new.folded
py "--sort inclusive orders by the inclusive change" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert [r["function"] for r in rows] == ["c", "a", "main", "b"], rows
d = [abs(int(r["inclusive_delta"])) for r in rows]
assert d == sorted(d, reverse=True), d
'

run "$PLUMB" diff --normalize --format csv base.folded new.folded
py "--normalize compares shares of each total" '
import csv, sys
rows = {r["function"]: r for r in csv.DictReader(sys.stdin)}
def near(a, b): return abs(float(a) - b) < 1e-3
assert near(rows["a"]["exclusive_base"], 100 * 10 / 15) and near(rows["a"]["exclusive_new"], 100 * 4 / 16)
assert near(rows["b"]["exclusive_delta"], 100 * (5 / 16 - 5 / 15)), rows["b"]
assert near(rows["main"]["inclusive_delta"], 0.0), rows["main"]
'

run "$PLUMB" diff base.folded base.folded --format csv
py "a profile against itself changes nothing" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert rows and all(r["exclusive_delta"] == "0" and r["inclusive_delta"] == "0" for r in rows), rows
'

run "$PLUMB" diff base.folded new.folded
expect_out "text: totals of both" "Total samples: base 15, new 16."

# --view lines on Callgrind: main's line 10 gains 10 Ir
cg="$DATA/cycles/mutual.callgrind"
sed 's/^10 7$/10 17/; s/^summary: 137$/summary: 147/' "$cg" > more.callgrind
run "$PLUMB" diff --view lines --format csv "$cg" more.callgrind
py "--view lines: the changed line first, with its file and line" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert list(rows[0]) == ["function", "file", "line", "module", "exclusive_base", "exclusive_new",
    "exclusive_delta", "inclusive_base", "inclusive_new", "inclusive_delta"], list(rows[0])
r = rows[0]
assert (r["function"], r["file"], r["line"], r["exclusive_base"], r["exclusive_new"], r["exclusive_delta"]) == \
    ("main", "mutual.c", "10", "7", "17", "10"), r
assert all(x["exclusive_delta"] == "0" for x in rows[1:]), rows[1:]
'

if python3 -c "import jsonschema" 2> /dev/null; then
	run "$PLUMB" diff --format json base.folded new.folded
	py "json: valid against docs/report.schema.json" "
import json, sys, jsonschema
jsonschema.validate(json.load(sys.stdin), json.load(open('$E2E_DIR/../../docs/report.schema.json')))
"
else
	skip "json: valid against docs/report.schema.json" "no python3-jsonschema"
fi

expect_err "one profile is a usage error" 2 "expected two profiles" "$PLUMB" diff base.folded
expect_err "an event missing from one side" 2 "no event 'Ir'" "$PLUMB" diff --metric Ir "$cg" base.folded
expect_err "an unknown format" 2 "unknown format" "$PLUMB" diff --format pdf base.folded new.folded

# A differential flame graph: NEW's boxes, each with its change against
# BASE's box of the same call path (0 for a path BASE lacks).
printf 'main;a 10\nmain;b 5\nmain;b;x 3\n' > fb.folded
printf 'main;a 4\nmain;c 7\nmain;b 5\nmain;b;x 6\n' > fn.folded
run "$PLUMB" diff --view flame --format csv fb.folded fn.folded
same "--view flame: boxes of NEW with BASE's cost and the change" "$out" \
"depth,kind,x.samples,inclusive.samples,percent.samples,base.samples,change.samples,function,file,module
0,normal,0,22,100.0000,18,4,main,,
1,normal,0,11,50.0000,8,3,b,,
2,normal,0,6,27.2727,3,3,x,,
1,normal,11,7,31.8182,0,7,c,,
1,normal,18,4,18.1818,10,-6,a,,"
expect_status "--view flame --format svg" 0 "$PLUMB" diff --view flame --format svg -o d.svg fb.folded fn.folded
if python3 - d.svg > .pyout 2>&1 <<'PY'
import re, sys
svg = open(sys.argv[1]).read()
boxes = dict((m[0], (int(m[1]), m[2])) for m in
    re.findall(r'<title>(\w+) \([0-9,]+ samples, [0-9.]+%; change ([+-]\d+)\)</title><rect [^>]*fill="(#[0-9a-f]{6})"', svg))
assert set(boxes) == {"main", "a", "b", "c", "x"}, boxes
red = lambda c: int(c[1:3], 16) > int(c[5:7], 16)
assert boxes["c"][0] == 7 and red(boxes["c"][1]), boxes["c"]
assert boxes["a"][0] == -6 and not red(boxes["a"][1]), boxes["a"]
PY
then ok "differential svg: titles with the change, grown red, shrunk blue"; else fail "differential svg: titles with the change, grown red, shrunk blue" "$(cat .pyout)"; fi
run "$PLUMB" diff --view flame --normalize --format csv fb.folded fn.folded
py "--view flame --normalize scales the base to the new total" '
import csv, sys
rows = {r["function"]: r for r in csv.DictReader(sys.stdin)}
assert rows["main"]["base.samples"] == "22" and rows["main"]["change.samples"] == "0", rows["main"]
assert rows["a"]["base.samples"] == str(round(10 * 22 / 18)), rows["a"]
'
expect_err "svg needs --view flame" 2 "--view flame only" "$PLUMB" diff --format svg fb.folded fn.folded
