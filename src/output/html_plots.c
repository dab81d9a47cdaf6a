/* plumb: the HTML report's cost plots (see html_internal.h).
 *
 * The inputs view (an input-sensitive profile) as a table (unless it is
 * the report's own table, drawn above), and the charts
 * it drew for its first routines (the worst-scaling ones, or those --select
 * names): one set per routine, an SVG of the SVG writer's panels each, in
 * a block the page shows when the routine is picked or clicked. A chart
 * belongs to the routine its title starts with ("NAME: ...").
 */
#include <string.h>

#include "output/html_internal.h"
#include "output/output_internal.h"

static bool chart_of(const plumb_chart *c, const char *name)
{
	size_t n = strlen(name);
	return c->title && strncmp(c->title, name, n) == 0 && strncmp(c->title + n, ": ", 2) == 0;
}

void html_write_plots(FILE *out, const plumb_table *t, bool with_table)
{
	int rc = -1;
	for (size_t c = 0; c < t->ncols && rc < 0; c++)
		if (t->cols[c].name_column)
			rc = (int)c;
	if (with_table)
		html_static_table(out, t);
	size_t sets = 0;
	for (size_t r = 0; rc >= 0 && r < t->nrows; r++) {
		const plumb_cell *cell = &t->rows[r].cells[rc];
		if (cell->type != PLUMB_CELL_STR)
			continue;
		size_t first = 0, n = 0;
		while (first < t->ncharts && !chart_of(&t->charts[first], cell->s))
			first++;
		while (first + n < t->ncharts && chart_of(&t->charts[first + n], cell->s))
			n++;
		if (!n)
			continue;
		fputs("<div class=\"pl-plot\" data-routine=\"", out);
		plumb_svg_text(out, cell->s);
		fputs(sets ? "\" hidden><h3>" : "\"><h3>", out);
		plumb_svg_text(out, cell->s);
		fputs("</h3>\n", out);
		plumb_svg_charts(out, t->charts + first, n);
		fputs("</div>\n", out);
		sets++;
	}
	if (!sets)
		fputs("<p class=\"pl-note\">No routine has points to plot.</p>\n", out);
	else if (sets < t->nrows)
		fprintf(out, "<p class=\"pl-note\">Plots of the first %zu routines of the table "
			"(plumb report --view inputs --select ROUTINE --format svg draws others).</p>\n",
			sets);
}
