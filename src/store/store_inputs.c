/* The inputs view's routines in the .plumb store (kind "inputs", schema
 * version 8): for a profile with performance points, what every plain
 * `plumb report` of it computes from them (each routine's sums and fitted
 * growth, plumb_inputs_summarize), kept when the file is written (plumb
 * convert gives the profile them, plumb_profile.inputs), so that such a
 * report reads names and these instead of every point and cost and fits
 * nothing. The encoding is in docs/plumb-format.md. */
#include <stdlib.h>
#include <string.h>

#include "plumb/analysis.h"
#include "store/store_flat.h"

/* A double as the varint of its bits: kept exactly, NaN included. */
static uint8_t *put_double(uint8_t *w, double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return plumb_varint_put(w, u);
}

static double get_double(store_bulk_in *b)
{
	uint64_t u = plumb_varint_get(&b->in);
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

int store_enc_inputs(store_bulk_out *o, const plumb_profile *p, const plumb_inputs_summary *s,
		     const uint64_t *totals)
{
	size_t nev = p->events.n;
	if (!s || !p->points.n)
		return 0;
	store_bulk_kind(o, "inputs");
	uint8_t *w = store_bulk_room(o, (2 + nev) * PLUMB_VARINT_MAX);
	if (!w)
		return -1;
	w = plumb_varint_put(w, s->n);
	w = plumb_varint_put(w, s->total_cost);
	for (size_t e = 0; e < nev; e++)
		w = plumb_varint_put(w, totals[e]);
	if (store_bulk_done(o, w))
		return -1;
	uint64_t fn = 0;
	for (size_t i = 0; i < s->n; i++) {
		const plumb_inputs_routine *r = &s->v[i];
		if (!(w = store_bulk_room(o, 13 * PLUMB_VARINT_MAX)))
			return -1;
		w = plumb_varint_put(w, plumb_zigzag(r->function, fn));
		w = plumb_varint_put(w, r->has);
		w = plumb_varint_put(w, r->calls);
		w = plumb_varint_put(w, r->points);
		w = plumb_varint_put(w, r->min_input);
		w = plumb_varint_put(w, r->max_input - r->min_input);
		w = plumb_varint_put(w, r->cost);
		w = plumb_varint_put(w, r->self);
		w = plumb_varint_put(w, plumb_zigzag(r->order_cost, r->cost));
		w = plumb_varint_put(w, (uint64_t)r->growth);
		w = put_double(w, r->exponent);
		w = put_double(w, r->r2);
		fn = r->function;
		if (store_bulk_done(o, w))
			return -1;
	}
	return store_bulk_flush(o);
}

static void inputs_free(plumb_inputs_summary *s)
{
	if (s)
		free(s->v);
	free(s);
}

static int inputs_header(rd *r, store_bulk_in *b, int64_t total, plumb_inputs_summary *s,
			 uint64_t *totals)
{
	uint64_t n = plumb_varint_get(&b->in);
	s->total_cost = plumb_varint_get(&b->in);
	for (size_t e = 0; e < r->p->events.n; e++)
		totals[e] = plumb_varint_get(&b->in);
	if (b->in.bad)
		return store_bulk_end_entity(b);
	if (n + 1 != (uint64_t)total)
		return store_bulk_bad(b, "%llu routines, but the blocks hold %lld entities",
				      (unsigned long long)n, (long long)total);
	s->n = (size_t)n;
	if (!(s->v = malloc((s->n ? s->n : 1) * sizeof *s->v)))
		return plumb_fail_nomem(r->err);
	return store_bulk_end_entity(b);
}

/* The growth classes of analysis/fit.h: NONE (0) to POWER (7). */
#define GROWTH_MAX 7

static int inputs_routine(rd *r, store_bulk_in *b, plumb_inputs_routine *v, uint64_t *fn)
{
	uint64_t f = plumb_unzigzag(plumb_varint_get(&b->in), *fn);
	uint64_t has = plumb_varint_get(&b->in);
	v->calls = plumb_varint_get(&b->in);
	v->points = plumb_varint_get(&b->in);
	v->min_input = plumb_varint_get(&b->in);
	v->max_input = v->min_input + plumb_varint_get(&b->in);
	v->cost = plumb_varint_get(&b->in);
	v->self = plumb_varint_get(&b->in);
	v->order_cost = plumb_unzigzag(plumb_varint_get(&b->in), v->cost);
	uint64_t growth = plumb_varint_get(&b->in);
	v->exponent = get_double(b);
	v->r2 = get_double(b);
	*fn = f;
	if (b->in.bad)
		return store_bulk_end_entity(b);
	if (store_bulk_ref(b, f, &r->fn, "function", &v->function))
		return -1;
	if (has > UINT32_MAX)
		return store_bulk_bad(b, "point fields %llu out of range", (unsigned long long)has);
	if (growth > GROWTH_MAX)
		return store_bulk_bad(b, "growth %llu: expected 0 to %d", (unsigned long long)growth,
				      GROWTH_MAX);
	if (v->points == 0 || v->max_input < v->min_input)
		return store_bulk_bad(b, "no points, or inputs that wrap");
	v->has = (uint32_t)has;
	v->growth = (int)growth;
	return store_bulk_end_entity(b);
}

int store_read_inputs(rd *r, int64_t total)
{
	plumb_inputs_summary *s = calloc(1, sizeof *s);
	size_t nev = r->p->events.n;
	uint64_t *totals = calloc(nev ? nev : 1, sizeof *totals);
	if (!s || !totals) {
		free(s);
		free(totals);
		return plumb_fail_nomem(r->err);
	}
	store_bulk_in b;
	int more = store_bulk_in_open(&b, r->db, "inputs", r->path, r->err);
	b.progress = &r->progress;
	uint64_t fn = 0;
	while (!more && (more = store_bulk_next(&b)) > 0)
		more = b.next == 0 ? inputs_header(r, &b, total, s, totals)
				   : inputs_routine(r, &b, &s->v[b.next - 1], &fn);
	int64_t end = b.next;
	store_bulk_in_close(&b);
	if (!more && end != total)
		more = plumb_fail(r->err, PLUMB_ERR_FORMAT, "%s: table bulk: the inputs blocks end at "
				  "entity %lld of %lld", r->path, (long long)end, (long long)total);
	if (more) {
		inputs_free(s);
		free(totals);
		return -1;
	}
	r->p->inputs = s;
	r->p->inputs_free = inputs_free;
	r->p->kept_totals = totals;
	return 0;
}
