/* Metrics of a call graph (Callgrind, gmon.out): self costs and arcs
 * without contexts. Recursion is found as strongly connected components of
 * each level's key graph, so that no cost is counted twice; SCCs of two or
 * more functions are shown as cycles (docs/metrics.md). Arcs whose costs
 * were not measured (gmon.out) get gprof's estimate (propagate.c). */
#include <stdlib.h>
#include <string.h>

#include "analysis/metrics_internal.h"
#include "analysis/propagate.h"

/* A call graph (Callgrind, gmon.out): self costs per frame and arcs. Here
 * only the self costs and the arcs are gathered; inclusive cost needs the
 * recursion structure (scc_stage). A key's call count is the calls from
 * other keys: a recursive call (a self arc) is not a new entry into it.
 * est holds gprof's estimate of arc costs where the profile wants one. */
static int gather_call_graph(builder *b, const plumb_metrics_opts *o, const uint64_t *est,
			     plumb_error *err)
{
	const plumb_profile *p = b->p;
	for (size_t i = 0; i < p->cg_self.n; i++) {
		const plumb_cg_self *s = &p->cg_self.v[i];
		if (o->part != PLUMB_NONE && s->part != o->part)
			continue;
		const uint64_t *m = p->cg_self_cost.v + i * b->nev;
		uint32_t k = b->frame_key[s->frame];
		if (metrics_add(b, b->excl.v, k, m, err) || metrics_add(b, b->incl.v, k, m, err) ||
		    plumb_costs_add(b->m->totals, m, b->nev, err))
			return -1;
	}
	for (size_t i = 0; i < p->arcs.n; i++) {
		const plumb_arc *pa = &p->arcs.v[i];
		if (o->part != PLUMB_NONE && pa->part != o->part)
			continue;
		uint32_t from = b->frame_key[pa->caller];
		const plumb_function *callee = &p->functions.v[pa->callee];
		plumb_key ck = { pa->callee, callee->file, callee->module, 0 }; /* as frame_to_key */
		if (b->m->level != PLUMB_LEVEL_FUNCTION) {
			/* The callee's entry frame stands for it at other levels. */
			plumb_key fk = { PLUMB_NONE, PLUMB_NONE, PLUMB_NONE, 0 };
			fk.file = b->m->level == PLUMB_LEVEL_MODULE ? PLUMB_NONE : callee->file;
			fk.module = callee->module;
			if (b->m->level == PLUMB_LEVEL_LINE) {
				fk.function = pa->callee;
				fk.line = callee->line;
			}
			ck = fk;
		}
		uint32_t to = b->fn_key && b->fn_key[pa->callee] != PLUMB_NONE ? b->fn_key[pa->callee]
										: metrics_key_intern(b, &ck);
		uint32_t a = PLUMB_NONE;
		if (b->direct && to != PLUMB_NONE) {
			b->arc_to[i] = to;
		} else {
			a = to == PLUMB_NONE ? PLUMB_NONE : metrics_arc_get(b, from, to);
			if (a == PLUMB_NONE)
				return plumb_fail_nomem(err);
			b->arc_cg.v[a] = 1;
			if (!metrics_count_add(&b->arcs.v[a].calls, pa->calls))
				return plumb_fail(err, PLUMB_ERR_OVERFLOW, "call count overflow");
		}
		if (to == PLUMB_NONE)
			return plumb_fail_nomem(err);
		if (from != to && pa->calls == PLUMB_COUNT_UNKNOWN) {
			b->calls_known.v[to] = 0;
		} else if (from != to) {
			if (b->calls.v[to] > UINT64_MAX - 1 - pa->calls)
				return plumb_fail(err, PLUMB_ERR_OVERFLOW, "call count overflow");
			b->calls.v[to] += pa->calls;
		}
		if (!pa->has_inclusive)
			b->m->inclusive_estimated = true;
		if (b->direct)
			continue; /* the costs are added in the SCC stage */
		const uint64_t *m = pa->has_inclusive ? p->arc_incl.v + i * b->nev
			: est && p->parts.v[pa->part].arc_costs == PLUMB_ARC_COSTS_GPROF ? est + i * b->nev
			: NULL;
		if (m && ((!b->keys_only && (metrics_add(b, b->callee_attr.v, a, m, err) ||
					     metrics_add(b, b->caller_attr.v, a, m, err))) ||
			  metrics_add(b, b->cg_cost.v, a, m, err)))
			return -1;
	}
	return 0;
}

