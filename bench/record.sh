#!/bin/sh
# Benchmark plumb record against perf record -g and perf record --call-graph
# dwarf on one workload at one rate (1000 Hz cpu-clock, user space): the
# target's CPU time overhead, the wall time from start to profile written,
# the file size, stack completeness, and plumb report against perf report
# --stdio (with and without source lines). Writes the "record" section of
# bench/RESULTS.md.
#
#   sh bench/record.sh         (or: sh bench/run.sh record)
#
# Environment: PLUMB (default build/plumb), RUNS (5, interleaved; the minimum
# CPU time is kept, since a busy machine only ever adds time), SCALE (work
# per run, default 60). Programs and raw data go to bench/work/record/.
set -eu
cd "$(dirname "$0")/.."
PLUMB=${PLUMB:-build/plumb}
RUNS=${RUNS:-5}
SCALE=${SCALE:-60}
W=bench/work/record
need() {
	command -v "$1" >/dev/null 2>&1 || { echo "bench: $1 is missing ($2)" >&2; exit 1; }
}
need perf "Debian package linux-perf"
need gcc "Debian package gcc"
need python3 "Debian package python3"
"$PLUMB" record --help >/dev/null 2>&1 || { echo "bench: $PLUMB record does not run: build it with make" >&2; exit 1; }
mkdir -p "$W"

# The workload: libc's qsort (no frame pointers in Debian's libc) with a
# comparator calling a frameless leaf, under a few levels of calls; fixed
# work, and its own CPU time written to the file named by argv[2].
cat > "$W/work.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static unsigned long seed = 1;
__attribute__((noinline)) static unsigned hash_leaf(unsigned x)
{
	x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; return x ^ (x >> 16);
}
static int cmp(const void *a, const void *b)
{
	unsigned x = hash_leaf(*(const unsigned *)a), y = hash_leaf(*(const unsigned *)b);
	return x < y ? -1 : x > y;
}
__attribute__((noinline)) void fill(unsigned *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (unsigned)(seed = seed * 6364136223846793005UL + 1442695040888963407UL) >> 7;
}
__attribute__((noinline)) void one_iteration(unsigned *v, size_t n)
{
	fill(v, n);
	qsort(v, n, sizeof *v, cmp);
}
__attribute__((noinline)) void chain(int depth, unsigned *v, size_t n)
{
	if (depth)
		chain(depth - 1, v, n);
	else
		one_iteration(v, n);
}
int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 60;
	size_t n = 100000;
	unsigned *v = malloc(n * sizeof *v);
	for (int i = 0; i < scale; i++)
		chain(5, v, n);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	FILE *f = fopen(argc > 2 ? argv[2] : "/dev/null", "w");
	fprintf(f, "%.6f\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	fclose(f);
	free(v);
	return 0;
}
C
gcc -O2 -g -fomit-frame-pointer "$W/work.c" -o "$W/work"

PLUMB="$PLUMB" W="$W" RUNS="$RUNS" SCALE="$SCALE" python3 - > "$W/section.md" <<'PY'
import os, subprocess, time, re, resource
P, W, RUNS, SCALE = os.environ["PLUMB"], os.environ["W"], int(os.environ["RUNS"]), os.environ["SCALE"]
cpu_file = f"{W}/cpu.txt"
work = [f"{W}/work", SCALE, cpu_file]
tools = {
    "none (baseline)": ([], None),
    "plumb record (dwarf, default)": ([P, "record", "-q", "-F", "1000", "-o", f"{W}/rec.plumb", "--"], f"{W}/rec.plumb"),
    "plumb record -g fp": ([P, "record", "-q", "-g", "fp", "-F", "1000", "-o", f"{W}/rec-fp.plumb", "--"], f"{W}/rec-fp.plumb"),
    "perf record -g": (["perf", "record", "-q", "-e", "cpu-clock:u", "-F", "1000", "-g", "-o", f"{W}/perf-fp.data", "--"], f"{W}/perf-fp.data"),
    "perf record --call-graph dwarf": (["perf", "record", "-q", "-e", "cpu-clock:u", "-F", "1000", "--call-graph", "dwarf", "-o", f"{W}/perf-dwarf.data", "--"], f"{W}/perf-dwarf.data"),
}
def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime

