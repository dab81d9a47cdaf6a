#!/bin/sh
# Benchmark the signal sampler (`plumb record --sampler=signal`) against
# gperftools' CPU profiler (libprofiler.so from Debian's
# libgoogle-perftools-dev, preloaded with CPUPROFILE) on the same workload
# at the same requested rate: the workload's own CPU time (it prints it),
# the wall time from start to profile written, samples and file size, and
# the fixed cost (the same with a workload that does nothing).
# Rounds are interleaved and the minimum is kept: the machine is shared,
# and contention only ever adds time.
#
#   sh bench/record_signal.sh      (make bench runs it through bench/run.sh)
#
# Environment: PLUMB (default build/plumb), ROUNDS (default 7), HZ (default
# 1000; CPU-time timers deliver at most the kernel tick, 250 Hz here),
# WORK_ROUNDS (the workload's argument, default 150: about 1 s of CPU).
set -eu
cd "$(dirname "$0")/.."

PLUMB=${PLUMB:-build/plumb}
ROUNDS=${ROUNDS:-7}
HZ=${HZ:-1000}
WORK_ROUNDS=${WORK_ROUNDS:-150}
WORK=bench/work/record-signal
RESULTS=bench/RESULTS.md
PROFILER=/usr/lib/x86_64-linux-gnu/libprofiler.so

need() {
	command -v "$1" >/dev/null 2>&1 || { echo "bench: $1 is missing ($2)" >&2; exit 1; }
}
need gcc "Debian package gcc"
need python3 "Debian package python3"
[ -f "$PROFILER" ] || { echo "bench: $PROFILER is missing (Debian package libgoogle-perftools-dev)" >&2; exit 1; }
[ -x "$PLUMB" ] || { echo "bench: $PLUMB is not built (make)" >&2; exit 1; }
mkdir -p "$WORK"

# The workload: recursion, qsort through libc with a callback, a chain to a
# frameless leaf; -O2 without frame pointers.
EXE=$WORK/sig_deep
gcc -O2 -g -fomit-frame-pointer tests/programs/sig_deep.c -o "$EXE"

# one CONFIG [ROUNDS]: runs one configuration once, appends
# "config wall_s cpu_s samples bytes" to $WORK/runs.txt. With ROUNDS 0 the
# workload does nothing: the configuration's fixed cost ("config-0").
one() {
	cfg=$1 n=${2:-$WORK_ROUNDS}
	rm -f "$WORK/p.plumb" "$WORK/g.prof"*
	t0=$(date +%s.%N)
	case $cfg in
	plain) "$EXE" "$n" > /dev/null 2> "$WORK/err" ;;
	plumb) "$PLUMB" record --sampler=signal -F "$HZ" -o "$WORK/p.plumb" \
		"$EXE" "$n" > /dev/null 2> "$WORK/err" ;;
	gperftools) env LD_PRELOAD="$PROFILER" CPUPROFILE="$WORK/g.prof" CPUPROFILE_FREQUENCY="$HZ" \
		"$EXE" "$n" > /dev/null 2> "$WORK/err" ;;
	esac
	[ "$n" -eq 0 ] && cfg=$cfg-0
	t1=$(date +%s.%N)
	cpu=$(sed -n 's/^sig_deep cpu //p' "$WORK/err")
	case $cfg in
	plain) samples=0 bytes=0 ;;
	plumb) samples=$(sed -n 's/^plumb record: \([0-9]*\) samples.*/\1/p' "$WORK/err")
		bytes=$(stat -c %s "$WORK/p.plumb") ;;
	gperftools) samples=$(sed -n 's|^PROFILE: interrupts/evictions/bytes = \([0-9]*\)/.*|\1|p' "$WORK/err")
		bytes=$(stat -c %s "$WORK/g.prof") ;;
	esac
	echo "$cfg $(awk "BEGIN { print $t1 - $t0 }") $cpu ${samples:-0} $bytes" >> "$WORK/runs.txt"
}

: > "$WORK/runs.txt"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	for cfg in plain plumb gperftools; do
		one "$cfg"
		one "$cfg" 0
	done
	r=$((r + 1))
done
# A profile of the last plumb run, for stack completeness.
"$PLUMB" record --sampler=signal -F "$HZ" -o "$WORK/p.plumb" "$EXE" "$WORK_ROUNDS" > /dev/null 2>&1
ROOTED=$("$PLUMB" info "$WORK/p.plumb" | sed -n 's/^stacks.rooted \([0-9]*\) \([0-9]*\)$/\1 \2/p')

