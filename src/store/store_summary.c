/* The summary columns of the .plumb store, for people querying it with
 * sqlite3: the bulk (frames, call graph, CCT, samples) is in compressed
 * blocks that only plumb reads, so each functions row also says, as JSON
 * arrays, the function's self cost per event and the functions it calls
 * with their call counts, and a summary of its performance points. JSON
 * keeps them in the row SQLite writes anyway
 * (a row per function and event, or per call, cost a second per million
 * rows to write); the views v_function_costs and v_calls unnest them.
 * plumb never reads them back. Schema: docs/plumb-format.md. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_private.h"
#include "store/store_summary.h"

/* dst += src, slot by slot, held at UINT64_MAX (written as null: too big
 * to say) instead of wrapping. */
static void add_held(uint64_t *dst, const uint64_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = dst[i] > UINT64_MAX - src[i] ? UINT64_MAX : dst[i] + src[i];
}

typedef struct call {
	plumb_id caller, callee;
	uint64_t calls; /* PLUMB_COUNT_UNKNOWN if not known */
} call;

static int call_cmp(const void *a, const void *b)
{
	const call *x = a, *y = b;
	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/* Append to s's text: a string (with its NUL when end), or a value. */
static int put(store_summary *s, const char *str, bool end)
{
	size_t n = strlen(str) + end;
	if (s->cap - s->len < n) {
		size_t cap = s->cap ? s->cap : 4096;
		while (cap - s->len < n)
			cap *= 2;
		char *t = realloc(s->text, cap);
		if (!t)
			return -1;
		s->text = t;
		s->cap = cap;
	}
	memcpy(s->text + s->len, str, n);
	s->len += n;
	return 0;
}

/* A u64 as the int64 of the same bits (the store's convention), or null. */
static int put_value(store_summary *s, uint64_t v, bool known)
{
	char num[24];
	snprintf(num, sizeof num, "%" PRId64, store_u2i(v));
	return put(s, known ? num : "null", false);
}

static int self_texts(store_summary *s, const plumb_profile *p)
{
	size_t nev = p->events.n, nfn = p->functions.n;
	uint64_t *sum = calloc(nfn * nev + 1, sizeof *sum);
	if (!sum)
		return -1;
	for (size_t i = 0; i < p->cct.n; i++)
		if (p->cct.v[i].frame != PLUMB_NONE)
			add_held(sum + (size_t)p->frames.v[p->cct.v[i].frame].function * nev,
				 p->cct_self.v + i * nev, nev);
	for (size_t i = 0; i < p->cg_self.n; i++)
		add_held(sum + (size_t)p->frames.v[p->cg_self.v[i].frame].function * nev,
			 p->cg_self_cost.v + i * nev, nev);
	int ret = 0;
	for (size_t f = 0; f < nfn && !ret; f++) {
		const uint64_t *c = sum + f * nev;
		bool any = false;
		for (size_t e = 0; e < nev; e++)
			any |= c[e] != 0;
		s->self[f] = SIZE_MAX;
		if (!any)
			continue;
		s->self[f] = s->len;
		for (size_t e = 0; e < nev && !ret; e++)
			ret = put(s, e ? "," : "[", false) || put_value(s, c[e], c[e] != UINT64_MAX);
		ret = ret || put(s, "]", true);
	}
	free(sum);
	return ret;
}

/* Calls from the call graph's arcs and the CCT's edges (activations). */
static int calls_texts(store_summary *s, const plumb_profile *p)
{
	size_t n = 0;
	call *v = malloc((p->arcs.n + p->cct.n + 1) * sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < p->arcs.n; i++) {
		const plumb_arc *a = &p->arcs.v[i];
		v[n++] = (call){ p->frames.v[a->caller].function, a->callee, a->calls };
	}
	for (size_t i = 0; i < p->cct.n; i++) {
		const plumb_cct_node *c = &p->cct.v[i];
		if (c->parent == PLUMB_NONE || p->cct.v[c->parent].frame == PLUMB_NONE)
			continue;
		v[n++] = (call){ p->frames.v[p->cct.v[c->parent].frame].function,
				 p->frames.v[c->frame].function, plumb_cct_activations(p, (plumb_id)i) };
	}
	qsort(v, n, sizeof *v, call_cmp);
	for (size_t f = 0; f < p->functions.n; f++)
		s->calls[f] = SIZE_MAX;
	int ret = 0;
	for (size_t i = 0; i < n && !ret;) {
		uint64_t total = 0;
		bool known = false;
		size_t j = i;
		for (; j < n && v[j].caller == v[i].caller && v[j].callee == v[i].callee; j++)
			if (v[j].calls != PLUMB_COUNT_UNKNOWN) {
				add_held(&total, &v[j].calls, 1);
				known = true;
			}
		bool first = s->calls[v[i].caller] == SIZE_MAX;
		if (first) {
			if (i) /* close the previous caller's array */
				ret = put(s, "]", true);
			s->calls[v[i].caller] = s->len;
		}
		char callee[16];
		snprintf(callee, sizeof callee, "%u,", (unsigned)v[i].callee);
		ret = ret || put(s, first ? "[[" : ",[", false) || put(s, callee, false) ||
		      put_value(s, total, known && total != UINT64_MAX) || put(s, "]", false);
		i = j;
	}
	if (n && !ret)
		ret = put(s, "]", true);
	free(v);
	return ret;
}

/* Per function, over its performance points of every part and context:
 * how many, their calls and cumulative sums, the least and greatest input
 * size: [points, calls, sum, min_input, max_input]. */
typedef struct point_sum {
	uint64_t n, calls, sum, min_input, max_input;
} point_sum;

static int points_texts(store_summary *s, const plumb_profile *p)
{
	size_t nfn = p->functions.n;
	point_sum *v = calloc(nfn + 1, sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < p->points.n; i++) {
		const plumb_point *t = &p->points.v[i];
		point_sum *f = &v[t->function];
		if (!f->n || t->input < f->min_input)
			f->min_input = t->input;
		if (!f->n || t->input > f->max_input)
			f->max_input = t->input;
		f->n++;
		add_held(&f->calls, &t->calls, 1);
		add_held(&f->sum, &t->sum, 1);
	}
	int ret = 0;
	for (size_t fn = 0; fn < nfn && !ret; fn++) {
		const point_sum *f = &v[fn];
		s->points[fn] = f->n ? s->len : SIZE_MAX;
		if (f->n)
			ret = put(s, "[", false) || put_value(s, f->n, true) || put(s, ",", false) ||
			      put_value(s, f->calls, f->calls != UINT64_MAX) || put(s, ",", false) ||
			      put_value(s, f->sum, f->sum != UINT64_MAX) || put(s, ",", false) ||
			      put_value(s, f->min_input, true) || put(s, ",", false) ||
			      put_value(s, f->max_input, true) || put(s, "]", true);
	}
	free(v);
	return ret;
}

int store_summary_build(const plumb_profile *p, store_summary *s, plumb_error *err)
{
	*s = (store_summary){ 0 };
	s->self = malloc((p->functions.n + 1) * sizeof *s->self);
	s->calls = malloc((p->functions.n + 1) * sizeof *s->calls);
	s->points = malloc((p->functions.n + 1) * sizeof *s->points);
	if (!s->self || !s->calls || !s->points || self_texts(s, p) || calls_texts(s, p) ||
	    points_texts(s, p)) {
		store_summary_free(s);
		return plumb_fail_nomem(err);
	}
	return 0;
}

const char *store_summary_text(const store_summary *s, const size_t *off, size_t fn)
{
	return off[fn] == SIZE_MAX ? NULL : s->text + off[fn];
}

void store_summary_free(store_summary *s)
{
	free(s->text);
	free(s->self);
	free(s->calls);
	free(s->points);
	*s = (store_summary){ 0 };
}
