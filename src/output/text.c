/* plumb: a table as aligned text for a terminal or a pager.
 *
 * Two passes: measure every column, then print. Numbers are right-aligned,
 * strings left-aligned, columns two spaces apart. Given a width, the table
 * gives up what matters least until it fits (fit(), the order is in
 * plumb/output.h): names are what people read, so they give up last. Strings are made safe for a
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
#include "output/cxx_name.h"
#include "output/output_internal.h"

#define GAP 2         /* spaces between columns */
#define MIN_SHRUNK 12 /* a shrunk column keeps this many code points while it can */
#define MIN_NAME 40   /* a name keeps this many before cost columns are dropped */
#define DEEP_KEEP MIN_NAME /* a tree row too deep for its indentation keeps as much name */
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

static void sb_grow(strbuf *b, const char *s, size_t n);

/* Most appends fit the room the line has had since its first rows. */
static inline void sb_add(strbuf *b, const char *s, size_t n)
{
	if (__builtin_expect(!b->failed && b->len + n < b->cap && n < SIZE_MAX / 2, 1)) {
		memcpy(b->p + b->len, s, n);
		b->len += n;
		b->p[b->len] = '\0';
		return;
	}
	sb_grow(b, s, n);
}

static void sb_grow(strbuf *b, const char *s, size_t n)
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
	if (__builtin_expect(!b->failed && b->len + n < b->cap, 1)) { /* the line has room */
		memset(b->p + b->len, ' ', n);
		b->len += n;
		b->p[b->len] = '\0';
		return;
	}
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

/* Is s all printable ASCII (then its width is its length, *len)? Most
 * names and paths are: checked eight bytes at a time, since a big table
 * has millions of them. A byte outside 0x20..0x7E sets a high bit of
 * (x - 0x20..) | x | (x + 0x01..); carries only spread from such a byte. */
static bool printable_ascii(const char *s, size_t *len)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	size_t n = strlen(s), i = 0;
	*len = n;
	for (; i + 8 <= n; i += 8) {
		uint64_t x;
		memcpy(&x, s + i, 8);
		if (((x - 0x20 * ones) | x | (x + ones)) & highs)
			break;
	}
	for (; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7F)
			return false;
	return true;
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

/* Append safe text s of width sw in at most budget columns. A C++ name
 * hides its template arguments and parameters first (names only: paths
 * have no templates); what is still too wide loses its middle to "...",
 * since both ends of a symbol or path carry meaning. */
