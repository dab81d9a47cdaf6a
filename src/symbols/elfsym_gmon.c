/* gmon data on gprof's symbols: histogram bins credited to the symbols they
 * overlap, and arcs between the symbols holding their two addresses, with
 * GNU gprof's arithmetic (hist.c hist_assign_samples, cg_arcs.c). */
#include <stdlib.h>
#include <string.h>

#include "plumb/elfsym.h"

/* One histogram record onto the symbols. Everything is in 2-byte units,
 * edges truncated, as gprof computes them. */
static void assign_one(const plumb_gmon_hist *h, const plumb_symtab *st, double *time,
		       double *total)
{
	double scale = plumb_gmon_hist_scale(h);
	uint64_t low = h->low_pc / 2;
	size_t j = 0;
	for (uint32_t i = 0; i < h->nbins; i++) {
		uint64_t count = h->bins[i];
		if (!count)
			continue;
		uint64_t blo = low + (uint64_t)(scale * i), bhi = low + (uint64_t)(scale * (i + 1));
		*total += (double)count;
		/* symbols are sorted: resume where the last bin left off */
		if (j >= st->n)
			j = st->n - 1;
		while (j > 0 && st->syms[j].addr / 2 > blo)
			j--;
		for (; j < st->n; j++) {
			uint64_t slo = st->syms[j].addr / 2;
			uint64_t shi = j + 1 < st->n ? st->syms[j + 1].addr / 2 : (st->syms[j].end_addr + 1) / 2;
			if (slo >= bhi)
				break;
			uint64_t lo = blo > slo ? blo : slo, hi = bhi < shi ? bhi : shi;
			if (hi > lo)
				time[j] += (double)(hi - lo) * (double)count / scale;
			if (shi >= bhi)
				break;
		}
	}
}

int plumb_gmon_hist_assign(const plumb_gmon *g, const plumb_symtab *st, double *time,
			   double *total, plumb_error *err)
{
	(void)err;
	memset(time, 0, st->n * sizeof *time);
	*total = 0;
	for (size_t i = 0; i < g->nhists && st->n; i++)
		if (g->hists[i].nbins)
			assign_one(&g->hists[i], st, time, total);
	return 0;
}

/* Pairs (parent, child) are found again through an open addressing table. */
typedef struct pair_ix {
	uint32_t *slot;
	size_t cap;
} pair_ix;

static size_t pair_hash(size_t a, size_t b, size_t mask)
{
	uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ (uint64_t)b * 0xC2B2AE3D27D4EB4Full;
	return (size_t)(h ^ (h >> 32)) & mask;
}

int plumb_gmon_sym_arcs(const plumb_gmon *g, const plumb_symtab *st, plumb_sym_arc **out,
			size_t *n, plumb_error *err)
{
	*out = NULL;
	*n = 0;
	size_t cap = 16;
	while (cap < 2 * g->narcs + 2)
		cap *= 2;
	pair_ix ix = { calloc(cap, sizeof(uint32_t)), cap };
	plumb_sym_arc *arcs = malloc((g->narcs ? g->narcs : 1) * sizeof *arcs);
	if (!ix.slot || !arcs) {
		free(ix.slot);
		free(arcs);
		return plumb_fail_nomem(err);
	}
	size_t k = 0;
	for (size_t i = 0; i < g->narcs; i++) {
		ptrdiff_t p = plumb_symtab_lookup(st, g->arcs[i].from_pc);
		ptrdiff_t c = plumb_symtab_lookup(st, g->arcs[i].self_pc);
		if (p < 0 || c < 0)
			continue;
		size_t s = pair_hash((size_t)p, (size_t)c, cap - 1);
		while (ix.slot[s] && (arcs[ix.slot[s] - 1].parent != (size_t)p ||
				      arcs[ix.slot[s] - 1].child != (size_t)c))
			s = (s + 1) & (cap - 1);
		if (ix.slot[s]) {
			arcs[ix.slot[s] - 1].count += g->arcs[i].count;
			continue;
		}
		arcs[k] = (plumb_sym_arc){ (size_t)p, (size_t)c, g->arcs[i].count };
		ix.slot[s] = (uint32_t)++k;
	}
	free(ix.slot);
	*out = arcs;
	*n = k;
	return 0;
}
