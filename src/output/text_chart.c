/* plumb: a table's main charts drawn in characters under the text table,
 * for a terminal: one mark per series (x max, o average, . min, * the
 * fitted curve), y labels on the left, the x range below. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/chart_scale.h"
#include "output/output_internal.h"
#include "plumb/output.h"

enum { ROWS = 16, LABEL_W = 9 };

static char mark_of(const plumb_chart_series *s, size_t i)
{
	if (s->mark == PLUMB_MARK_LINE)
		return '*';
	if (s->key && strcmp(s->key, "max") == 0)
		return 'x';
	if (s->key && strcmp(s->key, "min") == 0)
		return '.';
	if (s->key && strcmp(s->key, "avg") == 0)
		return 'o';
	if (s->mark == PLUMB_MARK_BARS)
		return '|';
	return "o+#@"[i % 4];
}

/* Printable text of a label: control bytes as '?'. */
static void put_safe(FILE *out, const char *s)
{
	for (; s && *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

static int draw(const plumb_chart *c, FILE *out, unsigned width)
{
	chart_axis xa, ya;
	fputc('\n', out);
	put_safe(out, c->title);
	fputc('\n', out);
	if (!chart_axis_of(c, false, &xa) || !chart_axis_of(c, true, &ya)) {
		fputs("  (no values to draw)\n", out);
		return 0;
	}
	size_t cols = (width ? width : 80) - LABEL_W - 2;
	if (cols < 20)
		cols = 20;
	if (cols > 100)
		cols = 100;
	char *grid = malloc(ROWS * cols);
	if (!grid)
		return -1;
	memset(grid, ' ', ROWS * cols);
	/* the curve first, so that measured points stay visible on it */
	for (int pass = 0; pass < 2; pass++)
		for (size_t s = 0; s < c->nseries; s++) {
			const plumb_chart_series *se = &c->series[s];
			if ((se->mark == PLUMB_MARK_LINE) != (pass == 0))
				continue;
			for (size_t i = 0; i < se->n; i++) {
				if (!chart_drawable(&xa, se->x[i]) || !chart_drawable(&ya, se->y[i]))
					continue;
				double fx = chart_pos(&xa, se->x[i]), fy = chart_pos(&ya, se->y[i]);
				if (fx < 0 || fx > 1 || fy < 0 || fy > 1)
					continue;
				size_t col = (size_t)(fx * (double)(cols - 1) + 0.5);
				size_t row = ROWS - 1 - (size_t)(fy * (ROWS - 1) + 0.5);
				grid[row * cols + col] = mark_of(se, s);
			}
		}
	char buf[32];
	for (size_t r = 0; r < ROWS; r++) {
		double f = (double)(ROWS - 1 - r) / (ROWS - 1);
		bool label = r == 0 || r == ROWS - 1 || r == ROWS / 2;
		double v = ya.log ? pow(10, log10(ya.lo) + f * (log10(ya.hi) - log10(ya.lo)))
				  : ya.lo + f * (ya.hi - ya.lo);
		fprintf(out, "%*s |", LABEL_W, label ? chart_label(v, buf, sizeof buf) : "");
		fwrite(grid + r * cols, 1, cols, out);
		fputc('\n', out);
	}
	fprintf(out, "%*s +", LABEL_W, "");
	for (size_t i = 0; i < cols; i++)
		fputc('-', out);
	char lo[32], hi[32];
	chart_label(xa.lo, lo, sizeof lo);
	chart_label(xa.hi, hi, sizeof hi);
	fprintf(out, "\n%*s  %s%*s\n", LABEL_W, "", lo, (int)(cols - strlen(lo)), hi);
	fprintf(out, "%*s  x: ", LABEL_W, "");
	put_safe(out, c->xlabel);
	fputs(c->xlog ? " (log)" : "", out);
	fputs("; y: ", out);
	put_safe(out, c->ylabel);
	fputs(c->ylog ? " (log)\n" : "\n", out);
	for (size_t s = 0; s < c->nseries; s++) {
		fprintf(out, "%*s  %c ", LABEL_W, "", mark_of(&c->series[s], s));
		put_safe(out, c->series[s].label);
		fputc('\n', out);
	}
	free(grid);
	return 0;
}

int plumb_table_write_text_charts(const plumb_table *t, FILE *out, const plumb_text_opts *o,
				  plumb_error *err)
{
	for (size_t i = 0; i < t->ncharts; i++)
		if (t->charts[i].main && draw(&t->charts[i], out, o ? o->width : 0))
			return plumb_fail_nomem(err);
	return plumb_output_flush(out, "chart", err);
}
