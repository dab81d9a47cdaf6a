/* plumb: a table as aligned text for a terminal or a pager.
 *
 * Two passes: measure every column, then print. Numbers are right-aligned,
 * strings left-aligned, columns two spaces apart. Strings are made safe for a
 * terminal first (control characters become '?', bytes that are not UTF-8
 * become U+FFFD), so a string's display width is its number of code points
 * and eliding never cuts a multi-byte sequence.
 *
 * Butterfly rows: the FOCUS row's name is marked with a leading '*' (bold
 * too with colour), so the focus stays visible without colour; SEPARATOR
 * rows are empty lines. The view sets each row's depth.
 */
#include "plumb/output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/bignum.h"
#include "output/output_internal.h"

#define GAP 2         /* spaces between columns */
#define MIN_SHRUNK 12 /* a shrunk column keeps at least this many code points */
#define NUM_SIZE 64

#define SGR_BOLD "\x1b[1m"
#define SGR_RESET "\x1b[0m"
#define SGR_RED "\x1b[31m"
#define SGR_YELLOW "\x1b[33m"
#define SGR_FG_RESET "\x1b[39m" /* ends a colour but keeps bold */

typedef struct strbuf {
	char *p;
	size_t len, cap;
	bool failed;
} strbuf;

static void sb_add(strbuf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (n >= SIZE_MAX / 2 - b->len) {
		b->failed = true;
		return;
	}
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_str(strbuf *b, const char *s) { sb_add(b, s, strlen(s)); }

static void sb_spaces(strbuf *b, size_t n)
{
	static const char spaces[] = "                                ";
	while (n > 0) {
		size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
		sb_add(b, spaces, k);
		n -= k;
	}
}

/* Start over with an empty string (never a NULL pointer to read). */
static void sb_clear(strbuf *b)
{
	b->len = 0;
	sb_add(b, "", 0);
}

static const char *sb_text(const strbuf *b) { return b->p && !b->failed ? b->p : ""; }

/* Append s made safe for a terminal (see the top of the file). */
static void sb_add_safe(strbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		/* Printable ASCII, the usual case, is copied a run at a time. */
		const unsigned char *run = p;
		while (*p >= 0x20 && *p < 0x7F)
			p++;
		if (p > run) {
			sb_add(b, (const char *)run, (size_t)(p - run));
			continue;
		}
		size_t n = plumb_utf8_seq(p);
		if (n == 0) {
			sb_add(b, "\xEF\xBF\xBD", 3);
			n = 1;
		} else if ((n == 1 && (*p < 0x20 || *p == 0x7F)) ||
			   (n == 2 && p[0] == 0xC2 && p[1] < 0xA0)) {
			sb_add(b, "?", 1); /* C0 and C1 controls, DEL */
		} else {
			sb_add(b, (const char *)p, n);
		}
		p += n;
	}
}

/* Display width of safe text: one column per code point. */
static size_t text_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

/* Skip n code points of safe text. */
static const char *skip_cps(const char *s, size_t n)
{
	while (*s && n > 0) {
		s++;
		while (((unsigned char)*s & 0xC0) == 0x80)
			s++;
		n--;
	}
	return s;
}

/* Append safe text s of width sw in at most budget columns, eliding its
 * middle with "..." since both ends of a symbol or path carry meaning. */
static void sb_add_elided(strbuf *b, const char *s, size_t sw, size_t budget)
{
	if (sw <= budget) {
		sb_str(b, s);
		return;
	}
	if (budget <= 3) {
		sb_add(b, s, (size_t)(skip_cps(s, budget) - s));
		return;
	}
	size_t head = (budget - 2) / 2, tail = (budget - 3) / 2;
	sb_add(b, s, (size_t)(skip_cps(s, head) - s));
	sb_str(b, "...");
	sb_str(b, skip_cps(s, sw - tail));
}

static bool is_numeric(plumb_cell_type type)
{
	return type == PLUMB_CELL_U64 || type == PLUMB_CELL_PCT || type == PLUMB_CELL_INT ||
	       type == PLUMB_CELL_NUM || type == PLUMB_CELL_BIG;
}

/* The text of one cell without padding or indentation: numbers in num,
 * strings (and the focus mark) in sb. */
static const char *cell_text(const plumb_table *t, const plumb_row *r, size_t c,
			     char *num, strbuf *sb)
{
	const plumb_cell *cell = &r->cells[c];
	const char *s = "-";
	switch (cell->type) {
	case PLUMB_CELL_U64:
		s = plumb_format_u64(cell->u, num, NUM_SIZE);
		break;
	case PLUMB_CELL_INT:
		snprintf(num, NUM_SIZE, "%" PRId64, cell->i);
		s = num;
		break;
	case PLUMB_CELL_PCT:
		s = plumb_format_fixed(cell->pct, 1, num, NUM_SIZE);
		if (!s)
			s = "-";
		break;
	case PLUMB_CELL_NUM:
		s = plumb_format_fixed(cell->num, 3, num, NUM_SIZE);
		if (!s)
			s = "-";
		break;
	case PLUMB_CELL_BIG:
		s = plumb_format_big(cell->big, num, NUM_SIZE);
		break;
	case PLUMB_CELL_STR:
		if (cell->s)
			s = NULL;
		break;
	case PLUMB_CELL_NULL:
		break;
	}
	bool mark = r->kind == PLUMB_ROW_FOCUS && t->cols[c].name_column;
	if (!s || mark) {
		sb_clear(sb);
		if (mark)
			sb_str(sb, "*");
		if (s)
			sb_str(sb, s);
		else
			sb_add_safe(sb, cell->s);
		s = sb_text(sb);
	}
	return s;
}

