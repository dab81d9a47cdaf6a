/* plumb: writers of views (src/output/), one table of them.
 *
 * A writer prints a view's table (plumb/table.h) and only reads it: it
 * never computes a metric. `plumb report --format NAME` picks a row of the
 * writer table; a new writer (svg, html) is one file and one row.
 */
#ifndef PLUMB_OUTPUT_H
#define PLUMB_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plumb/error.h"
#include "plumb/table.h"

typedef struct plumb_text_opts {
	unsigned width;       /* terminal width; 0 = do not fit */
	bool color;           /* ANSI colour (the caller decides: tty and no NO_COLOR) */
	bool header;          /* print the column titles (default true via init) */
} plumb_text_opts;

void plumb_text_opts_init(plumb_text_opts *o);

/* Format v with thousands separators: 1234567 -> "1,234,567". buf >= 32. */
const char *plumb_format_u64(uint64_t v, char *buf, size_t size);
/* Compact form for narrow tables: below 10,000 as plumb_format_u64, then
 * three significant digits and a metric suffix: 12.3k, 123k, 1.2M, 4.5G.
 * buf >= 32. */
const char *plumb_format_compact(uint64_t v, char *buf, size_t size);
/* Format v with `decimals` digits after a '.' whatever the locale
 * (12.345, 1 -> "12.3"); |v| >= 1e18 uses exponent form. Returns buf, or
 * NULL when v is NaN or infinite (each writer prints its own "unknown").
 * buf >= 32. */
const char *plumb_format_fixed(double v, int decimals, char *buf, size_t size);
/* The length of what plumb_format_fixed writes, without writing it (a
 * table's column widths); 0 when it writes nothing. */
size_t plumb_format_fixed_width(double v, int decimals);

/* Aligned columns. With o->width > 0 no line is longer than o->width: the
 * table gives up, in this order, until it fits: digit grouping (numbers in
 * compact form, 1.2M), the event name in column titles (said once above),
 * module directories, file and other string widths, the cumulative,
 * module, file and then other string columns, the name column's width
 * down to 30, the cost columns but the first, and last the rest of the
 * name's width; deep tree rows cap their indentation and say their depth (↳ 37).
 * Titles and notes are word-wrapped. */
int plumb_table_write_text(const plumb_table *t, FILE *out, const plumb_text_opts *o,
			   plumb_error *err);
/* Write text (lines ending in '\n' or not) with every line word-wrapped to
 * width code points (0: as it is), continuation lines indented by hang
 * spaces; a word longer than a line is cut. Control bytes are shown as
 * '?'. The text writer's titles and notes, and `plumb report`'s header. */
void plumb_text_write_wrapped(FILE *out, const char *text, unsigned width, unsigned hang);
/* RFC 4180 CSV with a header row; tree depth as a "depth" column when > 0. */
/* Lines end in "\n", not RFC 4180's "\r\n": common tools accept both. */
int plumb_table_write_csv(const plumb_table *t, FILE *out, plumb_error *err);
/* The one JSON document of every view (docs/report-json.md): format
 * "plumb-report", version 2, the view's columns and rows and, when the table
 * has one, its function summary (null members otherwise). */
int plumb_table_write_json(const plumb_table *t, FILE *out, plumb_error *err);

/* The table's charts (plumb/table.h) as one SVG picture, panels two per
 * row; an error when the table has none. */
int plumb_table_write_svg(const plumb_table *t, FILE *out, plumb_error *err);
/* One self-contained HTML page (no network): the flame graph of the
 * attached flame view, the rows as a sortable table, callers and callees
 * from the summary, the other attached views (plumb_view_opts.report_views). */
int plumb_table_write_html(const plumb_table *t, FILE *out, plumb_error *err);
/* The table's main charts drawn in characters, o->width wide (the text
 * writer prints them under the table). */
int plumb_table_write_text_charts(const plumb_table *t, FILE *out, const plumb_text_opts *o,
				  plumb_error *err);

/* JSON string literal for s (quotes, escapes, control chars as \u00XX). */
void plumb_json_write_string(FILE *out, const char *s);


/* ---- the writer table ------------------------------------------------- */

typedef struct plumb_view_writer {
	const char *name;          /* what --format takes: "text", "json", "csv", "svg" */
	const char *description;
	/* the view must be built with its function summary (plumb_view_opts.summary) */
	bool needs_summary;
	/* ... and with the flame and parts views (plumb_view_opts.report_views) */
	bool needs_report_views;
	/* for people at a terminal: the caller may print a header above it and
	 * fit it to the width and colours of o */
	bool for_terminal;
	/* reads rows with plumb_table_row, one at a time: the view may make
	 * them on demand (plumb_view_opts.rows_on_demand) */
	bool rows_on_demand;
	int (*write)(const plumb_table *t, FILE *out, const plumb_text_opts *o, plumb_error *err);
} plumb_view_writer;

/* By name; NULL if unknown. */
const plumb_view_writer *plumb_view_writer_by_name(const char *name);
/* "text, json, csv": the names, for messages. */
const char *plumb_view_writers_list(void);

#endif
