/* The order a pprof file's samples are added to the tree in (see
 * pprof_internal.h): a multikey quicksort over their parts and frames. */
#include <stdbool.h>
#include <stdlib.h>

#include "formats/pprof_internal.h"


/* Symbol d of a sample: its part, then its frames + 1, then 0. The item
 * keeps the next frames beside it: one cache miss for four passes of the
 * sort instead of one a pass. */
static inline uint32_t sym(const plumb_id *fr, sitem *e, size_t d)
{
	if (d == 0)
		return e->part;
	size_t j = d - 1;
	if (j >= e->n)
		return 0;
	if (j - e->base >= 4) {
		e->base = (uint32_t)j;
		for (size_t k = 0; k < 4 && j + k < e->n; k++)
			e->c[k] = fr[e->off + j + k] + 1;
	}
	return e->c[j - e->base];
}

static int cmp_from(const plumb_id *fr, sitem *a, sitem *b, size_t d)
{
	for (;; d++) {
		uint32_t x = sym(fr, a, d), y = sym(fr, b, d);
		if (x != y)
			return x < y ? -1 : 1;
		if (x == 0 && d > 0)
			return a->i < b->i ? -1 : a->i > b->i;
	}
}

static int cmp_item(const void *a, const void *b)
{
	uint32_t x = ((const sitem *)a)->i, y = ((const sitem *)b)->i;
	return x < y ? -1 : x > y;
}

void pprof_sort_stacks(const plumb_id *fr, sitem *a, size_t n, size_t d)
{
	while (n > 1) {
		if (n < 12) {
			for (size_t i = 1; i < n; i++)
				for (size_t j = i; j > 0 && cmp_from(fr, &a[j - 1], &a[j], d) > 0; j--) {
					sitem t = a[j];
					a[j] = a[j - 1];
					a[j - 1] = t;
				}
			return;
		}
		uint32_t x = sym(fr, &a[0], d), y = sym(fr, &a[n / 2], d), z = sym(fr, &a[n - 1], d);
		uint32_t piv = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
		/* three ways: [0, lt) below, [lt, gt) equal, [gt, n) above */
		size_t lt = 0, i = 0, gt = n;
		while (i < gt) {
			uint32_t v = sym(fr, &a[i], d);
			sitem t = a[i];
			if (v < piv) {
				a[i++] = a[lt];
				a[lt++] = t;
			} else if (v > piv) {
				a[i] = a[--gt];
				a[gt] = t;
			} else {
				i++;
			}
		}
		size_t ne = gt - lt, ng = n - gt;
		bool done = piv == 0 && d > 0; /* the equal ones end here: file order */
		if (done)
			qsort(a + lt, ne, sizeof *a, cmp_item);
		/* the two smaller parts recursively (each at most n / 2: the
		 * depth stays under log2 n), the largest in this loop */
		if (lt >= ne && lt >= ng) {
			if (!done)
				pprof_sort_stacks(fr, a + lt, ne, d + 1);
			pprof_sort_stacks(fr, a + gt, ng, d);
			n = lt;
		} else if (ng >= ne) {
			if (!done)
				pprof_sort_stacks(fr, a + lt, ne, d + 1);
			pprof_sort_stacks(fr, a, lt, d);
			a += gt;
			n = ng;
		} else {
			pprof_sort_stacks(fr, a, lt, d);
			pprof_sort_stacks(fr, a + gt, ng, d);
			if (done)
				return;
			a += lt;
			n = ne;
			d++;
		}
	}
}
