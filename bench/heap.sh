#!/bin/sh
# Heap tracing cost: plumb record --heap (exact), --heap=sample (512 KiB)
# and heaptrack on the same programs, side by side in one hyperfine run
# per workload: a malloc loop (bench/heap_loop.c, 20 M malloc+free pairs),
# an allocation-heavy Python run (PYTHONMALLOC=malloc, small dicts and
# lists) and GCC's compiler proper (cc1plus -O2 on a template-heavy file;
# run directly, as heaptrack does not follow g++'s children). Wall time from
# start to profile written, so each tool's analysis is counted too.
#
#   sh bench/heap.sh      (ROUNDS, default 3; PLUMB, default build/plumb)
set -eu
cd "$(dirname "$0")/.."

PLUMB=${PLUMB:-build/plumb}
ROUNDS=${ROUNDS:-3}
LOOP_N=${LOOP_N:-50000000}
PY_N=${PY_N:-300000}
WORK=bench/work/heap
RESULTS=bench/RESULTS.md

need() {
	command -v "$1" >/dev/null 2>&1 || { echo "bench: $1 is missing ($2)" >&2; exit 1; }
}
need gcc "Debian package gcc"
need g++ "Debian package g++"
need python3 "Debian package python3"
need hyperfine "Debian package hyperfine"
[ -x "$PLUMB" ] || { echo "bench: $PLUMB is not built (make)" >&2; exit 1; }
HEAPTRACK=$(command -v heaptrack || true)
[ -n "$HEAPTRACK" ] || echo "bench: heaptrack is missing (Debian package heaptrack): its column stays empty" >&2
mkdir -p "$WORK"
W=$(cd "$WORK" && pwd)
P=$(cd "$(dirname "$PLUMB")" && pwd)/$(basename "$PLUMB")

gcc -O2 -g bench/heap_loop.c -o "$W/loop"
# the system's Python itself, not a wrapper script (pyenv shims are shell
# scripts: their processes would be traced too)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(python3 -c 'import sys; print(sys.executable)')
cat > "$W/py.py" <<'PY'
import sys
n = int(sys.argv[1])
keep = []
for i in range(n):
    d = {"a": i, "b": [i, i + 1, str(i)], "c": (i, i * 2)}
    keep.append(d)
    if len(keep) > 1000:
        keep = keep[500:]
PY
cat > "$W/tmpl.cpp" <<'CPP'
#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>
template <int N> struct W {
	std::map<std::string, std::vector<std::variant<int, double, std::string>>> m;
	std::function<int(int)> f = [](int x) { return x * N; };
	int run() {
		std::vector<int> v(100);
		std::sort(v.begin(), v.end(), [](int a, int b) { return a > b; });
		m["k"].push_back(N);
		return f(v[0]) + (int)m.size();
	}
};
template <int N> int chain() { return W<N>().run() + chain<N - 1>(); }
template <> int chain<0>() { return 0; }
int main() { return chain<16>(); }
CPP
CC1PLUS=$(g++ -print-prog-name=cc1plus)
INC=$(echo | g++ -x c++ -E -v - 2>&1 | sed -n '/#include <...> search starts here:/,/End of search list./p' | grep '^ ' | sed 's/^ */-isystem /' | tr '\n' ' ')

# workload NAME COMMAND: one hyperfine run of the plain command, plumb
# --heap, plumb --heap=sample and heaptrack on it.
workload() {
	name=$1 cmd=$2
	set -- -n plain "$cmd" \
		-n plumb-cpu "$P record -q --sampler=signal -o $W/c.plumb -- $cmd" \
		-n plumb-heap "$P record -q --heap -o $W/h.plumb -- $cmd" \
		-n plumb-sample "$P record -q --heap=sample -o $W/s.plumb -- $cmd"
	# heaptrack writes heaptrack.NAME.PID.zst into the current directory
	[ -n "$HEAPTRACK" ] && set -- "$@" -n heaptrack "$HEAPTRACK $cmd"
	hyperfine --style none --runs "$ROUNDS" --warmup 1 --export-json "$W/$name.json" \
		--prepare "sh -c 'rm -f $W/heaptrack.*'" "$@" > /dev/null
}

cd "$W"
workload loop "$W/loop $LOOP_N"
# in the environment, not through env(1): heaptrack follows no child process
export PYTHONMALLOC=malloc
workload python "$PY $W/py.py $PY_N"
workload cc1plus "$CC1PLUS -quiet -O2 $INC $W/tmpl.cpp -o /dev/null"
cd - > /dev/null

# the number of allocations of each workload, from the exact profile
allocs() {
	"$PLUMB" report --format csv -m allocs --view parts "$1" 2>/dev/null |
		python3 -c 'import csv,sys; print(sum(int(r["exclusive.allocs"] or 0) for r in csv.DictReader(sys.stdin)))'
}
for n in loop python cc1plus; do
	case $n in
	loop) cmd="$W/loop $LOOP_N" ;;
	python) cmd="$PY $W/py.py $PY_N" ;;
	cc1plus) cmd="$CC1PLUS -quiet -O2 $INC $W/tmpl.cpp -o /dev/null" ;;
	esac
	(cd "$W" && sh -c "$P record -q --heap -o $W/$n.plumb -- $cmd" > /dev/null 2>&1)
	echo "$n $(allocs "$W/$n.plumb")"
done > "$W/allocs.txt"

LOAD=$(uptime | sed 's/.*load average: //')
python3 - "$W" "$LOAD" "$ROUNDS" <<'PY' | tee /dev/stderr | python3 bench/section.py "$RESULTS" heap
import json, sys
w, load, rounds = sys.argv[1], sys.argv[2], sys.argv[3]
allocs = dict(l.split() for l in open(w + "/allocs.txt"))
print("## heap (bench/heap.sh)\n")
print("Wall time from start to profile written (hyperfine, %s runs each, mean; load average %s"
      " on 2 cores). Ratio: to the plain run. ns/alloc: time added per allocation (with its free)."
      % (rounds, load))
print("The aims (issue 18): exact tracing in at most half of heaptrack's time; sampled at most"
      " 1.3x on the malloc loop.\n")
print("plumb --sampler=signal (CPU samples only) is the recorder's own cost (symbols, the .plumb"
      " file), which --heap adds to; ns/alloc counts from the plain run.\n")
print("| workload | allocations | plain s | plumb cpu only s (x) | plumb --heap s (x) | --heap=sample s (x) |"
      " heaptrack s (x) | --heap / heaptrack | ns/alloc: --heap, sample, heaptrack |")
print("|---|---|---|---|---|---|---|---|---|")
for n in ("loop", "python", "cc1plus"):
    res = {r["command"]: r["mean"] for r in json.load(open("%s/%s.json" % (w, n)))["results"]}
    base = res["plain"]
    a = int(allocs.get(n, "0"))
    def cell(k):
        return "%.2f (%.2fx)" % (res[k], res[k] / base) if k in res else "-"
    def ns(k):
        return "%.0f" % ((res[k] - base) / a * 1e9) if k in res and a else "-"
    ht = res.get("heaptrack")
    print("| %s | %s | %.2f | %s | %s | %s | %s | %s | %s, %s, %s |" % (
        n, "{:,}".format(a), base, cell("plumb-cpu"), cell("plumb-heap"), cell("plumb-sample"), cell("heaptrack"),
        "%.2f" % (res["plumb-heap"] / ht) if ht else "-", ns("plumb-heap"), ns("plumb-sample"), ns("heaptrack")))
PY
