/* The stack of an allocation, complete through code without frame pointers
 * (Debian's libc, -O2 code): walked with the binaries' .eh_frame, through
 * cached per-address recipes (cfi_walk.c), else libgcc's DWARF unwinder;
 * and that once per call site and stack position.
 *
 * Each thread remembers, per (return address, stack pointer) of the
 * allocator's caller, the stacks found and the address on the stack of
 * every return address in them. When an allocation comes from the same
 * caller at the same stack pointer and every one of those slots still holds
 * the same return address, the frames above are the same: each frame's
 * position follows from the one below it and its code address. Only a
 * frame whose size changes at run time (alloca) at the same code address
 * could differ and be missed, and only if its old slot held the same
 * return address by chance.
 *
 * Otherwise the stack is walked, but only out to where it meets the last
 * stack walked by the thread (a frame with the same code address and stack
 * pointer whose callers' return addresses are all still in their slots: by
 * the same argument, the same callers); on cc1plus that is 4 frames of 23
 * on average. The chain's hash is kept per frame of that stack from the
 * outermost in, so the kept frames are not hashed again either. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <unwind.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
	t->last_n = 0;
	t->pairs_head = 0;
	/* an entry is looked at only when its tag matches */
	memset(t->cache_tag, 0, sizeof t->cache_tag);
	for (size_t i = 0; i < HEAP_CACHE; i++)
		t->cache_order[i] = (uint8_t)(i % HEAP_WAYS);
}

/* A chain's hash: mixed in from its outermost frame in, so that the
 * frames a walk kept from the last stack are not hashed again. */
#define CHAIN_SEED 0x243f6a8885a308d3u

static size_t tab_home(uint64_t h, size_t cap)
{
	return (size_t)(h ^ (h >> 32)) & (cap - 1);
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
		size_t j = tab_home(t->tab[i].hash, cap);
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

static uint64_t chain_hash(const uint64_t *pc, unsigned n)
{
	uint64_t h = CHAIN_SEED;
	for (unsigned i = n; i-- > 0;)
		h = mix(h, pc[i]);
	return h;
}

/* The id of chain pc[0..n) (hash h), a new one (and its record) the
 * first time. */
static uint32_t intern(struct heap_thread *t, const uint64_t *pc, unsigned n, uint64_t h,
		       int truncated)
{
	if ((t->tab_n + 1) * 2 > t->tab_cap && table_grow(t))
		return UINT32_MAX;
	size_t j = tab_home(h, t->tab_cap);
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
	if (heap_cfi_check) {
		/* where each stack is, for check_hit */
		if (t->next_id >= t->ids_cap) {
			size_t cap = t->ids_cap ? 2 * t->ids_cap : 65536;
			uint64_t *a = grow(t->ids, t->ids_cap * 8, cap * 8);
			if (!a)
				return UINT32_MAX;
			t->ids = a;
			t->ids_cap = cap;
		}
		t->ids[t->next_id] = (uint64_t)t->arena_n << 16 | n;
	}
	t->tab[j] = (struct heap_stack_ent){ h, t->next_id, n, t->arena_n };
	t->arena_n += n;
	t->tab_n++;
	write_stack(t, t->next_id, pc, n, truncated);
	return t->next_id++;
}

/* PLUMB_CFI_CHECK=1 (tests): every stack is also walked by libgcc and
 * compared, the ones the call-site cache gives too; heap_finish says how
 * it went on stderr. */
int heap_cfi_check;
static atomic_ulong check_walks, check_fast, check_hits, check_bad;

/* Compare the fast stack (fips, fsps: fast frames) with libgcc's (w). */
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
	int len = snprintf(msg, sizeof msg,
			   "plumb-sampler: cfi check: %lu walks, %lu fast, %lu cached, %lu differ\n",
			   atomic_load(&check_walks), atomic_load(&check_fast), atomic_load(&check_hits),
			   atomic_load(&check_bad));
	if (len > 0 && write(2, msg, (size_t)len) < 0)
		return;
}

/* The fast way: walked out to where the last stack walked is met; the
 * frames found are kept as the last stack. -1 when libgcc must walk. */
