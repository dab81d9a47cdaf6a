#!/bin/sh
# Programs nobody here wrote, built with `plumb cc` (docs/inputs.md, Costs):
# bzip2 1.0.8 (a compressor) and Lua 5.4.4 (an interpreter), from Debian's
# source pool. Each is built twice from the same sources and flags: plain
# gcc -O2 and CC="plumb cc"; then one hyperfine run per program side by
# side: the plain build, the instrumented build measuring (PLUMB_APROF_DIR:
# rms, contexts, points, reports written), the same without the gcc plugin
# (PLUMB_INPUTS_PLUGIN=no: the runtime's out-of-line hooks only), and
# valgrind --tool=callgrind on the plain build; then the peak memory of
# each, and a check that the instrumented builds print what the plain ones
# print.
#
#   sh bench/inputs_real.sh
#
# Environment: PLUMB (default build/plumb), RUNS (hyperfine runs, default
# 3), BZ_MB (size of bzip2's input in MB, default 2), LUA_N (rounds of
# bench/inputs_real.lua, default 10), KEEP=1 (reuse the builds of a
# previous run). The sources are downloaded once into
# bench/work/inputs-real; without network the bench says so and stops
# (exit 0).
set -eu
cd "$(dirname "$0")/.."

PLUMB=${PLUMB:-build/plumb}
RUNS=${RUNS:-3}
BZ_MB=${BZ_MB:-2}
LUA_N=${LUA_N:-10}
WORK=bench/work/inputs-real
RESULTS=bench/RESULTS.md
POOL=http://deb.debian.org/debian/pool/main

for t in gcc make hyperfine valgrind python3 curl awk; do
	command -v "$t" > /dev/null 2>&1 || { echo "bench: $t is missing" >&2; exit 1; }
done
[ -x "$PLUMB" ] || { echo "bench: $PLUMB is not built (make)" >&2; exit 1; }
PLUMB=$(cd "$(dirname "$PLUMB")" && pwd)/$(basename "$PLUMB")
mkdir -p "$WORK"

# fetch NAME URL SHA256: the tarball in $WORK, checked
fetch() {
	if [ ! -f "$WORK/$1" ]; then
		if ! curl -fsSL -m 120 -o "$WORK/$1.part" "$2"; then
			rm -f "$WORK/$1.part"
			echo "bench: cannot download $2 (no network?): skipped" >&2
			exit 0
		fi
		mv "$WORK/$1.part" "$WORK/$1"
	fi
	echo "$3  $WORK/$1" | sha256sum -c --quiet - || { echo "bench: $WORK/$1: wrong checksum" >&2; exit 1; }
}
fetch bzip2.tar.gz "$POOL/b/bzip2/bzip2_1.0.8.orig.tar.gz" ab5a03176ee106d3f0fa90e381da478ddae405918153cca248e682cd0c4a2269
fetch lua.tar.gz "$POOL/l/lua5.4/lua5.4_5.4.4.orig.tar.gz" 164c7849653b80ae67bec4b7473b884bf5cc8d2dca05653475ec2ed27b9ebf61

# build KIND (plain, plumb, noplugin): both programs in $WORK/KIND
build() {
	d=$WORK/$1
	if [ -n "${KEEP:-}" ] && [ -x "$d/bzip2-1.0.8/bzip2" ] && [ -x "$d/lua-5.4.4/src/lua" ]; then
		return 0
	fi
	rm -rf "$d"
	mkdir -p "$d"
	tar xzf "$WORK/bzip2.tar.gz" -C "$d"
	tar xzf "$WORK/lua.tar.gz" -C "$d"
	case $1 in
	plain) cc=gcc ;;
	*) cc="$PLUMB cc" ;;
	esac
	plugin=yes
	[ "$1" = noplugin ] && plugin=no
	PLUMB_INPUTS_PLUGIN=$plugin make -s -C "$d/bzip2-1.0.8" bzip2 CC="$cc" \
		CFLAGS="-O2 -g -D_FILE_OFFSET_BITS=64" > "$d/build.log" 2>&1 ||
		{ echo "bench: bzip2 ($1) did not build: $d/build.log" >&2; exit 1; }
	PLUMB_INPUTS_PLUGIN=$plugin make -s -C "$d/lua-5.4.4/src" linux CC="$cc" MYCFLAGS=-g \
		>> "$d/build.log" 2>&1 ||
		{ echo "bench: lua ($1) did not build: $d/build.log" >&2; exit 1; }
}
for k in plain plumb noplugin; do build $k; done

