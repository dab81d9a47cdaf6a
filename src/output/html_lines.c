/* plumb: the HTML report's source lines (see html_internal.h).
 *
 * The lines view's rows are embedded as they are (the numbers of `plumb
 * report --view lines`), the heaviest MAX_LINE_ROWS of them. The page shows
 * the lines of the function clicked. Beside them goes the text of those
 * lines and a few around them, read now from each file the rows name (as
 * the path is written in the profile, relative ones from the current
 * directory), when it is a regular file of at most MAX_SOURCE_BYTES and the
 * report's budget of MAX_SOURCE_TOTAL is not spent; otherwise the reason,
 * and the page shows line numbers and costs only. The text of a function
 * whose lines span at most SPAN_WHOLE lines goes in whole, of others the
 * CONTEXT lines either side of each costed line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/html_internal.h"

enum {
	MAX_LINE_ROWS = 20000,
	MAX_SOURCE_BYTES = 1 << 20,
	MAX_SOURCE_TOTAL = 8 << 20,
	SPAN_WHOLE = 300,
	CONTEXT = 3
};

typedef struct lines_ctx {
	const plumb_table *t;
	int fn, file, line;   /* column indices, -1 when the view has none */
} lines_ctx;

static int col_of(const plumb_table *t, const char *key)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (t->cols[c].key && strcmp(t->cols[c].key, key) == 0)
			return (int)c;
	return -1;
}

static const char *str_cell(const lines_ctx *x, size_t r, int c)
{
	if (c < 0)
		return NULL;
	const plumb_cell *cell = &x->t->rows[r].cells[c];
	return cell->type == PLUMB_CELL_STR ? cell->s : NULL;
}

/* The row's line number; 0 when it has none. */
static uint64_t line_cell(const lines_ctx *x, size_t r)
{
	if (x->line < 0)
		return 0;
	const plumb_cell *c = &x->t->rows[r].cells[x->line];
	if (c->type == PLUMB_CELL_U64)
		return c->u;
	if (c->type == PLUMB_CELL_INT && c->i > 0)
		return (uint64_t)c->i;
	return 0;
}

static int strcmp_null(const char *a, const char *b)
{
	return a == b ? 0 : !a ? -1 : !b ? 1 : strcmp(a, b);
}

/* Rows by file, then function, then line. */
static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const lines_ctx *x = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int d = strcmp_null(str_cell(x, i, x->file), str_cell(x, j, x->file));
	if (!d)
		d = strcmp_null(str_cell(x, i, x->fn), str_cell(x, j, x->fn));
	if (!d) {
		uint64_t u = line_cell(x, i), v = line_cell(x, j);
		d = u < v ? -1 : u > v;
	}
	return d ? d : i < j ? -1 : i > j;
}