static int walk_fast(struct heap_thread *t, const struct heap_caller *c, int *trunc)
{
	uint64_t ips[PSMP_MAX_FRAMES], sps[PSMP_MAX_FRAMES];
	unsigned join;
	int n = cfi_walk_join(c->ra, c->sp, c->bp, ips, sps, PSMP_MAX_FRAMES, trunc, t->near, t->last_ip,
			      t->last_sp, t->last_n, &join);
	unsigned keep = join == UINT32_MAX ? 0 : join + 1;
	if (n < 0 || (unsigned)n + keep > PSMP_MAX_FRAMES || (!n && !keep)) {
		t->last_n = 0;
		if (n < 0 || !keep)
			return -1;
		/* joined past the deepest stack recorded: walk it all, cut */
		n = cfi_walk_join(c->ra, c->sp, c->bp, ips, sps, PSMP_MAX_FRAMES, trunc, t->near, NULL,
				  NULL, 0, &join);
		if (n <= 0)
			return -1;
		keep = 0;
	}
	unsigned k = keep;
	uint64_t h = keep ? t->last_h[keep - 1] : CHAIN_SEED;
	for (int i = n; i-- > 0; k++) {
		/* the sampler's thread start wrapper is left out of stacks */
		if (!in_wrapper(ips[i]))
			h = mix(h, ips[i]);
		t->last_ip[k] = ips[i];
		t->last_sp[k] = sps[i];
		t->last_h[k] = h;
	}
	t->last_n = k;
	return 0;
}

/* The set of HEAP_WAYS entries for (ra, sp, up), up being the return
 * address the caller will go back to: a call at one depth comes through
 * several callers (an interpreter's loop, cc1plus's xmalloc), and keying
 * by the first of them spreads one call site's stacks over every set and
 * leaves about one entry per tag to check (keyed by (ra, sp) alone, a
 * set held all of a site's stacks, 18 of them checked a lookup on
 * cc1plus). Each set keeps the one used last first; its tags (two cache
 * lines) are looked at before the entries. */
static size_t cache_set(uint64_t ra, uint64_t sp, uint64_t up)
{
	uint64_t h = (ra ^ (sp * 0x9e3779b97f4a7c15u) ^ (up * 0xc2b2ae3d27d4eb4fu)) * 0xff51afd7ed558ccdu;
	return (size_t)((h >> 40) & (HEAP_CACHE / HEAP_WAYS - 1)) * HEAP_WAYS;
}

static uint16_t cache_tag(uint64_t ra, uint64_t sp, uint64_t fn, uint64_t up)
{
	uint64_t h = (ra ^ (sp * 0x9e3779b97f4a7c15u) ^ (fn * 0xc2b2ae3d27d4eb4fu) ^
		      (up * 0x165667b19e3779f9u)) * 0xff51afd7ed558ccdu;
	return (uint16_t)(h >> 48) | 1;
}

/* Remember where the return addresses of the last stack sit. The pairs
 * go round a ring: an entry is good while the ring has not come round to
 * its pairs (emptying the whole cache when the pairs ran out, as before,
 * threw away every call site 3 or 4 times in a cc1plus run). */
static void cache_fill(struct heap_thread *t, struct heap_cache_ent *e, uint64_t fn, uint32_t id)
{
	e->ra = 0;
	if (!t->pairs && !(t->pairs = heap_raw_map(HEAP_PAIRS * 2 * sizeof *t->pairs)))
		return;
	unsigned n = t->last_n, np = n ? n - 1 : 0;
	if (!n)
		return;
	uint64_t at = t->pairs_head;
	if (at % HEAP_PAIRS + np > HEAP_PAIRS)
		at += HEAP_PAIRS - at % HEAP_PAIRS;   /* contiguous: from the ring's start */
	/* taken before they are written: an entry whose pairs this overwrites
	 * is stale by then, even if the fill stops half way */
	t->pairs_head = at + np;
	uint64_t *pr = t->pairs + 2 * (at % HEAP_PAIRS);
	/* innermost first: frame i is last[n - 1 - i] */
	for (unsigned i = 1; i < n; i++) {
		/* the return address into frame i sits just below its stack pointer */
		uint64_t slot = t->last_sp[n - 1 - i] - 8, ip = t->last_ip[n - 1 - i];
		/* a signal frame or an odd CFI rule: not a plain return slot */
		if (*(const uint64_t *)(uintptr_t)slot != ip)
			return;
		pr[2 * (i - 1)] = slot;
		pr[2 * (i - 1) + 1] = ip;
	}
	*e = (struct heap_cache_ent){ t->last_ip[n - 1], t->last_sp[n - 1], fn, np ? pr[0] : 0,
				      np ? pr[1] : 0, id, np, at };
}

