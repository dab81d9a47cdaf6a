# Callgrind reader on real files: small programs (tests/programs/cg_*.c)
# run under valgrind --tool=callgrind with jumps, instructions, cache
# simulation, system time, separate threads and several dumps. plumb's self
# cost per function and totals must equal callgrind_annotate's. Also:
# several files at once, an empty --separate-threads base file, gzip, zstd,
# CRLF, hand-written files, and (with room on disk) a file over 4 GiB.
progs="$E2E_DIR/../programs"
cgdata="$DATA/callgrind"
export PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0

# compare NAME FILE [ANNOTATE_INPUT]: plumb's report of FILE against
# callgrind_annotate's of ANNOTATE_INPUT (default FILE), per function name.
# callgrind_annotate keys functions by file:function (inlined code is a
# separate header:function row), so both sides are summed per name; its
# PROGRAM TOTALS is the last summary: line, so the totals compared are the
# sums of its rows (which --threshold=100 lists in full), and with "single",
# the file's totals: line.
cat > cmp.py <<'PY'
import json, re, sys
plumb = json.load(open(sys.argv[1]))
events = [e["name"] for e in plumb["events"] if not e.get("formula")]
nev = len(events)
mine = {}
for f in plumb["functions"]:
    v = mine.setdefault(f["name"], [0] * nev)
    for k in range(nev):
        v[k] += f["exclusive"][k]
num = r"([\d,]+|\.)(?: \([ \d.]+%\))?"
row = re.compile(r"^\s*" + r"\s+".join([num] * nev) + r"\s+(\S.*)$")
theirs, total = {}, None
for line in open(sys.argv[2]):
    m = row.match(line.rstrip("\n"))
    if not m:
        continue
    vals = [0 if x == "." else int(x.replace(",", "")) for x in m.groups()[:nev]]
    name = m.group(nev + 1)
    if name == "PROGRAM TOTALS":
        total = vals
        continue
    name = re.sub(r" \[[^\]]*\]$", "", name)
    name = name.split(":", 1)[1] if ":" in name else name
    v = theirs.setdefault(name, [0] * nev)
    for k in range(nev):
        v[k] += vals[k]
bad = [f"{n}: plumb {mine.get(n)} callgrind_annotate {theirs.get(n)}"
       for n in sorted(set(mine) | set(theirs))
       if mine.get(n, [0] * nev) != theirs.get(n, [0] * nev)]
rows = [sum(v[k] for v in theirs.values()) for k in range(nev)]
if plumb["totals"][:nev] != rows:
    bad.append(f"totals: plumb {plumb['totals'][:nev]} callgrind_annotate rows {rows}")
if len(sys.argv) > 3:  # the file's totals: line (its summary: may be larger)
    tl = [l.split()[1:] for l in open(sys.argv[3]) if l.startswith("totals:")]
    if len(tl) != 1 or [int(x) for x in tl[0]] + [0] * (nev - len(tl[0])) != plumb["totals"][:nev]:
        bad.append(f"totals: line {tl} != plumb {plumb['totals'][:nev]}")
if len(mine) < 5 or total is None:
    bad.append(f"only {len(mine)} functions, totals {total}: nothing was compared")
print("\n".join(bad[:15]))
sys.exit(1 if bad else 0)
PY

# callgrind_annotate counts the cost line after calls=0 as self cost (see
# docs/callgrind.md); the file it reads has those two lines removed.
no_calls0() {
	awk '/^calls=0 /{skip=1; next} skip{skip=0; next} {print}' "$1"
}

compare() {
	name=$1 file=$2 ann=${3:-$2}
	run "$PLUMB" report --no-cycles --threshold 0 --format json "$file"
	if [ "$rc" -ne 0 ]; then
		fail "$name" "plumb exit $rc: $err"
		return
	fi
	printf '%s' "$out" > plumb.json
	no_calls0 "$ann" > ann.in
	(cd / && callgrind_annotate --threshold=100 --inclusive=no --auto=no "$OLDPWD/ann.in") > ann.txt 2> ann.err
	if ! r=$(python3 cmp.py plumb.json ann.txt ${4:+"$file"}); then
		fail "$name" "$r"
	else
		ok "$name"
	fi
}

if ! command -v valgrind > /dev/null || ! command -v callgrind_annotate > /dev/null || ! command -v cc > /dev/null; then
	skip "callgrind real files" "valgrind, callgrind_annotate or cc missing"
