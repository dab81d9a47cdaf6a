#!/bin/sh
# Benchmark the Callgrind reader against the peer tools, in one run: on two
# generated inputs of SIZE MB (gen_callgrind.py: one part, short repeated
# names, instruction addresses; gen_callgrind_wide.py: four parts, a long
# distinct name and a file per function, lines only, nine events), the time
# (hyperfine) and peak memory (/usr/bin/time) of `plumb report`, `plumb
# annotate`, `plumb convert --to callgrind` and callgrind_annotate, and
# KCachegrind's load time where it is installed (under xvfb-run: the time
# until it has read the file, see kcg_load below). Ratios are to
# callgrind_annotate. Writes its section of bench/RESULTS.md (between the
# callgrind markers; the rest of the file is kept).
#
#   sh bench/callgrind.sh              (make bench runs it after bench/run.sh)
#   BIG=1000 sh bench/callgrind.sh     also plumb report and convert on a 1 GB file
#
# Environment: PLUMB (default build/plumb), SIZE (MB, default 100), RUNS
# (plumb's runs, default 3), BIG (MB of the plumb-only run; unset: none),
# ANNOTATE=no to skip callgrind_annotate (a minute or more per input),
# KCACHEGRIND=no to skip KCachegrind.
set -eu
cd "$(dirname "$0")/.."

PLUMB=${PLUMB:-build/plumb}
SIZE=${SIZE:-100}
RUNS=${RUNS:-3}
BIG=${BIG:-}
ANNOTATE=${ANNOTATE:-yes}
KCACHEGRIND=${KCACHEGRIND:-yes}
WORK=bench/work
RESULTS=bench/RESULTS.md

need() {
	command -v "$1" >/dev/null 2>&1 || { echo "bench: $1 is missing ($2)" >&2; exit 1; }
}
need hyperfine "Debian package hyperfine"
need python3 "Debian package python3"
[ "$ANNOTATE" = no ] || need callgrind_annotate "Debian package valgrind"
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (Debian package time)" >&2; exit 1; }
"$PLUMB" report --help >/dev/null 2>&1 || { echo "bench: $PLUMB does not run: build it with make" >&2; exit 1; }
if [ "$KCACHEGRIND" != no ] && ! { command -v kcachegrind && command -v xvfb-run &&
	command -v dbus-run-session; } >/dev/null 2>&1; then
	echo "bench: kcachegrind, xvfb-run or dbus-run-session missing (Debian packages" \
		"kcachegrind, xvfb, dbus): not measured" >&2
	KCACHEGRIND=no
fi
mkdir -p "$WORK"

# input GENERATOR SIZE_MB: the generated file, made again when the generator changes.
input() {
	f=$WORK/${1#gen_}-$2mb.out
	stamp="$(cksum < "bench/$1.py" | cut -d' ' -f1) $2"
	if [ ! -s "$f" ] || [ "$(cat "$f.stamp" 2>/dev/null)" != "$stamp" ]; then
		echo "bench: generating $f" >&2
		python3 "bench/$1.py" "$f.part" "$2"
		mv "$f.part" "$f"
		echo "$stamp" > "$f.stamp"
	fi
	echo "$f"
}

# peak COMMAND: peak resident set of COMMAND in KB (its largest process).
peak() {
	/usr/bin/time -f '%M' -o "$WORK/peak.txt" sh -c "$1"
	cat "$WORK/peak.txt"
}

# kcg_load FILE: seconds until KCachegrind has read FILE and drawn its
# window. It has no option to load and quit (and maps the file, so its
# reads cannot be counted), so its CPU time is watched: loaded at the last
# tick of CPU before a second of none (that second is not counted).
kcg_load() {
	dbus-run-session -- xvfb-run -a kcachegrind "$1" >/dev/null 2>&1 &
	xpid=$!
	python3 - "$1" "$xpid" <<'PY'
import os, sys, time
path, xpid = sys.argv[1], int(sys.argv[2])
t0 = time.monotonic()
def kcg():
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if open(f"/proc/{d}/comm").read().strip() == "kcachegrind":
                    return int(d)
            except OSError:
                pass
    return None
pid = None
while pid is None and time.monotonic() - t0 < 30:
    pid = kcg()
    time.sleep(0.05)
def cpu():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])
last, idle_since, t_end = -1, None, None
while pid and time.monotonic() - t0 < 600:
    try:
        c = cpu()
    except OSError:
        break  # it died: not measured
    now = time.monotonic()
    if c != last:
        last, idle_since = c, now
    elif c > 0 and now - idle_since >= 1.0:
        t_end = idle_since
        break
    time.sleep(0.05)