static int cache_valid(const struct heap_thread *t, const struct heap_cache_ent *e)
{
	if (e->npairs && *(const volatile uint64_t *)(uintptr_t)e->slot0 != e->val0)
		return 0;
	if (t->pairs_head - e->at > HEAP_PAIRS)
		return 0;   /* the ring came round to its pairs */
	const uint64_t *pr = t->pairs + 2 * (e->at % HEAP_PAIRS);
	for (uint32_t i = 1; i < e->npairs; i++)
		if (*(const volatile uint64_t *)(uintptr_t)pr[2 * i] != pr[2 * i + 1])
			return 0;
	return 1;
}

static uint32_t stack_id(struct heap_thread *t, uint64_t fn, const struct heap_caller *c);

/* The chain of a stack the walk gives (leaf fn first); its length. */
static unsigned walked_chain(const struct walk *w, uint64_t fn, uint64_t ra, uint64_t *chain)
{
	unsigned n = 0;
	chain[n++] = fn;
	if (!w->started)
		chain[n++] = ra;   /* no unwind information: the caller at least */
	for (unsigned i = 0; i < w->n; i++)
		if (!in_wrapper(w->ips[i]))
			chain[n++] = w->ips[i];
	return n;
}

/* PLUMB_CFI_CHECK=1: the stack the cache gave (id) must be libgcc's. */
static __attribute__((noinline)) uint32_t check_hit(struct heap_thread *t, uint64_t fn,
						    const struct heap_caller *c, uint32_t id)
{
	uint64_t ips[PSMP_MAX_FRAMES], cfas[PSMP_MAX_FRAMES], chain[PSMP_MAX_FRAMES + 1];
	struct walk w = { .ra = c->ra, .sp = c->sp, .ips = ips, .cfas = cfas, .max = PSMP_MAX_FRAMES };
	_Unwind_Backtrace(step, &w);
	unsigned n = walked_chain(&w, fn, c->ra, chain);
	atomic_fetch_add(&check_hits, 1);
	uint64_t at = id < t->next_id && t->ids ? t->ids[id] : 0;
	if (!at || (at & 0xffff) != n || memcmp(t->arena + (at >> 16), chain, n * sizeof *chain) != 0)
		atomic_fetch_add(&check_bad, 1);
	return id;
}

static inline uint32_t hit(struct heap_thread *t, uint64_t fn, const struct heap_caller *c, uint32_t id)
{
	return heap_cfi_check ? check_hit(t, fn, c, id) : id;
}

/* The ways of a set whose tags are tag, a bit each (SSE2: eight tags to
 * a compare; a loop over 64 tags was a tenth of the lookups' time). */
static uint64_t tag_match(const uint16_t *tags, uint16_t tag)
{
	uint64_t m = 0;
#ifdef __SSE2__
	__m128i t16 = _mm_set1_epi16((short)tag);
	for (unsigned i = 0; i < HEAP_WAYS; i += 16) {
		__m128i a = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(const void *)(tags + i)), t16);
		__m128i b = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(const void *)(tags + i + 8)), t16);
		m |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_packs_epi16(a, b)) << i;
	}
#else
	for (unsigned i = 0; i < HEAP_WAYS; i++)
		m |= (uint64_t)(tags[i] == tag) << i;
#endif
	return m;
}

/* Way w was used: it goes to the front of the set's order. */
static void to_front(uint8_t *ord, unsigned w)
{
	const uint8_t *at = memchr(ord, (int)w, HEAP_WAYS);
	size_t k = at ? (size_t)(at - ord) : HEAP_WAYS - 1;
	memmove(ord + 1, ord, k);
	ord[0] = (uint8_t)w;
}

static int ent_is(const struct heap_thread *t, const struct heap_cache_ent *e, uint64_t fn,
		  const struct heap_caller *c)
{
	return e->ra == c->ra && e->sp == c->sp && e->fn == fn && cache_valid(t, e);
}

