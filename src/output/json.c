/* plumb: a table as JSON ("plumb-view", version 1).
 *
 *   {"format": "plumb-view", "version": 1, "view": .., "title": ..,
 *    "columns": [{"key", "title", "type", "event"}],
 *    "rows": [{"depth", "kind", "cells": {key: value|null}}], "notes": [..]}
 *
 * One column or row per line, so the output diffs and greps well. Counts
 * are exact JSON integers, percentages carry up to four decimals, unknown
 * cells are null, separator rows are left out. Every string is valid UTF-8
 * JSON whatever bytes the profile held.
 */
#include "plumb/table.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "output/output_internal.h"

void plumb_json_write_string(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	const unsigned char *p = (const unsigned char *)s;
	fputc('"', out);
	while (*p) {
		size_t n = plumb_utf8_seq(p);
		if (n == 0) {
			fputs("\\ufffd", out); /* one replacement per bad byte */
			n = 1;
		} else if (n > 1) {
			fwrite(p, 1, n, out);
		} else {
			switch (*p) {
			case '"': fputs("\\\"", out); break;
			case '\\': fputs("\\\\", out); break;
			case '\n': fputs("\\n", out); break;
			case '\t': fputs("\\t", out); break;
			case '\r': fputs("\\r", out); break;
			case '\b': fputs("\\b", out); break;
			case '\f': fputs("\\f", out); break;
			default:
				if (*p < 0x20)
					fprintf(out, "\\u%04x", *p);
				else
					fputc(*p, out);
			}
		}
		p += n;
	}
	fputc('"', out);
}

static const char *type_name(plumb_cell_type type)
{
	switch (type) {
	case PLUMB_CELL_U64: return "count";
	case PLUMB_CELL_PCT: return "percent";
	case PLUMB_CELL_STR: return "string";
	case PLUMB_CELL_INT: return "integer";
	case PLUMB_CELL_NULL: break;
	}
	return "null";
}

/* A percentage with up to four decimals: 12.5, 100.0, 0.0125. */
static void write_pct(FILE *out, double v)
{
	char num[64];
	if (!plumb_format_fixed(v, 4, num, sizeof num)) {
		fputs("null", out); /* JSON has no NaN or infinity */
		return;
	}
	if (!strchr(num, 'e')) {
		size_t n = strlen(num);
		while (n > 2 && num[n - 1] == '0' && num[n - 2] != '.')
			num[--n] = '\0';
	}
	fputs(strcmp(num, "-0.0") ? num : "0.0", out);
}

static void write_cell(FILE *out, const plumb_cell *cell)
{
	switch (cell->type) {
	case PLUMB_CELL_U64:
		fprintf(out, "%" PRIu64, cell->u);
		return;
	case PLUMB_CELL_INT:
		fprintf(out, "%" PRId64, cell->i);
		return;
	case PLUMB_CELL_PCT:
		write_pct(out, cell->pct);
		return;
	case PLUMB_CELL_STR:
		plumb_json_write_string(out, cell->s);
		return;
	case PLUMB_CELL_NULL:
		break;
	}
	fputs("null", out);
}

static void write_columns(const plumb_table *t, FILE *out)
{
	fputs("  \"columns\": [", out);
	for (size_t c = 0; c < t->ncols; c++) {
		const plumb_column *col = &t->cols[c];
		fputs(c ? ",\n    {\"key\": " : "\n    {\"key\": ", out);
		plumb_json_write_string(out, col->key);
		fputs(", \"title\": ", out);
		plumb_json_write_string(out, col->title);
		fprintf(out, ", \"type\": \"%s\", \"event\": ", type_name(col->type));
		if (col->event >= 0)
			fprintf(out, "%d}", col->event);
		else
			fputs("null}", out);
	}
	fputs(t->ncols ? "\n  ],\n" : "],\n", out);
}

static void write_rows(const plumb_table *t, FILE *out)
{
	bool first = true;
	fputs("  \"rows\": [", out);
	for (size_t i = 0; i < t->nrows; i++) {
		const plumb_row *r = &t->rows[i];
		if (r->kind == PLUMB_ROW_SEPARATOR)
			continue;
		fprintf(out, "%s    {\"depth\": %" PRIu32 ", \"kind\": \"%s\", \"cells\": {",
			first ? "\n" : ",\n", r->depth, plumb_row_kind_name(r->kind));
		first = false;
		for (size_t c = 0; c < t->ncols; c++) {
			if (c)
				fputs(", ", out);
			plumb_json_write_string(out, t->cols[c].key);
			fputs(": ", out);
			write_cell(out, &r->cells[c]);
		}
		fputs("}}", out);
	}
	fputs(first ? "],\n" : "\n  ],\n", out);
}

static void write_notes(const plumb_table *t, FILE *out)
{
	fputs("  \"notes\": [", out);
	for (size_t i = 0; i < t->nnotes; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		plumb_json_write_string(out, t->notes[i]);
	}
	fputs(t->nnotes ? "\n  ]\n" : "]\n", out);
}

int plumb_table_write_json(const plumb_table *t, FILE *out, plumb_error *err)
{
	if (!t || !out)
		return plumb_fail(err, PLUMB_ERR_USAGE, "no table or no output stream");
	fputs("{\n  \"format\": \"plumb-view\",\n  \"version\": 1,\n  \"view\": ", out);
	plumb_json_write_string(out, t->view);
	fputs(",\n  \"title\": ", out);
	plumb_json_write_string(out, t->title);
	fputs(",\n", out);
	write_columns(t, out);
	write_rows(t, out);
	write_notes(t, out);
	fputs("}\n", out);
	return plumb_output_flush(out, "JSON table", err);
}