int metrics_from_call_graph(builder *b, const plumb_metrics_opts *o, plumb_error *err)
{
	uint64_t *est = NULL;
	if (propagate_wanted(b->p) && propagate_gprof(b->p, &est, err))
		return -1;
	const plumb_profile *p = b->p;
	b->direct = b->keys_only && !est && b->arcs.n == 0 && p->points.n == 0 && p->arcs.n > 0;
	if (b->direct) {
		if (!(b->arc_to = malloc(p->arcs.n * sizeof *b->arc_to)))
			return plumb_fail_nomem(err);
		memset(b->arc_to, 0xff, p->arcs.n * sizeof *b->arc_to);
	}
	int rc = gather_call_graph(b, o, est, err);
	free(est);
	return rc;
}

/* ---- recursion: SCCs of the key graph ------------------------------------ */

/* The vertex of a key in the graph whose SCCs decide recursion: the key
 * itself, except at the line level, where a line belongs to its function
 * (a call-graph arc goes from a call-site line to the callee's first line,
 * so the line graph alone has no edge back up through a function). */
static uint32_t vertex_of(const builder *b, uint32_t k)
{
	return b->m->level == PLUMB_LEVEL_LINE ? b->keys.v[k].function : k;
}

/* The caller and callee keys of arc a, a call-graph arc: the builder's
 * (arc_cg), or with b->direct the profile's arc a (arc_to). */
static bool arc_ends(const builder *b, size_t a, uint32_t *from, uint32_t *to)
{
	if (b->direct) {
		*to = b->arc_to[a];
		*from = b->frame_key[b->p->arcs.v[a].caller];
		return *to != PLUMB_NONE;
	}
	*from = b->arcs.v[a].caller;
	*to = b->arcs.v[a].callee;
	return b->arc_cg.v[a] != 0;
}

/* Its measured inclusive cost (NULL: none), its call count. */
static const uint64_t *arc_cost(const builder *b, size_t a, uint64_t *calls)
{
	if (b->direct) {
		const plumb_arc *pa = &b->p->arcs.v[a];
		*calls = pa->calls;
		return pa->has_inclusive ? b->p->arc_incl.v + a * b->nev : NULL;
	}
	*calls = b->arcs.v[a].calls;
	return b->cg_cost.v + a * b->nev;
}

/* comp[key]: the SCC of each key over the call-graph arcs; NULL on ENOMEM.
 * *ncomp receives the number of components. */
static uint32_t *key_components(builder *b, long *ncomp)
{
	size_t nk = b->keys.n, na = b->direct ? b->p->arcs.n : b->arcs.n;
	size_t nv = b->m->level == PLUMB_LEVEL_LINE ? b->p->functions.n : nk;
	uint32_t *start = calloc(nv + 2, sizeof *start), *adj = malloc((na ? na : 1) * sizeof *adj);
	uint32_t *vcomp = malloc((nv ? nv : 1) * sizeof *vcomp), *comp = malloc((nk ? nk : 1) * sizeof *comp);
	uint32_t *comp_ok = NULL;
	if (!start || !adj || !vcomp || !comp)
		goto out;
	/* Counting sort of the call-graph arcs by caller vertex. */
	uint32_t from, to;
	for (size_t a = 0; a < na; a++)
		if (arc_ends(b, a, &from, &to))
			start[vertex_of(b, from) + 2]++;
	for (size_t v = 0; v < nv; v++)
		start[v + 2] += start[v + 1];
	for (size_t a = 0; a < na; a++)
		if (arc_ends(b, a, &from, &to))
			adj[start[vertex_of(b, from) + 1]++] = vertex_of(b, to);
	if ((*ncomp = plumb_scc(nv, start, adj, vcomp)) < 0)
		goto out;
	for (size_t k = 0; k < nk; k++)
		comp[k] = vcomp[vertex_of(b, (uint32_t)k)];
	comp_ok = comp;
	comp = NULL;
out:
	free(start);
	free(adj);
	free(vcomp);
	free(comp);
	return comp_ok;
}

