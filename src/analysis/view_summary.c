/* The function summary every JSON document carries (plumb/table.h): the
 * events shown and their totals, then each selected function with its
 * callers and callees, and the cycles. Built from function-level metrics
 * into the table's arena, so that the writer only reads. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/view_internal.h"

typedef struct summary_ctx {
	plumb_table *t;
	const plumb_profile *p;
	const plumb_metrics *m;
	const view_events *ve;
	plumb_table_ref *refs;   /* one per key, strings copied once */
} summary_ctx;

/* The shown events' values of v (one per event of the profile). */
static const uint64_t *costs(summary_ctx *c, const uint64_t *v)
{
	uint64_t *out = plumb_table_alloc(c->t, c->ve->n * sizeof *out);
	if (out)
		for (size_t i = 0; i < c->ve->n; i++)
			out[i] = v[c->ve->ev[i]];
	return out;
}

/* Copy s into the arena; *ok is cleared when memory runs out. */
static const char *keep(summary_ctx *c, const char *s, bool *ok)
{
	if (!s)
		return NULL;
	const char *copy = plumb_table_strdup(c->t, s);
	if (!copy)
		*ok = false;
	return copy;
}

static int make_refs(summary_ctx *c)
{
	const plumb_metrics *m = c->m;
	c->refs = plumb_table_alloc(c->t, m->nkeys * sizeof *c->refs);
	if (!c->refs)
		return -1;
	bool ok = true;
	for (size_t k = 0; k < m->nkeys && ok; k++) {
		const plumb_key *key = &m->keys[k];
		c->refs[k] = (plumb_table_ref){
			.name = keep(c, view_key_name(c->p, key), &ok),
			.file = keep(c, view_key_file(c->p, key), &ok),
			.module = keep(c, view_key_module(c->p, key), &ok),
			.cycle = m->cycle[k],
		};
	}
	return ok ? 0 : -1;
}

static int make_arcs(summary_ctx *c, const uint32_t *unsorted, size_t n, bool callers,
		     const plumb_table_arc **out)
{
	const plumb_metrics *m = c->m;
	plumb_table_arc *v = plumb_table_alloc(c->t, n * sizeof *v);
	uint32_t *arcs = view_sorted_arcs(c->p, m, unsorted, n, callers, c->ve->primary);
	int rc = v && arcs ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const plumb_metric_arc *a = &m->arcs[arcs[i]];
		const uint64_t *attr = (callers ? m->caller_attr : m->callee_attr) +
				       (size_t)arcs[i] * m->nevents;
		v[i] = (plumb_table_arc){
			.other = c->refs[callers ? a->caller : a->callee],
			.calls = a->calls,
			.recursive = m->arc_in_scc[arcs[i]] != 0,
			.attributed = costs(c, attr),
		};
		if (!v[i].attributed)
			rc = -1;
	}
	free(arcs);
	*out = v;
	return rc;
}

static int make_function(summary_ctx *c, uint32_t k, plumb_table_function *f)
{
	const plumb_metrics *m = c->m;
	const plumb_key *key = &m->keys[k];
	*f = (plumb_table_function){
		.ref = c->refs[k],
		.line = key->function != PLUMB_NONE ? c->p->functions.v[key->function].line : 0,
		.exclusive = costs(c, plumb_metrics_excl(m, k)),
		.inclusive = costs(c, plumb_metrics_incl(m, k)),
		.calls = m->calls[k],
		.ncallers = m->in_start[k + 1] - m->in_start[k],
		.ncallees = m->out_start[k + 1] - m->out_start[k],
	};
	if (!f->exclusive || !f->inclusive)
		return -1;
	return make_arcs(c, m->in_arcs + m->in_start[k], f->ncallers, true, &f->callers) ||
	       make_arcs(c, m->out_arcs + m->out_start[k], f->ncallees, false, &f->callees);
}

