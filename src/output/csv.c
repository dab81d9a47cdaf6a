/* plumb: a table as RFC 4180 CSV, for spreadsheets and scripts.
 *
 * The header row holds the column keys. Numbers are written in full without
 * grouping, percentages with four decimals, unknown cells as empty fields.
 * Lines end in "\n" rather than RFC 4180's "\r\n": every common reader
 * accepts both, and "\n" keeps the output friendly to Unix tools. Tree and
 * butterfly tables get leading "depth" and "kind" columns; separator rows
 * carry no data and are left out.
 */
#include "output/bignum.h"
#include "output/output_internal.h"
#include "plumb/output.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* A field, quoted (with "" for ") only when it holds , " CR or LF, or is
 * empty: "" tells an empty string from an unknown (empty) field. */
static void csv_field(FILE *out, const char *s)
{
	if (*s && !strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* Write one cell; returns false when it wrote nothing (an empty field). */
static bool csv_cell(FILE *out, const plumb_cell *cell)
{
	char num[64];
	switch (cell->type) {
	case PLUMB_CELL_U64:
		fprintf(out, "%" PRIu64, cell->u);
		return true;
	case PLUMB_CELL_INT:
		fprintf(out, "%" PRId64, cell->i);
		return true;
	case PLUMB_CELL_PCT:
		if (!plumb_format_fixed(cell->pct, 4, num, sizeof num))
			return false;
		fputs(num, out);
		return true;
	case PLUMB_CELL_NUM:
		if (!plumb_format_fixed(cell->num, 4, num, sizeof num))
			return false;
		fputs(num, out);
		return true;
	case PLUMB_CELL_BIG:
		fputs(plumb_format_integer(*cell->big, num, sizeof num), out);
		return true;
	case PLUMB_CELL_STR:
		if (!cell->s)
			return false;
		csv_field(out, cell->s);
		return true;
	case PLUMB_CELL_NULL:
		break;
	}
	return false;
}

/* Whether any data row needs depth and kind to be understood. Rows made
 * on demand never do (plumb/table.h): not made one more time to find out. */
static bool has_structure(const plumb_table *t)
{
	for (size_t i = 0; !t->source && i < t->nrows; i++) {
		const plumb_row *r = &t->rows[i];
		if (r->kind != PLUMB_ROW_SEPARATOR && (r->depth > 0 || r->kind != PLUMB_ROW_NORMAL))
			return true;
	}
	return false;
}

int plumb_table_write_csv(const plumb_table *t, FILE *out, plumb_error *err)
{
	if (!t || !out)
		return plumb_fail(err, PLUMB_ERR_USAGE, "no table or no output stream");
	bool structure = has_structure(t);
	if (structure)
		fputs("depth,kind", out);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c || structure)
			fputc(',', out);
		csv_field(out, t->cols[c].key);
	}
	fputc('\n', out);
	for (size_t i = 0; i < t->nrows; i++) {
		const plumb_row *r = plumb_table_row(t, i); /* rows made on demand too */
		if (!r) {
			plumb_output_flush(out, "CSV table", NULL);
			return plumb_fail_nomem(err);
		}
		if (r->kind == PLUMB_ROW_SEPARATOR)
			continue;
		if (structure)
			fprintf(out, "%" PRIu32 ",%s", r->depth, plumb_row_kind_name(r->kind));
		for (size_t c = 0; c < t->ncols; c++) {
			if (c || structure)
				fputc(',', out);
			/* A lone empty field would be a blank line, which readers skip. */
			if (!csv_cell(out, &r->cells[c]) && t->ncols == 1 && !structure)
				fputs("\"\"", out);
		}
		fputc('\n', out);
	}
	return plumb_output_flush(out, "CSV table", err);
}
