# plumb record --heap: a program with known allocations compiled here
# (tests/programs/heap_known.c): every site's counts, bytes, peak bytes,
# leaks and temporaries exactly; threads and a forked child; the sampled
# mode within 10% on big sites (a fixed seed); the heap view; Go's sample
# types in pprof; a static binary refused with the reason.
if ! command -v gcc >/dev/null 2>&1; then
	skip "heap" "gcc not installed"
	return 0 2>/dev/null || exit 0
fi
progs="$E2E_DIR/../programs"
gcc -O2 -g -fomit-frame-pointer -pthread "$progs/heap_known.c" -o heap_known || fail "compile heap_known.c"

# sites FILE: "function event value" for the program's own functions, with
# inclusive costs (a site's exclusive cost is on the allocator it called).
sites() {
	"$PLUMB" report --format csv -t 0 "$1" | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    for k, v in r.items():
        if k.startswith("inclusive.") and v not in ("", "0"):
            print(r["function"], k[10:], v)'
}

expect_status "exact: record exits 0" 0 "$PLUMB" record --heap -o exact.plumb ./heap_known
run sites exact.plumb
py "exact: every site's allocs, bytes, peak, leaks, temporaries" '
import sys
got = {}
for l in sys.stdin:
    f, e, v = l.split()
    got[(f, e)] = int(v)
want = {
    "site_temp": dict(allocs=100000, **{"alloc-bytes": 4800000, "temp-allocs": 100000}),
    # the last block is freed before its thread allocates again: a temporary
    "site_peak": dict(allocs=20000, **{"alloc-bytes": 20000000, "peak-bytes": 20000000, "temp-allocs": 1}),
    "site_leak": dict(allocs=10, leaks=10, **{"alloc-bytes": 40960, "leak-bytes": 40960}),
    # malloc(16), then 16 reallocs: each frees the block before (a temporary)
    "site_realloc": dict(allocs=17, **{"alloc-bytes": 2097136, "temp-allocs": 17}),
    # the reallocarray block is the last one and is freed before another allocation
    "site_aligned": dict(allocs=5, leaks=1, **{"alloc-bytes": 2192, "leak-bytes": 1024, "temp-allocs": 1}),
    "site_mmap": dict(allocs=2, leaks=1, **{"alloc-bytes": 9437184, "mmap-bytes": 9437184, "leak-bytes": 8388608}),
    # the thread ends after its last allocation: main frees that one before
    # the thread ever allocates again
    "thread_work": dict(allocs=1000, **{"alloc-bytes": 100000, "temp-allocs": 1}),
    # the child is a process of its own: its peak is its 5 blocks
    "child_leak": dict(allocs=5, leaks=5, **{"alloc-bytes": 3885, "leak-bytes": 3885, "peak-bytes": 3885}),
}
events = ["allocs", "alloc-bytes", "peak-bytes", "leaks", "leak-bytes", "temp-allocs", "mmap-bytes"]
bad = []
for f, w in want.items():
    for e in events:
        if got.get((f, e), 0) != w.get(e, 0):
            bad.append("%s %s: got %s, expected %s" % (f, e, got.get((f, e), 0), w.get(e, 0)))
assert not bad, "\n".join(bad)'

run "$PLUMB" report --format json --view parts -m allocs exact.plumb
py "exact: the thread and the forked child are parts of their own" '
import json, sys
rows = [r["cells"] for r in json.load(sys.stdin)["rows"]]
starts = sorted(str(r.get("start")) for r in rows)
assert any("thread_work" in s for s in starts), rows
pids = {r.get("pid") for r in rows}
assert len(pids) == 2, rows'

run "$PLUMB" report --view heap exact.plumb
expect_out "heap view: the peak" "peak heap (at"
expect_out "heap view: peak consumers name the site" "peak consumers        site_peak"
# a malloc's site is its caller (the wrapper's first address names malloc alone)
expect_out "heap view: a malloc site is the function that called malloc" "most allocations      site_temp"
expect_out "heap view: leaks" "leaks                 site_mmap"
expect_out "heap view: the size histogram" "size histogram        32-63 B"
run "$PLUMB" report --view heap --format csv exact.plumb
py "heap view csv: the leaked total of the parent process" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
leak = [r for r in rows if r["what"] == "leaked (live at exit)"]
assert len(leak) == 2, leak
# 10 x 4096 + memalign 1024 + 8 MiB mapping + the new thread'"'"'s TLS block from ld.so
assert int(leak[0]["bytes"]) >= 40960 + 1024 + 8388608, leak'

run "$PLUMB" report -m alloc-bytes --view tree exact.plumb
expect_out "tree of alloc-bytes: main -> site_peak -> calloc" "calloc"
expect_status "flame graph of peak-bytes" 0 "$PLUMB" report -m peak-bytes --view flame --format svg -o peak.svg exact.plumb

