/* plumb: a view's charts as one SVG picture (plumb report --format svg).
 *
 * Each chart of the table is a panel: title, axes with ticks (decades on
 * logarithmic axes), the series as dots, bars or a line, and a legend.
 * Panels are laid out two per row. The writer only reads the table: every
 * value drawn is a chart value the view computed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/chart_scale.h"
#include "output/output_internal.h"
#include "plumb/output.h"

enum { PANEL_W = 640, PANEL_H = 420, LEFT = 78, RIGHT = 24, TOP = 44, BOTTOM = 58 };

static const char *const colours[] = { "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e" };

/* Text content or attribute value: XML-escaped, bad UTF-8 as U+FFFD. */
void plumb_svg_text(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		size_t n = plumb_utf8_seq(p);
		if (n == 0) {
			fputs("&#xFFFD;", out);
			n = 1;
		} else if (n > 1) {
			fwrite(p, 1, n, out);
		} else if (*p == '<') {
			fputs("&lt;", out);
		} else if (*p == '>') {
			fputs("&gt;", out);
		} else if (*p == '&') {
			fputs("&amp;", out);
		} else if (*p == '"') {
			fputs("&quot;", out);
		} else if (*p < 0x20) {
			fputc(' ', out);
		} else {
			fputc(*p, out);
		}
		p += n;
	}
}

static const char *series_colour(const plumb_chart_series *s, size_t i)
{
	static const struct { const char *key, *colour; } fixed[] = {
		{ "fit", "#222222" }, { "max", "#d62728" }, { "avg", "#1f77b4" }, { "min", "#2ca02c" },
	};
	for (size_t k = 0; s->key && k < sizeof fixed / sizeof *fixed; k++)
		if (strcmp(s->key, fixed[k].key) == 0)
			return fixed[k].colour;
	return colours[i % (sizeof colours / sizeof *colours)];
}

typedef struct panel {
	double x0, y0, w, h;   /* the plot area */
	chart_axis xa, ya;
} panel;

static double px(const panel *p, double v) { return p->x0 + chart_pos(&p->xa, v) * p->w; }
static double py(const panel *p, double v) { return p->y0 + p->h - chart_pos(&p->ya, v) * p->h; }

static void draw_axes(FILE *out, const panel *p, const plumb_chart *c)
{
	char buf[32];
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ffffff\" "
		"stroke=\"#888888\"/>\n", p->x0, p->y0, p->w, p->h);
	for (size_t i = 0; i < p->xa.nticks; i++) {
		double x = px(p, p->xa.ticks[i]);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			x, p->y0, x, p->y0 + p->h, x, p->y0 + p->h + 16, chart_label(p->xa.ticks[i], buf, sizeof buf));
	}
	for (size_t i = 0; i < p->ya.nticks; i++) {
		double y = py(p, p->ya.ticks[i]);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			p->x0, y, p->x0 + p->w, y, p->x0 - 6, y + 4, chart_label(p->ya.ticks[i], buf, sizeof buf));
	}
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", p->x0 + p->w / 2,
		p->y0 + p->h + 38);
	plumb_svg_text(out, c->xlabel);
	fputs(c->xlog ? " (log scale)</text>\n" : "</text>\n", out);
	fprintf(out, "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" text-anchor=\"middle\">",
		p->x0 - 58, p->y0 + p->h / 2);
	plumb_svg_text(out, c->ylabel);
	fputs(c->ylog ? " (log scale)</text>\n" : "</text>\n", out);
}