static void sb_add_elided(strbuf *b, const char *s, size_t len, size_t sw, size_t budget, bool name)
{
	if (sw <= budget) {
		sb_add(b, s, len);
		return;
	}
	char shorter[4096];
	size_t n;
	if (name && budget > 3 && len < sizeof shorter &&
	    (n = plumb_cxx_shorten(s, len, budget, shorter)) > 0) {
		shorter[n] = '\0'; /* the cut below reads its tail as a string */
		s = shorter; /* ASCII: bytes are columns */
		len = sw = n;
		if (sw <= budget) {
			sb_add(b, s, len);
			return;
		}
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

enum { PATH_COL = 1, MODULE_COL = 2 };

/* What a narrow table gives up, in order (see plumb/output.h). */
typedef struct writer {
	const plumb_table *t;
	const plumb_text_opts *o;
	size_t *w;          /* column widths in code points */
	bool *hidden;       /* empty in every row, or dropped to fit */
	uint8_t *kind;      /* per column: PATH_COL, MODULE_COL (found once: names, not cells) */
	int *scol;          /* per column: its index among the string columns, or -1 */
	size_t nscol;       /* string columns */
	bool compact;       /* numbers as 1.2M */
	bool short_titles;  /* "Excl." for "Excl. cycles": the event said above */
	bool split_titles;  /* titles on two lines, split at their first space */
	bool basenames;     /* module paths as their last component */
	const char *event;  /* the one event's name when short_titles */
	size_t first;       /* the first column shown (set before writing) */
	uint32_t *slen;     /* per string cell (row x string column): a printable
			     * ASCII string's length * 2 + 1, as measure found
			     * it; 0: not known (NULL: no room: each is found
			     * again) */
	size_t row;         /* the index of the row being measured or written */
	bool nomem;         /* a row could not be made */
	strbuf cell;        /* scratch for one cell's text */
	strbuf line;        /* the line being built */
	char num[NUM_SIZE];
} writer;

static bool is_module_column(const plumb_column *col)
{
	return strstr(col->key, "module") || strstr(col->key, "object");
}

static bool is_path_column(const plumb_column *col)
{
	static const char *const pathy[] = { "file", "path", "source" };
	for (size_t i = 0; i < sizeof pathy / sizeof *pathy; i++)
		if (strstr(col->key, pathy[i]))
			return true;
	return is_module_column(col);
}

static const char *compact_big(long double v, char *num)
{
	if (v >= 0 && v < 18446744073709551615.0L)
		return plumb_format_compact((uint64_t)v, num, NUM_SIZE);
	return plumb_format_big(v, num, NUM_SIZE);
}

/* A string cell's text before it is made safe: module paths by their
 * last component when asked. */
static const char *shown_string(const writer *wr, const plumb_cell *cell, size_t c)
{
	const char *str = cell->s;
	if (wr->basenames && (wr->kind[c] & MODULE_COL)) {
		const char *slash = strrchr(str, '/');
		if (slash && slash[1])
			str = slash + 1;
	}
	return str;
}

/* The text of one cell without padding or indentation: numbers in num,
 * strings (and the focus mark) in sb. */
static const char *cell_text(writer *wr, const plumb_row *r, size_t c)
{
	const plumb_table *t = wr->t;
	const plumb_cell *cell = &r->cells[c];
	char *num = wr->num;
	const char *s = "-";
	switch (cell->type) {
	case PLUMB_CELL_U64:
		s = wr->compact ? plumb_format_compact(cell->u, num, NUM_SIZE)
				: plumb_format_u64(cell->u, num, NUM_SIZE);
		break;
	case PLUMB_CELL_INT: { /* by hand: snprintf showed in profiles of big tables */
		uint64_t m = cell->i < 0 ? 0 - (uint64_t)cell->i : (uint64_t)cell->i;
		char *q = num + NUM_SIZE - 1;
		*q = '\0';
		do {
			*--q = (char)('0' + m % 10);
			m /= 10;
		} while (m);
		if (cell->i < 0)
			*--q = '-';
		s = q;
		break;
	}
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
		s = wr->compact ? compact_big(*cell->big, num) : plumb_format_big(*cell->big, num, NUM_SIZE);
		break;
	case PLUMB_CELL_STR:
		if (cell->s)
			s = NULL;
		break;
	case PLUMB_CELL_NULL:
		if (t->nested && r->depth > 0)
			s = "";
		break;
	}
	bool mark = r->kind == PLUMB_ROW_FOCUS && t->cols[c].name_column;
	if (!s || mark) {
		sb_clear(&wr->cell);
		if (mark)
			sb_str(&wr->cell, "*");
		if (s) {
			sb_str(&wr->cell, s);
		} else {
			sb_add_safe(&wr->cell, shown_string(wr, cell, c));
		}
		s = sb_text(&wr->cell);
	}
	return s;
}

/* The same with its display width in *sw and its length in bytes in *len;
 * a string of printable ASCII (most names) is returned as it is, without a
 * copy. */
static const char *cell_text_width(writer *wr, const plumb_row *r, size_t c, size_t *sw,
				   size_t *len)
{
	const plumb_cell *cell = &r->cells[c];
	if (cell->type == PLUMB_CELL_STR && cell->s &&
	    !(r->kind == PLUMB_ROW_FOCUS && wr->t->cols[c].name_column)) {
		const char *str = shown_string(wr, cell, c);
		/* a big table's names are measured, then written: checked once */
		uint32_t *known = wr->slen && wr->scol[c] >= 0
					  ? &wr->slen[wr->row * wr->nscol + (size_t)wr->scol[c]] : NULL;
		if (known && *known) {
			*sw = *len = *known >> 1;
			return str;
		}
		if (printable_ascii(str, len)) {
			if (known && *len < UINT32_MAX / 2)
				*known = (uint32_t)*len * 2 + 1;
			*sw = *len;
			return str;
		}
	}
	const char *s = cell_text(wr, r, c);
	*len = strlen(s);
	*sw = is_numeric(cell->type) ? *len : text_width(s); /* numbers are ASCII */
	return s;
}

/* Indentation of the cell's text: only left-aligned name columns indent. */
static size_t cell_indent(const plumb_table *t, const plumb_row *r, size_t c)
{
	const plumb_column *col = &t->cols[c];
	return col->name_column && !is_numeric(col->type) ? (size_t)r->depth * 2 : 0;
}

/* A column's title, or its line (0 or 1) of a title split in two. */
static const char *title_text(writer *wr, size_t c, int part)
{
	const plumb_column *col = &wr->t->cols[c];
	const char *title = wr->short_titles && col->short_title ? col->short_title : col->title;
	sb_clear(&wr->cell);
	const char *sp = wr->split_titles ? strchr(title, ' ') : NULL;
	if (part < 0)
		sb_add_safe(&wr->cell, title);
	else if (!sp)
		sb_add_safe(&wr->cell, part == 0 ? "" : title);
	else if (part == 0) {
		strbuf tmp = { 0 };
		sb_add(&tmp, title, (size_t)(sp - title));
		sb_add_safe(&wr->cell, sb_text(&tmp));
		free(tmp.p);
	} else {
		sb_add_safe(&wr->cell, sp + 1);
	}
	return sb_text(&wr->cell);
}

/* The display width of a cell as cell_text would show it, without
 * building the text where that is quick to know: plain counts and names
 * of printable ASCII (most cells of a big table). */
static size_t cell_width(writer *wr, const plumb_row *r, size_t c)
{
	const plumb_cell *cell = &r->cells[c];
	const plumb_column *col = &wr->t->cols[c];
	bool mark = r->kind == PLUMB_ROW_FOCUS && col->name_column;
	if (!mark && cell->type == PLUMB_CELL_U64 && !wr->compact) {
		size_t digits = 1;
		for (uint64_t v = cell->u; v >= 10; v /= 10)
			digits++;
		return digits + (digits - 1) / 3; /* and a comma every three */
	}
	if (!mark && (cell->type == PLUMB_CELL_PCT || cell->type == PLUMB_CELL_NUM)) {
		size_t n = plumb_format_fixed_width(cell->type == PLUMB_CELL_PCT ? cell->pct : cell->num,
						    cell->type == PLUMB_CELL_PCT ? 1 : 3);
		return n ? n : 1; /* "-" */
	}
	size_t sw, len;
	cell_text_width(wr, r, c, &sw, &len);
	return sw;
}

/* Column widths. The first time (find_hidden) also which columns to hide:
 * a column with no value in any row tells a reader nothing in text (CSV
 * and JSON keep it, for machines that expect it). One pass over the rows
 * for both: a row made on demand costs as much as measuring it. */
static void measure_rows(writer *wr, bool find_hidden)
{
	const plumb_table *t = wr->t;
	size_t nrows = 0;
	for (size_t c = 0; c < t->ncols; c++) {
		wr->w[c] = 0;
		if (find_hidden)
			wr->hidden[c] = !t->cols[c].name_column;
	}
	for (size_t i = 0; i < t->nrows && !wr->nomem; i++) {
		const plumb_row *r = plumb_table_row(t, i);
		if (!r) {
			wr->nomem = true;
			return;
		}
		if (r->kind == PLUMB_ROW_SEPARATOR)
			continue;
		wr->row = i;
		nrows++;
		for (size_t c = 0; c < t->ncols; c++) {
			if (find_hidden)
				wr->hidden[c] &= r->cells[c].type == PLUMB_CELL_NULL;
			else if (wr->hidden[c])
				continue;
			size_t w = cell_indent(t, r, c) + cell_width(wr, r, c);
			if (w > wr->w[c])
				wr->w[c] = w;
		}
	}
	for (size_t c = 0; c < t->ncols; c++) {
		if (find_hidden && !nrows)
			wr->hidden[c] = false;
		if (wr->hidden[c]) {
			wr->w[c] = 0;
		} else if (wr->o->header) {
			size_t a = text_width(title_text(wr, c, wr->split_titles ? 0 : -1));
			size_t b = wr->split_titles ? text_width(title_text(wr, c, 1)) : 0;
			a = a > b ? a : b;
			wr->w[c] = a > wr->w[c] ? a : wr->w[c];
		}
	}
}

static void measure(writer *wr) { measure_rows(wr, false); }

static size_t first_shown(const writer *wr)
{
	size_t c = 0;
	while (c < wr->t->ncols && wr->hidden[c])
		c++;
	return c;
}

static size_t total_width(const writer *wr)
{
	size_t sum = 0, first = first_shown(wr);
	for (size_t c = first; c < wr->t->ncols; c++)
		if (!wr->hidden[c])
			sum += wr->w[c] + (c > first ? GAP : 0);
	return sum;
}

static bool fits(const writer *wr) { return total_width(wr) <= wr->o->width; }

/* Every shown event column is of one event: its name, else NULL. */
static const char *single_event(const writer *wr)
{
	const char *ev = NULL;
	int which = -1;
	for (size_t c = 0; c < wr->t->ncols; c++) {
		const plumb_column *col = &wr->t->cols[c];
		if (wr->hidden[c] || col->event < 0)
			continue;
		if (which >= 0 && col->event != which)
			return NULL;
		which = col->event;
		size_t n = col->short_title ? strlen(col->short_title) : 0;
		if (col->short_title && strncmp(col->title, col->short_title, n) == 0 && col->title[n] == ' ')
			ev = col->title + n + 1;
	}
	return ev;
}

/* A numeric column's title has two words: worth two header lines. */
static bool any_split_title(const writer *wr)
{
	for (size_t c = 0; c < wr->t->ncols; c++)
		if (!wr->hidden[c] && is_numeric(wr->t->cols[c].type) && strchr(wr->t->cols[c].title, ' '))
			return true;
	return false;
}

/* Take width from the widest columns that `pick` accepts, none below
 * floor, until the line fits. */
static void shrink(writer *wr, bool (*pick)(const plumb_column *), size_t floor)
{
	size_t total = total_width(wr), width = wr->o->width;
	while (total > width) {
		size_t best = SIZE_MAX;
		for (size_t c = 0; c < wr->t->ncols; c++)
			if (!wr->hidden[c] && pick(&wr->t->cols[c]) && wr->w[c] > floor &&
			    (best == SIZE_MAX || wr->w[c] > wr->w[best]))
				best = c;
		if (best == SIZE_MAX)
			return;
		size_t cut = wr->w[best] - floor;
		if (cut > total - width)
			cut = total - width;
		wr->w[best] -= cut;
		total -= cut;
	}
}

/* Drop the shown columns `pick` accepts, last first, until the line fits. */
static void drop(writer *wr, bool (*pick)(const plumb_column *))
{
	for (size_t c = wr->t->ncols; c-- > 0 && !fits(wr);)
		if (!wr->hidden[c] && pick(&wr->t->cols[c]))
			wr->hidden[c] = true;
}

static bool pick_strings(const plumb_column *col)
{
	return !is_numeric(col->type) && !col->name_column;
}
static bool pick_paths(const plumb_column *col) { return pick_strings(col) && is_path_column(col); }
static bool pick_modules(const plumb_column *col) { return pick_strings(col) && is_module_column(col); }
static bool pick_name(const plumb_column *col) { return col->name_column; }
static bool pick_cumulative(const plumb_column *col) { return strcmp(col->key, "cumulative") == 0; }
static bool pick_costs(const plumb_column *col)
{
	return is_numeric(col->type) && col->type != PLUMB_CELL_INT && !col->name_column;
}

/* Drop the numeric columns but the first, right to left. */
static void drop_numbers(writer *wr)
{
	size_t keep = SIZE_MAX;
	for (size_t c = 0; c < wr->t->ncols && keep == SIZE_MAX; c++)
		if (!wr->hidden[c] && pick_costs(&wr->t->cols[c]))
			keep = c;
	for (size_t c = wr->t->ncols; c-- > 0 && !fits(wr);)
		if (c != keep && !wr->hidden[c] && pick_costs(&wr->t->cols[c]))
			wr->hidden[c] = true;
}

/* Make the table fit o->width; see plumb/output.h for the order. */
static void fit(writer *wr)
{
	if (fits(wr))
		return;
	wr->compact = true;
	measure(wr);
	if (fits(wr))
		return;
	if ((wr->event = single_event(wr)))
		wr->short_titles = true;
	else
		wr->split_titles = any_split_title(wr);
	wr->basenames = true;
	if (wr->slen) /* the module paths' lengths are their last components' now */
		memset(wr->slen, 0, wr->t->nrows * wr->nscol * sizeof *wr->slen);
	measure(wr);
	drop(wr, pick_cumulative);
	shrink(wr, pick_paths, MIN_SHRUNK);
	shrink(wr, pick_strings, MIN_SHRUNK);
	drop(wr, pick_modules);
	drop(wr, pick_paths);
	drop(wr, pick_strings);
	/* Most names fit in MIN_NAME: the costs but the first go before the
	 * name is cut further. */
	shrink(wr, pick_name, MIN_NAME);
	drop_numbers(wr);
	shrink(wr, pick_name, MIN_SHRUNK);
	shrink(wr, pick_name, 1);
	shrink(wr, pick_strings, 1);
	/* What still sticks out is cut when the line is written. */
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

/* Append one padded column; indent is the wanted indentation. A row too
 * deep for the column keeps some of its name and says its depth instead
 * (↳ 37) at the deepest indentation that leaves room. */
static void put_column(writer *wr, size_t c, const char *s, size_t len, size_t sw, size_t indent,
		       uint32_t depth, const char *colour)
{
	if (wr->hidden[c])
		return;
	size_t avail = wr->w[c];
	bool right = is_numeric(wr->t->cols[c].type);
	char mark[24];
	size_t mw = 0;
	mark[0] = '\0';
	if (indent > 0 && indent + sw > avail) {
		/* a deep row keeps DEEP_KEEP of its name (of its shortest C++
		 * form) and at most two thirds of the column, or at least
		 * MIN_SHRUNK when the column is narrower */
		size_t want = sw;
		char shortest[4096];
		size_t n;
		if (len < sizeof shortest && (n = plumb_cxx_shorten(s, len, 0, shortest)) > 0 && n < want)
			want = n;
		size_t keep = want < DEEP_KEEP ? want : DEEP_KEEP;
		if (keep > avail * 2 / 3) /* a third of the column for the tree's shape */
			keep = avail * 2 / 3 > MIN_SHRUNK ? avail * 2 / 3 : MIN_SHRUNK;
		if (indent + keep > avail) {
			snprintf(mark, sizeof mark, "\xE2\x86\xB3%" PRIu32 " ", depth);
			mw = text_width(mark);
			if (keep + mw > avail && keep > MIN_SHRUNK)
				keep = avail > mw + MIN_SHRUNK ? avail - mw : MIN_SHRUNK;
			if (keep + mw > avail) {
				mark[0] = '\0';
				mw = 0;
			}
			indent = avail > keep + mw ? avail - keep - mw : 0;
		}
	}
	size_t budget = avail - indent - mw, shown = sw < budget ? sw : budget;
	sb_spaces(&wr->line, (c > wr->first ? GAP : 0) + (right ? avail - shown : indent));
	if (mw)
		sb_str(&wr->line, mark);
	if (colour)
		sb_str(&wr->line, colour);
	sb_add_elided(&wr->line, s, len, sw, budget, !(wr->kind[c] & PATH_COL));
	if (colour)
		sb_str(&wr->line, SGR_FG_RESET);
	if (!right)
		sb_spaces(&wr->line, budget - shown);
}

/* Cut safe text with SGR sequences to width visible code points. */
static void cut_to_width(strbuf *l, size_t width, bool *cut)
{
	size_t seen = 0;
	for (size_t i = 0; i < l->len;) {
		unsigned char ch = (unsigned char)l->p[i];
		if (ch == 0x1b) { /* ESC [ ... m takes no room */
			while (i < l->len && l->p[i] != 'm')
				i++;
			i++;
			continue;
		}
		if ((ch & 0xC0) != 0x80) {
			if (seen == width) {
				l->len = i;
				l->p[i] = '\0';
				*cut = true;
				return;
			}
			seen++;
		}
		i++;
	}
}

/* Write the line without trailing spaces, no wider than the width,
 * optionally inside an SGR pair. */
static void emit_line(writer *wr, FILE *out, const char *sgr)
{
	strbuf *l = &wr->line;
	bool cut = false;
	if (wr->o->width > 0 && l->p && !l->failed)
		cut_to_width(l, wr->o->width, &cut);
	while (l->len > 0 && l->p[l->len - 1] == ' ')
		l->p[--l->len] = '\0';
	if (sgr && l->len > 0)
		fprintf(out, "%s%s%s\n", sgr, sb_text(l), SGR_RESET);
	else {
		/* unlocked: one line of a table is one writer's */
		if (l->p && !l->failed)
			fwrite_unlocked(l->p, 1, l->len, out);
		if (cut && wr->o->color)
			fputs(SGR_RESET, out);
		putc_unlocked('\n', out);
	}
}

static void write_header(writer *wr, FILE *out)
{
	for (int part = wr->split_titles ? 0 : -1; part <= (wr->split_titles ? 1 : -1); part++) {
		sb_clear(&wr->line);
		for (size_t c = 0; c < wr->t->ncols; c++) {
			const char *title = title_text(wr, c, part);
			put_column(wr, c, title, strlen(title), text_width(title), 0, 0, NULL);
		}
		emit_line(wr, out, wr->o->color ? SGR_BOLD : NULL);
	}
}

static void write_row(writer *wr, FILE *out, const plumb_row *r)
{
	const plumb_table *t = wr->t;
	sb_clear(&wr->line);
	for (size_t c = 0; c < t->ncols; c++) {
		if (wr->hidden[c])
			continue;
		size_t sw, len;
		const char *s = cell_text_width(wr, r, c, &sw, &len);
		const char *colour = wr->o->color ? pct_colour(&r->cells[c]) : NULL;
		put_column(wr, c, s, len, sw, cell_indent(t, r, c), r->depth, colour);
	}
	bool bold = wr->o->color && r->kind == PLUMB_ROW_FOCUS;
	emit_line(wr, out, bold ? SGR_BOLD : NULL);
}

static void write_all(writer *wr, FILE *out)
{
	const plumb_table *t = wr->t;
	if (t->title) {
		plumb_text_write_wrapped(out, t->title, wr->o->width, 2);
		fputc('\n', out);
	}
	if (t->ncols > 0) {
		if (wr->short_titles && wr->o->header) {
			sb_clear(&wr->line);
			sb_str(&wr->line, "Event: ");
			sb_add_safe(&wr->line, wr->event);
			emit_line(wr, out, NULL);
		}
		if (wr->o->header)
			write_header(wr, out);
		for (size_t i = 0; i < t->nrows && !wr->line.failed && !wr->cell.failed; i++) {
			const plumb_row *r = plumb_table_row(t, i);
			if (!r) {
				wr->nomem = true;
				break;
			}
			wr->row = i;
			if (r->kind == PLUMB_ROW_SEPARATOR)
				fputc('\n', out);
			else
				write_row(wr, out, r);
		}
	}
	if (t->nnotes > 0)
		fputc('\n', out);
	for (size_t i = 0; i < t->nnotes; i++)
		plumb_text_write_wrapped(out, t->notes[i], wr->o->width, 2);
}

/* One line of safe text, word-wrapped (see plumb/output.h). */
static void wrap_line(FILE *out, const char *s, size_t width, size_t hang)
{
	if (width == 0 || text_width(s) <= width) {
		fputs(s, out);
		putc('\n', out);
		return;
	}
	if (hang >= width)
		hang = 0;
	size_t used = 0, limit = width;
	bool line_empty = true;
	while (*s) {
		if (*s == ' ') {
			s++;
			continue;
		}
		const char *end = strchr(s, ' ');
		if (!end)
			end = s + strlen(s);
		size_t ww = 0;
		for (const char *q = s; q < end; q++)
			ww += ((unsigned char)*q & 0xC0) != 0x80;
		if (!line_empty && used + 1 + ww > limit) {
			putc('\n', out);
			for (size_t i = 0; i < hang; i++)
				putc(' ', out);
			used = hang;
			limit = width;
			line_empty = true;
		}
		if (!line_empty) {
			putc(' ', out);
			used++;
		}
		/* A word longer than a whole line goes in pieces. */
		while (used + ww > limit) {
			size_t room = limit - used;
			const char *cut = skip_cps(s, room);
			fwrite(s, 1, (size_t)(cut - s), out);
			putc('\n', out);
			for (size_t i = 0; i < hang; i++)
				putc(' ', out);
			used = hang;
			ww -= room;
			s = cut;
		}
		fwrite(s, 1, (size_t)(end - s), out);
		used += ww;
		line_empty = false;
		s = end;
	}
	putc('\n', out);
}

void plumb_text_write_wrapped(FILE *out, const char *text, unsigned width, unsigned hang)
{
	strbuf line = { 0 }, safe = { 0 };
	const char *p = text ? text : "";
	do {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		sb_clear(&line);
		sb_add(&line, p, n);
		sb_clear(&safe);
		sb_add_safe(&safe, sb_text(&line));
		if (!nl && n == 0 && p != text)
			break; /* the text ended with its newline */
		wrap_line(out, sb_text(&safe), width, hang);
		p = nl ? nl + 1 : p + n;
		if (!nl)
			break;
	} while (1);
	free(line.p);
	free(safe.p);
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
		      .hidden = calloc(t->ncols ? t->ncols : 1, sizeof(bool)),
		      .kind = calloc(t->ncols ? t->ncols : 1, 1),
		      .scol = calloc(t->ncols ? t->ncols : 1, sizeof(int)) };
	if (!wr.w || !wr.hidden || !wr.kind || !wr.scol) {
		free(wr.w);
		free(wr.hidden);
		free(wr.kind);
		free(wr.scol);
		return plumb_fail_nomem(err);
	}
	for (size_t c = 0; c < t->ncols; c++) {
		wr.kind[c] = (uint8_t)((is_path_column(&t->cols[c]) ? PATH_COL : 0) |
				       (is_module_column(&t->cols[c]) ? MODULE_COL : 0));
		wr.scol[c] = is_numeric(t->cols[c].type) ? -1 : (int)wr.nscol++;
	}
	/* string columns only: 4 bytes a name, also for rows made on demand */
	if (t->nrows && wr.nscol && wr.nscol <= SIZE_MAX / sizeof *wr.slen / t->nrows)
		wr.slen = calloc(t->nrows * wr.nscol, sizeof *wr.slen); /* a hint: NULL is no error */
	measure_rows(&wr, true);
	if (o->width > 0)
		fit(&wr);
	int rc = 0;
	if (wr.cell.failed || wr.nomem)
		rc = plumb_fail_nomem(err);
	else {
		wr.first = first_shown(&wr);
		write_all(&wr, out);
		if (wr.line.failed || wr.cell.failed || wr.nomem)
			rc = plumb_fail_nomem(err);
	}
	if (plumb_output_flush(out, "table", rc == 0 ? err : NULL) < 0)
		rc = -1;
	free(wr.w);
	free(wr.hidden);
	free(wr.kind);
	free(wr.scol);
	free(wr.slen);
	free(wr.cell.p);
	free(wr.line.p);
	return rc;
}
