# gmon.out from real gcc -pg runs (PIE and not): plumb report's exclusive
# times and call counts against GNU gprof's flat profile, the estimate
# flag, --exe and its a.out default, BSD files, damaged files, and the
# GNU-format sum (plumb_gmon_write) read back by /usr/bin/gprof.
progs="$E2E_DIR/../programs"
top="$E2E_DIR/../.."
if ! command -v gcc > /dev/null 2>&1 || ! command -v gprof > /dev/null 2>&1; then
	skip "t_gmon" "needs gcc and gprof"
	return 0
fi

# flat PROG GMON: gprof's flat profile as "name self_seconds calls" lines.
flat() {
	gprof -b -p "$1" "$2" | awk 'NF >= 4 && $1 ~ /^[0-9.]+$/ {
		if (NF >= 7) print $7, $3, $4; else print $4, $3, 0 }' | sort
}

# plumb's report in the same shape (ns -> seconds with 2 decimals).
plumb_flat() {
	"$PLUMB" report --format csv --threshold 0 --cycles=no "$@" | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    t = int(r["exclusive.time"]) / 1e9
    print(r["function"], "%.2f" % t, r["calls"] or 0)' | sort
}

# Only the rows gprof prints with time or calls (plumb lists no others).
# gprof leaves the mcount family (the -pg runtime's own time) out of its
# flat profile; plumb report shows it, as the time it is: not compared.
busy() { awk '($2 != "0.00" || $3 != 0) && $1 !~ /^(_*mcount|__mcount_internal|__mcleanup|_mcleanup|__monstartup|monstartup|_monstartup)$/'; }

for kind in pie nopie static; do
	flags=""
	[ "$kind" = nopie ] && flags="-fno-PIE -no-pie"
	[ "$kind" = static ] && flags="-static"
	# shellcheck disable=SC2086
	if ! gcc -pg -g -O1 -fno-inline $flags -o "prog_$kind" "$progs/gm_main.c" "$progs/gm_second.c" 2> .cc; then
		fail "$kind: gcc -pg" "$(cat .cc)"
		continue
	fi
	"./prog_$kind" > /dev/null && mv gmon.out "gmon.$kind.1"
	"./prog_$kind" > /dev/null && mv gmon.out "gmon.$kind.2"

	want=$(flat "./prog_$kind" "gmon.$kind.1" | busy)
	got=$(plumb_flat --exe "./prog_$kind" "gmon.$kind.1" | busy)
	same "$kind: exclusive seconds and calls equal gprof's flat profile" "$got" "$want"
	case "$want" in *gm_static_burn*) ok "$kind: the static function has time" ;;
	*) fail "$kind: the static function has time" "$want" ;; esac
	if [ "$kind" = static ]; then
		# libc's thousand symbols are in: the rows above matched; the
		# checks below need debug lines of the program only
		continue
	fi

	# line level: plumb's lines against gprof -l's line symbols
	gprof -b -l -p "./prog_$kind" "gmon.$kind.1" > gprof-l.txt 2>&1
	run "$PLUMB" report --view lines --format csv --threshold 0 --exe "./prog_$kind" "gmon.$kind.1"
	py "$kind: self seconds per source line equal gprof -l's" '
import collections, csv, os, re, sys
want, rows = collections.defaultdict(float), collections.Counter()
for l in open("gprof-l.txt"):
    m = re.match(r"\s*[\d.]+\s+[\d.]+\s+([\d.]+)\s.*?(\S+) \((\S+):(\d+) @ [0-9a-f]+\)$", l)
    if m and float(m.group(1)) > 0:
        k = (m.group(2), m.group(3), int(m.group(4)))
        want[k] += float(m.group(1))
        rows[k] += 1
got = {}
for r in csv.DictReader(sys.stdin):
    t = int(r["exclusive.time"]) / 1e9
    if r["line"] and t >= 0.005:
        got[(r["function"], os.path.basename(r["file"]), int(r["line"]))] = t
assert want and set(got) == set(want), (sorted(got), sorted(want))
for k in want:
    assert abs(got[k] - want[k]) <= 0.006 * rows[k], (k, got[k], want[k])
'
	run "$PLUMB" report --format json --exe "./prog_$kind" "gmon.$kind.1"
	py "$kind: inclusive times are flagged as estimates" '
