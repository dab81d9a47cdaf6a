#!/bin/sh
# Benchmark programs built with `plumb cc` (docs/inputs.md) side by side in
# one hyperfine run: the plain -O2 build, the instrumented build run alone
# (hooks that return at once), the instrumented build measuring
# (PLUMB_APROF_DIR: rms, contexts, points, reports written), the same
# without the gcc plugin (PLUMB_INPUTS_PLUGIN=no: out-of-line hooks), and
# valgrind --tool=callgrind on the plain build (exact calls too); then the
# peak memory of each. Workload: tests/programs/inp_kernels.c (sum,
# insertion sort, merge sort over growing sizes).
#
#   sh bench/inputs.sh      (make bench runs it through bench/run.sh)
#
# Environment: PLUMB (default build/plumb), STEPS (the workload's argument,
# default 100), RUNS (hyperfine runs, default 5).
set -eu
cd "$(dirname "$0")/.."

PLUMB=${PLUMB:-build/plumb}
STEPS=${STEPS:-100}
RUNS=${RUNS:-5}
WORK=bench/work/inputs
RESULTS=bench/RESULTS.md

for t in gcc hyperfine valgrind python3; do
	command -v "$t" > /dev/null 2>&1 || { echo "bench: $t is missing" >&2; exit 1; }
done
[ -x "$PLUMB" ] || { echo "bench: $PLUMB is not built (make)" >&2; exit 1; }
mkdir -p "$WORK/rep"
gcc -O2 -g tests/programs/inp_kernels.c -o "$WORK/plain"
"$PLUMB" cc -O2 -g tests/programs/inp_kernels.c -o "$WORK/instr"
PLUMB_INPUTS_PLUGIN=no "$PLUMB" cc -O2 -g tests/programs/inp_kernels.c -o "$WORK/noplugin"

hyperfine -N --warmup 1 --runs "$RUNS" --export-markdown "$WORK/times.md" --prepare "rm -f $WORK/rep/*" \
	-n plain "$WORK/plain $STEPS" \
	-n "plumb cc, run alone" "$WORK/instr $STEPS" \
	-n "plumb cc, measuring" "env PLUMB_APROF_DIR=$WORK/rep $WORK/instr $STEPS" \
	-n "plumb cc without the plugin, measuring" "env PLUMB_APROF_DIR=$WORK/rep $WORK/noplugin $STEPS" \
	-n callgrind "valgrind --tool=callgrind --callgrind-out-file=$WORK/cg.out $WORK/plain $STEPS"

rss() {
	/usr/bin/time -f %M "$@" > /dev/null 2> "$WORK/rss" || true
	tail -1 "$WORK/rss"
}
{
	echo "## plumb cc (input-sensitive runtime)"
	echo
	echo "\`sh bench/inputs.sh\` on $(date -u +%Y-%m-%d), load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs, tests/programs/inp_kernels.c $STEPS, gcc -O2:"
	echo
	cat "$WORK/times.md"
	echo
	echo "| peak memory (KB) | plain | plumb cc, measuring | without the plugin | callgrind |"
	echo "|---|---|---|---|---|"
	rm -f "$WORK/rep/"*
	echo "| | $(rss "$WORK/plain" "$STEPS") | $(rss env PLUMB_APROF_DIR="$WORK/rep" "$WORK/instr" "$STEPS") | $(rss env PLUMB_APROF_DIR="$WORK/rep" "$WORK/noplugin" "$STEPS") | $(rss valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" "$WORK/plain" "$STEPS") |"
} | python3 bench/section.py "$RESULTS" inputs
echo "bench: results in $RESULTS (section inputs)"
