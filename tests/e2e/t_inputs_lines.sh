# Exact call graph with per-line costs from plumb record of a program built
# with plumb cc: every basic block's runs, per calling context, at its
# source line; the lines view, annotate and the butterfly work with exact
# numbers; call counts equal Callgrind's on the same binary.
T="$E2E_DIR/../programs"

if ! command -v cc > /dev/null 2>&1; then
	skip "plumb cc: per-line costs" "no cc on PATH"
	return 0 2> /dev/null || exit 0
fi

for cc in gcc clang; do
	if ! command -v $cc > /dev/null 2>&1; then
		skip "per-line costs with $cc" "no $cc"
		continue
	fi
	# per-line costs need a hook per block: gcc without the plugin, which
	# counts blocks inline (checked below)
	expect_status "plumb cc --cc=$cc -g builds the kernels" 0 env PLUMB_INPUTS_PLUGIN=no "$PLUMB" cc --cc=$cc -O2 -g "$T/inp_kernels.c" -o k_$cc
	run "$PLUMB" record -o k_$cc.plumb ./k_$cc 5
	run "$PLUMB" report --view flat --format csv k_$cc.plumb
	flat=$out
	run "$PLUMB" report --view lines --format csv k_$cc.plumb
	lines=$out
	out=$(printf '%s\n--\n%s\n' "$flat" "$lines")
	py "$cc: per-line costs add up to each function's exclusive cost, on lines of inp_kernels.c" '
import csv, io, sys
flat, lines = sys.stdin.read().split("\n--\n")
def col(rows, prefix):
    return [k for k in rows[0] if k.startswith(prefix)][0]
f = list(csv.DictReader(io.StringIO(flat)))
l = list(csv.DictReader(io.StringIO(lines)))
fe, le = col(f, "exclusive"), col(l, "exclusive")
excl = {r["function"]: int(r[fe]) for r in f}
by_fn = {}
for r in l:
    if int(r[le]) == 0:
        continue
    assert r["file"].endswith("inp_kernels.c") and int(r["line"]) > 0, r
    by_fn[r["function"]] = by_fn.get(r["function"], 0) + int(r[le])
for fn in ("sum", "isort", "msort", "main"):
    assert by_fn.get(fn) == excl[fn], (fn, by_fn, excl)
'
	out=$lines
	py "$cc: the insertion sort's inner loop (lines 22-24) is its costliest part" '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r["function"] == "isort"]
col = [k for k in rows[0] if k.startswith("exclusive")][0]
top = max(rows, key=lambda r: int(r[col]))
assert 22 <= int(top["line"]) <= 24, top
'
	run "$PLUMB" annotate k_$cc.plumb
	case "$out" in
	*"Auto-annotated source:"*inp_kernels.c*"s += a[i];"*) ok "$cc: annotate shows the source with costs" ;;
	*) fail "$cc: annotate shows the source with costs" "$(printf '%s' "$out" | head -30)" ;;
	esac
	run "$PLUMB" report --butterfly msort --format csv k_$cc.plumb
	py "$cc: butterfly of the merge sort: exact calls from main (5) and from itself" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
callers = {r["function"]: int(r["calls"]) for r in rows if r["kind"] == "caller"}
assert callers == {"main": 5, "msort": sum(2 * n - 2 for n in range(20, 101, 20))}, callers
'

	# Callgrind on the same binary (run alone, the hooks return at once):
	# the same calls of every routine of the program.
	if command -v valgrind > /dev/null 2>&1; then
		run valgrind --tool=callgrind --callgrind-out-file=cg_$cc.out ./k_$cc 5
		cg=$(python3 -c '
import re, sys
names, calls, cfn = {}, {}, None
def name(v):
    m = re.match(r"\((\d+)\)(?: (.*))?", v)
    if not m:
        return v
    if m.group(2) is not None:
        names[m.group(1)] = m.group(2)
    return names[m.group(1)]
for l in open(sys.argv[1]):
    l = l.rstrip("\n")
    if l.startswith("fn="):
        name(l[3:])
    elif l.startswith("cfn="):
        cfn = name(l[4:]).split("\x27")[0]
    elif l.startswith("calls=") and cfn:
        calls[cfn] = calls.get(cfn, 0) + int(l[6:].split()[0])
print(" ".join("%s=%d" % (f, calls.get(f, 0)) for f in ("main", "sum", "isort", "msort")))
' cg_$cc.out)
		out=$flat
		pl=$(printf '%s\n' "$flat" | python3 -c '
import csv, sys
c = {r["function"]: int(r["calls"]) for r in csv.DictReader(sys.stdin)}
print(" ".join("%s=%d" % (f, c.get(f, 0)) for f in ("main", "sum", "isort", "msort")))
')
		same "$cc: exact calls equal Callgrind's (main, sum, isort, msort)" "$pl" "$cg"
	else
		skip "$cc: calls against Callgrind" "no valgrind"
	fi
done

# Without plumb record the runtime counts no blocks: plain aprof reports.
mkdir rep
PLUMB_APROF_DIR=rep ./k_gcc 2 > /dev/null
same "PLUMB_APROF_DIR alone: no block lines in the aprof report" "$(grep -c '^c plumb-block' rep/*.aprof)" "0"
mkdir rep2
PLUMB_APROF_DIR=rep2 PLUMB_APROF_LINES=yes ./k_gcc 2 > /dev/null
same "PLUMB_APROF_LINES=yes: block lines, as aprof comments" "$(grep -c '^c plumb-blocks complete' rep2/*.aprof)" "1"

# Built with the gcc plugin (the default where it is installed), blocks are
# counted inline and there are no per-line costs: record says so, and the
# function-level numbers are the same as without the plugin.
if [ -e "$(dirname "$PLUMB")/plumb-inputs-gcc.so" ] && command -v gcc > /dev/null 2>&1; then
	"$PLUMB" cc --cc=gcc -O2 -g "$T/inp_kernels.c" -o k_plugin
	run "$PLUMB" record -o k_plugin.plumb ./k_plugin 5
	if [ "$rc" -eq 0 ] && printf '%s' "$err" | grep -q "no per-line costs: the program was built with plumb cc's gcc plugin"; then
		ok "plugin build: record says there are no per-line costs, and why"
	else
		fail "plugin build: record says there are no per-line costs, and why" "rc=$rc" "$err"
	fi
	"$PLUMB" report --format csv -m bb-count k_plugin.plumb | sort > flat_plugin.csv
	"$PLUMB" report --format csv -m bb-count k_gcc.plumb 2>/dev/null | sort > flat_gcc.csv
	if python3 - flat_plugin.csv flat_gcc.csv > .pyout 2>&1 <<'PY'
import csv, sys
def excl(path):
    return {r["function"]: int(r["exclusive.bb-count"]) for r in csv.DictReader(open(path))
            if r.get("function") and r["function"] != "function"}
a, b = excl(sys.argv[1]), excl(sys.argv[2])
for f in ("sum", "isort", "msort"):
    assert a.get(f) == b.get(f), (f, "plugin", a.get(f), "hooks", b.get(f))
PY
	then ok "plugin build: the same exclusive block counts per function as the hooks' build"
	else fail "plugin build: the same exclusive block counts per function as the hooks' build" "$(tail -3 .pyout)"; fi
fi
