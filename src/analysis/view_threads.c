/* threads: one row per part (thread, process, dump) with its share of each
 * event, labelled like seed 003's "Kernel Thread ID": the id, the thread's
 * name and the routine it started with. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/view_internal.h"

static const char *kind_name(plumb_part_kind k)
{
	switch (k) {
	case PLUMB_PART_THREAD:
		return "thread";
	case PLUMB_PART_PROCESS:
		return "process";
	case PLUMB_PART_DUMP:
		return "dump";
	case PLUMB_PART_WHOLE:
		break;
	}
	return "whole";
}

typedef struct part_sort {
	const uint64_t *cost;
	size_t nev;
	int ev;
} part_sort;

static int part_cmp(const void *va, const void *vb, void *ctx)
{
	const part_sort *s = ctx;
	uint32_t a = *(const uint32_t *)va, b = *(const uint32_t *)vb;
	uint64_t x = s->cost[a * s->nev + s->ev], y = s->cost[b * s->nev + s->ev];
	if (x != y)
		return x < y ? 1 : -1;
	return a < b ? -1 : a > b;
}

int view_threads(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err)
{
	view_events ve;
	if (view_events_of(p, o, &ve, err))
		return -1;
	if ((o->select && o->select->n) || (o->hide && o->hide->n))
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "--select and --hide name functions, files and lines; the threads view "
				  "has none (use --focus to keep the stacks through a function)");
	if (o->sort != PLUMB_SORT_DEFAULT && o->sort != PLUMB_SORT_EXCLUSIVE &&
	    o->sort != PLUMB_SORT_INCLUSIVE)
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "the threads view sorts by cost only (--sort exclusive)");
	size_t nev = p->events.n, np = p->parts.n;
	uint64_t *cost = calloc((np ? np : 1) * nev + nev, sizeof *cost);
	uint64_t *total = cost + np * nev;
	uint32_t *order = malloc((np ? np : 1) * sizeof *order);
	uint8_t *pass = NULL;
	plumb_table *t = NULL;
	if (!cost || !order || plumb_cct_select(p, PLUMB_NONE, o->focus, &pass, NULL))
		goto nomem;
	for (size_t i = 0; i < p->cct.n; i++)
		if (pass[i] && (plumb_costs_add(cost + p->cct.v[i].part * nev, plumb_cct_self(p, (plumb_id)i), nev, err) ||
				plumb_costs_add(total, plumb_cct_self(p, (plumb_id)i), nev, err)))
			goto fail;
	for (size_t i = 0; i < p->cg_self.n; i++)
		if (plumb_costs_add(cost + p->cg_self.v[i].part * nev, p->cg_self_cost.v + i * nev, nev, err) ||
		    plumb_costs_add(total, p->cg_self_cost.v + i * nev, nev, err))
			goto fail;
	t = plumb_table_new("threads", "Parts: threads, processes and dumps");
	if (!t)
		goto nomem;
	for (size_t i = 0; i < ve.n; i++)
		if (view_add_event_column(t, p, "percent", "%", PLUMB_CELL_PCT, ve.ev[i]) < 0 ||
		    view_add_event_column(t, p, "exclusive", "Excl.", PLUMB_CELL_U64, ve.ev[i]) < 0)
			goto nomem;
	int c_num = plumb_table_add_column(t, "part", "Part", PLUMB_CELL_INT, -1, false);
	int c_label = plumb_table_add_column(t, "thread", "Thread", PLUMB_CELL_STR, -1, true);
	int c_start = plumb_table_add_column(t, "start", "Start routine", PLUMB_CELL_STR, -1, false);
	int c_pid = plumb_table_add_column(t, "pid", "PID", PLUMB_CELL_INT, -1, false);
	int c_kind = plumb_table_add_column(t, "kind", "Kind", PLUMB_CELL_STR, -1, false);
	if (c_num < 0 || c_label < 0 || c_start < 0 || c_pid < 0 || c_kind < 0)
		goto nomem;
	size_t n = 0;
	for (size_t i = 0; i < np; i++) {
		bool zero = true;
		for (size_t e = 0; e < nev; e++)
			zero &= cost[i * nev + e] == 0;
		bool below = o->threshold > 0 &&
			     view_pct(cost[i * nev + ve.primary], total[ve.primary]) < o->threshold;
		bool other = o->part != PLUMB_NONE && o->part != i;
		if ((!zero || np == 1) && !below && !other)
			order[n++] = (uint32_t)i;
	}
	part_sort ps = { cost, nev, ve.primary };
	qsort_r(order, n, sizeof *order, part_cmp, &ps);
	if (o->limit && n > o->limit)
		n = o->limit;
	for (size_t j = 0; j < n; j++) {
		uint32_t i = order[j];
		const plumb_part *part = &p->parts.v[i];
		plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, 0);
		if (!r)
			goto nomem;
		size_t c = 0;
		for (size_t k = 0; k < ve.n; k++) {
			int e = ve.ev[k];
			plumb_cell_pct(&r->cells[c++], view_pct(cost[i * nev + e], total[e]));
			plumb_cell_u64(&r->cells[c++], cost[i * nev + e]);
		}
		char buf[512];
		plumb_cell_int(&r->cells[c_num], (int64_t)i + 1); /* what --part takes */
		view_part_label(p, part, i, buf, sizeof buf);
		plumb_cell_str(&r->cells[c_label], plumb_table_strdup(t, buf));
		if (part->start_function != PLUMB_NONE)
			plumb_cell_str(&r->cells[c_start], plumb_function_name(p, part->start_function));
		if (part->pid >= 0)
			plumb_cell_int(&r->cells[c_pid], part->pid);
		plumb_cell_str(&r->cells[c_kind], kind_name(part->kind));
	}
	free(cost);
	free(order);
	free(pass);
	*out = t;
	return 0;
nomem:
	plumb_fail_nomem(err);
fail:
	plumb_table_free(t);
	free(cost);
	free(order);
	free(pass);
	return -1;
}
