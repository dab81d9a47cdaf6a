/* The inputs view: one row per routine of an input-sensitive profile, with
 * how its cost per call grows with its input size (fit.h), the routines
 * that scale worst first. With --select, charts of the selected routines'
 * points (view_inputs_chart.c) go into the table for the SVG and text
 * writers. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/fit.h"
#include "analysis/points_set.h"
#include "analysis/view_inputs.h"
#include "analysis/view_internal.h"

enum {
	C_ROUTINE, C_MODULE, C_CALLS, C_POINTS, C_MIN_INPUT, C_MAX_INPUT, C_COST, C_COST_PCT,
	C_SELF, C_SELF_PCT, C_GROWTH, C_EXPONENT, C_R2, C_N
};

static const struct {
	const char *key, *title;
	plumb_cell_type type;
	bool cost;
} columns[C_N] = {
	{ "routine", "Routine", PLUMB_CELL_STR, false },
	{ "module", "Module", PLUMB_CELL_STR, false },
	{ "calls", "Calls", PLUMB_CELL_U64, false },
	{ "points", "Inputs", PLUMB_CELL_U64, false },
	{ "min_input", "Min input", PLUMB_CELL_U64, false },
	{ "max_input", "Max input", PLUMB_CELL_U64, false },
	{ "cost", "Cost", PLUMB_CELL_U64, true },
	{ "cost_pct", "Cost %", PLUMB_CELL_PCT, true },
	{ "self_cost", "Self", PLUMB_CELL_U64, true },
	{ "self_pct", "Self %", PLUMB_CELL_PCT, true },
	{ "growth", "Growth", PLUMB_CELL_STR, false },
	{ "exponent", "Exponent", PLUMB_CELL_NUM, false },
	{ "r2", "R2", PLUMB_CELL_NUM, false },
};

/* The average cost per call (cumulative: sum / calls) against input size,
 * of a group's points with calls. */
size_t view_inputs_series(const points_set *s, const points_group *g, double *n, double *y)
{
	size_t k = 0;
	for (size_t i = 0; i < g->n; i++) {
		const plumb_point *pt = s->pts[g->first + i];
		if (!pt->calls)
			continue;
		n[k] = (double)pt->input;
		y[k++] = (double)pt->sum / (double)pt->calls;
	}
	return k;
}

/* Fitting is most of the view's time on a large report (some forty
 * least-squares passes over every point), and routines are fitted each on
 * its own: a second thread takes groups from the same counter when there
 * are enough points to pay for it. A fit is the same whichever thread
 * makes it, so the output does not change. */
#define FIT_THREAD_MIN_POINTS 100000
#define FIT_CHUNK 8

typedef struct fit_work {
	const points_set *s;
	plumb_fit *fits;
	size_t most;           /* points of the largest group */
	atomic_size_t next;    /* the next group to fit */
} fit_work;

/* Fit groups until none is left; without memory, leave them to the other
 * thread. */
static void *fit_worker(void *arg)
{
	fit_work *w = arg;
	size_t most = w->most ? w->most : 1;
	double *n = malloc(most * sizeof *n), *y = malloc(most * sizeof *y);
	if (n && y)
		for (;;) {
			size_t g = atomic_fetch_add(&w->next, FIT_CHUNK);
			if (g >= w->s->ngroups)
				break;
			size_t end = g + FIT_CHUNK < w->s->ngroups ? g + FIT_CHUNK : w->s->ngroups;
			for (; g < end; g++) {
				size_t k = view_inputs_series(w->s, &w->s->groups[g], n, y);
				plumb_fit_growth(n, y, k, &w->fits[g]);
			}
		}
	free(n);
	free(y);
	return NULL;
}

static int fit_groups(const points_set *s, plumb_fit *fits, plumb_error *err)
{
	fit_work w = { .s = s, .fits = fits };
	atomic_init(&w.next, 0);
	size_t total = 0;
	for (size_t g = 0; g < s->ngroups; g++) {
		total += s->groups[g].n;
		if (s->groups[g].n > w.most)
			w.most = s->groups[g].n;
	}
	pthread_t helper;
	bool helping = total >= FIT_THREAD_MIN_POINTS && sysconf(_SC_NPROCESSORS_ONLN) > 1 &&
		       pthread_create(&helper, NULL, fit_worker, &w) == 0;
	fit_worker(&w);
	if (helping)
		pthread_join(helper, NULL);
	/* every chunk taken was fitted: none taken means no memory anywhere */
	return atomic_load(&w.next) < s->ngroups ? plumb_fail_nomem(err) : 0;
}

