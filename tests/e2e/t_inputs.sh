# Input-sensitive profiles of programs built with `plumb cc`
# (tests/programs/inp_*.c): exact read memory sizes, exact call counts, real
# sums, growth classes, threads as parts, longjmp, a crash, the aprof
# reports of PLUMB_APROF_DIR, plumb record, and CC="plumb cc" make.
T="$E2E_DIR/../programs"

if ! command -v cc > /dev/null 2>&1; then
	skip "plumb cc" "no cc on PATH"
	return 0 2> /dev/null || exit 0
fi

# aprof_points FILE ROUTINE: "rms min max sum sqr calls real self ..." lines
# of the routine's p or q lines.
aprof_points() {
	awk -v name="\"$2\"" '$1 == "r" { cur = ($2 == name) } ($1 == "p" || $1 == "q") && cur { $1 = ""; $2 = ""; print substr($0, 3) }' "$1"
}

expect_status "plumb cc builds the kernels" 0 "$PLUMB" cc -O2 -g "$T/inp_kernels.c" -o kernels
if [ "$rc" -ne 0 ]; then
	return 0 2> /dev/null || exit 0
fi
run sh -c 'ldd ./kernels; nm ./kernels'
case "$out" in
*libtsan*) fail "no libtsan in the program" "$out" ;;
*__tsan_func_entry*) ok "no libtsan in the program: plumb's runtime has the hooks" ;;
*) fail "no libtsan in the program: plumb's runtime has the hooks" "$out" ;;
esac

# Run alone: normal output, nothing written.
run ./kernels 5
plain=$out
same "an instrumented program run alone prints what it would" "$plain" "$(cc -O2 -o plain "$T/inp_kernels.c" && ./plain 5)"
same "an instrumented program run alone writes nothing" "$(ls | grep -c aprof)" "0"

mkdir rep
run env PLUMB_APROF_DIR=rep ./kernels
f=$(ls rep/kernels_*_0_4.aprof 2> /dev/null)
if [ -n "$f" ] && [ "$(ls rep | wc -l)" -eq 1 ]; then ok "PLUMB_APROF_DIR: one aprof-named report per thread"; else fail "PLUMB_APROF_DIR: one aprof-named report per thread" "$(ls rep)"; fi

aprof_points "$f" sum > sum.pts
aprof_points "$f" isort > isort.pts
aprof_points "$f" msort > msort.pts
out=$(cat sum.pts isort.pts)
py "sum and insertion sort have rms n for every n (20, 40, ..., 400), once each" '
import sys
pts = [l.split() for l in sys.stdin.read().splitlines()]
for name, rows in (("sum", pts[:20]), ("isort", pts[20:])):
    assert [int(r[0]) for r in rows] == list(range(20, 401, 20)), (name, [r[0] for r in rows])
    assert all(int(r[5]) == 1 for r in rows), (name, rows)
assert len(pts) == 40, len(pts)
'
out=$(cat msort.pts)
py "merge sort: rms n at the top of each sort, 2n-1 activations per sort, exactly" '
import sys
from collections import defaultdict
calls = defaultdict(int)
for l in sys.stdin.read().splitlines():
    t = l.split()
    calls[int(t[0])] += int(t[5])
assert sum(calls.values()) == sum(2 * n - 1 for n in range(20, 401, 20)), sum(calls.values())
for n in range(20, 401, 20):
    assert calls[n] >= 1, (n, dict(calls))
'
out=$(printf 'msort %s\nsum %s\n' "$(awk '{s+=$4; r+=$7} END {printf "%d %d", s, r}' msort.pts)" "$(awk '{s+=$4; r+=$7} END {printf "%d %d", s, r}' sum.pts)")
py "real sums: below the sum for the recursive sort, equal for the plain routine" '
import sys
v = {l.split()[0]: list(map(int, l.split()[1:])) for l in sys.stdin.read().splitlines()}
assert 0 < v["msort"][1] < v["msort"][0], v
assert v["sum"][1] == v["sum"][0] > 0, v
'

# The same run with a 32-bit clock that overflows every 100 calls: the
# renumbering keeps every input size.
mkdir rep2
run env PLUMB_APROF_DIR=rep2 PLUMB_APROF_CLOCK_MAX=100 ./kernels
same "clock overflow renumbering keeps the points" "$(grep -E '^[pqx]' rep2/*.aprof)" "$(grep -E '^[pqx]' "$f")"

run "$PLUMB" report --view inputs --format csv "$f"
py "growth classes: sum n, insertion sort n^2, merge sort n log n" '
import csv, sys
g = {r["routine"]: r["growth"] for r in csv.DictReader(sys.stdin)}
assert g["sum"] == "n", g
assert g["isort"] in ("n^2",), g
assert g["msort"] == "n log n", g
'

# --memres 8: sizes in 8-byte cells.
mkdir rep8
run env PLUMB_APROF_DIR=rep8 PLUMB_APROF_MEMRES=8 ./kernels 2
out=$(aprof_points rep8/kernels_*_0_8.aprof sum | cut -d' ' -f1 | tr '\n' ' ')
same "--memres 8: a sum of n ints reads n/2 cells" "$out" "10 20 "

