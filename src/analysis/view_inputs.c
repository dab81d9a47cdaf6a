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
#include <string.h>
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
	const plumb_inputs_routine *v;
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

static double steepness(const plumb_inputs_routine *r)
{
	plumb_fit f = { .growth = (plumb_growth)r->growth, .power = { .c = r->exponent } };
	return plumb_fit_steepness(&f);
}

static int routine_cmp(const void *va, const void *vb, void *ctx)
{
	const order_ctx *c = ctx;
	uint32_t ia = *(const uint32_t *)va, ib = *(const uint32_t *)vb;
	const plumb_inputs_routine *a = &c->v[ia], *b = &c->v[ib];
	int r = 0;
	switch (c->by) {
	case PLUMB_SORT_CALLS:
		r = view_cmp_desc(a->calls, b->calls);
		break;
	case PLUMB_SORT_EXCLUSIVE:
		r = view_cmp_desc(a->self, b->self);
		break;
	case PLUMB_SORT_INCLUSIVE:
		r = view_cmp_desc(a->order_cost, b->order_cost);
		break;
	case PLUMB_SORT_MODULE:
		r = view_cmp_str(module_of(c->p, a->function), module_of(c->p, b->function));
		break;
	case PLUMB_SORT_NAME:
	case PLUMB_SORT_FILE:
		break;
	default: {
		double sa = steepness(a), sb = steepness(b);
		r = sa > sb ? -1 : sa < sb;
		break;
	}
	}
	if (!r && c->by != PLUMB_SORT_NAME)
		r = view_cmp_desc(a->order_cost, b->order_cost);
	if (!r)
		r = view_cmp_str(plumb_function_name(c->p, a->function),
				 plumb_function_name(c->p, b->function));
	if (!r)
		r = ia < ib ? -1 : ia > ib;
	return r;
}

/* A group and its fit as the view shows them. */
static void routine_of(const points_set *s, const points_group *g, const plumb_fit *fit,
		       plumb_inputs_routine *r)
{
	*r = (plumb_inputs_routine){
		.function = g->function, .has = g->has, .calls = g->calls, .points = g->n,
		.min_input = s->pts[g->first]->input, .max_input = s->pts[g->first + g->n - 1]->input,
		.cost = g->cost, .self = g->self, .order_cost = order_cost(s, g),
		.growth = (int)fit->growth, .exponent = fit->power.c, .r2 = fit->chosen.r2,
	};
}

static int add_row(plumb_table *t, const plumb_profile *p, const plumb_inputs_routine *g,
		   uint64_t total_cost)
{
	plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, 0);
	if (!r)
		return -1;
	plumb_cell *c = r->cells;
	plumb_cell_str(&c[C_ROUTINE], plumb_function_name(p, g->function));
	plumb_cell_str(&c[C_MODULE], module_of(p, g->function));
	plumb_cell_u64(&c[C_CALLS], g->calls);
	plumb_cell_u64(&c[C_POINTS], g->points);
	plumb_cell_u64(&c[C_MIN_INPUT], g->min_input);
	plumb_cell_u64(&c[C_MAX_INPUT], g->max_input);
	if (g->has & PLUMB_PT_REAL) {
		plumb_cell_u64(&c[C_COST], g->cost);
		if (total_cost)
			plumb_cell_pct(&c[C_COST_PCT], view_pct(g->cost, total_cost));
	}
	if (g->has & PLUMB_PT_SELF) {
		plumb_cell_u64(&c[C_SELF], g->self);
		if (total_cost)
			plumb_cell_pct(&c[C_SELF_PCT], view_pct(g->self, total_cost));
	}
	plumb_growth growth = (plumb_growth)g->growth;
	if (growth == PLUMB_GROWTH_NONE)
		return 0;
	char buf[64];
	const char *name = plumb_growth_name(growth);
	if (!name) {
		snprintf(buf, sizeof buf, "n^%.2f", g->exponent);
		name = buf;
	}
	if (!(name = plumb_table_strdup(t, name)))
		return -1;
	plumb_cell_str(&c[C_GROWTH], name);
	/* a constant's power law only fits noise: its exponent is 0 */
	double e = growth == PLUMB_GROWTH_CONST || fabs(g->exponent) < 5e-4 ? 0 : g->exponent;
	plumb_cell_num(&c[C_EXPONENT], e); /* no "-0.000" */
	if (isfinite(g->r2))
		plumb_cell_num(&c[C_R2], g->r2);
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

/* The points gathered and fitted, as o asks (fits: one per group). */
static int gather_fit(const plumb_profile *p, const plumb_view_opts *o, points_set *s,
		      plumb_fit **fits, plumb_inputs_routine **v, plumb_error *err)
{
	*fits = NULL;
	*v = NULL;
	if (points_gather(p, o, false, s, err))
		return -1;
	*fits = calloc(s->ngroups ? s->ngroups : 1, sizeof **fits);
	*v = malloc((s->ngroups ? s->ngroups : 1) * sizeof **v);
	if (!*fits || !*v)
		return plumb_fail_nomem(err);
	if (fit_groups(s, *fits, err))
		return -1;
	for (size_t g = 0; g < s->ngroups; g++)
		routine_of(s, &s->groups[g], &(*fits)[g], &(*v)[g]);
	return 0;
}