else
	cc -O2 -g -DCG_DUMP -I"$progs" "$progs/cg_main.c" "$progs/cg_util.c" -o cg_main &&
		cc -O2 -g -pthread "$progs/cg_threads.c" -o cg_threads ||
		fail "compile the test programs"
	vg() { valgrind --tool=callgrind "$@" > vg.log 2>&1 || fail "valgrind $*" "$(tail -5 vg.log)"; }

	# Two dumps (CALLGRIND_DUMP_STATS): cg.out.1 is part 1, cg.out part 2
	# with calls=0 lines; instructions, jumps, cache simulation, system time.
	vg --dump-instr=yes --collect-jumps=yes --cache-sim=yes --collect-systime=yes \
		--callgrind-out-file=cg.out ./cg_main 12
	compare "instr+jumps+cache+systime: dump 1 equals callgrind_annotate" cg.out.1 cg.out.1 single
	compare "second dump (calls=0) equals callgrind_annotate" cg.out cg.out single
	run "$PLUMB" report --format json cg.out.1 cg.out
	py "recursion, mutual recursion, inlined code and a call across files are there" '
import json, sys
r = json.load(sys.stdin)
names = {f["name"] for f in r["functions"]}
for n in ("fib", "fib'"'"'2", "is_even", "is_odd'"'"'2", "work", "cg_scale", "main"):
    assert n in names, n
assert [e["name"] for e in r["events"]][:3] == ["Ir", "Dr", "Dw"] and r["events"][-1]["name"] == "sysTime"
w = [f for f in r["functions"] if f["name"] == "work"][0]
assert any(c["name"] == "cg_scale" for c in w["callees"]), w["callees"]'

	# Inlined code (cg_util.h, -O2) stays in work, at the header's lines:
	# their sum is callgrind_annotate's separate cg_util.h:work entry.
	run "$PLUMB" report --view lines --format csv --threshold 0 cg.out
	printf '%s\n' "$out" > lines.csv
	no_calls0 cg.out > ann.in
	(cd / && callgrind_annotate --threshold=100 --inclusive=no --auto=no "$OLDPWD/ann.in") > ann.txt 2> ann.err
	r=$(python3 - lines.csv ann.txt <<'PY'
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[0]
ex, fn, fl = h.index("exclusive.Ir"), h.index("function"), h.index("file")
mine = sum(int(r[ex]) for r in rows[1:] if r[fn] == "work" and r[fl].endswith("cg_util.h"))
theirs = [int(l.split()[0].replace(",", "")) for l in open(sys.argv[2]) if re.search(r"cg_util\.h:work$", l.rstrip())]
print(mine, theirs)
sys.exit(0 if theirs and mine == sum(theirs) and mine > 0 else 1)
PY
) && ok "inlined lines of work in cg_util.h equal callgrind_annotate's cg_util.h:work ($r)" ||
		fail "inlined lines of work in cg_util.h equal callgrind_annotate's cg_util.h:work" "$r"

	# Several files at once: parts side by side, totals summed.
	run "$PLUMB" report --format json cg.out; t2=$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"][0])')
	run "$PLUMB" report --format json cg.out.1; t1=$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"][0])')
	run "$PLUMB" report --format json cg.out cg.out.1
	same "two dump files: totals add up" "$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"][0])')" "$((t1 + t2))"
	run "$PLUMB" report --view parts --format csv cg.out.1 cg.out
	same "two dump files: two parts" "$(printf '%s\n' "$out" | tail -n +2 | wc -l)" 2

	# One file per thread; the base file is left empty.
	vg --separate-threads=yes --dump-instr=yes --callgrind-out-file=th.out ./cg_threads
	for t in th.out-01 th.out-02 th.out-03; do
		compare "thread file $t equals callgrind_annotate" $t $t single
	done
	run "$PLUMB" report --format json th.out
	sum=0
	for t in th.out-01 th.out-02 th.out-03; do
		sum=$((sum + $(grep '^totals:' $t | cut -d' ' -f2)))
	done
	same "empty base file reads its thread files" "$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"][0])')" "$sum"
	case "$err" in
	*"th.out is empty"*"3 part files"*"th.out-01, th.out-02 and th.out-03"*) ok "empty base file: warning names every part file" ;;
	*) fail "empty base file: warning names every part file" "stderr: $err" ;;
	esac
	# Only Callgrind's own names (-NN, .N, .N-NN) are parts: a converted copy
	# beside them is not read a second time.
	"$PLUMB" convert th.out-01 --to callgrind -o th.out-01.rt
	cp th.out-02 th.out-02~
	run "$PLUMB" report --format json th.out
	same "empty base file: th.out-01.rt and th.out-02~ are not parts" "$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"][0])')" "$sum"
	case "$err" in
	*".rt"*|*"~"*) fail "empty base file: the warning lists no foreign file" "stderr: $err" ;;
	*) ok "empty base file: the warning lists no foreign file" ;;
	esac
	run "$PLUMB" report --view parts --format csv th.out-01 th.out-02 th.out-03
	same "thread files: three thread parts" "$(printf '%s\n' "$out" | tail -n +2 | wc -l)" 3

	# Many dumps in one file (parts), and threads combined in one file.
	vg --dump-every-bb=30000 --combine-dumps=yes --dump-instr=yes --callgrind-out-file=ev.out ./cg_main 10
	compare "dump-every-bb, combined parts: sums equal callgrind_annotate's" ev.out
	parts=$(grep -c '^part:' ev.out)
	run "$PLUMB" report --view parts --format csv ev.out
	same "combined dumps: one part each" "$(printf '%s\n' "$out" | tail -n +2 | wc -l)" "$parts"
	vg --separate-threads=yes --combine-dumps=yes --callgrind-out-file=thc.out ./cg_threads
	compare "threads combined in one file: sums equal callgrind_annotate's" thc.out

	# Compressed and CRLF copies read the same.
	run "$PLUMB" report --format csv cg.out.1; plain=$out
	gzip -c cg.out.1 > cg.gz
	run "$PLUMB" report --format csv cg.gz
	same "gzip input reads the same" "$out" "$plain"
	if command -v zstd > /dev/null; then
		zstd -q -c cg.out.1 > cg.zst
		run "$PLUMB" report --format csv cg.zst
		same "zstd input reads the same" "$out" "$plain"
	else
		skip "zstd input" "zstd missing"
	fi
	sed 's/$/\r/' cg.out.1 > cg.crlf
	run "$PLUMB" report --format csv cg.crlf
	same "CRLF input reads the same" "$out" "$plain"
	run "$PLUMB" info cg.gz
	same "info on a gzip Callgrind file" "$rc" 0
