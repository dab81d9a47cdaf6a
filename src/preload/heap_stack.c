/* The stack of an allocation, complete through code without frame pointers
 * (Debian's libc, -O2 code): walked with the binaries' .eh_frame, through
 * cached per-address recipes (cfi_walk.c), else libgcc's DWARF unwinder;
 * and that once per call site and stack position.
 *
 * Even the cached walk costs a few nanoseconds a frame. So each thread remembers, per (return address, stack pointer)
 * of the allocator's caller, the stack found and the address on the stack
 * of every return address in it. When an allocation comes from the same
 * caller at the same stack pointer and every one of those slots still holds
 * the same return address, the frames above are the same: each frame's
 * position follows from the one below it and its code address. Only a
 * frame whose size changes at run time (alloca) at the same code address
 * could differ and be missed, and only if its old slot held the same
 * return address by chance. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <unwind.h>

#include "preload/cfi_walk.h"
#include "preload/heap.h"
#include "preload/sampler.h"

/* The sampler's thread start wrapper: its frame is left out of stacks. */
extern const char __start_plumb_roots[] __attribute__((weak, visibility("hidden")));
extern const char __stop_plumb_roots[] __attribute__((weak, visibility("hidden")));

static int in_wrapper(uint64_t ra)
{
	return __start_plumb_roots && ra - 1 >= (uint64_t)(uintptr_t)__start_plumb_roots &&
	       ra - 1 < (uint64_t)(uintptr_t)__stop_plumb_roots;
}

struct walk {
	uint64_t ra, sp;
	uint64_t *ips, *cfas;
	unsigned n, max, skipped;
	int started, truncated;
};

static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *arg)
{
	struct walk *w = arg;
	/* During the walk, libgcc's CFA is still the inner frame's: the stack
	 * pointer of the frame whose ip this is. */
	uint64_t ip = _Unwind_GetIP(ctx), cfa = _Unwind_GetCFA(ctx);
	if (!w->started) {
		/* our own frames, up to the allocator's caller */
		if (ip != w->ra || cfa != w->sp)
			return ++w->skipped > 64 ? _URC_END_OF_STACK : _URC_NO_REASON;
		w->started = 1;
	}
	if (ip == 0)
		return _URC_END_OF_STACK;
	if (w->n == w->max) {
		w->truncated = 1;
		return _URC_END_OF_STACK;
	}
	w->ips[w->n] = ip;
	w->cfas[w->n] = cfa;
	w->n++;
	return _URC_NO_REASON;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdu;
}

static void *grow(void *old, size_t old_len, size_t new_len)
{
	if (!old)
		return heap_raw_map(new_len);
	long r = syscall(SYS_mremap, old, old_len, new_len, MREMAP_MAYMOVE);
	return r < 0 && r > -4096 ? NULL : (void *)r;
}

void heap_stack_reset(struct heap_thread *t)
{
	if (t->tab)
		memset(t->tab, 0, t->tab_cap * sizeof *t->tab);
	t->tab_n = 0;
	t->arena_n = 0;
	t->next_id = 0;
	t->npairs = 0;
	memset(t->cache, 0, sizeof t->cache);
}

static int table_grow(struct heap_thread *t)
{
	size_t cap = t->tab_cap ? 2 * t->tab_cap : 4096;
	struct heap_stack_ent *n = heap_raw_map(cap * sizeof *n);
	if (!n)
		return -1;
	for (size_t i = 0; i < t->tab_cap; i++) {
		if (!t->tab[i].n)
			continue;
		size_t j = t->tab[i].hash & (cap - 1);
		while (n[j].n)
			j = (j + 1) & (cap - 1);
		n[j] = t->tab[i];
	}
	if (t->tab)
		syscall(SYS_munmap, t->tab, t->tab_cap * sizeof *t->tab);
	t->tab = n;
	t->tab_cap = cap;
	return 0;
}