uint32_t heap_stack_id(struct heap_thread *t, uint64_t fn, const struct heap_caller *c)
{
	/* where the caller returns to (only a key: the entry found is checked
	 * whole all the same) */
	uint64_t slot = cfi_ret_slot(t->near, c->ra, c->sp, c->bp);
	uint64_t up = slot ? *(const uint64_t *)(uintptr_t)slot : 0;
	size_t base = cache_set(c->ra, c->sp, up);
	struct heap_cache_ent *set = &t->cache[base];
	uint16_t *tags = &t->cache_tag[base];
	uint8_t *ord = &t->cache_order[base];
	/* the stack used last from here, before any tag is made */
	unsigned w = ord[0];
	if (tags[w] && ent_is(t, &set[w], fn, c))
		return hit(t, fn, c, set[w].id);
	uint16_t tag = cache_tag(c->ra, c->sp, fn, up);
	uint64_t m = tag_match(tags, tag) & ~((uint64_t)1 << w);
	if (m && !(m & (m - 1))) {
		/* one candidate (the usual case) */
		w = (unsigned)__builtin_ctzll(m);
		if (ent_is(t, &set[w], fn, c)) {
			to_front(ord, w);
			return hit(t, fn, c, set[w].id);
		}
	} else if (m) {
		/* several: the ones used last first */
		for (unsigned k = 1; k < HEAP_WAYS; k++) {
			w = ord[k];
			if ((m >> w & 1) && ent_is(t, &set[w], fn, c)) {
				to_front(ord, w);
				return hit(t, fn, c, set[w].id);
			}
		}
	}
	/* a new entry in front, in the way used longest ago */
	w = ord[HEAP_WAYS - 1];
	memmove(ord + 1, ord, HEAP_WAYS - 1);
	ord[0] = (uint8_t)w;
	struct heap_cache_ent *e = &set[w];
	e->ra = 0;
	tags[w] = 0;
	uint32_t id = stack_id(t, fn, c);
	if (id != UINT32_MAX && t->last_n && t->last_ip[t->last_n - 1] == c->ra &&
	    t->last_sp[t->last_n - 1] == c->sp)
		cache_fill(t, e, fn, id);
	tags[w] = e->ra ? tag : 0;
	return id;
}

static __attribute__((noinline)) uint32_t stack_id(struct heap_thread *t, uint64_t fn,
						   const struct heap_caller *c)
{
	int trunc = 0, fast = heap_cfi_check ? -1 : walk_fast(t, c, &trunc);
	uint64_t ips[PSMP_MAX_FRAMES], cfas[PSMP_MAX_FRAMES], chain[PSMP_MAX_FRAMES + 1];
	unsigned n = 0;
	chain[n++] = fn;   /* the leaf: which allocator was called */
	if (fast == 0) {
		for (unsigned i = t->last_n; i-- > 0;)
			if (!in_wrapper(t->last_ip[i]))
				chain[n++] = t->last_ip[i];
		uint64_t h = mix(t->last_h[t->last_n - 1], fn);
		if (trunc)
			t->last_n = 0;   /* a cut stack has no outermost frame to join at */
		return intern(t, chain, n, h, trunc);
	}
	/* libgcc's walk (or both, to compare) */
	struct walk w = { .ra = c->ra, .sp = c->sp, .ips = ips, .cfas = cfas, .max = PSMP_MAX_FRAMES };
	unsigned nf = 0;
	uint64_t fips[PSMP_MAX_FRAMES], fsps[PSMP_MAX_FRAMES];
	if (heap_cfi_check && walk_fast(t, c, &trunc) == 0) {
		/* the stack the fast way gives, joined, in full */
		nf = t->last_n;
		for (unsigned i = 0; i < nf; i++) {
			fips[i] = t->last_ip[nf - 1 - i];
			fsps[i] = t->last_sp[nf - 1 - i];
		}
	}
	_Unwind_Backtrace(step, &w);
	if (heap_cfi_check)
		check_walk(&w, nf, fips, fsps, trunc);
	/* libgcc's frames are the last stack now: the cache and the next
	 * walk start from them as from the fast way's */
	t->last_n = 0;
	if (w.started && !w.truncated) {
		uint64_t h = CHAIN_SEED;
		for (unsigned i = w.n, k = 0; i-- > 0; k++) {
			if (!in_wrapper(ips[i]))
				h = mix(h, ips[i]);
			t->last_ip[k] = ips[i];
			t->last_sp[k] = cfas[i];
			t->last_h[k] = h;
		}
		t->last_n = w.n;
	}
	n = walked_chain(&w, fn, c->ra, chain);
	return intern(t, chain, n, chain_hash(chain, n), w.truncated || !w.started);
}
