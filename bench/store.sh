#!/bin/sh
# The .plumb store against the text it was converted from: its size, the
# time to write it, and the time to load a profile from it (plumb info) and
# to report from it, side by side with the same from the text, in one
# hyperfine run per input. With BASELINE=path/to/an/older/plumb, that
# plumb's store of the same inputs too (size, convert and load times, one
# run each). Writes the "store" section of bench/RESULTS.md.
#
#   sh bench/store.sh           (or: sh bench/run.sh store)
#
# Environment: PLUMB (default build/plumb), BASELINE (none), RUNS (3),
# CG (bench/work/callgrind-100mb.out, made by gen_callgrind.py if missing),
# FOLDED_LINES (200000), PPROF_DISTINCT (200000), APROF_POINTS (300000).
# Inputs and raw results go to bench/work/.
set -eu
cd "$(dirname "$0")/.."

PLUMB=${PLUMB:-build/plumb}
BASELINE=${BASELINE:-}
RUNS=${RUNS:-3}
WORK=bench/work
CG=${CG:-$WORK/callgrind-100mb.out}
FOLDED_LINES=${FOLDED_LINES:-200000}
PPROF_DISTINCT=${PPROF_DISTINCT:-200000}
APROF_POINTS=${APROF_POINTS:-300000}

need() {
	command -v "$1" >/dev/null 2>&1 || { echo "bench: $1 is missing ($2)" >&2; exit 1; }
}
need hyperfine "Debian package hyperfine"
need python3 "Debian package python3"
need sqlite3 "Debian package sqlite3"
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (Debian package time)" >&2; exit 1; }
"$PLUMB" report --help >/dev/null 2>&1 || { echo "bench: $PLUMB does not run: build it with make" >&2; exit 1; }
mkdir -p "$WORK"

# make FILE COMMAND...: FILE made by COMMAND (writing FILE.part) when missing.
make_input() {
	f=$1
	shift
	if [ ! -s "$f" ]; then
		echo "bench: generating $f" >&2
		"$@"
		mv "$f.part" "$f"
	fi
}
make_input "$CG" python3 bench/gen_callgrind.py "$CG.part" 100
FOLDED=$WORK/store-folded-$FOLDED_LINES.txt
make_input "$FOLDED" python3 bench/gen_folded.py "$FOLDED.part" "$FOLDED_LINES" "$((FOLDED_LINES / 4))" 1
PPROF=$WORK/store-pprof-$PPROF_DISTINCT.pb.gz
make_input "$PPROF" python3 bench/gen_pprof.py "$PPROF.part" "$PPROF_DISTINCT" 80000 1
APROF=$WORK/store-aprof-$APROF_POINTS.aprof
make_input "$APROF" python3 bench/gen_aprof.py "$APROF.part" "$APROF_POINTS" 3000 1 rms