static void write_stack(struct heap_thread *t, uint32_t id, const uint64_t *pc, unsigned n,
			int truncated)
{
	size_t size = sizeof(struct psmp_heap_stack) + (size_t)n * 8;
	if (t->slen + size > HEAP_SBUF)
		heap_flush_stacks(t);
	struct psmp_heap_stack h = { { PSMP_HEAP_STACK, (uint32_t)size }, (uint32_t)t->tid, id,
				     (uint16_t)n, truncated ? PSMP_SAMPLE_TRUNCATED : 0, 0 };
	memcpy(t->sbuf + t->slen, &h, sizeof h);
	memcpy(t->sbuf + t->slen + sizeof h, pc, (size_t)n * 8);
	t->slen += size;
}

/* The id of chain pc[0..n), a new one (and its record) the first time. */
static uint32_t intern(struct heap_thread *t, const uint64_t *pc, unsigned n, int truncated)
{
	uint64_t h = n;
	for (unsigned i = 0; i < n; i++)
		h = mix(h, pc[i]);
	if ((t->tab_n + 1) * 2 > t->tab_cap && table_grow(t))
		return UINT32_MAX;
	size_t j = h & (t->tab_cap - 1);
	for (; t->tab[j].n; j = (j + 1) & (t->tab_cap - 1))
		if (t->tab[j].hash == h && t->tab[j].n == n &&
		    memcmp(t->arena + t->tab[j].off, pc, (size_t)n * 8) == 0)
			return t->tab[j].id;
	if (t->arena_n + n > t->arena_cap) {
		size_t cap = t->arena_cap ? 2 * t->arena_cap : 65536;
		while (cap < t->arena_n + n)
			cap *= 2;
		uint64_t *a = grow(t->arena, t->arena_cap * 8, cap * 8);
		if (!a)
			return UINT32_MAX;
		t->arena = a;
		t->arena_cap = cap;
	}
	memcpy(t->arena + t->arena_n, pc, (size_t)n * 8);
	t->tab[j] = (struct heap_stack_ent){ h, t->next_id, n, t->arena_n };
	t->arena_n += n;
	t->tab_n++;
	write_stack(t, t->next_id, pc, n, truncated);
	return t->next_id++;
}

/* The set of HEAP_WAYS entries for (ra, sp): a call at one depth may come
 * through several callers (an interpreter's loop), and each keeps its own. */
static struct heap_cache_ent *cache_set(struct heap_thread *t, uint64_t ra, uint64_t sp)
{
	uint64_t h = (ra ^ (sp * 0x9e3779b97f4a7c15u)) * 0xff51afd7ed558ccdu;
	return &t->cache[((h >> 40) & (HEAP_CACHE / HEAP_WAYS - 1)) * HEAP_WAYS];
}

/* Remember where the return addresses of this walk sit on the stack. */
static void cache_fill(struct heap_thread *t, struct heap_cache_ent *e, const struct walk *w,
		       uint64_t fn, uint64_t sp, uint32_t id)
{
	e->ra = 0;
	if (!t->pairs && !(t->pairs = heap_raw_map(HEAP_PAIRS * 2 * sizeof *t->pairs)))
		return;
	unsigned np = w->n ? w->n - 1 : 0;
	if (t->npairs + np > HEAP_PAIRS) {
		/* full: forget every call site and start again */
		memset(t->cache, 0, sizeof t->cache);
		t->npairs = 0;
		if (np > HEAP_PAIRS)
			return;
	}
	uint64_t *pr = t->pairs + 2 * t->npairs;
	for (unsigned i = 1; i < w->n; i++) {
		/* the return address into frame i sits just below its stack pointer */
		uint64_t slot = w->cfas[i] - 8;
		/* a signal frame or an odd CFI rule: not a plain return slot */
		if (*(const uint64_t *)(uintptr_t)slot != w->ips[i])
			return;
		pr[2 * (i - 1)] = slot;
		pr[2 * (i - 1) + 1] = w->ips[i];
	}
	*e = (struct heap_cache_ent){ w->ips[0], sp, fn, id, np, (uint32_t)t->npairs, 0 };
	t->npairs += np;
}

