/* tree and bottom-up views of a call graph (Callgrind, gmon.out), which has
 * arcs but no call paths. The tree is unfolded from the arcs:
 *  - top-down: from the roots (functions nobody else calls, or a cycle
 *    entered from nowhere) through each function's calls; a row's cost is
 *    its call's inclusive cost as measured on the arc, scaled, when the
 *    caller is itself called from several places, to the share of the
 *    caller's entries that came along this path (an estimate; exact for a
 *    function with one caller, and so for every row of a tree-shaped graph);
 *  - bottom-up: from each function with exclusive cost through its callers;
 *    a caller's row gets a share of the row below it in proportion to its
 *    calls (gprof's assumption that every call costs the same): an estimate.
 * A function already on the path is shown once more, marked, and not
 * expanded. A recursive call (an arc inside a strongly connected component)
 * has a nested measured cost: its row shows the count only. --threshold,
 * --limit and a row cap keep a large graph from unfolding without end. */
#include <stdlib.h>
#include <string.h>

#include "analysis/view_internal.h"
#include "model/index.h"

#define CG_TREE_MAX_ROWS 100000u

typedef struct item {
	uint32_t key, arc;    /* arc: the call that led here, PLUMB_NONE at a root */
	uint32_t depth;
	uint32_t root;        /* bottom-up: the row whose exclusive cost is shared */
	bool leave;           /* a marker: the subtree of key is done */
	bool nested;          /* reached by a recursive call: no cost shown */
	uint64_t eff;         /* the cost that orders and thresholds (primary event) */
	double frac;          /* bottom-up: share of the root's exclusive cost;
				 top-down: the scale of this row's arc cost */
} item;

typedef struct cgt {
	const plumb_profile *p;
	const plumb_view_opts *o;
	const view_events *ve;
	const plumb_metrics *m;
	plumb_table *t;
	bool bottom_up, truncated, cut_any, nested_any;
	int col_calls, col_name, col_cycle, col_file, col_module;
	uint32_t *on_path;    /* per key: times it is on the current path */
	uint64_t *entries;    /* per key: cost of the calls into its SCC from outside */
	uint8_t *hide;        /* per key: --hide matches (NULL: none) */
	PLUMB_VEC(item) stack;
	size_t rows;
} cgt;

static int add_columns(cgt *g)
{
	for (size_t i = 0; i < g->ve->n; i++) {
		int e = g->ve->ev[i];
		if (g->bottom_up) {
			if (view_add_event_column(g->t, g->p, "percent", "%", PLUMB_CELL_PCT, e) < 0 ||
			    view_add_event_column(g->t, g->p, "exclusive", "Excl.", PLUMB_CELL_U64, e) < 0)
				return -1;
		} else if (view_add_event_column(g->t, g->p, "percent", "Incl. %", PLUMB_CELL_PCT, e) < 0 ||
			   view_add_event_column(g->t, g->p, "inclusive", "Incl.", PLUMB_CELL_U64, e) < 0 ||
			   view_add_event_column(g->t, g->p, "exclusive", "Excl.", PLUMB_CELL_U64, e) < 0) {
			return -1;
		}
	}
	g->col_calls = g->bottom_up ? -2 : plumb_table_add_column(g->t, "calls", "Calls", PLUMB_CELL_U64, -1, false);
	g->col_name = plumb_table_add_column(g->t, "function", "Function", PLUMB_CELL_STR, -1, true);
	g->col_cycle = g->m->ncycles ? plumb_table_add_column(g->t, "cycle", "Cycle", PLUMB_CELL_INT, -1, false) : -2;
	g->col_file = plumb_table_add_column(g->t, "file", "File", PLUMB_CELL_STR, -1, false);
	g->col_module = plumb_table_add_column(g->t, "module", "Load module", PLUMB_CELL_STR, -1, false);
	return g->col_calls == -1 || g->col_name < 0 || g->col_cycle == -1 || g->col_file < 0 ||
	       g->col_module < 0 ? -1 : 0;
}

