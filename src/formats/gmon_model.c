/* The in-memory gmon data: histograms, arcs and basic-block counts, summed
 * with GNU gprof's rules (its hist.c and gmon_io.c, described in
 * docs/gmon.md). Arcs and BB counts are found again through small open
 * addressing tables of (index + 1). */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "formats/gmon_internal.h"

plumb_gmon *plumb_gmon_new(void)
{
	return calloc(1, sizeof(plumb_gmon));
}

void plumb_gmon_clear(plumb_gmon *g)
{
	for (size_t i = 0; i < g->nhists; i++)
		free(g->hists[i].bins);
	free(g->hists);
	free(g->arcs);
	free(g->bbs);
	free(g->arc_ix);
	free(g->bb_ix);
	memset(g, 0, sizeof *g);
}

void plumb_gmon_free(plumb_gmon *g)
{
	if (!g)
		return;
	plumb_gmon_clear(g);
	free(g);
}

double plumb_gmon_hist_scale(const plumb_gmon_hist *h)
{
	if (h->nbins == 0)
		return 0;
	/* gprof halves the range in integers first (2-byte units) */
	return (double)((h->high_pc - h->low_pc) / 2) / h->nbins;
}

uint64_t plumb_gmon_total_samples(const plumb_gmon *g)
{
	uint64_t t = 0;
	for (size_t i = 0; i < g->nhists; i++)
		for (uint32_t b = 0; b < g->hists[i].nbins; b++)
			t += g->hists[i].bins[b];
	return t;
}

/* ---- histograms ------------------------------------------------------- */

static int hist_compatible(const plumb_gmon_hist *first, const plumb_gmon_hist *h,
			   const char *name, plumb_error *err)
{
	if (strcmp(first->dimen, h->dimen) != 0)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s: byte %" PRIu64 ": histogram dimension \"%s\" differs from the "
				  "first histogram's \"%s\"", name, h->file_offset, h->dimen, first->dimen);
	if (first->dimen_abbrev != h->dimen_abbrev)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s: byte %" PRIu64 ": histogram dimension abbreviation '%c' differs "
				  "from the first histogram's '%c'", name, h->file_offset,
				  h->dimen_abbrev ? h->dimen_abbrev : ' ',
				  first->dimen_abbrev ? first->dimen_abbrev : ' ');
	double a = plumb_gmon_hist_scale(first), b = plumb_gmon_hist_scale(h);
	if (first->nbins && h->nbins && fabs(a - b) > 1e-6)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s: byte %" PRIu64 ": histogram bins cover %g units of 2 bytes, the "
				  "first histogram's %g: expected the same bin width",
				  name, h->file_offset, b, a);
	return 0;
}

static int add_bins(plumb_gmon_hist *dst, const plumb_gmon_hist *h, const char *name,
		    plumb_error *err)
{
	for (uint32_t i = 0; i < h->nbins; i++)
		if (dst->bins[i] > UINT64_MAX - h->bins[i])
			return plumb_fail(err, PLUMB_ERR_OVERFLOW,
					  "%s: byte %" PRIu64 ": histogram bin %" PRIu32 " overflows "
					  "64 bits when summed", name, h->file_offset, i);
	for (uint32_t i = 0; i < h->nbins; i++)
		dst->bins[i] += h->bins[i];
	return 0;
}

/* take: h->bins is the caller's malloc'd array, kept (and set to NULL in h)
 * when the range is new, instead of copied. */