# Written as pprof and read back by plumb: the threads' trees (their roots
# made as the threads came, between other nodes) in one file.
expect_status "pprof: written" 0 "$PLUMB" convert -o heap.pb.gz exact.plumb
run "$PLUMB" report -m alloc_space --threshold 0 --format csv heap.pb.gz
expect_out "pprof: read back by plumb" "site_peak"
if command -v go >/dev/null 2>&1; then
	run go tool pprof -sample_index=alloc_space -raw heap.pb.gz
	expect_out "pprof: go tool pprof reads alloc_space" "alloc_space/bytes"
	expect_out "pprof: Go's four heap sample types" "inuse_objects/count"
else
	skip "pprof: go tool pprof" "go not installed"
fi

# Sampled: 200 MB in 100-byte blocks and 200 blocks of 1 MiB, one mark per
# 64 KiB: about 3,000 samples on the small site (relative error about 2%).
expect_status "sampled: record" 0 "$PLUMB" record --heap=sample:65536 --heap-seed 7 -o sampled.plumb ./heap_known big
run sites sampled.plumb
py "sampled: big sites within 10% of the truth" '
import sys
got = {}
for l in sys.stdin:
    f, e, v = l.split()
    got[(f, e)] = int(v)
bad = []
for f, e, want in (("big_small", "alloc-bytes", 200000000), ("big_small", "allocs", 2000000),
                   ("big_small", "temp-allocs", 2000000),
                   ("big_large", "alloc-bytes", 200 << 20), ("big_large", "allocs", 200)):
    g = got.get((f, e), 0)
    if abs(g - want) > want / 10:
        bad.append("%s %s: got %d, expected %d +- 10%%" % (f, e, g, want))
assert not bad, "\n".join(bad)'
run "$PLUMB" report --view heap sampled.plumb
expect_out "sampled: the heap view says the values are estimates" "unbiased estimates"

# Sampled and unsampled blocks told apart exactly (tests/programs/heap_sampled.c):
# 4 MiB blocks are always sampled at a 64 KiB mean (weight 1), through malloc,
# calloc, realloc (to 0 too), memalign, posix_memalign, aligned_alloc, a free
# from another thread and a block allocated before a fork and freed in the
# child; a million small blocks around them, all freed, leave no leak; 200
# threads' first allocations are not each sampled. Exact tracing of the same
# program gives the same numbers.
gcc -O2 -g -fomit-frame-pointer -pthread "$progs/heap_sampled.c" -o heap_sampled || fail "compile heap_sampled.c"
for mode in exact sample:65536; do
	seed=
	[ "$mode" = exact ] || seed="--heap-seed 11"
	# shellcheck disable=SC2086
	expect_status "sampled blocks ($mode): record" 0 "$PLUMB" record --heap=$mode $seed -o "hs_$mode.plumb" ./heap_sampled
	run sites "hs_$mode.plumb"
	MODE=$mode py "sampled blocks ($mode): big sites exact, no small block leaked" '
import os, sys
got = {}
for l in sys.stdin:
    f, e, v = l.split()
    got[(f, e)] = int(v)
M = 4 << 20
want = {
    "big_malloc": dict(allocs=10, leaks=3, **{"alloc-bytes": 10 * M, "leak-bytes": 3 * M, "peak-bytes": 10 * M}),
    "big_calloc": dict(allocs=4, **{"alloc-bytes": 4 * M, "temp-allocs": 4}),
    "big_realloc": dict(allocs=2, **{"alloc-bytes": 3 * M, "temp-allocs": 2}),
    "big_aligned": dict(allocs=3, leaks=1, **{"alloc-bytes": 3 * M, "leak-bytes": M, "temp-allocs": 1}),
    "thread_big": dict(allocs=4, **{"alloc-bytes": 4 * M, "temp-allocs": 1}),
    "big_prefork": dict(allocs=1, **{"alloc-bytes": M, "temp-allocs": 1}),
    "child_big": dict(allocs=1, leaks=1, **{"alloc-bytes": M, "leak-bytes": M, "peak-bytes": M}),
}
events = ["allocs", "alloc-bytes", "leaks", "leak-bytes", "temp-allocs", "peak-bytes"]
bad = []
for f, w in want.items():
    for e in events:
        if e == "peak-bytes" and "peak-bytes" not in w:
            continue
        if got.get((f, e), 0) != w.get(e, 0):
            bad.append("%s %s: got %s, expected %s" % (f, e, got.get((f, e), 0), w.get(e, 0)))
# the small blocks: the program'"'"'s own sizes, all freed at once
x, n, size = 1, 1000000, 0
for i in range(n):
    x = (x * 1103515245 + 12345) & 0xffffffff
    size += 16 + (x >> 16) % 64
a, b = got.get(("small_noise", "allocs"), 0), got.get(("small_noise", "alloc-bytes"), 0)
for e in ("leaks", "leak-bytes"):
    if got.get(("small_noise", e), 0):
        bad.append("small_noise %s: got %s, expected 0" % (e, got[("small_noise", e)]))
