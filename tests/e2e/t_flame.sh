# report --view flame: boxes with the tree view's inclusive costs, drawn as
# an SVG flame graph (titles, exact widths, labels that fit, no script needed).

# flame_check NAME SVG TREE_CSV: every drawn box's title holds the inclusive
# cost of a tree-view node at its depth (where the tree has none, as for a
# call graph's cycle members, the sum of its children's), its width is that cost's share of
# 1200 px, it lies inside its parent, and its label fits its width.
flame_check() {
	if python3 - "$2" "$3" > .pyout 2>&1 <<'PY'
import csv, re, sys, collections
import xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
rows = list(csv.DictReader(open(sys.argv[2])))
ev = [k for k in rows[0] if k.startswith("inclusive.")][0]
depth = [int(r["depth"] or 0) for r in rows]
def width(i):
    if rows[i][ev]:
        return int(rows[i][ev])
    s, j = 0, i + 1
    while j < len(rows) and depth[j] > depth[i]:
        if depth[j] == depth[i] + 1:
            s += width(j)
        j += 1
    return s
tree = collections.Counter((depth[i], rows[i]["function"], width(i)) for i in range(len(rows)))
total = sum(width(i) for i in range(len(rows)) if depth[i] == 0)
boxes = []
for g in root.iter("{http://www.w3.org/2000/svg}g"):
    if g.get("class") != "f":
        continue
    title = g.find("s:title", ns).text
    m = re.fullmatch(r"(.+) \(([0-9,]+) (\S+), ([0-9.]+)%\)", title)
    assert m, "title %r is not 'name (N event, P%%)'" % title
    n = int(m.group(2).replace(",", ""))
    d = int(g.get("data-d"))
    assert tree[(d, m.group(1), n)] > 0, "box %r at depth %d is no tree node" % (title, d)
    tree[(d, m.group(1), n)] -= 1
    r = g.find("s:rect", ns)
    x, w = float(r.get("x")), float(r.get("width"))
    assert abs(w - 1200.0 * n / total) < 1e-5, "%s: width %f, expected %f" % (title, w, 1200.0 * n / total)
    label = g.find("s:text", ns).text or ""
    assert len(label) * 0.59 * 12 <= w, "label %r overflows %f px" % (label, w)
    assert label == m.group(1) or label == "" or label.endswith("\u2026"), label
    boxes.append((d, x, w))
# a box lies inside the last box one level below it (depth-first order)
last = {}
for d, x, w in boxes:
    if d > 0 and d - 1 in last:
        px, pw = last[d - 1]
        assert px - 1e-5 <= x and x + w <= px + pw + 1e-5, "box at %f+%f outside its parent %f+%f" % (x, w, px, pw)
    last[d] = (x, w)
assert boxes, "no boxes"
print(len(boxes))
PY
	then ok "$1 ($(cat .pyout) boxes)"; else fail "$1" "$(cat .pyout)"; fi
}

demo="$E2E_DIR/../../examples/demo.folded"
expect_status "flame svg of folded stacks" 0 "$PLUMB" report --view flame --format svg -o demo.svg "$demo"
"$PLUMB" report --view tree --threshold 0 --format csv "$demo" > demo-tree.csv
flame_check "folded: boxes are the tree view's nodes, widths exact" demo.svg demo-tree.csv

# the flame view's rows are the tree's rows (csv): same depths, names, costs
run "$PLUMB" report --view flame --format csv "$demo"
py "flame csv rows = tree rows" '
import csv, sys
f = list(csv.DictReader(sys.stdin))
t = list(csv.DictReader(open("demo-tree.csv")))
key = lambda r: (r["depth"], r["function"], r["inclusive.samples"])
assert [key(r) for r in f] == [key(r) for r in t], "rows differ"
'

# a call graph is unfolded as the tree view does
cg="$DATA/cycles/mutual.callgrind"
expect_status "flame svg of a call graph" 0 "$PLUMB" report --view flame --format svg -o cg.svg "$cg"
"$PLUMB" report --view tree --threshold 0 --metric Ir --format csv "$cg" > cg-tree.csv
flame_check "call graph: boxes are the tree view's nodes" cg.svg cg-tree.csv

# --invert: the roots are the leaf functions with their exclusive costs
expect_status "flame --invert" 0 "$PLUMB" report --view flame --invert --format svg -o inv.svg "$demo"
"$PLUMB" report --view bottom-up --threshold 0 --format csv "$demo" | sed 's/^\([^,]*\),\([^,]*\),\([^,]*\),exclusive/\1,\2,\3,inclusive/' > inv-tree.csv
flame_check "inverted: boxes are the bottom-up tree's nodes" inv.svg inv-tree.csv
"$PLUMB" report --format csv --threshold 0 "$demo" > flat.csv
run "$PLUMB" report --view flame --invert --format csv "$demo"
py "inverted roots = flat exclusive" '
import csv, sys
roots = {r["function"]: int(r["inclusive.samples"]) for r in csv.DictReader(sys.stdin) if r["depth"] == "0"}
flat = {r["function"]: int(r["exclusive.samples"]) for r in csv.DictReader(open("flat.csv")) if int(r["exclusive.samples"])}
assert roots == flat, (roots, flat)
'

if grep -q '<script' demo.svg && grep -q 'Reset zoom' demo.svg; then
	ok "the SVG has the zoom and search script"
else
	fail "the SVG has the zoom and search script"