/* The whole file in memory, or NULL with why (a static message). */
static char *read_source(const char *path, size_t budget, size_t *len, const char **why)
{
	struct stat st;
	FILE *f = fopen(path, "rb");
	if (!f) {
		*why = strerror(errno);
		return NULL;
	}
	char *buf = NULL;
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
		*why = "not a regular file";
	else if (st.st_size > MAX_SOURCE_BYTES)
		*why = "larger than 1 MiB";
	else if ((size_t)st.st_size > budget)
		*why = "the report's 8 MiB of source text is spent";
	else if (!(buf = malloc((size_t)st.st_size + 1)))
		*why = "out of memory";
	else if ((*len = fread(buf, 1, (size_t)st.st_size, f)) != (size_t)st.st_size || ferror(f)) {
		*why = "cannot be read";
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		buf[*len] = '\0';
	return buf;
}

/* The text of the wanted lines of one file, as "N":"text" members. */
static void write_text(FILE *out, char *buf, size_t len, const unsigned char *want, uint64_t nwant)
{
	uint64_t no = 1;
	bool first = true;
	for (char *p = buf; p < buf + len && no < nwant; no++) {
		char *nl = memchr(p, '\n', (size_t)(buf + len - p));
		char *end = nl ? nl : buf + len;
		if (want[no]) {
			char saved = *end;
			*end = '\0';
			if (end > p && end[-1] == '\r')
				end[-1] = '\0';
			fprintf(out, "%s\"%" PRIu64 "\":", first ? "" : ",", no);
			html_json_str(out, p);
			*end = saved;
			first = false;
		}
		p = end + 1;
	}
}

/* "sources": {file: {line: text}}, "unread": {file: why}, for the files
 * of the rows idx[0..n) (sorted by file, function, line). */
static int write_sources(FILE *out, const lines_ctx *x, const size_t *idx, size_t n)
{
	size_t budget = MAX_SOURCE_TOTAL;
	fputs(",\"sources\":{", out);
	FILE *unread = NULL;
	char *ubuf = NULL;
	size_t ulen = 0;
	if (!(unread = open_memstream(&ubuf, &ulen)))
		return -1;
	bool first = true, ufirst = true;
	for (size_t a = 0; a < n;) {
		const char *file = str_cell(x, idx[a], x->file);
		size_t b = a;
		uint64_t maxline = 0;
		while (b < n && strcmp_null(str_cell(x, idx[b], x->file), file) == 0) {
			uint64_t l = line_cell(x, idx[b]);
			maxline = l > maxline ? l : maxline;
			b++;
		}
		if (!file || !*file || !maxline) {
			a = b;
			continue;
		}
		const char *why = NULL;
		size_t len = 0;
		char *text = read_source(file, budget, &len, &why);
		unsigned char *want = text ? calloc(maxline + CONTEXT + 2, 1) : NULL;
		if (text && !want)
			why = "out of memory";
		if (!text || !want) {
			fprintf(unread, "%s", ufirst ? "" : ",");
			html_json_str(unread, file);
			fputc(':', unread);
			html_json_str(unread, why);
			ufirst = false;
			free(text);
			a = b;
			continue;
		}
		budget -= len;
		uint64_t nwant = maxline + CONTEXT + 1;
		/* per function: its whole span when short, else each line's
		 * neighbourhood */
		for (size_t c = a; c < b;) {
			const char *fn = str_cell(x, idx[c], x->fn);
			size_t d = c;
			while (d < b && strcmp_null(str_cell(x, idx[d], x->fn), fn) == 0)
				d++;
			uint64_t lo = 0, hi = 0;
			for (size_t k = c; k < d; k++) {
				uint64_t l = line_cell(x, idx[k]);
				if (l && (!lo || l < lo))
					lo = l;
				hi = l > hi ? l : hi;
			}
			if (lo && hi - lo <= SPAN_WHOLE) {
				for (uint64_t l = lo > CONTEXT ? lo - CONTEXT : 1; l <= hi + CONTEXT; l++)
					want[l] = 1;
			} else {
				for (size_t k = c; k < d; k++) {
					uint64_t l = line_cell(x, idx[k]);
					for (uint64_t m = l > CONTEXT ? l - CONTEXT : 1; l && m <= l + CONTEXT; m++)
						want[m] = 1;
				}
			}
			c = d;
		}
		fputs(first ? "" : ",", out);
		html_json_str(out, file);
		fputs(":{", out);
		write_text(out, text, len, want, nwant);
		fputc('}', out);
		first = false;
		free(want);
		free(text);
		a = b;
	}
	fputs("},\"unread\":{", out);
	int rc = fclose(unread);
	if (rc == 0 && ubuf)
		fwrite(ubuf, 1, ulen, out);
	free(ubuf);
	fputc('}', out);
	return rc ? -1 : 0;
}

int html_write_lines(FILE *out, const plumb_table *t)
{
	lines_ctx x = { t, col_of(t, "function"), col_of(t, "file"), col_of(t, "line") };
	size_t n = t->nrows < MAX_LINE_ROWS ? t->nrows : MAX_LINE_ROWS;
	fputs("<script type=\"application/json\" id=\"pl-lines-data\">{\"cols\":[", out);
	for (size_t c = 0; c < t->ncols; c++) {
		fputs(c ? ",{\"key\":" : "{\"key\":", out);
		html_json_str(out, t->cols[c].key);
		fputs(",\"title\":", out);
		html_json_str(out, t->cols[c].title);
		fprintf(out, ",\"type\":\"%s\"}", html_cell_type_name(t->cols[c].type));
	}
	fprintf(out, "],\"total\":%zu,\"rows\":[", t->nrows);
	for (size_t r = 0; r < n; r++) {
		fputs(r ? ",\n[" : "\n[", out);
		for (size_t c = 0; c < t->ncols; c++) {
			if (c)
				fputc(',', out);
			html_json_cell(out, &t->rows[r].cells[c]);
		}
		fputc(']', out);
	}
	fputc(']', out);
	size_t *idx = malloc((n ? n : 1) * sizeof *idx);
	if (!idx)
		return -1;
	for (size_t r = 0; r < n; r++)
		idx[r] = r;
	qsort_r(idx, n, sizeof *idx, cmp_rows, &x);
	int rc = write_sources(out, &x, idx, n);
	free(idx);
	fputs("}</script>\n", out);
	return rc;
}
