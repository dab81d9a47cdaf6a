# The fuzz targets (fuzz/*.c) run over their corpora without libFuzzer, by
# fuzz/replay.c: in the sanitizer build this checks the corpus (bad input
# included) for crashes, leaks and undefined behaviour, and in both the
# targets' oracles (what is read, written and read back is the same).
bindir=$(dirname "$PLUMB")
fz="$bindir/fuzz-aprof"
if [ ! -x "$fz" ]; then
	skip fuzz_aprof_corpus "$fz not built (make $fz)"
else
	run "$fz" "$DATA/aprof"
	n=$(find "$DATA/aprof" -type f | wc -l)
	if [ "$rc" -eq 0 ] && [ "$out" = "$n inputs run" ]; then
		ok fuzz_aprof_corpus
	else
		fail fuzz_aprof_corpus "exit $rc" "stdout: $out" "stderr: $err"
	fi
	# a failing oracle is an abort, seen as such
	printf 'not a report\n' > notes.txt
	run "$fz" notes.txt
	same fuzz_aprof_one_file "$rc $out" "0 1 inputs run"
fi

fz="$bindir/fuzz-pprof"
if [ ! -x "$fz" ]; then
	skip fuzz_pprof_corpus "$fz not built (make $fz)"
else
	run "$fz" "$DATA/pprof" "$DATA/../fuzz/pprof"
	n=$(find "$DATA/pprof" "$DATA/../fuzz/pprof" -type f | wc -l)
	if [ "$rc" -eq 0 ] && [ "$out" = "$n inputs run" ]; then
		ok fuzz_pprof_corpus
	else
		fail fuzz_pprof_corpus "exit $rc" "stdout: $out" "stderr: $err"
	fi
fi

# Callgrind: the test files and the inputs fuzzing found (tests/fuzz/callgrind)
fz="$bindir/fuzz-callgrind"
if [ ! -x "$fz" ]; then
	skip fuzz_callgrind_corpus "$fz not built (make $fz)"
else
	run "$fz" "$DATA/callgrind" "$DATA/../fuzz/callgrind"
	n=$(find "$DATA/callgrind" "$DATA/../fuzz/callgrind" -type f | wc -l)
	if [ "$rc" -eq 0 ] && [ "$out" = "$n inputs run" ]; then
		ok fuzz_callgrind_corpus
	else
		fail fuzz_callgrind_corpus "exit $rc" "stdout: $out" "stderr: $err"
	fi
fi

# .plumb store: small files plumb convert wrote (tests/fuzz/store)
fz="$bindir/fuzz-store"
if [ ! -x "$fz" ]; then
	skip fuzz_store_corpus "$fz not built (make $fz)"
else
	run "$fz" "$DATA/../fuzz/store"
	n=$(find "$DATA/../fuzz/store" -type f | wc -l)
	if [ "$rc" -eq 0 ] && [ "$out" = "$n inputs run" ]; then
		ok fuzz_store_corpus
	else
		fail fuzz_store_corpus "exit $rc" "stdout: $out" "stderr: $err"
	fi
fi

# gmon.out decoder and writer, no executable (tests/fuzz/gmon: a gcc -pg
# run's file and hand-made records, each after a layout byte)
fz="$bindir/fuzz-gmon"
if [ ! -x "$fz" ]; then
	skip fuzz_gmon_corpus "$fz not built (make $fz)"
else
	run "$fz" "$DATA/../fuzz/gmon"
	n=$(find "$DATA/../fuzz/gmon" -type f | wc -l)
	if [ "$rc" -eq 0 ] && [ "$out" = "$n inputs run" ]; then
		ok fuzz_gmon_corpus
	else
		fail fuzz_gmon_corpus "exit $rc" "stdout: $out" "stderr: $err"
	fi
fi

# speedscope is written only: folded stacks in, the writer's JSON checked
fz="$bindir/fuzz-speedscope"
if [ ! -x "$fz" ]; then
	skip fuzz_speedscope_corpus "$fz not built (make $fz)"
