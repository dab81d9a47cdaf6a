/* Private to the inputs view: its fits and its charts. */
#ifndef PLUMB_VIEW_INPUTS_H
#define PLUMB_VIEW_INPUTS_H

#include "analysis/fit.h"
#include "analysis/points_set.h"

/* At most this many routines get pictures (--select may name many). */
#define VIEW_INPUTS_MAX_CHARTED 8

/* The average cumulative cost per call against input size of a group's
 * points that have calls, into n and y (g->n each); returns how many. */
size_t view_inputs_series(const points_set *s, const points_group *g, double *n, double *y);

/* Add the charts of one routine (o->chart's, or all) to t. */
int view_inputs_charts(plumb_table *t, const plumb_profile *p, const plumb_view_opts *o,
		       const points_set *s, const points_group *g, const plumb_fit *fit,
		       plumb_error *err);

#endif
