# Help, version, colour.
expect_status "plumb --help" 0 "$PLUMB" --help
expect_out "--help lists report" "report"
expect_status "plumb --version" 0 "$PLUMB" --version
expect_out "--version" "plumb "
for c in report convert info; do
	expect_status "plumb $c --help" 0 "$PLUMB" $c --help
	expect_out "plumb $c --help has usage" "usage: plumb $c"
	expect_out "plumb $c --help has examples" "Example"
	expect_status "plumb help $c" 0 "$PLUMB" help $c
done
esc=$(printf '\033')
run "$PLUMB" report --color always "$DATA/fig21.folded"
case "$out" in *"$esc["*) ok "--color always colours" ;; *) fail "--color always colours" "no escape codes" ;; esac
run env NO_COLOR=1 "$PLUMB" report --color always "$DATA/fig21.folded"
case "$out" in *"$esc"*) fail "NO_COLOR wins" "escape codes with NO_COLOR" ;; *) ok "NO_COLOR wins" ;; esac
run "$PLUMB" report "$DATA/fig21.folded"
case "$out" in *"$esc"*) fail "no colour when not a tty" "escape codes in a pipe" ;; *) ok "no colour when not a tty" ;; esac
# A narrow terminal: long names are elided in the middle, numbers kept.
printf 'main;a_function_with_a_really_quite_remarkably_long_name_for_testing 5\n' > long.folded
run "$PLUMB" report --width 70 long.folded
w=$(printf '%s\n' "$out" | awk '{ if (length($0) > m) m = length($0) } END { print m }')
[ "$w" -le 70 ] && ok "--width 70 fits" || fail "--width 70 fits" "widest line $w"
expect_out "elided name" "..."
# Help fits an 80-column terminal, as git's and perf's do.
wide=""
for c in "" record report diff annotate convert gprof cc info; do
	# shellcheck disable=SC2086
	"$PLUMB" $c --help > help.txt 2>&1
	w=$(python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")))' help.txt)
	[ "$w" -le 80 ] || wide="$wide plumb $c --help: $w columns;"
done
[ -z "$wide" ] && ok "every --help fits 80 columns" || fail "every --help fits 80 columns" "$wide"
