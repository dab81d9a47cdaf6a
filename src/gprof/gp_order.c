/* -r: gprof's suggested function order for the linker, from the arcs: the
 * functions most call sites use first, then chains of callers and callees
 * placed next to each other along the busiest arcs, then the rest, then
 * the functions never called. The same steps and thresholds as gprof
 * 2.40, so the same list. */
#include <stdlib.h>
#include <string.h>

#include "gprof/gp_internal.h"

/* An arc as -r sees it: gprof's count-0 arcs of from/to specs first, then
 * the arcs read, both between symbols or the specs' pseudo symbols. */
typedef struct oarc {
	uint32_t parent, child;
	uint64_t count;
} oarc;

typedef struct placing {
	plumb_gprof *g;
	FILE *out;
	oarc *A;
	size_t off;             /* real arc a is A[off + a] */
	uint32_t *next, *prev;  /* chains, GP_NONE at the ends */
	bool *sym_placed;
	bool *arc_placed;
	unsigned *nuses;
} placing;

static bool free_end(const placing *p, uint32_t s)
{
	return p->next[s] == GP_NONE && p->prev[s] == GP_NONE;
}

/* The end of s's chain nearest to s (its far end for *count steps). */
static uint32_t walk(uint32_t s, const uint32_t *link, unsigned *count)
{
	*count = 0;
	while (link[s] != GP_NONE) {
		s = link[s];
		++*count;
	}
	return s;
}

/* The end of a chain that s is not at. */
static uint32_t other_end(const placing *p, uint32_t s)
{
	unsigned n;
	return p->next[s] != GP_NONE ? walk(s, p->next, &n) : walk(s, p->prev, &n);
}

static void link_pair(placing *p, uint32_t a, uint32_t b, uint32_t arc)
{
	p->next[a] = b;
	p->prev[b] = a;
	p->arc_placed[arc] = true;
}

/* Try to put one arc's ends next to each other. false: leave it unplaced. */
static bool place_arc(placing *p, uint32_t arc)
{
	uint32_t parent = p->A[arc].parent, child = p->A[arc].child;
	if (p->next[parent] != GP_NONE && p->prev[parent] != GP_NONE && p->next[child] != GP_NONE &&
	    p->prev[child] != GP_NONE)
		return false;
	unsigned nn, pn;
	if (free_end(p, parent)) {
		uint32_t n = walk(child, p->next, &nn), b = walk(child, p->prev, &pn);
		child = nn < pn ? n : b;
	} else if (free_end(p, child)) {
		uint32_t n = walk(parent, p->next, &nn), b = walk(parent, p->prev, &pn);
		parent = pn < nn ? b : n;
	} else {
		return false;
	}
	if (other_end(p, parent) == child && other_end(p, child) == parent)
		return false; /* would close a ring */
	if (p->next[parent] != GP_NONE) {
		if (p->next[child] == GP_NONE)
			link_pair(p, child, parent, arc);
	} else if (p->prev[parent] != GP_NONE) {
		if (p->prev[child] == GP_NONE)
			link_pair(p, parent, child, arc);
	} else if (p->prev[child] != GP_NONE) {
		link_pair(p, child, parent, arc);
	} else {
		link_pair(p, parent, child, arc);
	}
	return true;
}

static const char *name_of(const plumb_gprof *g, uint32_t s)
{
	return s < g->nsym ? g->sym[s].s.name : g->pseudo[s - g->nsym];
}

static void print_sym(placing *p, uint32_t s)
{
	p->sym_placed[s] = true;
	fprintf(p->out, "%s\n", name_of(p->g, s));
}

/* gprof's order_and_dump_functions_by_arcs: with all false, only arcs in
 * the top 99% of calls are used. Arcs it cannot use go to *unplaced. */
static void order_and_dump(placing *p, const uint32_t *arcs, size_t n, bool all, uint32_t *unplaced,
			   size_t *nunplaced)
{
	const oarc *A = p->A;
	uint64_t total = 0, tmp = 0;
	for (size_t i = 0; !all && i < n; i++)
		total += A[arcs[i]].count;
	for (size_t i = 0; i < n; i++) {
		uint32_t a = arcs[i];
		tmp += A[a].count;
		if (p->arc_placed[a])
			continue;
		if ((!all && (double)tmp / (double)total > 0.99) || p->sym_placed[A[a].child] ||
		    p->sym_placed[A[a].parent] || !place_arc(p, a))
			unplaced[(*nunplaced)++] = a;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t s = A[arcs[i]].parent;
		if (p->sym_placed[s] || p->sym_placed[A[arcs[i]].child] || free_end(p, s))
			continue;
		while (p->prev[s] != GP_NONE)
			s = p->prev[s];
		for (; s != GP_NONE; s = p->next[s])
			print_sym(p, s);
	}
	for (size_t i = 0; all && i < n; i++)
		if (!p->sym_placed[A[arcs[i]].parent] && !p->sym_placed[A[arcs[i]].child])
			print_sym(p, A[arcs[i]].parent);
}

static int cmp_count(const void *ctx, uint32_t a, uint32_t b)
{
	const oarc *A = ctx;
	return A[a].count > A[b].count ? -1 : A[a].count < A[b].count;
}

static int cmp_nuses(const void *ctx, uint32_t a, uint32_t b)
{
	const unsigned *u = ctx;
	return u[a] > u[b] ? -1 : u[a] < u[b];
}

/* Functions reached by many of the busiest arcs (up to 1.25% of those
 * called), with the arcs between them. Returns how many were printed. */
