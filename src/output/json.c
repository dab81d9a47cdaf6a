/* plumb: a view as its one JSON document ("plumb-report", version 2;
 * docs/report-json.md is the contract and docs/report.schema.json its schema).
 *
 *   {"format": "plumb-report", "version": 2, "view": .., "title": ..,
 *    "events": [..], "totals": [..],
 *    "columns": [{"key", "title", "type", "event"}],
 *    "rows": [{"depth", "kind", "cells": {key: value|null}}], "notes": [..],
 *    "functions": [..], "cycles": [..]}
 *
 * One column, row or function per line or few, so the output diffs and
 * greps well. Counts are exact JSON integers, percentages carry up to four
 * decimals, unknown values are null, separator rows are left out. Every
 * string is valid UTF-8 JSON whatever bytes the profile held.
 */
#include "plumb/output.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "output/bignum.h"
#include "output/output_internal.h"
#include "plumb/profile.h"

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
	case PLUMB_CELL_NUM: return "number";
	case PLUMB_CELL_BIG: return "count";
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
	case PLUMB_CELL_NUM:
		write_pct(out, cell->num); /* four decimals, null if not finite */
		return;
	case PLUMB_CELL_BIG: {
		char num[64];
		fputs(plumb_format_integer(*cell->big, num, sizeof num), out);
		return;
	}
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
	fputs(t->nnotes ? "\n  ],\n" : "],\n", out);
}

/* ---- the function summary ---------------------------------------------- */

static void write_costs(FILE *out, const uint64_t *v, size_t n)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%" PRIu64, i ? ", " : "", v[i]);
	fputc(']', out);
}

static void write_count(FILE *out, uint64_t v)
{
	if (v == PLUMB_COUNT_UNKNOWN)
		fputs("null", out);
	else
		fprintf(out, "%" PRIu64, v);
}

static void write_nonzero(FILE *out, uint32_t v)
{
	if (v)
		fprintf(out, "%" PRIu32, v);
	else
		fputs("null", out);
}

static void write_ref(FILE *out, const plumb_table_ref *r)
{
	fputs("\"name\": ", out);
	plumb_json_write_string(out, r->name);
	fputs(", \"file\": ", out);
	plumb_json_write_string(out, r->file);
	fputs(", \"module\": ", out);
	plumb_json_write_string(out, r->module);
}

static void write_events(FILE *out, const plumb_table_summary *s)
{
	fputs("  \"events\": [", out);
	for (size_t i = 0; i < s->nevents; i++) {
		const plumb_table_event *e = &s->events[i];
		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
		plumb_json_write_string(out, e->name);
		fputs(", \"description\": ", out);
		plumb_json_write_string(out, e->description);
		fputs(", \"unit\": ", out);
		plumb_json_write_string(out, e->unit);
		if (e->formula) {
			fputs(", \"formula\": ", out);
			plumb_json_write_string(out, e->formula);
		}
		if (e->count) {
			fprintf(out, ", \"count\": %" PRIu64 ", \"count_unit\": ", e->count);
			plumb_json_write_string(out, e->count_unit);
		}
		if (e->period)
			fprintf(out, ", \"period\": %" PRIu64 ", \"samples\": %" PRIu64, e->period,
				s->totals[i] / e->period);
		fputc('}', out);
	}
	fputs(s->nevents ? "\n  ],\n  \"totals\": " : "],\n  \"totals\": ", out);
	write_costs(out, s->totals, s->nevents);
	fputs(",\n", out);
}

static void write_arcs(FILE *out, const plumb_table_arc *v, size_t n, size_t nev)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n      {" : "\n      {", out);
		write_ref(out, &v[i].other);
		fputs(", \"cycle\": ", out);
		write_nonzero(out, v[i].other.cycle);
		fputs(", \"calls\": ", out);
		write_count(out, v[i].calls);
		fprintf(out, ", \"recursive\": %s, \"attributed\": ", v[i].recursive ? "true" : "false");
		write_costs(out, v[i].attributed, nev);
		fputc('}', out);
	}
	fputc(']', out);
}

static void write_functions(FILE *out, const plumb_table_summary *s)
{
	size_t nev = s->nevents;
	fputs("  \"functions\": [", out);
	for (size_t i = 0; i < s->nfunctions; i++) {
		const plumb_table_function *f = &s->functions[i];
		fputs(i ? ",\n    {" : "\n    {", out);
		write_ref(out, &f->ref);
		fputs(", \"line\": ", out);
		write_nonzero(out, f->line);
		fputs(",\n     \"exclusive\": ", out);
		write_costs(out, f->exclusive, nev);
		fputs(", \"inclusive\": ", out);
		write_costs(out, f->inclusive, nev);
		fputs(", \"calls\": ", out);
		write_count(out, f->calls);
		fprintf(out, ", \"inclusive_estimated\": %s, \"cycle\": ",
			s->inclusive_estimated ? "true" : "false");
		write_nonzero(out, f->ref.cycle);
		fputs(",\n     \"callers\": ", out);
		write_arcs(out, f->callers, f->ncallers, nev);
		fputs(",\n     \"callees\": ", out);
		write_arcs(out, f->callees, f->ncallees, nev);
		fputc('}', out);
	}
	fputs(s->nfunctions ? "\n  ],\n" : "],\n", out);
}

static void write_cycles(FILE *out, const plumb_table_summary *s)
{
	fputs("  \"cycles\": [", out);
	for (size_t c = 0; c < s->ncycles; c++) {
		const plumb_table_cycle *cy = &s->cycles[c];
		fprintf(out, "%s    {\"cycle\": %" PRIu32 ", \"name\": \"<cycle %" PRIu32 ">\",\n     \"exclusive\": ",
			c ? ",\n" : "\n", cy->number, cy->number);
		write_costs(out, cy->exclusive, s->nevents);
		fputs(", \"inclusive\": ", out);
		write_costs(out, cy->inclusive, s->nevents);
		fputs(", \"calls\": ", out);
		write_count(out, cy->calls);
		fputs(",\n     \"members\": [", out);
		for (size_t i = 0; i < cy->nmembers; i++) {
			fputs(i ? ",\n      {" : "\n      {", out);
			write_ref(out, &cy->members[i]);
			fputc('}', out);
		}
		fputs("]}", out);
	}
	fputs(s->ncycles ? "\n  ]\n" : "]\n", out);
}

int plumb_table_write_json(const plumb_table *t, FILE *out, plumb_error *err)
{
	if (!t || !out)
		return plumb_fail(err, PLUMB_ERR_USAGE, "no table or no output stream");
	fputs("{\n  \"format\": \"plumb-report\",\n  \"version\": 2,\n  \"view\": ", out);
	plumb_json_write_string(out, t->view);
	fputs(",\n  \"title\": ", out);
	plumb_json_write_string(out, t->title);
	fputs(",\n", out);
	if (t->summary)
		write_events(out, t->summary);
	else
		fputs("  \"events\": null,\n  \"totals\": null,\n", out);
	write_columns(t, out);
	write_rows(t, out);
	write_notes(t, out);
	if (t->summary) {
		write_functions(out, t->summary);
		write_cycles(out, t->summary);
	} else {
		fputs("  \"functions\": null,\n  \"cycles\": null\n", out);
	}
	fputs("}\n", out);
	return plumb_output_flush(out, "JSON report", err);
}
