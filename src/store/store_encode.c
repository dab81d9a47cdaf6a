/* Writing the bulk of a profile into the .plumb store's bulk table: its
 * frames, calling context tree, call graph, samples and performance points
 * (store_points.c), each entity as a few varints, most of them differences
 * from the entity before (the encoding of each kind is in
 * docs/plumb-format.md). Consecutive entities
 * are alike (the instructions of one function, the samples of one thread),
 * so most fields take one byte before zstd and less after. */
#include <stdbool.h>
#include <stdlib.h>

#include "formats/jobs.h"
#include "plumb/formats.h"
#include "store/store_bulk.h"
#include "store/store_encode.h"
#include "store/store_fnlevel.h"
#include "store/store_points.h"
#include "store/store_private.h"

/* A cost vector: one varint per event. */
static uint8_t *put_costs(uint8_t *o, const uint64_t *c, size_t nev)
{
	for (size_t e = 0; e < nev; e++)
		o = plumb_varint_put(o, c[e]);
	return o;
}

/* the file of a frame: 0 its function's (a frame has no other way to have
 * none: plumb_frame_intern gives it its function's), else id + 1 */
static uint64_t frame_file_code(const plumb_profile *p, const plumb_frame *f)
{
	if (f->file == p->functions.v[f->function].file || f->file == PLUMB_NONE)
		return 0;
	return (uint64_t)f->file + 1;
}

static int enc_frames(store_bulk_out *o, const plumb_profile *p)
{
	uint64_t fn = 0, line = 0, addr = 0;
	store_bulk_kind(o, "frames");
	for (size_t i = 0; i < p->frames.n; i++) {
		const plumb_frame *f = &p->frames.v[i];
		uint8_t *w = store_bulk_room(o, 4 * PLUMB_VARINT_MAX);
		if (!w)
			return -1;
		if (o->count == 0)
			fn = line = addr = 0; /* each block decodes on its own */
		w = plumb_varint_put(w, plumb_zigzag(f->function, fn));
		w = plumb_varint_put(w, frame_file_code(p, f));
		w = plumb_varint_put(w, plumb_zigzag(f->line, line));
		w = plumb_varint_put(w, plumb_zigzag(f->address, addr));
		fn = f->function;
		line = f->line;
		addr = f->address;
		if (store_bulk_done(o, w))
			return -1;
	}
	return store_bulk_flush(o);
}

/* Nodes (version 8): a tag, the distance back to the parent (0: a part's
 * root, whose part is the next one) times 4, plus 2 when the activations
 * are known and 1 when the self costs are not all 0; then the frame as a
 * difference (not for a root), the activations and the costs, each when
 * the tag says. Most nodes of a big tree are a stack's inner frames: one
 * after their parent, no count, no cost, two or three bytes (versions 5 to
 * 7 wrote the distance, activations + 1 and every cost: twice the bytes to
 * compress and to decode). */
static int enc_cct(store_bulk_out *o, const plumb_profile *p)
{
	size_t nev = p->events.n;
	uint64_t frame = 0;
	store_bulk_kind(o, "cct");
	for (size_t i = 0; i < p->cct.n; i++) {
		const plumb_cct_node *n = &p->cct.v[i];
		uint8_t *w = store_bulk_room(o, (3 + nev) * PLUMB_VARINT_MAX);
		if (!w)
			return -1;
		if (o->count == 0)
			frame = 0;
		uint64_t act = plumb_cct_activations(p, (plumb_id)i);
		const uint64_t *cost = p->cct_self.v + i * nev;
		bool costs = false;
		for (size_t e = 0; e < nev; e++)
			costs |= cost[e] != 0;
		uint64_t up = n->parent == PLUMB_NONE ? 0 : i - n->parent;
		w = plumb_varint_put(w, up << 2 | (act != PLUMB_COUNT_UNKNOWN ? 2u : 0u) | (costs ? 1u : 0u));
		if (up) {
			w = plumb_varint_put(w, plumb_zigzag(n->frame, frame));
			frame = n->frame;
		}
		if (act != PLUMB_COUNT_UNKNOWN)
			w = plumb_varint_put(w, act);
		if (costs)
			w = put_costs(w, cost, nev);
		if (store_bulk_done(o, w))
			return -1;
	}
	return store_bulk_flush(o);
}

/* Entries: part and frame as differences (the frame from the one after
 * the previous entry's), the mask of events written as 0, costs. The
 * fn_self blocks are the same with function ids for frames. */
static int enc_cg_self(store_bulk_out *o, const char *kind, const plumb_cg_self *v, size_t n,
		       const uint64_t *cost, const uint64_t *zero, size_t nzero, size_t nev)
{
	uint64_t part = 0, next_frame = 0;
	store_bulk_kind(o, kind);
	for (size_t i = 0; i < n; i++) {
		const plumb_cg_self *c = &v[i];
		uint8_t *w = store_bulk_room(o, (3 + nev) * PLUMB_VARINT_MAX);
		if (!w)
			return -1;
		if (o->count == 0)
			part = next_frame = 0;
		w = plumb_varint_put(w, plumb_zigzag(c->part, part));
		w = plumb_varint_put(w, plumb_zigzag(c->frame, next_frame));
		w = plumb_varint_put(w, store_zero_mask(zero, nzero, i));
		w = put_costs(w, cost + i * nev, nev);
		part = c->part;
		next_frame = (uint64_t)c->frame + 1;
		if (store_bulk_done(o, w))
			return -1;
	}
	return store_bulk_flush(o);
}