# bzip2's input: words and numbers, deterministic
awk -v mb="$BZ_MB" 'BEGIN { srand(7); while (n < mb * 1048576) { k = int(rand() * 12) + 1; s = "";
	for (j = 0; j < k; j++) s = s sprintf("%c", 97 + int(rand() * rand() * 26));
	l = sprintf("%d %s %d", i++ % 977, s, int(rand() * 100000)); print l; n += length(l) + 1 } }' > "$WORK/input.txt"
LUA_SCRIPT=$(pwd)/bench/inputs_real.lua

bz() { echo "$WORK/$1/bzip2-1.0.8/bzip2 -c $WORK/input.txt"; }
lua() { echo "$WORK/$1/lua-5.4.4/src/lua $LUA_SCRIPT $LUA_N"; }

# The instrumented builds must compute what the plain ones do, and report.
$(bz plain) > "$WORK/plain.bz2"
want=$($(lua plain))
for k in plumb noplugin; do
	rm -rf "$WORK/rep-$k"
	mkdir -p "$WORK/rep-$k"
	PLUMB_APROF_DIR=$WORK/rep-$k $(bz $k) | cmp -s - "$WORK/plain.bz2" ||
		{ echo "bench: bzip2 built with plumb cc ($k) compresses differently" >&2; exit 1; }
	[ "$(PLUMB_APROF_DIR=$WORK/rep-$k $(lua $k))" = "$want" ] ||
		{ echo "bench: lua built with plumb cc ($k) prints something else" >&2; exit 1; }
	[ "$(ls "$WORK/rep-$k" | grep -c '\.aprof$')" -eq 2 ] ||
		{ echo "bench: plumb cc ($k): not one report per program in $WORK/rep-$k" >&2; exit 1; }
done

# side NAME CMD-FUNCTION: one hyperfine run; markdown in $WORK/NAME.md
side() {
	rep=$WORK/rep
	mkdir -p "$rep"
	hyperfine -N --warmup 1 --runs "$RUNS" --export-markdown "$WORK/$1.md" --prepare "rm -rf $rep/*" \
		-n "$1 plain -O2" "$($2 plain)" \
		-n "$1 plumb cc, measuring" \
		"env PLUMB_APROF_DIR=$rep $($2 plumb)" \
		-n "$1 plumb cc without the plugin, measuring" \
		"env PLUMB_APROF_DIR=$rep $($2 noplugin)" \
		-n "$1 callgrind" "valgrind --tool=callgrind --callgrind-out-file=$WORK/cg.out $($2 plain)"
	rm -rf "$rep"
}
side bzip2 bz
side lua lua

rss() {
	/usr/bin/time -f %M "$@" > /dev/null 2> "$WORK/rss" || true
	tail -1 "$WORK/rss"
}
memrow() {
	mkdir -p "$WORK/rep"
	echo "| $1 | $(rss $($2 plain)) | $(rss env PLUMB_APROF_DIR="$WORK/rep" $($2 plumb)) | $(rss env PLUMB_APROF_DIR="$WORK/rep" $($2 noplugin)) | $(rss valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" $($2 plain)) |"
	rm -rf "$WORK/rep"
}
{
	echo "## plumb cc on real programs (bzip2, Lua)"
	echo
	echo "\`sh bench/inputs_real.sh\` on $(date -u +%Y-%m-%d), load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs:"
	echo "bzip2 1.0.8 compressing $BZ_MB MB of text; Lua 5.4.4 running bench/inputs_real.lua $LUA_N;"
	echo "both built with gcc -O2 from Debian's sources, plain and with \`plumb cc\`."
	echo
	cat "$WORK/bzip2.md"
	echo
	cat "$WORK/lua.md"
	echo
	echo "| peak memory (KB) | plain -O2 | plumb cc, measuring | without the plugin | callgrind |"
	echo "|---|---|---|---|---|"
	memrow bzip2 bz
	memrow lua lua
} | python3 bench/section.py "$RESULTS" inputs-real
echo "bench: results in $RESULTS (section inputs-real)"
