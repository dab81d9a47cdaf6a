/* The gprof analysis object: its options, its inputs (histograms, arcs,
 * basic-block counts, -c's calls, symspecs) and analyze(), which runs the
 * other files' steps in gprof's order. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "gprof/gp_internal.h"

void plumb_gprof_opts_init(plumb_gprof_opts *o)
{
	memset(o, 0, sizeof *o);
	o->width = 80;
	o->min_count = 1;
	o->table_length = 10;
}

plumb_gprof *plumb_gprof_new(const plumb_gprof_symbol *syms, size_t n, const plumb_gprof_opts *o,
			     plumb_error *err)
{
	plumb_gprof *g = calloc(1, sizeof *g);
	if (!g) {
		plumb_fail_nomem(err);
		return NULL;
	}
	if (o)
		g->o = *o;
	else
		plumb_gprof_opts_init(&g->o);
	if (g->o.width < 1)
		g->o.width = 1;
	/* one spare entry: the assignment loop reads the next symbol's start */
	g->sym = calloc(n + 1, sizeof *g->sym);
	if (!g->sym) {
		free(g);
		plumb_fail_nomem(err);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		gp_sym *s = &g->sym[i];
		s->s = syms[i];
		s->parents = s->children = GP_NONE;
		s->bb_first = s->bb_last = GP_NONE;
		s->cyc_head = (uint32_t)i;
		s->cyc_next = GP_NONE;
	}
	g->nsym = n;
	memcpy(g->dimen, "seconds", 8);
	g->abbrev = 's';
	return g;
}

void plumb_gprof_free(plumb_gprof *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nhist; i++)
		free(g->hist[i].bins);
	for (size_t i = 0; i < g->nspec; i++)
		free(g->spec[i].text);
	for (int t = 0; t < PLUMB_GP_NTABLES; t++)
		free(g->tab[t].r);
	free(g->right);
	free(g->pseudo);
	free(g->pseudo_arc);
	free(g->creation);
	free(g->hist);
	free(g->spec);
	free(g->raw);
	free(g->bb);
	free(g->blocks);
	free(g->statics);
	free(g->arc);
	free(g->by_total);
	free(g->sym);
	free(g);
}

static gp_hist *same_range(plumb_gprof *g, uint64_t low, uint64_t high)
{
	for (size_t i = 0; i < g->nhist; i++)
		if (g->hist[i].low == low && g->hist[i].high == high)
			return &g->hist[i];
	return NULL;
}

static bool overlaps(const plumb_gprof *g, uint64_t low, uint64_t high)
{
	for (size_t i = 0; i < g->nhist; i++) {
		uint64_t lo = g->hist[i].low > low ? g->hist[i].low : low;
		uint64_t hi = g->hist[i].high < high ? g->hist[i].high : high;
		if (lo < hi)
			return true;
	}
	return false;
}

/* The first record fixes rate, unit and scale; later ones must agree. */
static int check_header(plumb_gprof *g, double scale, uint32_t hz, const char *dimen, char abbrev,
			plumb_error *err)
{
	char d[16] = { 0 };
	strncpy(d, dimen ? dimen : "", 15);
	if (g->nhist == 0) {
		g->hz = hz;
		memcpy(g->dimen, d, 16);
		g->abbrev = abbrev;
		g->hist_scale = scale;
		return 0;
	}
	if (strncmp(d, g->dimen, 15) != 0)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "dimension unit changed between histogram records: from '%s' to '%s'",
				  g->dimen, d);
	if (abbrev != g->abbrev)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "dimension abbreviation changed between histogram records: from '%c' to '%c'",
				  g->abbrev, abbrev);
	double diff = g->hist_scale - scale;
	if (diff > 0.000001 || diff < -0.000001)
		return plumb_fail(err, PLUMB_ERR_FORMAT, "different scales in histogram records");
	return 0;
}

/* The 64-bit counts of *bins as 32-bit saturating ones, in the same buffer
 * (element i is read before bytes 4i .. 4i + 3 are written, and those never
 * reach an element not yet read), shrunk to its new size: a histogram of
 * half a million bins then never exists twice. */
