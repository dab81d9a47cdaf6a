# The Callgrind writer, checked with callgrind_annotate (Valgrind's reader):
# its PROGRAM TOTALS and per-function costs must be the numbers plumb reports.
# KCachegrind is not installed here: cgcmp.py also reads the files by the
# rules its loader follows (../shared/research/callgrind.md, section 1) and
# checks that it would see the same.
export PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 # callgrind_annotate's order of ties

# cgcmp.py MODE ...: compares callgrind_annotate's tables, or KCachegrind's
# reading, with plumb's CSV or with another Callgrind file.
cat > cgcmp.py <<'EOF'
import csv, re, subprocess, sys
from collections import defaultdict

def annotate(path, inclusive=False):
    """callgrind_annotate's events, PROGRAM TOTALS and function table."""
    cmd = ["callgrind_annotate", "--threshold=100", "--auto=no", "--show-percs=no",
           "--inclusive=" + ("yes" if inclusive else "no"), path]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("callgrind_annotate failed: " + r.stderr)
    lines = r.stdout.split("\n")
    events = next(l for l in lines if l.startswith("Events shown:")).split()[2:]
    num = r"(?:[\d,]+|\.)"
    def values(text):
        m = re.match(r"^\s*((?:%s\s+){%d})(.*)$" % (num, len(events)), text)
        vals = [0 if v == "." else int(v.replace(",", "")) for v in m.group(1).split()]
        return vals, m.group(2)
    total = values(next(l for l in lines if l.endswith("PROGRAM TOTALS")))[0]
    start = next(i for i, l in enumerate(lines) if l.endswith("file:function")) + 2
    fns = {}
    for l in lines[start:]:
        if not l.strip():
            break
        vals, label = values(l)
        fns[label] = vals
    return events, total, fns, r.stderr

def plumb_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))

def label(row, objects):
    s = (row["file"] or "???") + ":" + row["function"]
    return s + " [" + (row["module"] or "???") + "]" if objects else s

def uses_objects(cg):
    with open(cg) as f:
        return any(l.startswith("ob=") for l in f)

def eligible(tree_csv):
    """Functions whose inclusive cost callgrind_annotate can know: never on
    the stack twice, and either always or never the root of a stack."""
    bad, roots, inner, path = set(), set(), set(), []
    for r in plumb_rows(tree_csv):
        d, key = int(r["depth"]), (r["function"], r["file"], r["module"])
        del path[d:]
        if key in path:
            bad.add(key)
        (roots if d == 0 else inner).add(key)
        path.append(key)
    return lambda r: (r["function"], r["file"], r["module"]) not in bad | (roots & inner)

def compare(cg, plumb_csv, inclusive, tree_csv=None):
    events, total, fns, _ = annotate(cg, inclusive)
    rows, objects = plumb_rows(plumb_csv), uses_objects(cg)
    ok = eligible(tree_csv) if tree_csv else (lambda r: True)
    col = "inclusive." if inclusive else "exclusive."
    errors, checked = [], 0
    want_total = [sum(int(r["exclusive." + e]) for r in rows) for e in events]
    if total != want_total:
        errors.append("PROGRAM TOTALS %s, plumb %s" % (total, want_total))
    for r in rows:
        if not ok(r):
            continue
        want = [int(r[col + e]) for e in events]
        got = fns.pop(label(r, objects), [0] * len(events))
        checked += 1
        if got != want:
            errors.append("%s: callgrind_annotate %s, plumb %s" % (label(r, objects), got, want))
    if not inclusive:
        errors += ["%s only in callgrind_annotate: %s" % (k, v) for k, v in fns.items() if any(v)]
    if checked == 0:
        errors.append("no function was compared")
    return errors

HEADER = {"version", "creator", "pid", "cmd", "part", "thread", "desc", "positions",
          "event", "events", "summary", "totals"}
FILE_SPECS, OBJ_SPECS, FN_SPECS = {"fl", "fi", "fe", "cfi", "cfl", "jfi"}, {"ob", "cob"}, {"fn", "cfn", "jfn"}

