/* gprof's credit of histogram bins to address ranges (its hist.c
 * hist_assign_samples): 2-byte units, truncated edges, a straddling bin
 * split by overlap. The reader and the gprof engine both use this one, so
 * plumb report's self times are gprof's. */
#include "plumb/gmon.h"

static uint64_t start_at(const plumb_gmon_credit *c, size_t j)
{
	return *(const uint64_t *)(const void *)((const char *)c->start + j * c->stride);
}

void plumb_gmon_credit_bin(plumb_gmon_credit *c, uint32_t i, uint64_t count)
{
	if (!count || !c->n || !(c->scale > 0))
		return;
	uint64_t low = c->low_pc / 2;
	uint64_t bin_lo = low + (uint64_t)(c->scale * i), bin_hi = low + (uint64_t)(c->scale * (i + 1));
	size_t j = c->cursor < c->n ? c->cursor : c->n - 1;
	/* Back to the first range that may reach the bin: the ones before end
	 * where this one starts, at or below bin_lo. */
	while (j > 0 && start_at(c, j) / 2 > bin_lo)
		j--;
	for (; j < c->n; j++) {
		uint64_t lo = start_at(c, j) / 2, hi = start_at(c, j + 1) / 2;
		if (lo >= bin_hi)
			break;
		uint64_t bottom = bin_lo > lo ? bin_lo : lo, top = bin_hi < hi ? bin_hi : hi;
		if (top > bottom)
			c->add(c->ctx, j, (double)(top - bottom) * (double)count / c->scale);
		if (hi >= bin_hi)
			break;
	}
	c->cursor = j;
}

void plumb_gmon_credit_hist(plumb_gmon_credit *c, const plumb_gmon_hist *h)
{
	c->low_pc = h->low_pc;
	c->cursor = 0;
	for (uint32_t i = 0; i < h->nbins; i++)
		plumb_gmon_credit_bin(c, i, h->bins[i]);
}

const char *const plumb_gmon_mcount_family[] = { "_gprof_mcount", "mcount", "_mcount", "__mcount",
						 "__mcount_internal", "__mcleanup", NULL };