/* Indentation of the cell's text: only left-aligned name columns indent. */
static size_t cell_indent(const plumb_table *t, const plumb_row *r, size_t c)
{
	const plumb_column *col = &t->cols[c];
	return col->name_column && !is_numeric(col->type) ? (size_t)r->depth * 2 : 0;
}

typedef struct writer {
	const plumb_table *t;
	const plumb_text_opts *o;
	size_t *w;    /* column widths in code points */
	bool *hidden; /* columns empty in every row: left out of text */
	size_t first; /* the first shown column */
	strbuf cell;  /* scratch for one cell's text */
	strbuf line;  /* the line being built */
	char num[NUM_SIZE];
} writer;

/* A column with no value in any row tells a reader nothing in text (CSV
 * and JSON keep it, for machines that expect it). */
static void find_hidden(writer *wr)
{
	const plumb_table *t = wr->t;
	size_t nrows = 0;
	for (size_t i = 0; i < t->nrows; i++)
		nrows += t->rows[i].kind != PLUMB_ROW_SEPARATOR;
	wr->first = 0;
	for (size_t c = 0; c < t->ncols; c++) {
		bool empty = nrows > 0 && !t->cols[c].name_column;
		for (size_t i = 0; i < t->nrows && empty; i++)
			empty = t->rows[i].kind == PLUMB_ROW_SEPARATOR ||
				t->rows[i].cells[c].type == PLUMB_CELL_NULL;
		wr->hidden[c] = empty;
		if (empty && wr->first == c)
			wr->first = c + 1;
	}
}

static void measure(writer *wr)
{
	const plumb_table *t = wr->t;
	find_hidden(wr);
	for (size_t c = 0; c < t->ncols; c++) {
		wr->w[c] = 0;
		if (wr->o->header) {
			sb_clear(&wr->cell);
			sb_add_safe(&wr->cell, t->cols[c].title);
			wr->w[c] = text_width(sb_text(&wr->cell));
		}
	}
	for (size_t i = 0; i < t->nrows; i++) {
		const plumb_row *r = &t->rows[i];
		if (r->kind == PLUMB_ROW_SEPARATOR)
			continue;
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = cell_text(t, r, c, wr->num, &wr->cell);
			size_t w = cell_indent(t, r, c) + text_width(s);
			if (w > wr->w[c])
				wr->w[c] = w;
		}
	}
}

/* Which columns give up width first: names, then files and modules, then
 * other strings; numbers never shrink. */
static int shrink_tier(const plumb_column *col)
{
	static const char *const pathy[] = { "file", "module", "object", "path", "source" };
	if (is_numeric(col->type))
		return -1;
	if (col->name_column)
		return 0;
	for (size_t i = 0; i < sizeof pathy / sizeof *pathy; i++)
		if (strstr(col->key, pathy[i]))
			return 1;
	return 2;
}

static size_t total_width(const writer *wr)
{
	size_t sum = 0;
	for (size_t c = 0; c < wr->t->ncols; c++)
		if (!wr->hidden[c])
			sum += wr->w[c] + (c > wr->first ? GAP : 0);
	return sum;
}

/* Shrink string columns, widest first within each tier, until the line
 * fits or every candidate is down to MIN_SHRUNK. */
static void fit(writer *wr)
{
	size_t total = total_width(wr), width = wr->o->width;
	for (int tier = 0; tier < 3 && total > width; tier++) {
		for (;;) {
			size_t best = SIZE_MAX;
			for (size_t c = 0; c < wr->t->ncols; c++)
				if (!wr->hidden[c] && shrink_tier(&wr->t->cols[c]) == tier && wr->w[c] > MIN_SHRUNK &&
				    (best == SIZE_MAX || wr->w[c] > wr->w[best]))
					best = c;
			if (best == SIZE_MAX || total <= width)
				break;
			size_t cut = wr->w[best] - MIN_SHRUNK;
			if (cut > total - width)
				cut = total - width;
			wr->w[best] -= cut;
			total -= cut;
		}
	}
}

/* Colour a percentage by how much it matters. */
static const char *pct_colour(const plumb_cell *cell)
{
	if (cell->type != PLUMB_CELL_PCT)
		return NULL;
	if (cell->pct >= 10.0)
		return SGR_RED;
	if (cell->pct >= 1.0)
		return SGR_YELLOW;
	return NULL;
}