def kcachegrind(path):
    """Read a Callgrind file by the rules KCachegrind's loader follows (research
    notes, section 1): fn= goes back to the last fl= file; cfi= and cob= last
    for one call; a function is its name, file and object, and a compressed
    function id stands for the function it was defined with; '???' is no name;
    jfi=/jfn= name the next jump's target, and the line after a jump is its
    source, with no cost.
    Returns the events, self costs and calls per function, and every place where
    KCachegrind and the writer's intent would part."""
    problems, self_cost, calls = [], defaultdict(list), defaultdict(lambda: [0, []])
    with open(path) as f:
        lines = f.read().split("\n")
    if lines[0] != "# callgrind format":
        problems.append("line 1 is not '# callgrind format'")
    events, npos, in_body = None, 1, False
    tables = {"file": {}, "ob": {}, "fn": {}}
    st = {}

    def reset():
        for t in tables.values():
            t.clear()
        st.update(ob="", fl="", file="", fn=None, cfi=None, cob=None, call=None, callee=None,
                  jump=False, jfi=None)

    def add(dst, vals):
        dst.extend([0] * (len(vals) - len(dst)))
        for i, v in enumerate(vals):
            dst[i] += v

    reset()
    for no, l in enumerate(lines, 1):
        where = "%s:%d" % (path, no)
        if not l or l.startswith("#"):
            continue
        if "\t" in l:
            problems.append(where + ": a tab")
        m = re.match(r"^([a-z]+):\s?(.*)$", l)
        if m and m.group(1) in HEADER:
            key, val = m.groups()
            if key == "totals":
                continue
            if in_body:
                reset()
                in_body = False
            if key == "events":
                events = val.split(" ")
            elif key == "event" and events is not None:
                problems.append(where + ": event: after events: (KCachegrind ignores it)")
            elif key == "summary" and events is None:
                problems.append(where + ": summary: before events: (KCachegrind rejects the file)")
            elif key == "positions":
                npos = len(val.split(" "))
            continue
        if events is None:
            problems.append(where + ": a body line before events:")
            continue
        in_body = True
        m = re.match(r"^([a-z]+)=(.*)$", l)
        if m and m.group(1) in FILE_SPECS | OBJ_SPECS | FN_SPECS:
            spec, val = m.groups()
            if val.startswith(" "):
                problems.append(where + ": a space after '='")
            c = re.match(r"^\((\d+)\)(?: (.*))?$", val)
            ns = "file" if spec in FILE_SPECS else "ob" if spec in OBJ_SPECS else "fn"
            name = c.group(2) if c else val
            if name == "???":
                name = ""
            if ns != "fn":
                if c and c.group(2) is None:
                    if c.group(1) not in tables[ns]:
                        problems.append(where + ": undefined id")
                    name = tables[ns].get(c.group(1), "")
                elif c:
                    tables[ns][c.group(1)] = name
                if spec == "ob":
                    st["ob"], st["fn"] = name, None
                elif spec == "fl":
                    st["fl"] = st["file"] = name
                elif spec in ("fi", "fe"):
                    st["file"] = name
                elif spec == "cob":
                    st["cob"] = name
                elif spec == "jfi":
                    st["jfi"] = name
                else:
                    st["cfi"] = name
                continue
            if spec == "fn":
                st["file"] = st["fl"]
                want = (name, st["fl"], st["ob"])
            elif spec == "jfn":
                want = (name, st["jfi"] if st["jfi"] is not None else st["file"], st["ob"])
            else:
                want = (name, st["cfi"] if st["cfi"] is not None else st["file"],
                        st["cob"] if st["cob"] is not None else st["ob"])
            if c and c.group(2) is None:
                got = tables["fn"].get(c.group(1))
                if got is None:
                    problems.append(where + ": undefined function id")
                elif got[1:] != want[1:]:
                    problems.append(where + ": %s=(%s) is %s, but the file/object here say %s"
                                    % (spec, c.group(1), got, want[1:]))
                want = got or want
            elif c:
                tables["fn"][c.group(1)] = want
            if spec == "fn":
                st["fn"] = want
            elif spec == "cfn":
                st["callee"] = want
            continue
        if l.startswith("jump=") or l.startswith("jcnd="):
            st["jump"] = True
            continue
        if l.startswith("calls="):
            n = int(l[6:].split(" ")[0])
            if n == 0:
                problems.append(where + ": calls=0")
            st["call"] = n
            continue
        toks = l.split(" ")
        if len(toks) < npos or not all(re.match(r"^(\d+|0x[0-9a-f]+|[+-]\d+|\*)$", t) for t in toks[:npos]):
            problems.append(where + ": not a cost line: " + l)
            continue
        vals = [int(t) for t in toks[npos:] if t or not st["jump"]]  # callgrind: "* * "
        if len(vals) > len(events):
            problems.append(where + ": more costs than events")
        if st["fn"] is None:
            problems.append(where + ": a cost line outside a function")
        if st["jump"]:
            if vals:
                problems.append(where + ": costs on a jump's source line")
            st["jump"], st["jfi"] = False, None
        elif st["call"] is not None:
            arc = calls[(st["fn"], st["callee"])]
            arc[0] += st["call"]
            add(arc[1], vals)
            st["call"] = st["cfi"] = st["cob"] = None
        else:
            add(self_cost[st["fn"]], vals)
    return events, self_cost, calls, problems