static int add_hist(plumb_gmon *g, plumb_gmon_hist *h, bool take, const char *name, plumb_error *err)
{
	if (g->nhists && hist_compatible(&g->hists[0], h, name, err))
		return -1;
	for (size_t i = 0; i < g->nhists; i++) {
		plumb_gmon_hist *o = &g->hists[i];
		if (o->low_pc == h->low_pc && o->high_pc == h->high_pc && o->nbins == h->nbins)
			return add_bins(o, h, name, err);
		if (h->high_pc > o->low_pc && h->low_pc < o->high_pc)
			return plumb_fail(err, PLUMB_ERR_FORMAT,
					  "%s: byte %" PRIu64 ": overlapping histogram records: 0x%" PRIx64
					  "-0x%" PRIx64 " overlaps 0x%" PRIx64 "-0x%" PRIx64 " read before "
					  "(expected the same range or a disjoint one)", name,
					  h->file_offset, h->low_pc, h->high_pc, o->low_pc, o->high_pc);
	}
	plumb_gmon_hist *nh = realloc(g->hists, (g->nhists + 1) * sizeof *nh);
	if (!nh)
		return plumb_fail_nomem(err);
	g->hists = nh;
	plumb_gmon_hist *d = &g->hists[g->nhists];
	*d = *h;
	if (take) {
		h->bins = NULL;
	} else {
		d->bins = malloc((h->nbins ? h->nbins : 1) * sizeof *d->bins);
		if (!d->bins)
			return plumb_fail_nomem(err);
		memcpy(d->bins, h->bins, h->nbins * sizeof *d->bins);
	}
	if (g->nhists++ == 0)
		g->hz = h->prof_rate;
	return 0;
}

int plumb_gmon_add_hist(plumb_gmon *g, const plumb_gmon_hist *h, const char *name,
			plumb_error *err)
{
	return add_hist(g, (plumb_gmon_hist *)h, false, name, err);
}

int plumb_gmon_take_hist(plumb_gmon *g, plumb_gmon_hist *h, const char *name, plumb_error *err)
{
	return add_hist(g, h, true, name, err);
}

/* ---- arcs and BB counts: summed by key ------------------------------- */

static uint32_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull;
	h ^= h >> 31;
	return (uint32_t)(h ^ (h >> 29));
}

/* Grow an index of (id + 1) slots to hold n + 1 entries at most half full;
 * key(i) rehashes entry i. */
typedef uint32_t (*key_fn)(const plumb_gmon *g, size_t i);

static uint32_t arc_key(const plumb_gmon *g, size_t i)
{
	return mix(g->arcs[i].from_pc, g->arcs[i].self_pc);
}

static uint32_t bb_key(const plumb_gmon *g, size_t i)
{
	return mix(g->bbs[i].addr, 0);
}

static int ix_grow(const plumb_gmon *g, uint32_t **ix, size_t *cap, size_t n, key_fn key,
		   plumb_error *err)
{
	if ((n + 1) * 2 <= *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 64;
	uint32_t *t = calloc(nc, sizeof *t);
	if (!t)
		return plumb_fail_nomem(err);
	for (size_t i = 0; i < n; i++) {
		size_t s = key(g, i) & (nc - 1);
		while (t[s])
			s = (s + 1) & (nc - 1);
		t[s] = (uint32_t)(i + 1);
	}
	free(*ix);
	*ix = t;
	*cap = nc;
	return 0;
}

static int grow(void **v, size_t *cap, size_t n, size_t size, plumb_error *err)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 64;
	void *t = realloc(*v, nc * size);
	if (!t)
		return plumb_fail_nomem(err);
	*v = t;
	*cap = nc;
	return 0;
}

static int add_count(uint64_t *dst, uint64_t n, const char *what, plumb_error *err)
{
	if (*dst > UINT64_MAX - n)
		return plumb_fail(err, PLUMB_ERR_OVERFLOW, "%s count overflows 64 bits when summed", what);
	*dst += n;
	return 0;
}

int plumb_gmon_add_arc(plumb_gmon *g, const plumb_gmon_arc *a, plumb_error *err)
{
	if (g->narcs >= UINT32_MAX - 1)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "more than 2^32 distinct arcs");
	if (ix_grow(g, &g->arc_ix, &g->arc_ix_cap, g->narcs, arc_key, err))
		return -1;
	size_t mask = g->arc_ix_cap - 1, s = mix(a->from_pc, a->self_pc) & mask;
	for (; g->arc_ix[s]; s = (s + 1) & mask) {
		plumb_gmon_arc *o = &g->arcs[g->arc_ix[s] - 1];
		if (o->from_pc == a->from_pc && o->self_pc == a->self_pc)
			return add_count(&o->count, a->count, "arc", err);
	}
	if (grow((void **)&g->arcs, &g->arcs_cap, g->narcs, sizeof *g->arcs, err))
		return -1;
	g->arcs[g->narcs++] = *a;
	g->arc_ix[s] = (uint32_t)g->narcs;
	return 0;
}

