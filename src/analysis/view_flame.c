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
#include <math.h>
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
	int x, width, pct, base, change, name, file, module;
} flame_cols;

/* A differential flame's base: its boxes' path hashes, sorted, and widths. */
typedef struct flame_base {
	size_t n;
	uint64_t *hash, *width;   /* width[i] of the path hash[i] */
	uint64_t total;
	bool normalize;           /* scale base widths to the new total */
} flame_base;

static int add_columns(plumb_table *t, const plumb_profile *p, int ev, bool diff, flame_cols *fc)
{
	fc->x = view_add_event_column(t, p, "x", "Offset", PLUMB_CELL_U64, ev);
	fc->width = view_add_event_column(t, p, "inclusive", "Incl.", PLUMB_CELL_U64, ev);
	fc->pct = view_add_event_column(t, p, "percent", "Incl. %", PLUMB_CELL_PCT, ev);
	fc->base = diff ? view_add_event_column(t, p, "base", "Base", PLUMB_CELL_U64, ev) : -2;
	fc->change = diff ? view_add_event_column(t, p, "change", "Change", PLUMB_CELL_INT, ev) : -2;
	fc->name = plumb_table_add_column(t, "function", "Function", PLUMB_CELL_STR, -1, true);
	fc->file = plumb_table_add_column(t, "file", "File", PLUMB_CELL_STR, -1, false);
	fc->module = plumb_table_add_column(t, "module", "Load module", PLUMB_CELL_STR, -1, false);
	return fc->x < 0 || fc->width < 0 || fc->pct < 0 || fc->base == -1 || fc->change == -1 || fc->name < 0 ||
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

/* A box's path (its name and its parents') as one hash: how a box of one
 * profile finds the same box of another. */
static uint64_t path_hash(uint64_t parent, const char *name)
{
	uint64_t h = 1469598103934665603u;
	for (const char *c = name ? name : "\x01"; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211u;
	h ^= parent + 0x9E3779B97F4A7C15u + (h << 6) + (h >> 2);
	return h ^ (h >> 31);
}

static uint64_t base_width(const flame_base *b, uint64_t h, uint64_t total)
{
	size_t lo = 0, hi = b->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->hash[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == b->n || b->hash[lo] != h)
		return 0;
	uint64_t w = b->width[lo];
	if (b->normalize && b->total)
		w = (uint64_t)llround((double)w * (double)total / (double)b->total);
	return w;
}

/* Lay the tree's rows out as boxes; next[d] is where the next box of depth
 * d starts. With a base, each box also gets its change against the base's
 * box of the same path. */
static int lay_out(const plumb_table *tree, plumb_table *t, plumb_flame *fl, const flame_cols *fc,
		   const flame_base *base, plumb_error *err)
{
	/* bottom-up trees call a node's inverted inclusive cost "exclusive" */
	int cw = column(tree, fl->inverted ? "exclusive" : "inclusive"), cp = column(tree, "percent");
	int cn = column(tree, "function"), cf = column(tree, "file"), cm = column(tree, "module");
	/* the tree views always have these */
	assert(cw >= 0 && cp >= 0 && cn >= 0);
	plumb_flame_box *boxes = plumb_table_alloc(t, (tree->nrows ? tree->nrows : 1) * sizeof *boxes);
	uint64_t *next = calloc(tree->nrows + 2, sizeof *next), *w = calloc(tree->nrows + 1, sizeof *w);
	uint64_t *path = calloc(tree->nrows + 2, sizeof *path);
	if (!boxes || !next || !w || !path) {
		free(next);
		free(w);
		free(path);
		return plumb_fail_nomem(err);
	}
	if (widths(tree, cw, w, err)) {
		free(next);
		free(w);
		free(path);
		return -1;
	}
	uint64_t total = 0;
	for (size_t i = 0; i < tree->nrows; i++)
		total += tree->rows[i].depth == 0 ? w[i] : 0;
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
		path[d + 1] = path_hash(path[d], b->name);
		uint64_t bw = base ? base_width(base, path[d + 1], total) : 0;
		if (base) {
			if (b->width > INT64_MAX || bw > INT64_MAX) {
				ok = false;
				break;
			}
			b->change = (int64_t)b->width - (int64_t)bw;
			uint64_t mag = b->change < 0 ? (uint64_t)-b->change : (uint64_t)b->change;
			if (mag > fl->max_change)
				fl->max_change = mag;
		}
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
		if (base) {
			plumb_cell_u64(&row->cells[fc->base], bw);
			plumb_cell_int(&row->cells[fc->change], b->change);
		}
		plumb_cell_str(&row->cells[fc->name], b->name);
		plumb_cell_str(&row->cells[fc->file], b->file);
		plumb_cell_str(&row->cells[fc->module], b->module);
	}
	free(next);
	free(w);
	free(path);
	if (!ok)
		return plumb_fail_nomem(err);
	fl->nboxes = tree->nrows;
	fl->boxes = boxes;
	return 0;
}

static int cmp_pair(const void *a, const void *b)
{
	uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];
	return x < y ? -1 : x > y;
}

