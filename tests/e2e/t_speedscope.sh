# convert -o X.speedscope.json: speedscope's file format, valid against its
# schema, with plumb's totals and per-function self costs; loaded in
# speedscope itself in headless Chromium when both are installed.

schema="$DATA/speedscope/file-format-schema.json"
demo="$E2E_DIR/../../examples/demo.folded"
simple="$DATA/folded/simple.folded"

# ss_check NAME FILE FLAT_CSV NPROFILES: valid against the schema; the
# weights sum to the flat view's total and, per leaf frame, to its
# exclusive costs; every stack indexes a frame; NPROFILES profiles.
ss_check() {
	if python3 - "$schema" "$2" "$3" "$4" > .pyout 2>&1 <<'PY'
import csv, json, sys, collections
schema, doc = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
try:
    import jsonschema
    jsonschema.validate(doc, schema)
    how = "schema-valid"
except ImportError:
    how = "schema not checked: no python3-jsonschema"
frames = doc["shared"]["frames"]
assert len(doc["profiles"]) == int(sys.argv[4]), len(doc["profiles"])
self = collections.Counter()
for p in doc["profiles"]:
    assert p["type"] == "sampled" and len(p["samples"]) == len(p["weights"])
    assert p["endValue"] - p["startValue"] == sum(p["weights"])
    for s, w in zip(p["samples"], p["weights"]):
        assert s and all(0 <= i < len(frames) for i in s), s
        self[frames[s[-1]]["name"]] += w
flat = {r["function"]: int(r["exclusive.samples"]) for r in csv.DictReader(open(sys.argv[3]))
        if int(r["exclusive.samples"])}
assert dict(self) == flat, (dict(self), flat)
print(how)
PY
	then ok "$1 ($(cat .pyout))"; else fail "$1" "$(cat .pyout)"; fi
}

expect_status "convert folded stacks to speedscope" 0 "$PLUMB" convert "$demo" -o demo.speedscope.json
"$PLUMB" report --format csv --threshold 0 "$demo" > demo-flat.csv
ss_check "folded: total and per-function self weights = the flat view" demo.speedscope.json demo-flat.csv 1

# two files are two parts: one profile each, the sums still the flat view's
expect_status "two inputs to speedscope" 0 "$PLUMB" convert "$demo" "$simple" -o two.speedscope.json
"$PLUMB" report --format csv --threshold 0 "$demo" "$simple" > two-flat.csv
ss_check "two parts: two profiles, sums = the flat view" two.speedscope.json two-flat.csv 2

run "$PLUMB" convert --to speedscope -o - "$simple"
expect_out "--to speedscope -o - writes the JSON to standard output" '"$schema":"https://www.speedscope.app/file-format-schema.json"'

expect_err "a call graph has no stacks for speedscope" 1 "only a call graph" \
	"$PLUMB" convert "$DATA/cycles/mutual.callgrind" -o cg.speedscope.json
if [ -e cg.speedscope.json ]; then fail "no file is left behind on error"; else ok "no file is left behind on error"; fi

# speedscope itself (npm install -g speedscope) in headless Chromium
app=""
for d in "${SPEEDSCOPE_DIR:-}" "$(npm root -g 2> /dev/null)/speedscope" /usr/lib/node_modules/speedscope; do
	[ -n "$d" ] && [ -f "$d/dist/release/index.html" ] && app="$d/dist/release/index.html" && break
done
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$app" ] || [ -z "$browser" ]; then
	skip "speedscope loads the file in headless Chromium" "needs chromium and the speedscope npm package"
else
	printf 'speedscope.loadFileFromBase64("demo.speedscope.json", "%s")' "$(base64 -w0 demo.speedscope.json)" > profile.js
	url="file://$app#localProfilePath=$PWD/profile.js"
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
		--window-size=1200,700 --virtual-time-budget=5000 --dump-dom "$url" > dom.html 2> chromium.err
	# speedscope's toolbar shows the profile's name and the view switches
	# only once a profile is loaded; its error page says "went wrong"
	if grep -q "Left Heavy" dom.html && grep -q "plumb profile - speedscope" dom.html &&
	   ! grep -qi "went wrong" dom.html; then
		ok "speedscope loads the file in headless Chromium"
	else
		fail "speedscope loads the file in headless Chromium" "$(head -c 400 dom.html)" "$(tail -3 chromium.err)"
	fi
	if [ -n "${SHOT_DIR:-}" ]; then
		timeout 120 "$browser" --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
			--window-size=1200,700 --virtual-time-budget=5000 --screenshot="$SHOT_DIR/speedscope.png" "$url" 2> /dev/null
	fi
fi