static size_t busy_group(placing *p, uint32_t *used, size_t nused, const uint32_t *arcs, size_t narcs,
			 uint32_t *scratch, uint32_t *high, size_t *nhigh)
{
	const oarc *A = p->A;
	const gp_arc *R = p->g->arc;
	uint64_t total = 0, tmp = 0;
	for (size_t i = 0; i < narcs; i++)
		total += A[arcs[i]].count;
	for (size_t i = 0; i < narcs; i++) {
		tmp += A[arcs[i]].count;
		if ((double)tmp / (double)total > 0.90)
			break;
		p->nuses[A[arcs[i]].child]++;
	}
	gp_stable_sort(used, nused, cmp_nuses, p->nuses);
	size_t nscratch = 0, last = 0;
	for (size_t k = 0; k < nused / 80; k++) {
		uint32_t s = used[k];
		if (p->nuses[s] == 5)
			break;
		for (uint32_t a = p->g->sym[s].children; a != GP_NONE; a = R[a].next_child) {
			if (R[a].parent != R[a].child)
				scratch[nscratch++] = (uint32_t)(p->off + a);
			p->arc_placed[p->off + a] = true;
		}
		for (uint32_t a = p->g->sym[s].parents; a != GP_NONE; a = R[a].next_parent) {
			if (R[a].parent != R[a].child)
				scratch[nscratch++] = (uint32_t)(p->off + a);
			p->arc_placed[p->off + a] = true;
		}
		last = k;
		p->sym_placed[s] = true;
	}
	for (size_t i = 0; i < nscratch; i++) {
		uint32_t a = scratch[i];
		if (p->sym_placed[A[a].child] && p->sym_placed[A[a].parent]) {
			high[(*nhigh)++] = a;
			p->sym_placed[A[a].child] = p->sym_placed[A[a].parent] = false;
		}
	}
	for (size_t k = 0; k < last; k++)
		if (p->sym_placed[used[k]])
			fprintf(p->out, "%s\n", name_of(p->g, used[k]));
	return nscratch;
}

int plumb_gprof_print_function_order(plumb_gprof *g, FILE *out)
{
	size_t n = g->nsym + g->npseudo, na = g->npseudo_arc + g->narc;
	placing p = { .g = g, .out = out, .off = g->npseudo_arc };
	p.A = malloc((na + 1) * sizeof *p.A);
	p.next = malloc((n + 1) * sizeof *p.next);
	p.prev = malloc((n + 1) * sizeof *p.prev);
	p.sym_placed = calloc(n + 1, 1);
	p.nuses = calloc(n + 1, sizeof *p.nuses);
	p.arc_placed = calloc(na + 1, 1);
	uint32_t *unused = malloc((n + 1) * sizeof *unused), *used = malloc((n + 1) * sizeof *used);
	uint32_t *sorted_used = malloc((n + 1) * sizeof *sorted_used);
	uint32_t *arcs = malloc((na + 1) * sizeof *arcs), *high = malloc((na + 1) * sizeof *high);
	/* an arc can be gathered twice (from both ends), then the unplaced
	 * ones of the last pass are appended */
	uint32_t *scratch = malloc((5 * na + 1) * sizeof *scratch);
	uint32_t *unplaced = malloc((2 * na + 1) * sizeof *unplaced);
	int rc = -1;
	if (!p.A || !p.next || !p.prev || !p.sym_placed || !p.nuses || !p.arc_placed || !unused || !used ||
	    !sorted_used || !arcs || !high || !scratch || !unplaced)
		goto out;
	for (size_t k = 0; k < g->npseudo_arc; k++)
		p.A[k] = (oarc){ (uint32_t)g->nsym + g->pseudo_arc[k][0], (uint32_t)g->nsym + g->pseudo_arc[k][1], 0 };
	for (size_t a = 0; a < g->narc; a++)
		p.A[p.off + a] = (oarc){ g->arc[a].parent, g->arc[a].child, g->arc[a].count };
	size_t nunused = 0, nused = 0, narcs = 0, nhigh = 0, nunplaced = 0, nscratch;
	for (uint32_t i = 0; i < n; i++) {
		p.next[i] = p.prev[i] = GP_NONE;
		if (i >= g->nsym)
			continue; /* pseudo symbols are on no list */
		if (g->sym[i].ncalls == 0) {
			unused[nunused++] = i;
			p.sym_placed[i] = true;
		} else {
			used[nused++] = i;
		}
	}
	for (uint32_t a = 0; a < na; a++)
		if (p.A[a].parent != p.A[a].child)
			arcs[narcs++] = a;
	gp_stable_sort(arcs, narcs, cmp_count, p.A);
	memcpy(sorted_used, used, nused * sizeof *used);
	nscratch = busy_group(&p, sorted_used, nused, arcs, narcs, scratch, high, &nhigh);
	gp_stable_sort(high, nhigh, cmp_count, p.A);
	order_and_dump(&p, high, nhigh, true, unplaced, &nunplaced);
	order_and_dump(&p, arcs, narcs, false, unplaced, &nunplaced);
	order_and_dump(&p, unplaced, nunplaced, true, scratch, &nscratch);
	for (size_t k = 0; k < nused; k++)
		if (!p.sym_placed[used[k]])
			fprintf(out, "%s\n", g->sym[used[k]].s.name);
	for (size_t k = 0; k < nunused; k++)
		fprintf(out, "%s\n", g->sym[unused[k]].s.name);
	rc = ferror(out) ? -1 : 0;
out:
	free(p.A);
	free(p.next);
	free(p.prev);
	free(p.sym_placed);
	free(p.nuses);
	free(p.arc_placed);
	free(unused);
	free(used);
	free(sorted_used);
	free(arcs);
	free(high);
	free(scratch);
	free(unplaced);
	return rc;
}
