/* Performance points in the .plumb store's bulk table (kind "points",
 * schema version 6): each point a few varints, its part, routine, context
 * and input size as differences from the point before (a routine's points
 * follow each other), then a mask of the fields it has (PLUMB_PT_*) and
 * those fields, sums as differences from the least they can be (calls x
 * min; real_sum from sum, which it equals without recursion), sums of
 * squares exactly, as a mantissa and a power of two.
 * The encoding is in docs/plumb-format.md. The reader appends each point
 * without looking it up: the file's parts are new parts of the profile,
 * and its points were unique in theirs when written. */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "store/store_points.h"
#include "store/store_private.h"

/* ---- sums of squares --------------------------------------------------- */

/* A power of two past every finite long double's (16384) and below its
 * smallest subnormal's (-16445), with room for the mantissa's 64 bits. */
#define SQR_EXP_MAX 16500

/* v = mant * 2^exp: 1, 0 for a zero, -1 for a negative or infinite v or
 * one with more than 64 significant bits. Read from the bits of x87's
 * 80-bit format where long double is that (x86-64): frexpl, ldexpl and a
 * long double's conversion to an integer are x87 instructions of tens of
 * cycles, and a profile has a few sums of squares per point. */
static int sqr_parts(long double v, uint64_t *mant, int64_t *exp)
{
#if defined(__x86_64__) && LDBL_MANT_DIG == 64 && LDBL_MAX_EXP == 16384
	struct { uint64_t m; uint16_t se; } b;
	memcpy(&b, &v, 10); /* the mantissa (its integer bit explicit), then sign and exponent */
	int e = b.se & 0x7fff;
	if (b.m == 0)
		return 0;
	if ((b.se & 0x8000) || e == 0x7fff)
		return -1;
	*mant = b.m;
	*exp = (int64_t)(e ? e : 1) - 16383 - 63; /* e = 0: subnormal */
	return 1;
#else
	if (!(v >= 0) || !isfinite(v))
		return -1;
	if (v == 0)
		return 0;
	int e;
	long double f = ldexpl(frexpl(v, &e), 64); /* v = f * 2^(e - 64), f < 2^64 */
	if (f != (long double)(uint64_t)f)
		return -1; /* more than 64 significant bits (a wider long double) */
	*mant = (uint64_t)f;
	*exp = (int64_t)e - 64;
	return 1;
#endif
}

int store_sqr_split(long double v, uint64_t *zig_e, uint64_t *m)
{
	*zig_e = *m = 0;
	uint64_t mant;
	int64_t exp;
	int k = sqr_parts(v, &mant, &exp);
	if (k <= 0)
		return k;
	assert(mant != 0);
	int zeros = __builtin_ctzll(mant);
	mant >>= zeros;
	exp += zeros;
	if (exp >= 0 && exp < 64 && mant <= UINT64_MAX >> exp) { /* a whole number below 2^64 */
		*m = mant << exp;
		return 0;
	}
	*m = mant;
	*zig_e = plumb_zigzag(store_i2u(exp), 0);
	return 0;
}

int store_sqr_join(uint64_t zig_e, uint64_t m, long double *v)
{
	if (zig_e == 0) { /* e = 0: a whole number below 2^64, as most are */
		*v = (long double)m;
		return 0;
	}
	int64_t e = store_u2i(plumb_unzigzag(zig_e, 0));
	*v = 0;
	if (e > SQR_EXP_MAX || e < -SQR_EXP_MAX)
		return -1;
	long double x = ldexpl((long double)m, (int)e);
	if (!isfinite(x))
		return -1;
	*v = x;
	return 0;
}

/* ---- writing ------------------------------------------------------------- */

/* NULL (o->err set) when v cannot be kept exactly: a profile with such a
 * sum is refused, as an inconsistent one is, and nothing is written. */
static uint8_t *put_sqr(store_bulk_out *o, size_t i, uint8_t *w, long double v)
{
	uint64_t e, m;
	if (store_sqr_split(v, &e, &m)) {
		plumb_fail(o->err, PLUMB_ERR_USAGE, "%s: cannot write an inconsistent profile: point "
			   "%zu: a sum of squares that is negative, not finite or has more than 64 "
			   "significant bits", o->path, i);
		return NULL;
	}
	w = plumb_varint_put(w, e);
	return plumb_varint_put(w, m);
}

