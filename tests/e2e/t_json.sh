# One JSON schema whatever the view: every view of several kinds of profile
# (call stacks, a call graph with cycles, parts, derived events) validates
# against docs/report.schema.json, its rows are the CSV's rows, and its
# function summary is the same in every view.
schema="$E2E_DIR/../../docs/report.schema.json"
views="flat callers callees butterfly tree bottom-up lines files modules parts flame"
python3 -c 'import jsonschema' 2>/dev/null || { fail "t_json" "python3-jsonschema is not installed (scripts/deps.sh installs it)"; return 0; }

check_views() { # LABEL FILE [OPTIONS...]
	label=$1 file=$2
	shift 2
	for v in $views; do
		extra=""
		case $v in callers|callees|butterfly) extra="--select main" ;; esac
		"$PLUMB" report --view $v $extra --threshold 0 --format json "$@" "$file" > $v.json 2> $v.err
		rc=$?
		"$PLUMB" report --view $v $extra --threshold 0 --format csv "$@" "$file" > $v.csv 2>> $v.err
		if [ $rc -ne 0 ]; then
			fail "$label: --view $v --format json exits 0" "exit $rc" "$(cat $v.err)"
			continue
		fi
		if python3 - "$schema" $v.json $v.csv $v <<'PY' > $v.py 2>&1
import csv, json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
jsonschema.validate(d, schema)
want_view = "threads" if sys.argv[4] == "parts" else sys.argv[4]
assert d["view"] == want_view, ("view", d["view"], want_view)
# the rows are the CSV's rows, cell for cell
rows = list(csv.reader(open(sys.argv[3])))
keys = [c["key"] for c in d["columns"]]
head = rows[0]
lead = len(head) - len(keys)  # CSV's own "depth" and "kind" come first
assert 0 <= lead <= 2 and set(head[:lead]) <= {"depth", "kind"} and head[lead:] == keys, ("columns", head, keys)
assert len(rows) - 1 == len(d["rows"]), ("rows", len(rows) - 1, len(d["rows"]))
for r, jr in zip(rows[1:], d["rows"]):
    cells = dict(zip(head[lead:], r[lead:]))
    for k in keys:
        v = jr["cells"][k]
        if v is None:
            assert cells[k] == "", (k, cells[k], v)
        elif isinstance(v, int):
            assert int(cells[k]) == v, (k, cells[k], v)
        elif isinstance(v, float):
            assert abs(float(cells[k]) - v) < 1e-3, (k, cells[k], v)
        else:
            assert cells[k] == v, (k, cells[k], v)
# every cost vector has one value per event
n = len(d["events"])
assert len(d["totals"]) == n
for f in d["functions"]:
    assert len(f["exclusive"]) == n and len(f["inclusive"]) == n
    for a in f["callers"] + f["callees"]:
        assert len(a["attributed"]) == n
PY
		then
			ok "$label: --view $v follows the schema and the CSV"
		else
			fail "$label: --view $v follows the schema and the CSV" "$(tail -5 $v.py)"
		fi
	done
	# The function summary does not depend on the view (call views order it
	# by inclusive cost, the others by exclusive: compare as sets; the call
	# views above select main, so they are left out).
	if python3 - tree bottom-up lines files modules parts <<'PY' > same.py 2>&1
import json, sys
def summary(v):
    d = json.load(open(v + ".json"))
    return d["totals"], sorted(json.dumps(f, sort_keys=True) for f in d["functions"]), d["cycles"]
first = summary("flat")
for v in sys.argv[1:]:
    assert summary(v) == first, v
PY
	then
		ok "$label: every view carries the same function summary"
	else
		fail "$label: every view carries the same function summary" "$(tail -5 same.py)"
	fi
}

check_views "folded stacks" "$DATA/fig21.folded"
check_views "call graph with cycles" "$DATA/cycles/mutual.callgrind"
check_views "derived events, one metric" "$DATA/cycles/derived.callgrind" --metric Ir
check_views "threads as parts" "$DATA/callgrind/threads.cg"
check_views "--focus" "$DATA/fig21.folded" --focus C

# The writers come from one table: an unknown --format lists them.
expect_err "unknown --format lists the writers" 2 "unknown format 'yaml' (text, json, csv, svg, html)" \
	"$PLUMB" report --format yaml "$DATA/fig21.folded"