static void draw_series(FILE *out, const panel *p, const plumb_chart_series *s, const char *col)
{
	if (s->mark == PLUMB_MARK_LINE) {
		fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
		for (size_t i = 0; i < s->n; i++)
			if (chart_drawable(&p->xa, s->x[i]) && chart_drawable(&p->ya, s->y[i]) &&
			    s->y[i] >= p->ya.lo && s->y[i] <= p->ya.hi)
				fprintf(out, "%.1f,%.1f ", px(p, s->x[i]), py(p, s->y[i]));
		fputs("\"/>\n", out);
		return;
	}
	double base = py(p, p->ya.log ? p->ya.lo : (p->ya.lo > 0 ? p->ya.lo : 0));
	/* min and max smaller than the average they surround */
	const char *r = s->key && (!strcmp(s->key, "min") || !strcmp(s->key, "max")) ? "2" : "3";
	fprintf(out, "<g fill=\"%s\" stroke=\"%s\">\n", col, col);
	for (size_t i = 0; i < s->n; i++) {
		if (!chart_drawable(&p->xa, s->x[i]) || !chart_drawable(&p->ya, s->y[i]))
			continue;
		double x = px(p, s->x[i]), y = py(p, s->y[i]);
		if (s->mark == PLUMB_MARK_BARS)
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke-width=\"2\"/>\n",
				x, base, x, y);
		else
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\"/>\n", x, y, r);
	}
	fputs("</g>\n", out);
}

static void draw_legend(FILE *out, const panel *p, const plumb_chart *c)
{
	double y = p->y0 + 14;
	for (size_t i = 0; i < c->nseries; i++, y += 16) {
		const plumb_chart_series *s = &c->series[i];
		const char *col = series_colour(s, i);
		double x = p->x0 + 10;
		if (s->mark == PLUMB_MARK_LINE)
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				"stroke-width=\"2\"/>", x, y - 4, x + 14, y - 4, col);
		else
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>", x + 7, y - 4, col);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", x + 20, y);
		plumb_svg_text(out, s->label);
		fputs("</text>\n", out);
	}
}

static void draw_chart(FILE *out, const plumb_chart *c, double ox, double oy)
{
	panel p = { .x0 = ox + LEFT, .y0 = oy + TOP, .w = PANEL_W - LEFT - RIGHT,
		    .h = PANEL_H - TOP - BOTTOM };
	fprintf(out, "<g>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" font-weight=\"bold\">", ox + 12,
		oy + 24);
	plumb_svg_text(out, c->title);
	fputs("</text>\n", out);
	if (!chart_axis_of(c, false, &p.xa) || !chart_axis_of(c, true, &p.ya)) {
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">no values to draw</text>\n</g>\n", p.x0 + 20,
			p.y0 + 40);
		return;
	}
	draw_axes(out, &p, c);
	for (size_t i = 0; i < c->nseries; i++)
		draw_series(out, &p, &c->series[i], series_colour(&c->series[i], i));
	draw_legend(out, &p, c);
	fputs("</g>\n", out);
}

int plumb_table_write_svg(const plumb_table *t, FILE *out, plumb_error *err)
{
	if (!t || !out)
		return plumb_fail(err, PLUMB_ERR_USAGE, "no table or no output stream");
	if (t->flame)
		return plumb_flame_write_svg(t, out, err);
	if (t->timeline)
		return plumb_timeline_write_svg(t, out, err);
	if (t->ncharts == 0)
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "the %s view has no pictures: --format svg draws --view flame, --view timeline, or "
				  "--view inputs --select ROUTINE (an input-sensitive profile)",
				  t->view ? t->view : "");
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	plumb_svg_charts(out, t->charts, t->ncharts);
	return plumb_output_flush(out, "SVG picture", err);
}

void plumb_svg_charts(FILE *out, const plumb_chart *charts, size_t n)
{
	size_t cols = n > 1 ? 2 : 1, rows = (n + cols - 1) / cols;
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" height=\"%zu\" "
		"viewBox=\"0 0 %zu %zu\" font-family=\"sans-serif\" font-size=\"11\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n",
		cols * PANEL_W, rows * PANEL_H, cols * PANEL_W, rows * PANEL_H);
	for (size_t i = 0; i < n; i++)
		draw_chart(out, &charts[i], (double)(i % cols) * PANEL_W, (double)(i / cols) * PANEL_H);
	fputs("</svg>\n", out);
}
