/* flame view: the call tree as flame-graph boxes.
 *
 * The boxes come from the tree view itself (top-down, or bottom-up with
 * --invert), built for one event with no row limit: so a box's width is
 * exactly the inclusive cost the tree view prints for that node, for stack
 * profiles and for call graphs unfolded from their arcs alike. The tree's
 * rows are depth-first, parents before children, so one pass lays them
 * out: a box starts where its previous sibling ended, its first child
 * where it starts. The table keeps one row per box (its depth as the
 * row's; x, width, percent, name, file, module) and the boxes in t->flame for the SVG
 * writer. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/view_internal.h"

static int column(const plumb_table *t, const char *what)
{
	size_t n = strlen(what);
	for (size_t c = 0; c < t->ncols; c++)
		if (strncmp(t->cols[c].key, what, n) == 0 && (t->cols[c].key[n] == '.' || !t->cols[c].key[n]))
			return (int)c;
	return -1;
}

static const char *cell_str(const plumb_row *r, int c)
{
	return c >= 0 && r->cells[c].type == PLUMB_CELL_STR ? r->cells[c].s : NULL;
}

/* Copy into the flame table's arena; NULL stays NULL. */
static const char *keep(plumb_table *t, const char *s, bool *ok)
{
	if (!s)
		return NULL;
	const char *c = plumb_table_strdup(t, s);
	if (!c)
		*ok = false;
	return c;
}

typedef struct flame_cols {
	int x, width, pct, name, file, module;
} flame_cols;

static int add_columns(plumb_table *t, const plumb_profile *p, int ev, flame_cols *fc)
{
	fc->x = view_add_event_column(t, p, "x", "Offset", PLUMB_CELL_U64, ev);
	fc->width = view_add_event_column(t, p, "inclusive", "Incl.", PLUMB_CELL_U64, ev);
	fc->pct = view_add_event_column(t, p, "percent", "Incl. %", PLUMB_CELL_PCT, ev);
	fc->name = plumb_table_add_column(t, "function", "Function", PLUMB_CELL_STR, -1, true);
	fc->file = plumb_table_add_column(t, "file", "File", PLUMB_CELL_STR, -1, false);
	fc->module = plumb_table_add_column(t, "module", "Load module", PLUMB_CELL_STR, -1, false);
	return fc->x < 0 || fc->width < 0 || fc->pct < 0 || fc->name < 0 ||
	       fc->file < 0 || fc->module < 0 ? -1 : 0;
}

/* The boxes' widths: a row's inclusive cost, or, where the tree has none
 * (a call graph's cycle members and [recursive] marks), the sum of its
 * children's, so that every box holds its children. One backward pass:
 * acc[d] sums the rows of depth d since the last row above them. */
static int widths(const plumb_table *tree, int cw, uint64_t *w, plumb_error *err)
{
	uint64_t *acc = calloc(tree->nrows + 2, sizeof *acc);
	if (!acc)
		return plumb_fail_nomem(err);
	for (size_t i = tree->nrows; i-- > 0;) {
		const plumb_row *r = &tree->rows[i];
		uint32_t d = r->depth;
		w[i] = r->cells[cw].type == PLUMB_CELL_U64 ? r->cells[cw].u : acc[d + 1];
		acc[d + 1] = 0;
		acc[d] += w[i];
	}
	free(acc);
	return 0;
}

/* Lay the tree's rows out as boxes; next[d] is where the next box of depth
 * d starts. */
