#!/bin/sh
# Run libFuzzer targets built by `make fuzz`: fuzz/run.sh LF_DIR SECONDS NAME...
# Each target runs SECONDS, its corpus in LF_DIR/corpus/NAME (kept between
# runs, new inputs go there) seeded from the repository's test files; a
# crash, leak, timeout or failed oracle stops that target and leaves its
# input in LF_DIR/crashes/NAME/. The exit status is 1 when any target found
# something, with a message saying where the inputs are and what to do.
set -u
lf=$1 secs=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
t="$top/tests"

# The seed directories of each target (libFuzzer reads every file in them).
seeds() {
	case $1 in
	folded) echo "$t/data/folded $t/fuzz/folded" ;;
	speedscope) echo "$t/data/folded" ;;
	callgrind) echo "$t/data/callgrind $t/data/cycles $t/fuzz/callgrind" ;;
	gmon) echo "$t/fuzz/gmon" ;;
	gmon_exe) echo "$lf/gmon-exe/seeds $t/fuzz/gmon_exe" ;;
	store) echo "$t/fuzz/store" ;;
	aprof) echo "$t/data/aprof" ;;
	pprof) echo "$t/data/pprof" ;;
	readahead) echo "$t/fuzz/readahead" ;;
	signal_read) echo "$t/fuzz/signal_read" ;;
	*) echo "fuzz/run.sh: no seeds known for target '$1'" >&2; return 1 ;;
	esac
}

# gmon_exe reads gmon files with one executable: a gcc -pg build of a test
# program, and one run's gmon.out as its seed.
gmon_exe() {
	d="$lf/gmon-exe"
	mkdir -p "$d/seeds"
	[ -x "$d/prog" ] && return 0
	gcc -pg -g -O1 -fno-inline -o "$d/prog" "$t/programs/gm_main.c" "$t/programs/gm_second.c" &&
		(cd "$d" && ./prog > /dev/null && mv gmon.out seeds/gm_main.gmon)
}

found=""
for name in "$@"; do
	bin="$lf/fuzz-$name-lf"
	dirs=$(seeds "$name") || exit 2
	if [ "$name" = gmon_exe ]; then
		gmon_exe || { echo "fuzz/run.sh: gcc -pg failed: gmon_exe not run" >&2; found="$found $name"; continue; }
		PLUMB_FUZZ_EXE=$(cd "$lf/gmon-exe" && pwd)/prog
		export PLUMB_FUZZ_EXE
	fi
	corpus="$lf/corpus/$name" crashes="$lf/crashes/$name"
	mkdir -p "$corpus" "$crashes"
	log="$lf/fuzz-$name.log"
	echo "== fuzz $name: $secs s (log: $log)"
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$crashes/" "$corpus" $dirs > "$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	echo "   ${runs:-?} runs, corpus $(find "$corpus" -type f | wc -l) files, exit $rc"
	if [ "$rc" -ne 0 ]; then
		found="$found $name"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -5 | sed 's/^/   /'
		grep 'Test unit written to' "$log" | sed 's/^.*Test unit written to /   input: /'
	fi
done

if [ -n "$found" ]; then
	cat <<EOF
fuzz: found something in:$found
  Each input above reproduces it: $lf/fuzz-NAME-lf INPUT (gmon_exe also
  needs PLUMB_FUZZ_EXE=$lf/gmon-exe/prog). Once fixed, copy the input into
  tests/fuzz/NAME/ so that make check replays it (tests/e2e/t_fuzz.sh).
EOF
	exit 1
fi
echo "fuzz: nothing found"
