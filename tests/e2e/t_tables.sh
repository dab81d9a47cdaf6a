# Tables that fit (--width honoured exactly, names whole at 80 columns, pipes
# never cut), units and totals (record -c N, folded --event-name/--unit, gmon
# time), and the fprof view on a real recording (issue 16, items 3, 4, 10).
P=$E2E_DIR/../programs

# widest FILE: the widest line of FILE in code points.
widest() {
	python3 -c 'import sys; print(max((len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")), default=0))' "$1"
}

# 1. Folded stacks with long names, paths and a deep recursion.
python3 - <<'EOF'
deep = ";".join(["main"] + ["recurse_through_the_tree"] * 60 + ["leaf_work"])
with open("deep.folded", "w") as f:
    f.write(deep + " 40\n")
    f.write("main;parse_the_configuration_file;read_one_line_of_text [/usr/lib/x86_64-linux-gnu/libc.so.6] 25\n")
    f.write("main;compute_the_answer_to_everything 1234567\n")
    f.write("main;" + "a" * 150 + " 3\n")
EOF
bad=""
for view in flat tree bottom-up modules parts flame fprof "butterfly --select recurse_through_the_tree"; do
	for w in 10 20 33 40 57 60 80 100 131; do
		# shellcheck disable=SC2086
		"$PLUMB" report --width $w --threshold 0 --view $view deep.folded > o.txt 2> e.txt ||
			bad="$bad
$view at $w: exit $? $(cat e.txt)"
		got=$(widest o.txt)
		[ "$got" -le "$w" ] || bad="$bad
$view at $w: a line of $got columns"
	done
done
[ -z "$bad" ] && ok "no line longer than --width (8 views x 9 widths)" || fail "no line longer than --width" "$bad"

run "$PLUMB" report --width 60 --view tree --threshold 0 deep.folded
expect_out "deep tree rows say their depth" "↳61 leaf_work"
run "$PLUMB" report --width 60 deep.folded
expect_out "narrow: numbers compact" "1.2M"
expect_out "narrow: the one event said above the header" "Event: samples"
# A pipe gets no width: nothing is cut, numbers stay exact.
run "$PLUMB" report --view tree --threshold 0 deep.folded
expect_out "pipe: the long name whole" "$(printf 'a%.0s' $(seq 150))"
expect_out "pipe: exact numbers" "1,234,567"
printf '%s\n' "$out" | grep -q '↳' && fail "pipe: indentation never capped" "a ↳ in the pipe" ||
	ok "pipe: indentation never capped"

# Notes wrap: the <cycle N> note of a call graph at 60 columns.
run "$PLUMB" report --width 60 "$DATA/cycles/mutual.callgrind"
if [ "$rc" -eq 0 ]; then
	printf '%s\n' "$out" > cyc.txt
	got=$(widest cyc.txt)
	[ "$got" -le 60 ] && ok "the cycle note wraps at 60" || fail "the cycle note wraps at 60" "widest line $got"
	expect_out "the cycle note is all there" "--cycles=no hides"
else
	skip "the cycle note wraps" "no tests/data/cycles/mutual.callgrind"
fi

# 2. A recording: function names whole at 80 columns, every view fits.
gcc -O2 -g "$P/rec_shares.c" -o shares
if ! "$PLUMB" record -q --sampler perf -o rec.plumb ./shares 0.3 2> rec.err; then
	skip "recorded tables" "perf_event_open refused: $(head -1 rec.err)"
else
	run "$PLUMB" report --format csv --threshold 0 rec.plumb
	printf '%s\n' "$out" > rec.csv
	run "$PLUMB" report --width 80 --threshold 0 rec.plumb
	printf '%s\n' "$out" > rec80.txt
	py "80 columns: every function name of 30 characters or fewer is whole" '
