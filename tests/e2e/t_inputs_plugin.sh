# The gcc plugin of plumb cc (src/inputs/gcc_plugin.cc) puts the runtime's
# fast paths inline; the reports must be those of the runtime's hooks alone
# (PLUMB_INPUTS_PLUGIN=no), line for line: costs, rms at memres 1, 4 and 8
# (accesses of one and two cells, across a 64 KiB shadow leaf), with the
# clock renumbered, at -O0 and -O2, longjmp, threads.
T="$E2E_DIR/../programs"

if ! command -v cc > /dev/null 2>&1; then
	skip "plumb cc plugin" "no cc on PATH"
	return 0 2> /dev/null || exit 0
fi
if [ ! -f "$(dirname "$PLUMB")/plumb-inputs-gcc.so" ]; then
	skip "plumb cc plugin" "not built (gcc's plugin headers: gcc-12-plugin-dev)"
	return 0 2> /dev/null || exit 0
fi

# points FILE...: the p, q and x lines of the reports, one report a line
# (threads are numbered in the order they start, so sorted)
points() {
	for f in "$@"; do grep -E '^[pqx]' "$f" | tr '\n' ' '; echo; done | sort
}

# both NAME OPT... -- ENV...: build tests/programs/NAME.c with and without
# the plugin, run both with ENV, and compare the reports
both() {
	prog=$1
	shift
	opts=""
	while [ "$1" != "--" ]; do opts="$opts $1"; shift; done
	shift
	for v in yes no; do
		rm -rf "rep-$v" && mkdir "rep-$v"
		# shellcheck disable=SC2086
		PLUMB_INPUTS_PLUGIN=$v "$PLUMB" cc $opts "$T/$prog.c" -o "$prog-$v" -lpthread || return 1
		env PLUMB_APROF_DIR="rep-$v" "$@" "./$prog-$v" > /dev/null 2>&1
	done
	out="with: $(points rep-yes/*.aprof)
without: $(points rep-no/*.aprof)"
	[ -n "$(ls rep-yes)" ] && [ "$(points rep-yes/*.aprof)" = "$(points rep-no/*.aprof)" ]
}

check() {
	label=$1
	shift
	if both "$@"; then ok "plugin: same reports as the hooks alone: $label"; else fail "plugin: same reports as the hooks alone: $label" "$out"; fi
}

check "kernels -O2" inp_kernels -O2 -g -- env
check "kernels -O0" inp_kernels -O0 -- env
check "kernels -O2, clock renumbered every 100 calls" inp_kernels -O2 -- env PLUMB_APROF_CLOCK_MAX=100
for m in 1 4 8; do
	check "cells across a leaf, memres $m" inp_cells -O2 -- env PLUMB_APROF_MEMRES=$m
done
check "longjmp" inp_jump -O2 -- env
check "threads" inp_threads -O2 -- env

# The plugin is used: the entry hook that gets the frame's CFA, and fewer
# calls to the access hooks than without it.
run objdump -d inp_kernels-yes
case "$out" in
*"call"*"<__plumb_inp_func_entry>"*) ok "plugin: plumb cc loads it" ;;
*) fail "plugin: plumb cc loads it" "no call to __plumb_inp_func_entry" ;;
esac
with=$(objdump -d inp_kernels-yes | grep -c 'call.*<__sanitizer_cov_trace_pc>')
without=$(objdump -d inp_kernels-no | grep -c 'call.*<__sanitizer_cov_trace_pc>')
same "plugin: blocks are counted inline (calls to the block hook with, without)" "$with $([ "$without" -gt 0 ] && echo some)" "0 some"

# cells: exact rms across the leaf boundary, with the plugin
rm -rf rc && mkdir rc
PLUMB_APROF_DIR=rc ./inp_cells-yes > /dev/null
same "plugin: unaligned reads over a leaf boundary, rms in 4-byte cells" \
	"$(awk '$1 == "r" { cur = $2 } $1 == "q" && cur == "\"scan\"" { print $3 }' rc/*.aprof)" "52"

# Another gcc than the one the plugin was built for (here one that says it
# is 99.0.0): plumb cc says so and builds without the plugin, with the same
# reports, instead of gcc failing to load it.
cat > gcc-other <<'SH'
#!/bin/sh
[ "$1" = -dumpfullversion ] && { echo 99.0.0; exit 0; }
exec cc "$@"
SH
chmod +x gcc-other
expect_err "plugin: another gcc version is told and built without it" 0 \
	"was built for gcc $(cc -dumpfullversion), and ./gcc-other is gcc 99.0.0: building without it" \
	"$PLUMB" cc --cc=./gcc-other -O2 "$T/inp_kernels.c" -o inp_kernels-other
PLUMB_INPUTS_PLUGIN=no "$PLUMB" cc -O2 "$T/inp_kernels.c" -o inp_kernels-none
for v in other none; do
	rm -rf "rep-$v" && mkdir "rep-$v"
	PLUMB_APROF_DIR="rep-$v" "./inp_kernels-$v" > /dev/null 2>&1
done
same "plugin: another gcc's build reports what the hooks alone do" "$(points rep-other/*.aprof)" "$(points rep-none/*.aprof)"

# The same binary with its inline paths on and off (PLUMB_APROF_INLINE=no:
# every access takes the runtime's hooks): the same reports, with the reads
# of cells the caller or a deeper ancestor counted, an ancestor's return and
# a new frame at its depth, longjmp and threads (tests/programs/inp_ancestors.c).
# "on" and "no" have one length: the stack, and so the cells, stay put.
inline_same() {
	label=$1 prog=$2 memres=$3
	for v in on no; do
		rm -rf "ri-$v" && mkdir "ri-$v"
		env PLUMB_APROF_DIR="ri-$v" PLUMB_APROF_INLINE=$v PLUMB_APROF_MEMRES="$memres" "./$prog" > /dev/null 2>&1
	done
	if [ -n "$(ls ri-on)" ] && [ "$(points ri-on/*.aprof)" = "$(points ri-no/*.aprof)" ]; then
		ok "plugin: inline reads as the hooks: $label"
	else
		fail "plugin: inline reads as the hooks: $label" "on: $(points ri-on/*.aprof)
off: $(points ri-no/*.aprof)"
	fi
}
"$PLUMB" cc -O2 "$T/inp_ancestors.c" -o ancestors -lpthread
for m in 1 4 8; do
	inline_same "ancestors, memres $m" ancestors $m
done
inline_same "kernels" inp_kernels-yes 4
check "ancestors, with and without the plugin" inp_ancestors -O2 -- env

# peek(a, n) reads n ints its caller or grandparent read: rms n, for the
# n main's work(a, 50) passes it (50-r and halves of 50-r and 49-r, r < 6,
# 25 and 12 through own_then_half and second_half)
rm -rf ra && mkdir ra
PLUMB_APROF_DIR=ra ./ancestors > /dev/null
same "plugin: a leaf reading what its ancestors read, rms in 4-byte cells" \
	"$(awk '$1 == "r" { cur = $2 } $1 == "q" && cur == "\"peek\"" { print $3 }' ra/*_0_4.aprof | sort -n | uniq | tr '\n' ' ')" \
	"12 20 21 22 23 24 25 40 42 44 45 46 47 48 49 50 "
