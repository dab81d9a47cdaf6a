#!/bin/sh
# End-to-end tests: every tests/e2e/t_*.sh is run with $PLUMB set to the
# binary under test, in a fresh temporary directory. Each test script calls
# the helpers of lib.sh; a script that exits non-zero counts as a failure.
set -u
counts=$1
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0 skipped=0

# The skip lines, and each FAIL line with every line after it up to the next
# ok/FAIL/skip line (its evidence, which may run over many lines: a
# sanitizer report, a diff), indented and cut at E2E_EVIDENCE lines.
evidence() {
	awk -v max="${E2E_EVIDENCE:-60}" '
	function cut() { if (more) printf "  ... %d more lines\n", more; in_fail = more = 0 }
	/^(ok|skip) / { cut(); if (/^skip /) print; next }
	/^FAIL / { cut(); print; in_fail = 1; n = 0; next }
	in_fail { if (n++ < max) print (/^  / ? "" : "  ") $0; else more++ }
	END { cut() }'
}
for t in "$here"/t_*.sh; do
	name=$(basename "$t" .sh)
	work=$(mktemp -d "${TMPDIR:-/tmp}/plumb-e2e.XXXXXX")
	start=$(date +%s)
	# A script that hangs fails alone, after E2E_TIMEOUT seconds.
	out=$(cd "$work" && E2E_DIR="$here" DATA="$here/../data" timeout -k 10 "${E2E_TIMEOUT:-900}" \
		sh -c ". '$here/lib.sh'; . '$t'; e2e_done" 2>&1)
	rc=$?
	[ $rc -eq 124 ] && out="$out
FAIL $name: still running after ${E2E_TIMEOUT:-900} s, stopped"
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	s=$(printf '%s\n' "$out" | grep -c '^skip ')
	f=$(printf '%s\n' "$out" | grep -c '^FAIL ')
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		out="$out
FAIL $name: script exited with status $rc; its last lines:
$(printf '%s\n' "$out" | tail -n 20 | sed 's/^/  /')"
	fi
	printf '%s\n' "$out" | evidence
	# the seconds each script took: what to look at when the suite is slow
	echo "$name: $p passed, $f failed${s:+, $s skipped} ($(($(date +%s) - start)) s)" |
		sed 's/, 0 skipped (/ (/'
	skipped=$((skipped + s))
	pass=$((pass + p))
	fail=$((fail + f))
	rm -rf "$work"
done
echo "e2e $pass $fail $skipped" >> "$counts"
[ "$fail" -eq 0 ]
