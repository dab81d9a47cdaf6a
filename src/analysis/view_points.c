/* The points view: an input-sensitive profile's performance points as they
 * are, one row per routine (or calling context) and input size, summed over
 * parts. A field the source did not have is a null cell; v0's average is
 * already a sum (avg x calls) in the model. */
#include <stdio.h>
#include <stdlib.h>

#include "analysis/points_set.h"
#include "analysis/view_internal.h"

enum {
	C_ROUTINE, C_MODULE, C_CONTEXT, C_INPUT, C_CALLS, C_MIN, C_MAX, C_SUM, C_SQR, C_REAL,
	C_SELF, C_SELF_MIN, C_SELF_MAX, C_SELF_SQR, C_SYS_CUMUL, C_THR_CUMUL, C_SYS_SELF,
	C_THR_SELF, C_N
};

static const struct {
	const char *key, *title;
	plumb_cell_type type;
	bool cost;
} columns[C_N] = {
	{ "routine", "Routine", PLUMB_CELL_STR, false },
	{ "module", "Module", PLUMB_CELL_STR, false },
	{ "context", "Context", PLUMB_CELL_STR, false },
	{ "input", "Input", PLUMB_CELL_U64, false },
	{ "calls", "Calls", PLUMB_CELL_U64, false },
	{ "min", "Min", PLUMB_CELL_U64, true },
	{ "max", "Max", PLUMB_CELL_U64, true },
	{ "sum", "Sum", PLUMB_CELL_U64, true },
	{ "sqr_sum", "Sum of squares", PLUMB_CELL_BIG, true },
	{ "real_sum", "Real sum", PLUMB_CELL_U64, true },
	{ "self_sum", "Self sum", PLUMB_CELL_U64, true },
	{ "self_min", "Self min", PLUMB_CELL_U64, true },
	{ "self_max", "Self max", PLUMB_CELL_U64, true },
	{ "self_sqr_sum", "Self sum of squares", PLUMB_CELL_BIG, true },
	{ "syscall_cumul", "Syscall cumul.", PLUMB_CELL_U64, false },
	{ "thread_cumul", "Thread cumul.", PLUMB_CELL_U64, false },
	{ "syscall_self", "Syscall self", PLUMB_CELL_U64, false },
	{ "thread_self", "Thread self", PLUMB_CELL_U64, false },
};

typedef struct order_ctx {
	const plumb_profile *p;
	const points_set *s;
	plumb_sort_key by;
} order_ctx;

static const char *module_of(const plumb_profile *p, plumb_id fn)
{
	plumb_id m = p->functions.v[fn].module;
	return m == PLUMB_NONE ? NULL : plumb_str(p, p->modules.v[m].path);
}

/* Groups: by --sort, heaviest cumulative cost first by default; ties by
 * name, then context. */
static int group_cmp(const void *va, const void *vb, void *ctx)
{
	const order_ctx *c = ctx;
	const points_group *a = &c->s->groups[*(const uint32_t *)va];
	const points_group *b = &c->s->groups[*(const uint32_t *)vb];
	int r = 0;
	switch (c->by) {
	case PLUMB_SORT_CALLS:
		r = view_cmp_desc(a->calls, b->calls);
		break;
	case PLUMB_SORT_EXCLUSIVE:
		r = view_cmp_desc(a->self, b->self);
		break;
	case PLUMB_SORT_MODULE:
		r = view_cmp_str(module_of(c->p, a->function), module_of(c->p, b->function));
		break;
	case PLUMB_SORT_NAME:
	case PLUMB_SORT_FILE:
		break;
	default:
		r = view_cmp_desc(a->cost, b->cost);
		if (!r)
			r = view_cmp_desc(a->self, b->self);
		break;
	}
	if (!r)
		r = view_cmp_str(plumb_function_name(c->p, a->function),
				 plumb_function_name(c->p, b->function));
	if (!r)
		r = view_cmp_str(a->context ? a->context : "", b->context ? b->context : "");
	if (!r)
		r = a < b ? -1 : a > b;
	return r;
}

static void set_u64(plumb_cell *c, bool known, uint64_t v)
{
	if (known)
		plumb_cell_u64(c, v);
}

