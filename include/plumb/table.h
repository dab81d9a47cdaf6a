/* plumb: a view's result, a table of typed cells.
 *
 * Views (src/analysis/view_*.c) compute tables; writers (src/output/) print
 * them as text, CSV or JSON. A writer never computes a metric: every number
 * it prints is a cell here.
 */
#ifndef PLUMB_TABLE_H
#define PLUMB_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plumb/error.h"

typedef enum plumb_cell_type {
	PLUMB_CELL_NULL = 0,  /* unknown / not applicable: "-" in text, null in JSON */
	PLUMB_CELL_U64,       /* a count or cost */
	PLUMB_CELL_PCT,       /* a percentage, 0..100 (printed with one decimal) */
	PLUMB_CELL_STR,       /* text */
	PLUMB_CELL_INT        /* an identifier-like integer: line, pid (not grouped) */
} plumb_cell_type;

typedef struct plumb_cell {
	plumb_cell_type type;
	union {
		uint64_t u;
		int64_t i;
		double pct;
		const char *s;    /* owned by the table's arena */
	};
} plumb_cell;

typedef struct plumb_column {
	const char *key;      /* machine name: "exclusive", "function" (CSV/JSON) */
	const char *title;    /* header text: "Excl. samples" */
	plumb_cell_type type; /* the type of its non-null cells */
	int event;            /* event index for cost/percent columns, -1 otherwise */
	bool name_column;     /* the column that holds the row's name (indented in trees) */
} plumb_column;

typedef enum plumb_row_kind {
	PLUMB_ROW_NORMAL = 0,
	PLUMB_ROW_CALLER,     /* butterfly: a caller of the selected function */
	PLUMB_ROW_FOCUS,      /* butterfly: the selected function itself */
	PLUMB_ROW_CALLEE,     /* butterfly: a callee */
	PLUMB_ROW_SEPARATOR   /* butterfly: between two functions' blocks */
} plumb_row_kind;

typedef struct plumb_row {
	plumb_row_kind kind;
	uint32_t depth;       /* indentation of the name column (tree views) */
	plumb_cell *cells;    /* ncols cells */
} plumb_row;

typedef struct plumb_table {
	char *view;           /* "flat", "tree", ... */
	char *title;          /* one-line description printed above the table */
	size_t ncols;
	plumb_column *cols;
	size_t nrows, rows_cap;
	plumb_row *rows;
	/* notes printed under the table ("inclusive times are estimates") */
	char **notes;
	size_t nnotes;
	/* private: string arena */
	char **strs;
	size_t nstrs, strs_cap;
} plumb_table;

plumb_table *plumb_table_new(const char *view, const char *title);
void plumb_table_free(plumb_table *t);
/* Add a column; key and title are copied. Returns its index or -1. */
int plumb_table_add_column(plumb_table *t, const char *key, const char *title,
			   plumb_cell_type type, int event, bool name_column);
/* Append a row of NULL cells; returns it, or NULL on ENOMEM. */
/* The pointer is valid until the next add_row (the rows array may move). */
plumb_row *plumb_table_add_row(plumb_table *t, plumb_row_kind kind, uint32_t depth);
/* Copy s into the table's arena; NULL on ENOMEM. */
const char *plumb_table_strdup(plumb_table *t, const char *s);
int plumb_table_add_note(plumb_table *t, const char *note);

static inline void plumb_cell_u64(plumb_cell *c, uint64_t v) { c->type = PLUMB_CELL_U64; c->u = v; }
static inline void plumb_cell_int(plumb_cell *c, int64_t v) { c->type = PLUMB_CELL_INT; c->i = v; }
static inline void plumb_cell_pct(plumb_cell *c, double v) { c->type = PLUMB_CELL_PCT; c->pct = v; }
/* s must already live in the table's arena (plumb_table_strdup) or be static. */
static inline void plumb_cell_str(plumb_cell *c, const char *s)
{
	c->type = s ? PLUMB_CELL_STR : PLUMB_CELL_NULL;
	c->s = s;
}

/* ---- writers (src/output/) ------------------------------------------- */

typedef struct plumb_text_opts {
	unsigned width;       /* terminal width; 0 = do not fit */
	bool color;           /* ANSI colour (the caller decides: tty and no NO_COLOR) */
	bool header;          /* print the column titles (default true via init) */
} plumb_text_opts;

void plumb_text_opts_init(plumb_text_opts *o);

/* Format v with thousands separators: 1234567 -> "1,234,567". buf >= 32. */
const char *plumb_format_u64(uint64_t v, char *buf, size_t size);
/* Format v with `decimals` digits after a '.' whatever the locale
 * (12.345, 1 -> "12.3"); |v| >= 1e18 uses exponent form. Returns buf, or
 * NULL when v is NaN or infinite (each writer prints its own "unknown").
 * buf >= 32. */
const char *plumb_format_fixed(double v, int decimals, char *buf, size_t size);

/* Aligned columns; the name column is shrunk (middle-elided) to fit width. */
int plumb_table_write_text(const plumb_table *t, FILE *out, const plumb_text_opts *o,
			   plumb_error *err);
/* RFC 4180 CSV with a header row; tree depth as a "depth" column when > 0. */
/* Lines end in "\n", not RFC 4180's "\r\n": common tools accept both. */
int plumb_table_write_csv(const plumb_table *t, FILE *out, plumb_error *err);
/* {"format":"plumb-view","version":1,"view":..,"columns":[..],"rows":[{..}]} */
int plumb_table_write_json(const plumb_table *t, FILE *out, plumb_error *err);

/* JSON string literal for s (quotes, escapes, control chars as \u00XX). */
void plumb_json_write_string(FILE *out, const char *s);

#endif