typedef struct cycle_sort {
	const uint64_t *incl;
	const uint32_t *lowest;
	size_t nev;
} cycle_sort;

/* Heaviest first (first event), then by lowest member key: deterministic. */
static int cycle_cmp(const void *va, const void *vb, void *ctx)
{
	const cycle_sort *s = ctx;
	uint32_t a = *(const uint32_t *)va, b = *(const uint32_t *)vb;
	uint64_t x = s->nev ? s->incl[a * s->nev] : 0, y = s->nev ? s->incl[b * s->nev] : 0;
	if (x != y)
		return x < y ? 1 : -1;
	return s->lowest[a] < s->lowest[b] ? -1 : s->lowest[a] > s->lowest[b];
}

/* Cycle costs, indexed by candidate (an SCC of 2+ keys): exclusive is the
 * members' sum, inclusive adds the arcs leaving the SCC, calls the arcs
 * entering it. */
static int cycle_costs(builder *b, const uint32_t *comp, const uint32_t *cand, uint64_t *cexcl,
		       uint64_t *cincl, uint64_t *ccalls, uint32_t *lowest, plumb_error *err)
{
	for (size_t k = 0; k < b->keys.n; k++) {
		uint32_t c = cand[comp[k]];
		if (c == PLUMB_NONE)
			continue;
		if (lowest[c] > k)
			lowest[c] = (uint32_t)k;
		if (plumb_costs_add(cexcl + (size_t)c * b->nev, b->excl.v + k * b->nev, b->nev, err) ||
		    plumb_costs_add(cincl + (size_t)c * b->nev, b->excl.v + k * b->nev, b->nev, err))
			return -1;
	}
	size_t na = b->direct ? b->p->arcs.n : b->arcs.n;
	for (size_t a = 0; a < na; a++) {
		uint32_t ka, kb, n;
		if (!arc_ends(b, a, &ka, &kb) || (n = comp[ka]) == comp[kb])
			continue;
		uint32_t to = comp[kb];
		uint64_t nc;
		const uint64_t *cost = arc_cost(b, a, &nc);
		if (cand[n] != PLUMB_NONE && cost &&
		    plumb_costs_add(cincl + (size_t)cand[n] * b->nev, cost, b->nev, err))
			return -1;
		uint64_t *calls = cand[to] != PLUMB_NONE ? &ccalls[cand[to]] : NULL;
		if (calls && !metrics_count_add(calls, nc))
			return plumb_fail(err, PLUMB_ERR_OVERFLOW, "call count overflow");
	}
	return 0;
}

