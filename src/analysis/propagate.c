/* gprof's propagation, the estimate of what a call costs when only call
 * counts were recorded (gmon.out). As GNU gprof 2.40 computes it (research
 * gprof.md §2.4-2.5), over the strongly connected components of the
 * function graph, which are gprof's cycles:
 *  - top-down, each component's propagation fraction: the share of its
 *    calls that come from callers whose time propagates (1 for a root; 0
 *    for the -pg runtime, which gprof's default options leave out);
 *  - bottom-up, each call p -> c outside p's component receives
 *    (time + child time of c's component) * count / (calls into it), and
 *    p's component adds that to its child time; the arc's cost is that
 *    share times p's fraction.
 * A cycle's time is its members' self time; calls inside it carry nothing.
 * Self costs are the model's (ns), so the estimates are in the same unit.
 * Each share is rounded to a whole cost before it is added to the caller's
 * child time, so that a callee's inclusive cost as metrics sum it (self
 * plus its rounded arcs) is what its callers share: a sole caller gets
 * exactly that, not a rounding away. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cycles.h"
#include "analysis/propagate.h"
#include "plumb/gmon.h"

bool propagate_wanted(const plumb_profile *p)
{
	for (size_t i = 0; i < p->parts.n; i++)
		if (p->parts.v[i].arc_costs == PLUMB_ARC_COSTS_GPROF)
			return true;
	return false;
}

/* gprof's default exclusions: the profiling runtime's own functions take
 * no part in propagation. */
static bool is_mcount_family(const plumb_profile *p, plumb_id fn)
{
	const plumb_function *f = &p->functions.v[fn];
	const char *name = plumb_str(p, f->mangled != PLUMB_NONE ? f->mangled : f->name);
	for (const char *const *r = plumb_gmon_mcount_family; name && *r; r++)
		if (strcmp(name, *r) == 0)
			return true;
	return false;
}

/* One part's graph and the quantities of the two passes. */
typedef struct prop {
	const plumb_profile *p;
	plumb_id part;
	size_t nf, nev;
	uint32_t *start;   /* nf + 1: the part's arcs by caller function */
	uint32_t *arc;     /* arc ids in that order */
	uint32_t *callee;  /* their callee functions (the graph for plumb_scc) */
	uint32_t *comp;    /* function -> component; an arc goes to a smaller one */
	size_t ncomp;
	uint32_t *cstart, *member; /* functions by component */
	uint64_t *ncalls;  /* per component: calls from other components */
	double *fract;     /* per function: its propagation fraction */
	double *inherit;   /* per component: fraction gathered from its callers */
	double *self;      /* per function * nev */
	double *time, *child; /* per component * nev */
} prop;

static plumb_id caller_fn(const prop *g, uint32_t a)
{
	return g->p->frames.v[g->p->arcs.v[a].caller].function;
}

static uint64_t arc_count(const prop *g, uint32_t a)
{
	uint64_t c = g->p->arcs.v[a].calls;
	return c == PLUMB_COUNT_UNKNOWN ? 0 : c;
}

/* The part's arcs grouped by caller function (counting sort). */
static int by_caller(prop *g)
{
	const plumb_profile *p = g->p;
	size_t na = p->arcs.n;
	g->start = calloc(g->nf + 2, sizeof *g->start);
	g->arc = malloc((na ? na : 1) * sizeof *g->arc);
	g->callee = malloc((na ? na : 1) * sizeof *g->callee);
	if (!g->start || !g->arc || !g->callee)
		return -1;
	for (uint32_t a = 0; a < na; a++)
		if (p->arcs.v[a].part == g->part)
			g->start[caller_fn(g, a) + 2]++;
	for (size_t f = 0; f < g->nf; f++)
		g->start[f + 2] += g->start[f + 1];
	for (uint32_t a = 0; a < na; a++)
		if (p->arcs.v[a].part == g->part) {
			uint32_t k = g->start[caller_fn(g, a) + 1]++;
			g->arc[k] = a;
			g->callee[k] = p->arcs.v[a].callee;
		}
	return 0;
}

/* Components, their members, and the calls into each from outside it. */
static int components(prop *g)
{
	g->comp = malloc((g->nf ? g->nf : 1) * sizeof *g->comp);
	if (!g->comp)
		return -1;
	long n = plumb_scc(g->nf, g->start, g->callee, g->comp);
	if (n < 0)
		return -1;
	g->ncomp = (size_t)n;
	size_t nc = g->ncomp ? g->ncomp : 1;
	g->cstart = calloc(nc + 2, sizeof *g->cstart);
	g->member = malloc((g->nf ? g->nf : 1) * sizeof *g->member);
	g->ncalls = calloc(nc, sizeof *g->ncalls);
	if (!g->cstart || !g->member || !g->ncalls)
		return -1;
	for (size_t f = 0; f < g->nf; f++)
		g->cstart[g->comp[f] + 2]++;
	for (size_t c = 0; c < g->ncomp; c++)
		g->cstart[c + 2] += g->cstart[c + 1];
	for (size_t f = 0; f < g->nf; f++)
		g->member[g->cstart[g->comp[f] + 1]++] = (uint32_t)f;
	for (size_t f = 0; f < g->nf; f++)
		for (uint32_t k = g->start[f]; k < g->start[f + 1]; k++) {
			uint32_t to = g->comp[g->callee[k]];
			uint64_t *calls = &g->ncalls[to];
			uint64_t c = arc_count(g, g->arc[k]);
			if (to != g->comp[f])
				*calls = *calls > UINT64_MAX - c ? UINT64_MAX : *calls + c;
		}
	return 0;
}