else
	run "$fz" "$DATA/folded" "$DATA/fig21.folded"
	n=$(($(find "$DATA/folded" -type f | wc -l) + 1))
	if [ "$rc" -eq 0 ] && [ "$out" = "$n inputs run" ]; then
		ok fuzz_speedscope_corpus
	else
		fail fuzz_speedscope_corpus "exit $rc" "stdout: $out" "stderr: $err"
	fi
fi

# folded stacks: the test files
fz="$bindir/fuzz-folded"
if [ ! -x "$fz" ]; then
	skip fuzz_folded_corpus "$fz not built (make $fz)"
else
	run "$fz" "$DATA/folded" "$DATA/../fuzz/folded"
	n=$(find "$DATA/folded" "$DATA/../fuzz/folded" -type f | wc -l)
	if [ "$rc" -eq 0 ] && [ "$out" = "$n inputs run" ]; then
		ok fuzz_folded_corpus
	else
		fail fuzz_folded_corpus "exit $rc" "stdout: $out" "stderr: $err"
	fi
fi

# gmon.out with its executable (a gcc -pg build made here): a fresh run's
# file, and tests/fuzz/gmon_exe (files of other builds are damaged input
# to this one, which is fine: both paths must agree on them)
fz="$bindir/fuzz-gmon_exe"
if [ ! -x "$fz" ]; then
	skip fuzz_gmon_exe_corpus "$fz not built (make $fz)"
elif ! gcc -pg -g -O1 -fno-inline -o fz_gm "$E2E_DIR/../programs/gm_main.c" \
	"$E2E_DIR/../programs/gm_second.c" 2> .cc; then
	skip fuzz_gmon_exe_corpus "gcc -pg failed: $(head -3 .cc)"
else
	mkdir -p fz_gmon && ./fz_gm > /dev/null && mv gmon.out fz_gmon/
	PLUMB_FUZZ_EXE=$PWD/fz_gm run "$fz" fz_gmon "$DATA/../fuzz/gmon_exe"
	n=$(find fz_gmon "$DATA/../fuzz/gmon_exe" -type f | wc -l)
	if [ "$rc" -eq 0 ] && [ "$out" = "$n inputs run" ]; then
		ok fuzz_gmon_exe_corpus
	else
		fail fuzz_gmon_exe_corpus "exit $rc" "stdout: $out" "stderr: $err"
	fi
fi

# the read-ahead thread and the line source (tests/fuzz/readahead: the first
# six bytes of each file say how the rest is stored and read)
fz="$bindir/fuzz-readahead"
if [ ! -x "$fz" ]; then
	skip fuzz_readahead_corpus "$fz not built (make $fz)"
else
	run "$fz" "$DATA/../fuzz/readahead"
	n=$(find "$DATA/../fuzz/readahead" -type f | wc -l)
	if [ "$rc" -eq 0 ] && [ "$out" = "$n inputs run" ]; then
		ok fuzz_readahead_corpus
	else
		fail fuzz_readahead_corpus "exit $rc" "stdout: $out" "stderr: $err"
	fi
fi

# the signal sampler's files (tests/fuzz/signal_read: files the sampler
# wrote, lock waits with their WAITHELD records included, and cut ones)
fz="$bindir/fuzz-signal_read"
if [ ! -x "$fz" ]; then
	skip fuzz_signal_read_corpus "$fz not built (make $fz)"
else
	run "$fz" "$DATA/../fuzz/signal_read"
	n=$(find "$DATA/../fuzz/signal_read" -type f | wc -l)
	if [ "$rc" -eq 0 ] && [ "$out" = "$n inputs run" ]; then
		ok fuzz_signal_read_corpus
	else
		fail fuzz_signal_read_corpus "exit $rc" "stdout: $out" "stderr: $err"
	fi
fi