static int cache_valid(const struct heap_thread *t, const struct heap_cache_ent *e)
{
	const uint64_t *pr = t->pairs + 2 * (size_t)e->pairs;
	for (uint32_t i = 0; i < e->npairs; i++)
		if (*(const volatile uint64_t *)(uintptr_t)pr[2 * i] != pr[2 * i + 1])
			return 0;
	return 1;
}

/* PLUMB_CFI_CHECK=1 (tests): every walk is done both ways and
 * compared; heap_finish says how it went on stderr. */
int heap_cfi_check;
static atomic_ulong check_walks, check_fast, check_bad;

/* Compare the fast walk (fips, fsps: fast frames) with libgcc's (w). */
static void check_walk(const struct walk *w, unsigned fast, const uint64_t *fips,
		       const uint64_t *fsps, int trunc)
{
	atomic_fetch_add(&check_walks, 1);
	if (!fast)
		return;
	atomic_fetch_add(&check_fast, 1);
	int same = w->started && w->n == fast && w->truncated == trunc &&
		   memcmp(w->ips, fips, fast * sizeof *fips) == 0 &&
		   memcmp(w->cfas, fsps, fast * sizeof *fsps) == 0;
	if (!same)
		atomic_fetch_add(&check_bad, 1);
}

void heap_cfi_check_report(void)
{
	if (!heap_cfi_check)
		return;
	char msg[160];
	int len = snprintf(msg, sizeof msg, "plumb-sampler: cfi check: %lu walks, %lu fast, %lu differ\n",
			   atomic_load(&check_walks), atomic_load(&check_fast), atomic_load(&check_bad));
	if (len > 0 && write(2, msg, (size_t)len) < 0)
		return;
}

uint32_t heap_stack_id(struct heap_thread *t, uint64_t fn, uint64_t ra, uint64_t sp)
{
	struct heap_cache_ent *set = cache_set(t, ra, sp);
	for (unsigned i = 0; i < HEAP_WAYS; i++) {
		struct heap_cache_ent *e = &set[i];
		if (e->ra == ra && e->sp == sp && e->fn == fn && cache_valid(t, e))
			return e->id;
	}
	/* a new entry in front; the oldest of the set goes */
	memmove(set + 1, set, (HEAP_WAYS - 1) * sizeof *set);
	struct heap_cache_ent *e = set;
	e->ra = 0;
	uint64_t ips[PSMP_MAX_FRAMES], cfas[PSMP_MAX_FRAMES], chain[PSMP_MAX_FRAMES + 1];
	struct walk w = { .ra = ra, .sp = sp, .ips = ips, .cfas = cfas, .max = PSMP_MAX_FRAMES };
	int trunc = 0;
	if (!heap_cfi_check) {
		if ((w.n = cfi_walk(ra, sp, ips, cfas, PSMP_MAX_FRAMES, &trunc, t->near))) {
			w.started = 1;
			w.truncated = trunc;
		} else {
			_Unwind_Backtrace(step, &w);
		}
	} else {
		uint64_t fips[PSMP_MAX_FRAMES], fsps[PSMP_MAX_FRAMES];
		unsigned fast = cfi_walk(ra, sp, fips, fsps, PSMP_MAX_FRAMES, &trunc, t->near);
		_Unwind_Backtrace(step, &w);
		check_walk(&w, fast, fips, fsps, trunc);
	}
	unsigned n = 0;
	chain[n++] = fn;   /* the leaf: which allocator was called */
	if (!w.started)
		chain[n++] = ra;   /* no unwind information: the caller at least */
	for (unsigned i = 0; i < w.n; i++)
		if (!in_wrapper(ips[i]))
			chain[n++] = ips[i];
	uint32_t id = intern(t, chain, n, w.truncated || !w.started);
	if (id != UINT32_MAX && w.started)
		cache_fill(t, e, &w, fn, sp, id);
	return id;
}
