# plumb report on folded stacks and on the .plumb store: seed 004's Figure 2-1.
fig="$DATA/fig21.folded"

run "$PLUMB" report --format json "$fig"
same "report json exits 0" "$rc" 0
py "figure 2-1 numbers in the JSON contract" '
import json, sys
r = json.load(sys.stdin)
assert r["format"] == "plumb-report" and r["version"] == 2, (r["format"], r["version"])
assert r["events"][0]["name"] == "samples"
assert r["totals"] == [32], r["totals"]
f = {x["name"]: x for x in r["functions"]}
want = {"main": (2, 32), "A": (0, 10), "B": (5, 20), "C": (5, 25), "E": (10, 10), "F": (5, 10), "G": (5, 5)}
for n, (e, i) in want.items():
    assert f[n]["exclusive"] == [e] and f[n]["inclusive"] == [i], (n, f[n])
    assert f[n]["calls"] is None and f[n]["inclusive_estimated"] is False
callers = {c["name"]: c["attributed"] for c in f["C"]["callers"]}
callees = {c["name"]: c["attributed"] for c in f["C"]["callees"]}
assert callers == {"A": [10], "B": [15]}, callers
assert callees == {"E": [10], "F": [10]}, callees
assert {c["name"]: c["attributed"] for c in f["main"]["callees"]} == {"A": [10], "B": [20]}
assert len(r["functions"]) == 7
'

# The same numbers through the store: convert, then report the .plumb.
expect_status "convert folded to .plumb" 0 "$PLUMB" convert "$fig" -o fig.plumb
run "$PLUMB" report --format json "$fig"; direct=$out
run "$PLUMB" report --format json fig.plumb; stored=$out
same "report of .plumb equals report of folded (json)" "$stored" "$direct"
for v in flat callers callees butterfly tree bottom-up lines files modules threads; do
	run "$PLUMB" report --view $v --format csv "$fig"; a=$out
	run "$PLUMB" report --view $v --format csv fig.plumb; b=$out
	same "view $v: .plumb equals folded (csv)" "$b" "$a"
done

# Every view in every output format works and is well formed.
for v in flat callers callees butterfly tree bottom-up lines files modules threads; do
	for input in "$fig" fig.plumb; do
		run "$PLUMB" report --view $v --format json "$input"
		[ "$rc" -eq 0 ] || fail "view $v json on $input" "exit $rc: $err"
		py "view $v json parses ($input)" 'import json,sys; d=json.load(sys.stdin); assert d["format"] in ("plumb-report","plumb-view")'
		run "$PLUMB" report --view $v --format csv "$input"
		py "view $v csv parses ($input)" '
import csv, sys
rows = list(csv.reader(sys.stdin))
assert len(rows) >= 2 and all(len(r) == len(rows[0]) for r in rows), rows[:3]'
		run "$PLUMB" report --view $v "$input"
		[ "$rc" -eq 0 ] && [ -n "$out" ] && ok "view $v text ($input)" || fail "view $v text ($input)" "exit $rc: $err"
	done
done

# The flat text: fprof columns, one decimal, grouped numbers.
run "$PLUMB" report --width 0 "$fig"
expect_out "flat text has the fprof columns" "% samples  Cumul %  Excl. samples  Incl. samples  Function"
expect_out "flat text row for C" "15.6     46.9              5             25  C"
expect_out "flat text header names the total" "Total: 32 samples"

# Butterfly of C: callers above, callees below, attributed values.
run "$PLUMB" report --butterfly C --format csv "$fig"
same "butterfly C rows" "$(printf '%s\n' "$out" | cut -d, -f2,5,7)" "kind,attributed.samples,function
caller,15,B
caller,10,A
focus,25,C
callee,10,E
callee,10,F"

# Tree: inclusive per path; recursion never counted twice.
printf 'main;f;f;f 10\nmain;f 5\nmain;g 5\n' > rec.folded
run "$PLUMB" report --format json rec.folded
py "direct recursion counted once" '
import json,sys
f = {x["name"]: x for x in json.load(sys.stdin)["functions"]}
assert f["f"]["inclusive"] == [15] and f["main"]["inclusive"] == [20]
c = {x["name"]: x["attributed"] for x in f["f"]["callers"]}
assert c == {"main": [5], "f": [10]}, c'
run "$PLUMB" report --view tree --format csv rec.folded
same "tree view of a recursion" "$(printf '%s\n' "$out" | cut -d, -f1,4,5,6)" "depth,inclusive.samples,exclusive.samples,calls
0,20,0,
1,15,5,
2,10,0,
3,10,10,
1,5,5,"