typedef struct order_ctx {
	const plumb_profile *p;
	const points_set *s;
	const plumb_fit *fits;
	plumb_sort_key by;
} order_ctx;

static const char *module_of(const plumb_profile *p, plumb_id fn)
{
	plumb_id m = p->functions.v[fn].module;
	return m == PLUMB_NONE ? NULL : plumb_str(p, p->modules.v[m].path);
}

/* A routine's cost for ordering: its real sums, or its sums when the
 * source had no real sums (v0, v1). */
static uint64_t order_cost(const points_set *s, const points_group *g)
{
	if (g->has & PLUMB_PT_REAL)
		return g->cost;
	uint64_t v = 0;
	for (size_t i = 0; i < g->n; i++)
		v = v > UINT64_MAX - s->pts[g->first + i]->sum ? UINT64_MAX : v + s->pts[g->first + i]->sum;
	return v;
}

static int group_cmp(const void *va, const void *vb, void *ctx)
{
	const order_ctx *c = ctx;
	uint32_t ia = *(const uint32_t *)va, ib = *(const uint32_t *)vb;
	const points_group *a = &c->s->groups[ia], *b = &c->s->groups[ib];
	int r = 0;
	switch (c->by) {
	case PLUMB_SORT_CALLS:
		r = view_cmp_desc(a->calls, b->calls);
		break;
	case PLUMB_SORT_EXCLUSIVE:
		r = view_cmp_desc(a->self, b->self);
		break;
	case PLUMB_SORT_INCLUSIVE:
		r = view_cmp_desc(order_cost(c->s, a), order_cost(c->s, b));
		break;
	case PLUMB_SORT_MODULE:
		r = view_cmp_str(module_of(c->p, a->function), module_of(c->p, b->function));
		break;
	case PLUMB_SORT_NAME:
	case PLUMB_SORT_FILE:
		break;
	default: {
		double sa = plumb_fit_steepness(&c->fits[ia]), sb = plumb_fit_steepness(&c->fits[ib]);
		r = sa > sb ? -1 : sa < sb;
		break;
	}
	}
	if (!r && c->by != PLUMB_SORT_NAME)
		r = view_cmp_desc(order_cost(c->s, a), order_cost(c->s, b));
	if (!r)
		r = view_cmp_str(plumb_function_name(c->p, a->function),
				 plumb_function_name(c->p, b->function));
	if (!r)
		r = ia < ib ? -1 : ia > ib;
	return r;
}

static int add_row(plumb_table *t, const plumb_profile *p, const points_set *s,
		   const points_group *g, const plumb_fit *fit)
{
	plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, 0);
	if (!r)
		return -1;
	plumb_cell *c = r->cells;
	plumb_cell_str(&c[C_ROUTINE], plumb_function_name(p, g->function));
	plumb_cell_str(&c[C_MODULE], module_of(p, g->function));
	plumb_cell_u64(&c[C_CALLS], g->calls);
	plumb_cell_u64(&c[C_POINTS], g->n);
	plumb_cell_u64(&c[C_MIN_INPUT], s->pts[g->first]->input);
	plumb_cell_u64(&c[C_MAX_INPUT], s->pts[g->first + g->n - 1]->input);
	if (g->has & PLUMB_PT_REAL) {
		plumb_cell_u64(&c[C_COST], g->cost);
		if (s->total_cost)
			plumb_cell_pct(&c[C_COST_PCT], view_pct(g->cost, s->total_cost));
	}
	if (g->has & PLUMB_PT_SELF) {
		plumb_cell_u64(&c[C_SELF], g->self);
		if (s->total_cost)
			plumb_cell_pct(&c[C_SELF_PCT], view_pct(g->self, s->total_cost));
	}
	if (fit->growth == PLUMB_GROWTH_NONE)
		return 0;
	char buf[64];
	const char *name = plumb_growth_name(fit->growth);
	if (!name) {
		snprintf(buf, sizeof buf, "n^%.2f", fit->power.c);
		name = buf;
	}
	if (!(name = plumb_table_strdup(t, name)))
		return -1;
	plumb_cell_str(&c[C_GROWTH], name);
	/* a constant's power law only fits noise: its exponent is 0 */
	double e = fit->growth == PLUMB_GROWTH_CONST || fabs(fit->power.c) < 5e-4 ? 0 : fit->power.c;
	plumb_cell_num(&c[C_EXPONENT], e); /* no "-0.000" */
	if (isfinite(fit->chosen.r2))
		plumb_cell_num(&c[C_R2], fit->chosen.r2);
	return 0;
}

