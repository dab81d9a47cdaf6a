# Helpers for end-to-end tests. Each check prints "ok NAME" or "FAIL NAME"
# with the evidence indented below it.
_e2e_failed=0

ok() { echo "ok $1"; }
# skip NAME REASON: a check that could not run here; never counted as passed.
skip() { echo "skip $1: $2"; }
fail() {
	echo "FAIL $1"
	shift
	for l in "$@"; do printf '  %s\n' "$l"; done
	_e2e_failed=1
}

# run CMD...: runs it, keeping stdout in $out, stderr in $err, status in $rc.
run() {
	"$@" > .out 2> .err
	rc=$?
	out=$(cat .out)
	err=$(cat .err)
	# Any sanitizer report fails the test, whatever the exit status.
	case "$err" in
	*AddressSanitizer*|*"runtime error"*|*LeakSanitizer*) fail "sanitizer report from: $*" "$err" ;;
	esac
}

# expect NAME STATUS CMD...: the command exits with STATUS.
expect_status() {
	name=$1 want=$2
	shift 2
	run "$@"
	if [ "$rc" -eq "$want" ]; then ok "$name"; else fail "$name" "exit $rc, expected $want" "stderr: $err"; fi
}

# expect_err NAME STATUS TEXT CMD...: exits with STATUS and stderr holds TEXT.
expect_err() {
	name=$1 want=$2 text=$3
	shift 3
	run "$@"
	if [ "$rc" -eq "$want" ] && printf '%s' "$err" | grep -qF -- "$text"; then
		ok "$name"
	else
		fail "$name" "exit $rc (expected $want)" "stderr: $err" "expected to contain: $text"
	fi
}

# expect_out NAME TEXT: the last run's stdout holds TEXT.
expect_out() {
	if printf '%s' "$out" | grep -qF -- "$2"; then ok "$1"; else fail "$1" "stdout lacks: $2" "$(printf '%s' "$out" | head -20)"; fi
}

# same NAME A B: two strings are equal.
same() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "got:      $(printf '%s' "$2" | head -5)" "expected: $(printf '%s' "$3" | head -5)"; fi
}

# py NAME SCRIPT: a python3 check that reads the last stdout on stdin and
# exits 0 when it holds.
py() {
	if printf '%s' "$out" | python3 -c "$2" 2> .pyerr; then ok "$1"; else fail "$1" "$(cat .pyerr)"; fi
}

e2e_done() { return $_e2e_failed; }
