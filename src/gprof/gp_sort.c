/* The orders gprof sorts in, with its sort's stability: equal keys keep
 * their order, as glibc's merge sort keeps them. */
#include <stdlib.h>
#include <string.h>

#include "gprof/gp_internal.h"

/* The order in which gprof creates its symbols, and so meets source files. */
int gp_cmp_creation(const void *ctx, uint32_t x, uint32_t y)
{
	const plumb_gprof *g = ctx;
	const plumb_gprof_symbol *l = &g->sym[x].s, *r = &g->sym[y].s;
	/* function symbols in ELF order (unknown ones last, by address), then
	 * the line symbols of -l by address */
	if (l->is_func != r->is_func)
		return l->is_func ? -1 : 1;
	if (l->is_func && l->elf_index != r->elf_index) {
		if (!l->elf_index || !r->elf_index)
			return l->elf_index ? -1 : 1;
		return l->elf_index < r->elf_index ? -1 : 1;
	}
	return l->addr < r->addr ? -1 : l->addr > r->addr;
}

/* A stable merge sort of indexes: glibc's qsort is a merge sort for the
 * sizes gprof sorts, and equal keys must keep their order to match it. */
static void msort(uint32_t *v, uint32_t *tmp, size_t n,
		  int (*cmp)(const void *ctx, uint32_t a, uint32_t b), const void *ctx)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	msort(v, tmp, h, cmp, ctx);
	msort(v + h, tmp, n - h, cmp, ctx);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = cmp(ctx, v[i], v[j]) <= 0 ? v[i++] : v[j++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

void gp_stable_sort(uint32_t *v, size_t n, int (*cmp)(const void *ctx, uint32_t a, uint32_t b),
		    const void *ctx)
{
	uint32_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
	if (!tmp) { /* insertion sort: slow but stable and needs no memory */
		for (size_t i = 1; i < n; i++)
			for (size_t j = i; j > 0 && cmp(ctx, v[j - 1], v[j]) > 0; j--) {
				uint32_t t = v[j];
				v[j] = v[j - 1];
				v[j - 1] = t;
			}
		return;
	}
	msort(v, tmp, n, cmp, ctx);
	free(tmp);
}
