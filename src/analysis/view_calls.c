/* callers / callees / butterfly: for each selected function, the functions
 * that call it and that it calls, with attributed metrics (seed 004) and
 * call counts. A caller row holds the callee's view of the arc (caller
 * attribution); a callee row the caller's view (callee attribution). */
#include <stdlib.h>

#include "analysis/view_internal.h"

typedef struct calls_ctx {
	const plumb_profile *p;
	const plumb_metrics *m;
	const view_events *ve;
	plumb_table *t;
	int col_calls, col_name, col_cycle, col_file, col_module;
	bool tagged;   /* some row names a cycle: the table explains them */
	bool nested;   /* some recursive call's cost was left out */
} calls_ctx;

static int add_columns(calls_ctx *c)
{
	for (size_t i = 0; i < c->ve->n; i++) {
		int e = c->ve->ev[i];
		if (view_add_event_column(c->t, c->p, "percent", "%", PLUMB_CELL_PCT, e) < 0 ||
		    view_add_event_column(c->t, c->p, "exclusive", "Excl.", PLUMB_CELL_U64, e) < 0 ||
		    view_add_event_column(c->t, c->p, "attributed", "Incl./Attr.", PLUMB_CELL_U64, e) < 0)
			return -1;
	}
	c->col_calls = plumb_table_add_column(c->t, "calls", "Calls", PLUMB_CELL_U64, -1, false);
	c->col_name = plumb_table_add_column(c->t, "function", "Function", PLUMB_CELL_STR, -1, true);
	c->col_cycle = c->m->ncycles ? plumb_table_add_column(c->t, "cycle", "Cycle", PLUMB_CELL_INT, -1, false) : -2;
	c->col_file = plumb_table_add_column(c->t, "file", "File", PLUMB_CELL_STR, -1, false);
	c->col_module = plumb_table_add_column(c->t, "module", "Load module", PLUMB_CELL_STR, -1, false);
	return c->col_calls < 0 || c->col_name < 0 || c->col_cycle == -1 || c->col_file < 0 ||
	       c->col_module < 0 ? -1 : 0;
}

/* One row: row id k (a key or a cycle) with cost vector v (attributed or
 * inclusive; NULL: not shown) and, for the focus row, its exclusive. */
static int add_row(calls_ctx *c, plumb_row_kind kind, uint32_t k, const uint64_t *v,
		   const uint64_t *excl, uint64_t calls)
{
	plumb_row *r = plumb_table_add_row(c->t, kind, kind == PLUMB_ROW_FOCUS ? 0 : 1);
	if (!r)
		return -1;
	size_t col = 0;
	for (size_t i = 0; i < c->ve->n; i++) {
		int e = c->ve->ev[i];
		if (v)
			plumb_cell_pct(&r->cells[col], view_pct(v[e], c->m->totals[e]));
		col++;
		if (excl)
			plumb_cell_u64(&r->cells[col], excl[e]);
		col++;
		if (v)
			plumb_cell_u64(&r->cells[col], v[e]);
		col++;
	}
	if (calls != PLUMB_COUNT_UNKNOWN)
		plumb_cell_u64(&r->cells[c->col_calls], calls);
	bool nomem = false;
	plumb_cell_str(&r->cells[c->col_name], view_row_label(c->t, c->p, c->m, k, &nomem));
	if (c->col_cycle >= 0 && view_cycle_number(c->m, k)) {
		plumb_cell_int(&r->cells[c->col_cycle], view_cycle_number(c->m, k));
		c->tagged = true;
	}
	if (view_is_cycle(c->m, k))
		return nomem ? -1 : 0;
	const plumb_key *key = &c->m->keys[k];
	plumb_cell_str(&r->cells[c->col_file], view_key_file(c->p, key));
	plumb_cell_str(&r->cells[c->col_module], view_key_module(c->p, key));
	return nomem ? -1 : 0;
}

typedef struct arc_sort {
	const plumb_profile *p;
	const plumb_metrics *m;
	const uint64_t *attr;
	bool callers;
	int ev;
} arc_sort;

static int arc_cmp(const void *va, const void *vb, void *ctx)
{
	const arc_sort *s = ctx;
	uint32_t a = *(const uint32_t *)va, b = *(const uint32_t *)vb;
	/* Recursive calls, whose costs nest, after the others. */
	if (s->m->arc_in_scc[a] != s->m->arc_in_scc[b])
		return s->m->arc_in_scc[a] ? 1 : -1;
	uint64_t x = s->attr[(size_t)a * s->m->nevents + s->ev];
	uint64_t y = s->attr[(size_t)b * s->m->nevents + s->ev];
	if (x != y)
		return x < y ? 1 : -1;
	/* Not by index: the arcs' order depends on how the profile was read. */
	const plumb_metric_arc *ra = &s->m->arcs[a], *rb = &s->m->arcs[b];
	int r = s->callers ? view_cmp_key_names(s->p, s->m, ra->caller, rb->caller)
			   : view_cmp_key_names(s->p, s->m, ra->callee, rb->callee);
	return r ? r : (a > b) - (a < b);
}

uint32_t *view_sorted_arcs(const plumb_profile *p, const plumb_metrics *m, const uint32_t *arcs,
			   size_t n, bool callers, int ev)
{
	uint32_t *v = malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = arcs[i];
	arc_sort s = { p, m, callers ? m->caller_attr : m->callee_attr, callers, ev };
	qsort_r(v, n, sizeof *v, arc_cmp, &s);
	return v;
}

