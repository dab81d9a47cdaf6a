/* Private to the HTML report (html.c, html_lines.c, html_plots.c). */
#ifndef PLUMB_OUTPUT_HTML_INTERNAL_H
#define PLUMB_OUTPUT_HTML_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "plumb/table.h"

/* At most this many rows of a table are drawn at a time. */
enum { HTML_MAX_DRAWN = 1000 };

/* s as a JSON string that can sit inside <script>: '<', '>' and '&'
 * escaped; NULL as null. */
void html_json_str(FILE *out, const char *s);
/* A cell as a JSON value: numbers as numbers, null when unknown. */
void html_json_cell(FILE *out, const plumb_cell *c);
/* A cell type's name in the embedded data ("u64", "pct", "str", ...). */
const char *html_cell_type_name(plumb_cell_type t);
/* A view drawn as a plain table (its first HTML_MAX_DRAWN rows). */
void html_static_table(FILE *out, const plumb_table *v);

/* The lines view's heaviest rows and, where the file is readable now and
 * small enough, the text of the lines around them: the data of the
 * "Source lines" section (html_lines.c). */
int html_write_lines(FILE *out, const plumb_table *lines);
/* The inputs view's table (with_table) and the cost plots of its charted
 * routines, one set per routine (html_plots.c). */
void html_write_plots(FILE *out, const plumb_table *inputs, bool with_table);

/* The timeline section: the lanes of the attached timeline view v and the
 * range selection the table follows (html_timeline.c). Defines the script
 * function plTimeline(cols, rows, draw) that the report's script calls. */
void html_write_timeline(FILE *out, const plumb_table *v);

#endif
