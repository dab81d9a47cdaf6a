# pprof both ways, checked against Go's own tools: a CPU profile written by
# Go's runtime/pprof reads in plumb with the flat and cumulative shares that
# `go tool pprof -top` prints, and what plumb writes as pprof (from folded
# stacks, a recording, a pprof file, a Callgrind file) reads in
# `go tool pprof -top` with the shares plumb prints.
if ! command -v go >/dev/null 2>&1; then
	skip "pprof" "go not installed (Debian golang-go): no go tool pprof to check against"
	return 0 2>/dev/null || exit 0
fi
# offline, no modules, nothing outside this directory
export HOME="$PWD" GOCACHE="$PWD/gocache" GOPATH="$PWD/gopath" GO111MODULE=off GOFLAGS= \
	GOTOOLCHAIN=local GOTELEMETRY=off GOPROXY=off
P="$E2E_DIR/../programs"

# same_shares NAME PPROF_FILE PLUMB_INPUT [report options]: every function of
# `go tool pprof -top` has plumb's flat and cumulative share of the first
# event (within pprof's rounding: "100%" from 99.95 to 100.05, two decimals
# from 1%, two significant digits below), and plumb has no function with a
# cost that pprof lacks.
same_shares() {
	name=$1 pf=$2 pin=$3
	shift 3
	go tool pprof -top -nodefraction=0 -edgefraction=0 "$pf" > top.txt 2> top.err
	"$PLUMB" report --format csv "$@" "$pin" > plumb.csv 2> plumb.err
	if python3 - top.txt plumb.csv > cmp.txt 2>&1 <<'PY'
import csv, math, sys
def near(mine, shown):
    p = float(shown.rstrip("%"))
    if shown == "100%":
        return abs(mine - 100) <= 0.05
    if p == 0:
        return mine == 0
    tol = 0.005 if p >= 1 else 0.5 * 10 ** (math.floor(math.log10(p)) - 1)
    return abs(mine - p) <= tol * 1.001
top = open(sys.argv[1]).read().splitlines()
rows = list(csv.DictReader(open(sys.argv[2])))
ev = [k for k in rows[0] if k.startswith("exclusive.")][0][len("exclusive."):]
total = sum(int(r["exclusive." + ev]) for r in rows)
mine = {}
for r in rows:
    f = mine.setdefault(r["function"], [0, 0])
    f[0] += int(r["exclusive." + ev])
    f[1] += int(r["inclusive." + ev])
start = [i for i, l in enumerate(top) if l.split()[:2] == ["flat", "flat%"]][0]
seen = set()
for l in top[start + 1:]:
    t = l.split()
    if len(t) < 6:
        continue
    fn = " ".join(t[5:])
    for tag in (" (inline)", " (partial-inline)"):  # inlined at some sites, or all
        if fn.endswith(tag):
            fn = fn[:-len(tag)]
    assert fn in mine, ("pprof has", fn, "plumb does not")
    e, i = (100.0 * v / total for v in mine[fn])
    assert near(e, t[1]) and near(i, t[4]), (fn, "pprof", t[1], t[4], "plumb", e, i)
    seen.add(fn)
missing = [f for f, v in mine.items() if v[1] and f not in seen]
assert not missing, ("plumb has", missing, "pprof does not")
assert len(seen) >= 3, seen
print(len(seen), "functions")
PY
	then
		ok "$name"
	else
		fail "$name" "$(cat cmp.txt)" "pprof: $(head -12 top.txt) $(cat top.err)" "plumb: $(head -5 plumb.csv) $(cat plumb.err)"
	fi
}

# 1. A real Go CPU profile (hot burns about three times as long as cold).
if ! go build -o gocpu "$P/gocpu.go" > gobuild.err 2>&1; then
	fail "pprof_go_build" "$(cat gobuild.err)"
