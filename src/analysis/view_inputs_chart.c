/* The inputs view's pictures of one routine, as aprof-plot draws them
 * (research: aprof-plot's charts): cost per call against input size (min,
 * average, max and the fitted curve), amortized cost, input-size frequency
 * and total cost per input. The writers draw them (svg, text); every value
 * is computed here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/view_inputs.h"
#include "analysis/view_internal.h"

static const char *const chart_names[] = { "cost", "amortized", "frequency", "total" };
#define NCHARTS (sizeof chart_names / sizeof *chart_names)

bool plumb_chart_known(const char *name)
{
	for (size_t i = 0; i < NCHARTS; i++)
		if (strcmp(chart_names[i], name) == 0)
			return true;
	return false;
}

const char *plumb_charts_list(void)
{
	return "cost, amortized, frequency, total";
}

/* Logarithmic when the positive values span more than two decades. */
static bool spans_decades(const double *v, size_t n)
{
	double lo = INFINITY, hi = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] > 0) {
			lo = v[i] < lo ? v[i] : lo;
			hi = v[i] > hi ? v[i] : hi;
		}
	return hi > 0 && hi / lo > 100;
}

static bool inputs_span_decades(const points_set *s, const points_group *g)
{
	double lo = (double)s->pts[g->first]->input, hi = (double)s->pts[g->first + g->n - 1]->input;
	return hi / (lo < 1 ? 1 : lo) > 100;
}

typedef struct chart_ctx {
	plumb_table *t;
	const plumb_profile *p;
	const plumb_view_opts *o;
	const points_set *s;
	const points_group *g;
	const char *name;    /* the routine */
	char xlabel[160];
	const char *ev;
} chart_ctx;

static bool wanted(const chart_ctx *c, const char *key)
{
	return !c->o->chart || strcmp(c->o->chart, key) == 0;
}

/* A chart (NULL on ENOMEM). */
static plumb_chart *new_chart(chart_ctx *c, const char *key, const char *what, const char *ylabel)
{
	char title[512];
	snprintf(title, sizeof title, "%s: %s", c->name, what);
	plumb_chart *ch = plumb_table_add_chart(c->t, key, title, c->xlabel, ylabel);
	if (ch)
		ch->main = c->o->chart || strcmp(key, "cost") == 0;
	return ch;
}

static const char *fit_label(const plumb_fit *f, char *buf, size_t n)
{
	const plumb_fit_curve *c = &f->chosen;
	char term[64];
	if (f->growth == PLUMB_GROWTH_POWER)
		snprintf(term, sizeof term, "n^%.2f", c->c);
	else
		snprintf(term, sizeof term, "%s", plumb_growth_name(f->growth));
	if (f->growth == PLUMB_GROWTH_CONST)
		snprintf(buf, n, "fit: %.4g", c->a);
	else
		snprintf(buf, n, "fit: %.4g %s %.4g %s (R2 %.3f)", c->a, c->b < 0 ? "-" : "+",
			 fabs(c->b), term, c->r2);
	return buf;
}

/* Cost per call: min, average and max per input, and the fitted curve. */
static int cost_chart(chart_ctx *c, const plumb_fit *fit)
{
	if (!wanted(c, "cost"))
		return 0;
	char ylabel[128];
	snprintf(ylabel, sizeof ylabel, "cost per call (%s)", c->ev);
	plumb_chart *ch = new_chart(c, "cost", "cost per call against input size", ylabel);
	if (!ch)
		return -1;
	const points_group *g = c->g;
	double *x, *y, *xl, *yl, *xa, *ya;
	bool minmax = (g->has & PLUMB_PT_MIN_MAX) != 0;
	size_t k = 0;
	/* the average last: drawn over min and max where they meet */
	if ((minmax && !plumb_chart_add_series(c->t, ch, "max", "max", PLUMB_MARK_POINTS, g->n, &x, &y)) ||
	    (minmax && !plumb_chart_add_series(c->t, ch, "min", "min", PLUMB_MARK_POINTS, g->n, &xl, &yl)) ||
	    !plumb_chart_add_series(c->t, ch, "avg", "average", PLUMB_MARK_POINTS, g->n, &xa, &ya))
		return -1;
	for (size_t i = 0; i < g->n; i++) {
		const plumb_point *pt = c->s->pts[g->first + i];
		if (!pt->calls)
			continue;
		xa[k] = (double)pt->input;
		ya[k] = (double)pt->sum / (double)pt->calls;
		if (minmax) {
			x[k] = xl[k] = xa[k];
			y[k] = (double)pt->max;
			yl[k] = (double)pt->min;
		}
		k++;
	}
	for (size_t i = 0; i < ch->nseries; i++)
		ch->series[i].n = k;
	ch->xlog = inputs_span_decades(c->s, g);
	ch->ylog = spans_decades(minmax ? yl : ya, k) || spans_decades(minmax ? y : ya, k);
	if (fit->growth == PLUMB_GROWTH_NONE || k == 0)
		return 0;
	enum { SAMPLES = 64 };
	char label[160];
	double *fx, *fy;
	if (!plumb_chart_add_series(c->t, ch, "fit", fit_label(fit, label, sizeof label),
				    PLUMB_MARK_LINE, SAMPLES, &fx, &fy))
		return -1;
	double lo = xa[0], hi = xa[k - 1];
	if (ch->xlog && lo < 1)
		lo = 1;
	for (int i = 0; i < SAMPLES; i++) {
		double f = (double)i / (SAMPLES - 1);
		fx[i] = ch->xlog ? lo * pow(hi / lo, f) : lo + (hi - lo) * f;
		fy[i] = plumb_fit_eval(&fit->chosen, fx[i]);
	}
	return 0;
}

