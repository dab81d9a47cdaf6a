# Views of input-sensitive profiles through the plumb binary: inputs (the
# default for aprof reports: growth classes of routines whose cost is known,
# worst first), points (every field of the file), their JSON against the
# schema and the CSV, the SVG charts rendered by a real renderer, the text
# chart, -o written atomically, and flat/tree on aprof reports.
g="$DATA/aprof/growth_1_0_4.aprof"
cct="$DATA/aprof/cct_77_0_4.aprof"
schema="$E2E_DIR/../../docs/report.schema.json"

run "$PLUMB" report --format csv "$g"
py "inputs is the default view of an aprof report; each routine's growth is found" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
need = "routine,module,calls,points,min_input,max_input,cost,self_cost,growth,exponent,r2".split(",")
assert all(k in rows[0] for k in need), rows[0].keys()
got = {r["routine"]: r["growth"] for r in rows}
want = {"matmul": "n^3", "pairwise": "n^2", "sort_items": "n log n", "copy_buf": "n",
        "lookup": "log n", "init_table": "1"}
for k, v in want.items():
    assert got[k] == v, (k, got[k], v)
assert got["odd_scan"].startswith("n^1.") and abs(float(got["odd_scan"][2:]) - 1.5) < 0.03, got["odd_scan"]
order = [r["routine"] for r in rows]
assert order == ["matmul", "pairwise", "odd_scan", "sort_items", "copy_buf", "lookup", "init_table"], order
'

run "$PLUMB" report --view points --format csv "$g"
py "points: the exact columns, one row per p line, every field as the file says" '
import csv, sys
lines = sys.stdin.read().splitlines()
assert lines[0] == "routine,module,context,input,calls,min,max,sum,sqr_sum,real_sum,self_sum,self_min,self_max,self_sqr_sum,syscall_cumul,thread_cumul,syscall_self,thread_self", lines[0]
rows = {(r["routine"], int(r["input"])): r for r in csv.DictReader(lines)}
names, n = {}, 0
for l in open("'"$g"'"):
    t = l.split()
    if l.startswith("r "):
        names[t[-1]] = l.split("\"")[1]
    elif l.startswith("p "):
        n += 1
        r = rows[(names[t[1]], int(t[2]))]
        f = dict(zip("min max sum sqr_sum calls real_sum self_sum self_min self_max self_sqr_sum".split(), t[3:]))
        for k, v in f.items():
            assert r[k] == v, (k, r[k], v)
        assert r["context"] == "" and r["syscall_cumul"] == "", r
assert n == len(rows), (n, len(rows))
'

python3 -c 'import jsonschema' 2>/dev/null && have_schema=1 || have_schema=0
for v in points inputs; do
	"$PLUMB" report --view $v --format json "$g" > $v.json 2> $v.err
	"$PLUMB" report --view $v --format csv "$g" > $v.csv 2>> $v.err
	if [ $have_schema -eq 0 ]; then
		skip "--view $v JSON follows the schema" "python3-jsonschema is not installed"
		continue
	fi
	if python3 - "$schema" $v.json $v.csv <<'PY' > $v.py 2>&1
import csv, json, sys, jsonschema
d = json.load(open(sys.argv[2]))
jsonschema.validate(d, json.load(open(sys.argv[1])))
rows = list(csv.DictReader(open(sys.argv[3])))
assert len(rows) == len(d["rows"])
for r, jr in zip(rows, d["rows"]):
    for k, v in jr["cells"].items():
        if v is None:
            assert r[k] == "", (k, r[k])
        elif isinstance(v, int):
            assert int(r[k]) == v, (k, r[k], v)
        elif isinstance(v, float):
            assert abs(float(r[k]) - v) < 1e-3, (k, r[k], v)
        else:
            assert r[k] == v, (k, r[k], v)
PY
	then ok "--view $v JSON follows the schema and the CSV"
	else fail "--view $v JSON follows the schema and the CSV" "$(tail -5 $v.py)" "$(cat $v.err)"
	fi