/* Append one padded column; indent is the wanted indentation. */
static void put_column(writer *wr, size_t c, const char *s, size_t indent, const char *colour)
{
	if (wr->hidden[c])
		return;
	size_t avail = wr->w[c], sw = text_width(s);
	bool right = is_numeric(wr->t->cols[c].type);
	if (indent + sw > avail) {
		/* Keep some text visible: deep rows lose indentation first. */
		size_t keep = sw < MIN_SHRUNK ? sw : MIN_SHRUNK;
		if (indent + keep > avail)
			indent = avail > keep ? avail - keep : 0;
	}
	size_t budget = avail - indent, shown = sw < budget ? sw : budget;
	if (c > wr->first)
		sb_spaces(&wr->line, GAP);
	sb_spaces(&wr->line, right ? avail - shown : indent);
	if (colour)
		sb_str(&wr->line, colour);
	sb_add_elided(&wr->line, s, sw, budget);
	if (colour)
		sb_str(&wr->line, SGR_FG_RESET);
	if (!right)
		sb_spaces(&wr->line, budget - shown);
}

/* Write the line without trailing spaces, optionally inside an SGR pair. */
static void emit_line(writer *wr, FILE *out, const char *sgr)
{
	strbuf *l = &wr->line;
	while (l->len > 0 && l->p[l->len - 1] == ' ')
		l->p[--l->len] = '\0';
	if (sgr && l->len > 0)
		fprintf(out, "%s%s%s\n", sgr, sb_text(l), SGR_RESET);
	else {
		const char *text = sb_text(l);
		fwrite(text, 1, strlen(text), out);
		putc('\n', out);
	}
}

static void write_header(writer *wr, FILE *out)
{
	sb_clear(&wr->line);
	for (size_t c = 0; c < wr->t->ncols; c++) {
		sb_clear(&wr->cell);
		sb_add_safe(&wr->cell, wr->t->cols[c].title);
		put_column(wr, c, sb_text(&wr->cell), 0, NULL);
	}
	emit_line(wr, out, wr->o->color ? SGR_BOLD : NULL);
}

static void write_row(writer *wr, FILE *out, const plumb_row *r)
{
	const plumb_table *t = wr->t;
	sb_clear(&wr->line);
	for (size_t c = 0; c < t->ncols; c++) {
		const char *s = cell_text(t, r, c, wr->num, &wr->cell);
		const char *colour = wr->o->color ? pct_colour(&r->cells[c]) : NULL;
		put_column(wr, c, s, cell_indent(t, r, c), colour);
	}
	bool bold = wr->o->color && r->kind == PLUMB_ROW_FOCUS;
	emit_line(wr, out, bold ? SGR_BOLD : NULL);
}

/* A free-standing line (title, note), made safe. */
static void write_safe_line(writer *wr, FILE *out, const char *s)
{
	sb_clear(&wr->line);
	sb_add_safe(&wr->line, s);
	emit_line(wr, out, NULL);
}

static void write_all(writer *wr, FILE *out)
{
	const plumb_table *t = wr->t;
	if (t->title) {
		write_safe_line(wr, out, t->title);
		fputc('\n', out);
	}
	if (t->ncols > 0) {
		if (wr->o->header)
			write_header(wr, out);
		for (size_t i = 0; i < t->nrows && !wr->line.failed && !wr->cell.failed; i++) {
			if (t->rows[i].kind == PLUMB_ROW_SEPARATOR)
				fputc('\n', out);
			else
				write_row(wr, out, &t->rows[i]);
		}
	}
	if (t->nnotes > 0)
		fputc('\n', out);
	for (size_t i = 0; i < t->nnotes; i++)
		write_safe_line(wr, out, t->notes[i]);
}

int plumb_table_write_text(const plumb_table *t, FILE *out, const plumb_text_opts *o,
			   plumb_error *err)
{
	plumb_text_opts defaults;
	if (!o) {
		plumb_text_opts_init(&defaults);
		o = &defaults;
	}
	if (!t || !out)
		return plumb_fail(err, PLUMB_ERR_USAGE, "no table or no output stream");
	writer wr = { .t = t, .o = o, .w = calloc(t->ncols ? t->ncols : 1, sizeof(size_t)),
		      .hidden = calloc(t->ncols ? t->ncols : 1, sizeof(bool)) };
	if (!wr.w || !wr.hidden) {
		free(wr.w);
		free(wr.hidden);
		return plumb_fail_nomem(err);
	}
	measure(&wr);
	if (o->width > 0)
		fit(&wr);
	int rc = 0;
	if (wr.cell.failed)
		rc = plumb_fail_nomem(err);
	else {
		write_all(&wr, out);
		if (wr.line.failed || wr.cell.failed)
			rc = plumb_fail_nomem(err);
	}
	if (plumb_output_flush(out, "table", rc == 0 ? err : NULL) < 0)
		rc = -1;
	free(wr.w);
	free(wr.hidden);
	free(wr.cell.p);
	free(wr.line.p);
	return rc;
}
