/* Axis scales for the chart writers: linear axes get 1-2-5 ticks and start
 * at zero when every value is positive and the smallest is near it; log
 * axes get decade ticks. */
#include "output/chart_scale.h"

#include <math.h>
#include <stdio.h>

bool chart_drawable(const chart_axis *a, double v)
{
	return isfinite(v) && (!a->log || v > 0);
}

double chart_pos(const chart_axis *a, double v)
{
	if (a->hi <= a->lo)
		return 0.5;
	if (a->log)
		return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	return (v - a->lo) / (a->hi - a->lo);
}

static double nice_step(double span, int want)
{
	double raw = span / want, mag = pow(10, floor(log10(raw))), f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

bool chart_axis_of(const plumb_chart *c, bool y, chart_axis *a)
{
	*a = (chart_axis){ .log = y ? c->ylog : c->xlog, .lo = INFINITY, .hi = -INFINITY };
	for (size_t s = 0; s < c->nseries; s++) {
		const plumb_chart_series *se = &c->series[s];
		for (size_t i = 0; i < se->n; i++) {
			double v = y ? se->y[i] : se->x[i];
			if (!chart_drawable(a, v))
				continue;
			a->lo = v < a->lo ? v : a->lo;
			a->hi = v > a->hi ? v : a->hi;
		}
		/* bars stand on zero */
		if (y && se->mark == PLUMB_MARK_BARS && !a->log && a->lo > 0)
			a->lo = 0;
	}
	if (a->lo > a->hi)
		return false;
	if (a->log) {
		a->lo = pow(10, floor(log10(a->lo)));
		a->hi = pow(10, ceil(log10(a->hi)));
		if (a->hi <= a->lo)
			a->hi = a->lo * 10;
		double step = 1;
		double decades = log10(a->hi / a->lo);
		if (decades > 8)
			step = ceil(decades / 8);
		for (double e = log10(a->lo); e <= log10(a->hi) + 1e-9 && a->nticks < 16; e += step)
			a->ticks[a->nticks++] = pow(10, e);
		return true;
	}
	if (a->lo > 0 && a->lo < a->hi * 0.5)
		a->lo = 0;
	if (a->hi == a->lo) {
		double d = a->hi ? fabs(a->hi) * 0.1 : 1;
		a->lo -= d;
		a->hi += d;
	}
	double step = nice_step(a->hi - a->lo, 5);
	a->lo = floor(a->lo / step) * step;
	a->hi = ceil(a->hi / step) * step;
	for (double v = a->lo; v <= a->hi + step * 1e-9 && a->nticks < 16; v += step)
		a->ticks[a->nticks++] = fabs(v) < step * 1e-9 ? 0 : v;
	return true;
}

const char *chart_label(double v, char *buf, size_t n)
{
	static const char *const suffix[] = { "", "k", "M", "G", "T", "P", "E" };
	double a = fabs(v);
	if (a == 0) {
		snprintf(buf, n, "0");
		return buf;
	}
	if (a < 1e-3 || a >= 1e21) {
		snprintf(buf, n, "%.3g", v);
		return buf;
	}
	int k = 0;
	while (a >= 1000 && k < 6) {
		a /= 1000;
		v /= 1000;
		k++;
	}
	snprintf(buf, n, "%.3g%s", v, suffix[k]);
	return buf;
}