if got.get(("small_noise", "temp-allocs"), 0) != a:
    bad.append("small_noise temp-allocs: got %s, expected its allocs %s" % (got.get(("small_noise", "temp-allocs"), 0), a))
once = got.get(("thread_once", "allocs"), 0)
if os.environ["MODE"] == "exact":
    if (a, b) != (n, size):
        bad.append("small_noise: got %s allocs, %s bytes, expected %s, %s" % (a, b, n, size))
    if once != 200:
        bad.append("thread_once allocs: got %s, expected 200" % once)
elif once > 20000:
    # 200 blocks of 64 B: about 0.2 samples; each thread'"'"'s first block always
    # sampled would give 200 x 1024
    bad.append("thread_once allocs: got %s, expected about 200 (each first block sampled?)" % once)
elif abs(a - n) > n / 4 or abs(b - size) > size / 4:
    bad.append("small_noise: got %s allocs, %s bytes, expected %s, %s within 25%%" % (a, b, n, size))
assert not bad, "\n".join(bad)'
done

# What cannot be seen is said.
if gcc -static -O2 "$progs/heap_known.c" -o heap_static -pthread 2>/dev/null; then
	expect_err "static binary: refused with the reason" 1 "statically linked" \
		"$PLUMB" record --heap -o static.plumb ./heap_static
else
	skip "static binary" "no static libc"
fi
expect_err "--heap with --sampler=perf" 2 "--sampler=perf cannot go with it" \
	"$PLUMB" record --heap --sampler=perf ./heap_known
expect_err "--heap=bad" 2 "--heap expects exact, sample or sample:BYTES" \
	"$PLUMB" record --heap=bad ./heap_known

# A program whose own malloc comes ahead of the library: said, not silent.
cat > own_malloc.c <<'SRC'
#include <stddef.h>
#include <string.h>
static char pool[1 << 20];
static size_t used;
void *malloc(size_t n) { void *p = pool + used; used += (n + 15) & ~(size_t)15; return p; }
void free(void *p) { (void)p; }
void *calloc(size_t a, size_t b) { void *p = malloc(a * b); memset(p, 0, a * b); return p; }
void *realloc(void *p, size_t n) { void *q = malloc(n); if (p) memcpy(q, p, n); return q; }
int main(void) { char *volatile p = malloc(100); p[0] = 1; return 0; }
SRC
gcc -O0 own_malloc.c -o own_malloc || fail "compile own_malloc.c"
expect_err "own allocator: the warning says its allocations are not seen" 0 \
	"malloc is defined by ./own_malloc, ahead of the preloaded tracer: its allocations are not seen" \
	"$PLUMB" record --heap -o own.plumb ./own_malloc
run "$PLUMB" info own.plumb
expect_out "own allocator: the profile keeps the note" "heap.note"
# and a program with libc's malloc gets no such note (a non-PIE PLT stub once looked like one)
run "$PLUMB" info exact.plumb
case "$out" in
*heap.note*) fail "libc's malloc: no note" "$out" ;;
*) ok "libc's malloc: no note" ;;
esac

# The heap tracer's stacks come from cached CFI recipes (src/preload/cfi_walk.c);
# PLUMB_CFI_CHECK=1 walks every stack with libgcc's unwinder too and says how
# many differ: none, on threads, a fork, recursion, a qsort callback and C++.
cfi_check() {
	name=$1
	shift
	PLUMB_CFI_CHECK=1 "$PLUMB" record -q --heap -o "cfi_$name.plumb" "$@" > /dev/null 2> "cfi_$name.err"
	lines=$(grep -c '^plumb-sampler: cfi check' "cfi_$name.err")
	bad=$(grep '^plumb-sampler: cfi check' "cfi_$name.err" | grep -vc ', 0 differ$')
	walks=$(sed -n 's/^plumb-sampler: cfi check: \([0-9]*\) walks, \([0-9]*\) fast.*/\2/p' "cfi_$name.err" |
		awk '{ s += $1 } END { print s + 0 }')
	if [ "$lines" -ge 1 ] && [ "$bad" -eq 0 ] && [ "$walks" -ge "$min" ]; then
		ok "cfi recipes: $name: $walks fast walks, the same stacks as libgcc's"
	else
		fail "cfi recipes: $name: at least $min fast walks, none differing" "$(cat "cfi_$name.err")"
	fi
}
min=10 cfi_check heap_known ./heap_known
gcc -O2 -g -fomit-frame-pointer "$progs/sig_deep.c" -o sig_deep || fail "compile sig_deep.c"
min=1 cfi_check sig_deep ./sig_deep 3
if command -v g++ >/dev/null 2>&1; then
	# the compiler proper: deep, varied C++ stacks (thousands of walks)
	printf 'template <int N> struct A { int v[N]; };\nint main() { A<3> a{}; return a.v[0]; }\n' > cfi.cc
	min=1000 cfi_check cc1plus "$(g++ -print-prog-name=cc1plus)" -quiet -O2 cfi.cc -o /dev/null
fi
