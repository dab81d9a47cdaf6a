/* Private to the chart writers (svg.c, text_chart.c): axis ranges, ticks
 * and the mapping of values to positions, linear or logarithmic. */
#ifndef PLUMB_CHART_SCALE_H
#define PLUMB_CHART_SCALE_H

#include <stdbool.h>
#include <stddef.h>

#include "plumb/table.h"

typedef struct chart_axis {
	bool log;
	double lo, hi;     /* the range drawn (log: of values, > 0) */
	size_t nticks;
	double ticks[16];
} chart_axis;

/* The x (or y) axis of a chart: the range of every series' drawable
 * values with round ends and ticks. false when nothing is drawable. */
bool chart_axis_of(const plumb_chart *c, bool y, chart_axis *a);
/* Can v be drawn on a? (log axes: v > 0) */
bool chart_drawable(const chart_axis *a, double v);
/* v's position on a, 0 (lo) .. 1 (hi). */
double chart_pos(const chart_axis *a, double v);
/* A tick label: "0", "250", "1.5k", "10M", "1e+21". buf >= 32. */
const char *chart_label(double v, char *buf, size_t n);

#endif