else
	./gocpu cpu.pprof 1500
	same_shares "Go CPU profile: plumb's shares are go tool pprof's" cpu.pprof cpu.pprof
	run "$PLUMB" report --format csv cpu.pprof
	py "Go CPU profile: events cpu (ns) first, hot above cold, main.main inclusive most" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert list(rows[0])[2] == "exclusive.cpu", list(rows[0])
by = {r["function"]: r for r in rows}
assert float(by["main.hot"]["percent.cpu"]) > float(by["main.cold"]["percent.cpu"]) > 5, by.keys()
total = sum(int(r["exclusive.cpu"]) for r in rows)
assert int(by["main.main"]["inclusive.cpu"]) >= 0.9 * total  # the rest: runtime threads
assert int(by["main.hot"]["exclusive.cpu"]) % 10000000 == 0  # 100 Hz: 10 ms a sample'
	# 2. pprof in, pprof out: the same shares again in go tool pprof
	run "$PLUMB" convert cpu.pprof -o again.pb.gz
	same_shares "pprof -> plumb -> pprof: go tool pprof shows plumb's shares" again.pb.gz cpu.pprof
	run go tool pprof -raw again.pb.gz
	expect_out "pprof -> pprof keeps the mapping (file and build id)" "$(go tool pprof -raw cpu.pprof 2>/dev/null | awk '/^Mappings/ { getline; print $NF; exit }')"
fi

# A Go heap profile: four sample types, go tool pprof's default (the last,
# inuse_space) is plumb's first event.
if go build -o goheap "$P/goheap.go" > gobuild.err 2>&1 && ./goheap heap.pprof; then
	run "$PLUMB" report --format csv heap.pprof
	py "Go heap profile: inuse_space first, then the others in the file's order" '
import csv, sys
cols = [k[len("exclusive."):] for k in csv.DictReader(sys.stdin).fieldnames if k.startswith("exclusive.")]
assert cols == ["inuse_space", "alloc_objects", "alloc_space", "inuse_objects"], cols'
	same_shares "Go heap profile: plumb's shares are go tool pprof's" heap.pprof heap.pprof
else
	fail "pprof_go_heap" "$(cat gobuild.err)"
fi