int plumb_gmon_add_bb(plumb_gmon *g, const plumb_gmon_bb *b, plumb_error *err)
{
	if (g->nbbs >= UINT32_MAX - 1)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "more than 2^32 distinct basic blocks");
	if (ix_grow(g, &g->bb_ix, &g->bb_ix_cap, g->nbbs, bb_key, err))
		return -1;
	size_t mask = g->bb_ix_cap - 1, s = mix(b->addr, 0) & mask;
	for (; g->bb_ix[s]; s = (s + 1) & mask) {
		plumb_gmon_bb *o = &g->bbs[g->bb_ix[s] - 1];
		if (o->addr == b->addr)
			return add_count(&o->count, b->count, "basic-block", err);
	}
	if (grow((void **)&g->bbs, &g->bbs_cap, g->nbbs, sizeof *g->bbs, err))
		return -1;
	g->bbs[g->nbbs++] = *b;
	g->bb_ix[s] = (uint32_t)g->nbbs;
	return 0;
}

/* ---- merging ---------------------------------------------------------- */

static int merge_into(plumb_gmon *dst, const plumb_gmon *src, const char *src_name,
		      plumb_error *err)
{
	for (size_t i = 0; i < src->nhists; i++)
		if (plumb_gmon_add_hist(dst, &src->hists[i], src_name, err))
			return -1;
	for (size_t i = 0; i < src->narcs; i++)
		if (plumb_gmon_add_arc(dst, &src->arcs[i], err))
			return -1;
	for (size_t i = 0; i < src->nbbs; i++)
		if (plumb_gmon_add_bb(dst, &src->bbs[i], err))
			return -1;
	return 0;
}

static int copy_gmon(plumb_gmon *dst, const plumb_gmon *src, plumb_error *err)
{
	memset(dst, 0, sizeof *dst);
	dst->format = src->format;
	dst->addr_size = src->addr_size;
	dst->big_endian = src->big_endian;
	dst->version = src->version;
	dst->nfiles = src->nfiles;
	memcpy(dst->nrecords, src->nrecords, sizeof dst->nrecords);
	if (merge_into(dst, src, "(copy)", err)) {
		plumb_gmon_clear(dst);
		return -1;
	}
	dst->hz = src->hz;
	return 0;
}

int plumb_gmon_merge(plumb_gmon *dst, const plumb_gmon *src, const char *src_name,
		     plumb_error *err)
{
	if (dst->nfiles == 0 && dst->nhists == 0 && dst->narcs == 0 && dst->nbbs == 0) {
		size_t files = dst->nfiles;
		plumb_gmon_clear(dst);
		if (copy_gmon(dst, src, err))
			return -1;
		dst->nfiles += files;
		return 0;
	}
	if (dst->addr_size != src->addr_size || dst->big_endian != src->big_endian)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s: %u-byte %s-endian addresses, but the files read before have "
				  "%u-byte %s-endian ones", src_name, src->addr_size,
				  src->big_endian ? "big" : "little", dst->addr_size,
				  dst->big_endian ? "big" : "little");
	/* Work on a copy so that a failure leaves dst unchanged. */
	plumb_gmon work;
	if (copy_gmon(&work, dst, err))
		return -1;
	if (merge_into(&work, src, src_name, err)) {
		plumb_gmon_clear(&work);
		return -1;
	}
	if (work.hz == 0)
		work.hz = src->hz;
	work.nfiles += src->nfiles;
	for (int t = 0; t < 3; t++)
		work.nrecords[t] += src->nrecords[t];
	plumb_gmon_clear(dst);
	*dst = work;
	return 0;
}