def inclusive_costs(self_cost, calls):
    """KCachegrind's inclusive cost: the calls coming in (from other
    functions); for a function nobody calls, its self cost and the calls
    going out."""
    into, out = defaultdict(list), defaultdict(list)
    called = set()
    for (a, b), (_, c) in calls.items():
        if a == b:
            continue
        called.add(b)
        for d, k in ((into, b), (out, a)):
            d[k].extend([0] * (len(c) - len(d[k])))
            for i, v in enumerate(c):
                d[k][i] += v
    res = {}
    for fn in set(self_cost) | set(into) | set(out):
        if fn in called:
            res[fn] = into[fn]
        else:
            s = list(self_cost.get(fn, []))
            o = out.get(fn, [])
            s.extend([0] * (len(o) - len(s)))
            res[fn] = [x + (o[i] if i < len(o) else 0) for i, x in enumerate(s)]
    return res

def kcg_key(row):
    return (row["function"], row["file"], row["module"])

def trimmed(v):
    v = list(v)
    while v and not v[-1]:
        v.pop()
    return v

def kcg_compare(cg, plumb_csv, inclusive, tree_csv=None):
    """KCachegrind's reading of cg against plumb's report: the total, and self
    (or inclusive, where KCachegrind can know it) cost per function."""
    events, self_cost, calls, errs = kcachegrind(cg)
    costs = inclusive_costs(self_cost, calls) if inclusive else self_cost
    rows = plumb_rows(plumb_csv)
    ok = eligible(tree_csv) if tree_csv else (lambda r: True)
    col = "inclusive." if inclusive else "exclusive."
    total = [sum(v[i] for v in self_cost.values() if i < len(v)) for i in range(len(events))]
    want_total = [sum(int(r["exclusive." + e]) for r in rows) for e in events]
    if total != want_total:
        errs.append("total %s, plumb %s" % (total, want_total))
    for r in rows:
        if ok(r):
            got, want = trimmed(costs.get(kcg_key(r), [])), [int(r[col + e]) for e in events]
            if got != trimmed(want):
                errs.append("%s: KCachegrind %s, plumb %s" % (kcg_key(r), got, want))
    return errs

def kcg_same(a, b):
    """Two files that KCachegrind reads as the same self costs and calls."""
    ea, sa, ca, errs = kcachegrind(a)
    eb, sb, cb, errs_b = kcachegrind(b)
    errs += errs_b
    if ea != eb:
        errs.append("events %s and %s" % (ea, eb))
    sa, sb = ({k: trimmed(v) for k, v in s.items() if any(v)} for s in (sa, sb))
    diff = [k for k in set(sa) | set(sb) if sa.get(k) != sb.get(k)]
    if diff:
        errs.append("self costs differ for %s" % diff[:5])
    ca, cb = ({k: (n, trimmed(c)) for k, (n, c) in d.items()} for d in (ca, cb))
    diff = [k for k in set(ca) | set(cb) if ca.get(k) != cb.get(k)]
    if diff:
        errs.append("calls differ for %s" % diff[:5])
    return errs