if pid:
    try:
        os.kill(pid, 15)
    except OSError:
        pass
print(f"{t_end - t0:.2f}" if t_end else "nan")
PY
	wait "$xpid" 2>/dev/null || true
}

# measure NAME INPUT: times and memory of every tool on INPUT into
# $WORK/cg-NAME.json and $WORK/cg-NAME.mem.
measure() {
	in=$2
	out=$WORK/convert-$1.callgrind
	set -- "$1" \
		"plumb report" "$PLUMB report $in > /dev/null" \
		"plumb annotate" "$PLUMB annotate $in > /dev/null" \
		"plumb convert --to callgrind" "$PLUMB convert --to callgrind -o $out $in"
	name=$1
	shift
	hyperfine --warmup 1 --runs "$RUNS" --style basic --export-json "$WORK/cg-$name-plumb.json" \
		-n "$1" "$2" -n "$3" "$4" -n "$5" "$6"
	{
		echo "plumb report	$(peak "$2")"
		echo "plumb annotate	$(peak "$4")"
		echo "plumb convert --to callgrind	$(peak "$6")"
	} > "$WORK/cg-$name.mem"
	rm -f "$out"
	if [ "$ANNOTATE" != no ]; then
		# one run (a minute or more) gives both its time and its memory
		/usr/bin/time -f '%e %M' -o "$WORK/ann.txt" sh -c "callgrind_annotate --auto=no $in > /dev/null"
		read -r secs kb < "$WORK/ann.txt"
		printf '{"results": [{"command": "callgrind_annotate", "mean": %s, "stddev": 0, "times": [%s]}]}\n' \
			"$secs" "$secs" > "$WORK/cg-$name-ann.json"
		echo "callgrind_annotate	$kb" >> "$WORK/cg-$name.mem"
	else
		echo '{"results": []}' > "$WORK/cg-$name-ann.json"
	fi
	if [ "$KCACHEGRIND" != no ]; then
		echo "kcachegrind	$(kcg_load "$in")" > "$WORK/cg-$name.kcg"
	else
		: > "$WORK/cg-$name.kcg"
	fi
}

BIG_IN=
IN1=$(input gen_callgrind "$SIZE")
IN2=$(input gen_callgrind_wide "$SIZE")
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
measure repetitive "$IN1"
measure distinct "$IN2"
if [ -n "$BIG" ]; then
	BIG_IN=$(input gen_callgrind "$BIG")
	out=$WORK/convert-big.callgrind
	hyperfine --runs 1 --style basic --export-json "$WORK/cg-big-plumb.json" \
		-n "plumb report" "$PLUMB report $BIG_IN > /dev/null" \
		-n "plumb convert --to callgrind" "$PLUMB convert --to callgrind -o $out $BIG_IN"
	{
		echo "plumb report	$(peak "$PLUMB report $BIG_IN > /dev/null")"
		echo "plumb convert --to callgrind	$(peak "$PLUMB convert --to callgrind -o $out $BIG_IN")"
	} > "$WORK/cg-big.mem"
	rm -f "$out"
	echo '{"results": []}' > "$WORK/cg-big-ann.json"
	: > "$WORK/cg-big.kcg"
fi
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
describe() {
	python3 - "$1" <<'PY'
import os, sys
lines = calls = fns = parts = 0
with open(sys.argv[1], "rb") as f:
    for l in f:
        lines += 1
        if l.startswith(b"calls="):
            calls += 1
        elif l.startswith(b"fn="):
            fns += 1
        elif l.startswith(b"part:"):
            parts += 1
print(f"{os.path.getsize(sys.argv[1]):,} bytes, {lines:,} lines, {max(parts, 1)} part(s), "
      f"{fns:,} fn= lines, {calls:,} calls= lines")
PY
}
DESC1=$(describe "$IN1")
DESC2=$(describe "$IN2")
BIG_DESC=
[ -z "$BIG" ] || BIG_DESC="\`$BIG_IN\`: $(describe "$BIG_IN")"

