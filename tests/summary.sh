#!/bin/sh
# Sum the counts of the builds tested (tests/run.sh) into one line.
set -u
pass=0 fail=0 skipped=0
for b in "$@"; do
	f="$b/test-counts"
	if [ ! -f "$f" ]; then
		echo "no results for $b"
		fail=$((fail + 1))
		continue
	fi
	while read -r _ p f2 s; do
		pass=$((pass + p))
		fail=$((fail + f2))
		skipped=$((skipped + ${s:-0}))
	done < "$f"
done
[ "$skipped" -gt 0 ] && echo "$skipped checks skipped (listed above as 'skip'): not counted as passed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