/* The cost of the root of a top-down tree: the key's inclusive cost, or
 * for a cycle entered from nowhere, the whole cycle's. */
static const uint64_t *root_cost(const cgt *g, const item *it)
{
	const plumb_metrics *m = g->m;
	if (it->root != PLUMB_NONE)
		return view_row_incl(m, it->root);
	return plumb_metrics_incl(m, it->key);
}

/* The name cell: the function with its cycle tag, and the recursion mark. */
static const char *name_of(cgt *g, const item *it, bool cut, bool *nomem)
{
	const char *name = view_row_label(g->t, g->p, g->m, it->key, nomem);
	if (!cut || !name)
		return name;
	size_t len = strlen(name) + sizeof " [recursive]";
	char *s = malloc(len);
	const char *kept = NULL;
	if (s) {
		memcpy(s, name, strlen(name));
		memcpy(s + strlen(name), " [recursive]", sizeof " [recursive]");
		kept = plumb_table_strdup(g->t, s);
		free(s);
	}
	if (!kept)
		*nomem = true;
	return kept;
}

static void cost_cells(cgt *g, plumb_row *r, const item *it)
{
	const plumb_metrics *m = g->m;
	size_t c = 0;
	for (size_t i = 0; i < g->ve->n; i++) {
		int e = g->ve->ev[i];
		bool known = !it->nested;
		uint64_t v = 0;
		if (g->bottom_up)
			v = (uint64_t)((double)plumb_metrics_excl(m, it->root)[e] * it->frac + 0.5);
		else if (it->arc != PLUMB_NONE)
			v = (uint64_t)((double)m->callee_attr[(size_t)it->arc * m->nevents + e] * it->frac + 0.5);
		else
			v = root_cost(g, it)[e];
		if (known)
			plumb_cell_pct(&r->cells[c], view_pct(v, m->totals[e]));
		c++;
		if (known)
			plumb_cell_u64(&r->cells[c], v);
		c++;
		if (!g->bottom_up) {
			/* Exclusive cost is known per function, not per path: roots only. */
			if (it->arc == PLUMB_NONE)
				plumb_cell_u64(&r->cells[c], plumb_metrics_excl(m, it->key)[e]);
			c++;
		}
	}
}

static int emit_row(cgt *g, const item *it, bool cut)
{
	plumb_row *r = plumb_table_add_row(g->t, PLUMB_ROW_NORMAL, it->depth);
	if (!r)
		return -1;
	cost_cells(g, r, it);
	const plumb_metrics *m = g->m;
	if (g->col_calls >= 0 && it->arc != PLUMB_NONE && m->arcs[it->arc].calls != PLUMB_COUNT_UNKNOWN)
		plumb_cell_u64(&r->cells[g->col_calls], m->arcs[it->arc].calls);
	bool nomem = false;
	plumb_cell_str(&r->cells[g->col_name], name_of(g, it, cut, &nomem));
	if (g->col_cycle >= 0 && m->cycle[it->key])
		plumb_cell_int(&r->cells[g->col_cycle], m->cycle[it->key]);
	plumb_cell_str(&r->cells[g->col_file], view_key_file(g->p, &m->keys[it->key]));
	plumb_cell_str(&r->cells[g->col_module], view_key_module(g->p, &m->keys[it->key]));
	g->cut_any |= cut;
	g->nested_any |= it->nested;
	return nomem ? -1 : 0;
}

static bool passes(const cgt *g, uint64_t eff)
{
	if (eff == 0)
		return false;
	return g->o->threshold <= 0 ||
	       view_pct(eff, g->m->totals[g->ve->primary]) >= g->o->threshold;
}

static uint64_t item_calls(const cgt *g, const item *it)
{
	return it->arc == PLUMB_NONE ? PLUMB_COUNT_UNKNOWN : g->m->arcs[it->arc].calls;
}

/* Siblings in --sort order (recursive calls last); by default, and on
 * ties, the heaviest row first. */
