#include "model/index.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

/* Big tables are touched page by page as they fill: asking for huge pages
 * (transparent, where the kernel is set to "madvise", Debian's default)
 * turns 512 page faults into one. On the 200,000-stack pprof file that
 * was a third of plumb report's time in the kernel. Only for tables of
 * several huge pages that a reader fills at once (not every growing
 * vector: each one's last huge page is resident whole, which took the
 * peak memory of reading 100 MB of Callgrind from 454 to 519 MB). */
enum { HUGE_PAGE = 2u << 20, HUGE_MIN = 4 * HUGE_PAGE };

void plumb_advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	if (!p || bytes < HUGE_MIN)
		return;
	uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	uintptr_t b = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (b > a)
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE); /* a hint: failure is no error */
#else
	(void)p, (void)bytes;
#endif
}

/* Linear probing over a power-of-two table kept at most 3/4 full. */

uint32_t plumb_index_find(const plumb_index *ix, uint32_t h, plumb_index_eq eq,
			  const void *ctx, const void *key)
{
	if (!ix->nslots)
		return PLUMB_NONE;
	size_t mask = ix->nslots - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		const plumb_index_slot *s = &ix->slots[i];
		if (!s->id1)
			return PLUMB_NONE;
		if (s->hash == h && eq(ctx, s->id1 - 1, key))
			return s->id1 - 1;
	}
}

static void place(plumb_index_slot *slots, size_t nslots, uint32_t h, uint32_t id1)
{
	size_t mask = nslots - 1;
	size_t i = h & mask;
	while (slots[i].id1)
		i = (i + 1) & mask;
	slots[i].id1 = id1;
	slots[i].hash = h;
}

static int resize(plumb_index *ix, size_t n)
{
	plumb_index_slot *slots = calloc(n, sizeof *slots);
	if (!slots)
		return -1;
	for (size_t i = 0; i < ix->nslots; i++)
		if (ix->slots[i].id1)
			place(slots, n, ix->slots[i].hash, ix->slots[i].id1);
	free(ix->slots);
	ix->slots = slots;
	ix->nslots = n;
	return 0;
}

static int grow(plumb_index *ix)
{
	return resize(ix, ix->nslots ? ix->nslots * 2 : 64);
}

int plumb_index_reserve(plumb_index *ix, size_t n)
{
	size_t slots = ix->nslots ? ix->nslots : 64;
	while (n * 4 > slots * 3) {
		if (slots > SIZE_MAX / 4 / sizeof(plumb_index_slot))
			return -1;
		slots *= 2;
	}
	return slots > ix->nslots ? resize(ix, slots) : 0;
}

int plumb_index_insert(plumb_index *ix, uint32_t h, uint32_t id)
{
	assert(id != PLUMB_NONE); /* stored as id + 1, 0 marking an empty slot */
	if ((ix->count + 1) * 4 > ix->nslots * 3 && grow(ix))
		return -1;
	/* at most 3/4 full: every probe ends at an empty slot */
	assert(ix->count < ix->nslots);
	place(ix->slots, ix->nslots, h, id + 1);
	ix->count++;
	return 0;
}

uint32_t plumb_index_find_or_add(plumb_index *ix, uint32_t h, plumb_index_eq eq, const void *ctx,
				 const void *key, uint32_t new_id, bool *added)
{
	assert(new_id != PLUMB_NONE);
	*added = false;
	if ((ix->count + 1) * 4 > ix->nslots * 3 && grow(ix))
		return PLUMB_NONE;
	size_t mask = ix->nslots - 1, i = h & mask;
	for (;; i = (i + 1) & mask) {
		const plumb_index_slot *s = &ix->slots[i];
		if (!s->id1)
			break;
		if (s->hash == h && eq(ctx, s->id1 - 1, key))
			return s->id1 - 1;
	}
	ix->slots[i] = (plumb_index_slot){ new_id + 1, h };
	ix->count++;
	*added = true;
	return new_id;
}

void plumb_index_free(plumb_index *ix)
{
	free(ix->slots);
	memset(ix, 0, sizeof *ix);
}

int plumb_vec_reserve_(void **v, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 16;
	while (n < need) {
		if (n > SIZE_MAX / 2 / elem)
			return -1;
		n *= 2;
	}
	void *nv = realloc(*v, n * elem);
	if (!nv)
		return -1;
	*v = nv;
	*cap = n;
	return 0;
}

int plumb_costs_grow_(uint64_t **v, size_t *n, size_t *cap, size_t nev)
{
	if (nev == 0)
		return 0; /* no event yet: nothing to hold (and memset of NULL is undefined) */
	if (plumb_vec_reserve_((void **)v, cap, *n + nev, sizeof(uint64_t)))
		return -1;
	memset(*v + *n, 0, nev * sizeof(uint64_t));
	*n += nev;
	return 0;
}