/* The arcs of one side, heaviest first. */
static int side_rows(calls_ctx *c, const uint32_t *arcs, size_t n, bool callers)
{
	uint32_t *v = view_sorted_arcs(c->p, c->m, arcs, n, callers, c->ve->primary);
	if (!v)
		return -1;
	const uint64_t *attr = callers ? c->m->caller_attr : c->m->callee_attr;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const plumb_metric_arc *a = &c->m->arcs[v[i]];
		/* A recursive call's measured cost nests (a call inside it counts
		 * again): like gprof, show its count only. */
		bool nested = c->m->arc_in_scc[v[i]];
		c->nested |= nested;
		rc = add_row(c, callers ? PLUMB_ROW_CALLER : PLUMB_ROW_CALLEE,
			     callers ? a->caller : a->callee,
			     nested ? NULL : attr + (size_t)v[i] * c->m->nevents, NULL, a->calls);
	}
	free(v);
	return rc;
}

/* A cycle as a whole (gprof's "<cycle N as a whole>"): the calls into it
 * from outside above, its members below with their inclusive costs, which
 * add up to the cycle's. */
static int cycle_block(calls_ctx *c, plumb_view_kind kind, uint32_t id)
{
	const plumb_metrics *m = c->m;
	const plumb_metric_cycle *cy = &m->cycles[id - m->nkeys];
	uint32_t num = view_cycle_number(m, id);
	if (kind != PLUMB_VIEW_CALLEES) {
		size_t n = 0;
		for (uint32_t i = 0; i < cy->n; i++) {
			uint32_t k = m->cycle_members[cy->first + i];
			n += m->in_start[k + 1] - m->in_start[k];
		}
		uint32_t *in = malloc((n ? n : 1) * sizeof *in);
		if (!in)
			return -1;
		n = 0;
		for (uint32_t i = 0; i < cy->n; i++) {
			uint32_t k = m->cycle_members[cy->first + i];
			for (uint32_t j = m->in_start[k]; j < m->in_start[k + 1]; j++)
				if (m->cycle[m->arcs[m->in_arcs[j]].caller] != num)
					in[n++] = m->in_arcs[j];
		}
		int rc = side_rows(c, in, n, true);
		free(in);
		if (rc)
			return -1;
	}
	if (add_row(c, PLUMB_ROW_FOCUS, id, view_row_incl(m, id), view_row_excl(m, id),
		    view_row_calls(m, id)))
		return -1;
	for (uint32_t i = 0; kind != PLUMB_VIEW_CALLERS && i < cy->n; i++) {
		uint32_t k = m->cycle_members[cy->first + i];
		if (add_row(c, PLUMB_ROW_CALLEE, k, plumb_metrics_incl(m, k), NULL, m->calls[k]))
			return -1;
	}
	return 0;
}

static int block(calls_ctx *c, plumb_view_kind kind, uint32_t k, bool first)
{
	const plumb_metrics *m = c->m;
	if (!first && !plumb_table_add_row(c->t, PLUMB_ROW_SEPARATOR, 0))
		return -1;
	if (view_is_cycle(m, k))
		return cycle_block(c, kind, k);
	if (kind != PLUMB_VIEW_CALLEES &&
	    side_rows(c, m->in_arcs + m->in_start[k], m->in_start[k + 1] - m->in_start[k], true))
		return -1;
	if (add_row(c, PLUMB_ROW_FOCUS, k, plumb_metrics_incl(m, k), plumb_metrics_excl(m, k),
		    m->calls[k]))
		return -1;
	if (kind != PLUMB_VIEW_CALLERS &&
	    side_rows(c, m->out_arcs + m->out_start[k], m->out_start[k + 1] - m->out_start[k], false))
		return -1;
	return 0;
}

int view_calls(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err)
{
	static const char *const titles[] = {
		[PLUMB_VIEW_CALLERS] = "Callers (attributed to each caller's call)",
		[PLUMB_VIEW_CALLEES] = "Callees (attributed to each call)",
		[PLUMB_VIEW_BUTTERFLY] = "Callers and callees: callers above each function, callees below",
	};
	/* Without --select every function gets a block, heaviest inclusive first. */
	view_rows r;
	if (view_rows_prepare(p, o, PLUMB_LEVEL_FUNCTION, true, true, &r, err))
		return -1;
	calls_ctx c = { p, r.m, &r.ve, NULL, -1, -1, -1, -1, -1, false, false };
	c.t = plumb_table_new(plumb_view_name(o->kind), titles[o->kind]);
	if (!c.t || add_columns(&c))
		goto nomem;
	for (size_t i = 0; i < r.n; i++)
		if (block(&c, o->kind, r.keys[i], i == 0))
			goto nomem;
	if (r.m->inclusive_estimated &&
	    plumb_table_add_note(c.t, view_estimate_note(p)))
		goto nomem;
	if ((c.tagged && plumb_table_add_note(c.t, VIEW_CYCLE_NOTE)) ||
	    (c.nested && plumb_table_add_note(c.t, "A recursive call (to itself or within a cycle) shows its count "
						   "only: its measured cost nests, as calls inside it count again.")))
		goto nomem;
	view_rows_free(&r);
	*out = c.t;
	return 0;
nomem:
	plumb_fail_nomem(err);
	plumb_table_free(c.t);
	view_rows_free(&r);
	return -1;
}