/* The base's boxes as sorted path hashes (duplicate paths add up: a
 * bottom-up tree has none, a cut call graph may). */
static int base_of(const plumb_flame *fl, bool normalize, flame_base *b, plumb_error *err)
{
	memset(b, 0, sizeof *b);
	b->total = fl->total;
	b->normalize = normalize;
	size_t n = fl->nboxes;
	uint64_t *path = calloc(fl->max_depth + 2, sizeof *path);
	uint64_t (*pairs)[2] = malloc((n ? n : 1) * sizeof *pairs);
	b->hash = malloc((n ? n : 1) * sizeof *b->hash);
	b->width = malloc((n ? n : 1) * sizeof *b->width);
	if (!path || !pairs || !b->hash || !b->width) {
		free(path);
		free(pairs);
		return plumb_fail_nomem(err);
	}
	for (size_t i = 0; i < n; i++) {
		const plumb_flame_box *x = &fl->boxes[i];
		path[x->depth + 1] = path_hash(path[x->depth], x->name);
		pairs[i][0] = path[x->depth + 1];
		pairs[i][1] = x->width;
	}
	qsort(pairs, n, sizeof *pairs, cmp_pair);
	for (size_t i = 0; i < n; i++) {
		if (b->n && b->hash[b->n - 1] == pairs[i][0]) {
			b->width[b->n - 1] += pairs[i][1];
			continue;
		}
		b->hash[b->n] = pairs[i][0];
		b->width[b->n++] = pairs[i][1];
	}
	free(path);
	free(pairs);
	return 0;
}

static int flame_build(const plumb_profile *p, const plumb_view_opts *o, const plumb_table *against,
		       bool normalize, plumb_table **out, plumb_error *err)
{
	view_events ve;
	if (view_events_of(p, o, &ve, err))
		return -1;
	flame_base base = { 0 };
	if (against && base_of(against->flame, normalize, &base, err))
		return -1;
	plumb_view_opts to = *o;
	to.kind = o->invert ? PLUMB_VIEW_BOTTOM_UP : PLUMB_VIEW_TREE;
	to.metric = ve.primary;
	to.limit = 0;
	to.summary = false;
	plumb_table *tree = NULL, *t = NULL;
	int rc = -1;
	if (view_tree(p, &to, &tree, err))
		goto done;
	const char *title = against ? (o->invert ? "Differential icicle graph: red grew against the base, blue shrank"
						 : "Differential flame graph: red grew against the base, blue shrank")
				    : o->invert ? "Icicle graph (inverted flame): functions by exclusive cost at the top, callers below"
						: "Flame graph: callees above their callers";
	t = plumb_table_new(plumb_view_name(PLUMB_VIEW_FLAME), title);
	plumb_flame *fl = t ? plumb_table_alloc(t, sizeof *fl) : NULL;
	flame_cols fc;
	if (!fl || add_columns(t, p, ve.primary, against != NULL, &fc) ||
	    !(fl->event = plumb_table_strdup(t, plumb_str(p, p->events.v[ve.primary].name)))) {
		plumb_fail_nomem(err);
		goto done;
	}
	fl->inverted = o->invert;
	fl->differential = against != NULL;
	if (lay_out(tree, t, fl, &fc, against ? &base : NULL, err))
		goto done;
	for (size_t i = 0; i < tree->nnotes; i++)
		if (plumb_table_add_note(t, tree->notes[i])) {
			plumb_fail_nomem(err);
			goto done;
		}
	if (against && plumb_table_add_note(t, normalize
		? "A box's change is its cost less the base's cost of the same call path, scaled to this "
		  "profile's total (--normalize). Paths found only in the base are not drawn."
		: "A box's change is its cost less the base's cost of the same call path. Paths found "
		  "only in the base are not drawn.")) {
		plumb_fail_nomem(err);
		goto done;
	}
	t->flame = fl;
	*out = t;
	t = NULL;
	rc = 0;
done:
	plumb_table_free(tree);
	plumb_table_free(t);
	free(base.hash);
	free(base.width);
	return rc;
}

int view_flame(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err)
{
	return flame_build(p, o, NULL, false, out, err);
}

int view_flame_against(const plumb_profile *p, const plumb_view_opts *o, const plumb_table *base,
		       bool normalize, plumb_table **out, plumb_error *err)
{
	return flame_build(p, o, base, normalize, out, err);
}