/* Number the candidates by cycle_cmp and fill the metrics' cycle arrays. */
static int number_cycles(builder *b, const uint32_t *comp, const uint32_t *cand, size_t nc,
			 uint64_t *cexcl, uint64_t *cincl, const uint64_t *ccalls, const uint32_t *lowest)
{
	plumb_metrics *m = b->m;
	size_t nev = b->nev, nk = b->keys.n;
	uint32_t *order = malloc((nc ? nc : 1) * sizeof *order), *rank = malloc((nc ? nc : 1) * sizeof *rank);
	m->cycles = calloc(nc ? nc : 1, sizeof *m->cycles);
	m->cycle_members = malloc((nk ? nk : 1) * sizeof *m->cycle_members);
	m->cycle_exclusive = malloc((nc ? nc : 1) * (nev ? nev : 1) * sizeof(uint64_t));
	m->cycle_inclusive = malloc((nc ? nc : 1) * (nev ? nev : 1) * sizeof(uint64_t));
	if (!order || !rank || !m->cycles || !m->cycle_members || !m->cycle_exclusive ||
	    !m->cycle_inclusive) {
		free(order);
		free(rank);
		return -1;
	}
	for (size_t i = 0; i < nc; i++)
		order[i] = (uint32_t)i;
	cycle_sort cs = { cincl, lowest, nev };
	qsort_r(order, nc, sizeof *order, cycle_cmp, &cs);
	for (size_t r = 0; r < nc; r++) {
		uint32_t c = order[r];
		rank[c] = (uint32_t)r;
		memcpy(m->cycle_exclusive + r * nev, cexcl + (size_t)c * nev, nev * sizeof(uint64_t));
		memcpy(m->cycle_inclusive + r * nev, cincl + (size_t)c * nev, nev * sizeof(uint64_t));
		m->cycles[r].calls = ccalls[c];
	}
	for (size_t k = 0; k < nk; k++)
		if (cand[comp[k]] != PLUMB_NONE)
			m->cycles[rank[cand[comp[k]]]].n++;
	uint32_t first = 0;
	for (size_t r = 0; r < nc; r++) {
		m->cycles[r].first = first;
		first += m->cycles[r].n;
		m->cycles[r].n = 0;
	}
	for (size_t k = 0; k < nk; k++) {
		if (cand[comp[k]] == PLUMB_NONE)
			continue;
		uint32_t r = rank[cand[comp[k]]];
		m->cycle_members[m->cycles[r].first + m->cycles[r].n++] = (uint32_t)k;
		m->cycle[k] = r + 1;
	}
	m->ncycles = nc;
	free(order);
	free(rank);
	return 0;
}

/* The SCCs of 2+ functions become cycles (function level only). */
static int find_cycles(builder *b, const uint32_t *comp, long ncomp, plumb_error *err)
{
	size_t nev = b->nev, nk = b->keys.n;
	uint32_t *size = calloc((size_t)ncomp + 1, sizeof *size);
	uint32_t *cand = malloc(((size_t)ncomp + 1) * sizeof *cand);
	uint64_t *cexcl = NULL, *cincl = NULL, *ccalls = NULL;
	uint32_t *lowest = NULL;
	int rc = -1;
	if (!size || !cand)
		goto nomem;
	for (size_t k = 0; k < nk; k++)
		size[comp[k]]++;
	size_t nc = 0;
	for (long c = 0; c < ncomp; c++)
		cand[c] = size[c] >= 2 ? (uint32_t)nc++ : PLUMB_NONE;
	cexcl = calloc((nc ? nc : 1) * (nev ? nev : 1), sizeof *cexcl);
	cincl = calloc((nc ? nc : 1) * (nev ? nev : 1), sizeof *cincl);
	ccalls = calloc(nc ? nc : 1, sizeof *ccalls);
	lowest = malloc((nc ? nc : 1) * sizeof *lowest);
	if (!cexcl || !cincl || !ccalls || !lowest)
		goto nomem;
	memset(lowest, 0xff, (nc ? nc : 1) * sizeof *lowest);
	if (cycle_costs(b, comp, cand, cexcl, cincl, ccalls, lowest, err))
		goto out;
	if (number_cycles(b, comp, cand, nc, cexcl, cincl, ccalls, lowest))
		goto nomem;
	rc = 0;
	goto out;
nomem:
	plumb_fail_nomem(err);
out:
	free(size);
	free(cand);
	free(cexcl);
	free(cincl);
	free(ccalls);
	free(lowest);
	return rc;
}

