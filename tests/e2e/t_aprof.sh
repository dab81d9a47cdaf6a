# aprof reports through the plumb binary: report and info on every version,
# convert round trips (.aprof by name, --to aprof to standard output), two
# runs merged by aprof's rules, compressed input, bad input with FILE:LINE.
ad="$DATA/aprof"

for f in v0_old_2011 v1 v2_sample v3 v4 v5 v5_rvms_ratio v6_rvms_0.1.2 sha_4242_0_4 app_100_1_4 cct_77_0_4 dev_extras; do
	run "$PLUMB" report "$ad/$f.aprof"
	if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q '(aprof)'; then ok "report $f"; else fail "report $f" "exit $rc" "$err"; fi
done

run "$PLUMB" report --view flat --format csv "$ad/sha_4242_0_4.aprof"
py "flat view: each routine's self cost is the sum of its points' self sums" '
import csv, sys
rows = {r["function"]: r for r in csv.DictReader(sys.stdin)}
ids, want = {}, {}
for l in open("'"$ad"'/sha_4242_0_4.aprof"):
    if l.startswith("r "):
        ids[l.split()[-1]] = l.split("\"")[1]
    elif l.startswith("p "):
        t = l.split()
        want[ids[t[1]]] = want.get(ids[t[1]], 0) + int(t[9])
assert len(want) == 6, want
for n, v in want.items():
    col = next(c for c in rows[n] if c.startswith("exclusive"))
    assert int(rows[n][col]) == v, (n, rows[n], v)
'

run "$PLUMB" info "$ad/cct_77_0_4.aprof"
expect_out "info names the format" "Format:    aprof"
expect_out "info counts the contexts" "Contexts:  7"

# info: how many performance points and what they were measured with, as
# the report's own lines say (i, t, k, v; one point per p or q line here)
for f in "$ad/sha_4242_0_4.aprof" "$ad/cct_77_0_4.aprof"; do
	b=$(basename "$f")
	hdr() { awk -v t="$1" '$1 == t { print $2; exit }' "$f"; }
	npts=$(grep -c '^[pq] ' "$f")
	run "$PLUMB" info "$f"
	expect_out "info counts the points of $b" "Points:    $npts"
	expect_out "info names the input metric of $b" "  input metric       $(hdr i)"
	expect_out "info gives the memory resolution of $b" "  memory resolution  $(hdr t) bytes"
	expect_out "info gives k of $b" "  total cost (k)     $(python3 -c "print(f'{$(hdr k):,}')")"
	expect_out "info gives the report version of $b" "  report version     $(hdr v)"
	run "$PLUMB" info --format json "$f"
	py "info json describes the points of $b" "import json,sys; d=json.load(sys.stdin)['points']; \
assert d == {'count': $npts, 'input_metric': '$(hdr i)', 'memory_resolution': $(hdr t), \
'total_cost': $(hdr k), 'version': $(hdr v)}, d"
done
expect_status "a .plumb store of aprof points" 0 "$PLUMB" convert "$ad/sha_4242_0_4.aprof" -o sha.plumb
run "$PLUMB" info --format json sha.plumb
py "info on the store describes the same points" "import json,sys; d=json.load(sys.stdin)['points']; \
assert d['count'] == 9 and d['input_metric'] == 'rms' and d['version'] == 6, d"
run "$PLUMB" info "$ad/v0_old_2011.aprof"
expect_out "info: a version 0 report says no input metric" "  input metric       -"
run "$PLUMB" info --format json "$DATA/fig21.folded"
py "info json: no points in a profile of samples" "import json,sys; assert json.load(sys.stdin)['points'] is None"
run "$PLUMB" info "$DATA/fig21.folded"
if printf '%s' "$out" | grep -q '^Points:'; then fail "info text: no points line without points" "$out"; else ok "info text: no points line without points"; fi

# convert: by name, and to standard output; writing what was read again
# gives the same text
expect_status "convert to .aprof" 0 "$PLUMB" convert "$ad/sha_4242_0_4.aprof" -o one.aprof
expect_status "convert it again" 0 "$PLUMB" convert one.aprof -o two.aprof
same "second conversion identical" "$(cat two.aprof)" "$(cat one.aprof)"
expect_out_file() { if grep -qF -- "$2" "$3"; then ok "$1"; else fail "$1" "$3 lacks: $2"; fi; }
expect_out_file "version 6 written" "v 6" one.aprof
expect_out_file "C++ name with spaces and commas" 'r "std::pair<int, int> make(int, int)" "/lib/libfoo.so"' one.aprof
expect_out_file "square past 2^64 kept" " 36893488147419103232" one.aprof
run "$PLUMB" convert "$ad/cct_77_0_4.aprof" --to aprof -o -
same "--to aprof -o - exits 0" "$rc" 0
printf '%s\n' "$out" > cct.aprof
py "contexts written as q lines and pre-order x lines" '
import sys
lines = sys.stdin.read().splitlines()
assert not any(l.startswith("p ") for l in lines)
q = [l for l in lines if l.startswith("q ")]
x = [l.split() for l in lines if l.startswith("x ")]
assert len(q) == 7 and len(x) == 7, (len(q), len(x))
assert [int(t[2]) for t in x] == list(range(1, 8)), x
seen = set()
for t in x:
    assert t[3] == "-1" or int(t[3]) in seen, t
    seen.add(int(t[2]))