static int add_row(plumb_table *t, const plumb_profile *p, const points_group *g,
		   const plumb_point *pt)
{
	plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, 0);
	if (!r)
		return -1;
	plumb_cell *c = r->cells;
	uint32_t h = pt->has;
	plumb_cell_str(&c[C_ROUTINE], plumb_function_name(p, g->function));
	plumb_cell_str(&c[C_MODULE], module_of(p, g->function));
	plumb_cell_str(&c[C_CONTEXT], g->context);
	plumb_cell_u64(&c[C_INPUT], pt->input);
	plumb_cell_u64(&c[C_CALLS], pt->calls);
	set_u64(&c[C_MIN], h & PLUMB_PT_MIN_MAX, pt->min);
	set_u64(&c[C_MAX], h & PLUMB_PT_MIN_MAX, pt->max);
	plumb_cell_u64(&c[C_SUM], pt->sum);
	if ((h & PLUMB_PT_SQR) && plumb_cell_big(t, &c[C_SQR], pt->sqr_sum))
		return -1;
	set_u64(&c[C_REAL], h & PLUMB_PT_REAL, pt->real_sum);
	set_u64(&c[C_SELF], h & PLUMB_PT_SELF, pt->self_sum);
	set_u64(&c[C_SELF_MIN], h & PLUMB_PT_SELF_MIN_MAX, pt->self_min);
	set_u64(&c[C_SELF_MAX], h & PLUMB_PT_SELF_MIN_MAX, pt->self_max);
	if ((h & PLUMB_PT_SELF_SQR) && plumb_cell_big(t, &c[C_SELF_SQR], pt->self_sqr_sum))
		return -1;
	bool st = h & PLUMB_PT_INPUT_STATS;
	set_u64(&c[C_SYS_CUMUL], st, pt->syscall_cumul);
	set_u64(&c[C_THR_CUMUL], st, pt->thread_cumul);
	set_u64(&c[C_SYS_SELF], st, pt->syscall_self);
	set_u64(&c[C_THR_SELF], st, pt->thread_self);
	return 0;
}

/* "rms, in 4-byte granules" or what is known of it. */
const char *view_points_input_desc(const plumb_profile *p, char *buf, size_t n)
{
	const char *metric = plumb_str(p, p->points_info.input_metric);
	if (p->points_info.memres)
		snprintf(buf, n, "%s, in %u-byte granules", metric ? metric : "input size",
			 p->points_info.memres);
	else
		snprintf(buf, n, "%s", metric ? metric : "input size");
	return buf;
}

static const char *title_of(const plumb_profile *p, char *buf, size_t n)
{
	char in[128];
	snprintf(buf, n, "Performance points: one row per routine%s and input size (%s)",
		 p->cct.n > p->parts.n ? " or calling context" : "",
		 view_points_input_desc(p, in, sizeof in));
	return buf;
}

int view_points(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out,
		plumb_error *err)
{
	points_set s;
	if (points_gather(p, o, true, &s, err))
		return -1;
	char title[256];
	plumb_table *t = plumb_table_new("points", title_of(p, title, sizeof title));
	uint32_t *order = malloc((s.ngroups ? s.ngroups : 1) * sizeof *order);
	if (!t || !order)
		goto nomem;
	for (int c = 0; c < C_N; c++)
		if (plumb_table_add_column(t, columns[c].key, columns[c].title, columns[c].type,
					   columns[c].cost && p->events.n ? 0 : -1, c == C_ROUTINE) < 0)
			goto nomem;
	for (size_t g = 0; g < s.ngroups; g++)
		order[g] = (uint32_t)g;
	order_ctx oc = { p, &s, o->sort };
	qsort_r(order, s.ngroups, sizeof *order, group_cmp, &oc);
	for (size_t i = 0; i < s.ngroups; i++) {
		const points_group *g = &s.groups[order[i]];
		for (size_t k = 0; k < g->n; k++) {
			if (o->limit && t->nrows >= o->limit)
				break;
			if (add_row(t, p, g, s.pts[g->first + k]))
				goto nomem;
		}
	}
	/* the context strings live in s: copy them into the table */
	for (size_t i = 0; i < t->nrows; i++) {
		plumb_cell *c = &t->rows[i].cells[C_CONTEXT];
		if (c->type == PLUMB_CELL_STR && !(c->s = plumb_table_strdup(t, c->s)))
			goto nomem;
	}
	free(order);
	points_set_free(&s);
	*out = t;
	return 0;
nomem:
	plumb_fail_nomem(err);
	free(order);
	plumb_table_free(t);
	points_set_free(&s);
	return -1;
}
