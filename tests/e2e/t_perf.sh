# Real folded stacks from perf (perf script report stackcollapse): plumb's
# exclusive samples per function equal perf report's own counts.
if ! command -v perf >/dev/null 2>&1 || ! command -v gcc >/dev/null 2>&1; then
	skip "perf comparison" "perf or gcc not installed"
	return 0 2>/dev/null || exit 0
fi
gcc -O0 -g -fno-omit-frame-pointer "$E2E_DIR/../programs/burn.c" -o burn
if ! perf record -q -e cpu-clock -F 2000 -g -o perf.data ./burn 150 > /dev/null 2> perf.err; then
	skip "perf comparison" "perf record cannot sample here: $(head -1 perf.err)"
	return 0 2>/dev/null || exit 0
fi
perf script -i perf.data report stackcollapse > stacks.folded 2> /dev/null
[ -s stacks.folded ] && ok "perf wrote folded stacks" || fail "perf wrote folded stacks" "$(cat perf.err)"
perf report -i perf.data --stdio --no-children -F sample,sym -q -g none 2>/dev/null |
	awk 'NF >= 3 { print $3, $1 }' | sort > perf.counts
run "$PLUMB" report --format csv stacks.folded
printf '%s\n' "$out" | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    if int(r["exclusive.samples"]) > 0:
        print(r["function"], r["exclusive.samples"])' | sort > plumb.counts
# perf shows unresolved addresses as raw hex; compare the named functions.
grep -v '^0x' perf.counts > perf.named
grep -v '^\[unknown\]' plumb.counts | grep -v '^0x' > plumb.named
same "exclusive samples per function equal perf report's" "$(cat plumb.named)" "$(cat perf.named)"
run "$PLUMB" report --format json stacks.folded
py "work is under one, two, three and recurse; recursion counted once" '
import json, sys
f = {x["name"]: x for x in json.load(sys.stdin)["functions"]}
w = f["work"]
callers = {c["name"]: c["attributed"][0] for c in w["callers"]}
assert set(callers) >= {"one", "two", "three", "recurse"}, callers
assert sum(callers.values()) == w["inclusive"][0], (callers, w["inclusive"])
r = f["recurse"]
assert r["inclusive"][0] <= f["main"]["inclusive"][0]
# recurse calls itself: only the innermost activation is attributed.
rc = {c["name"]: c["attributed"][0] for c in r["callers"]}
assert rc.get("main", 0) + rc.get("recurse", 0) == r["inclusive"][0], rc
# shares 1:2:3 within a few points
t = sum(callers[n] for n in ("one", "two", "three"))
share = callers["three"] / t
assert 0.40 < share < 0.60, share'
