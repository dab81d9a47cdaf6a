/* Private to the writers: what text, CSV and JSON output share. */
#ifndef PLUMB_OUTPUT_INTERNAL_H
#define PLUMB_OUTPUT_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "plumb/error.h"
#include "plumb/output.h"

/* Length of the well-formed UTF-8 sequence at s, or 0 if there is none
 * (overlong forms, surrogates and code points past U+10FFFF included). */
size_t plumb_utf8_seq(const unsigned char *s);

/* "normal", "caller", "focus", "callee" or "separator" (CSV and JSON). */
const char *plumb_row_kind_name(plumb_row_kind kind);

/* s as SVG text content or attribute value: XML-escaped, bad UTF-8 as
 * U+FFFD, control bytes as spaces. */
void plumb_svg_text(FILE *out, const char *s);
/* n charts as one <svg> element (no XML declaration), panels two per row:
 * the SVG writer's picture, and an HTML report's cost plots. */
void plumb_svg_charts(FILE *out, const plumb_chart *charts, size_t n);
/* The flame view's boxes (t->flame) as an SVG flame graph (flame_svg.c). */
int plumb_flame_write_svg(const plumb_table *t, FILE *out, plumb_error *err);

/* The timeline view's lanes (t->timeline) as text and as SVG (timeline.c). */
int plumb_timeline_write_text(const plumb_table *t, FILE *out, const plumb_text_opts *o, plumb_error *err);
int plumb_timeline_write_svg(const plumb_table *t, FILE *out, plumb_error *err);

/* Flush out and report a failed write of `what` as PLUMB_ERR_IO. */
int plumb_output_flush(FILE *out, const char *what, plumb_error *err);

#endif