int plumb_inputs_summarize(const plumb_profile *p, plumb_inputs_summary **out, plumb_error *err)
{
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	o.kind = PLUMB_VIEW_INPUTS;
	points_set s;
	memset(&s, 0, sizeof s);
	plumb_fit *fits = NULL;
	plumb_inputs_routine *v = NULL;
	plumb_inputs_summary *sum = calloc(1, sizeof *sum);
	int rc = !sum ? plumb_fail_nomem(err) : gather_fit(p, &o, &s, &fits, &v, err);
	free(fits);
	if (rc == 0) {
		sum->n = s.ngroups;
		sum->v = v;
		sum->total_cost = s.total_cost;
		*out = sum;
	} else {
		free(v);
		free(sum);
	}
	points_set_free(&s);
	return rc;
}

void plumb_inputs_summary_free(plumb_inputs_summary *s)
{
	if (s)
		free(s->v);
	free(s);
}

/* The routines kept by a store (plumb_profile.inputs) stand for the
 * points of the whole profile when no chart needs the points themselves:
 * the same rows, --hide dropping routines as points_gather does. */
static bool use_kept(const plumb_profile *p, const plumb_view_opts *o, bool charts)
{
	return p->inputs && o->part == PLUMB_NONE && !charts;
}

static int kept_routines(const plumb_profile *p, const plumb_view_opts *o, plumb_inputs_routine **v,
			 size_t *n, plumb_error *err)
{
	const plumb_inputs_summary *k = p->inputs;
	*v = malloc((k->n ? k->n : 1) * sizeof **v);
	if (!*v)
		return plumb_fail_nomem(err);
	*n = 0;
	for (size_t i = 0; i < k->n; i++)
		if (!(o->hide && o->hide->n &&
		      plumb_symspec_list_match_function(o->hide, p, k->v[i].function)))
			(*v)[(*n)++] = k->v[i];
	return 0;
}

int view_inputs(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out,
		plumb_error *err)
{
	if (o->chart && !plumb_chart_known(o->chart))
		return plumb_fail(err, PLUMB_ERR_USAGE, "unknown chart '%s' (%s)", o->chart,
				  plumb_charts_list());
	/* pictures of the routines --select names, or for an HTML report
	 * (report_views) of the first rows: the worst-scaling routines */
	bool charts = (o->select && o->select->n) || o->report_views;
	bool kept = use_kept(p, o, charts);
	if (!kept && p->kept_totals)
		return plumb_fail(err, PLUMB_ERR_USAGE, "the profile was read for one view only (the "
				  "one its .plumb store keeps): this view needs its points");
	points_set s;
	memset(&s, 0, sizeof s);
	plumb_fit *fits = NULL;
	plumb_inputs_routine *v = NULL;
	size_t nv = 0;
	uint32_t *order = NULL;
	char title[256], in[128];
	snprintf(title, sizeof title,
		 "Input sensitivity: how each routine's cost per call grows with its input size (%s)",
		 view_points_input_desc(p, in, sizeof in));
	plumb_table *t = plumb_table_new("inputs", title);
	if (!t)
		goto nomem;
	if (kept ? kept_routines(p, o, &v, &nv, err) : gather_fit(p, o, &s, &fits, &v, err))
		goto fail;
	if (!kept)
		nv = s.ngroups;
	uint64_t total_cost = kept ? p->inputs->total_cost : s.total_cost;
	if (!(order = malloc((nv ? nv : 1) * sizeof *order)))
		goto nomem;
	for (int c = 0; c < C_N; c++)
		if (plumb_table_add_column(t, columns[c].key, columns[c].title, columns[c].type,
					   columns[c].cost && p->events.n ? 0 : -1, c == C_ROUTINE) < 0)
			goto nomem;
	for (size_t g = 0; g < nv; g++)
		order[g] = (uint32_t)g;
	order_ctx oc = { p, v, o->sort };
	qsort_r(order, nv, sizeof *order, routine_cmp, &oc);
	size_t n = nv;
	if (o->limit && n > o->limit)
		n = o->limit;
	for (size_t i = 0; i < n; i++)
		if (add_row(t, p, &v[order[i]], total_cost))
			goto nomem;
	if (add_notes(t, p))
		goto nomem;
	for (size_t i = 0; charts && i < n && i < VIEW_INPUTS_MAX_CHARTED; i++)
		if (view_inputs_charts(t, p, o, &s, &s.groups[order[i]], &fits[order[i]], err))
			goto fail;
	free(fits);
	free(v);
	free(order);
	points_set_free(&s);
	*out = t;
	return 0;
nomem:
	plumb_fail_nomem(err);
fail:
	free(fits);
	free(v);
	free(order);
	plumb_table_free(t);
	points_set_free(&s);
	return -1;
}
