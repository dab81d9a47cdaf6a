# plumb report --format html: one self-contained page, checked in headless
# Chromium when it is installed (the numbers it shows are plumb report's).

# Many functions: more rows than the page draws at once.
python3 -c '
for i in range(1500):
    print("main;work;f%04d %d" % (i, 1 + i % 7))
print("main;work;g;h 5000")
print("main;other 700")' > many.folded

expect_status "html: written with -o" 0 "$PLUMB" report --format html -o r.html many.folded
py "html: self-contained (no external script, style, image or link)" '
import re
s = open("r.html", encoding="utf-8").read()
assert s.startswith("<!DOCTYPE html>") and s.rstrip().endswith("</html>")
assert not re.search(r"<(script|img|link|iframe)[^>]*\b(src|href)=", s), "external reference"
assert not re.search(r"url\(", s), "url() in a style"
assert "<svg" in s and "id=\"pl-data\"" in s'
run "$PLUMB" report --format html many.folded
py "html: to standard output without -o, the same page" '
import sys
assert sys.stdin.read().rstrip() == open("r.html", encoding="utf-8").read().rstrip()'
expect_status "html: a call graph (Callgrind) too" 0 "$PLUMB" report --format html -o cg.html "$DATA/callgrind/threads.cg"
run grep -c "<td>" cg.html
py "html: the parts of a call graph are listed" '
import sys
assert int(sys.stdin.read()) >= 2'

if ! command -v chromium >/dev/null 2>&1; then
	skip "html in a browser" "chromium not installed"
	return 0 2>/dev/null || exit 0
fi
# dom FILE URL: the page's DOM after its script ran; console messages in FILE.err.
dom() {
	timeout 120 chromium --headless --disable-gpu --no-sandbox --enable-logging=stderr --v=0 \
		--dump-dom "$2" > "$1" 2> "$1.err"
}
"$PLUMB" report --format csv many.folded > many.csv
"$PLUMB" report --format json many.folded > many.json
dom flat.dom "file://$PWD/r.html"
if ! grep -q '<tbody><tr' flat.dom; then
	skip "html in a browser" "chromium did not render here: $(tail -1 flat.dom.err)"
	return 0 2>/dev/null || exit 0
fi
run cat flat.dom
py "html in Chromium: the drawn rows are plumb report's first rows, the rest counted" '
import csv, re, sys, html
dom = sys.stdin.read()
body = dom.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
rows = [[html.unescape(re.sub("<[^>]*>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
        for r in re.findall(r"<tr[^>]*>(.*?)</tr>", body)]
want = list(csv.DictReader(open("many.csv")))
assert len(want) == 1505 and len(rows) == 1000, (len(want), len(rows))
for got, w in zip(rows, want):
    pct, cum, excl, incl, calls, fn = got[:6]
    assert fn == w["function"], (got, w)
    assert int(excl.replace(",", "")) == int(w["exclusive.samples"]), (got, w)
    assert int(incl.replace(",", "")) == int(w["inclusive.samples"]), (got, w)
    assert abs(float(pct) - float(w["percent.samples"])) <= 0.05 + 1e-9, (got, w)
assert "The first 1000 of 1505 rows are drawn" in dom, "no word of the rows left out"'
py "html in Chromium: the flame graph is inline, a box per function on the page" '
import sys
dom = sys.stdin.read()
assert dom.count("<g class=\"f\"") >= 5 and "main (" in dom and "work (" in dom'
run grep -i "uncaught\|CONSOLE.*error" flat.dom.err
same "html in Chromium: no script errors" "$out" ""

dom fn.dom "file://$PWD/r.html#fn=work"
run cat fn.dom
py "html in Chromium: the callers and callees of a function, as plumb report --format json" '
import json, re, sys, html
dom = sys.stdin.read()
info = dom.split("<div id=\"pl-callinfo\">", 1)[1].split("</section>", 1)[0]
d = json.load(open("many.json"))
f = next(f for f in d["functions"] if f["name"] == "work")
text = html.unescape(re.sub("<[^>]*>", " ", info))
assert "Callers (1)" in text and "Callees (%d)" % len(f["callees"]) in text, text[:300]
def num(v): return format(v, ",")
for a in f["callers"] + f["callees"][:20]:
    assert re.search(r"\b%s\s+%s \(" % (re.escape(a["name"]), re.escape(num(a["attributed"][0]))), text), a
assert "%s (" % num(f["inclusive"][0]) in text
assert re.search(r"The heaviest \d+ of %d are shown" % len(f["callees"]), text), "no word of the callees left out"'

timeout 120 chromium --headless --disable-gpu --no-sandbox --window-size=1300,1500 \
	--screenshot="$PWD/shot.png" "file://$PWD/r.html" > /dev/null 2>&1
run python3 -c 'import sys; d = open("shot.png", "rb").read(); print(len(d), d[:4] == b"\x89PNG")'
py "html in Chromium: a screenshot is taken" '
import sys
n, png = sys.stdin.read().split()
assert png == "True" and int(n) > 20000, (n, png)'
