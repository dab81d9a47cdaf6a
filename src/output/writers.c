/* The writers of views, one row each: what `--format` chooses from. */
#include <string.h>

#include "output/output_internal.h"
#include "plumb/output.h"

static int write_text(const plumb_table *t, FILE *out, const plumb_text_opts *o, plumb_error *err)
{
	plumb_text_opts def;
	if (!o) {
		plumb_text_opts_init(&def);
		o = &def;
	}
	if (t->timeline) /* its rows, a bucket each, are for CSV and JSON */
		return plumb_timeline_write_text(t, out, o, err);
	if (plumb_table_write_text(t, out, o, err))
		return -1;
	return t->ncharts ? plumb_table_write_text_charts(t, out, o, err) : 0;
}

static int write_svg(const plumb_table *t, FILE *out, const plumb_text_opts *o, plumb_error *err)
{
	(void)o;
	return plumb_table_write_svg(t, out, err);
}

static int write_csv(const plumb_table *t, FILE *out, const plumb_text_opts *o, plumb_error *err)
{
	(void)o;
	return plumb_table_write_csv(t, out, err);
}

static int write_json(const plumb_table *t, FILE *out, const plumb_text_opts *o, plumb_error *err)
{
	(void)o;
	return plumb_table_write_json(t, out, err);
}

static int write_html(const plumb_table *t, FILE *out, const plumb_text_opts *o, plumb_error *err)
{
	(void)o;
	return plumb_table_write_html(t, out, err);
}

static const plumb_view_writer writers[] = {
	{ .name = "text", .description = "aligned columns for a terminal", .for_terminal = true,
	  .rows_on_demand = true, .write = write_text },
	{ .name = "json", .description = "one JSON document (docs/report-json.md)",
	  .needs_summary = true, .write = write_json },
	{ .name = "csv", .description = "RFC 4180 CSV with a header row", .rows_on_demand = true,
	  .write = write_csv },
	{ .name = "svg", .description = "a picture: --view flame's flame graph, --view timeline's lanes, --view inputs --select ROUTINE's charts",
	  .write = write_svg },
	{ .name = "html", .description = "one self-contained page: flame graph, sortable rows, callers and callees, parts",
	  .needs_summary = true, .needs_report_views = true, .write = write_html },
};
#define NWRITERS (sizeof writers / sizeof *writers)

const plumb_view_writer *plumb_view_writer_by_name(const char *name)
{
	for (size_t i = 0; i < NWRITERS; i++)
		if (strcmp(writers[i].name, name) == 0)
			return &writers[i];
	return NULL;
}

const char *plumb_view_writers_list(void)
{
	static char buf[128];
	if (!buf[0]) {
		size_t len = 0;
		for (size_t i = 0; i < NWRITERS && len < sizeof buf; i++)
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? ", " : "",
						writers[i].name);
	}
	return buf;
}