static uint32_t *narrow_in_place(uint64_t **bins, uint32_t nbins)
{
	unsigned char *p = (unsigned char *)*bins;
	for (uint32_t i = 0; i < nbins; i++) {
		uint64_t v;
		memcpy(&v, p + (size_t)i * sizeof v, sizeof v);
		uint32_t w = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
		memcpy(p + (size_t)i * sizeof w, &w, sizeof w);
	}
	uint32_t *shrunk = realloc(p, (size_t)nbins * sizeof *shrunk);
	*bins = NULL;
	return shrunk ? shrunk : (uint32_t *)p;
}

/* owned: the caller's malloc'd bins, taken when the range is new (*owned
 * becomes NULL), else only read; NULL to copy bins. */
static int add_hist(plumb_gprof *g, uint64_t low_pc, uint64_t high_pc, uint32_t nbins,
		    const uint64_t *bins, uint64_t **owned, uint32_t hz, const char *dimen, char abbrev,
		    plumb_error *err)
{
	assert(!g->analyzed); /* analyze gives the bins back */
	if (nbins == 0 || high_pc < low_pc)
		return plumb_fail(err, PLUMB_ERR_FORMAT, "histogram record with %s",
				  nbins == 0 ? "no bins" : "its end before its start");
	double scale = (double)((high_pc - low_pc) / 2) / nbins;
	if (check_header(g, scale, hz, dimen, abbrev, err))
		return -1;
	gp_hist *h = same_range(g, low_pc, high_pc);
	if (!h) {
		if (overlaps(g, low_pc, high_pc))
			return plumb_fail(err, PLUMB_ERR_FORMAT, "overlapping histogram records");
		gp_hist *nh = realloc(g->hist, (g->nhist + 1) * sizeof *nh);
		if (!nh)
			return plumb_fail_nomem(err);
		g->hist = nh;
		h = &nh[g->nhist];
		h->low = low_pc;
		h->high = high_pc;
		h->nbins = nbins;
		if (owned && *owned) {
			h->bins = narrow_in_place(owned, nbins);
			g->nhist++;
			return 0;
		}
		h->bins = calloc(nbins, sizeof *h->bins);
		if (!h->bins)
			return plumb_fail_nomem(err);
		g->nhist++;
	} else if (h->nbins != nbins) {
		return plumb_fail(err, PLUMB_ERR_FORMAT, "histogram records for one range differ in bins");
	}
	for (uint32_t i = 0; i < nbins; i++) {
		uint64_t sum = (uint64_t)h->bins[i] + bins[i];
		h->bins[i] = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
	}
	return 0;
}

int plumb_gprof_add_hist(plumb_gprof *g, uint64_t low_pc, uint64_t high_pc, uint32_t nbins,
			 const uint64_t *bins, uint32_t hz, const char *dimen, char abbrev,
			 plumb_error *err)
{
	return add_hist(g, low_pc, high_pc, nbins, bins, NULL, hz, dimen, abbrev, err);
}

int plumb_gprof_take_hist(plumb_gprof *g, uint64_t low_pc, uint64_t high_pc, uint32_t nbins,
			  uint64_t **bins, uint32_t hz, const char *dimen, char abbrev, plumb_error *err)
{
	return add_hist(g, low_pc, high_pc, nbins, *bins, bins, hz, dimen, abbrev, err);
}

/* Room for one more of n elements of size elem in *v (capacity *cap). */
static bool room(void **v, size_t n, size_t *cap, size_t elem)
{
	if (n < *cap)
		return true;
	size_t nc = *cap ? *cap * 2 : 64;
	void *nv = realloc(*v, nc * elem);
	if (!nv)
		return false;
	*v = nv;
	*cap = nc;
	return true;
}

/* Out of memory here only loses data; analyze reports it. */
void plumb_gprof_add_arc(plumb_gprof *g, uint64_t from_pc, uint64_t self_pc, uint64_t count)
{
	assert(!g->analyzed); /* analyze gives the records back */
	if (room((void **)&g->raw, g->nraw, &g->raw_cap, sizeof *g->raw))
		g->raw[g->nraw++] = (gp_rawarc){ from_pc, self_pc, count };
	else
		g->lost = true;
}

