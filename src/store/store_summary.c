/* The summary columns of the .plumb store, for people querying it with
 * sqlite3: the bulk (frames, call graph, CCT, samples) is in compressed
 * blocks that only plumb reads, so each functions row also says, as JSON
 * arrays, the function's self cost per event and the functions it calls
 * with their call counts, and a summary of its performance points. JSON
 * keeps them in the row SQLite writes anyway
 * (a row per function and event, or per call, cost a second per million
 * rows to write); the views v_function_costs and v_calls unnest them.
 * plumb never reads them back. Schema: docs/plumb-format.md. */
#include <stdlib.h>
#include <string.h>

#include "store/store_private.h"
#include "store/store_summary.h"

/* One caller's calls to one callee, summed. */
typedef struct callee_sum {
	plumb_id callee;
	bool known;
	uint64_t calls; /* of the known counts */
} callee_sum;

static int callee_cmp(const void *a, const void *b)
{
	const callee_sum *x = a, *y = b;
	return x->callee < y->callee ? -1 : x->callee > y->callee;
}

static int put(store_summary *s, const char *str, bool end)
{
	return store_json_put(&s->json, str, end);
}

static int put_value(store_summary *s, uint64_t v, bool known)
{
	return store_json_value(&s->json, v, known);
}

/* Each function's self cost: the sum of its lines (store_lines.c summed
 * the call graph's entries and the CCT's nodes by line already). */
static int self_texts(store_summary *s, const plumb_profile *p, const store_lines *l)
{
	size_t nev = p->events.n, nfn = p->functions.n;
	uint64_t *sum = calloc(nfn * nev + 1, sizeof *sum);
	if (!sum)
		return -1;
	for (size_t i = 0; i < l->recs.n; i++)
		store_add_held(sum + (size_t)l->recs.v[i].fn * nev, l->costs.v + i * nev, nev);
	int ret = 0;
	for (size_t f = 0; f < nfn && !ret; f++) {
		const uint64_t *c = sum + f * nev;
		bool any = false;
		for (size_t e = 0; e < nev; e++)
			any |= c[e] != 0;
		s->self[f] = SIZE_MAX;
		if (!any)
			continue;
		s->self[f] = s->json.len;
		ret = store_json_costs(&s->json, c, nev, true);
	}
	free(sum);
	return ret;
}

typedef struct bucketing {
	size_t *at;          /* per caller: its next slot (counting: its count) */
	callee_sum *v;       /* by caller: callee and count */
	plumb_id *node_fn;   /* per CCT node: its frame's function, or PLUMB_NONE */
} bucketing;

static void bucket_call(bucketing *b, bool counting, plumb_id caller, plumb_id callee,
			uint64_t calls)
{
	if (counting)
		b->at[caller + 1]++;
	else
		b->v[b->at[caller]++] = (callee_sum){ callee, calls != PLUMB_COUNT_UNKNOWN, calls };
}

/* Each edge of the call graph or the CCT: caller function, callee and
 * count (PLUMB_COUNT_UNKNOWN if not known), counted or bucketed. */
static void each_call(const plumb_profile *p, bucketing *b, bool counting)
{
	for (size_t i = 0; i < p->arcs.n; i++) {
		const plumb_arc *a = &p->arcs.v[i];
		bucket_call(b, counting, p->frames.v[a->caller].function, a->callee, a->calls);
	}
	for (size_t i = 0; i < p->cct.n; i++) {
		const plumb_cct_node *c = &p->cct.v[i];
		if (c->parent == PLUMB_NONE || b->node_fn[c->parent] == PLUMB_NONE)
			continue;
		bucket_call(b, counting, b->node_fn[c->parent], b->node_fn[i],
			    plumb_cct_activations(p, (plumb_id)i));
	}
}

/* Calls from the call graph's arcs and the CCT's edges (activations): the
 * edges bucketed by caller (a counting sort: a CCT has millions of edges),
 * then each caller's summed by callee through a per-callee slot. */