/* What a sum is written as a difference from: calls x min (mod 2^64), the
 * least it can be, when the point has its minimum (bit), else 0. */
static inline uint64_t least(uint64_t calls, uint64_t min, uint32_t has, uint32_t bit)
{
	return has & bit ? calls * min : 0;
}

/* The most varints a point takes: part, function, context, input, has,
 * calls, min, max, sum, 2 x 2 for the squares, real, self min and max,
 * self, the four drms counts. */
#define POINT_VARINTS 22

int store_enc_points(store_bulk_out *o, const plumb_profile *p)
{
	uint64_t part = 0, fn = 0, ctx = 0, input = 0;
	store_bulk_kind(o, "points");
	for (size_t i = 0; i < p->points.n; i++) {
		const plumb_point *t = &p->points.v[i];
		uint32_t h = t->has;
		uint8_t *w = store_bulk_room(o, POINT_VARINTS * PLUMB_VARINT_MAX);
		if (!w)
			return -1;
		if (o->count == 0)
			part = fn = ctx = input = 0; /* each block decodes on its own */
		w = plumb_varint_put(w, plumb_zigzag(t->part, part));
		w = plumb_varint_put(w, plumb_zigzag(t->function, fn));
		if (t->context == PLUMB_NONE) {
			w = plumb_varint_put(w, 0);
		} else {
			w = plumb_varint_put(w, plumb_zigzag(t->context, ctx) + 1);
			ctx = t->context;
		}
		w = plumb_varint_put(w, plumb_zigzag(t->input, input));
		w = plumb_varint_put(w, h);
		w = plumb_varint_put(w, t->calls);
		if (h & PLUMB_PT_MIN_MAX) {
			w = plumb_varint_put(w, t->min);
			w = plumb_varint_put(w, plumb_zigzag(t->max, t->min));
		}
		w = plumb_varint_put(w, plumb_zigzag(t->sum, least(t->calls, t->min, h, PLUMB_PT_MIN_MAX)));
		if ((h & PLUMB_PT_SQR) && !(w = put_sqr(o, i, w, t->sqr_sum)))
			return -1;
		if (h & PLUMB_PT_REAL)
			w = plumb_varint_put(w, plumb_zigzag(t->real_sum, t->sum));
		if (h & PLUMB_PT_SELF_MIN_MAX) {
			w = plumb_varint_put(w, t->self_min);
			w = plumb_varint_put(w, plumb_zigzag(t->self_max, t->self_min));
		}
		if (h & PLUMB_PT_SELF)
			w = plumb_varint_put(w, plumb_zigzag(t->self_sum, least(t->calls, t->self_min, h,
										PLUMB_PT_SELF_MIN_MAX)));
		if ((h & PLUMB_PT_SELF_SQR) && !(w = put_sqr(o, i, w, t->self_sqr_sum)))
			return -1;
		if (h & PLUMB_PT_INPUT_STATS) {
			w = plumb_varint_put(w, t->syscall_cumul);
			w = plumb_varint_put(w, t->thread_cumul);
			w = plumb_varint_put(w, t->syscall_self);
			w = plumb_varint_put(w, t->thread_self);
		}
		part = t->part;
		fn = t->function;
		input = t->input;
		if (store_bulk_done(o, w))
			return -1;
	}
	return store_bulk_flush(o);
}

/* ---- reading ------------------------------------------------------------- */

/* A pair (min, max): max as a difference from min. */
static void get_pair(store_bulk_in *b, uint64_t *min, uint64_t *max)
{
	*min = plumb_varint_get(&b->in);
	*max = plumb_unzigzag(plumb_varint_get(&b->in), *min);
}

