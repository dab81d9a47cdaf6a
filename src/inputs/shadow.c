/* Shadow memory and the runtime's allocations: anonymous mappings only.
 * A leaf shadows 64 KiB of address space with 65536 / memres 32-bit
 * timestamps (64 KiB of shadow per 64 KiB touched at memres 4). */
#include <string.h>
#include <sys/mman.h>

#include "inputs/inputs.h"

INP_HIDDEN void *inp_map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

INP_HIDDEN void inp_unmap(void *p, size_t bytes)
{
	if (p && bytes)
		munmap(p, bytes);
}

static size_t page_round(size_t n)
{
	return (n + 4095) & ~(size_t)4095;
}

INP_HIDDEN int inp_grow(void **v, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 64;
	while (ncap < need)
		ncap *= 2;
	size_t old_bytes = page_round(*cap * elem), new_bytes = page_round(ncap * elem);
	void *p;
	if (*v)
		p = mremap(*v, old_bytes, new_bytes, MREMAP_MAYMOVE);
	else
		p = mmap(NULL, new_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	/* fresh pages are zero; mremap keeps the old bytes */
	*v = p;
	*cap = new_bytes / elem;
	return 0;
}

#define TOP_ENTRIES (1u << 16)
#define MID_ENTRIES (1u << 16)

static void cache_clear(inp_shadow *s)
{
	for (size_t i = 0; i < INP_LEAF_CACHE; i++) {
		s->tags[i] = UINTPTR_MAX;
		s->cached[i] = s->idle;
	}
}

INP_HIDDEN int inp_shadow_init(inp_shadow *s, unsigned shift)
{
	memset(s, 0, sizeof *s);
	s->shift = shift;
	s->tags = s->own_tags;
	s->cached = s->own_cached;
	cache_clear(s);
	s->top = inp_map(TOP_ENTRIES * sizeof *s->top);
	return s->top ? 0 : -1;
}

INP_HIDDEN void inp_shadow_use_cache(inp_shadow *s, uintptr_t *tags, uint32_t **cached, uint32_t *idle)
{
	s->tags = tags;
	s->cached = cached;
	s->idle = idle;
	cache_clear(s);
}

INP_HIDDEN size_t inp_shadow_leaf_cells(const inp_shadow *s)
{
	return ((size_t)1 << INP_LEAF_BITS) >> s->shift;
}

/* and a spare cell past the end, never written: the gcc plugin's inline
 * code loads the cell after the last of a leaf before it knows the access
 * is in the leaf */
static size_t leaf_bytes(const inp_shadow *s)
{
	return (inp_shadow_leaf_cells(s) + 1) * sizeof **s->leaves;
}

INP_HIDDEN uint32_t *inp_shadow_leaf_slow(inp_shadow *s, uintptr_t addr)
{
	uintptr_t hi = addr >> INP_LEAF_BITS;
	if ((uint64_t)addr >> 48 || s->failed)
		return NULL;
	uint32_t ***mid = &s->top[(uint64_t)addr >> 32];
	if (!*mid && !(*mid = inp_map(MID_ENTRIES * sizeof **mid)))
		goto fail;
	uint32_t **leaf = &(*mid)[hi & (MID_ENTRIES - 1)];
	if (!*leaf) {
		if (inp_grow((void **)&s->leaves, &s->leaves_cap, s->nleaves + 1, sizeof *s->leaves))
			goto fail;
		if (!(*leaf = inp_map(leaf_bytes(s))))
			goto fail;
		s->leaves[s->nleaves++] = *leaf;
	}
	s->tags[hi & (INP_LEAF_CACHE - 1)] = hi;
	s->cached[hi & (INP_LEAF_CACHE - 1)] = *leaf;
	return *leaf;
fail:
	s->failed = true;
	return NULL;
}

INP_HIDDEN void inp_shadow_free(inp_shadow *s)
{
	if (!s->top)
		return;
	cache_clear(s);
	for (size_t i = 0; i < s->nleaves; i++)
		inp_unmap(s->leaves[i], leaf_bytes(s));
	for (size_t i = 0; i < TOP_ENTRIES; i++)
		inp_unmap(s->top[i], MID_ENTRIES * sizeof **s->top);
	inp_unmap(s->top, TOP_ENTRIES * sizeof *s->top);
	inp_unmap(s->leaves, page_round(s->leaves_cap * sizeof *s->leaves));
	memset(s, 0, sizeof *s);
}
