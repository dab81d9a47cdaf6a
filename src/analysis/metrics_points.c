/* Metrics of an input-sensitive profile's routine points (aprof without
 * contexts). The reader puts each point's self sum into the call graph, so
 * exclusive costs come from there; but there are no arcs, so the call graph
 * alone would make inclusive equal exclusive. The points' real sums are the
 * inclusive cost (callees included, recursion counted once): they replace
 * it at the function level. A point without a real sum (v0, v1) gives its
 * sum instead, which counts nested recursive activations again: an
 * estimate, and marked as one. At the file, line and module levels a key's
 * inclusive cost is at least each of its functions' (they overlap in
 * unknown ways): raised to that bound and marked estimated. Context points
 * need none of this: their costs are in the CCT, whose metrics are exact.
 * Calls come from the points where nothing else gave them. */
#include <stdlib.h>

#include "analysis/metrics_internal.h"

typedef struct fn_points {
	uint64_t incl, calls;
	bool any, estimated;
} fn_points;

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The key of a function at the function level, interned if it has no frame. */
static uint32_t function_key(builder *b, plumb_id fn)
{
	if (b->fn_key && b->fn_key[fn] != PLUMB_NONE)
		return b->fn_key[fn];
	const plumb_function *f = &b->p->functions.v[fn];
	plumb_key k = { fn, f->file, f->module, 0 };
	uint32_t id = metrics_key_intern(b, &k);
	if (id != PLUMB_NONE && b->fn_key)
		b->fn_key[fn] = id;
	return id;
}

/* Calls from the points where no arc or CCT node counted them. */
static void set_calls(builder *b, uint32_t k, uint64_t calls)
{
	if (calls == PLUMB_COUNT_UNKNOWN)
		calls--; /* saturated: the largest known count */
	if (!b->calls_known.v[k] || b->calls.v[k] == 0) {
		b->calls_known.v[k] = 1;
		b->calls.v[k] = calls;
	}
}

int metrics_points_keys(builder *b, const plumb_metrics_opts *o, plumb_error *err)
{
	const plumb_profile *p = b->p;
	if (o->level != PLUMB_LEVEL_FUNCTION)
		return 0;
	for (size_t i = 0; i < p->points.n; i++) {
		const plumb_point *pt = &p->points.v[i];
		if ((o->part == PLUMB_NONE || pt->part == o->part) &&
		    function_key(b, pt->function) == PLUMB_NONE)
			return plumb_fail_nomem(err);
	}
	return 0;
}

int metrics_from_points(builder *b, const plumb_metrics_opts *o, plumb_error *err)
{
	const plumb_profile *p = b->p;
	if (p->points.n == 0 || b->nev == 0)
		return 0;
	fn_points *fp = calloc(p->functions.n ? p->functions.n : 1, sizeof *fp);
	if (!fp)
		return plumb_fail_nomem(err);
	bool routine_points = false;
	for (size_t i = 0; i < p->points.n; i++) {
		const plumb_point *pt = &p->points.v[i];
		if (o->part != PLUMB_NONE && pt->part != o->part)
			continue;
		fn_points *f = &fp[pt->function];
		f->any = true;
		f->calls = sat_add(f->calls, pt->calls);
		if (pt->context != PLUMB_NONE)
			continue;
		routine_points = true;
		bool real = pt->has & PLUMB_PT_REAL;
		f->incl = sat_add(f->incl, real ? pt->real_sum : pt->sum);
		f->estimated |= !real;
	}
	int rc = 0;
	for (size_t fn = 0; fn < p->functions.n && rc == 0; fn++) {
		fn_points *f = &fp[fn];
		if (!f->any || o->level != PLUMB_LEVEL_FUNCTION)
			continue;
		uint32_t k = function_key(b, (plumb_id)fn);
		if (k == PLUMB_NONE) {
			rc = plumb_fail_nomem(err);
			break;
		}
		set_calls(b, k, f->calls);
		if (!routine_points)
			continue;
		uint64_t *incl = b->incl.v + (size_t)k * b->nev;
		const uint64_t *excl = b->excl.v + (size_t)k * b->nev;
		/* never below the routine's own cost, whatever the source said */
		incl[0] = f->incl > excl[0] ? f->incl : excl[0];
		if (f->estimated)
			b->m->inclusive_estimated = true;
	}
	if (rc == 0 && routine_points && o->level != PLUMB_LEVEL_FUNCTION) {
		for (size_t fr = 0; fr < p->frames.n; fr++) {
			const fn_points *f = &fp[p->frames.v[fr].function];
			if (!f->any)
				continue;
			uint64_t *incl = b->incl.v + (size_t)b->frame_key[fr] * b->nev;
			if (f->incl > incl[0])
				incl[0] = f->incl;
			b->m->inclusive_estimated = true;
		}
	}
	free(fp);
	return rc;
}