static int lay_out(const plumb_table *tree, plumb_table *t, plumb_flame *fl, const flame_cols *fc,
		   plumb_error *err)
{
	/* bottom-up trees call a node's inverted inclusive cost "exclusive" */
	int cw = column(tree, fl->inverted ? "exclusive" : "inclusive"), cp = column(tree, "percent");
	int cn = column(tree, "function"), cf = column(tree, "file"), cm = column(tree, "module");
	/* the tree views always have these */
	assert(cw >= 0 && cp >= 0 && cn >= 0);
	plumb_flame_box *boxes = plumb_table_alloc(t, (tree->nrows ? tree->nrows : 1) * sizeof *boxes);
	uint64_t *next = calloc(tree->nrows + 2, sizeof *next), *w = calloc(tree->nrows + 1, sizeof *w);
	if (!boxes || !next || !w) {
		free(next);
		free(w);
		return plumb_fail_nomem(err);
	}
	if (widths(tree, cw, w, err)) {
		free(next);
		free(w);
		return -1;
	}
	/* the percentages' whole, for the rows whose percentage the tree left out */
	double whole = 0;
	for (size_t i = 0; i < tree->nrows && whole == 0; i++)
		if (tree->rows[i].cells[cp].type == PLUMB_CELL_PCT && tree->rows[i].cells[cp].pct > 0)
			whole = (double)w[i] * 100.0 / tree->rows[i].cells[cp].pct;
	bool ok = true;
	for (size_t i = 0; i < tree->nrows && ok; i++) {
		const plumb_row *r = &tree->rows[i];
		uint32_t d = r->depth;
		plumb_flame_box *b = &boxes[i];
		b->depth = d;
		b->x = next[d];
		b->width = w[i];
		b->pct = r->cells[cp].type == PLUMB_CELL_PCT ? r->cells[cp].pct
			 : whole > 0 ? 100.0 * (double)w[i] / whole : 0;
		b->name = keep(t, cell_str(r, cn), &ok);
		b->file = keep(t, cell_str(r, cf), &ok);
		b->module = keep(t, cell_str(r, cm), &ok);
		next[d] += b->width;
		next[d + 1] = b->x;
		if (d == 0)
			fl->total += b->width;
		if (d > fl->max_depth)
			fl->max_depth = d;
		plumb_row *row = plumb_table_add_row(t, PLUMB_ROW_NORMAL, d);
		if (!row) {
			ok = false;
			break;
		}
		plumb_cell_u64(&row->cells[fc->x], b->x);
		plumb_cell_u64(&row->cells[fc->width], b->width);
		plumb_cell_pct(&row->cells[fc->pct], b->pct);
		plumb_cell_str(&row->cells[fc->name], b->name);
		plumb_cell_str(&row->cells[fc->file], b->file);
		plumb_cell_str(&row->cells[fc->module], b->module);
	}
	free(next);
	free(w);
	if (!ok)
		return plumb_fail_nomem(err);
	fl->nboxes = tree->nrows;
	fl->boxes = boxes;
	return 0;
}

int view_flame(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err)
{
	view_events ve;
	if (view_events_of(p, o, &ve, err))
		return -1;
	plumb_view_opts to = *o;
	to.kind = o->invert ? PLUMB_VIEW_BOTTOM_UP : PLUMB_VIEW_TREE;
	to.metric = ve.primary;
	to.limit = 0;
	to.summary = false;
	plumb_table *tree = NULL;
	if (view_tree(p, &to, &tree, err))
		return -1;
	plumb_table *t = plumb_table_new(plumb_view_name(PLUMB_VIEW_FLAME),
					 o->invert ? "Icicle graph (inverted flame): functions by exclusive cost at the top, callers below"
						   : "Flame graph: callees above their callers");
	plumb_flame *fl = t ? plumb_table_alloc(t, sizeof *fl) : NULL;
	flame_cols fc;
	if (!fl || add_columns(t, p, ve.primary, &fc) ||
	    !(fl->event = plumb_table_strdup(t, plumb_str(p, p->events.v[ve.primary].name)))) {
		plumb_table_free(tree);
		plumb_table_free(t);
		return plumb_fail_nomem(err);
	}
	fl->inverted = o->invert;
	int rc = lay_out(tree, t, fl, &fc, err);
	for (size_t i = 0; rc == 0 && i < tree->nnotes; i++)
		if (plumb_table_add_note(t, tree->notes[i]))
			rc = plumb_fail_nomem(err);
	plumb_table_free(tree);
	if (rc) {
		plumb_table_free(t);
		return -1;
	}
	t->flame = fl;
	*out = t;
	return 0;
}