# Options: select, hide, focus, limit, threshold, sort, metric.
run "$PLUMB" report --format csv --select C --select E "$fig"
same "--select keeps two functions" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f6 | sort | tr '\n' ' ')" "C E "
run "$PLUMB" report --format csv --hide main --hide E "$fig"
same "--hide removes two functions" "$(printf '%s\n' "$out" | tail -n +2 | wc -l | tr -d ' ')" 5
run "$PLUMB" report --format csv --focus A "$fig"
py "--focus A keeps only stacks through A" '
import csv,sys
rows = {r["function"]: r for r in csv.DictReader(sys.stdin)}
assert set(rows) == {"main","A","C","E","F","G"}, set(rows)
assert rows["main"]["inclusive.samples"] == "10" and rows["C"]["inclusive.samples"] == "10"
assert abs(float(rows["E"]["percent.samples"]) - 40.0) < 1e-9'
run "$PLUMB" report --format csv --limit 2 "$fig"
same "--limit 2" "$(printf '%s\n' "$out" | tail -n +2 | wc -l | tr -d ' ')" 2
run "$PLUMB" report --format csv --threshold 15 "$fig"
same "--threshold 15 keeps rows at 15.6% and over" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f6 | tr '\n' ' ')" "E C B F G main A "
run "$PLUMB" report --format csv --threshold 40 "$fig"
same "--threshold 40 (inclusive counts too)" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f6 | tr '\n' ' ')" "C B main "
run "$PLUMB" report --format csv --sort inclusive "$fig"
same "--sort inclusive" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f6 | tr '\n' ' ')" "main C B E F A G "
run "$PLUMB" report --format csv --sort name "$fig"
same "--sort name" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f6 | tr '\n' ' ')" "A B C E F G main "
expect_status "--metric samples" 0 "$PLUMB" report --metric samples "$fig"
expect_err "--metric of an unknown event" 2 "no event 'cycles'" "$PLUMB" report --metric cycles "$fig"

# Several inputs are summed; the default input is profile.plumb.
run "$PLUMB" report --format json "$fig" "$fig"
py "two inputs summed" 'import json,sys; assert json.load(sys.stdin)["totals"] == [64]'
cp fig.plumb profile.plumb
run "$PLUMB" report --format json
same "default input profile.plumb" "$out" "$direct"

# convert to folded and back gives the same report.
expect_status "convert .plumb to folded" 0 "$PLUMB" convert fig.plumb --to folded -o back.folded
run "$PLUMB" report --format json back.folded
same "folded -> plumb -> folded keeps every number" "$out" "$direct"

# [module] suffixes, spaces in frames, files and modules views.
printf 'main [/bin/app];std::vector<int, std::allocator<int> >::push_back(int const&) [/usr/lib/libstdc++.so.6] 7\nmain [/bin/app];read [/lib/libc.so.6] 3\n' > mod.folded
run "$PLUMB" report --view modules --format csv mod.folded
py "modules view" '
import csv,sys
rows = {r["module"]: r for r in csv.DictReader(sys.stdin)}
assert rows["/usr/lib/libstdc++.so.6"]["exclusive.samples"] == "7"
assert rows["/bin/app"]["inclusive.samples"] == "10" and rows["/bin/app"]["exclusive.samples"] == "0"'
run "$PLUMB" report --format json mod.folded
py "a frame with spaces and a module" '
import json,sys
f = {x["name"]: x for x in json.load(sys.stdin)["functions"]}
n = "std::vector<int, std::allocator<int> >::push_back(int const&)"
assert f[n]["module"] == "/usr/lib/libstdc++.so.6" and f[n]["exclusive"] == [7]'
run "$PLUMB" report --select libc.so.6 --view modules --format csv mod.folded
same "module symspec by basename" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f5)" "/lib/libc.so.6"

# info
run "$PLUMB" info fig.plumb
expect_out "info names the format" "Format:    plumb"
expect_out "info gives the total" "32 samples"
run "$PLUMB" info --format json "$fig"
py "info json" 'import json,sys; d=json.load(sys.stdin); assert d["input_format"]=="folded" and d["events"][0]["total"]==32 and d["counts"]["functions"]==7'

