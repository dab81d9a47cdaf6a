/* Jumps: Callgrind's jump=/jcnd= lines, kept so that a converted file
 * keeps them. One entry per (part, from, to, conditional); counts add. */
#include <assert.h>

#include "model/index.h"

static uint32_t jump_hash(const plumb_jump *j)
{
	uint64_t h = plumb_hash_mix(j->part, j->from);
	return (uint32_t)plumb_hash_mix(h, (uint64_t)j->to << 1 | j->conditional);
}

static bool jump_eq(const void *ctx, uint32_t id, const void *key)
{
	const plumb_jump *a = &((const plumb_profile *)ctx)->jumps.v[id], *b = key;
	return a->part == b->part && a->from == b->from && a->to == b->to &&
	       a->conditional == b->conditional;
}

static int add_count(uint64_t *dst, uint64_t v, plumb_error *err)
{
	if (__builtin_add_overflow(*dst, v, dst))
		return plumb_fail(err, PLUMB_ERR_OVERFLOW, "jump count overflow");
	return 0;
}

int plumb_jump_add(plumb_profile *p, plumb_id part, plumb_id from, plumb_id to, bool conditional,
		   uint64_t executed, uint64_t followed, plumb_error *err)
{
	if (part >= p->parts.n || from >= p->frames.n || to >= p->frames.n)
		return plumb_fail(err, PLUMB_ERR_USAGE, "jump with unknown part or frame");
	if (!conditional)
		followed = executed;
	plumb_jump k = { part, from, to, conditional, 0, 0 };
	uint32_t h = jump_hash(&k);
	plumb_id id = plumb_index_find(&p->jump_ix, h, jump_eq, p, &k);
	if (id == PLUMB_NONE) {
		id = (plumb_id)p->jumps.n;
		if (plumb_vec_reserve(p->jumps, p->jumps.n + 1) || plumb_index_insert(&p->jump_ix, h, id))
			return plumb_fail_nomem(err);
		p->jumps.v[p->jumps.n++] = k;
	}
	plumb_jump *j = &p->jumps.v[id];
	uint64_t e = j->executed, f = j->followed;
	if (add_count(&e, executed, err) || add_count(&f, followed, err))
		return -1;
	j->executed = e;
	j->followed = f;
	assert(j->conditional || j->followed == j->executed);
	return (int)id;
}