assert lines.index(next(l for l in lines if l.startswith("x "))) > lines.index(q[-1])
'
run "$PLUMB" report --view tree --format csv cct.aprof; tree2=$out
run "$PLUMB" report --view tree --format csv "$ad/cct_77_0_4.aprof"
same "tree view the same after the round trip" "$tree2" "$out"

# two runs merged: aprof's rules, computed here from the inputs
expect_status "merge two runs" 0 "$PLUMB" convert "$ad/merge/run_1001_0_4.aprof" "$ad/merge/run_1002_0_4.aprof" -o m.aprof
run cat m.aprof
py "merged as aprof merges" '
import sys
def points(lines):
    ids, pts, k = {}, {}, 0
    for l in lines:
        t = l.split()
        if l.startswith("k "): k += int(t[1])
        if l.startswith("r "): ids[t[-1]] = l.split("\"")[1]; pts.setdefault(ids[t[-1]], {})
        if l.startswith("p "):
            v = [int(x) for x in t[1:]]
            pts.setdefault(ids[t[1]], {})[v[1]] = v[2:]
    return pts, k
def merge(a, b):
    # min max sum sqr calls real self smin smax ssqr
    return [min(a[0], b[0]), max(a[1], b[1]), a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5],
            a[6] + b[6], min(a[7], b[7]), max(a[8], b[8]), a[9] + b[9]]
want, k = {}, 0
for f in ("'"$ad"'/merge/run_1001_0_4.aprof", "'"$ad"'/merge/run_1002_0_4.aprof"):
    pts, kk = points(open(f))
    k += kk
    for n, byin in pts.items():
        w = want.setdefault(n, {})
        for i, v in byin.items():
            w[i] = merge(w[i], v) if i in w else v
got, gk = points(sys.stdin.read().splitlines())
assert gk == k, (gk, k)
assert got == want, (got, want)
'

# compressed input
gzip -c "$ad/v4.aprof" > v4.aprof.gz
run "$PLUMB" report --format csv v4.aprof.gz; gz=$out
run "$PLUMB" report --format csv "$ad/v4.aprof"
same "gzip-compressed report reads the same" "$gz" "$out"

# bad input: exit 1, the file and line, nothing on standard output
expect_err "undeclared routine" 1 "undeclared_routine.aprof:7: routine 2 was not declared" "$PLUMB" report "$ad/bad/undeclared_routine.aprof"
same "nothing printed for bad input" "$out" ""
expect_err "undeclared context" 1 "undeclared_context.aprof:7: context 9 was not defined" "$PLUMB" report "$ad/bad/undeclared_context.aprof"
expect_err "too few fields" 1 "too_few_fields.aprof:7: expected 12, 14 or 18 fields" "$PLUMB" convert "$ad/bad/too_few_fields.aprof" -o x.aprof
[ ! -e x.aprof ] && ok "no output for bad input" || fail "no output for bad input" "x.aprof written"
expect_err "bad number" 1 "bad_number.aprof:6: expected a sum of costs" "$PLUMB" info "$ad/bad/bad_number.aprof"
expect_err "nothing to write" 1 "there is nothing an aprof report can hold" "$PLUMB" convert "$DATA/fig21.folded" -o f.aprof

# Through the .plumb store: every report written back as aprof is the same
# bytes as written straight from the report (store schema 4 keeps points).
for f in "$DATA"/aprof/*.aprof; do
	b=$(basename "$f" .aprof)
	"$PLUMB" convert "$f" -o "direct-$b.aprof" 2>/dev/null
	"$PLUMB" convert "$f" -o "$b.plumb" 2>/dev/null
	run "$PLUMB" convert "$b.plumb" -o "stored-$b.aprof"
	if [ "$rc" -eq 0 ] && cmp -s "direct-$b.aprof" "stored-$b.aprof"; then
		ok "$b: aprof -> .plumb -> aprof loses nothing"
	else
		fail "$b: aprof -> .plumb -> aprof loses nothing" "exit $rc: $err" "$(diff "direct-$b.aprof" "stored-$b.aprof" | head -5)"
	fi
done