import csv, sys
text = sys.stdin.read()
names = {r["function"] for r in csv.DictReader(open("rec.csv")) if r["function"] and len(r["function"]) <= 30}
assert names, "no functions"
cut = sorted(n for n in names if n not in text)
assert not cut, cut
assert max(len(l) for l in text.splitlines()) <= 80'
	bad=""
	# with --threshold 40 work_b and work_c (30% and 20%) are cut: the
	# "Not shown:" line under the table wraps to the width too
	for view in flat lines files modules tree bottom-up parts fprof "callers --select work_a" \
		"flat --threshold 40" "tree --threshold 40"; do
		for w in 25 50 80 120; do
			# shellcheck disable=SC2086
			"$PLUMB" report --width $w --view $view rec.plumb > o.txt 2> e.txt || bad="$bad
$view at $w: exit $? $(cat e.txt)"
			got=$(widest o.txt)
			[ "$got" -le "$w" ] || bad="$bad
$view at $w: a line of $got columns"
		done
	done
	[ -z "$bad" ] && ok "recording: no line longer than --width" || fail "recording: no line longer than --width" "$bad"

	run "$PLUMB" report rec.plumb
	py "-F: samples, and the kernel's count beside" '
import re, sys
m = re.search(r"Total: ([\d,]+) samples of cpu-clock \(the kernel counted ([\d,]+) ns\)", sys.stdin.read())
assert m, "no total line"
s, ns = (int(g.replace(",", "")) for g in m.groups())
# 1000 Hz: about 1 ms per sample, loosely (the kernel adapts the period)
assert s > 0 and 0.2e6 * s <= ns <= 5e6 * s, (s, ns)'

	# 3. fprof: HP Caliper's table on the same recording (compiled above).
	run "$PLUMB" report --view fprof --format json rec.plumb
	py "fprof: thread x function rows, statements and instructions below" '
import json, re, sys
d = json.load(sys.stdin)
keys = [c["key"] for c in d["columns"]]
assert keys == ["percent.cpu-clock", "cumulative", "samples.cpu-clock", "thread", "module",
                "function", "file", "line", "statement"], keys
rows = d["rows"]
fns = [r for r in rows if r["depth"] == 0]
work = [r for r in fns if r["cells"]["function"] == "work_a"]
assert work, [r["cells"]["function"] for r in fns]
w = work[0]["cells"]
assert re.fullmatch(r"\d+ .*\(main\)", w["thread"]), w["thread"]
assert w["module"].endswith("/shares") and w["file"].endswith("rec_shares.c"), w
i = rows.index(work[0])
sub = []
for r in rows[i + 1:]:
    if r["depth"] == 0:
        break
    sub.append(r)
stmts = [r for r in sub if r["depth"] == 1]
insns = [r for r in sub if r["depth"] == 2]
assert stmts and insns, sub
assert all(re.fullmatch(r"~?\d+", r["cells"]["line"]) for r in stmts), stmts
assert all(re.match(r"\*?>", r["cells"]["statement"]) for r in stmts), stmts
assert any("SPIN" in r["cells"]["statement"] or "sink" in r["cells"]["statement"] for r in stmts), stmts
assert all(re.fullmatch(r"0x[0-9a-f]+", r["cells"]["line"]) for r in insns), insns
assert all(r["cells"]["statement"] for r in insns), insns
# the statements of a function add up to it, the instructions to their statement
assert sum(r["cells"]["samples.cpu-clock"] for r in stmts) == work[0]["cells"]["samples.cpu-clock"]
assert sum(r["cells"]["samples.cpu-clock"] for r in insns) == work[0]["cells"]["samples.cpu-clock"]
assert abs(sum(r["cells"]["percent.cpu-clock"] for r in fns) - 100) < 0.01'
	if python3 -c "import jsonschema" 2> /dev/null; then
		run "$PLUMB" report --view fprof --format json rec.plumb
		py "fprof json: valid against docs/report.schema.json" "
