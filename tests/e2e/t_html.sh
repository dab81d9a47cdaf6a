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

# Source lines: the lines view's rows embedded, with the text of the lines
# around them when the file is readable now (a.c, relative to here).
cp "$DATA/annotate/plain.cg" "$DATA/annotate/a.c" .
expect_status "html: a profile with lines" 0 "$PLUMB" report --format html -o lines.html plain.cg
run cat lines.html
py "html: the source text of the costed lines is embedded, the lines view's rows beside it" '
import json, re, sys
s = sys.stdin.read()
d = json.loads(re.search(r"id=\"pl-lines-data\">(.*?)</script>", s, re.S).group(1))
assert d["sources"]["a.c"]["11"] == "a.c line 11", d["sources"]
assert d["unread"] == {} and d["total"] == len(d["rows"]) == 12, (d["unread"], d["total"])'
mkdir -p elsewhere
(cd elsewhere && "$PLUMB" report --format html -o ../nosrc.html ../plain.cg)
run cat nosrc.html
py "html: a source file not readable at report time: no text, the reason kept for the page" '
import json, re, sys
d = json.loads(re.search(r"id=\"pl-lines-data\">(.*?)</script>", sys.stdin.read(), re.S).group(1))
assert d["sources"] == {} and "No such file" in d["unread"]["a.c"], d["unread"]
assert len(d["rows"]) == 12'
python3 -c '
print("events: Ir\nfl=big.c\nfn=f\n5 100")
' > big.cg
python3 -c 'open("big.c", "w").write("x" * 100 + "\n" + ("/* filler */\n" * 90000))'
"$PLUMB" report --format html -o big.html big.cg
run cat big.html
py "html: a source file past 1 MiB is not embedded, and the page says why" '
import json, re, sys
d = json.loads(re.search(r"id=\"pl-lines-data\">(.*?)</script>", sys.stdin.read(), re.S).group(1))
assert d["sources"] == {} and d["unread"]["big.c"] == "larger than 1 MiB", d["unread"]'

# Cost plots: an input-sensitive profile's routines, one chart set each.
expect_status "html: an input-sensitive profile" 0 "$PLUMB" report --format html -o growth.html "$DATA/aprof/growth_1_0_4.aprof"
"$PLUMB" report --view inputs --select matmul --format svg "$DATA/aprof/growth_1_0_4.aprof" > matmul.svg
run cat growth.html
py "html: a plot set per charted routine, drawn as plumb report --format svg draws it" '
import re, sys
s = sys.stdin.read()
sets = re.findall(r"<div class=\"pl-plot\" data-routine=\"([^\"]*)\"", s)
assert len(sets) >= 6 and "matmul" in sets, sets
block = s.split("<div class=\"pl-plot\" data-routine=\"matmul\"", 1)[1].split("</div>", 1)[0]
svg = block[block.index("<svg"):]
want = open("matmul.svg").read()
want = want[want.index("<svg"):]
assert svg.strip() == want.strip(), "the plots differ from the SVG writer'"'"'s"'

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

# The source lines of a function clicked, as plumb report --view lines.
"$PLUMB" report --view lines --format csv plain.cg > lines.csv
dom lines.dom "file://$PWD/lines.html#fn=work"
run cat lines.dom
py "html in Chromium: a function's source lines with their costs, as plumb report --view lines, and the text" '
import csv, html, re, sys
dom = sys.stdin.read()
info = dom.split("<div id=\"pl-lineinfo\">", 1)[1].split("</section>", 1)[0]
rows = [[html.unescape(re.sub("<[^>]*>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
        for r in re.findall(r"<tr[^>]*>(.*?)</tr>", info)]
want = [w for w in csv.DictReader(open("lines.csv")) if w["function"] == "work"]
assert len(want) == 4, want
got = {r[0]: r for r in rows if len(r) == 8 and r[1]}
for w in want:
    r = got[w["line"]]
    # Line, % Ir, Excl. Ir, Incl. Ir, % Dr, Excl. Dr, Incl. Dr, Source
    assert [x.replace(",", "") for x in (r[2], r[3], r[5], r[6])] == [w["exclusive.Ir"], w["inclusive.Ir"], w["exclusive.Dr"], w["inclusive.Dr"]], (r, w)
    assert abs(float(r[1]) - float(w["percent.Ir"])) <= 0.05 + 1e-9, (r, w)
    assert r[7] == "a.c line " + w["line"], r
assert any(len(r) == 8 and r[0] == "9" and r[7] == "a.c line 9" and not r[1] for r in rows), "no context line without costs"'
run grep -i "uncaught\|CONSOLE.*error" lines.dom.err
same "html in Chromium: no script errors on the source lines" "$out" ""
dom nosrc.dom "file://$PWD/nosrc.html#fn=work"
run cat nosrc.dom
py "html in Chromium: without the source, line numbers and costs only, and why" '
import sys
dom = sys.stdin.read()
info = dom.split("<div id=\"pl-lineinfo\">", 1)[1].split("</section>", 1)[0]
assert "line numbers and costs only" in info and "No such file" in info, info[:500]
assert ">1,000<" in info and ">Source<" not in info, info[:500]'

# The cost plots of the routine clicked; the inputs table as plumb report's.
"$PLUMB" report --view inputs --format csv "$DATA/aprof/growth_1_0_4.aprof" > inputs.csv
dom growth.dom "file://$PWD/growth.html#fn=pairwise"
run cat growth.dom
py "html in Chromium: the inputs view as plumb report --view inputs, the plots of the routine clicked shown" '
import csv, html, re, sys
dom = sys.stdin.read()
flat = dom.split("<section id=\"pl-flat\">", 1)[1].split("</section>", 1)[0]
body = flat.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
rows = [[html.unescape(re.sub("<[^>]*>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
        for r in re.findall(r"<tr[^>]*>(.*?)</tr>", body)]
want = list(csv.DictReader(open("inputs.csv")))
assert len(rows) == len(want) >= 6, (len(rows), len(want))
for g, w in zip(rows, want):
    assert g[0] == w["routine"] and g[2].replace(",", "") == w["calls"], (g, w)
    assert g[6].replace(",", "") == w["cost"] and g[8].replace(",", "") == w["self_cost"], (g, w)
    assert g[10] == w["growth"], (g, w)
shown = re.findall(r"<div class=\"pl-plot\" data-routine=\"([^\"]*)\"(?! hidden)[ >]", dom)
assert shown == ["pairwise"], shown'
run grep -i "uncaught\|CONSOLE.*error" growth.dom.err
same "html in Chromium: no script errors with cost plots" "$out" ""
for page in lines growth; do
	timeout 120 chromium --headless --disable-gpu --no-sandbox --window-size=1300,2400 \
		--screenshot="$PWD/$page.png" "file://$PWD/$page.html#fn=$( [ $page = lines ] && echo work || echo matmul)" > /dev/null 2>&1
done
run python3 -c 'print(*(len(open(f, "rb").read()) for f in ("lines.png", "growth.png")))'
py "html in Chromium: screenshots of the source lines and the cost plots" '
import sys
a, b = map(int, sys.stdin.read().split())
assert a > 20000 and b > 60000, (a, b)'