import json, sys
r = json.load(sys.stdin)
fs = {f["name"]: f for f in r["functions"]}
assert fs["gm_work"]["inclusive_estimated"] is True, fs["gm_work"]
assert r["events"][0]["name"] == "time" and r["events"][0]["unit"] == "ns", r["events"]
assert fs["gm_work"]["file"].endswith("gm_second.c"), fs["gm_work"]
'
	# the estimate is gprof's: self + children of each call-graph entry
	gprof -b -q "./prog_$kind" "gmon.$kind.1" > gprof-q.txt 2>&1
	run "$PLUMB" report --format csv --threshold 0 --exe "./prog_$kind" "gmon.$kind.1"
	py "$kind: estimated inclusive seconds equal gprof's self + children" '
import csv, re, sys
want = {}
for l in open("gprof-q.txt"):
    m = re.match(r"\[\d+\]\s+[\d.]+\s+([\d.]+)\s+([\d.]+)\s+(?:[\d+/]+\s+)?(\S+) \[\d+\]$", l)
    if m:
        want[m.group(3)] = float(m.group(1)) + float(m.group(2))
got = {r["function"]: int(r["inclusive.time"]) / 1e9 for r in csv.DictReader(sys.stdin)}
checked = [f for f in want if f in got and want[f] > 0]
assert len(checked) >= 3, (want, got)
for f in checked:
    assert abs(got[f] - want[f]) <= 0.021, (f, got[f], want[f])
'
	run "$PLUMB" report --exe "./prog_$kind" "gmon.$kind.1"
	expect_out "$kind: the report says whose estimate it is" "gprof's estimates"
done

# The sum writer: a small program on libplumb, built like the plumb binary.
build=$(dirname "$PLUMB")
if [ -f "$build/libplumb.a" ]; then
	san=""
	nm "$build/libplumb.a" 2> /dev/null | grep -q __asan_report && san="-fsanitize=address,undefined"
	# shellcheck disable=SC2046,SC2086
	if cc $san -I"$top/include" -o gm_sum "$progs/gm_sum.c" "$build/libplumb.a" \
		$(pkg-config --libs sqlite3 zlib libzstd capstone libelf libdw) -liberty -lm 2> .cc; then
		for kind in pie nopie; do
			[ -f "gmon.$kind.2" ] || continue
			./gm_sum "./prog_$kind" "gmon.$kind.sum" "gmon.$kind.1" "gmon.$kind.2" 2> .sumerr ||
				fail "$kind: gm_sum" "$(cat .sumerr)"
			gprof -b "./prog_$kind" "gmon.$kind.1" "gmon.$kind.2" > want.sum 2>&1
			gprof -b "./prog_$kind" "gmon.$kind.sum" > got.sum 2>&1
			same "$kind: gprof reads plumb's sum of two files as it reads the two" \
				"$(cat got.sum)" "$(cat want.sum)"
			want=$(flat "./prog_$kind" "gmon.$kind.sum" | busy)
			got=$(plumb_flat --exe "./prog_$kind" "gmon.$kind.1" "gmon.$kind.2" | busy)
			same "$kind: plumb report of two files equals gprof's flat profile of the sum" "$got" "$want"
		done
	else
		fail "building gm_sum on libplumb" "$(cat .cc)"
	fi
else
	skip "gmon sum" "no libplumb.a next to $PLUMB"
fi

# a.out next to the gmon file is the default executable
mkdir -p d && cp prog_pie d/a.out && cp gmon.pie.1 d/gmon.out
run "$PLUMB" report --format csv --threshold 0 d/gmon.out
same "the executable defaults to a.out beside gmon.out" "$rc" 0
expect_err "no a.out: the error says how to give the executable" 1 "give it with --exe FILE" \
	"$PLUMB" report gmon.pie.1
expect_err "--exe that is not ELF" 1 "not an ELF executable" \
	"$PLUMB" report --exe "$progs/gm_main.c" gmon.pie.1