static int item_cmp(const void *va, const void *vb, void *ctx)
{
	const cgt *g = ctx;
	const item *a = va, *b = vb;
	if (a->nested != b->nested)
		return a->nested ? 1 : -1;
	const plumb_key *ka = &g->m->keys[a->key], *kb = &g->m->keys[b->key];
	int ev = g->ve->primary, r = 0;
	switch (g->o->sort) {
	case PLUMB_SORT_EXCLUSIVE:
		r = view_cmp_desc(plumb_metrics_excl(g->m, a->key)[ev], plumb_metrics_excl(g->m, b->key)[ev]);
		break;
	case PLUMB_SORT_CALLS:
		r = view_cmp_calls(item_calls(g, a), item_calls(g, b));
		break;
	case PLUMB_SORT_NAME:
		r = view_cmp_str(view_key_name(g->p, ka), view_key_name(g->p, kb));
		break;
	case PLUMB_SORT_FILE:
		r = view_cmp_str(view_key_file(g->p, ka), view_key_file(g->p, kb));
		break;
	case PLUMB_SORT_MODULE:
		r = view_cmp_str(view_key_module(g->p, ka), view_key_module(g->p, kb));
		break;
	case PLUMB_SORT_DEFAULT:
	case PLUMB_SORT_INCLUSIVE:
	case PLUMB_SORT_GROWTH: /* the inputs view's only */
		break;
	}
	if (!r)
		r = view_cmp_desc(a->eff, b->eff);
	if (!r)
		r = view_cmp_str(view_key_name(g->p, ka), view_key_name(g->p, kb));
	return r ? r : (a->key < b->key ? -1 : a->key > b->key);
}

/* Push items[first ..] sorted so that the heaviest pops first. */
static void push_sorted(cgt *g, size_t first)
{
	size_t n = g->stack.n - first;
	if (n == 0)
		return; /* the stack may never have grown: no pointer to sort */
	item *v = g->stack.v + first;
	qsort_r(v, n, sizeof *v, item_cmp, g);
	for (size_t i = 0; i < n / 2; i++) {
		item tmp = v[i];
		v[i] = v[n - 1 - i];
		v[n - 1 - i] = tmp;
	}
}

/* Weight of an arc in the bottom-up split: its calls, or its cost when the
 * count is not known. */
static double split_weight(const plumb_metrics *m, uint32_t a, int ev)
{
	uint64_t c = m->arcs[a].calls;
	return c != PLUMB_COUNT_UNKNOWN ? (double)c : (double)m->callee_attr[(size_t)a * m->nevents + ev];
}

/* Top-down: the share of key's activity that the row it stands for: 1 at
 * a root; else the row's cost over all the calls into key's SCC from
 * outside; inside a cycle, the share of the row that entered it. */
static double row_share(const cgt *g, const item *it)
{
	if (it->arc == PLUMB_NONE || it->nested)
		return it->arc == PLUMB_NONE ? 1.0 : it->frac;
	uint64_t in = g->entries[it->key];
	double f = in ? (double)it->eff / (double)in : 1.0;
	return f > 1.0 ? 1.0 : f;
}

/* The children of it: callees (top-down) or callers (bottom-up). */
static int push_children(cgt *g, const item *it)
{
	const plumb_metrics *m = g->m;
	int ev = g->ve->primary;
	const uint32_t *arcs = g->bottom_up ? m->in_arcs + m->in_start[it->key] : m->out_arcs + m->out_start[it->key];
	size_t n = g->bottom_up ? m->in_start[it->key + 1] - m->in_start[it->key]
				: m->out_start[it->key + 1] - m->out_start[it->key];
	double total = 0;
	for (size_t i = 0; g->bottom_up && i < n; i++)
		if (m->arcs[arcs[i]].caller != it->key)
			total += split_weight(m, arcs[i], ev);
	double share = g->bottom_up ? 0 : row_share(g, it);
	size_t first = g->stack.n;
	for (size_t i = 0; i < n; i++) {
		const plumb_metric_arc *a = &m->arcs[arcs[i]];
		uint32_t k = g->bottom_up ? a->caller : a->callee;
		/* Bottom-up, a self call adds no caller: the function is the row. */
		if ((g->bottom_up && k == it->key) || (g->hide && g->hide[k]))
			continue;
		item c = { k, arcs[i], it->depth + 1, it->root, false, false, 0, 0 };
		if (g->bottom_up) {
			c.frac = total > 0 ? it->frac * split_weight(m, arcs[i], ev) / total : 0;
			c.eff = (uint64_t)((double)plumb_metrics_excl(m, it->root)[ev] * c.frac + 0.5);
		} else if (m->arc_in_scc[arcs[i]]) {
			c.nested = true;
			c.frac = share;
			c.eff = it->eff; /* at most its caller's: enough to threshold */
		} else {
			c.frac = share;
			c.eff = (uint64_t)((double)m->callee_attr[(size_t)arcs[i] * m->nevents + ev] * share + 0.5);
		}
		if (passes(g, c.eff) && plumb_vec_push(g->stack, c))
			return -1;
	}
	push_sorted(g, first);
	return 0;
}

