# The fuzz targets (fuzz/*.c) run over their corpora without libFuzzer, by
# fuzz/replay.c: in the sanitizer build this checks the corpus (bad input
# included) for crashes, leaks and undefined behaviour, and in both the
# targets' oracles (what is read, written and read back is the same).
bindir=$(dirname "$PLUMB")
fuzz="$DATA/../fuzz"

# corpus NAME FILE_OR_DIR...: fuzz-NAME runs every file given once, and
# says so (check fuzz_NAME_corpus); false when the target is not built.
corpus() {
	name=$1
	shift
	fz="$bindir/fuzz-$name"
	if [ ! -x "$fz" ]; then
		skip "fuzz_${name}_corpus" "$fz not built (make $fz)"
		return 1
	fi
	run "$fz" "$@"
	n=$(find "$@" -type f | wc -l)
	if [ "$rc" -eq 0 ] && [ "$out" = "$n inputs run" ]; then
		ok "fuzz_${name}_corpus"
	else
		fail "fuzz_${name}_corpus" "exit $rc" "stdout: $out" "stderr: $err"
	fi
}

if corpus aprof "$DATA/aprof"; then
	# a failing oracle is an abort, seen as such
	printf 'not a report\n' > notes.txt
	run "$fz" notes.txt
	same fuzz_aprof_one_file "$rc $out" "0 1 inputs run"
fi

corpus pprof "$DATA/pprof" "$fuzz/pprof"

# Callgrind: the test files and the inputs fuzzing found (tests/fuzz/callgrind)
corpus callgrind "$DATA/callgrind" "$fuzz/callgrind"

# .plumb store: small files plumb convert wrote (tests/fuzz/store)
corpus store "$fuzz/store"

# gmon.out decoder and writer, no executable (tests/fuzz/gmon: a gcc -pg
# run's file and hand-made records, each after a layout byte)
corpus gmon "$fuzz/gmon"

# speedscope is written only: folded stacks in, the writer's JSON checked
corpus speedscope "$DATA/folded" "$DATA/fig21.folded"

# folded stacks: the test files
corpus folded "$DATA/folded" "$fuzz/folded"

# gmon.out with its executable (a gcc -pg build made here): a fresh run's
# file, and tests/fuzz/gmon_exe (files of other builds are damaged input
# to this one, which is fine: both paths must agree on them)
if [ ! -x "$bindir/fuzz-gmon_exe" ]; then
	skip fuzz_gmon_exe_corpus "$bindir/fuzz-gmon_exe not built (make $bindir/fuzz-gmon_exe)"
elif ! gcc -pg -g -O1 -fno-inline -o fz_gm "$E2E_DIR/../programs/gm_main.c" \
	"$E2E_DIR/../programs/gm_second.c" 2> .cc; then
	skip fuzz_gmon_exe_corpus "gcc -pg failed: $(head -3 .cc)"
else
	mkdir -p fz_gmon && ./fz_gm > /dev/null && mv gmon.out fz_gmon/
	PLUMB_FUZZ_EXE=$PWD/fz_gm
	export PLUMB_FUZZ_EXE
	corpus gmon_exe fz_gmon "$fuzz/gmon_exe"
fi

# the read-ahead thread and the line source (tests/fuzz/readahead: the first
# six bytes of each file say how the rest is stored and read)
corpus readahead "$fuzz/readahead"

# the signal sampler's files and their heap records (tests/fuzz/signal_read:
# files the sampler wrote: lock waits with WAITHELD records, heap tracing;
# and cut ones)
corpus signal_read "$fuzz/signal_read"