static bool has_big_scc(const uint32_t *comp, size_t nk, long ncomp)
{
	uint8_t *seen = calloc((size_t)ncomp + 1, 1);
	bool big = false;
	for (size_t k = 0; seen && k < nk && !big; k++)
		big = seen[comp[k]]++ != 0;
	free(seen);
	return big;
}

/* Files and modules in an SCC (a callback: main.c -> libc -> main.c) lose
 * every call between them; but a file or module is on the stack whenever
 * one of its functions is, so its inclusive cost is at least each of its
 * functions' (themselves never counted twice). Raise it to that bound. */
static int raise_to_functions(builder *b, const plumb_metrics_opts *o, plumb_error *err)
{
	plumb_metrics_opts fo = *o;
	fo.level = PLUMB_LEVEL_FUNCTION;
	fo.no_cycles = true;
	plumb_metrics *fm = NULL;
	if (plumb_metrics_compute(b->p, &fo, &fm, err))
		return -1;
	for (size_t f = 0; f < fm->nkeys; f++) {
		const plumb_key *fk = &fm->keys[f];
		plumb_key k = { PLUMB_NONE, b->m->level == PLUMB_LEVEL_FILE ? fk->file : PLUMB_NONE,
				fk->module, 0 };
		uint32_t id = metrics_key_find(b, &k);
		if (id == PLUMB_NONE)
			continue;
		uint64_t *incl = b->incl.v + (size_t)id * b->nev;
		const uint64_t *fi = plumb_metrics_incl(fm, f);
		for (size_t e = 0; e < b->nev; e++)
			if (fi[e] > incl[e])
				incl[e] = fi[e];
	}
	plumb_metrics_free(fm);
	return 0;
}

/* Inclusive cost from a call graph: a key's own cost plus the inclusive
 * costs of its call-graph arcs to keys outside its SCC. Arcs inside an SCC
 * are recursive calls whose cost is already in an outer call's: adding
 * them would count it twice (callgrind_annotate's 145 %). */
int metrics_scc_stage(builder *b, const plumb_metrics_opts *o, plumb_error *err)
{
	plumb_metrics *m = b->m;
	size_t na = b->arcs.n, nk = b->keys.n;
	m->arc_in_scc = calloc(na ? na : 1, 1);
	m->cycle = calloc(nk ? nk : 1, sizeof *m->cycle);
	if (!m->arc_in_scc || !m->cycle)
		return plumb_fail_nomem(err);
	if (b->p->cg_self.n == 0 && b->p->arcs.n == 0)
		return 0;
	long ncomp = 0;
	uint32_t *comp = key_components(b, &ncomp);
	if (!comp)
		return plumb_fail_nomem(err);
	int rc = 0;
	for (size_t a = 0; a < na && rc == 0; a++) {
		const plumb_metric_arc *ma = &b->arcs.v[a];
		if (!b->arc_cg.v[a])
			continue;
		m->arc_in_scc[a] = comp[ma->caller] == comp[ma->callee];
		if (!m->arc_in_scc[a])
			rc = metrics_add(b, b->incl.v, ma->caller, b->cg_cost.v + a * b->nev, err);
	}
	/* direct: the profile's arcs, the same sums (na is 0) */
	for (size_t a = 0; b->direct && a < b->p->arcs.n && rc == 0; a++) {
		uint32_t from, to;
		uint64_t calls;
		const uint64_t *cost = arc_cost(b, a, &calls);
		if (arc_ends(b, a, &from, &to) && cost && comp[from] != comp[to])
			rc = metrics_add(b, b->incl.v, from, cost, err);
	}
	if (rc == 0 && o->level == PLUMB_LEVEL_FUNCTION && !o->no_cycles)
		rc = find_cycles(b, comp, ncomp, err);
	if (rc == 0 && (o->level == PLUMB_LEVEL_FILE || o->level == PLUMB_LEVEL_MODULE) &&
	    has_big_scc(comp, nk, ncomp))
		rc = raise_to_functions(b, o, err);
	free(comp);
	return rc;
}