res = {k: {"cpu": [], "wall": [], "own": []} for k in tools}
for r in range(RUNS):
    for name, (pre, out) in tools.items():
        c0, t0 = children_cpu(), time.monotonic()
        subprocess.run(pre + work, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        res[name]["wall"].append(time.monotonic() - t0)
        cpu = float(open(cpu_file).read())
        res[name]["cpu"].append(cpu)
        # the recorder's own CPU: everything it and its children used, less the target's
        res[name]["own"].append(max(0.0, children_cpu() - c0 - cpu))
base = min(res["none (baseline)"]["cpu"])
base_wall = min(res["none (baseline)"]["wall"])

def fixed(cmd):
    best = 1e9
    for _ in range(RUNS):
        t0 = time.monotonic()
        subprocess.run(cmd + ["true"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.monotonic() - t0)
    return best

fx = {
    "plumb record (dwarf, default)": fixed([P, "record", "-q", "-o", f"{W}/true.plumb", "--"]),
    "perf record -g": fixed(["perf", "record", "-q", "-e", "cpu-clock:u", "-g", "-o", f"{W}/true-fp.data", "--"]),
    "perf record --call-graph dwarf": fixed(["perf", "record", "-q", "-e", "cpu-clock:u", "--call-graph", "dwarf", "-o", f"{W}/true-dwarf.data", "--"]),
}

def rooted(path):
    out = subprocess.run([P, "info", path], capture_output=True, text=True).stdout
    m = re.search(r"^stacks\.rooted (\d+) (\d+)", out, re.M)
    return f"{100 * int(m.group(1)) / int(m.group(2)):.1f}%" if m else "-"

def best_time(cmd, runs=3):
    best = 1e9
    for _ in range(runs):
        t0 = time.monotonic()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.monotonic() - t0)
    return best

print("## Recording: plumb record against perf record\n")
print("Generated by `sh bench/record.sh`; do not edit by hand.\n")
print(f"Workload: `bench/work/record/work.c` (qsort in Debian's libc with a comparator and a frameless leaf, "
      f"under 6 levels of calls), `-O2 -fomit-frame-pointer`, scale {SCALE}; {RUNS} interleaved runs per tool, "
      f"cpu-clock in user space at 1000 Hz. Target CPU is the workload's own getrusage (minimum of the runs); "
      f"the recorder's own CPU is what it and its children used less the target's (unwinding, symbols, writing; minimum); "
      f"wall is start to profile written (minimum); fixed cost is the wall time of recording `true`.\n")
print("| tool | target CPU | overhead | recorder's own CPU | wall | wall - baseline | fixed cost | file size | stacks reaching a root |")
print("|---|---|---|---|---|---|---|---|---|")
for name, (pre, out) in tools.items():
    cpu, wall = min(res[name]["cpu"]), min(res[name]["wall"])
    size = f"{os.path.getsize(out) / 1024:.0f} KB" if out else "-"
    rt = rooted(out) if out and out.endswith(".plumb") else "-"
    f = f"{fx[name] * 1000:.0f} ms" if name in fx else "-"
    own = f"{min(res[name]['own']):.3f} s" if pre else "-"
    print(f"| {name} | {cpu:.3f} s | {100 * (cpu - base) / base:+.1f}% | {own} | {wall:.3f} s | {wall - base_wall:+.3f} s | {f} | {size} | {rt} |")
print()
rep = [
    ("plumb report (flat: function, file, module)", [P, "report", f"{W}/rec.plumb"]),
    ("plumb report --view lines (source lines)", [P, "report", "--view", "lines", f"{W}/rec.plumb"]),
    ("perf report --stdio --no-children (fp data)", ["perf", "report", "--stdio", "--no-children", "-i", f"{W}/perf-fp.data"]),
    ("perf report --stdio --no-children (dwarf data)", ["perf", "report", "--stdio", "--no-children", "-i", f"{W}/perf-dwarf.data"]),
    ("perf report --stdio --no-children --sort sym,srcline (dwarf data)", ["perf", "report", "--stdio", "--no-children", "--sort", "sym,srcline", "-i", f"{W}/perf-dwarf.data"]),
]
print("| report | time (best of 3) |")
print("|---|---|")
for name, cmd in rep:
    print(f"| {name} | {best_time(cmd):.3f} s |")
print()
print("Stacks reaching a root are counted by plumb (main, _start, __libc_start_main, start_thread, clone3 on the stack); "
      "perf does not report it. Figures from a shared 2-vCPU VM without a PMU: rerun for your machine.")
PY
cat "$W/section.md"
python3 bench/section.py bench/RESULTS.md record < "$W/section.md"
