# The progress line of long reads and writes: on a terminal only (script(1) gives the
# command one), never in a pipe, with CI set or with --quiet. Shown after
# PLUMB_PROGRESS_AFTER seconds (1 by default; 0 here, so that a 2 MB file
# gets it).
python3 "$E2E_DIR/../../bench/gen_callgrind.py" big.out 2
export PLUMB_PROGRESS_AFTER=0
# on a terminal, text goes through a pager: not here, where the terminal's
# stream itself is read (a pager would wait for keys)
export PLUMB_PAGER=
unset CI
# on_terminal ARGS PATTERN NAME: plumb ARGS run on a terminal shows a
# progress line matching PATTERN.
on_terminal() {
	script -qec "$PLUMB $1 >/dev/null" /dev/null < /dev/null > tty.txt 2>&1
	if grep -q "$2" tty.txt; then
		ok "progress line on a terminal: $3"
	else
		fail "progress line on a terminal: $3" "expected '$2', terminal got: $(head -c 300 tty.txt)"
	fi
}
if command -v script >/dev/null 2>&1; then
	for cmd in "info big.out" "report big.out" "annotate big.out" "convert -o big2.folded big.out"; do
		on_terminal "$cmd" "reading big.out: .* MB" "plumb $cmd"
	done
	# writes: the store by its blocks, text through a counting stream;
	# reads of a store by its blocks; the files written are the same as
	# without a terminal
	"$PLUMB" convert -o quiet.plumb big.out 2> /dev/null
	"$PLUMB" convert -o quiet.cg big.out 2> /dev/null
	for w in big.plumb big.cg; do
		on_terminal "convert -o $w big.out" "writing $w: .* MB" "writing $w"
	done
	if cmp -s big.cg quiet.cg && "$PLUMB" report big.plumb > a.txt 2>&1 &&
		"$PLUMB" report quiet.plumb > b.txt 2>&1 && [ "$(tail -n +2 a.txt)" = "$(tail -n +2 b.txt)" ]; then
		ok "files written with a progress line are the same"
	else
		fail "files written with a progress line differ" "$(cmp big.cg quiet.cg)"
	fi
	on_terminal "info big.plumb" "reading big.plumb: .* MB" "reading a .plumb"
	script -qec "$PLUMB convert -q -o big3.plumb big.out" /dev/null < /dev/null > tty.txt 2>&1
	same "convert --quiet: no progress line" "$(cat tty.txt)" ""
	script -qec "$PLUMB info -q big.out >/dev/null" /dev/null < /dev/null > tty.txt 2>&1
	same "--quiet: no progress line" "$(cat tty.txt)" ""
	CI=true script -qec "$PLUMB info big.out >/dev/null" /dev/null < /dev/null > tty.txt 2>&1
	same "CI set: no progress line" "$(cat tty.txt)" ""
	# the line is erased once the file is read: what follows starts clean
	script -qec "$PLUMB info big.out" /dev/null < /dev/null > tty.txt 2>&1
	if grep -q "$(printf '\r\033\\[K')" tty.txt && grep -q "^Format:\|callgrind" tty.txt; then
		ok "progress line erased before the output"
	else
		fail "progress line erased before the output" "terminal got: $(head -c 300 tty.txt)"
	fi
else
	skip "progress line on a terminal" "script(1) is missing (Debian package bsdutils)"
fi
run "$PLUMB" info big.out
same "no progress line in a pipe" "$err" ""