typedef struct avg_ix {
	double avg, cost;
	size_t i;
} avg_ix;

static int avg_cmp(const void *va, const void *vb)
{
	const avg_ix *a = va, *b = vb;
	return a->avg < b->avg ? -1 : a->avg > b->avg ? 1 : a->i < b->i ? -1 : a->i > b->i;
}

/* aprof-plot's amortized cost: tuples sorted by average cost; for each
 * prefix, alpha = (cost of the later tuples) / (cost of the prefix), skipping
 * alpha > 2; the prefix that minimises (1 + alpha) * its last average is the
 * cut. Tuples up to it show (1 + alpha) * average, later ones 0. */
static int amortized_chart(chart_ctx *c)
{
	if (!wanted(c, "amortized"))
		return 0;
	const points_group *g = c->g;
	avg_ix *v = malloc((g->n ? g->n : 1) * sizeof *v);
	if (!v)
		return -1;
	size_t k = 0;
	double total = 0;
	for (size_t i = 0; i < g->n; i++) {
		const plumb_point *pt = c->s->pts[g->first + i];
		if (pt->calls) {
			v[k] = (avg_ix){ (double)pt->sum / (double)pt->calls, (double)pt->sum, i };
			total += v[k++].cost;
		}
	}
	qsort(v, k, sizeof *v, avg_cmp);
	double prefix = 0, best = INFINITY, alpha = 0;
	size_t cut = k;
	for (size_t i = 0; i < k; i++) {
		prefix += v[i].cost;
		double a = prefix > 0 ? (total - prefix) / prefix : INFINITY;
		if (a > 2)
			continue;
		if ((1 + a) * v[i].avg < best) {
			best = (1 + a) * v[i].avg;
			alpha = a;
			cut = i + 1;
		}
	}
	char what[96], ylabel[128];
	snprintf(what, sizeof what, "amortized cost per call (alpha = %.2f)", alpha);
	snprintf(ylabel, sizeof ylabel, "amortized cost (%s)", c->ev);
	plumb_chart *ch = new_chart(c, "amortized", what, ylabel);
	double *x, *y;
	int rc = 0;
	if (!ch)
		rc = -1;
	else if (!plumb_chart_add_series(c->t, ch, "amortized", "(1 + alpha) x average",
					 PLUMB_MARK_POINTS, k, &x, &y))
		rc = -1;
	else {
		/* back in input order: the cut holds the k cheapest averages */
		double *val = calloc(g->n ? g->n : 1, sizeof *val);
		if (!val)
			rc = -1;
		for (size_t i = 0; val && i < cut; i++)
			val[v[i].i] = (1 + alpha) * v[i].avg;
		size_t j = 0;
		for (size_t i = 0; val && i < g->n; i++)
			if (c->s->pts[g->first + i]->calls) {
				x[j] = (double)c->s->pts[g->first + i]->input;
				y[j++] = val[i];
			}
		free(val);
		ch->xlog = inputs_span_decades(c->s, g);
		ch->ylog = spans_decades(y, k);
	}
	free(v);
	return rc;
}

/* Calls per input size (the workload), or the total cost per input size. */
static int per_input_chart(chart_ctx *c, bool calls)
{
	if (!wanted(c, calls ? "frequency" : "total"))
		return 0;
	char ylabel[128];
	if (calls)
		snprintf(ylabel, sizeof ylabel, "calls");
	else
		snprintf(ylabel, sizeof ylabel, "total cost (%s)", c->ev);
	plumb_chart *ch = calls ? new_chart(c, "frequency", "calls per input size", ylabel)
				: new_chart(c, "total", "total cost per input size", ylabel);
	if (!ch)
		return -1;
	const points_group *g = c->g;
	double *x, *y;
	if (!plumb_chart_add_series(c->t, ch, calls ? "calls" : "total", calls ? "calls" : "sum of costs",
				    calls ? PLUMB_MARK_BARS : PLUMB_MARK_POINTS, g->n, &x, &y))
		return -1;
	for (size_t i = 0; i < g->n; i++) {
		const plumb_point *pt = c->s->pts[g->first + i];
		x[i] = (double)pt->input;
		y[i] = calls ? (double)pt->calls : (double)pt->sum;
	}
	ch->xlog = inputs_span_decades(c->s, g);
	ch->ylog = spans_decades(y, g->n);
	return 0;
}

int view_inputs_charts(plumb_table *t, const plumb_profile *p, const plumb_view_opts *o,
		       const points_set *s, const points_group *g, const plumb_fit *fit,
		       plumb_error *err)
{
	chart_ctx c = { .t = t, .p = p, .o = o, .s = s, .g = g,
			.name = plumb_function_name(p, g->function),
			.ev = p->events.n ? plumb_str(p, p->events.v[0].name) : "cost" };
	char in[128];
	snprintf(c.xlabel, sizeof c.xlabel, "input size (%s)", view_points_input_desc(p, in, sizeof in));
	if (cost_chart(&c, fit) || amortized_chart(&c) || per_input_chart(&c, true) ||
	    per_input_chart(&c, false))
		return plumb_fail_nomem(err);
	return 0;
}
