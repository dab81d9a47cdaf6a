# report --time and --view timeline on a real recording: a program whose
# main thread spins in phase_a for 0.8 s of wall time, then starts a thread
# that spins in phase_b for 0.8 s. A slice of the first 0.4 s holds phase_a,
# the last quarter phase_b; the timeline's buckets add up to the totals, the
# worker's lane starts when it did, and the CSV has the issue's columns.
if ! command -v gcc > /dev/null 2>&1; then
	skip "report --time and --view timeline" "gcc not installed"
	return 0 2> /dev/null || exit 0
fi
cat > phases.c <<'EOF'
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
volatile unsigned long sink;
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
__attribute__((noinline)) void phase_a(double secs)
{
	double end = now() + secs;
	while (now() < end)
		for (int i = 0; i < 1000; i++)
			sink += i;
}
__attribute__((noinline)) void phase_b(double secs)
{
	double end = now() + secs;
	while (now() < end)
		for (int i = 0; i < 1000; i++)
			sink ^= i;
}
static void *worker(void *arg)
{
	phase_b(*(double *)arg);
	return NULL;
}
int main(int argc, char **argv)
{
	double s = argc > 1 ? atof(argv[1]) : 0.8;
	phase_a(s);
	pthread_t t;
	pthread_create(&t, NULL, worker, &s);
	pthread_join(t, NULL);
	return 0;
}
EOF
gcc -O1 -g -pthread phases.c -o phases
if ! "$PLUMB" record -q -o ph.plumb ./phases 0.8 2> rec.err; then
	skip "report --time and --view timeline" "plumb record cannot sample here: $(head -1 rec.err)"
	return 0 2> /dev/null || exit 0
fi

# shares FILE.csv: "function excl" lines of a flat CSV, to read in python
run "$PLUMB" report --time ,0.4 --format csv ph.plumb
py "--time ,0.4 holds the first phase only (phase_a, no phase_b)" '
import csv, sys
rows = {r["function"]: int(r["exclusive.cpu-clock"]) for r in csv.DictReader(sys.stdin)}
total = sum(rows.values())
a, b = rows.get("phase_a", 0), rows.get("phase_b", 0)
assert total > 0, "no samples in the first 0.4 s"
assert a >= 0.6 * total and b == 0, "expected phase_a >= 60%% and no phase_b of %d; got phase_a %d, phase_b %d" % (total, a, b)'

run "$PLUMB" report --time 75%-100% --format csv ph.plumb
py "--time 75%-100% holds the second phase only (phase_b, no phase_a)" '
import csv, sys
rows = {r["function"]: int(r["exclusive.cpu-clock"]) for r in csv.DictReader(sys.stdin)}
total = sum(rows.values())
a, b = rows.get("phase_a", 0), rows.get("phase_b", 0)
assert total > 0, "no samples in the last quarter"
assert b >= 0.6 * total and a == 0, "expected phase_b >= 60%% and no phase_a of %d; got phase_a %d, phase_b %d" % (total, a, b)'

run "$PLUMB" report --time 0.2,0.6 ph.plumb
expect_out "the header says which time is shown" "Time: --time 0.2,0.6, "

# The timeline: exact columns, buckets summing to each thread's total.
"$PLUMB" report --view parts --format csv ph.plumb > parts.csv
run "$PLUMB" report --view timeline --buckets 16 --format csv ph.plumb
printf '%s\n' "$out" > tl.csv
same "timeline CSV columns are part,thread,start_s,end_s,event,value" \
	"$(head -1 tl.csv)" "part,thread,start_s,end_s,event,value"
run python3 - tl.csv parts.csv <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
parts = {r["part"]: int(r["exclusive.cpu-clock"]) for r in csv.DictReader(open(sys.argv[2]))}
sums, starts = {}, {}
for r in rows:
    v = int(r["value"])
    assert v > 0, "a zero row: %s" % r
    assert r["event"] == "cpu-clock", r
    sums[r["part"]] = sums.get(r["part"], 0) + v
    starts.setdefault(r["part"], []).append(float(r["start_s"]))
    assert float(r["end_s"]) > float(r["start_s"]), r