# 3. Folded stacks to pprof.
run "$PLUMB" convert "$DATA/fig21.folded" -o fig21.pb.gz
same_shares "folded -> pprof: go tool pprof shows plumb's shares" fig21.pb.gz "$DATA/fig21.folded"
# 3b. Many stacks sharing prefixes, locations with inlined frames, every
# sample a distinct stack (bench/gen_pprof.py, small): the reader expands only
# what a stack does not share with the one before it, in sorted order. What
# plumb writes of it is over a megabyte: gzip members of a megabyte each,
# compressed on two threads, which go tool pprof and plumb read as one.
python3 "$E2E_DIR/../../bench/gen_pprof.py" gen.pb.gz 15000 3000 7
same_shares "generated pprof (shared prefixes, inlined frames): plumb's shares are go tool pprof's" gen.pb.gz gen.pb.gz
"$PLUMB" convert gen.pb.gz -o gen2.pb.gz
members=$(python3 -c '
import sys, zlib
d, n = open(sys.argv[1], "rb").read(), 0
while d:
    z = zlib.decompressobj(31)
    z.decompress(d)
    d, n = z.unused_data, n + 1
print(n)' gen2.pb.gz)
same "a profile over a megabyte is written as several gzip members" "$([ "${members:-0}" -gt 1 ] && echo several)" several
same_shares "generated pprof -> plumb -> pprof: the same shares" gen2.pb.gz gen.pb.gz
"$PLUMB" report --format csv gen.pb.gz > gen.csv 2>&1
"$PLUMB" report --format csv gen2.pb.gz > gen2.csv 2>&1
same "plumb reads its several gzip members as one profile" "$(cmp gen.csv gen2.csv && wc -l < gen.csv)" "$(wc -l < gen.csv)"
run "$PLUMB" convert "$DATA/fig21.folded" --to pprof -o fig21.bin
same "--to pprof writes the same as a .pb.gz name" "$(cmp fig21.bin fig21.pb.gz && echo same)" same
"$PLUMB" convert "$DATA/fig21.folded" --to pprof -o - > fig21.stdout.pb.gz
same "--to pprof -o - writes it to standard output" "$(cmp fig21.stdout.pb.gz fig21.pb.gz && echo same)" same

# 4. A Callgrind call graph: self costs only, and a warning that says so.
run "$PLUMB" convert "$DATA/callgrind/spec_example.cg" -o cg.pb.gz
if [ "$rc" -eq 0 ] && printf '%s' "$err" | grep -q "call arcs are not written"; then
	ok "callgrind -> pprof warns that the call arcs are lost"
else
	fail "callgrind -> pprof warns that the call arcs are lost" "exit $rc" "$err"
fi
go tool pprof -top -nodefraction=0 cg.pb.gz > cgtop.txt 2>&1
"$PLUMB" report --format csv "$DATA/callgrind/spec_example.cg" > cg.csv
if python3 - cgtop.txt cg.csv <<'PY'
import csv, sys
top = open(sys.argv[1]).read().splitlines()
rows = list(csv.DictReader(open(sys.argv[2])))
ev = [k for k in rows[0] if k.startswith("exclusive.")][0]
total = sum(int(r[ev]) for r in rows)
start = [i for i, l in enumerate(top) if l.split()[:2] == ["flat", "flat%"]][0]
flat = {" ".join(l.split()[5:]): float(l.split()[1].rstrip("%")) for l in top[start + 1:] if len(l.split()) >= 6}
for r in rows:
    if int(r[ev]):  # shares from 1% up: two decimals
        assert abs(flat[r["function"]] - 100.0 * int(r[ev]) / total) <= 0.006, r
PY
then ok "callgrind -> pprof: exclusive shares kept"; else fail "callgrind -> pprof: exclusive shares kept" "$(cat cgtop.txt)"; fi

# 5. A recording: addresses, modules with build ids, inlined frames.
if command -v gcc >/dev/null 2>&1; then
	gcc -O2 -g "$P/rec_inline.c" -o inl
	if "$PLUMB" record -q -o inl.plumb ./inl 2> rec.err; then
		run "$PLUMB" convert inl.plumb -o inl.pb.gz
		same_shares "recording -> pprof: go tool pprof shows plumb's shares" inl.pb.gz inl.plumb
		run go tool pprof -raw inl.pb.gz
		py "recording -> pprof: inlined frames are lines of one location, with a build id" '
import sys, re
raw = sys.stdin.read()
locs = raw.split("Locations")[1].split("Mappings")[0]
assert re.search(r"inner_step .*\n\s+outer_step .*\n\s+hot ", locs), locs
maps = raw.split("Mappings")[1]
assert re.search(r"/inl [0-9a-f]{40}", maps), maps'
	else
		skip "pprof_record" "plumb record cannot sample here: $(head -1 rec.err)"
	fi
fi

# 6. Damaged files: the byte and what was expected, exit 1.
expect_err "a damaged pprof names the byte at fault" 1 "truncated.pb: byte 288: expected field 4 of Profile" \
	"$PLUMB" report "$DATA/pprof/bad/truncated.pb"
expect_err "a wrong wire type names the field" 1 "byte 8: expected field 7 (drop_frames) of Profile to be a varint" \
	"$PLUMB" report "$DATA/pprof/bad/wire_type.pb"
if command -v zstd >/dev/null 2>&1; then
	zstd -q "$DATA/pprof/go_cpu_raw.pb" -o cpu.pb.zst
	expect_err "a zstd-compressed pprof is refused with a reason" 1 "zstd-compressed pprof is not read" \
		"$PLUMB" report cpu.pb.zst
fi
