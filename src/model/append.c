/* Appending call-graph data without lookups: see model/append.h. */
#include <string.h>

#include "model/append.h"
#include "model/index.h"

static void drop(plumb_profile *p)
{
	if (!p->lookups_dropped)
		plumb_profile_drop_lookups(p);
}

plumb_id plumb_frame_append(plumb_profile *p, plumb_id function, plumb_id file, uint32_t line,
			    uint64_t address)
{
	if (function >= p->functions.n || (file != PLUMB_NONE && file >= p->files.n) ||
	    p->frames.n >= PLUMB_NONE - 1)
		return PLUMB_NONE;
	drop(p);
	if (file == PLUMB_NONE)
		file = p->functions.v[function].file;
	plumb_frame fr = { function, file, line, address };
	if (plumb_vec_push(p->frames, fr))
		return PLUMB_NONE;
	return (plumb_id)(p->frames.n - 1);
}

/* Set the zero mask of entry id in *v (grown, zero-filled, to id + 1 or more). */
static int set_zeros(uint64_t **v, size_t *len, size_t id, uint64_t mask)
{
	if (!mask)
		return 0;
	if (*len <= id) {
		size_t n = id + 1 + id / 2;
		uint64_t *nv = realloc(*v, n * sizeof *nv);
		if (!nv)
			return -1;
		memset(nv + *len, 0, (n - *len) * sizeof *nv);
		*v = nv;
		*len = n;
	}
	(*v)[id] = mask;
	return 0;
}

int plumb_cg_self_append(plumb_profile *p, plumb_id part, plumb_id frame, const uint64_t *costs,
			 uint64_t zeros, plumb_error *err)
{
	if (part >= p->parts.n || frame >= p->frames.n)
		return plumb_fail(err, PLUMB_ERR_USAGE, "call graph cost for unknown part or frame");
	drop(p);
	size_t nev = p->events.n, id = p->cg_self.n;
	plumb_cg_self k = { part, frame };
	if (plumb_vec_push(p->cg_self, k) || plumb_costs_grow(p->cg_self_cost, nev) ||
	    set_zeros(&p->cg_self_zero.v, &p->cg_self_zero.n, id, zeros))
		return plumb_fail_nomem(err);
	memcpy(p->cg_self_cost.v + id * nev, costs, nev * sizeof *costs);
	if (!p->cg_direct_part1)
		p->cg_direct_part1 = part + 1; /* as the first plumb_cg_add_self would */
	p->costs_started = true;
	return 0;
}

int plumb_arc_append(plumb_profile *p, plumb_id part, plumb_id caller, plumb_id callee,
		     uint64_t calls, const uint64_t *incl, uint64_t zeros, plumb_error *err)
{
	if (part >= p->parts.n || caller >= p->frames.n || callee >= p->functions.n)
		return plumb_fail(err, PLUMB_ERR_USAGE, "call arc with unknown part, frame or function");
	drop(p);
	size_t nev = p->events.n, id = p->arcs.n;
	plumb_arc a = { part, caller, callee, calls, incl != NULL };
	if (plumb_vec_push(p->arcs, a) || plumb_costs_grow(p->arc_incl, nev) ||
	    set_zeros(&p->arc_zero.v, &p->arc_zero.n, id, zeros))
		return plumb_fail_nomem(err);
	if (incl) {
		memcpy(p->arc_incl.v + id * nev, incl, nev * sizeof *incl);
		p->costs_started = true;
	}
	return 0;
}