assert sums == {k: v for k, v in parts.items() if v}, "bucket sums %s, parts view %s" % (sums, parts)
assert len(sums) == 2, "expected a lane per thread, got %s" % sums
buckets = {round(s, 4) for ss in starts.values() for s in ss}
assert len(buckets) <= 16, "more than 16 buckets: %d" % len(buckets)
# the worker (the later part) started after main's 0.8 s of phase_a
worker = max(starts, key=lambda k: min(starts[k]))
assert min(starts[worker]) >= 0.5, "the worker's first bucket starts at %.3f s" % min(starts[worker])
print(len(rows))
EOF
[ "$rc" -eq 0 ] && ok "timeline buckets sum to each thread's total; the worker's lane starts after 0.5 s ($out rows)" \
	|| fail "timeline buckets sum to each thread's total" "$err" "$out"

run "$PLUMB" report --view timeline --time 0.2,0.6 --buckets 4 --format csv ph.plumb
py "a timeline of a slice keeps the recording's clock (buckets from 0.2 s to 0.6 s)" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert rows, "no rows"
lo = min(float(r["start_s"]) for r in rows); hi = max(float(r["end_s"]) for r in rows)
assert abs(lo - 0.2) < 0.11 and abs(hi - 0.6) < 0.11 and lo >= 0.199, (lo, hi)'

run "$PLUMB" report --view timeline --buckets 20 ph.plumb
py "text: a lane per thread, 20 buckets between bars" '
import sys
lanes = [l for l in sys.stdin.read().split("\n") if l.count("|") == 2 and "cpu-clock" in l]
assert len(lanes) == 2, lanes
for l in lanes:
    inner = l.split("|")[1]
    assert len(inner) == 20, (len(inner), l)'

run "$PLUMB" report --view timeline --format svg -o tl.svg ph.plumb
if python3 -c "
import sys, xml.etree.ElementTree as ET
root = ET.parse('tl.svg').getroot()
lanes = [g for g in root.iter('{http://www.w3.org/2000/svg}g') if g.get('class') == 'lane']
assert len(lanes) == 2, len(lanes)
" 2> .pyerr; then ok "svg: one lane per thread"; else fail "svg: one lane per thread" "$(cat .pyerr)"; fi
if command -v rsvg-convert > /dev/null 2>&1; then
	if rsvg-convert tl.svg -o tl.png 2> rsvg.err && [ -s tl.png ]; then ok "the timeline SVG renders (rsvg-convert)"
	else fail "the timeline SVG renders (rsvg-convert)" "$(cat rsvg.err)"; fi
fi

# Errors: a profile without time, a range that means nothing.
printf 'main;work 5\n' > w.folded
run "$PLUMB" report --time 1,2 w.folded
if [ "$rc" -eq 2 ] && printf '%s' "$err" | grep -q "w.folded: the profile has no timed samples"; then
	ok "--time on folded stacks: says the file has no timed samples"
else
	fail "--time on folded stacks: says the file has no timed samples" "rc=$rc" "$err"
fi
run "$PLUMB" report --time 5,1 ph.plumb
if [ "$rc" -eq 2 ] && printf '%s' "$err" | grep -q "the end is before the start"; then
	ok "--time 5,1: the end is before the start"
else
	fail "--time 5,1: the end is before the start" "rc=$rc" "$err"
fi
run "$PLUMB" report --view timeline --buckets 0 ph.plumb
[ "$rc" -eq 2 ] && ok "--buckets 0 is refused" || fail "--buckets 0 is refused" "rc=$rc" "$err"

# JSON: the one report schema, the CSV's rows.
if python3 -c 'import jsonschema' 2> /dev/null; then
	"$PLUMB" report --view timeline --buckets 16 --format json ph.plumb > tl.json
	if python3 - "$E2E_DIR/../../docs/report.schema.json" tl.json tl.csv > .pyout 2>&1 <<'EOF2'
import csv, json, sys, jsonschema
d = json.load(open(sys.argv[2]))
jsonschema.validate(d, json.load(open(sys.argv[1])))
assert d["view"] == "timeline", d["view"]
rows = list(csv.DictReader(open(sys.argv[3])))
assert len(rows) == len(d["rows"]), (len(rows), len(d["rows"]))
for r, j in zip(rows, d["rows"]):
    c = j["cells"]
    assert int(r["value"]) == c["value"] and r["thread"] == c["thread"] and abs(float(r["start_s"]) - c["start_s"]) < 1e-3, (r, c)
EOF2
	then ok "timeline JSON follows the report schema and equals the CSV"
	else fail "timeline JSON follows the report schema and equals the CSV" "$(tail -5 .pyout)"; fi
fi