fi

# Hand-written files: the report's totals and a warning summary.
run "$PLUMB" report --format json "$cgdata/spec_example.cg"
py "spec example: totals and inclusive of main" '
import json, sys
r = json.load(sys.stdin)
assert r["totals"] == [820], r["totals"]
f = {x["name"]: x for x in r["functions"]}
assert f["main"]["exclusive"] == [20] and f["main"]["inclusive"] == [820], f["main"]'
expect_err "unknown lines: summarised warning" 0 "unknown.cg: 2 more unknown lines ignored" "$PLUMB" report "$cgdata/unknown.cg"
expect_err "bad input names file and line" 1 "too_many_costs.cg:5: expected at most 2 costs" "$PLUMB" report "$cgdata/bad/too_many_costs.cg"
gzip -c "$cgdata/bad/bad_number.cg" > bad.gz
expect_err "bad input in a gzip file names its line" 1 "bad.gz:5: expected a cost" "$PLUMB" report bad.gz
printf 'main;foo 3\n' | gzip -c > folded.gz
expect_err "compressed folded stacks are refused" 1 "compressed folded input is not supported" "$PLUMB" report folded.gz

# Over 4 GiB: offsets and line numbers must not wrap. Only with room to
# spare, and not under the sanitizers (too slow).
free_kb=$(df -Pk . | awk 'NR == 2 {print $4}')
case "$PLUMB" in
*build-san*) skip "file over 4 GiB" "sanitizer build" ;;
*)
	if [ "${free_kb:-0}" -gt 10485760 ]; then
		pad=$(printf '%01000d' 0 | tr 0 '#')
		{
			printf '# callgrind format\nevents: Ir\nfl=a.c\nfn=first\n1 5\n'
			yes "$pad" | head -c 4294967296
			printf '\nfn=last\n2 7\ntotals: 12\n'
		} > big.cg
		run "$PLUMB" report --format json big.cg
		py "file over 4 GiB: the function after 4 GiB is read" '
import json, sys
r = json.load(sys.stdin)
f = {x["name"]: x["exclusive"] for x in r["functions"]}
assert f == {"first": [5], "last": [7]} and r["totals"] == [12], (f, r["totals"])'
		case "$err" in *warning*) fail "file over 4 GiB: no warning" "$err" ;; *) ok "file over 4 GiB: no warning" ;; esac
		rm -f big.cg
	else
		skip "file over 4 GiB" "less than 10 GB free"
	fi
	;;
esac