static int unfold(cgt *g)
{
	size_t cap = g->o->limit ? g->o->limit : CG_TREE_MAX_ROWS;
	while (g->stack.n) {
		item it = g->stack.v[--g->stack.n];
		if (it.leave) {
			g->on_path[it.key]--;
			continue;
		}
		if (g->rows >= cap) {
			g->truncated = !g->o->limit;
			break;
		}
		bool cut = g->on_path[it.key] > 0;
		if (emit_row(g, &it, cut))
			return -1;
		g->rows++;
		if (cut)
			continue;
		item leave = it;
		leave.leave = true;
		if (plumb_vec_push(g->stack, leave) || push_children(g, &it))
			return -1;
		g->on_path[it.key]++;
	}
	return 0;
}

/* entries[k]: the primary cost of the calls into k's SCC from outside it
 * (for a cycle member, into the whole cycle). */
static int count_entries(cgt *g)
{
	const plumb_metrics *m = g->m;
	int ev = g->ve->primary;
	g->entries = calloc(m->nkeys ? m->nkeys : 1, sizeof *g->entries);
	uint64_t *cyc = calloc(m->ncycles + 1, sizeof *cyc);
	if (!g->entries || !cyc) {
		free(cyc);
		return -1;
	}
	for (size_t a = 0; a < m->narcs; a++) {
		if (m->arc_in_scc[a])
			continue;
		uint32_t k = m->arcs[a].callee;
		uint64_t v = m->callee_attr[a * m->nevents + ev];
		uint64_t *slot = m->cycle[k] ? &cyc[m->cycle[k]] : &g->entries[k];
		*slot = *slot > UINT64_MAX - v ? UINT64_MAX : *slot + v;
	}
	for (size_t k = 0; k < m->nkeys; k++)
		if (m->cycle[k])
			g->entries[k] = cyc[m->cycle[k]];
	free(cyc);
	return 0;
}

/* Does any call from outside k's SCC reach k? */
static bool called_from_outside(const plumb_metrics *m, uint32_t k)
{
	for (uint32_t i = m->in_start[k]; i < m->in_start[k + 1]; i++)
		if (!m->arc_in_scc[m->in_arcs[i]])
			return true;
	return false;
}

/* The member through which a cycle entered from nowhere is shown: the one
 * with the largest inclusive cost, ties by key. */
static bool cycle_entry(const plumb_metrics *m, uint32_t k, int ev)
{
	const plumb_metric_cycle *c = plumb_metrics_cycle(m, m->cycle[k]);
	for (uint32_t i = 0; i < c->n; i++) {
		uint32_t j = m->cycle_members[c->first + i];
		if (called_from_outside(m, j))
			return false;
		uint64_t a = plumb_metrics_incl(m, j)[ev], b = plumb_metrics_incl(m, k)[ev];
		if (a > b || (a == b && j < k))
			return false;
	}
	return true;
}

/* Top-down roots: functions no other SCC calls (with --select, the
 * selected functions). Bottom-up roots: functions with exclusive cost. */