# The HTML report's timeline: each function's cost per bucket embedded, the
# buckets summing to the flat report's exclusive and inclusive costs; in
# Chromium, a range (report.html#time=START,END) redraws the table as
# plumb report --time START,END prints it.
expect_status "html: a recording's report has a timeline" 0 "$PLUMB" report --format html -o ph.html ph.plumb
"$PLUMB" report --format csv -t 0 ph.plumb > flat.csv
run python3 - ph.html flat.csv <<'EOF2'
import csv, json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
T = json.loads(re.search(r'id="pl-timeline-data">(.*?)</script>', s, re.S).group(1))
assert T["n"] == 100 and len(T["lanes"]) == 2 and T["events"] == ["cpu-clock"], (T["n"], len(T["lanes"]), T["events"])
# keyed by name and module: _init, frame_dummy and the like are in every module
def key(name, module):
    return (name, (module or "").rsplit("/", 1)[-1])
def add(d, k, ex, inc):
    e, i = d.get(k, (0, 0))
    d[k] = (e + ex, i + inc)
got = {}
for f in T["fns"]:
    ex = sum(c[1][0] for c in f["b"]); inc = sum(c[2][0] for c in f["b"])
    assert all(0 <= c[0] < 100 for c in f["b"]), f
    add(got, key(f["name"], f.get("module")), ex, inc)
want = {}
for r in csv.DictReader(open(sys.argv[2])):
    add(want, key(r["function"], r["module"]), int(r["exclusive.cpu-clock"]), int(r["inclusive.cpu-clock"]))
assert got == want, "bucket sums %s\nflat report %s" % (sorted(got.items())[:8], sorted(want.items())[:8])
lanes = sum(sum(l["v"]) for l in T["lanes"])
assert lanes == sum(e for e, i in want.values()), (lanes, sum(e for e, i in want.values()))
print(len(got))
EOF2
[ "$rc" -eq 0 ] && ok "html: each function's buckets sum to the flat report's exclusive and inclusive ($out functions)" \
	|| fail "html: each function's buckets sum to the flat report's exclusive and inclusive" "$err" "$out"

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	skip "html timeline in a browser" "chromium not installed"
	return 0 2> /dev/null || exit 0
fi
# the first 40 of 100 buckets: main's phase_a, before the worker started
range=$(python3 -c '
import json, re
s = open("ph.html", encoding="utf-8").read()
T = json.loads(re.search(r"id=\"pl-timeline-data\">(.*?)</script>", s, re.S).group(1))
print("%.9f,%.9f" % (T["start"], T["start"] + 40 * T["bucket"]))')
"$PLUMB" report --time "$range" --format csv ph.plumb > range.csv
timeout 120 "$browser" --headless --disable-gpu --no-sandbox --enable-logging=stderr --v=0 \
	--dump-dom "file://$PWD/ph.html#time=$range" > ph.dom 2> ph.dom.err
run python3 - ph.dom range.csv <<'EOF2'
import csv, html, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
flat = dom.split('<section id="pl-flat">', 1)[1].split("</section>", 1)[0]
body = flat.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
rows = [[html.unescape(re.sub("<[^>]*>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
        for r in re.findall(r"<tr[^>]*>(.*?)</tr>", body)]
want = list(csv.DictReader(open(sys.argv[2])))
assert want and want[0]["function"] == "phase_a", want[:2]
assert len(rows) == len(want), (len(rows), len(want), rows[:3])
for g, w in zip(rows, want):
    # % cpu-clock, Cumul %, Excl., Incl., Calls, Function
    assert g[5] == w["function"], (g, w)
    assert int(g[2].replace(",", "")) == int(w["exclusive.cpu-clock"]), (g, w)
    assert int(g[3].replace(",", "")) == int(w["inclusive.cpu-clock"]), (g, w)
    assert abs(float(g[0]) - float(w["percent.cpu-clock"])) <= 0.05 + 1e-9, (g, w)
sel = re.search(r'id="pl-tl-sel"[^>]*>(.*?)</p>', dom, re.S).group(1)
assert "Selected 0.000-" in sel and "buckets 1-40 of 100" in sel, sel
assert dom.count('class="pl-bar"') >= 50, dom.count('class="pl-bar"')
print(len(rows))
EOF2
[ "$rc" -eq 0 ] && ok "html timeline in Chromium: a range's table is plumb report --time's ($out rows)" \
	|| fail "html timeline in Chromium: a range's table is plumb report --time's" "$err" "$(tail -3 ph.dom.err)"
run grep -i "uncaught\|CONSOLE.*error" ph.dom.err
same "html timeline in Chromium: no script errors" "$out" ""
