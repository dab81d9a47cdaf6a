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
