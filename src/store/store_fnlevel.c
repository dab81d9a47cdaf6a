/* The call graph summed up by function (store_fnlevel.h), for the store's
 * fn_self and fn_arcs blocks. On a 100 MB Callgrind file that is 4.7
 * million entries and half a million arcs down to a few hundred thousand
 * of each, which is what a flat report needs. */
#include <stdlib.h>
#include <string.h>

#include "model/index.h"
#include "store/store_fnlevel.h"
#include "store/store_private.h"

void store_fnlevel_free(store_fnlevel *s)
{
	free(s->self.v);
	free(s->self_cost.v);
	free(s->self_zero.v);
	free(s->arcs.v);
	free(s->arc_incl.v);
	free(s->arc_zero.v);
	memset(s, 0, sizeof *s);
}

/* dst += src: 0, or 1 when a sum does not fit (no summary then). */
static int add_costs(uint64_t *dst, const uint64_t *src, size_t nev)
{
	return plumb_costs_add(dst, src, nev, NULL) ? 1 : 0;
}

/* The call-graph entries 0..n-1 ordered by part (stable): a counting sort,
 * as parts are few. */
static uint32_t *by_part(const plumb_profile *p, size_t n)
{
	size_t np = p->parts.n;
	size_t *start = calloc(np + 1, sizeof *start);
	uint32_t *order = malloc((n ? n : 1) * sizeof *order);
	if (!start || !order) {
		free(start);
		free(order);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		start[p->cg_self.v[i].part + 1]++;
	for (size_t k = 0; k < np; k++)
		start[k + 1] += start[k];
	for (size_t i = 0; i < n; i++)
		order[start[p->cg_self.v[i].part]++] = (uint32_t)i;
	free(start);
	return order;
}

static int cmp_id(const void *a, const void *b)
{
	plumb_id x = *(const plumb_id *)a, y = *(const plumb_id *)b;
	return (x > y) - (x < y);
}

/* One part's entries (order[lo..hi)): the functions they touch, sorted,
 * become the part's summary entries; then the costs are added. slot[] maps
 * a function to its entry and is all PLUMB_NONE again on return. */
static int self_part(const plumb_profile *p, store_fnlevel *s, const uint32_t *order, size_t lo,
		     size_t hi, plumb_id *slot, plumb_id *touched)
{
	size_t nev = p->events.n, nt = 0, first = s->self.n;
	plumb_id part = p->cg_self.v[order[lo]].part;
	for (size_t i = lo; i < hi; i++) {
		plumb_id fn = p->frames.v[p->cg_self.v[order[i]].frame].function;
		if (slot[fn] == PLUMB_NONE) {
			slot[fn] = 0;
			touched[nt++] = fn;
		}
	}
	qsort(touched, nt, sizeof *touched, cmp_id);
	if (plumb_vec_reserve(s->self, first + nt) ||
	    plumb_vec_reserve(s->self_zero, first + nt) ||
	    plumb_vec_reserve(s->self_cost, (first + nt) * nev))
		return -1;
	for (size_t k = 0; k < nt; k++) {
		slot[touched[k]] = (plumb_id)(first + k);
		s->self.v[first + k] = (plumb_cg_self){ part, touched[k] };
		s->self_zero.v[first + k] = 0;
	}
	memset(s->self_cost.v + first * nev, 0, nt * nev * sizeof(uint64_t));
	s->self.n = s->self_zero.n = first + nt;
	s->self_cost.n = (first + nt) * nev;
	int rc = 0;
	for (size_t i = lo; i < hi && rc == 0; i++) {
		uint32_t id = order[i];
		plumb_id e = slot[p->frames.v[p->cg_self.v[id].frame].function];
		s->self_zero.v[e] |= store_zero_mask(p->cg_self_zero.v, p->cg_self_zero.n, id);
		rc = add_costs(s->self_cost.v + (size_t)e * nev, p->cg_self_cost.v + (size_t)id * nev,
			       nev);
	}
	for (size_t k = 0; k < nt; k++)
		slot[touched[k]] = PLUMB_NONE;
	return rc;
}

static int sum_self(const plumb_profile *p, store_fnlevel *s)
{
	size_t n = p->cg_self.n, nf = p->functions.n;
	if (!n)
		return 0;
	uint32_t *order = by_part(p, n);
	plumb_id *slot = malloc(nf * sizeof *slot), *touched = malloc(nf * sizeof *touched);
	int rc = order && slot && touched ? 0 : -1;
	if (slot)
		memset(slot, 0xff, nf * sizeof *slot); /* PLUMB_NONE */
	for (size_t lo = 0, hi; rc == 0 && lo < n; lo = hi) {
		for (hi = lo + 1; hi < n && p->cg_self.v[order[hi]].part == p->cg_self.v[order[lo]].part;)
			hi++;
		rc = self_part(p, s, order, lo, hi, slot, touched);
	}
	free(order);
	free(slot);
	free(touched);
	return rc;
}

/* An arc's place in the summary's order: by part, caller function, callee,
 * then file order (so that sums come out the same each time). The keys are
 * sorted themselves: no frame is looked up while sorting. */
typedef struct arc_key {
	plumb_id part, caller, callee;
	uint32_t id;
} arc_key;

static int cmp_arc_key(const void *a, const void *b)
{
	const arc_key *x = a, *y = b;
	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static int sum_arcs(const plumb_profile *p, store_fnlevel *s)
{
	size_t n = p->arcs.n, nev = p->events.n;
	if (!n)
		return 0;
	arc_key *order = malloc(n * sizeof *order);
	if (!order)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const plumb_arc *a = &p->arcs.v[i];
		order[i] = (arc_key){ a->part, p->frames.v[a->caller].function, a->callee, (uint32_t)i };
	}
	qsort(order, n, sizeof *order, cmp_arc_key);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const plumb_arc *a = &p->arcs.v[order[i].id];
		plumb_id caller = order[i].caller;
		plumb_arc *last = s->arcs.n ? &s->arcs.v[s->arcs.n - 1] : NULL;
		if (!last || last->part != a->part || last->caller != caller ||
		    last->callee != a->callee) {
			plumb_arc k = { .part = a->part, .caller = caller, .callee = a->callee,
					.calls = PLUMB_COUNT_UNKNOWN };
			if (plumb_vec_push(s->arcs, k) || plumb_vec_push(s->arc_zero, 0) ||
			    plumb_costs_grow(s->arc_incl, nev)) {
				rc = -1;
				break;
			}
			last = &s->arcs.v[s->arcs.n - 1];
		}
		/* as plumb_arc_add merges: a known count adds to the known ones */
		if (a->calls != PLUMB_COUNT_UNKNOWN && !plumb_count_add(&last->calls, a->calls))
			rc = 1;
		last->has_inclusive |= a->has_inclusive;
		s->arc_zero.v[s->arcs.n - 1] |= store_zero_mask(p->arc_zero.v, p->arc_zero.n, order[i].id);
		if (rc == 0 && a->has_inclusive)
			rc = add_costs(s->arc_incl.v + (s->arcs.n - 1) * nev,
				       p->arc_incl.v + (size_t)order[i].id * nev, nev);
	}
	free(order);
	return rc;
}

int store_fnlevel_build(const plumb_profile *p, store_fnlevel *s, plumb_error *err)
{
	memset(s, 0, sizeof *s);
	if (p->cct.n > p->parts.n || p->samples.n) /* more than the parts' roots */
		return 1;
	int rc = sum_self(p, s);
	if (rc == 0)
		rc = sum_arcs(p, s);
	if (rc < 0)
		return plumb_fail_nomem(err);
	return rc;
}