# plumb record: says what it does, every view works.
run "$PLUMB" record -o k.plumb ./kernels 5
expect_out "plumb record runs the program" "$plain"
case "$err" in
*"built with plumb cc"*) ok "plumb record says the program is instrumented" ;;
*) fail "plumb record says the program is instrumented" "$err" ;;
esac
run "$PLUMB" report --view tree --format csv k.plumb
py "plumb record: the tree has exact calls (sum 5, msort 2n-1 per sort)" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
calls = {}
for r in rows:
    name = r.get("function") or r.get("name") or r.get("routine")
    calls[name] = calls.get(name, 0) + int(r["calls"])
assert calls["sum"] == 5, calls
assert calls["msort"] == sum(2 * n - 1 for n in range(20, 101, 20)), calls
'
run "$PLUMB" report --view flat k.plumb
expect_out "plumb record: the flat view names the routines" "isort"
run "$PLUMB" record --contexts=no -o nc.plumb ./kernels 5
run "$PLUMB" report --view points --format csv nc.plumb
py "--contexts=no: routine points only" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert rows and all(r["context"] == "" for r in rows), rows[:3]
assert sorted(int(r["input"]) for r in rows if r["routine"] == "sum") == [20, 40, 60, 80, 100]
'

# Threads: a report each, a part each.
expect_status "plumb cc -pthread" 0 "$PLUMB" cc -O2 -pthread "$T/inp_threads.c" -o threads
mkdir rept
run env PLUMB_APROF_DIR=rept ./threads
out=$(for r in rept/*.aprof; do aprof_points "$r" sum | cut -d' ' -f1; done | sort -n | tr '\n' ' ')
same "threads apart: each thread's sum has its own rms" "$out" "7 100 200 "
run "$PLUMB" record -o t.plumb ./threads
run "$PLUMB" info t.plumb
expect_out "threads are parts of the recorded profile" "Parts:     3"
# Run alone, each thread caches the leaves it touches as idle ones (no
# runtime call per access): the output is the plain program's.
run ./threads
alone=$out
cc -O2 -pthread -o threads_plain "$T/inp_threads.c"
same "threads run alone print what the plain program does" "$alone" "$(./threads_plain)"
same "threads run alone write nothing" "$(ls | grep -c aprof)" "0"

# longjmp out of a recursion; a crash still leaves the report.
expect_status "plumb cc builds the longjmp program" 0 "$PLUMB" cc -O2 "$T/inp_jump.c" -o jump
mkdir repj
run env PLUMB_APROF_DIR=repj ./jump crash
fj=$(ls repj/*.aprof 2> /dev/null)
same "a crash (SIGSEGV) leaves the report; the program still dies of it" "$rc $(echo "$fj" | wc -w)" "139 1"
out=$(grep -E '^[rx]' "$fj")
py "longjmp: the left frames are closed, sum is called by main" '
import sys
names, parent, routine = {}, {}, {}
for l in sys.stdin.read().splitlines():
    t = l.split()
    if t[0] == "r":
        names[t[-1]] = l.split("\"")[1]
    else:
        routine[t[2]] = names[t[1]]
        parent[t[2]] = t[3]
sums = [c for c, r in routine.items() if r == "sum"]
assert len(sums) == 1 and routine[parent[sums[0]]] == "main", (routine, parent)
assert sum(1 for r in routine.values() if r == "deep") == 6, routine
'
out=$(aprof_points "$fj" sum | cut -d' ' -f1,6 | tr '\n' ' ')
same "longjmp: sum's points after the jump" "$out" "10 1 30 1 "

# CC="plumb cc" make: separate compile and link steps.
mkdir mk
cp "$T/inp_kernels.c" mk/
printf 'kernels: inp_kernels.o\n\t$(CC) -o $@ inp_kernels.o\ninp_kernels.o: inp_kernels.c\n\t$(CC) -O2 -c inp_kernels.c\n' > mk/Makefile
run make -C mk CC="$PLUMB cc"
run "$PLUMB" record -o mk.plumb ./mk/kernels 3
case "$err" in
*"built with plumb cc"*) ok "CC=\"plumb cc\" make builds an instrumented program" ;;
*) fail "CC=\"plumb cc\" make builds an instrumented program" "$err" ;;
esac

expect_status "plumb cc --help" 0 "$PLUMB" cc --help
expect_out "plumb cc --help has usage" "usage: plumb cc"
expect_err "plumb cc --cc with a missing compiler" 127 "cannot run" "$PLUMB" cc --cc=no-such-compiler-xyz -c x.c
expect_err "--memres is for plumb cc programs" 2 "plumb cc" "$PLUMB" record --memres 8 true

# The wrapped libc calls: strlen, memset, memcpy, memcmp (inp_libc.c).
expect_status "plumb cc builds the libc program" 0 "$PLUMB" cc -O2 "$T/inp_libc.c" -o libc
mkdir repl
run env PLUMB_APROF_DIR=repl ./libc
fl=$(ls repl/*.aprof)
out=$(for r in length zero_then_sum copy same main; do printf '%s=%s ' $r "$(aprof_points "$fl" $r | cut -d' ' -f1)"; done)
same "libc calls are seen: strlen, memset first, memcpy, memcmp, and main's own memset" "$out" \
	"length=25 zero_then_sum=0 copy=40 same=60 main=40 "