# The sampler's own account: time spent in its handler (unwinding and
# writing), from the END records of a run with the library preloaded alone.
LIB=$(dirname "$PLUMB")/libplumb-sampler.so
rm -rf "$WORK/direct" && mkdir -p "$WORK/direct"
PLUMB_SAMPLER_DIR="$WORK/direct" PLUMB_SAMPLER_HZ="$HZ" LD_PRELOAD="$LIB" "$EXE" "$WORK_ROUNDS" > /dev/null 2>&1
HANDLER=$(python3 - "$WORK"/direct/plumb-sampler.* <<'PY'
import struct, sys
samples = handler = cpu = 0
for path in sys.argv[1:]:
    b = open(path, "rb").read()
    off = 16
    while off + 8 <= len(b):
        t, size = struct.unpack_from("<II", b, off)
        if t == 5:  # END: time, cpu, samples, dropped, handler_ns
            _, c, s, _, h = struct.unpack_from("<5Q", b, off + 8)
            samples, handler, cpu = samples + s, handler + h, cpu + c
        off += size
print(f"{handler / max(samples, 1) / 1000:.1f} {100.0 * handler / max(cpu, 1):.2f} {samples}")
PY
)

CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
GPERF=$(dpkg-query -W -f='${Version}' libgoogle-perftools-dev 2>/dev/null || echo unknown)
python3 - "$WORK/runs.txt" "$ROUNDS" "$HZ" "$WORK_ROUNDS" "$CPU" "$COMMIT" "$GPERF" "$ROOTED" "$HANDLER" <<'PY' |
import sys
from collections import defaultdict
path, rounds, hz, wr, cpu, commit, gperf, rooted, handler = sys.argv[1:10]
runs = defaultdict(list)
for line in open(path):
    cfg, wall, c, samples, size = line.split()
    runs[cfg].append((float(wall), float(c), int(samples), int(size)))
def mn(cfg, i):
    return min(r[i] for r in runs[cfg])
def med(cfg, i):
    v = sorted(r[i] for r in runs[cfg])
    return v[len(v) // 2]
base = mn("plain", 1)
print("## Signal sampler: plumb record --sampler=signal vs gperftools' CPU profiler\n")
print(f"Workload: tests/programs/sig_deep.c {wr} (recursion, qsort with a callback, a chain "
      f"to a frameless leaf), gcc -O2 -g -fomit-frame-pointer. Requested rate {hz} Hz for both; "
      "both use CPU-time timers, which fire at most once per kernel tick (250 Hz here). "
      f"{rounds} interleaved rounds; minimum (median) shown. CPU: {cpu}. plumb {commit}, "
      f"gperftools {gperf}.\n")
print("| | workload CPU | CPU overhead | wall, start to profile written | samples | file |")
print("| --- | --- | --- | --- | --- | --- |")
for cfg, label in (("plain", "no profiler"), ("plumb", "`plumb record --sampler=signal`"),
                   ("gperftools", "gperftools `LD_PRELOAD=libprofiler.so`")):
    c, w = mn(cfg, 1), mn(cfg, 0)
    over = "" if cfg == "plain" else f"{100 * (c - base) / base:+.1f}%"
    s = "" if cfg == "plain" else f"{med(cfg, 2)}"
    size = "" if cfg == "plain" else f"{med(cfg, 3) / 1024:.0f} KB"
    print(f"| {label} | {c:.3f} s ({med(cfg, 1):.3f}) | {over} | {w:.3f} s ({med(cfg, 0):.3f}) | {s} | {size} |")
print("\nFixed cost (the workload with 0 rounds: start, load, exit, profile written), "
      "minimum wall time:\n")
print("| no profiler | `plumb record --sampler=signal` | gperftools |")
print("| --- | --- | --- |")
print(f"| {1000 * mn('plain-0', 0):.0f} ms | {1000 * mn('plumb-0', 0):.0f} ms | "
      f"{1000 * mn('gperftools-0', 0):.0f} ms |")
h = handler.split()
if len(h) == 3:
    print(f"\nThe sampler's own account (the library preloaded alone, {h[2]} samples): "
          f"{h[0]} µs per sample in its signal handler (DWARF unwinding with libgcc, buffering, "
          f"writing), {h[1]}% of the workload's CPU time; the signal's delivery and return "
          "(about 2 µs here, research/landscape.md) come on top. CPU overheads in the table "
          "above are within this shared machine's run-to-run noise.")
r = rooted.split()
if len(r) == 2:
    print(f"\nplumb's stacks reaching a root (main, _start, ...): {r[0]} of {r[1]} samples.")
print("""
What the files hold differs: plumb's `.plumb` is self-contained (symbols, source lines,
inlined frames, per-thread parts), resolved while recording and counted in its wall time;
gperftools' file holds raw addresses and the maps, to be symbolized later by
pprof with the binaries at hand. gperftools samples with setitimer(ITIMER_PROF) by default;
plumb arms a CPU-time timer per thread (timer_create with SIGEV_THREAD_ID) and follows
threads, fork and exec. The workload is single-threaded, so both see the same CPU time.""")
PY
python3 bench/section.py "$RESULTS" record-signal
echo "bench: record-signal section written to $RESULTS" >&2