/* Arcs: part, caller and callee as differences, calls + 1 (0: unknown),
 * flags (1: the inclusive cost follows, 2: a zero mask follows), then
 * the zero mask and the inclusive cost. The fn_arcs blocks are the same
 * with the caller's function for its frame. */
static int enc_arcs(store_bulk_out *o, const char *kind, const plumb_arc *v, size_t n,
		    const uint64_t *incl, const uint64_t *zero, size_t nzero, size_t nev)
{
	uint64_t part = 0, caller = 0, callee = 0;
	store_bulk_kind(o, kind);
	for (size_t i = 0; i < n; i++) {
		const plumb_arc *a = &v[i];
		uint8_t *w = store_bulk_room(o, (6 + nev) * PLUMB_VARINT_MAX);
		if (!w)
			return -1;
		if (o->count == 0)
			part = caller = callee = 0;
		uint64_t zeros = store_zero_mask(zero, nzero, i);
		w = plumb_varint_put(w, plumb_zigzag(a->part, part));
		w = plumb_varint_put(w, plumb_zigzag(a->caller, caller));
		w = plumb_varint_put(w, plumb_zigzag(a->callee, callee));
		w = plumb_varint_put(w, a->calls + 1);
		w = plumb_varint_put(w, (uint64_t)a->has_inclusive | (zeros ? 2u : 0u));
		if (zeros)
			w = plumb_varint_put(w, zeros);
		if (a->has_inclusive)
			w = put_costs(w, incl + i * nev, nev);
		part = a->part;
		caller = a->caller;
		callee = a->callee;
		if (store_bulk_done(o, w))
			return -1;
	}
	return store_bulk_flush(o);
}

/* Samples: time, part and node as differences, weights. */
static int enc_samples(store_bulk_out *o, const plumb_profile *p)
{
	size_t nev = p->events.n;
	uint64_t time = 0, part = 0, node = 0;
	store_bulk_kind(o, "samples");
	for (size_t i = 0; i < p->samples.n; i++) {
		const plumb_sample *s = &p->samples.v[i];
		uint8_t *w = store_bulk_room(o, (3 + nev) * PLUMB_VARINT_MAX);
		if (!w)
			return -1;
		if (o->count == 0)
			time = part = node = 0;
		w = plumb_varint_put(w, plumb_zigzag(s->time_ns, time));
		w = plumb_varint_put(w, plumb_zigzag(s->part, part));
		w = plumb_varint_put(w, plumb_zigzag(s->node, node));
		w = put_costs(w, p->sample_weights.v + i * nev, nev);
		time = s->time_ns;
		part = s->part;
		node = s->node;
		if (store_bulk_done(o, w))
			return -1;
	}
	return store_bulk_flush(o);
}

/* The function-level sums, built on the jobs' helper thread while the
 * caller encodes the full call graph: about a third of writing a big
 * Callgrind profile's bulk, on the other core. */
typedef struct fnlevel_job {
	plumb_job job;
	const plumb_profile *p;
	store_fnlevel s;
	plumb_error err;
	int rc;
} fnlevel_job;

static void fnlevel_run(plumb_job *job, unsigned worker)
{
	(void)worker;
	fnlevel_job *j = (fnlevel_job *)job;
	j->rc = store_fnlevel_build(j->p, &j->s, &j->err);
}

/* The call graph by function, when the profile has one to sum. */
static int enc_fnlevel(store_bulk_out *o, fnlevel_job *j, size_t nev)
{
	if (j->rc < 0) {
		if (o->err)
			*o->err = j->err;
		return -1;
	}
	if (j->rc > 0) /* no summary, and none is needed */
		return 0;
	const store_fnlevel *s = &j->s;
	if (enc_cg_self(o, "fn_self", s->self.v, s->self.n, s->self_cost.v, s->self_zero.v,
			s->self_zero.n, nev) ||
	    enc_arcs(o, "fn_arcs", s->arcs.v, s->arcs.n, s->arc_incl.v, s->arc_zero.v, s->arc_zero.n,
		     nev))
		return -1;
	return 0;
}

int store_write_bulk(sqlite3 *db, const plumb_profile *p, const char *path,
		     const plumb_write_progress *wp, plumb_error *err)
{
	store_bulk_out o;
	size_t nev = p->events.n;
	int ret = -1;
	fnlevel_job fj = { .job.run = fnlevel_run, .p = p };
	plumb_jobs q;
	plumb_jobs_start(&q);
	plumb_jobs_add(&q, &fj.job);
	int opened = store_bulk_out_open(&o, db, path, err);
	o.progress = wp;
	bool ok = opened == 0 && enc_frames(&o, p) == 0 && enc_cct(&o, p) == 0 &&
		  enc_cg_self(&o, "cg_self", p->cg_self.v, p->cg_self.n, p->cg_self_cost.v,
			      p->cg_self_zero.v, p->cg_self_zero.n, nev) == 0 &&
		  enc_arcs(&o, "arcs", p->arcs.v, p->arcs.n, p->arc_incl.v, p->arc_zero.v,
			   p->arc_zero.n, nev) == 0 &&
		  enc_samples(&o, p) == 0 && store_enc_points(&o, p) == 0;
	plumb_jobs_wait(&q); /* the job is done, or run here */
	if (ok && enc_fnlevel(&o, &fj, nev) == 0)
		ret = 0;
	store_fnlevel_free(&fj.s);
	store_bulk_out_close(&o);
	return ret;
}
