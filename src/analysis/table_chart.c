/* plumb: the charts of a view's table (plumb/table.h). Everything lives in
 * the table's arena: a table holds a few charts, so growing the array by a
 * new arena block (the old one freed with the table) costs nothing. */
#include "plumb/table.h"

#include <stdint.h>
#include <string.h>

static const char *dup_or_null(plumb_table *t, const char *s, bool *ok)
{
	if (!s)
		return NULL;
	const char *c = plumb_table_strdup(t, s);
	if (!c)
		*ok = false;
	return c;
}

plumb_chart *plumb_table_add_chart(plumb_table *t, const char *key, const char *title,
				   const char *xlabel, const char *ylabel)
{
	if (!t || t->ncharts + 1 > SIZE_MAX / sizeof(plumb_chart))
		return NULL;
	plumb_chart *v = plumb_table_alloc(t, (t->ncharts + 1) * sizeof *v);
	if (!v)
		return NULL;
	if (t->ncharts)
		memcpy(v, t->charts, t->ncharts * sizeof *v);
	bool ok = true;
	plumb_chart *c = &v[t->ncharts];
	c->key = dup_or_null(t, key, &ok);
	c->title = dup_or_null(t, title, &ok);
	c->xlabel = dup_or_null(t, xlabel, &ok);
	c->ylabel = dup_or_null(t, ylabel, &ok);
	if (!ok)
		return NULL;
	t->charts = v;
	t->ncharts++;
	return c;
}

plumb_chart_series *plumb_chart_add_series(plumb_table *t, plumb_chart *c, const char *key,
					   const char *label, plumb_chart_mark mark, size_t n,
					   double **x, double **y)
{
	if (!t || !c || c->nseries >= PLUMB_CHART_MAX_SERIES || n > SIZE_MAX / 2 / sizeof(double))
		return NULL;
	bool ok = true;
	plumb_chart_series s = { .mark = mark, .n = n };
	s.key = dup_or_null(t, key, &ok);
	s.label = dup_or_null(t, label, &ok);
	double *xs = plumb_table_alloc(t, n * sizeof *xs), *ys = plumb_table_alloc(t, n * sizeof *ys);
	if (!ok || !xs || !ys)
		return NULL;
	s.x = xs;
	s.y = ys;
	*x = xs;
	*y = ys;
	c->series[c->nseries] = s;
	return &c->series[c->nseries++];
}