import json, sys, jsonschema
jsonschema.validate(json.load(sys.stdin), json.load(open('$E2E_DIR/../../docs/report.schema.json')))
"
	fi
	run "$PLUMB" report --view fprof --select work_b rec.plumb
	expect_out "fprof text: the disassembly of work_b" "0x"
	expect_out "fprof text: a statement row" ">"
fi

# 4. Units: -c 100 -e minor-faults counts faults, with the samples beside.
cat > faults.c <<'EOF'
#include <sys/mman.h>
/* 40 x 2048 small pages, each touched once: about 82,000 minor faults. */
int main(void)
{
	for (int i = 0; i < 40; i++) {
		size_t len = 2048 * 4096;
		char *p = mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		madvise(p, len, MADV_NOHUGEPAGE);
		for (size_t o = 0; o < len; o += 4096)
			p[o] = 1;
		munmap(p, len);
	}
	return 0;
}
EOF
gcc -O1 -g faults.c -o faults
if ! "$PLUMB" record -q --sampler perf -c 100 -e minor-faults -o faults.plumb ./faults 2> f.err; then
	skip "minor-faults every 100" "$(head -1 f.err)"
else
	run "$PLUMB" report faults.plumb
	py "text: the total in faults and the samples, labelled" '
import re, sys
m = re.search(r"Total: ([\d,]+) minor-faults \(([\d,]+) samples, one per 100\)", sys.stdin.read())
assert m, "no total line"
n, s = (int(g.replace(",", "")) for g in m.groups())
assert s > 200 and n == 100 * s, (n, s)'
	run "$PLUMB" report --format json faults.plumb
	py "json: events[].period and samples, totals in faults" '
import json, sys
d = json.load(sys.stdin)
e = d["events"][0]
assert e["period"] == 100 and e["unit"] == "events", e
assert d["totals"][0] == 100 * e["samples"], (d["totals"], e)
assert sum(r["cells"]["samples.minor-faults"] for r in d["rows"]) == e["samples"]'
	if python3 -c "import jsonschema" 2> /dev/null; then
		run "$PLUMB" report --format json faults.plumb
		py "json with a period: valid against docs/report.schema.json" "
import json, sys, jsonschema
jsonschema.validate(json.load(sys.stdin), json.load(open('$E2E_DIR/../../docs/report.schema.json')))
"
	fi
	run "$PLUMB" report --format csv faults.plumb
	py "csv: a samples column beside the fault counts" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert all(int(r["exclusive.minor-faults"]) == 100 * int(r["samples.minor-faults"]) for r in rows), rows[:3]'
fi

# 5. Folded stacks in nanoseconds: --event-name and --unit, through every writer.
printf 'main;wait_for_io 3000000\nmain;compute 1000000\n' > offcpu.folded
run "$PLUMB" report --event-name off-cpu --unit ns offcpu.folded
expect_out "text: the total with its unit" "Total: 4,000,000 ns of off-cpu (0.004 s)"
expect_out "text: columns name the event" "Excl. off-cpu"
run "$PLUMB" report --event-name off-cpu --unit ns --format json offcpu.folded
py "json: the event and its unit" '
import json, sys
d = json.load(sys.stdin)
assert d["events"][0]["name"] == "off-cpu" and d["events"][0]["unit"] == "ns", d["events"]'
expect_status "convert to pprof with the unit" 0 "$PLUMB" convert --event-name off-cpu --unit ns offcpu.folded -o off.pb.gz
run "$PLUMB" info off.pb.gz
expect_out "pprof: the sample type carries the name and unit" "off-cpu"
expect_out "pprof: ... and the unit" "ns"
expect_status "convert to speedscope" 0 "$PLUMB" convert --event-name off-cpu --unit ns offcpu.folded -o off.speedscope.json
grep -q '"unit":"nanoseconds"' off.speedscope.json && ok "speedscope: nanoseconds" ||
	fail "speedscope: nanoseconds" "$(head -c 300 off.speedscope.json)"