python3 - > "$WORK/callgrind-section.md" <<PY
import json, math, os, sys
W = "$WORK"
def load(name):
    p = f"{W}/cg-{name}.json"
    return {r["command"]: r for r in json.load(open(p))["results"]} if os.path.exists(p) else {}
def mem(name):
    p = f"{W}/cg-{name}.mem"
    return dict(l.rstrip("\n").split("\t") for l in open(p)) if os.path.exists(p) else {}
def kcg(name):
    p = f"{W}/cg-{name}.kcg"
    d = dict(l.rstrip("\n").split("\t") for l in open(p) if l.strip()) if os.path.exists(p) else {}
    return d.get("kcachegrind")
text = f"""## Callgrind: plumb against callgrind_annotate and KCachegrind

Generated by \`sh bench/callgrind.sh\` (\`BIG=1000\` adds the 1 GB run); do not edit by hand.

- machine: $(nproc) CPUs, $CPU, $(uname -sr); load average before {"$LOAD_BEFORE"}, after {"$LOAD_AFTER"};
  plumb: commit $COMMIT, \`$PLUMB\`
- timing: \`hyperfine --warmup 1 --runs $RUNS\` for plumb, one run for callgrind_annotate
  (\`/usr/bin/time\`); memory: \`/usr/bin/time -f '%M'\` (peak resident set); ratios: callgrind_annotate's
  time or memory over plumb's (above 1: plumb is faster or smaller)
- \`plumb report\` reads the file merging the instructions of each line (no report view
  shows addresses) and prints the flat table; \`plumb annotate\` and \`plumb convert\`
  keep every address; \`callgrind_annotate --auto=no\` prints its function table
"""
inputs = [("repetitive", "$IN1", "$DESC1", "python3 bench/gen_callgrind.py"),
          ("distinct", "$IN2", "$DESC2", "python3 bench/gen_callgrind_wide.py")]
if "$BIG":
    inputs.append(("big", "$BIG_IN", "$BIG_DESC", "python3 bench/gen_callgrind.py"))
for name, path, desc, gen in inputs:
    runs = {**load(name + "-plumb"), **load(name + "-ann")}
    m = mem(name)
    ann = runs.get("callgrind_annotate")
    ann_mem = int(m["callgrind_annotate"]) if "callgrind_annotate" in m else None
    text += f"""
### \`{path}\` ({name} names)

{desc.replace("\`" + path + "\`: ", "")}; made by \`{gen} {path} {path.split("-")[-1][:-6]}\`

| command | runs | mean ± σ (s) | peak memory (MB) | time ratio | memory ratio |
| --- | --- | --- | --- | --- | --- |
"""
    for cmd in ("plumb report", "plumb annotate", "plumb convert --to callgrind", "callgrind_annotate"):
        r = runs.get(cmd)
        if not r:
            continue
        kb = int(m.get(cmd, 0))
        tr = f"{ann['mean'] / r['mean']:.1f}" if ann and cmd != "callgrind_annotate" else "-"
        mr = f"{ann_mem / kb:.1f}" if ann_mem and kb and cmd != "callgrind_annotate" else "-"
        text += (f"| \`{r['command'] if False else cmd}\` | {len(r['times'])} | "
                 f"{r['mean']:.2f} ± {r['stddev'] or 0:.2f} | {kb / 1024:.0f} | {tr} | {mr} |\n")
    k = kcg(name)
    if k:
        t = float(k)
        ratio = f", {t / runs['plumb report']['mean']:.1f}× plumb report's time" if not math.isnan(t) else ""
        text += f"\nKCachegrind (\`dbus-run-session -- xvfb-run kcachegrind\`, one run) read the file in {k} s{ratio}.\n"
    elif name != "big":
        text += "\nKCachegrind: not measured (not installed, or KCACHEGRIND=no).\n"
sys.stdout.write(text)
PY
python3 bench/section.py "$RESULTS" callgrind < "$WORK/callgrind-section.md"
echo "bench: wrote the Callgrind section of $RESULTS"