def jumps(path):
    """The jumps of a Callgrind file, decoded here and not by plumb:
    (function, file, source position, target function, target file, target
    position, conditional) -> [executed, followed], summed over equal keys
    (callgrind writes a jump once per context). Relative positions count
    from the last cost line, call-site and jump-source lines included;
    targets do not move the base. jfi=/jfn= name one jump's target."""
    out = defaultdict(lambda: [0, 0])
    names, st = {}, {}
    npos, in_body = 1, False
    def reset():
        names.clear()
        st.update(fn=None, file=None, fl=None, last=[0] * 4, jump=None, jfi=None, jfn=None)
    def pos(toks, base):
        return [b if t == "*" else b + int(t) if t[0] in "+-" else int(t, 0)
                for t, b in zip(toks, base)]
    def name(spec, val):
        ns = "fn" if spec in ("fn", "cfn", "jfn") else "ob" if spec in ("ob", "cob") else "file"
        m = re.match(r"^\((\d+)\)(?: (.*))?$", val)
        if not m:
            return val
        if m.group(2) is not None:
            names[(ns, m.group(1))] = m.group(2)
        return names[(ns, m.group(1))]
    reset()
    with open(path) as f:
        lines = f.read().split("\n")
    for l in lines:
        if not l or l.startswith("#"):
            continue
        m = re.match(r"^([a-z]+):\s?(.*)$", l)
        if m and m.group(1) in HEADER:
            if in_body and m.group(1) != "totals":
                reset()
                in_body = False
            if m.group(1) == "positions":
                npos = len(m.group(2).split())
            continue
        in_body = True
        m = re.match(r"^([a-z]+)=(.*)$", l)
        if m:
            spec, val = m.groups()
            if spec in ("jump", "jcnd"):
                c, rest = val.split(" ", 1)
                if spec == "jcnd":
                    followed, executed = c.split("/")
                    counts = (int(executed), int(followed))
                else:
                    counts = (int(c), int(c))
                st["jump"] = (spec == "jcnd", counts, pos(rest.split()[:npos], st["last"]))
            elif spec != "calls":
                n = name(spec, val)
                if spec == "fn":
                    st["fn"], st["file"] = n, st["fl"]
                elif spec == "fl":
                    st["fl"] = st["file"] = n
                elif spec in ("fi", "fe"):
                    st["file"] = n
                elif spec in ("jfi", "jfn"):
                    st[spec] = n
            continue
        p = pos(l.split()[:npos], st["last"])
        st["last"] = p + [0] * (4 - len(p))
        if st["jump"]:
            cond, counts, target = st["jump"]
            key = (st["fn"], st["file"], tuple(p), st["jfn"] or st["fn"], st["jfi"] or st["file"],
                   tuple(target), cond)
            out[key][0] += counts[0]
            out[key][1] += counts[1]
            st.update(jump=None, jfi=None, jfn=None)
    return out

mode = sys.argv[1]
if mode == "jumps":  # two Callgrind files with the same jumps and counts
    a, b = jumps(sys.argv[2]), jumps(sys.argv[3])
    errs = [] if a else ["no jumps in " + sys.argv[2]]
    errs += ["%s: %s, then %s" % (k, a.get(k), b.get(k))
             for k in sorted(set(a) | set(b), key=str) if a.get(k) != b.get(k)][:10]
elif mode == "self":
    errs = compare(sys.argv[2], sys.argv[3], False)
elif mode == "incl":
    errs = compare(sys.argv[2], sys.argv[3], True, sys.argv[4])
elif mode == "total":  # PROGRAM TOTALS against the sum of plumb's self costs
    events, total, _, _ = annotate(sys.argv[2])
    rows = plumb_rows(sys.argv[3])
    want = [sum(int(r["exclusive." + e]) for r in rows) for e in events]
    errs = [] if total == want else ["PROGRAM TOTALS %s, plumb %s" % (total, want)]
elif mode == "kcg-self":   # KCachegrind's reading against plumb's report
    errs = kcg_compare(sys.argv[2], sys.argv[3], False)
elif mode == "kcg-incl":
    errs = kcg_compare(sys.argv[2], sys.argv[3], True, sys.argv[4])
elif mode == "kcg-same":   # two files KCachegrind reads the same
    errs = kcg_same(sys.argv[2], sys.argv[3])
elif mode == "same":   # two Callgrind files: equal totals and function tables
    # callgrind_annotate keys functions by file:name and labels the entry
    # with the object it met last: the order of functions decides which.
    def table(path, inclusive):
        events, total, fns, _ = annotate(path, inclusive)
        return events, total, {re.sub(r" \[[^][]*\]$", "", k): v for k, v in fns.items()}
    errs = []
    for inclusive in (False, True):
        a, b = table(sys.argv[2], inclusive), table(sys.argv[3], inclusive)
        if a != b:
            errs.append("inclusive=%s: %s\n  vs\n%s" % (inclusive, a, b))
elif mode == "tree":   # the same caller/callee lists (ties come in any order)
    def tree(path):
        r = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no", "--tree=both",
                            "--inclusive=yes", path], capture_output=True, text=True)
        return sorted(re.sub(r" \[[^][]*\]$", "", l) for l in r.stdout.split("\n")
                      if not l.startswith("Profile data file"))
    a, b = tree(sys.argv[2]), tree(sys.argv[3])
    errs = [] if a == b else ["trees differ: %d lines vs %d" % (len(a), len(b))]
