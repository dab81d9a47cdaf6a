/* Performance points (aprof's input-sensitive profiles): one per part,
 * routine, context and input size, merged as aprof merges reports (sums and
 * counts add, min and max combine). See include/plumb/profile.h. */
#include <assert.h>
#include <string.h>

#include "model/index.h"

void plumb_points_info_init(plumb_points_info *info)
{
	*info = (plumb_points_info){
		.input_metric = PLUMB_NONE, .memres = 0, .total_cost = 0, .exe_mtime = -1, .version = -1,
	};
}

typedef struct point_key {
	plumb_id part, function, context;
	uint64_t input;
} point_key;

static uint32_t point_hash(const point_key *k)
{
	uint64_t h = plumb_hash_mix(k->part, k->function);
	h = plumb_hash_mix(h, k->context);
	return (uint32_t)plumb_hash_mix(h, k->input);
}

static bool point_eq(const void *ctx, uint32_t id, const void *key)
{
	const plumb_point *a = &((const plumb_profile *)ctx)->points.v[id];
	const point_key *b = key;
	return a->part == b->part && a->function == b->function && a->context == b->context &&
	       a->input == b->input;
}

static int add_checked(uint64_t *dst, uint64_t v, plumb_error *err)
{
	if (*dst > UINT64_MAX - v)
		return plumb_fail(err, PLUMB_ERR_OVERFLOW,
				  "performance point overflow: %llu + %llu does not fit in 64 bits",
				  (unsigned long long)*dst, (unsigned long long)v);
	*dst += v;
	return 0;
}

int plumb_point_combine(plumb_point *a, const plumb_point *b, plumb_error *err)
{
	plumb_point t = *a;
	uint32_t has = a->has & b->has;
	/* v0's sum is avg x calls whichever side had it exact */
	if ((a->has ^ b->has) & PLUMB_PT_SUM)
		has &= ~(uint32_t)PLUMB_PT_SUM;
	if (add_checked(&t.calls, b->calls, err) || add_checked(&t.sum, b->sum, err) ||
	    add_checked(&t.real_sum, b->real_sum, err) || add_checked(&t.self_sum, b->self_sum, err) ||
	    add_checked(&t.syscall_cumul, b->syscall_cumul, err) ||
	    add_checked(&t.thread_cumul, b->thread_cumul, err) ||
	    add_checked(&t.syscall_self, b->syscall_self, err) ||
	    add_checked(&t.thread_self, b->thread_self, err))
		return -1;
	t.sqr_sum += b->sqr_sum;
	t.self_sqr_sum += b->self_sqr_sum;
	if (b->min < t.min)
		t.min = b->min;
	if (b->max > t.max)
		t.max = b->max;
	if (b->self_min < t.self_min)
		t.self_min = b->self_min;
	if (b->self_max > t.self_max)
		t.self_max = b->self_max;
	t.has = has;
	/* a field that one side lacked is unknown for the sum of both */
	if (!(has & PLUMB_PT_MIN_MAX))
		t.min = t.max = 0;
	if (!(has & PLUMB_PT_SQR))
		t.sqr_sum = 0;
	if (!(has & PLUMB_PT_REAL))
		t.real_sum = 0;
	if (!(has & PLUMB_PT_SELF))
		t.self_sum = 0;
	if (!(has & PLUMB_PT_SELF_MIN_MAX))
		t.self_min = t.self_max = 0;
	if (!(has & PLUMB_PT_SELF_SQR))
		t.self_sqr_sum = 0;
	if (!(has & PLUMB_PT_INPUT_STATS))
		t.syscall_cumul = t.thread_cumul = t.syscall_self = t.thread_self = 0;
	*a = t;
	return 0;
}

/* The index covers points[0 .. point_ix.count): those plumb_point_append
 * added since are indexed at the next lookup. */
static int index_appended(plumb_profile *p)
{
	if (p->point_ix.count == p->points.n)
		return 0;
	if (plumb_index_reserve(&p->point_ix, p->points.n))
		return -1;
	for (size_t i = p->point_ix.count; i < p->points.n; i++) {
		const plumb_point *q = &p->points.v[i];
		point_key k = { q->part, q->function, q->context, q->input };
		if (plumb_index_insert(&p->point_ix, point_hash(&k), (uint32_t)i))
			return -1;
	}
	return 0;
}

int plumb_point_append(plumb_profile *p, const plumb_point *pt, plumb_error *err)
{
	assert(pt->part < p->parts.n && pt->function < p->functions.n);
	assert(pt->context == PLUMB_NONE || pt->context < p->cct.n);
	assert((pt->has & ~(uint32_t)PLUMB_PT_ALL) == 0);
	if (p->points.n >= PLUMB_NONE - 1)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "more than 2^32 performance points");
	return plumb_vec_push(p->points, *pt) ? plumb_fail_nomem(err) : 0;
}

int plumb_point_add(plumb_profile *p, const plumb_point *pt, plumb_error *err)
{
	assert(pt->part < p->parts.n && pt->function < p->functions.n);
	assert(pt->context == PLUMB_NONE || pt->context < p->cct.n);
	assert((pt->has & ~(uint32_t)PLUMB_PT_ALL) == 0);
	if (index_appended(p))
		return plumb_fail_nomem(err);
	point_key k = { pt->part, pt->function, pt->context, pt->input };
	uint32_t h = point_hash(&k);
	plumb_id id = plumb_index_find(&p->point_ix, h, point_eq, p, &k);
	if (id != PLUMB_NONE)
		return plumb_point_combine(&p->points.v[id], pt, err);
	if (p->points.n >= PLUMB_NONE - 1)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "more than 2^32 performance points");
	id = (plumb_id)p->points.n;
	if (plumb_vec_push(p->points, *pt) || plumb_index_insert(&p->point_ix, h, id)) {
		if (p->points.n > id)
			p->points.n = id;
		return plumb_fail_nomem(err);
	}
	return 0;
}

int plumb_points_info_add(plumb_profile *p, const plumb_points_info *in, plumb_error *err)
{
	plumb_points_info *cur = &p->points_info;
	const char *a = plumb_str(p, cur->input_metric), *b = plumb_str(p, in->input_metric);
	if (a && b && strcmp(a, b) != 0)
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "cannot merge input-sensitive profiles of different input metrics "
				  "(%s and %s)", a, b);
	if (cur->memres && in->memres && cur->memres != in->memres)
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "cannot merge input-sensitive profiles of different memory "
				  "resolutions (%u and %u bytes)", cur->memres, in->memres);
	if (add_checked(&cur->total_cost, in->total_cost, err))
		return -1;
	if (!a && b)
		cur->input_metric = in->input_metric;
	if (!cur->memres)
		cur->memres = in->memres;
	if (cur->exe_mtime < 0)
		cur->exe_mtime = in->exe_mtime;
	if (in->version >= 0 && (cur->version < 0 || in->version < cur->version))
		cur->version = in->version;
	return 0;
}