static int get_sqr(store_bulk_in *b, const char *name, long double *v)
{
	uint64_t e = plumb_varint_get(&b->in), m = plumb_varint_get(&b->in);
	if (b->in.bad || !store_sqr_join(e, m, v))
		return 0; /* a cut entity is named by store_bulk_end_entity */
	return store_bulk_bad(b, "%s: %llu x 2^%lld out of range (expected a finite number, the "
			      "exponent from -%d to %d)", name, (unsigned long long)m,
			      (long long)store_u2i(plumb_unzigzag(e, 0)), SQR_EXP_MAX, SQR_EXP_MAX);
}

/* st: part, function, context, input of the point before. */
static int point_entity(rd *r, store_bulk_in *b, uint64_t st[4])
{
	if (b->next == b->first)
		st[0] = st[1] = st[2] = st[3] = 0;
	uint64_t part = plumb_unzigzag(plumb_varint_get(&b->in), st[0]);
	uint64_t fn = plumb_unzigzag(plumb_varint_get(&b->in), st[1]);
	uint64_t ctx_code = plumb_varint_get(&b->in);
	uint64_t ctx = ctx_code ? plumb_unzigzag(ctx_code - 1, st[2]) : st[2];
	uint64_t input = plumb_unzigzag(plumb_varint_get(&b->in), st[3]);
	uint64_t has = plumb_varint_get(&b->in);
	st[0] = part, st[1] = fn, st[2] = ctx, st[3] = input;
	plumb_point t = { .input = input, .has = (uint32_t)(has & PLUMB_PT_ALL) };
	t.calls = plumb_varint_get(&b->in);
	if (has & PLUMB_PT_MIN_MAX)
		get_pair(b, &t.min, &t.max);
	t.sum = plumb_unzigzag(plumb_varint_get(&b->in),
			       least(t.calls, t.min, (uint32_t)has, PLUMB_PT_MIN_MAX));
	if ((has & PLUMB_PT_SQR) && get_sqr(b, "sqr_sum", &t.sqr_sum))
		return -1;
	if (has & PLUMB_PT_REAL)
		t.real_sum = plumb_unzigzag(plumb_varint_get(&b->in), t.sum);
	if (has & PLUMB_PT_SELF_MIN_MAX)
		get_pair(b, &t.self_min, &t.self_max);
	if (has & PLUMB_PT_SELF)
		t.self_sum = plumb_unzigzag(plumb_varint_get(&b->in),
					    least(t.calls, t.self_min, (uint32_t)has,
						  PLUMB_PT_SELF_MIN_MAX));
	if ((has & PLUMB_PT_SELF_SQR) && get_sqr(b, "self_sqr_sum", &t.self_sqr_sum))
		return -1;
	if (has & PLUMB_PT_INPUT_STATS) {
		t.syscall_cumul = plumb_varint_get(&b->in);
		t.thread_cumul = plumb_varint_get(&b->in);
		t.syscall_self = plumb_varint_get(&b->in);
		t.thread_self = plumb_varint_get(&b->in);
	}
	if (b->in.bad)
		return store_bulk_end_entity(b);
	if (has > PLUMB_PT_ALL)
		return store_bulk_bad(b, "fields %#llx: expected a mask of 0 to %#x",
				      (unsigned long long)has, (unsigned)PLUMB_PT_ALL);
	if (store_bulk_ref(b, part, &r->part, "part", &t.part) ||
	    store_bulk_ref(b, fn, &r->fn, "function", &t.function))
		return -1;
	t.context = PLUMB_NONE;
	if (ctx_code) {
		if (store_bulk_ref(b, ctx, &r->node, "context", &t.context))
			return -1;
		if (r->p->cct.v[t.context].part != t.part)
			return store_bulk_bad(b, "context %llu: a node of another part than the "
					      "point's (part %llu)", (unsigned long long)ctx,
					      (unsigned long long)part);
	}
	if (plumb_point_append(r->p, &t, r->err))
		return store_bulk_model_fail(r, b);
	return store_bulk_end_entity(b);
}

int store_read_point_blocks(rd *r)
{
	store_bulk_in b;
	uint64_t st[4] = { 0 };
	int more = store_bulk_in_open(&b, r->db, "points", r->path, r->err);
	b.progress = &r->progress;
	while (!more && (more = store_bulk_next(&b)) > 0)
		more = point_entity(r, &b, st);
	store_bulk_in_close(&b);
	return more;
}