print("\n".join(errs))
sys.exit(1 if errs else 0)
EOF

# cg_check NAME IN: IN -> plumb convert -> callgrind_annotate, against
# plumb report on IN (self costs and totals; inclusive where it can tell).
cg_check() {
	name=$1 in=$2
	run "$PLUMB" convert "$in" -o "$name.callgrind"
	[ "$rc" -eq 0 ] || { fail "$name: convert" "exit $rc" "$err"; return; }
	"$PLUMB" report --format csv --threshold 0 --cycles=no "$in" > "$name.csv"
	"$PLUMB" report --view tree --format csv --threshold 0 "$in" > "$name.tree.csv"
	run python3 cgcmp.py self "$name.callgrind" "$name.csv"
	[ "$rc" -eq 0 ] && ok "$name: callgrind_annotate self = plumb" \
		|| fail "$name: callgrind_annotate self = plumb" "$out" "$err"
	run python3 cgcmp.py incl "$name.callgrind" "$name.csv" "$name.tree.csv"
	[ "$rc" -eq 0 ] && ok "$name: callgrind_annotate --inclusive=yes = plumb" \
		|| fail "$name: callgrind_annotate --inclusive=yes = plumb" "$out" "$err"
	run python3 cgcmp.py kcg-self "$name.callgrind" "$name.csv"
	[ "$rc" -eq 0 ] && ok "$name: KCachegrind's reading: self = plumb" \
		|| fail "$name: KCachegrind's reading: self = plumb" "$out" "$err"
	run python3 cgcmp.py kcg-incl "$name.callgrind" "$name.csv" "$name.tree.csv"
	[ "$rc" -eq 0 ] && ok "$name: KCachegrind's reading: inclusive = plumb" \
		|| fail "$name: KCachegrind's reading: inclusive = plumb" "$out" "$err"
	# plumb reads the copy back with the same costs per function: self and
	# inclusive (without recursion: a call graph loses the contexts that
	# tell how much of a cycle's cost a member holds).
	cols=3,4,6-
	[ "${3-}" = recursive ] && cols=3,6-
	a=$("$PLUMB" report --format csv --threshold 0 --cycles=no "$in" | cut -d, -f$cols | sort)
	b=$("$PLUMB" report --format csv --threshold 0 --cycles=no "$name.callgrind" | cut -d, -f$cols | sort)
	same "$name: plumb reads the copy with the same costs" "$b" "$a"
	# One part: nothing for callgrind_annotate to warn about. Later parts'
	# header lines are unknown to it, and it says so.
	run callgrind_annotate --auto=no "$name.callgrind"
	case "$err:$(grep -c '^part:' "$name.callgrind")" in
	*WARNING*:1) fail "$name: callgrind_annotate has no warning" "$err" ;;
	*:1) ok "$name: callgrind_annotate has no warning" ;;
	esac
}

# total FILE: plumb's total of the first event.
total() {
	"$PLUMB" report --format csv --threshold 0 --cycles=no "$1" | awk -F, 'NR > 1 { s += $3 } END { print s }'
}

if ! command -v callgrind_annotate > /dev/null; then
	skip "callgrind writer vs callgrind_annotate" "callgrind_annotate not installed"
