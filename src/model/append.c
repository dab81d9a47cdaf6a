/* Appending call-graph data without lookups: see model/append.h. */
#include <string.h>

#include "model/append.h"
#include "model/index.h"

static void drop(plumb_profile *p)
{
	if (!p->lookups_dropped)
		plumb_profile_drop_lookups(p);
}

plumb_frame *plumb_frames_room(plumb_profile *p, size_t n)
{
	/* + 1: room for none is still a pointer (a profile may have no frames) */
	if (n > PLUMB_NONE - 1 - p->frames.n || plumb_vec_reserve(p->frames, p->frames.n + n + 1))
		return NULL;
	return p->frames.v + p->frames.n;
}

int plumb_frames_added(plumb_profile *p, size_t n, plumb_error *err)
{
	const plumb_frame *f = p->frames.v + p->frames.n;
	for (size_t i = 0; i < n; i++)
		if (f[i].function >= p->functions.n ||
		    (f[i].file == PLUMB_NONE ? p->functions.v[f[i].function].file != PLUMB_NONE
					     : f[i].file >= p->files.n))
			return plumb_fail(err, PLUMB_ERR_USAGE, "frame %zu: bad function or file",
					  p->frames.n + i);
	drop(p);
	p->frames.n += n;
	return 0;
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

uint64_t *plumb_cg_self_room(plumb_profile *p, size_t n, plumb_cg_self **keys)
{
	size_t nev = p->events.n;
	if (n > PLUMB_NONE - 1 - p->cg_self.n || plumb_vec_reserve(p->cg_self, p->cg_self.n + n + 1) ||
	    plumb_vec_reserve(p->cg_self_cost, (p->cg_self.n + n) * nev + 1))
		return NULL;
	*keys = p->cg_self.v + p->cg_self.n;
	return p->cg_self_cost.v + p->cg_self.n * nev;
}

int plumb_cg_self_added(plumb_profile *p, size_t n, plumb_error *err)
{
	const plumb_cg_self *k = p->cg_self.v + p->cg_self.n;
	for (size_t i = 0; i < n; i++)
		if (k[i].part >= p->parts.n || k[i].frame >= p->frames.n)
			return plumb_fail(err, PLUMB_ERR_USAGE,
					  "call graph cost for unknown part or frame");
	if (!n)
		return 0;
	drop(p);
	if (!p->cg_direct_part1)
		p->cg_direct_part1 = k[0].part + 1; /* as the first plumb_cg_add_self would */
	p->cg_self.n += n;
	p->cg_self_cost.n = p->cg_self.n * p->events.n;
	p->costs_started = true;
	return 0;
}

int plumb_cg_self_zeros(plumb_profile *p, size_t id, uint64_t mask, plumb_error *err)
{
	return set_zeros(&p->cg_self_zero.v, &p->cg_self_zero.n, id, mask) ? plumb_fail_nomem(err)
									    : 0;
}

uint64_t *plumb_arc_append(plumb_profile *p, plumb_id part, plumb_id caller, plumb_id callee,
			   uint64_t calls, bool has_inclusive, uint64_t zeros, plumb_error *err)
{
	if (part >= p->parts.n || caller >= p->frames.n || callee >= p->functions.n) {
		plumb_fail(err, PLUMB_ERR_USAGE, "call arc with unknown part, frame or function");
		return NULL;
	}
	drop(p);
	size_t nev = p->events.n, id = p->arcs.n;
	plumb_arc a = { .part = part, .caller = caller, .callee = callee, .calls = calls,
			.has_inclusive = has_inclusive };
	if (plumb_vec_push(p->arcs, a) || plumb_costs_grow(p->arc_incl, nev) ||
	    set_zeros(&p->arc_zero.v, &p->arc_zero.n, id, zeros)) {
		plumb_fail_nomem(err);
		return NULL;
	}
	if (has_inclusive)
		p->costs_started = true;
	return p->arc_incl.v + id * nev;
}
