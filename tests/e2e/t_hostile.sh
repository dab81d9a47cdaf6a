# Hostile inputs through every command (issue 14): tests/hostile/hostile.py
# runs the truncations and header byte changes of one small valid file per
# format, and the hand-made cases of tests/hostile/*.case, through report
# (several views and formats), info, annotate, convert (every writer), diff
# and gprof: status 0, or 1 with a message; never a signal, a sanitizer
# report, a hang or more than the memory bound. The sanitizer build of
# make check is the one that finds things.
hostile="$E2E_DIR/../hostile"
progs="$E2E_DIR/../programs"
mkdir -p seeds
cp "$hostile"/*.case seeds/
cp "$DATA/folded/simple.folded" seeds/small.folded
cp "$DATA/callgrind/spec_example.cg" seeds/small.callgrind
cp "$DATA/aprof/v5.aprof" seeds/small.aprof
cp "$DATA/pprof/go_cpu_raw.pb" seeds/small.pprof
"$PLUMB" convert "$DATA/callgrind/spec_example.cg" -o seeds/small.plumb 2> .cvt ||
	fail "hostile: the .plumb seed" "$(cat .cvt)"
if gcc -pg -g -O1 -fno-inline -o seeds/gmon.exe "$progs/gm_main.c" "$progs/gm_second.c" 2> .cc; then
	(cd seeds && ./gmon.exe > /dev/null && mv gmon.out small.gmon)
else
	skip hostile_gmon "gcc -pg failed: $(head -3 .cc)"
fi

# a .plumb whose event name is a blob with a NUL byte
python3 - seeds/small.plumb seeds/blob_event_plumb.case <<'PY'
import shutil, sqlite3, sys
shutil.copy(sys.argv[1], sys.argv[2])
db = sqlite3.connect(sys.argv[2])
db.execute("UPDATE strings SET text = x'0001' WHERE id = (SELECT name FROM events WHERE id = 0)")
db.commit()
PY
# a Callgrind header, then a line longer than the line limit (16 MiB)
{ printf 'events: Ir\nfn=main\n'; head -c 17000000 /dev/zero | tr '\0' 7; } > seeds/long_line_callgrind.case

# the memory bound: ASan's shadow and quarantine take their share
bound=256
case "$PLUMB" in *-san/*) bound=512 ;; esac
run python3 "$hostile/hostile.py" --max-rss "$bound" "$PLUMB" seeds .
if [ "$rc" -eq 0 ]; then
	printf '%s\n' "$out" | grep '^ok '
else
	fail "hostile inputs (exit $rc)" "$out" "$err"
fi

# the messages of issue 14, item 8: each names the file and, in a text
# format, the line
expect_err "folded: a negative count is named with its line" 1 \
	"negative_count_folded.case:2: expected a sample count of 0 or more" \
	"$PLUMB" report seeds/negative_count_folded.case
expect_err "folded: a NUL byte is named with its line" 1 \
	"nul_byte_folded.case:2: expected text, got a NUL byte" \
	"$PLUMB" report seeds/nul_byte_folded.case
expect_err "folded: a negative count on the first line" 1 "neg1.folded:1: expected a sample count" \
	sh -c "printf 'a;b -5\n' > neg1.folded; \"$PLUMB\" info neg1.folded"
printf 'events: Ir\000\nfn=main\n0 1\n' > nul_header.cg
expect_err "callgrind: a NUL byte in the header is named with its offset" 1 \
	"nul_header.cg: byte offset 10: a NUL byte" "$PLUMB" report nul_header.cg
{ head -c 60 "$DATA/aprof/v5.aprof"; printf '\000\n'; } > nul.aprof
expect_err "aprof: a NUL byte is named with its offset" 1 \
	"nul.aprof: byte offset 60: a NUL byte" "$PLUMB" info nul.aprof
expect_err ".plumb: a blob event name is bad input (status 1), named" 1 \
	"blob_event_plumb.case: table events, row 0" \
	"$PLUMB" report seeds/blob_event_plumb.case
expect_err "folded: cost overflow names the file" 1 "cost_overflow_folded.case: the costs add up" \
	"$PLUMB" convert seeds/cost_overflow_folded.case -o x.plumb
expect_err "a line past the limit names its offset" 1 "long_line_callgrind.case: byte offset" \
	"$PLUMB" info seeds/long_line_callgrind.case
expect_err "/dev/zero: unknown format" 1 "/dev/zero: unknown format" "$PLUMB" info /dev/zero
# a call graph whose costs are all zero: the trees have nothing to sort
# (qsort_r was given a null pointer: UBSan in the sanitizer build)
for v in tree bottom-up; do
	expect_status "callgrind, costs all zero: --view $v" 0 "$PLUMB" report --view $v seeds/zero_costs_callgrind.case
done

# a gzip bomb in pprof's clothes: a real profile, then an unknown field of
# 100 MB of zeros (100 KB gzip-compressed). The message is decoded in
# memory: refused past 64 MiB and 100 times the file, not taken whole.
python3 - "$DATA/pprof/go_cpu_raw.pb" bomb.pb.gz <<'PY'
import sys, zlib
def varint(v):
    out = b""
    while True:
        b, v = v & 0x7f, v >> 7
        if not v:
            return out + bytes([b])
        out += bytes([b | 0x80])
n = 100 << 20
co = zlib.compressobj(9, zlib.DEFLATED, 31)
with open(sys.argv[2], "wb") as f:
    f.write(co.compress(open(sys.argv[1], "rb").read() + varint(100 << 3 | 2) + varint(n)))
    zero = bytes(1 << 20)
    for _ in range(100):
        f.write(co.compress(zero))
    f.write(co.flush())
PY
expect_err "pprof: a gzip bomb is refused, not decoded" 1 "bomb.pb.gz: the gzip data expands more than 100 times" \
	"$PLUMB" info bomb.pb.gz