else
	# (1) sampled stacks (a calling context tree)
	cg_check fig21 "$DATA/fig21.folded"
	for f in "$DATA"/folded/*.folded; do
		cg_check "$(basename "$f" .folded)" "$f"
	done
	# recursion, direct and mutual: self costs still match; the inclusive
	# check leaves out what callgrind_annotate counts twice
	printf 'main;a;b;a;b 5\nmain;a 3\nmain;c;a;a 2\nmain;c 1\nmain;d;d;d 4\n' > rec.folded
	cg_check rec rec.folded recursive
	# sampled stacks have no call counts: helper -> parse from two contexts
	# is calls=1 (callgrind_annotate and KCachegrind show it as a count),
	# not 2, and the header says so
	printf 'main;helper;parse 100\nmain;x;helper;parse 50\nmain;helper 3\n' > ctx.folded
	"$PLUMB" convert ctx.folded --to callgrind -o ctx.callgrind
	same "sampled: every calls= is 1" "$(grep '^calls=' ctx.callgrind | cut -d' ' -f1 | sort -u)" "calls=1"
	grep -q '^# calls= counts: the profile has no call counts' ctx.callgrind \
		&& ok "sampled: the header says the counts are unknown" \
		|| fail "sampled: the header says the counts are unknown" "$(head -12 ctx.callgrind)"
	run callgrind_annotate --tree=caller --inclusive=yes ctx.callgrind
	expect_out "sampled: callgrind_annotate shows helper > parse once" "150 (98.04%)  < ???:helper (1x) []"
	# two inputs are two parts: one summary, each part its totals
	run "$PLUMB" convert "$DATA/fig21.folded" "$DATA/folded/simple.folded" -o two.plumb
	cg_check two two.plumb
	same "two parts: a section each" "$(grep '^part:' two.callgrind | tr '\n' ' ')" "part: 1 part: 2 "
	t1=$(total "$DATA/fig21.folded") t2=$(total "$DATA/folded/simple.folded")
	same "two parts: totals: per part" "$(grep '^totals:' two.callgrind | tr '\n' ' ')" \
		"totals: $t1 totals: $t2 "
	same "two parts: one summary:, the whole" "$(grep '^summary:' two.callgrind)" \
		"summary: $((t1 + t2))"
fi

# (2) real Callgrind files, from valgrind on a small program: plumb's copy
# reads the same in callgrind_annotate and in plumb, and is a fixed point.
if ! command -v valgrind > /dev/null || ! command -v callgrind_annotate > /dev/null; then
	skip "real Callgrind files" "valgrind or callgrind_annotate not installed"
elif ! cc -g -O2 -o cgw_calls "$E2E_DIR/../programs/cgw_calls.c"; then
	fail "real Callgrind files: compile tests/programs/cgw_calls.c"
else
	for v in plain instr cache parts jumps jumplines; do
		case $v in
		plain) opts= ;;
		instr) opts=--dump-instr=yes ;;
		jumps) opts="--dump-instr=yes --collect-jumps=yes" ;;
		jumplines) opts=--collect-jumps=yes ;;
		cache) opts="--dump-instr=yes --cache-sim=yes --collect-systime=nsec" ;;
		parts) opts="--combine-dumps=yes --dump-after=work" ;;
		esac
		if ! valgrind --tool=callgrind $opts --callgrind-out-file=cg.$v ./cgw_calls > /dev/null 2> vg.err; then
			fail "$v: valgrind" "$(cat vg.err)"
			continue
		fi
		run "$PLUMB" convert cg.$v -o out.$v.callgrind
		[ "$rc" -eq 0 ] || { fail "$v: convert" "$err"; continue; }
		"$PLUMB" report --format csv --threshold 0 --cycles=no cg.$v > cg.$v.csv
		"$PLUMB" report --format csv --threshold 0 --cycles=no out.$v.callgrind > out.$v.csv
		if [ $v = parts ]; then
			# callgrind_annotate misreads the original (calls=0 lines, the
			# last part's summary); the copy writes those counts as 1.
			run python3 cgcmp.py total out.$v.callgrind out.$v.csv
			[ "$rc" -eq 0 ] && ok "$v: callgrind_annotate total = plumb" \
				|| fail "$v: callgrind_annotate total = plumb" "$out" "$err"
			same "$v: plumb report (but calls=0 counts)" "$(cut -d, -f1-4,6- out.$v.csv)" \
				"$(cut -d, -f1-4,6- cg.$v.csv)"
			run python3 cgcmp.py kcg-self out.$v.callgrind cg.$v.csv
			[ "$rc" -eq 0 ] && ok "$v: KCachegrind's reading: self = plumb" \
				|| fail "$v: KCachegrind's reading: self = plumb" "$out"
		else
			run python3 cgcmp.py same cg.$v out.$v.callgrind
			[ "$rc" -eq 0 ] && ok "$v: callgrind_annotate reads the same (self, inclusive)" \
				|| fail "$v: callgrind_annotate reads the same (self, inclusive)" "$out" "$err"
			run python3 cgcmp.py tree cg.$v out.$v.callgrind
			[ "$rc" -eq 0 ] && ok "$v: callgrind_annotate --tree=both reads the same" \
				|| fail "$v: callgrind_annotate --tree=both reads the same" "$out"
			same "$v: plumb report reads the same" "$(cat out.$v.csv)" "$(cat cg.$v.csv)"
			run python3 cgcmp.py kcg-same cg.$v out.$v.callgrind
			[ "$rc" -eq 0 ] && ok "$v: KCachegrind's reading: the same functions and calls" \
				|| fail "$v: KCachegrind's reading: the same functions and calls" "$out"
			run python3 cgcmp.py kcg-self out.$v.callgrind cg.$v.csv
			[ "$rc" -eq 0 ] && ok "$v: KCachegrind's reading: self = plumb" \
				|| fail "$v: KCachegrind's reading: self = plumb" "$out"
			for view in callers tree lines; do
				a=$("$PLUMB" report --view $view --format csv --threshold 0 cg.$v | sort)
				b=$("$PLUMB" report --view $view --format csv --threshold 0 out.$v.callgrind | sort)
				same "$v: plumb report --view $view reads the same" "$b" "$a"
			done
		fi
		"$PLUMB" convert out.$v.callgrind -o again.$v.callgrind
		"$PLUMB" convert again.$v.callgrind -o again2.$v.callgrind
		if [ $v != parts ]; then
			cmp -s out.$v.callgrind again.$v.callgrind && ok "$v: written again, the same bytes" \
				|| fail "$v: written again, the same bytes" "$(diff out.$v.callgrind again.$v.callgrind | head -5)"
		fi
		cmp -s again.$v.callgrind again2.$v.callgrind && ok "$v: a fixed point" \
			|| fail "$v: a fixed point" "$(diff again.$v.callgrind again2.$v.callgrind | head -5)"
	done
	# jumps (jump=, jcnd=) are kept with their counts: decoded here, not by
	# plumb; directly and through a .plumb store
	for v in jumps jumplines; do
		run python3 cgcmp.py jumps cg.$v out.$v.callgrind
		[ "$rc" -eq 0 ] && ok "$v: the same jumps and counts" || fail "$v: the same jumps and counts" "$out" "$err"
		"$PLUMB" convert cg.$v -o $v.plumb
		"$PLUMB" convert $v.plumb --to callgrind -o $v.via-store.callgrind
		run python3 cgcmp.py jumps cg.$v $v.via-store.callgrind
		[ "$rc" -eq 0 ] && ok "$v: through a .plumb store, the same jumps" \
			|| fail "$v: through a .plumb store, the same jumps" "$out" "$err"
	done
	# through the .plumb store: the same file
	"$PLUMB" convert cg.instr -o instr.plumb
	"$PLUMB" convert instr.plumb -o via-store.callgrind
	cmp -s via-store.callgrind out.instr.callgrind && ok "instr: through a .plumb store, the same file" \
		|| fail "instr: through a .plumb store, the same file" "$(diff via-store.callgrind out.instr.callgrind | head -5)"
	# instr positions are kept: the copy of an instr file has addresses
	same "instr: positions kept" "$(grep '^positions:' out.instr.callgrind)" "positions: instr line"
	same "plain: positions kept" "$(grep '^positions:' out.plain.callgrind)" "positions: line"
fi

# Threads: one file per thread, read together, written as sections with
# thread: lines; the thread view and the total read the same.
if ! command -v valgrind > /dev/null || ! command -v callgrind_annotate > /dev/null; then
	skip "threads" "valgrind or callgrind_annotate not installed"
elif ! cc -g -O2 -pthread -o cgw_threads "$E2E_DIR/../programs/cgw_threads.c"; then
	fail "threads: compile tests/programs/cgw_threads.c"
elif ! valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=cg.thr ./cgw_threads > /dev/null 2> vg.err; then
	fail "threads: valgrind" "$(cat vg.err)"
else
	set -- cg.thr-*
	run "$PLUMB" convert "$@" -o thr.callgrind
	same "threads: converted" "$rc" 0
	same "threads: a section per thread" "$(grep -c '^thread:' thr.callgrind)" "$#"
	a=$("$PLUMB" report --view threads --format csv "$@")
	b=$("$PLUMB" report --view threads --format csv thr.callgrind)
	same "threads: plumb report --view threads reads the same" "$b" "$a"
	a=$("$PLUMB" report --format csv --threshold 0 --cycles=no "$@")
	b=$("$PLUMB" report --format csv --threshold 0 --cycles=no thr.callgrind)
	same "threads: plumb report reads the same" "$b" "$a"
	printf '%s\n' "$b" > thr.csv
	run python3 cgcmp.py kcg-self thr.callgrind thr.csv
	[ "$rc" -eq 0 ] && ok "threads: KCachegrind's reading: self = plumb" \
		|| fail "threads: KCachegrind's reading: self = plumb" "$out"
	run python3 cgcmp.py total thr.callgrind thr.csv
	[ "$rc" -eq 0 ] && ok "threads: callgrind_annotate total = plumb" \
		|| fail "threads: callgrind_annotate total = plumb" "$out" "$err"
fi

# A hand-written file: long names, a derived event, inlined code, a call
# into another file and object.
cat > hand.cg <<'EOF'
# callgrind format
version: 1
creator: hand
pid: 77
cmd: ./x --flag
event: Ir : Instruction Fetches
event: Sum = Ir + 2 * Dr : Ir and twice Dr
events: Ir Dr
summary: 44 9

ob=(1) /bin/x
fl=(1) a.c
fn=(1) main
3 10 2
fi=(2) inl.h
7 4 1
cob=(2) /lib/liby.so
cfi=(3) b.c
cfn=(2) f
calls=2 10
* 20 5
fe=(1)
4 1

ob=(2)
fl=(3)
fn=(2)
10 20 5
cfn=(3) g
calls=1 30
11 9 1
fn=(3)
30 9 1
totals: 44 9
EOF
run "$PLUMB" convert hand.cg -o hand.callgrind
same "hand-written: converted without a warning" "$rc:$err" "0:"
same "hand-written: derived event kept" "$(grep '^event:' hand.callgrind)" \
	"event: Ir : Instruction Fetches
event: Sum = Ir + 2 * Dr : Ir and twice Dr"
same "hand-written: header" "$(sed -n 4,5p hand.callgrind)" "pid: 77
cmd: ./x --flag"
a=$("$PLUMB" report --format csv --threshold 0 hand.cg)
b=$("$PLUMB" report --format csv --threshold 0 hand.callgrind)
same "hand-written: plumb report reads the same" "$b" "$a"
a=$("$PLUMB" report --view lines --format csv --threshold 0 hand.cg | sort)
b=$("$PLUMB" report --view lines --format csv --threshold 0 hand.callgrind | sort)
same "hand-written: plumb report --view lines reads the same" "$b" "$a"
if command -v callgrind_annotate > /dev/null; then
	run python3 cgcmp.py kcg-same hand.cg hand.callgrind
	[ "$rc" -eq 0 ] && ok "hand-written: KCachegrind's reading: the same functions and calls" \
		|| fail "hand-written: KCachegrind's reading: the same functions and calls" "$out"
	run python3 cgcmp.py same hand.cg hand.callgrind
	[ "$rc" -eq 0 ] && ok "hand-written: callgrind_annotate reads the same" \
		|| fail "hand-written: callgrind_annotate reads the same" "$out" "$err"
fi

# (3) choosing the format, standard output, failures
"$PLUMB" convert "$DATA/fig21.folded" -o a.plumb
run "$PLUMB" convert a.plumb -o callgrind.out.x
same "callgrind.out.* is Callgrind" "$(head -n 1 callgrind.out.x)" "# callgrind format"
run "$PLUMB" convert a.plumb -o x.callgrind
same ".callgrind is Callgrind" "$(head -n 1 x.callgrind)" "# callgrind format"
run "$PLUMB" convert a.plumb --to callgrind -o -
same "--to callgrind -o - writes the file to stdout" "$out" "$(cat x.callgrind)"
expect_err "-o - to a full device fails" 1 "No space left" sh -c "'$PLUMB' convert a.plumb --to callgrind -o - > /dev/full"
: > notadir
expect_err "an output path under a file fails" 1 "notadir/callgrind.out.1" \
	"$PLUMB" convert a.plumb -o notadir/callgrind.out.1
# A write that fails half-way (the file size limit) leaves the old file.
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "main;f%d;g%d %d\n", i, i % 7, i + 1 }' > big.folded
echo "old contents" > keep.callgrind
expect_status "a write beyond the file size limit fails" 1 \
	sh -c "trap '' XFSZ; ulimit -f 4; exec '$PLUMB' convert big.folded -o keep.callgrind"
same "the old file is left as it was" "$(cat keep.callgrind)" "old contents"
n=$(ls | grep -c 'keep.callgrind.tmp' || true)
same "no temporary file is left" "$n" 0
run "$PLUMB" convert big.folded -o keep.callgrind
[ "$(wc -c < keep.callgrind)" -gt 4096 ] && ok "the big file is bigger than the limit" \
	|| fail "the big file is bigger than the limit" "$(wc -c < keep.callgrind) bytes"