# convert keeps the numbers
run "$PLUMB" convert --exe prog_pie gmon.pie.1 -o g.plumb
same "convert gmon.out -> .plumb" "$rc" 0
a=$(plumb_flat g.plumb)
b=$(plumb_flat --exe prog_pie gmon.pie.1)
same "the .plumb copy reports the same" "$a" "$b"
# ... and the same estimated inclusive times: the part says its arc costs
# are gprof's estimate, and the estimate is made again from the copy
a=$("$PLUMB" report --format csv --threshold 0 g.plumb)
b=$("$PLUMB" report --format csv --threshold 0 --exe prog_pie gmon.pie.1)
same "the .plumb copy reports the same estimated inclusive times" "$a" "$b"
run "$PLUMB" report --format json g.plumb
py "the .plumb copy's inclusive times are flagged as estimates" '
import json, sys
fs = {f["name"]: f for f in json.load(sys.stdin)["functions"]}
assert fs["gm_work"]["inclusive_estimated"] is True, fs["gm_work"]
assert fs["main"]["inclusive"][0] > fs["main"]["exclusive"][0], fs["main"]
'
run "$PLUMB" report g.plumb
expect_out "the .plumb copy's report says whose estimate it is" "gprof's estimates"

# gprof's estimates are not measurements: the Callgrind copy keeps each
# call's count with cost 0 and says so in its header
run "$PLUMB" convert --exe prog_pie gmon.pie.1 --to callgrind -o g.callgrind
same "convert gmon.out -> callgrind" "$rc" 0
out=$(cat g.callgrind)
py "the Callgrind copy's calls have their counts and cost 0, with the header note" '
import sys
lines = sys.stdin.read().split("\n")
assert "# calls with cost 0: the profile has their count but not their inclusive cost." in lines
calls = [(l, lines[i + 1]) for i, l in enumerate(lines) if l.startswith("calls=")]
assert len(calls) >= 3, calls
for c, cost in calls:
    assert int(c.split("=")[1].split()[0]) > 0, c
    assert all(v == "0" for v in cost.split()[1:]), (c, cost)
'

# Damaged and BSD files
printf 'gmon\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\007' > bad.gmon
expect_err "unknown tag: named with its byte offset" 1 "bad.gmon: byte 20: found bad tag 7" \
	"$PLUMB" report --exe prog_pie bad.gmon
head -c 30 gmon.pie.1 > cut.gmon
expect_err "truncated histogram: named with its byte offset" 1 \
	"cut.gmon: byte 29: truncated histogram record (starting at byte 20): expected high_pc (8 bytes), found 1 byte" \
	"$PLUMB" report --exe prog_pie cut.gmon
python3 - gmon.pie.1 bsd.gmon << 'PYEOF'
# Re-encode the GNU file as 4.4BSD: header, the same bins, untagged arcs.
import struct, sys
d = open(sys.argv[1], "rb").read()
pos, bins, arcs, lo = 20, b"", b"", None
while pos < len(d):
    tag = d[pos]; pos += 1
    if tag == 0:
        lo, hi, n, rate = struct.unpack_from("<QQII", d, pos); pos += 40
        bins = d[pos:pos + 2 * n]; pos += 2 * n
    else:
        f, s, c = struct.unpack_from("<QQI", d, pos); pos += 20
        arcs += struct.pack("<QQQ", f, s, c)
hdr = struct.pack("<QQII", lo, hi, 40 + len(bins), 0x51879) + struct.pack("<I12x", rate)
open(sys.argv[2], "wb").write(hdr + bins + arcs)
PYEOF
a=$(plumb_flat --exe prog_pie bsd.gmon)
b=$(plumb_flat --exe prog_pie gmon.pie.1)
same "a 4.4BSD file gives the same numbers as the GNU one" "$a" "$b"
expect_err "a BSD file is not read without --exe" 1 "unknown format" "$PLUMB" report bsd.gmon
expect_err "with --exe, a file of no format says it was tried as BSD" 1 \
	"random.txt: no known format, and not a BSD gmon.out either (tried because of --exe): byte 0: truncated BSD header record" \
	sh -c "printf 'abc' > random.txt && '$PLUMB' report --exe prog_pie random.txt"
run "$PLUMB" report --exe prog_nopie gmon.pie.1
case "$err" in
*"histogram 0x"*"lies outside the code of prog_nopie"*"call arcs have an address outside"*)
	ok "the wrong executable: warnings name both address ranges" ;;
*) fail "the wrong executable: warnings name both address ranges" "exit $rc" "stderr: $err" ;;
esac
