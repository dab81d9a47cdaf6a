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
	int col_calls, col_name, col_file, col_module;
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
	c->col_file = plumb_table_add_column(c->t, "file", "File", PLUMB_CELL_STR, -1, false);
	c->col_module = plumb_table_add_column(c->t, "module", "Load module", PLUMB_CELL_STR, -1, false);
	return c->col_calls < 0 || c->col_name < 0 || c->col_file < 0 || c->col_module < 0 ? -1 : 0;
}

/* One row: key k with cost vector v (attributed or inclusive) and, for the
 * focus row, its exclusive. */
static int add_row(calls_ctx *c, plumb_row_kind kind, uint32_t k, const uint64_t *v,
		   const uint64_t *excl, uint64_t calls)
{
	plumb_row *r = plumb_table_add_row(c->t, kind, kind == PLUMB_ROW_FOCUS ? 0 : 1);
	if (!r)
		return -1;
	size_t col = 0;
	for (size_t i = 0; i < c->ve->n; i++) {
		int e = c->ve->ev[i];
		plumb_cell_pct(&r->cells[col++], view_pct(v[e], c->m->totals[e]));
		if (excl)
			plumb_cell_u64(&r->cells[col], excl[e]);
		col++;
		plumb_cell_u64(&r->cells[col++], v[e]);
	}
	if (calls != PLUMB_COUNT_UNKNOWN)
		plumb_cell_u64(&r->cells[c->col_calls], calls);
	const plumb_key *key = &c->m->keys[k];
	plumb_cell_str(&r->cells[c->col_name], view_key_name(c->p, key));
	plumb_cell_str(&r->cells[c->col_file], view_key_file(c->p, key));
	plumb_cell_str(&r->cells[c->col_module], view_key_module(c->p, key));
	return 0;
}

static int arc_cmp(const void *va, const void *vb, void *ctx)
{
	const view_arc_sort *s = ctx;
	uint32_t a = *(const uint32_t *)va, b = *(const uint32_t *)vb;
	uint64_t x = s->attr[(size_t)a * s->m->nevents + s->ev];
	uint64_t y = s->attr[(size_t)b * s->m->nevents + s->ev];
	if (x != y)
		return x < y ? 1 : -1;
	return a < b ? -1 : a > b;
}

uint32_t *view_sorted_arcs(const plumb_metrics *m, const uint32_t *arcs, size_t n, bool callers,
			   int ev)
{
	uint32_t *v = malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = arcs[i];
	view_arc_sort s = { m, callers ? m->caller_attr : m->callee_attr, ev };
	qsort_r(v, n, sizeof *v, arc_cmp, &s);
	return v;
}

/* The arcs of one side, heaviest first. */
static int side_rows(calls_ctx *c, const uint32_t *arcs, size_t n, bool callers)
{
	uint32_t *v = view_sorted_arcs(c->m, arcs, n, callers, c->ve->primary);
	if (!v)
		return -1;
	const uint64_t *attr = callers ? c->m->caller_attr : c->m->callee_attr;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const plumb_metric_arc *a = &c->m->arcs[v[i]];
		rc = add_row(c, callers ? PLUMB_ROW_CALLER : PLUMB_ROW_CALLEE,
			     callers ? a->caller : a->callee, attr + (size_t)v[i] * c->m->nevents,
			     NULL, a->calls);
	}
	free(v);
	return rc;
}

static int block(calls_ctx *c, plumb_view_kind kind, uint32_t k, bool first)
{
	const plumb_metrics *m = c->m;
	if (!first && !plumb_table_add_row(c->t, PLUMB_ROW_SEPARATOR, 0))
		return -1;
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
	if (view_rows_prepare(p, o, PLUMB_LEVEL_FUNCTION, &r, err))
		return -1;
	calls_ctx c = { p, r.m, &r.ve, NULL, -1, -1, -1, -1 };
	c.t = plumb_table_new(plumb_view_name(o->kind), titles[o->kind]);
	if (!c.t || add_columns(&c))
		goto nomem;
	for (size_t i = 0; i < r.n; i++)
		if (block(&c, o->kind, r.keys[i], i == 0))
			goto nomem;
	if (r.m->inclusive_estimated &&
	    plumb_table_add_note(c.t, "Inclusive and attributed costs are estimates: the call graph has no inclusive cost for some calls."))
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
