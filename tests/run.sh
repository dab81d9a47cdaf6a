#!/bin/sh
# Run one build's tests: Criterion unit tests, then the end-to-end scripts.
# Usage: tests/run.sh BUILD_DIR. Counts go to BUILD_DIR/test-counts for
# tests/summary.sh; the exit status says whether everything passed.
set -u
build=$1
top=$(cd "$(dirname "$0")/.." && pwd)
counts="$build/test-counts"
: > "$counts"
status=0

echo "== unit tests ($build)"
log="$build/unit.log"
"$build/test-unit" --jobs=2 > "$log" 2>&1
rc=$?
grep -E '^\[(FAIL|----)\]|Synthesis' "$log" | grep -v '^\[----\] *$' | tail -40
line=$(grep 'Synthesis' "$log" | tail -1)
upass=$(echo "$line" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
ufail=$(echo "$line" | sed -n 's/.*Failing: \([0-9]*\).*Crashing: \([0-9]*\).*/\1 \2/p' | awk '{print $1+$2}')
if [ -z "$upass" ]; then
	echo "unit tests did not report (exit $rc); see $log"
	upass=0 ufail=1
fi
[ "$rc" -ne 0 ] && [ "${ufail:-0}" -eq 0 ] && ufail=1
echo "unit $upass $ufail" >> "$counts"
[ "$ufail" -ne 0 ] && status=1

echo "== end-to-end tests ($build)"
PLUMB="$top/$build/plumb" sh "$top/tests/e2e/run.sh" "$counts" || status=1
exit $status
