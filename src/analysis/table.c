/* plumb: building a view's table. Every string the table points to lives in
 * its arena (t->strs), so freeing the table frees them all at once. */
#include "plumb/table.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Keep p in the arena; on failure p is freed and NULL returned. */
static void *arena_keep(plumb_table *t, void *p)
{
	if (!p)
		return NULL;
	if (t->nstrs == t->strs_cap) {
		size_t cap = t->strs_cap ? t->strs_cap * 2 : 16;
		void **n;
		if (cap > SIZE_MAX / sizeof *n || !(n = realloc(t->strs, cap * sizeof *n))) {
			free(p);
			return NULL;
		}
		t->strs = n;
		t->strs_cap = cap;
	}
	t->strs[t->nstrs++] = p;
	return p;
}

void *plumb_table_alloc(plumb_table *t, size_t n)
{
	return t ? arena_keep(t, calloc(1, n ? n : 1)) : NULL;
}

const char *plumb_table_strdup(plumb_table *t, const char *s)
{
	if (!t || !s)
		return NULL;
	return arena_keep(t, strdup(s));
}

int plumb_cell_big(plumb_table *t, plumb_cell *c, long double v)
{
	long double *kept = plumb_table_alloc(t, sizeof *kept);
	if (!kept)
		return -1;
	*kept = v;
	c->type = PLUMB_CELL_BIG;
	c->big = kept;
	return 0;
}

plumb_table *plumb_table_new(const char *view, const char *title)
{
	plumb_table *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	if ((view && !(t->view = arena_keep(t, strdup(view)))) ||
	    (title && !(t->title = arena_keep(t, strdup(title))))) {
		plumb_table_free(t);
		return NULL;
	}
	return t;
}

void plumb_table_free(plumb_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; t->rows && i < t->nrows; i++)
		free(t->rows[i].cells);
	free(t->rows);
	if (t->source) {
		if (t->source->free)
			t->source->free(t->source->ctx);
		free(t->source->row.cells);
		free(t->source);
	}
	free(t->cols);
	free(t->notes);
	for (size_t i = 0; i < t->nviews; i++)
		plumb_table_free(t->views[i]);
	free(t->views);
	for (size_t i = 0; i < t->nstrs; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t);
}

/* Give every existing row a NULL cell for a new last column. A row that grew
 * before a later failure keeps its bigger block, which is harmless. */
static int widen_rows(plumb_table *t)
{
	size_t n = t->ncols + 1;
	if (n > SIZE_MAX / sizeof(plumb_cell) || t->source)
		return -1;
	for (size_t i = 0; i < t->nrows; i++) {
		plumb_cell *c = realloc(t->rows[i].cells, n * sizeof *c);
		if (!c)
			return -1;
		memset(&c[n - 1], 0, sizeof *c);
		t->rows[i].cells = c;
	}
	return 0;
}

int plumb_table_add_column(plumb_table *t, const char *key, const char *title,
			   plumb_cell_type type, int event, bool name_column)
{
	if (!t || !key || t->ncols >= (size_t)INT32_MAX)
		return -1;
	const char *k = plumb_table_strdup(t, key);
	const char *ti = plumb_table_strdup(t, title ? title : key);
	if (!k || !ti || widen_rows(t) < 0)
		return -1;
	if (t->ncols + 1 > SIZE_MAX / sizeof(plumb_column))
		return -1;
	plumb_column *cols = realloc(t->cols, (t->ncols + 1) * sizeof *cols);
	if (!cols)
		return -1;
	t->cols = cols;
	cols[t->ncols] = (plumb_column){
		.key = k, .title = ti, .type = type, .event = event, .name_column = name_column,
	};
	return (int)t->ncols++;
}

plumb_row *plumb_table_add_row(plumb_table *t, plumb_row_kind kind, uint32_t depth)
{
	if (!t || t->source)
		return NULL;
	if (t->nrows == t->rows_cap) {
		size_t cap = t->rows_cap ? t->rows_cap * 2 : 64;
		plumb_row *r;
		if (cap > SIZE_MAX / sizeof *r || !(r = realloc(t->rows, cap * sizeof *r)))
			return NULL;
		t->rows = r;
		t->rows_cap = cap;
	}
	/* calloc(0) may return NULL; one spare cell keeps "NULL means ENOMEM". */
	plumb_cell *cells = calloc(t->ncols ? t->ncols : 1, sizeof *cells);
	if (!cells)
		return NULL;
	plumb_row *row = &t->rows[t->nrows++];
	*row = (plumb_row){ .kind = kind, .depth = depth, .cells = cells };
	return row;
}

int plumb_table_add_note(plumb_table *t, const char *note)
{
	if (!t || !note)
		return -1;
	char *copy = (char *)plumb_table_strdup(t, note);
	if (!copy || t->nnotes + 1 > SIZE_MAX / sizeof(char *))
		return -1;
	char **n = realloc(t->notes, (t->nnotes + 1) * sizeof *n);
	if (!n)
		return -1;
	t->notes = n;
	n[t->nnotes++] = copy;
	return 0;
}

int plumb_table_attach(plumb_table *t, plumb_table *view)
{
	plumb_table **v = realloc(t->views, (t->nviews + 1) * sizeof *v);
	if (!v) {
		plumb_table_free(view);
		return -1;
	}
	t->views = v;
	t->views[t->nviews++] = view;
	return 0;
}

const plumb_row *plumb_table_row(const plumb_table *t, size_t i)
{
	plumb_row_source *s = t->source;
	if (!s)
		return &t->rows[i];
	if (s->made == i + 1)
		return &s->row;
	s->made = 0;
	plumb_cell *cells = s->row.cells;
	memset(&s->row, 0, sizeof s->row);
	s->row.cells = cells;
	memset(cells, 0, (t->ncols ? t->ncols : 1) * sizeof *cells);
	if (s->make(s->ctx, i, &s->row))
		return NULL;
	assert(s->row.kind == PLUMB_ROW_NORMAL && s->row.depth == 0);
	s->made = i + 1;
	return &s->row;
}

int plumb_table_set_source(plumb_table *t, size_t n,
			   int (*make)(void *ctx, size_t i, plumb_row *row),
			   void (*free_ctx)(void *ctx), void *ctx)
{
	plumb_row_source *s = calloc(1, sizeof *s);
	plumb_cell *cells = calloc(t->ncols ? t->ncols : 1, sizeof *cells);
	if (!s || !cells || t->nrows || t->source) {
		free(s);
		free(cells);
		if (free_ctx)
			free_ctx(ctx);
		return -1;
	}
	*s = (plumb_row_source){ .make = make, .free = free_ctx, .ctx = ctx, .row.cells = cells };
	t->source = s;
	t->nrows = n;
	return 0;
}