static int calls_texts(store_summary *s, const plumb_profile *p)
{
	size_t nfn = p->functions.n;
	bucketing b = { calloc(nfn + 2, sizeof *b.at), malloc((p->arcs.n + p->cct.n + 1) * sizeof *b.v),
			malloc((p->cct.n + 1) * sizeof *b.node_fn) };
	uint32_t *slot = malloc((nfn + 1) * sizeof *slot);
	callee_sum *sum = malloc((nfn + 1) * sizeof *sum);
	int ret = b.at && b.v && b.node_fn && slot && sum ? 0 : -1;
	if (ret == 0) {
		/* once: the CCT's frames are looked up in no particular order */
		for (size_t i = 0; i < p->cct.n; i++)
			b.node_fn[i] = p->cct.v[i].frame == PLUMB_NONE
					       ? PLUMB_NONE : p->frames.v[p->cct.v[i].frame].function;
		each_call(p, &b, true);
		for (size_t f = 0; f < nfn; f++)
			b.at[f + 1] += b.at[f];
		each_call(p, &b, false); /* at[f] ends where f + 1's began */
		for (size_t f = 0; f < nfn; f++)
			slot[f] = UINT32_MAX;
	}
	for (size_t f = 0, from = 0; f < nfn && ret == 0; from = b.at[f], f++) {
		s->calls[f] = SIZE_MAX;
		size_t k = 0;
		for (size_t i = from; i < b.at[f]; i++) {
			const callee_sum *c = &b.v[i];
			if (slot[c->callee] == UINT32_MAX) {
				slot[c->callee] = (uint32_t)k;
				sum[k++] = (callee_sum){ c->callee, false, 0 };
			}
			callee_sum *t = &sum[slot[c->callee]];
			if (c->known) {
				store_add_held(&t->calls, &c->calls, 1);
				t->known = true;
			}
		}
		if (!k)
			continue;
		qsort(sum, k, sizeof *sum, callee_cmp);
		s->calls[f] = s->json.len;
		for (size_t j = 0; j < k && ret == 0; j++) {
			slot[sum[j].callee] = UINT32_MAX;
			/* no count known: [callee] (a CCT's edges: 5 bytes less each) */
			ret = put(s, j ? ",[" : "[[", false) || put_value(s, sum[j].callee, true) ||
			      (sum[j].known && (put(s, ",", false) ||
						put_value(s, sum[j].calls, sum[j].calls != UINT64_MAX))) ||
			      put(s, "]", false);
		}
		ret = ret || put(s, "]", true);
	}
	free(b.at);
	free(b.v);
	free(b.node_fn);
	free(slot);
	free(sum);
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
		store_add_held(&f->calls, &t->calls, 1);
		store_add_held(&f->sum, &t->sum, 1);
	}
	int ret = 0;
	for (size_t fn = 0; fn < nfn && !ret; fn++) {
		const point_sum *f = &v[fn];
		s->points[fn] = f->n ? s->json.len : SIZE_MAX;
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

int store_summary_build(const plumb_profile *p, const store_lines *l, store_summary *s,
			plumb_error *err)
{
	*s = (store_summary){ 0 };
	s->self = malloc((p->functions.n + 1) * sizeof *s->self);
	s->calls = malloc((p->functions.n + 1) * sizeof *s->calls);
	s->points = malloc((p->functions.n + 1) * sizeof *s->points);
	if (!s->self || !s->calls || !s->points || self_texts(s, p, l) || calls_texts(s, p) ||
	    points_texts(s, p)) {
		store_summary_free(s);
		return plumb_fail_nomem(err);
	}
	return 0;
}

const char *store_summary_text(const store_summary *s, const size_t *off, size_t fn)
{
	return off[fn] == SIZE_MAX ? NULL : s->json.text + off[fn];
}

void store_summary_free(store_summary *s)
{
	store_json_free(&s->json);
	free(s->self);
	free(s->calls);
	free(s->points);
	*s = (store_summary){ 0 };
}
