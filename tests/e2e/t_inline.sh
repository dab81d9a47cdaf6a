# plumb report --inline=no: inlined functions folded into the function they
# were inlined into (perf report's default), in every view.
if ! command -v gcc >/dev/null 2>&1; then
	skip "inline" "gcc not installed"
	return 0 2>/dev/null || exit 0
fi
P="$E2E_DIR/../programs"
gcc -O2 -g "$P/rec_inline.c" -o inl
if ! "$PLUMB" record -q -o inl.plumb ./inl 2> rec.err; then
	skip "inline" "cannot record here: $(head -1 rec.err)"
	return 0 2>/dev/null || exit 0
fi
run "$PLUMB" report --format csv --threshold 0 inl.plumb
printf '%s' "$out" > yes.csv
run "$PLUMB" report --inline=no --format csv --threshold 0 inl.plumb
py "--inline=no: inner_step and outer_step cost is hot's own, they are not listed" '
import csv, sys
yes = {r["function"]: r for r in csv.DictReader(open("yes.csv"))}
no = {r["function"]: r for r in csv.DictReader(sys.stdin)}
ex = lambda rows, f: int(rows[f]["exclusive.cpu-clock"]) if f in rows else 0
assert ex(yes, "inner_step") > 100, yes.keys()
assert "inner_step" not in no and "outer_step" not in no, no.keys()
want = ex(yes, "hot") + ex(yes, "outer_step") + ex(yes, "inner_step")
assert ex(no, "hot") == want, (ex(no, "hot"), want)
assert sum(map(lambda f: ex(no, f), no)) == sum(map(lambda f: ex(yes, f), yes))
assert int(no["main"]["inclusive.cpu-clock"]) == int(yes["main"]["inclusive.cpu-clock"])'
run "$PLUMB" report --inline=no --view tree --threshold 0 --format csv inl.plumb
py "--inline=no: the call tree has no inlined frame" '
import sys
t = sys.stdin.read()
assert "hot" in t and "inner_step" not in t and "outer_step" not in t, t'
run "$PLUMB" report --inline=no --view lines --threshold 0 --format csv inl.plumb
py "--inline=no: lines of the helpers are hot lines (the call at line 20)" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert all(r["function"] not in ("inner_step", "outer_step") for r in rows), rows
assert any(r["function"] == "hot" and r["line"] == "20" and int(r["exclusive.cpu-clock"]) > 100 for r in rows), rows'
expect_err "--inline takes yes or no" 2 "--inline expects yes or no" "$PLUMB" report --inline=maybe inl.plumb