done

# pictures: -o writes the SVG, a real renderer draws it
expect_status "--format svg -o" 0 "$PLUMB" report --view inputs --select sort_items --format svg -o cost.svg "$g"
if grep -q "sort_items: cost per call against input size" cost.svg && grep -q "amortized" cost.svg; then
	ok "the SVG holds the cost chart and aprof-plot's others"
else
	fail "the SVG holds the cost chart and aprof-plot's others" "$(head -c 300 cost.svg)"
fi
if command -v rsvg-convert > /dev/null; then
	if rsvg-convert cost.svg -o cost.png 2> rsvg.err && python3 - cost.png <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n"
w, h = struct.unpack(">II", b[16:24])
assert (w, h) == (1280, 840), (w, h)
PY
	then ok "rsvg-convert renders the SVG (1280 x 840 PNG)"
	else fail "rsvg-convert renders the SVG" "$(cat rsvg.err)"
	fi
else
	skip "rsvg-convert renders the SVG" "librsvg2-bin is not installed (scripts/deps.sh installs it)"
fi
run "$PLUMB" report --select sort_items --format svg "$g"
expect_out "without -o the SVG goes to standard output" "<svg xmlns"
echo keep > kept.svg
expect_err "svg of a view without charts: a usage error" 2 "--select ROUTINE" \
	"$PLUMB" report --view inputs --format svg -o kept.svg "$g"
same "a failed write leaves -o's file as it was" "$(cat kept.svg)" "keep"
expect_err "an unknown chart is a usage error" 2 "unknown chart 'pie'" "$PLUMB" report --chart pie "$g"
expect_status "--chart total" 0 "$PLUMB" report --select pairwise --chart total --format svg -o total.svg "$g"
if grep -q "total cost per input size" total.svg && ! grep -q "amortized" total.svg; then ok "--chart draws only that chart"; else fail "--chart draws only that chart"; fi

# text: the curve under the table, and the table through -o
run "$PLUMB" report --select sort_items -w 100 "$g"
expect_out "a terminal gets the cost chart under the table" "sort_items: cost per call against input size"
expect_out "with the fitted curve" "fit: "
expect_out "the table says what the fit is of" "average cumulative cost per call"
expect_status "text to -o" 0 "$PLUMB" report -o table.txt "$g"
if grep -q "^matmul" table.txt && grep -q "(aprof)" table.txt; then ok "-o holds the header and the table"; else fail "-o holds the header and the table" "$(head -5 table.txt)"; fi

# existing views
run "$PLUMB" report --view flat --format csv "$g"
py "flat: inclusive is the routines' real sums, exclusive their self sums" '
import csv, sys
rows = {r["function"]: r for r in csv.DictReader(sys.stdin)}
names, real, self = {}, {}, {}
for l in open("'"$g"'"):
    t = l.split()
    if l.startswith("r "):
        names[t[-1]] = l.split("\"")[1]
    elif l.startswith("p "):
        n = names[t[1]]
        real[n] = real.get(n, 0) + int(t[8])
        self[n] = self.get(n, 0) + int(t[9])
for n in real:
    assert int(rows[n]["inclusive.bb-count"]) == real[n], (n, rows[n], real[n])
    assert int(rows[n]["exclusive.bb-count"]) == self[n], (n, rows[n], self[n])
'
run "$PLUMB" report --view tree --threshold 0 --format csv "$cct"
py "tree of a report with contexts: the calling context tree" '
import csv, sys
rows = [(int(r["depth"]), r["function"]) for r in csv.DictReader(sys.stdin)]
assert (0, "main") in rows and (2, "walk(node*)") in rows, rows
'
run "$PLUMB" report --view points --format csv "$cct"
expect_out "points of a report with contexts name each context's path" ",main;walk(node*);walk(node*),"
expect_err "points of a profile without any" 2 "performance points" \
	"$PLUMB" report --view points "$DATA/folded/perf.folded"
