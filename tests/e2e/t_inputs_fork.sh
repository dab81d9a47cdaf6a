# fork and exec followed by programs built with plumb cc
# (tests/programs/inp_fork.c): each child writes its own report under its
# own pid, from no points (the parent's calls are the parent's); exec and
# _exit write the report first; plumb record collects every one.
T="$E2E_DIR/../programs"

if ! command -v cc > /dev/null 2>&1; then
	skip "plumb cc: fork and exec" "no cc on PATH"
	return 0 2> /dev/null || exit 0
fi

for cc in gcc clang; do
	if ! command -v $cc > /dev/null 2>&1; then
		skip "fork and exec with $cc" "no $cc"
		continue
	fi
	expect_status "plumb cc --cc=$cc builds inp_fork.c" 0 "$PLUMB" cc --cc=$cc -O2 "$T/inp_fork.c" -o fork_$cc
	mkdir rep_$cc
	run env PLUMB_APROF_DIR=rep_$cc ./fork_$cc
	same "$cc: the program and its children print as usual" "$out" "child 1225
child 435
leaf 780
parent 190"
	n=$(ls rep_$cc | wc -l)
	pids=$(ls rep_$cc | cut -d_ -f3 | sort -u | wc -l)
	same "$cc: 5 reports (parent, exit, _exit, before and after exec) from 4 processes" "$n $pids" "5 4"
	out=$(for f in rep_$cc/*.aprof; do awk '$1 == "r" { cur = ($2 == "\"sum\"") } $1 == "q" && cur { print $3, $8 }' "$f"; done | sort -n | tr '\n' ' ')
	same "$cc: each process's sum once, with its own rms (no parent's points in a child)" "$out" "20 1 30 1 40 1 50 1 "

	run "$PLUMB" record -o fork_$cc.plumb ./fork_$cc
	case "$err" in
	*"5 reports"*) ok "$cc: plumb record collects the children's reports" ;;
	*) fail "$cc: plumb record collects the children's reports" "$err" ;;
	esac
	run "$PLUMB" report --view flat --format csv fork_$cc.plumb
	py "$cc: plumb record of fork and exec: sum called 4 times, main once per process image" '
import csv, sys
calls = {r["function"]: int(r["calls"]) for r in csv.DictReader(sys.stdin)}
assert calls["sum"] == 4, calls
assert calls["main"] == 5, calls
'
done