peak() {
	/usr/bin/time -f '%M' -o "$WORK/peak.txt" sh -c "$1" >/dev/null
	cat "$WORK/peak.txt"
}
size() { stat -c %s "$1"; }
mean() { # mean wall time of command number $2 in hyperfine JSON $1
	python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["mean"])' "$1" "$2"
}
cpu() { # mean CPU time (user + system) of command number $2 in hyperfine JSON $1
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]; print("%.3f" % (r["user"] + r["system"]))' "$1" "$2"
}
ratio() { python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"; }
once() { # wall seconds of one run of a command
	python3 -c 'import subprocess,sys,time; t=time.monotonic(); subprocess.run(sys.argv[1], shell=True, check=True, stdout=subprocess.DEVNULL); print("%.3f" % (time.monotonic()-t))' "$1"
}

rows=""
baseline_rows=""
# one NAME INPUT: the store of INPUT, timed against INPUT.
one() {
	name=$1 in=$2 st=$WORK/store-$1.plumb
	"$PLUMB" convert "$in" -o "$st"
	j=$WORK/store-$name.json
	hyperfine --warmup 1 --runs "$RUNS" --style basic --export-json "$j" \
		-n "info text" "$PLUMB info $in" -n "info store" "$PLUMB info $st" \
		-n "convert" "$PLUMB convert $in -o $st" \
		-n "report text" "$PLUMB report $in" -n "report store" "$PLUMB report $st" >&2
	it=$(mean "$j" 0) is=$(mean "$j" 1) cv=$(mean "$j" 2) rt=$(mean "$j" 3) rs=$(mean "$j" 4)
	ct=$(cpu "$j" 0) cs=$(cpu "$j" 1) cc=$(cpu "$j" 2) crt=$(cpu "$j" 3) crs=$(cpu "$j" 4)
	wr=$(python3 -c 'import sys; print("%.3f" % max(0.0, float(sys.argv[1]) - float(sys.argv[2])))' "$cc" "$ct")
	ww=$(python3 -c 'import sys; print("%.3f" % max(0.0, float(sys.argv[1]) - float(sys.argv[2])))' "$cv" "$it")
	mt=$(peak "$PLUMB info $in") ms=$(peak "$PLUMB info $st")
	# the tables for SQL users (lines, stacks, sql_info): their pages
	sq=$(sqlite3 "$st" "SELECT sum(pgsize) FROM dbstat WHERE name IN ('lines', 'stacks', 'sql_info')" 2>/dev/null || echo '?')
	kept=$(sqlite3 "$st" "SELECT group_concat(value, ' / ') FROM (SELECT value FROM sql_info WHERE name IN ('lines_kept', 'lines', 'stacks_kept', 'stacks') ORDER BY name)" 2>/dev/null || echo '?')
	rows="$rows| $name | $(size "$in") | $(size "$st") | $(ratio "$(size "$st")" "$(size "$in")") | $sq | $kept | $ct / $cs | $(ratio "$ct" "$cs")× | $cc | $wr | $(ratio "$wr" "$ct") | $ww | $(ratio "$ww" "$it") | $crt / $crs | $(ratio "$crt" "$crs")× | $it / $is | $rt / $rs | $mt / $ms |
"
	if [ -n "$BASELINE" ]; then
		bs=$WORK/store-$name.old.plumb
		bc=$(once "$BASELINE convert $in -o $bs")
		bi=$(once "$BASELINE info $bs")
		baseline_rows="$baseline_rows| $name | $(size "$bs") | $(size "$st") | $bc | $cv | $bi | $is |
"
	fi
}

one callgrind "$CG"
one folded "$FOLDED"
one pprof "$PPROF"
one aprof "$APROF"

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
{
	cat <<EOT
## The .plumb store against its input

Generated by \`sh bench/store.sh\`; do not edit by hand. See docs/plumb-format.md
for the encoding.

- inputs: \`$CG\` (\`gen_callgrind.py OUT 100\`), \`$FOLDED\`
  (\`gen_folded.py OUT $FOLDED_LINES $((FOLDED_LINES / 4)) 1\`), \`$PPROF\` (\`gen_pprof.py OUT $PPROF_DISTINCT 80000 1\`),
  \`$APROF\` (\`gen_aprof.py OUT $APROF_POINTS 3000 1 rms\`)
- machine: $(nproc) CPUs, $(uname -sr); load when run: $(cut -d' ' -f1-3 /proc/loadavg)
- plumb: commit $commit, \`$PLUMB\`; timing: \`hyperfine --warmup 1 --runs $RUNS\`, the five
  commands of an input in one run; memory: \`/usr/bin/time -f '%M'\` of \`plumb info\` (KB)
- load = \`plumb info\` (read the whole profile, print its summary); write = convert − load
  from the text, in CPU seconds and in wall seconds (the writer builds its lines, summaries
  and function-level sums on a second thread); other times are CPU seconds (user + system, hyperfine's means), which a loaded
  machine disturbs less than wall time (also given, last columns); ratios: store / text for
  sizes and write, text / store for speed-ups
- SQL tables: the bytes of the pages of the tables for SQL users (\`lines\`, \`stacks\`,
  \`sql_info\`; part of the .plumb bytes), and how many lines and stacks they keep of
  the profile's (lines / kept / stacks / kept)

| input | text bytes | .plumb bytes | size | SQL tables bytes | lines / kept / stacks / kept | load CPU text / store (s) | load speed-up | convert CPU (s) | write CPU (s) | write / load text | write wall (s) | write / load text, wall | report CPU text / store (s) | report speed-up | load wall text / store (s) | report wall text / store (s) | peak KB text / store |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
$rows
EOT
	if [ -n "$BASELINE" ]; then
		cat <<EOT

Against the store of \`$BASELINE\` (schema $(sqlite3 "$WORK/store-callgrind.old.plumb" 'PRAGMA user_version' 2>/dev/null || echo '?'); one run each, wall seconds):

| input | old .plumb bytes | new .plumb bytes | old convert | new convert | old load | new load |
| --- | --- | --- | --- | --- | --- | --- |
$baseline_rows
EOT
	fi
} | python3 bench/section.py bench/RESULTS.md store
echo "bench: wrote the store section of bench/RESULTS.md" >&2