void plumb_gprof_add_bb(plumb_gprof *g, uint64_t addr, uint64_t count)
{
	if (room((void **)&g->bb, g->nbb, &g->bb_cap, sizeof *g->bb))
		g->bb[g->nbb++] = (gp_bb_count){ addr, count };
	else
		g->lost = true;
}

void plumb_gprof_add_static_call(plumb_gprof *g, uint64_t from, uint64_t to)
{
	if (room((void **)&g->statics, g->nstatic, &g->static_cap, sizeof *g->statics))
		g->statics[g->nstatic++] = (gp_static_call){ from, to };
	else
		g->lost = true;
}

bool gp_in_hist(const plumb_gprof *g, uint64_t pc)
{
	for (size_t i = 0; i < g->nhist; i++)
		if (g->hist[i].low <= pc && pc < g->hist[i].high)
			return true;
	return false;
}

int plumb_gprof_add_spec(plumb_gprof *g, plumb_gprof_table t, const char *spec, plumb_error *err)
{
	if ((unsigned)t >= PLUMB_GP_NTABLES || !spec)
		return plumb_fail(err, PLUMB_ERR_USAGE, "bad symspec table");
	gp_spec_text *ns = realloc(g->spec, (g->nspec + 1) * sizeof *ns);
	if (!ns)
		return plumb_fail_nomem(err);
	g->spec = ns;
	ns[g->nspec].table = t;
	if (!(ns[g->nspec].text = strdup(spec)))
		return plumb_fail_nomem(err);
	g->nspec++;
	return 0;
}

bool plumb_gprof_has_hist(const plumb_gprof *g) { return g->nhist > 0; }
bool plumb_gprof_has_arcs(const plumb_gprof *g) { return g->nraw > 0; }

/* gprof -l: each block on the symbol holding its address, in the first
 * free or equal slot of ten (a block beyond them is lost, as in gprof;
 * address 0 marks a free slot there, so it counts nowhere). */
static int place_blocks(plumb_gprof *g)
{
	if (!g->nbb)
		return 0;
	if (!(g->blocks = malloc(g->nbb * sizeof *g->blocks)))
		return -1;
	for (size_t i = 0; i < g->nbb; i++) {
		uint64_t addr = g->bb[i].addr;
		uint32_t si = gp_sym_at(g, addr);
		if (si == GP_NONE || addr == 0)
			continue;
		gp_sym *s = &g->sym[si];
		uint32_t b = s->bb_first;
		while (b != GP_NONE && g->blocks[b].addr != addr)
			b = g->blocks[b].next;
		if (b != GP_NONE) {
			g->blocks[b].count += g->bb[i].count;
			continue;
		}
		if (s->nbb == GP_NBBS)
			continue;
		uint32_t n = (uint32_t)g->nblocks++;
		g->blocks[n] = (gp_bb){ addr, g->bb[i].count, GP_NONE };
		if (s->bb_last == GP_NONE)
			s->bb_first = n;
		else
			g->blocks[s->bb_last].next = n;
		s->bb_last = n;
		s->nbb++;
	}
	return 0;
}

int plumb_gprof_analyze(plumb_gprof *g, plumb_error *err)
{
	if (g->lost)
		return plumb_fail_nomem(err);
	if (g->analyzed)
		return plumb_fail(err, PLUMB_ERR_USAGE, "plumb_gprof_analyze called twice");
	g->analyzed = true;
	if (gp_specs_resolve(g, err))
		return -1;
	if (g->o.line && place_blocks(g))
		return plumb_fail_nomem(err);
	if (g->nhist)
		gp_hist_assign(g);
	/* the symbols have their time: the bins are not read again */
	for (size_t k = 0; k < g->nhist; k++) {
		free(g->hist[k].bins);
		g->hist[k].bins = NULL;
	}
	if (g->nraw)
		return gp_graph_build(g, err);
	return 0;
}