static int push_roots(cgt *g)
{
	const plumb_metrics *m = g->m;
	int ev = g->ve->primary;
	bool sel = g->o->select && g->o->select->n;
	for (uint32_t k = 0; k < m->nkeys; k++) {
		if ((g->hide && g->hide[k]) ||
		    (sel && !plumb_symspec_list_match_key(g->o->select, g->p, m->level, &m->keys[k])))
			continue;
		item it = { k, PLUMB_NONE, 0, PLUMB_NONE, false, false, 0, 1.0 };
		if (g->bottom_up) {
			it.root = k;
			it.eff = plumb_metrics_excl(m, k)[ev];
		} else if (!sel && m->cycle[k]) {
			if (!cycle_entry(m, k, ev))
				continue;
			it.root = (uint32_t)m->nkeys + m->cycle[k] - 1;
			it.eff = view_row_incl(m, it.root)[ev];
		} else {
			if (!sel && called_from_outside(m, k))
				continue;
			it.eff = plumb_metrics_incl(m, k)[ev];
		}
		if (passes(g, it.eff) && plumb_vec_push(g->stack, it))
			return -1;
	}
	push_sorted(g, 0);
	return 0;
}

static int add_notes(cgt *g)
{
	const char *what = g->bottom_up
		? "From a call graph, which has no call paths: a caller's row is an estimate, its share of the "
		  "row below in proportion to its calls."
		: "From a call graph, which has no call paths: a row's cost is its call's measured inclusive cost, "
		  "scaled to the caller's share along this path when the caller has several callers (an "
		  "estimate); exclusive cost is shown for the top rows only.";
	if (plumb_table_add_note(g->t, what))
		return -1;
	if (g->cut_any && plumb_table_add_note(g->t, "[recursive]: the function is already on the path above; "
						      "it is not expanded again."))
		return -1;
	if (g->nested_any && plumb_table_add_note(g->t, "A recursive call (to itself or within a cycle) shows no cost: "
							"its measured cost nests."))
		return -1;
	if (g->truncated && plumb_table_add_note(g->t, "The tree was cut at 100000 rows: use --threshold, "
						       "--limit or --select for less."))
		return -1;
	if (g->m->inclusive_estimated &&
	    plumb_table_add_note(g->t, view_estimate_note(g->p)))
		return -1;
	return 0;
}

int view_cg_tree(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err)
{
	view_rows r = { 0 };
	if (view_events_of(p, o, &r.ve, err) || view_metrics(p, o, PLUMB_LEVEL_FUNCTION, true, &r.m, err))
		return -1;
	cgt g = { p, o, &r.ve, r.m, NULL, o->kind == PLUMB_VIEW_BOTTOM_UP, false, false, false,
		  -1, -1, -1, -1, -1, NULL, NULL, NULL, { 0 }, 0 };
	g.on_path = calloc(r.m->nkeys ? r.m->nkeys : 1, sizeof *g.on_path);
	if (!g.on_path)
		goto nomem;
	if (o->hide && o->hide->n) {
		if (!(g.hide = malloc(r.m->nkeys ? r.m->nkeys : 1)))
			goto nomem;
		for (size_t k = 0; k < r.m->nkeys; k++)
			g.hide[k] = plumb_symspec_list_match_key(o->hide, p, r.m->level, &r.m->keys[k]);
	}
	g.t = plumb_table_new(plumb_view_name(o->kind),
			      g.bottom_up ? "Bottom-up: functions by exclusive cost, callers below"
					  : "Call tree: top-down, callees below their callers");
	if (!g.t || add_columns(&g) || count_entries(&g) || push_roots(&g) || unfold(&g) || add_notes(&g))
		goto nomem;
	free(g.entries);
	free(g.on_path);
	free(g.hide);
	free(g.stack.v);
	view_rows_free(&r);
	*out = g.t;
	return 0;
nomem:
	plumb_fail_nomem(err);
	plumb_table_free(g.t);
	free(g.entries);
	free(g.on_path);
	free(g.hide);
	free(g.stack.v);
	view_rows_free(&r);
	return -1;
}