# Call views list functions by inclusive cost in every format; JSON arcs
# are heaviest first, as in text.
run "$PLUMB" report --view callers --format json "$fig"
py "callers json: inclusive order, sorted arcs" '
import json,sys
fs = json.load(sys.stdin)["functions"]
inc = [f["inclusive"][0] for f in fs]
assert inc == sorted(inc, reverse=True), inc
c = next(f for f in fs if f["name"] == "C")
assert [x["name"] for x in c["callers"]] == ["B", "A"], c["callers"]'
# C++ names as printed work as symspecs.
printf 'main;ns::Klass::run(int);std::sort 4\nmain;other 1\n' > cxx.folded
run "$PLUMB" report --format csv --select 'ns::Klass::run(int)' cxx.folded
same "--select a C++ name with ::" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f6)" "ns::Klass::run(int)"
run "$PLUMB" report --format csv --select std::sort cxx.folded
same "--select std::sort" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f6)" "std::sort"
# Tree --sort name orders siblings by name; bottom-up --select picks leaves.
run "$PLUMB" report --view tree --sort name --format csv "$fig"
same "tree --sort name" "$(printf '%s\n' "$out" | awk -F, '$1 == 1 { print $7 }' | tr '\n' ' ')" "A B "
run "$PLUMB" report --view bottom-up --select C --format csv "$fig"
same "bottom-up --select C: C's callers below it" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f1,4,5 | tr '\n' ' ')" "0,5,C 1,3,B 2,3,main 1,2,A 2,2,main "
expect_err "threads --select is refused" 2 "threads view" "$PLUMB" report --view threads --select main "$fig"
# --focus: the header gives both totals.
run "$PLUMB" report --focus A "$fig"
expect_out "--focus header" "Total: 32 samples (10 through --focus)"
# convert -o - writes folded stacks to stdout.
run "$PLUMB" convert fig.plumb -o -
same "convert -o -" "$(printf '%s\n' "$out" | sort)" "$(sort "$fig")"

# A 5000-deep recursion and 200 siblings: trees use no recursion of their own.
python3 -c '
print(";".join(["main"] + ["r"] * 5000) + " 3")
for i in range(200):
    print("main;s%d 1" % i)' > deep.folded
run "$PLUMB" report --view tree --threshold 0 --format csv deep.folded
same "deep tree: every row" "$(printf '%s\n' "$out" | tail -n +2 | wc -l | tr -d ' ')" 5201
run "$PLUMB" report --format json deep.folded
py "deep recursion counted once" '
import json,sys
f = {x["name"]: x for x in json.load(sys.stdin)["functions"]}
assert f["r"]["inclusive"] == [3] and f["main"]["inclusive"] == [203]'
run "$PLUMB" report --view bottom-up --threshold 0 --format csv deep.folded
same "deep bottom-up: every row" "$(printf '%s\n' "$out" | tail -n +2 | wc -l | tr -d ' ')" 5401

# Standard input and pipes: "-" and /dev/stdin read like a file (detection
# on a copy), and their errors say "standard input".
run sh -c "cat '$fig' | '$PLUMB' report --format csv -"
same "report - from a pipe" "$(printf '%s\n' "$out" | grep -c ',E,')" 1
run sh -c "cat '$fig' | '$PLUMB' report --format csv /dev/stdin"
same "report /dev/stdin from a pipe" "$rc:$(printf '%s\n' "$out" | grep -c ',E,')" "0:1"
run sh -c "'$PLUMB' convert - -o piped.plumb < '$fig'"
same "convert - from a redirected file" "$rc" 0
expect_err "garbage on standard input names it" 1 "standard input: unknown format" sh -c "printf 'a;b x\n' | '$PLUMB' report -"

# Callers and callees whose costs tie are listed by name, whatever order the
# input gave them in (a profile and its .plumb list them the same way).
printf 'main;b 5\nmain;a 5\nb;x 2\na;x 2\n' > tie1.folded
printf 'a;x 2\nmain;a 5\nmain;b 5\nb;x 2\n' > tie2.folded
for v in callees callers butterfly; do
	run "$PLUMB" report --view "$v" --format csv tie1.folded
	one=$out
	run "$PLUMB" report --view "$v" --format csv tie2.folded
	same "tied $v rows in name order, whatever the input order" "$out" "$one"
done
run "$PLUMB" report --view callees --focus main --format csv tie2.folded
same "tied callees: a before b" "$(printf '%s\n' "$out" | grep ',callee,' | cut -d, -f7 | tr '\n' ' ')" "a b "

# gcc's clones (work.part.0, main.cold) have a dot, which makes a symspec a
# file name; with no such file, the function of that name is meant.
printf 'main;work.part.0 5\nmain;work 2\nmain 1\n' > clone.folded
run "$PLUMB" report --callers work.part.0 --format csv clone.folded
same "a clone's name as a symspec selects the clone" "$rc:$(printf '%s\n' "$out" | grep -c ',work.part.0,')" "0:1"
expect_err "a clone's name misspelt is suggested" 1 "did you mean the function 'work.part.0'" \
	"$PLUMB" report --callers work.part.1 clone.folded
