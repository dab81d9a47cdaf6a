# plumb annotate against callgrind_annotate 3.19 on real Callgrind files of
# small programs compiled here (tests/programs/ann_*.c).
#
# ann_plain has no recursion and no inlining, so callgrind_annotate is right
# about it and plumb must print the same bytes. It is linked statically (no
# libc inlining from debug info) and run with --show-below-main=yes (glibc's
# two "(below main)" frames would otherwise look like a recursion). Both
# tools run from / so that neither strips a directory from file names.
# ann_rec has recursion and inlining: there plumb's numbers must be right.
ann_dir=$(pwd)
ann_progs=$(cd "$E2E_DIR/../programs" && pwd)
case $PLUMB in /*) ann_plumb=$PLUMB ;; *) ann_plumb=$(pwd)/$PLUMB ;; esac

# Tie order in caller/callee lists is Perl hash order in callgrind_annotate
# and name order in plumb: sort each run of equal-cost tree lines.
ann_untie() {
	python3 -c '
import re, sys
out, run, key = [], [], None
tree = re.compile(r"^(.*?)  ?(<|>  |=>) ")
for line in sys.stdin.read().split("\n"):
    m = tree.match(line)
    k = (m.group(1), m.group(2)) if m else None
    if k is None or k != key:
        out.extend(sorted(run)); run = []
    if k is None:
        out.append(line)
    else:
        run.append(line)
    key = k
out.extend(sorted(run))
sys.stdout.write("\n".join(out))
'
}

# ann_same NAME UNTIE PROFILE OPTS...: both tools, byte for byte.
ann_same() {
	name=$1 untie=$2
	shift 2
	(cd / && PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 callgrind_annotate "$@" > "$ann_dir/ca.txt" 2> "$ann_dir/ca.err")
	(cd / && "$ann_plumb" annotate "$@" > "$ann_dir/pl.txt" 2> "$ann_dir/pl.err")
	prc=$?
	if [ "$untie" = untie ]; then
		ann_untie < "$ann_dir/ca.txt" > "$ann_dir/ca.u" && mv "$ann_dir/ca.u" "$ann_dir/ca.txt"
		ann_untie < "$ann_dir/pl.txt" > "$ann_dir/pl.u" && mv "$ann_dir/pl.u" "$ann_dir/pl.txt"
	fi
	if [ $prc -ne 0 ]; then
		fail "$name" "plumb exited $prc: $(cat "$ann_dir/pl.err")"
	elif [ ! -s "$ann_dir/ca.txt" ]; then
		fail "$name" "callgrind_annotate printed nothing: $(cat "$ann_dir/ca.err")"
	elif diff "$ann_dir/ca.txt" "$ann_dir/pl.txt" > "$ann_dir/diff.txt"; then
		ok "$name"
	else
		fail "$name" "$(head -30 "$ann_dir/diff.txt")"
	fi
}

# ann_summary_is_sum FILE: FILE's summary: line replaced by its totals: line
# (Callgrind's sum of the cost lines; its summary also counts the last
# system call, which no cost line holds). plumb's 100% is the sum of the
# cost lines; with this, callgrind_annotate's is too. The original is kept
# as FILE.orig.
ann_summary_is_sum() {
	cp "$1" "$1.orig"
	python3 - "$1" <<'EOF3'
import re, sys
text = open(sys.argv[1]).read()
# sysTime (--collect-systime) is the one event whose values change from run
# to run (and with the machine's load): keep its column out, so that every
# run compares the same numbers; sysCount stays.
ev = re.search(r"^events: (.*)$", text, re.M)
keep = None
if ev and ev.group(1).split()[-1] == "sysTime":
    keep = len(ev.group(1).split()) - 1
    pos = re.search(r"^positions: (.*)$", text, re.M)
    npos = len(pos.group(1).split()) if pos else 1
    out = []
    for line in text.split("\n"):
        if line.startswith("events: "):
            line = "events: " + " ".join(ev.group(1).split()[:keep])
        elif line.startswith(("summary: ", "totals: ")):
            head, vals = line.split(": ", 1)
            line = head + ": " + " ".join(vals.split()[:keep])
        elif line and (line[0].isdigit() or line[0] in "+-*"):
            line = " ".join(line.split()[:npos + keep])
        out.append(line)
    text = "\n".join(out)
tot = re.search(r"^totals: (.*)$", text, re.M)
if tot:
    text = re.sub(r"^summary: .*$", "summary: " + tot.group(1), text, count=1, flags=re.M)
open(sys.argv[1], "w").write(text)
EOF3
}

# Hand-written files (tests/data/annotate), no valgrind needed: plain.cg
# against callgrind_annotate's saved output, quirks.cg against the right
# numbers where callgrind_annotate is wrong.
mkdir -p hand
cp "$DATA/annotate/plain.cg" "$DATA/annotate/a.c" "$DATA/annotate/quirks.cg" \
	"$DATA/annotate/q.c" "$DATA/annotate/inl.h" hand/
touch -d '2000-01-01' hand/a.c hand/q.c hand/inl.h
for t in "default:" "tree-both:--tree=both --context=2" "inclusive:--inclusive=yes --show=Dr,Ir --sort=Dr"; do
	name=${t%%:*} opts=${t#*:}
	# shellcheck disable=SC2086
	(cd hand && "$ann_plumb" annotate $opts plain.cg > "../hand.$name" 2> /dev/null)
	if diff "$DATA/annotate/expected.$name" "hand.$name" > hand.diff; then
		ok "annotate = callgrind_annotate's saved output: $name"
	else
		fail "annotate = callgrind_annotate's saved output: $name" "$(head -20 hand.diff)"
	fi
done
run sh -c "cd hand && '$ann_plumb' annotate --inclusive=yes --tree=both quirks.cg"
py "annotate: hand-written recursion, calls=0 and inlining" '
import re, sys
out = sys.stdin.read()
table = out.split("file:function", 1)[1].split("-- Auto-annotated", 1)[0]
for want in ("1,000 (100.0%)  *  q.c:main [/bin/q]",    # inclusive: self + calls, once
             "  600 (60.00%)  *  q.c:rec [/bin/q]",     # Callgrind says 2,600 with recursion
             "  600 (60.00%)  < q.c:rec (5x) [/bin/q]", # the recursive arc, capped
             "  300 (30.00%)  >   q.c:helper (0x) [/bin/q]"):  # calls=0 is an arc
    assert want in table, (want, table)
assert "inl.h:" not in table, table
assert re.search(r"^50 \( 5\.00%\)  inl\.h line 5$", out, re.M), "inlined line not annotated"
'
# One total per file, the sum of the cost lines, as plumb report prints it;
# a summary: that says otherwise gets a note.
printf 'events: Ir Dr\nsummary: 1000 7\nfl=a.c\nfn=main\n1 600 3\n2 300\n' > hand/sum.cg
run "$ann_plumb" report hand/sum.cg
expect_out "report: the total is the sum of the cost lines" "Total: 900 Ir, 3 Dr"
run "$ann_plumb" annotate --auto=no hand/sum.cg
expect_out "annotate: PROGRAM TOTALS is the sum of the cost lines, as in report" \
	"900 (100.0%) 3 (100.0%)  PROGRAM TOTALS"
expect_out "annotate: a note when summary: disagrees" \
	"(the file's summary: line says Ir 1000, Dr 7; the totals are its cost lines' sum)"
printf 'events: Ir\nsummary: 900\nfl=a.c\nfn=main\n1 600\n2 300\n' > hand/agree.cg
run "$ann_plumb" annotate --auto=no hand/agree.cg
if printf '%s' "$out" | grep -q "line says"; then fail "annotate: no note when summary: agrees" "$out"; else ok "annotate: no note when summary: agrees"; fi
run sh -c "cd hand && '$ann_plumb' annotate --threshold=100 --auto=no quirks.cg"
expect_out "annotate: calls=0 is no self cost of the caller" "100 (10.00%)  q.c:main [/bin/q]"
# q.c's lines ("q.c line 1") also read as folded stacks: after a Callgrind
# file it is still a source, not a second profile.
run sh -c "cd hand && '$ann_plumb' annotate --auto=no quirks.cg q.c"
expect_out "annotate: a source that looks like a profile is a source" "-- User-annotated source: q.c"

# A 0 written on a cost line is "0", a value not written (a short line) is
# ".", in every part of the output, as callgrind_annotate prints them; a
# line of zeros is kept; a written 0 sorts above no value.
if command -v callgrind_annotate > /dev/null 2>&1; then
	mkdir -p zeros
	printf 'a\nb\nc\n' > zeros/z.c
	touch -d '2000-01-01' zeros/z.c
	printf '%s\n' 'events: Ir Dr Dw' 'summary: 1200 5 0' 'ob=/bin/z' "fl=$ann_dir/zeros/z.c" 'fn=main' '1 600 0' \
		'2 300 5 0' 'cob=/bin/z' 'cfn=other' 'calls=2 3' '2 100 0' 'fn=other' '3 100' 'fn=idle' \
		'3 0 0 0' 'fn=peer' '1 100' 'fn=twin' '1 100 0' > zeros/z.cg
	for opts in "" "--threshold=100 --tree=both" "--inclusive=yes --tree=both" "--show-percs=no --tree=caller" \
		"--inclusive=yes --show-percs=no --threshold=100" "--sort=Dr,Ir --threshold=100"; do
		# shellcheck disable=SC2086
		ann_same "annotate = callgrind_annotate: written zeros and missing values ${opts:-(defaults)}" \
			no $opts "$ann_dir/zeros/z.cg"
	done
else
	skip "annotate: written zeros against callgrind_annotate" "callgrind_annotate not installed"
fi

if ! command -v valgrind > /dev/null 2>&1 || ! command -v callgrind_annotate > /dev/null 2>&1; then
	skip "annotate against callgrind_annotate" "valgrind or callgrind_annotate not installed"
elif ! cc -O0 -g -static -o ann_plain "$ann_progs/ann_plain.c" 2> cc.err; then
	skip "annotate against callgrind_annotate" "no static libc to link with: $(head -3 cc.err)"
else
	valgrind --tool=callgrind --dump-instr=yes --show-below-main=yes --collect-systime=yes \
		--callgrind-out-file="$ann_dir/plain.cg" ./ann_plain > /dev/null 2> vg.err
	cg=$ann_dir/plain.cg
	ann_summary_is_sum "$cg"
	ann_same "annotate = callgrind_annotate: defaults" no "$cg"
	ann_same "annotate = callgrind_annotate: --inclusive=yes" no --inclusive=yes "$cg"
	ann_same "annotate = callgrind_annotate: --tree=both (ties sorted)" untie --tree=both "$cg"
	ann_same "annotate = callgrind_annotate: --tree=caller (ties sorted)" untie --tree=caller --auto=no "$cg"
	ann_same "annotate = callgrind_annotate: --inclusive=yes --tree=calling (ties sorted)" untie \
		--inclusive=yes --tree=calling "$cg"
	ann_same "annotate = callgrind_annotate: --threshold=100 --auto=no" no --threshold=100 --auto=no "$cg"
	ann_same "annotate = callgrind_annotate: --show/--sort" no --show=sysCount,Ir --sort=sysCount,Ir "$cg"
	ann_same "annotate = callgrind_annotate: per-event thresholds" no --sort=Ir:50,sysCount:90 "$cg"
	ann_same "annotate = callgrind_annotate: --context=2" no --context=2 "$cg"
	ann_same "annotate = callgrind_annotate: --show-percs=no" no --show-percs=no --threshold=100 "$cg"
	ann_same "annotate = callgrind_annotate: user-annotated source and --include" no \
		--include="$ann_progs" --auto=no "$cg" "$ann_progs/ann_plain.c"

	# Run from the sources' directory, the directory is stripped from every
	# name, callers' and callees' too (callgrind_annotate keeps it on cfi=
	# names), and the sources are still found.
	run sh -c "cd '$ann_progs' && '$ann_plumb' annotate --tree=both --inclusive=yes '$cg'"
	if printf '%s' "$out" | grep -q "$ann_progs/"; then
		fail "annotate: the cwd is stripped from every name" "$(printf '%s' "$out" | grep "$ann_progs/" | head -5)"
	elif printf '%s' "$out" | grep -q -- "-- Auto-annotated source: ann_plain.c" &&
		printf '%s' "$out" | grep -q "  < ann_plain.c:main (1x)"; then
		ok "annotate: the cwd is stripped from every name"
	else
		fail "annotate: the cwd is stripped from every name" "$(printf '%s' "$out" | head -40)"
	fi

	# plumb also takes "--opt value".
	run "$ann_plumb" annotate --threshold=100 --auto=no --tree=both "$cg"; a=$out
	run "$ann_plumb" annotate --threshold 100 --auto no --tree both "$cg"; b=$out
	same "annotate: --opt value = --opt=value" "$b" "$a"

	# Errors: usage (2) and bad input (1), with a message, never a crash.
	expect_err "annotate: unknown --show event" 2 "'Foo'" "$ann_plumb" annotate --show=Foo "$cg"
	expect_err "annotate: unknown --sort event" 2 "'Bar'" "$ann_plumb" annotate --sort=Ir,Bar "$cg"
	expect_err "annotate: threshold over 100" 2 "--threshold" "$ann_plumb" annotate --threshold=150 "$cg"
	expect_err "annotate: bad per-event threshold" 2 "threshold" "$ann_plumb" annotate --sort=Ir:x "$cg"
	expect_err "annotate: bad --tree" 2 "--tree" "$ann_plumb" annotate --tree=up "$cg"
	expect_err "annotate: bad --auto" 2 "--auto" "$ann_plumb" annotate --auto=maybe "$cg"
	expect_err "annotate: missing profile" 1 "nope.cg" "$ann_plumb" annotate nope.cg
	printf 'int x;\n' > lone.c
	expect_err "annotate: user source not found" 1 "missing.c" "$ann_plumb" annotate "$cg" lone.c missing.c
fi

# A source edited after profiling: newer than the profile and shorter than
# the lines with costs (warning blocks, "<bogus line N>", gap markers at the
# end of the file), byte for byte.
if [ -x ann_plain ]; then
	mkdir -p edited
	cp "$ann_progs/ann_plain.c" edited/ann_plain.c
	if cc -O0 -g -static -o edited/prog "$ann_dir/edited/ann_plain.c" 2> /dev/null; then
		(cd edited && valgrind --tool=callgrind --show-below-main=yes \
			--callgrind-out-file="$ann_dir/edited/cg.out" ./prog > /dev/null 2>&1)
		ann_summary_is_sum "$ann_dir/edited/cg.out"
		head -20 edited/ann_plain.c > edited/short.c && mv edited/short.c edited/ann_plain.c
		touch -d "@$(($(date +%s) + 60))" edited/ann_plain.c
		ann_same "annotate = callgrind_annotate: edited source (newer, lines past the end)" no \
			"$ann_dir/edited/cg.out"
		ann_same "annotate = callgrind_annotate: edited source, --context=1" no --context=1 \
			"$ann_dir/edited/cg.out"
		if grep -q "<bogus line" pl.txt && grep -q "is more recent than input file" pl.txt; then
			ok "annotate: the edited source shows bogus lines and the newer-source warning"
		else
			fail "annotate: edited source" "$(head -40 pl.txt)"
		fi
	fi
fi

# Two parts in one file (--combine-dumps, --dump-after): plumb sums them,
# the 100% is the sum of both parts' cost lines, and the later part's calls=0 lines
# are arcs, not self cost, so the self costs add up to the total exactly.
if [ -x ann_plain ]; then
	valgrind --tool=callgrind --combine-dumps=yes --dump-after=mix --show-below-main=yes \
		--callgrind-out-file="$ann_dir/parts.cg" ./ann_plain > /dev/null 2> vg.err
	run "$ann_plumb" annotate --threshold=100 --auto=no "$ann_dir/parts.cg"
	printf '%s\n' "$out" > parts_self.txt
	run "$ann_plumb" annotate --inclusive=yes --threshold=100 --auto=no "$ann_dir/parts.cg"
	printf '%s\n' "$out" > parts_incl.txt
	python3 - "$ann_dir/parts.cg" parts_self.txt parts_incl.txt > parts.check 2>&1 <<'EOF2'
import re, sys
cg, self_txt, incl_txt = (open(p).read() for p in sys.argv[1:4])
summaries = [int(x) for x in re.findall(r"^summary: (\d+)", cg, re.M)]
assert len(summaries) == 2 and "calls=0" in cg, "not a two-part file with calls=0"
total = int(re.search(r"^([\d,]+) \(100.0%\)  PROGRAM TOTALS", self_txt, re.M).group(1).replace(",", ""))
sums = [int(x) for x in re.findall(r"^totals: (\d+)", cg, re.M)]
assert len(sums) == 2 and total == sum(sums), "total %d, the parts' cost lines %s" % (total, sums)
table = self_txt.split("file:function", 1)[1]
rows = [int(x.replace(",", "")) for x in re.findall(r"^ *([\d,]+) \(", table, re.M)]
assert sum(rows) == total, "self costs add up to %d, total %d" % (sum(rows), total)
pcts = [float(x) for x in re.findall(r"\((\d+\.\d+)%\)  \S+:", incl_txt.split("file:function", 1)[1])]
assert max(pcts) <= 100.0, "inclusive over 100%%: %s" % max(pcts)
print("total %d = %d + %d" % (total, sums[0], sums[1]))
EOF2
	if [ $? -eq 0 ]; then ok "annotate: two parts summed, calls=0 is no self cost ($(cat parts.check))"; else fail "annotate: two parts" "$(cat parts.check)"; fi
fi

# Recursion and inlining: callgrind_annotate goes past 100% and splits the
# inlined code off as its own function; plumb must not.
if command -v valgrind > /dev/null 2>&1 && command -v callgrind_annotate > /dev/null 2>&1 &&
	cc -O1 -g -static -o ann_rec "$ann_progs/ann_rec.c" 2> /dev/null; then
	valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$ann_dir/rec.cg" ./ann_rec \
		> /dev/null 2> vg.err
	rec=$ann_dir/rec.cg
	run sh -c "cd / && callgrind_annotate --inclusive=yes --threshold=100 --auto=no '$rec'"; ca_incl=$out
	run sh -c "cd / && callgrind_annotate --threshold=100 --auto=no '$rec'"; ca_self=$out
	run sh -c "cd / && '$ann_plumb' annotate --inclusive=yes --tree=both --threshold=100 '$rec'"
	printf '%s\n' "$out" > pl_incl.txt
	printf '%s\n' "$ca_incl" > ca_incl.txt
	printf '%s\n' "$ca_self" > ca_self.txt
	python3 - pl_incl.txt ca_incl.txt > pct.txt 2>&1 <<'EOF'
import re, sys
def pcts(path):  # every percentage: table, trees, => lines, source lines
    return [float(m.group(1)) for m in re.finditer(r"\((\d+\.\d+)%\) ", open(path).read())]
pl, ca = pcts(sys.argv[1]), pcts(sys.argv[2])
print("plumb max %.1f, callgrind_annotate max %.1f" % (max(pl), max(ca)))
sys.exit(0 if max(pl) <= 100.0 and max(ca) > 100.0 else 1)
EOF
	if [ $? -eq 0 ]; then ok "annotate --inclusive --tree=both: recursion never over 100% ($(cat pct.txt))"; else fail "annotate --inclusive: recursion" "$(cat pct.txt)"; fi

	run sh -c "cd / && '$ann_plumb' annotate --threshold=100 '$rec'"
	printf '%s\n' "$out" > pl_self.txt
	python3 - pl_self.txt ca_self.txt "$ann_progs" > inl.txt 2>&1 <<'EOF'
import re, sys
pl, ca, progs = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
def self_of(text, key):
    m = re.search(r"^ *([\d,]+) \([ \d.]+%\)  " + re.escape(key) + r"( |$)", text, re.M)
    return int(m.group(1).replace(",", "")) if m else 0
rec_c, inl_h = progs + "/ann_rec.c:work", progs + "/ann_inl.h:work"
want = self_of(ca, rec_c) + self_of(ca, inl_h)
got = self_of(pl, rec_c)
table = pl.split("file:function", 1)[1].split("-- Auto-annotated", 1)[0]
assert self_of(ca, inl_h) > 0, "callgrind_annotate did not split the inlined code (test program?)"
assert "ann_inl.h:" not in table, "plumb lists inlined code as its own function"
assert got == want, "work: plumb %d, callgrind_annotate's two entries %d" % (got, want)
assert "-- Auto-annotated source: " + progs + "/ann_inl.h" in pl, "inlined file not annotated"
inl = pl.split("-- Auto-annotated source: " + progs + "/ann_inl.h", 1)[1].split("-- Auto-annotated", 1)[0]
assert re.search(r"\d \(\s*\d+\.\d\d%\)\s+\t\tr = r \* 3 \+ i;", inl), "no cost on the inlined line"
print("work self %d in one entry" % got)
EOF
	if [ $? -eq 0 ]; then ok "annotate: inlined code stays in its function ($(cat inl.txt))"; else fail "annotate: inlined code" "$(cat inl.txt)"; fi
	# fib'2 (Callgrind's second recursion level) is disassembled from fib's symbol.
	run sh -c "cd / && '$ann_plumb' annotate --disasm --auto=no '$rec'"
	py "annotate --disasm: a recursion level's code under its symbol" '
import re, sys
secs = sys.stdin.read().split("-- Disassembly: ")[1:]
sec = [x for x in secs if x.split("\n", 1)[0].endswith("ann_rec.c:fib\x272 [" + x.split("[", 1)[1].split("]", 1)[0] + "]")]
assert sec, "no fib\x272 section"
assert re.search(r"^ *[1-9][\d,]* \(.*  0x[0-9a-f]+:  ", sec[0], re.M), sec[0][:500]
'
else
	skip "annotate recursion and inlining" "valgrind, callgrind_annotate or a static libc missing"
fi

# --disasm on a position-independent executable: every instruction's cost
# line sums to the function's self cost, and capstone's text is objdump's.
if command -v valgrind > /dev/null 2>&1 && command -v objdump > /dev/null 2>&1 &&
	cc -O0 -g -fPIE -pie -o ann_pie "$ann_progs/ann_plain.c" 2> /dev/null; then
	valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$ann_dir/pie.cg" ./ann_pie \
		> /dev/null 2> vg.err
	run "$ann_plumb" annotate --disasm --auto=no "$ann_dir/pie.cg"
	printf '%s\n' "$out" > dis.txt
	objdump -d -M intel --no-show-raw-insn ann_pie > objdump.txt
	python3 - dis.txt objdump.txt "$ann_progs/ann_plain.c" > dis.check 2>&1 <<'EOF2'
import re, sys
text, objdump, src = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
def norm(s):
    s = re.sub(r"\s*<[^>]*>", "", s.split("#")[0]).lower()
    s = re.sub(r"0x[0-9a-f]+", lambda m: str(int(m.group(0), 16)), s)  # capstone: small immediates in decimal
    return re.sub(r"\s+", "", s)
ref = {}
for m in re.finditer(r"^\s+([0-9a-f]+):\t(.*)$", objdump, re.M):
    ref[int(m.group(1), 16)] = m.group(2)
table = text.split("file:function", 1)[1].split("-- Disassembly", 1)[0]
checked = 0
for fn in ("sum_squares", "square", "mix", "main"):
    m = re.search(r"^ *([\d,]+) \([ \d.]+%\)  " + re.escape(src + ":" + fn) + " ", table, re.M)
    assert m, "%s not in the table" % fn
    self_cost = int(m.group(1).replace(",", ""))
    sec = text.split("-- Disassembly: " + src + ":" + fn + " ", 1)[1].split("-- Disassembly", 1)[0]
    total = 0
    for c, addr, insn in re.findall(r"^ *([\d,]+|\.)(?: \([ \d.]+%\))?\s+0x([0-9a-f]+):  (.*)$", sec, re.M):
        total += 0 if c == "." else int(c.replace(",", ""))
        a = int(addr, 16)
        assert a in ref, "%s: no objdump instruction at 0x%x" % (fn, a)
        want = norm(ref[a])
        got = norm(insn)
        if re.match(r"(call|j)", want):  # branch targets print differently
            want, got = ref[a].split()[0], insn.split()[0]
        assert want == got, "%s 0x%x: capstone %r, objdump %r" % (fn, a, insn, ref[a])
        checked += 1
    assert total == self_cost, "%s: instructions sum to %d, self cost %d" % (fn, total, self_cost)
    assert re.search(r"ann_plain\.c:\d+:  ", sec), "%s: no source line interleaved" % fn
print("%d instructions" % checked)
EOF2
	if [ $? -eq 0 ]; then ok "annotate --disasm: costs sum to self, text matches objdump ($(cat dis.check))"; else fail "annotate --disasm" "$(cat dis.check)"; fi
	run "$ann_plumb" annotate --disasm --auto=no "$ann_dir/plain.cg"
	py "annotate --disasm: a static executable too" '
import re, sys
secs = sys.stdin.read().split("-- Disassembly: ")[1:]
sec = [x for x in secs if x.split("\n", 1)[0].find("ann_plain.c:square ") >= 0][0]
assert re.search(r"^ *[1-9][\d,]* \(.*  0x[0-9a-f]+:  imul ", sec, re.M), sec
'
else
	skip "annotate --disasm" "valgrind, objdump or a PIE toolchain missing"
fi