fi
if command -v rsvg-convert > /dev/null; then
	if rsvg-convert demo.svg -o demo.png 2> rsvg.err && [ -s demo.png ]; then
		ok "rsvg-convert renders the flame graph"
	else
		fail "rsvg-convert renders the flame graph" "$(cat rsvg.err)"
	fi
else
	skip "rsvg-convert renders the flame graph" "librsvg2-bin is not installed (scripts/deps.sh installs it)"
fi

expect_err "svg of a view without pictures" 2 "--view flame" "$PLUMB" report --format svg "$demo"

# In a browser, clicking a box zooms: it becomes the full width, boxes
# outside it are hidden and "Reset zoom" shows (headless Chromium).
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
	skip "click-to-zoom in headless Chromium" "chromium is not installed"
else
	sed 's|</svg>|<script>var g = [].slice.call(document.querySelectorAll("g.f")).filter(function (g) { return g.getAttribute("data-d") == "3"; })[0]; g.dispatchEvent(new MouseEvent("click"));</script></svg>|' demo.svg > click.svg
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --virtual-time-budget=2000 \
		--dump-dom "file://$PWD/click.svg" > click.dom 2> chromium.err
	if python3 - click.dom > .pyout 2>&1 <<'PY'
import re, sys
dom = open(sys.argv[1]).read()
boxes = re.findall(r'<g class="f" data-d="(\d+)"( style="[^"]*")?><title>([^<]*)</title><rect x="([^"]*)" y="[^"]*" width="([^"]*)"', dom)
assert boxes, dom[:300]
first3 = [b for b in boxes if b[0] == "3"][0]
assert float(first3[4]) == 1200 and float(first3[3]) == 10, first3
hidden = [b for b in boxes if "none" in b[1]]
assert hidden, "nothing hidden"
assert re.search(r'<text id="unzoom"[^>]*style=""', dom), "Reset zoom not shown"
PY
	then ok "click-to-zoom in headless Chromium"; else fail "click-to-zoom in headless Chromium" "$(cat .pyout)" "$(tail -3 chromium.err)"; fi
	# A C++ name too long for its box, zoomed: its label is the name
	# without template arguments and parameters, as the static labels are.
	cxx='void std::__introsort_loop<__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, long, __gnu_cxx::__ops::_Iter_less_iter>(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, __gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, long, __gnu_cxx::__ops::_Iter_less_iter)'
	printf 'main;%s 10\nmain;other 990\n' "$cxx" > cxx.folded
	"$PLUMB" report --view flame --format svg -o cxx.svg cxx.folded
	sed 's|</svg>|<script>var g = [].slice.call(document.querySelectorAll("g.f")).filter(function (g) { return g.hasAttribute("data-s"); })[0]; g.dispatchEvent(new MouseEvent("click"));</script></svg>|' cxx.svg > cxxclick.svg
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --virtual-time-budget=2000 \
		--dump-dom "file://$PWD/cxxclick.svg" > cxxclick.dom 2> chromium.err
	if grep -q 'data-s="void std::__introsort_loop&lt;...&gt;(...)"' cxx.svg &&
	   grep -q '>void std::__introsort_loop&lt;...&gt;(...)</text>' cxxclick.dom; then
		ok "a zoomed C++ box is labelled without its template arguments"
	else
		fail "a zoomed C++ box is labelled without its template arguments" "$(grep -o '<text[^>]*>void[^<]*</text>' cxxclick.dom | head -3)" "$(tail -3 chromium.err)"
	fi
fi

# offsets: siblings side by side, heaviest first, a first child where its
# parent starts
printf 'main;a 10\nmain;b 5\nmain;b;x 3\nmain 1\n' > small.folded
run "$PLUMB" report --view flame --format csv small.folded
same "flame rows: exact offsets and widths" "$out" \
"depth,kind,x.samples,inclusive.samples,percent.samples,function,file,module
0,normal,0,19,100.0000,main,,
1,normal,0,10,52.6316,a,,
1,normal,10,8,42.1053,b,,
2,normal,10,3,15.7895,x,,"

# A picture is built without the boxes it would not draw (under 0.1 pixel):
# the same boxes as the whole flame view drawn, far less memory on big
# profiles. A stack of weight 1 in 10^6 is such a box.
{
	echo "main;work;big 1000000"
	i=0
	while [ $i -lt 40 ]; do echo "main;work;tiny_$i;leaf 1"; i=$((i + 1)); done
} > tiny.folded
"$PLUMB" report --view flame --format svg -o tiny-default.svg tiny.folded
"$PLUMB" report --view flame --format svg --threshold 0 -o tiny-all.svg tiny.folded
if python3 - tiny-default.svg tiny-all.svg > .pyout 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
def boxes(path):
    root = ET.parse(path).getroot()
    out = []
    for g in root.iter("{http://www.w3.org/2000/svg}g"):
        if g.get("class") == "f":
            t = g.find("{http://www.w3.org/2000/svg}title")
            r = g.find("{http://www.w3.org/2000/svg}rect")
            out.append((t.text, r.get("width")))
    return sorted(out)
a, b = boxes(sys.argv[1]), boxes(sys.argv[2])
assert a == b, ("default", a, "threshold 0", b)
assert any(t.startswith("big ") for t, _ in a) and not any("tiny" in t for t, _ in a), a
print(len(a))
PY
then ok "flame SVG: built without sub-pixel boxes, the same boxes drawn as with --threshold 0 ($(cat .pyout))"
else fail "flame SVG: built without sub-pixel boxes, the same boxes drawn as with --threshold 0" "$(tail -3 .pyout)"; fi
