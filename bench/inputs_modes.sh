#!/bin/sh
# What each measuring mode of a program built with `plumb cc` costs, side
# by side in one hyperfine run (docs/inputs.md): the plain -O2 build; the
# gcc build measuring rms only (PLUMB_APROF_DIR), with per-line costs too
# (PLUMB_APROF_LINES: what plumb record does), with drms, and with the
# cost in microseconds; the clang build with rms and per-line costs.
# User time is the runtime's own work (wall time on a loaded machine is
# noisy). Workload: tests/programs/inp_kernels.c.
#
#   sh bench/inputs_modes.sh
#
# Environment: PLUMB (default build/plumb), STEPS (the workload's argument,
# default 60), RUNS (hyperfine runs, default 7).
set -eu
cd "$(dirname "$0")/.."

PLUMB=${PLUMB:-build/plumb}
STEPS=${STEPS:-60}
RUNS=${RUNS:-7}
WORK=bench/work/inputs_modes
RESULTS=bench/RESULTS.md

for t in gcc clang hyperfine python3; do
	command -v "$t" > /dev/null 2>&1 || { echo "bench: $t is missing" >&2; exit 1; }
done
[ -x "$PLUMB" ] || { echo "bench: $PLUMB is not built (make)" >&2; exit 1; }
mkdir -p "$WORK/rep"
gcc -O2 -g tests/programs/inp_kernels.c -o "$WORK/plain"
"$PLUMB" cc -O2 -g tests/programs/inp_kernels.c -o "$WORK/gcc"
"$PLUMB" cc --cc=clang -O2 -g tests/programs/inp_kernels.c -o "$WORK/clang"

R="env PLUMB_APROF_DIR=$WORK/rep"
hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$WORK/times.json" \
	--prepare "rm -f $WORK/rep/*" \
	-n "plain -O2" "$WORK/plain $STEPS" \
	-n "gcc: rms" "$R $WORK/gcc $STEPS" \
	-n "gcc: rms + per-line costs" "$R PLUMB_APROF_LINES=yes $WORK/gcc $STEPS" \
	-n "gcc: drms" "$R PLUMB_APROF_DRMS=yes $WORK/gcc $STEPS" \
	-n "gcc: rms, --cost time" "$R PLUMB_APROF_COST=time $WORK/gcc $STEPS" \
	-n "clang: rms" "$R $WORK/clang $STEPS" \
	-n "clang: rms + per-line costs" "$R PLUMB_APROF_LINES=yes $WORK/clang $STEPS"

{
	echo "## plumb cc: the measuring modes"
	echo
	echo "\`sh bench/inputs_modes.sh\` on $(date -u +%Y-%m-%d), tests/programs/inp_kernels.c $STEPS, -O2; load: $(uptime | sed 's/.*load average: //'):"
	echo
	python3 - "$WORK/times.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[0]
print("| mode | wall ms | user ms | wall vs plain | user vs gcc rms |")
print("|---|---|---|---|---|")
gu = next(x["user"] for x in r if x["command"] == "gcc: rms")
for x in r:
    print("| %s | %.1f ± %.1f | %.1f | %.1fx | %s |" % (x["command"], x["mean"] * 1e3, x["stddev"] * 1e3, x["user"] * 1e3,
          x["mean"] / base["mean"], "" if x is base else "%.2fx" % (x["user"] / gu)))
PY
} | python3 bench/section.py "$RESULTS" inputs_modes
echo "bench: results in $RESULTS (section inputs_modes)"