static int make_cycles(summary_ctx *c, plumb_table_summary *s)
{
	const plumb_metrics *m = c->m;
	plumb_table_cycle *v = plumb_table_alloc(c->t, m->ncycles * sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < m->ncycles; i++) {
		const plumb_metric_cycle *cy = &m->cycles[i];
		plumb_table_ref *members = plumb_table_alloc(c->t, cy->n * sizeof *members);
		if (!members)
			return -1;
		for (uint32_t j = 0; j < cy->n; j++)
			members[j] = c->refs[m->cycle_members[cy->first + j]];
		v[i] = (plumb_table_cycle){
			.number = (uint32_t)i + 1,
			.exclusive = costs(c, m->cycle_exclusive + i * m->nevents),
			.inclusive = costs(c, m->cycle_inclusive + i * m->nevents),
			.calls = cy->calls,
			.nmembers = cy->n,
			.members = members,
		};
		if (!v[i].exclusive || !v[i].inclusive)
			return -1;
	}
	s->cycles = v;
	s->ncycles = m->ncycles;
	return 0;
}

static int make_events(summary_ctx *c, plumb_table_summary *s)
{
	const plumb_profile *p = c->p;
	plumb_table_event *v = plumb_table_alloc(c->t, c->ve->n * sizeof *v);
	bool ok = v != NULL;
	for (size_t i = 0; ok && i < c->ve->n; i++) {
		const plumb_event *e = &p->events.v[c->ve->ev[i]];
		v[i] = (plumb_table_event){
			.name = keep(c, plumb_str(p, e->name), &ok),
			.description = keep(c, plumb_str(p, e->long_name != PLUMB_NONE ? e->long_name
										: e->name), &ok),
			.unit = keep(c, plumb_str(p, e->unit), &ok),
			.formula = e->formula != PLUMB_NONE ? keep(c, plumb_str(p, e->formula), &ok) : NULL,
			.period = plumb_event_period(p, c->ve->ev[i]),
		};
		const char *cu;
		v[i].count = plumb_event_count(p, c->ve->ev[i], &cu);
		if (v[i].count)
			v[i].count_unit = keep(c, cu ? cu : "events", &ok);
	}
	s->events = v;
	s->nevents = c->ve->n;
	return ok ? 0 : -1;
}

int view_add_summary(const plumb_profile *p, const plumb_view_opts *o, plumb_table *t,
		     plumb_error *err)
{
	/* Functions are listed in the call views' order in those views and in
	 * the flat view's order everywhere else. */
	plumb_view_opts fo = *o;
	if (o->kind != PLUMB_VIEW_CALLERS && o->kind != PLUMB_VIEW_CALLEES &&
	    o->kind != PLUMB_VIEW_BUTTERFLY)
		fo.kind = PLUMB_VIEW_FLAT;
	view_rows r;
	if (view_rows_prepare(p, &fo, PLUMB_LEVEL_FUNCTION, false, true, &r, err))
		return -1;
	summary_ctx c = { .t = t, .p = p, .m = r.m, .ve = &r.ve };
	plumb_table_summary *s = plumb_table_alloc(t, sizeof *s);
	plumb_table_function *fns = plumb_table_alloc(t, r.n * sizeof *fns);
	int rc = s && fns && make_refs(&c) == 0 && make_events(&c, s) == 0 ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < r.n; i++) {
		assert(!view_is_cycle(r.m, r.keys[i]));
		rc = make_function(&c, r.keys[i], &fns[i]);
	}
	if (rc == 0)
		rc = make_cycles(&c, s);
	if (rc == 0 && !(s->totals = costs(&c, r.m->totals)))
		rc = -1;
	if (rc == 0) {
		s->inclusive_estimated = r.m->inclusive_estimated;
		s->functions = fns;
		s->nfunctions = r.n;
		t->summary = s;
	}
	view_rows_free(&r);
	return rc ? plumb_fail_nomem(err) : 0;
}