static int self_costs(prop *g)
{
	const plumb_profile *p = g->p;
	g->self = calloc((g->nf ? g->nf : 1) * (g->nev ? g->nev : 1), sizeof *g->self);
	if (!g->self)
		return -1;
	for (size_t i = 0; i < p->cg_self.n; i++) {
		const plumb_cg_self *s = &p->cg_self.v[i];
		if (s->part != g->part)
			continue;
		double *d = g->self + (size_t)p->frames.v[s->frame].function * g->nev;
		for (size_t e = 0; e < g->nev; e++)
			d[e] += (double)p->cg_self_cost.v[i * g->nev + e];
	}
	return 0;
}

/* Top-down (callers have the larger component numbers): a component's
 * fraction is complete when its turn comes, then pushed to its callees. */
static int fractions(prop *g)
{
	size_t nc = g->ncomp ? g->ncomp : 1;
	g->fract = malloc((g->nf ? g->nf : 1) * sizeof *g->fract);
	g->inherit = calloc(nc, sizeof *g->inherit);
	if (!g->fract || !g->inherit)
		return -1;
	for (size_t c = g->ncomp; c-- > 0;) {
		double f = g->inherit[c] != 0.0 ? g->inherit[c] : 1.0;
		for (uint32_t i = g->cstart[c]; i < g->cstart[c + 1]; i++) {
			uint32_t m = g->member[i];
			g->fract[m] = is_mcount_family(g->p, m) ? 0.0 : f;
		}
		for (uint32_t i = g->cstart[c]; i < g->cstart[c + 1]; i++) {
			uint32_t m = g->member[i];
			for (uint32_t k = g->start[m]; k < g->start[m + 1]; k++) {
				uint32_t to = g->comp[g->callee[k]];
				if (to != c && g->ncalls[to])
					g->inherit[to] += g->fract[m] * ((double)arc_count(g, g->arc[k]) /
									 (double)g->ncalls[to]);
			}
		}
	}
	return 0;
}

static uint64_t to_cost(double x)
{
	if (!(x > 0))
		return 0;
	return x < 9.0e18 ? (uint64_t)llround(x) : UINT64_MAX;
}

/* Bottom-up (callees have the smaller component numbers). */
static int shares(prop *g, uint64_t *out)
{
	size_t nc = g->ncomp ? g->ncomp : 1, nev = g->nev;
	g->time = calloc(nc * (nev ? nev : 1), sizeof *g->time);
	g->child = calloc(nc * (nev ? nev : 1), sizeof *g->child);
	if (!g->time || !g->child)
		return -1;
	for (size_t f = 0; f < g->nf; f++)
		if (g->fract[f] != 0.0)
			for (size_t e = 0; e < nev; e++)
				g->time[g->comp[f] * nev + e] += g->self[f * nev + e];
	for (size_t c = 0; c < g->ncomp; c++)
		for (uint32_t i = g->cstart[c]; i < g->cstart[c + 1]; i++) {
			uint32_t m = g->member[i];
			if (g->fract[m] == 0.0)
				continue;
			for (uint32_t k = g->start[m]; k < g->start[m + 1]; k++) {
				uint32_t a = g->arc[k], callee = g->callee[k], d = g->comp[callee];
				uint64_t count = arc_count(g, a);
				if (!count || callee == m || g->fract[callee] == 0.0 || d == c ||
				    !g->ncalls[d])
					continue;
				double share = (double)count / (double)g->ncalls[d];
				for (size_t e = 0; e < nev; e++) {
					double s = (g->time[d * nev + e] + g->child[d * nev + e]) * share;
					uint64_t whole = to_cost(s);
					g->child[c * nev + e] += (double)whole;
					out[(size_t)a * nev + e] =
						g->fract[m] == 1.0 ? whole : to_cost(s * g->fract[m]);
				}
			}
		}
	return 0;
}

static void prop_free(prop *g)
{
	free(g->start);
	free(g->arc);
	free(g->callee);
	free(g->comp);
	free(g->cstart);
	free(g->member);
	free(g->ncalls);
	free(g->fract);
	free(g->inherit);
	free(g->self);
	free(g->time);
	free(g->child);
}

static int propagate_part(const plumb_profile *p, plumb_id part, uint64_t *out)
{
	prop g = { .p = p, .part = part, .nf = p->functions.n, .nev = p->events.n };
	int rc = by_caller(&g) || components(&g) || self_costs(&g) || fractions(&g) ||
		 shares(&g, out) ? -1 : 0;
	prop_free(&g);
	return rc;
}

int propagate_gprof(const plumb_profile *p, uint64_t **out, plumb_error *err)
{
	size_t n = p->arcs.n * p->events.n;
	*out = calloc(n ? n : 1, sizeof **out);
	if (!*out)
		return plumb_fail_nomem(err);
	for (size_t i = 0; i < p->parts.n; i++)
		if (p->parts.v[i].arc_costs == PLUMB_ARC_COSTS_GPROF &&
		    propagate_part(p, (plumb_id)i, *out)) {
			free(*out);
			*out = NULL;
			return plumb_fail_nomem(err);
		}
	return 0;
}