static int add_notes(plumb_table *t, const plumb_profile *p)
{
	char in[128], note[1024];
	const char *ev = p->events.n ? plumb_str(p, p->events.v[0].name) : "cost";
	snprintf(note, sizeof note,
		 "Growth: how the average cumulative cost per call (sum / calls, %s, callees "
		 "included) grows with the input size (%s), fitted as a + b*f(n) by least squares "
		 "of relative error for f = 1, log n, n, n log n, n^2, n^3; the simplest class within "
		 "%.0f%% of the best wins when it fits about as well as the free power law a + b*n^c "
		 "(exponent: its c), else n^c. R2: of the growth shown (none for 1). Empty: fewer "
		 "than %d input sizes. Cost: cumulative, recursion counted once (real sums); "
		 "Self: exclusive.",
		 ev, view_points_input_desc(p, in, sizeof in), PLUMB_FIT_TOLERANCE_REL * 100,
		 PLUMB_FIT_MIN_POINTS);
	return plumb_table_add_note(t, note);
}

int view_inputs(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out,
		plumb_error *err)
{
	if (o->chart && !plumb_chart_known(o->chart))
		return plumb_fail(err, PLUMB_ERR_USAGE, "unknown chart '%s' (%s)", o->chart,
				  plumb_charts_list());
	points_set s;
	if (points_gather(p, o, false, &s, err))
		return -1;
	char title[256], in[128];
	snprintf(title, sizeof title,
		 "Input sensitivity: how each routine's cost per call grows with its input size (%s)",
		 view_points_input_desc(p, in, sizeof in));
	plumb_table *t = plumb_table_new("inputs", title);
	plumb_fit *fits = calloc(s.ngroups ? s.ngroups : 1, sizeof *fits);
	uint32_t *order = malloc((s.ngroups ? s.ngroups : 1) * sizeof *order);
	if (!t || !fits || !order)
		goto nomem;
	if (fit_groups(&s, fits, err))
		goto fail;
	for (int c = 0; c < C_N; c++)
		if (plumb_table_add_column(t, columns[c].key, columns[c].title, columns[c].type,
					   columns[c].cost && p->events.n ? 0 : -1, c == C_ROUTINE) < 0)
			goto nomem;
	for (size_t g = 0; g < s.ngroups; g++)
		order[g] = (uint32_t)g;
	order_ctx oc = { p, &s, fits, o->sort };
	qsort_r(order, s.ngroups, sizeof *order, group_cmp, &oc);
	size_t n = s.ngroups;
	if (o->limit && n > o->limit)
		n = o->limit;
	for (size_t i = 0; i < n; i++)
		if (add_row(t, p, &s, &s.groups[order[i]], &fits[order[i]]))
			goto nomem;
	if (add_notes(t, p))
		goto nomem;
	/* pictures of the routines --select names, or for an HTML report
	 * (report_views) of the first rows: the worst-scaling routines */
	bool charts = (o->select && o->select->n) || o->report_views;
	for (size_t i = 0; charts && i < n && i < VIEW_INPUTS_MAX_CHARTED; i++)
		if (view_inputs_charts(t, p, o, &s, &s.groups[order[i]], &fits[order[i]], err))
			goto fail;
	free(fits);
	free(order);
	points_set_free(&s);
	*out = t;
	return 0;
nomem:
	plumb_fail_nomem(err);
fail:
	free(fits);
	free(order);
	plumb_table_free(t);
	points_set_free(&s);
	return -1;
}