expect_status "convert to callgrind" 0 "$PLUMB" convert --event-name off-cpu --unit ns offcpu.folded -o callgrind.out.off
grep -q '^events: off-cpu' callgrind.out.off && ok "callgrind: events: off-cpu" ||
	fail "callgrind: events: off-cpu" "$(head -5 callgrind.out.off)"
expect_err "--unit on a profile that names its events: a usage error" 2 "folded stacks" \
	"$PLUMB" report --unit ns callgrind.out.off
expect_err "an event name with a space: a usage error" 2 "without spaces" \
	"$PLUMB" report --event-name "off cpu" offcpu.folded

# 6. gmon.out: the total says its unit.
cat > pg.c <<'EOF'
#include <time.h>
static volatile double x;
__attribute__((noinline)) void spin(void) { for (int i = 0; i < 20000000; i++) x += i; }
int main(void) { spin(); return 0; }
EOF
if gcc -pg -g -O1 -o a.out pg.c 2> pg.err && ./a.out && [ -f gmon.out ]; then
	run "$PLUMB" report gmon.out
	expect_out "gmon: Total in ns of time" " ns of time"
else
	skip "gmon total unit" "no gcc -pg run: $(head -1 pg.err)"
fi

# C++ names too wide for their column hide their template arguments, then
# their parameters, before they lose their middle; CSV keeps them whole.
long='app::detail::Registry<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::vector<int, std::allocator<int> > >::checksum_everything_in_registry() const'
sorter='void std::__introsort_loop<__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, long, __gnu_cxx::__ops::_Iter_less_iter>(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, __gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, long, __gnu_cxx::__ops::_Iter_less_iter)'
printf 'main;%s 60\nmain;%s 40\n' "$long" "$sorter" > cxx.folded
run "$PLUMB" report -w 90 --no-pager cxx.folded
case $out in
*"app::detail::Registry<...>::checksum_everything_in_registry() const"*"void std::__introsort_loop<...>(...)"*)
	ok "C++ names at 90 columns: template arguments and parameters hidden, the name whole" ;;
*) fail "C++ names at 90 columns: template arguments and parameters hidden, the name whole" "$out" ;;
esac
run "$PLUMB" report -w 80 --format csv cxx.folded
same "CSV keeps a C++ name whole" "$(printf '%s\n' "$out" | grep -c 'checksum_everything_in_registry() const')" 1
printf '%s\n' "$out" | grep -qF "$long" && ok "CSV's name is the whole name" || fail "CSV's name is the whole name" "$out"

# Many events at 80 columns: the costs of all but the first go before a
# name under 40 columns is cut.
cat > events.cg <<EOC
events: Ir Dr Dw I1mr D1mr D1mw
fn=$sorter
1 90000000 30000000 20000000 10 2000 300
fn=main
2 10000000 3000000 2000000 1 200 30
EOC
run "$PLUMB" report -w 80 --no-pager events.cg
case $out in
*"void std::__introsort_loop<...>(...)"*) ok "many events at 80 columns: a 36-column name whole" ;;
*) fail "many events at 80 columns: a 36-column name whole" "$out" ;;
esac
[ "$(widest .out)" -le 80 ] && ok "many events at 80 columns: fits" || fail "many events at 80 columns: fits" "$(widest .out) columns"

# A deep C++ recursion at 80 columns: past a third of the column the rows
# say their depth, and keep their (shortened) names whole.
python3 - "$sorter" <<'PY'
import sys
with open("deepcxx.folded", "w") as f:
    f.write(";".join(["main"] + [sys.argv[1]] * 20) + " 10\n")
PY
run "$PLUMB" report --view tree -w 80 --threshold 0 --no-pager deepcxx.folded
case $out in
*"↳20 void std::__introsort_loop<...>(...)"*) ok "deep C++ rows: depth said, the name whole" ;;
*) fail "deep C++ rows: depth said, the name whole" "$out" ;;
esac
