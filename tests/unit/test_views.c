/* Views over a profile with two events: every event gets its columns, or
 * only the one --metric picks; sorting and percentages use that event. */
#include <criterion/criterion.h>
#include <string.h>

#include "plumb/analysis.h"
#include "plumb/output.h"

static plumb_profile *two_events(void)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "cycles", "CPU cycles", "cycles", &err), 0);
	cr_assert_geq(plumb_event_add(p, "misses", "Cache misses", "events", &err), 0);
	plumb_id part = plumb_part_default(p);
	const char *names[] = { "main", "hot_cpu", "hot_mem" };
	plumb_id fr[3];
	for (int i = 0; i < 3; i++)
		fr[i] = plumb_frame_intern(p, plumb_function_intern(p, names[i], NULL, PLUMB_NONE, PLUMB_NONE, 0),
					   PLUMB_NONE, 0, 0);
	plumb_id cpu[2] = { fr[0], fr[1] }, mem[2] = { fr[0], fr[2] };
	uint64_t c1[2] = { 900, 10 }, c2[2] = { 100, 90 };
	cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, part, cpu, 2), c1, &err), 0);
	cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, part, mem, 2), c2, &err), 0);
	return p;
}

static int col(const plumb_table *t, const char *key)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].key, key) == 0)
			return (int)c;
	return -1;
}

Test(views, flat_has_columns_for_every_event)
{
	plumb_profile *p = two_events();
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	plumb_table *t = NULL;
	plumb_error err;
	cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
	cr_assert_geq(col(t, "exclusive.cycles"), 0);
	cr_assert_geq(col(t, "exclusive.misses"), 0);
	cr_assert_geq(col(t, "percent.misses"), 0);
	int fn = col(t, "function");
	/* Sorted by the first event: hot_cpu first. */
	cr_expect_str_eq(t->rows[0].cells[fn].s, "hot_cpu");
	cr_expect_eq(t->rows[0].cells[col(t, "exclusive.misses")].u, 10);
	plumb_table_free(t);
	plumb_profile_free(p);
}

Test(views, metric_picks_one_event_and_sorts_by_it)
{
	plumb_profile *p = two_events();
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	o.metric = plumb_event_find(p, "misses");
	plumb_table *t = NULL;
	plumb_error err;
	cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
	cr_expect_lt(col(t, "exclusive.cycles"), 0);
	int fn = col(t, "function"), pct = col(t, "percent.misses");
	cr_expect_str_eq(t->rows[0].cells[fn].s, "hot_mem");
	cr_expect_float_eq(t->rows[0].cells[pct].pct, 90.0, 1e-9);
	plumb_table_free(t);
	plumb_profile_free(p);
}

Test(views, derived_event_is_computed)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	plumb_event_add(p, "Ir", NULL, NULL, &err);
	plumb_event_add(p, "Dr", NULL, NULL, &err);
	cr_assert_geq(plumb_event_add_derived(p, "Sum", NULL, "Ir + 2 * Dr", &err), 0, "%s", err.message);
	plumb_id part = plumb_part_default(p);
	plumb_id fr = plumb_frame_intern(p, plumb_function_intern(p, "f", NULL, PLUMB_NONE, PLUMB_NONE, 0),
					 PLUMB_NONE, 0, 0);
	uint64_t c[3] = { 5, 7, 0 };
	cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, part, &fr, 1), c, &err), 0);
	cr_assert_eq(plumb_profile_compute_derived(p, &err), 0);
	uint64_t tot[3];
	cr_assert_eq(plumb_profile_totals(p, tot, &err), 0);
	cr_expect_eq(tot[2], 19);
	plumb_profile_free(p);
	/* A formula naming an unknown event is refused, saying which. */
	p = plumb_profile_new();
	plumb_event_add(p, "Ir", NULL, NULL, &err);
	cr_expect_eq(plumb_event_add_derived(p, "Bad", NULL, "Ir + Nope", &err), -1);
	cr_expect(strstr(err.message, "unknown event 'Nope'") != NULL, "%s", err.message);
	plumb_profile_free(p);
}

/* Callgrind's own form leaves out the '*': "2 Dr" is 2 * Dr; "2 +" is not a term. */
Test(views, derived_event_without_star)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	plumb_event_add(p, "Ir", NULL, NULL, &err);
	plumb_event_add(p, "Dr", NULL, NULL, &err);
	int ev = plumb_event_add_derived(p, "Sum", NULL, "Ir + 2 Dr - 3*Ir", &err);
	cr_assert_geq(ev, 0, "%s", err.message);
	const plumb_event *e = &p->events.v[ev];
	cr_assert_eq(e->nterms, 3);
	cr_expect_eq(e->terms[1].coef, 2);
	cr_expect_eq(e->terms[1].event, 1);
	cr_expect_eq(e->terms[2].coef, -3);
	cr_expect_eq(plumb_event_add_derived(p, "Bad", NULL, "Ir + 2 +", &err), -1);
	plumb_profile_free(p);
}

/* ---- views of a call graph (Callgrind's shape) ------------------------------ */

/* main -> A <-> B, A -> C, B -> C; the numbers are worked out in
 * test_cycles.c (mutual): total 37, A 12, B 18, <cycle 1> 30, C 20. */
static plumb_profile *call_graph(void)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "Ir", NULL, NULL, &err), 0);
	plumb_id part = plumb_part_default(p);
	const char *names[] = { "main", "A", "B", "C" };
	uint64_t self[] = { 7, 4, 6, 20 };
	plumb_id fr[4];
	for (int i = 0; i < 4; i++) {
		fr[i] = plumb_frame_intern(p, plumb_function_intern(p, names[i], NULL, PLUMB_NONE, PLUMB_NONE, 0),
					   PLUMB_NONE, 0, 0);
		cr_assert_eq(plumb_cg_add_self(p, part, fr[i], &self[i], &err), 0);
	}
	struct { int from, to; uint64_t calls, incl; } arcs[] = {
		{ 0, 1, 1, 30 }, { 1, 2, 2, 43 }, { 2, 1, 1, 25 }, { 2, 3, 1, 12 }, { 1, 3, 1, 8 },
	};
	for (int i = 0; i < 5; i++)
		cr_assert_geq(plumb_arc_add(p, part, fr[arcs[i].from], p->frames.v[fr[arcs[i].to]].function,
					    arcs[i].calls, &arcs[i].incl, &err), 0);
	return p;
}

static plumb_table *view_of(const plumb_profile *p, plumb_view_kind kind, bool no_cycles)
{
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	o.kind = kind;
	o.no_cycles = no_cycles;
	plumb_table *t = NULL;
	plumb_error err;
	cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
	return t;
}

static const char *cell_s(const plumb_table *t, size_t row, const char *key)
{
	int c = col(t, key);
	cr_assert_geq(c, 0, "no column %s", key);
	return t->rows[row].cells[c].type == PLUMB_CELL_STR ? t->rows[row].cells[c].s : NULL;
}

/* A u64 cell, or -1 for null. */
static long long cell_u(const plumb_table *t, size_t row, const char *key)
{
	int c = col(t, key);
	cr_assert_geq(c, 0, "no column %s", key);
	return t->rows[row].cells[c].type == PLUMB_CELL_U64 ? (long long)t->rows[row].cells[c].u : -1;
}

/* The flat view: by exclusive cost, C 20, <cycle 1> 10 (self 4 + 6,
 * inclusive 30, entered once), main 7, B 6, A 4; members tagged. */
Test(views, flat_call_graph_with_cycle_rows)
{
	plumb_profile *p = call_graph();
	plumb_table *t = view_of(p, PLUMB_VIEW_FLAT, false);
	const char *want[] = { "C", "<cycle 1>", "main", "B <cycle 1>", "A <cycle 1>" };
	long long incl[] = { 20, 30, 37, 18, 12 }, calls[] = { 2, 1, -1, 2, 2 };
	cr_assert_eq(t->nrows, 5);
	for (size_t i = 0; i < 5; i++) {
		cr_expect_str_eq(cell_s(t, i, "function"), want[i]);
		cr_expect_eq(cell_u(t, i, "inclusive.Ir"), incl[i], "row %zu", i);
		cr_expect_eq(cell_u(t, i, "calls"), calls[i] < 0 ? 0 : calls[i], "row %zu", i);
	}
	cr_expect_eq(t->rows[1].cells[col(t, "cycle")].i, 1);
	cr_expect_eq(t->rows[2].cells[col(t, "cycle")].type, PLUMB_CELL_NULL);
	/* Cumulative % does not count the cycle's own cost twice: 100 at the end. */
	cr_expect_float_eq(t->rows[4].cells[col(t, "cumulative")].pct, 100.0, 1e-9);
	plumb_table_free(t);
	/* --cycles=no: no cycle row, no tag, no cycle column; same inclusive. */
	t = view_of(p, PLUMB_VIEW_FLAT, true);
	cr_assert_eq(t->nrows, 4);
	cr_expect_lt(col(t, "cycle"), 0);
	cr_expect_str_eq(cell_s(t, 2, "function"), "B");
	cr_expect_eq(cell_u(t, 2, "inclusive.Ir"), 18);
	plumb_table_free(t);
	plumb_profile_free(p);
}

/* The butterfly of the cycle: main's call in, the cycle, its members with
 * inclusive costs that add up to the cycle's (18 + 12 = 30). A's block:
 * the recursive call from B shows its count only. */
Test(views, butterfly_shows_the_cycle_as_a_whole)
{
	plumb_profile *p = call_graph();
	plumb_table *t = view_of(p, PLUMB_VIEW_BUTTERFLY, false);
	/* Blocks by inclusive: main 37, <cycle 1> 30, C 20, B 18, A 12. */
	size_t r = 0;
	while (r < t->nrows && !(t->rows[r].kind == PLUMB_ROW_FOCUS &&
				 strcmp(cell_s(t, r, "function"), "<cycle 1>") == 0))
		r++;
	cr_assert_lt(r, t->nrows);
	cr_expect_eq(t->rows[r - 1].kind, PLUMB_ROW_CALLER);
	cr_expect_str_eq(cell_s(t, r - 1, "function"), "main");
	cr_expect_eq(cell_u(t, r - 1, "attributed.Ir"), 30);
	cr_expect_eq(cell_u(t, r, "attributed.Ir"), 30);
	cr_expect_eq(cell_u(t, r, "exclusive.Ir"), 10);
	cr_expect_eq(cell_u(t, r, "calls"), 1);
	cr_expect_str_eq(cell_s(t, r + 1, "function"), "A <cycle 1>");
	cr_expect_eq(cell_u(t, r + 1, "attributed.Ir"), 12);
	cr_expect_str_eq(cell_s(t, r + 2, "function"), "B <cycle 1>");
	cr_expect_eq(cell_u(t, r + 2, "attributed.Ir"), 18);
	/* The last block is A's: callers main (30) then B (recursive: count
	 * only), callees C (8) then B (recursive, last). */
	size_t n = t->nrows;
	cr_expect_str_eq(cell_s(t, n - 1, "function"), "B <cycle 1>");
	cr_expect_eq(cell_u(t, n - 1, "attributed.Ir"), -1);
	cr_expect_eq(cell_u(t, n - 1, "calls"), 2);
	cr_expect_str_eq(cell_s(t, n - 2, "function"), "C");
	cr_expect_eq(cell_u(t, n - 2, "attributed.Ir"), 8);
	cr_expect_str_eq(cell_s(t, n - 3, "function"), "A <cycle 1>");
	cr_expect_eq(t->rows[n - 3].kind, PLUMB_ROW_FOCUS);
	cr_expect_eq(cell_u(t, n - 4, "attributed.Ir"), -1);
	cr_expect_eq(cell_u(t, n - 4, "calls"), 1);
	cr_expect_eq(cell_u(t, n - 5, "attributed.Ir"), 30);
	plumb_table_free(t);
	plumb_profile_free(p);
}

/* The tree unfolded from the arcs, worked out by hand:
 *   main 37 (self 7)
 *     A <cycle 1> 30          main's one call; the cycle's only entry: share 1
 *       C 8                   A's call out of the cycle
 *       B <cycle 1> -         a recursive call: count (2) only, share stays 1
 *         C 12                B's call out
 *         A <cycle 1> [recursive] -   already on the path: not expanded */
Test(views, tree_of_a_call_graph_exact_rows)
{
	plumb_profile *p = call_graph();
	plumb_table *t = view_of(p, PLUMB_VIEW_TREE, false);
	struct { const char *name; uint32_t depth; long long incl, excl, calls; } want[] = {
		{ "main", 0, 37, 7, -1 },
		{ "A <cycle 1>", 1, 30, -1, 1 },
		{ "C", 2, 8, -1, 1 },
		{ "B <cycle 1>", 2, -1, -1, 2 },
		{ "C", 3, 12, -1, 1 },
		{ "A <cycle 1> [recursive]", 3, -1, -1, 1 },
	};
	cr_assert_eq(t->nrows, 6);
	for (size_t i = 0; i < 6; i++) {
		cr_expect_str_eq(cell_s(t, i, "function"), want[i].name, "row %zu", i);
		cr_expect_eq(t->rows[i].depth, want[i].depth, "row %zu", i);
		cr_expect_eq(cell_u(t, i, "inclusive.Ir"), want[i].incl, "row %zu", i);
		cr_expect_eq(cell_u(t, i, "exclusive.Ir"), want[i].excl, "row %zu", i);
		cr_expect_eq(cell_u(t, i, "calls"), want[i].calls, "row %zu", i);
	}
	plumb_table_free(t);
	plumb_profile_free(p);
}

/* Bottom-up: C's 20 split between its callers A and B by calls (1 and 1):
 * 10 each; under A, its callers B and main (1 call each): 5 each. */
Test(views, bottom_up_of_a_call_graph)
{
	plumb_profile *p = call_graph();
	plumb_table *t = view_of(p, PLUMB_VIEW_BOTTOM_UP, false);
	const char *name[] = { "C", "A <cycle 1>", "B <cycle 1>", "A <cycle 1> [recursive]", "main" };
	long long v[] = { 20, 10, 5, 5, 5 };
	uint32_t depth[] = { 0, 1, 2, 3, 2 };
	cr_assert_geq(t->nrows, 5);
	for (size_t i = 0; i < 5; i++) {
		cr_expect_str_eq(cell_s(t, i, "function"), name[i], "row %zu", i);
		cr_expect_eq(cell_u(t, i, "exclusive.Ir"), v[i], "row %zu", i);
		cr_expect_eq(t->rows[i].depth, depth[i], "row %zu", i);
	}
	plumb_table_free(t);
	plumb_profile_free(p);
}

/* One part alone; "parts" names the threads view, which numbers them. */
Test(views, part_selection_and_parts_view)
{
	plumb_profile *p = call_graph();
	plumb_error err;
	plumb_id part2 = plumb_part_add(p, PLUMB_PART_DUMP, "second", -1, -1);
	plumb_id fr = plumb_frame_intern(p, plumb_function_intern(p, "late", NULL, PLUMB_NONE, PLUMB_NONE, 0),
					 PLUMB_NONE, 0, 0);
	uint64_t c = 63;
	cr_assert_eq(plumb_cg_add_self(p, part2, fr, &c, &err), 0);
	cr_expect_eq(plumb_view_by_name("parts"), PLUMB_VIEW_THREADS);
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	o.part = part2;
	plumb_table *t = NULL;
	cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
	cr_assert_eq(t->nrows, 1);
	cr_expect_str_eq(cell_s(t, 0, "function"), "late");
	cr_expect_float_eq(t->rows[0].cells[col(t, "percent.Ir")].pct, 100.0, 1e-9);
	plumb_table_free(t);
	o.part = PLUMB_NONE;
	o.kind = PLUMB_VIEW_THREADS;
	cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
	cr_assert_eq(t->nrows, 2);
	cr_expect_eq(t->rows[0].cells[col(t, "part")].i, 2, "the heavier part (63 > 37) first");
	cr_expect_eq(cell_u(t, 0, "exclusive.Ir"), 63);
	plumb_table_free(t);
	plumb_profile_free(p);
}

/* The JSON document of a view built with its function summary. */
static int report_json(const plumb_profile *p, plumb_view_opts *o, FILE *f, plumb_error *err)
{
	plumb_table *t;
	o->summary = true;
	if (plumb_view_build(p, o, &t, err))
		return -1;
	int rc = plumb_table_write_json(t, f, err);
	plumb_table_free(t);
	return rc;
}

/* The JSON report: cycle numbers on members and arcs, the cycle entry. */
Test(views, report_json_has_cycle_fields)
{
	plumb_profile *p = call_graph();
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	plumb_error err;
	cr_assert_eq(report_json(p, &o, f, &err), 0, "%s", err.message);
	fclose(f);
	cr_expect(strstr(buf, "\"name\": \"A\", \"file\": null, \"module\": null, \"line\": null,\n"
			      "     \"exclusive\": [4], \"inclusive\": [12], \"calls\": 2, "
			      "\"inclusive_estimated\": false, \"cycle\": 1") != NULL, "%s", buf);
	cr_expect(strstr(buf, "\"cycles\": [\n    {\"cycle\": 1, \"name\": \"<cycle 1>\",\n"
			      "     \"exclusive\": [10], \"inclusive\": [30], \"calls\": 1") != NULL, "%s", buf);
	cr_expect(strstr(buf, "{\"name\": \"B\", \"file\": null, \"module\": null, \"cycle\": 1, "
			      "\"calls\": 1, \"recursive\": true, \"attributed\": [25]}") != NULL, "%s", buf);
	cr_expect(strstr(buf, "\"name\": \"main\", \"file\": null, \"module\": null, \"line\": null,\n"
			      "     \"exclusive\": [7], \"inclusive\": [37], \"calls\": 0, "
			      "\"inclusive_estimated\": false, \"cycle\": null") != NULL, "%s", buf);
	free(buf);
	/* --cycles=no: an empty cycles array, null cycle numbers. */
	o.no_cycles = true;
	f = open_memstream(&buf, &len);
	cr_assert_eq(report_json(p, &o, f, &err), 0, "%s", err.message);
	fclose(f);
	cr_expect(strstr(buf, "\"cycles\": []") != NULL);
	cr_expect(strstr(buf, "\"cycle\": 1") == NULL);
	free(buf);
	plumb_profile_free(p);
}

/* A cycle that nothing calls (X <-> Y, no main): the tree starts at its
 * member with the larger inclusive cost, Y (30 > 10), with the whole
 * cycle's cost, 40; X below it by a recursive call (no cost), then Y again,
 * cut. */
Test(views, tree_of_a_cycle_entered_from_nowhere)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "Ir", NULL, NULL, &err), 0);
	plumb_id part = plumb_part_default(p);
	plumb_id x = plumb_frame_intern(p, plumb_function_intern(p, "X", NULL, PLUMB_NONE, PLUMB_NONE, 0),
					PLUMB_NONE, 0, 0);
	plumb_id y = plumb_frame_intern(p, plumb_function_intern(p, "Y", NULL, PLUMB_NONE, PLUMB_NONE, 0),
					PLUMB_NONE, 0, 0);
	uint64_t sx = 10, sy = 30, xy = 35, yx = 12;
	cr_assert_eq(plumb_cg_add_self(p, part, x, &sx, &err), 0);
	cr_assert_eq(plumb_cg_add_self(p, part, y, &sy, &err), 0);
	cr_assert_geq(plumb_arc_add(p, part, x, p->frames.v[y].function, 1, &xy, &err), 0);
	cr_assert_geq(plumb_arc_add(p, part, y, p->frames.v[x].function, 1, &yx, &err), 0);
	plumb_table *t = view_of(p, PLUMB_VIEW_TREE, false);
	cr_assert_eq(t->nrows, 3);
	cr_expect_str_eq(cell_s(t, 0, "function"), "Y <cycle 1>");
	cr_expect_eq(cell_u(t, 0, "inclusive.Ir"), 40);
	cr_expect_eq(cell_u(t, 0, "exclusive.Ir"), 30);
	cr_expect_str_eq(cell_s(t, 1, "function"), "X <cycle 1>");
	cr_expect_eq(cell_u(t, 1, "inclusive.Ir"), -1);
	cr_expect_str_eq(cell_s(t, 2, "function"), "Y <cycle 1> [recursive]");
	cr_expect_eq(t->rows[2].depth, 2);
	plumb_table_free(t);
	plumb_profile_free(p);
}

/* --sort orders the siblings of a call-graph tree: main calls zeta (20,
 * once) and alpha (10, five times). */
Test(views, tree_of_a_call_graph_follows_sort)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "Ir", NULL, NULL, &err), 0);
	plumb_id part = plumb_part_default(p);
	const char *names[] = { "main", "zeta", "alpha" };
	uint64_t self[] = { 1, 20, 10 }, calls[] = { 0, 1, 5 };
	plumb_id fn[3], fr[3];
	for (int i = 0; i < 3; i++) {
		fn[i] = plumb_function_intern(p, names[i], NULL, PLUMB_NONE, PLUMB_NONE, 0);
		fr[i] = plumb_frame_intern(p, fn[i], PLUMB_NONE, 0, 0);
		cr_assert_eq(plumb_cg_add_self(p, part, fr[i], &self[i], &err), 0);
		if (i > 0)
			cr_assert_geq(plumb_arc_add(p, part, fr[0], fn[i], calls[i], &self[i], &err), 0);
	}
	struct { plumb_sort_key sort; const char *first; } cases[] = {
		{ PLUMB_SORT_DEFAULT, "zeta" }, { PLUMB_SORT_INCLUSIVE, "zeta" },
		{ PLUMB_SORT_NAME, "alpha" }, { PLUMB_SORT_CALLS, "alpha" },
		{ PLUMB_SORT_EXCLUSIVE, "zeta" },
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		plumb_view_opts o;
		plumb_view_opts_init(&o);
		o.kind = PLUMB_VIEW_TREE;
		o.sort = cases[c].sort;
		plumb_table *t = NULL;
		cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
		cr_assert_eq(t->nrows, 3);
		cr_expect_str_eq(cell_s(t, 0, "function"), "main");
		cr_expect_str_eq(cell_s(t, 1, "function"), cases[c].first, "sort %d", (int)cases[c].sort);
		plumb_table_free(t);
	}
	plumb_profile_free(p);
}

/* A tree says what it cut: main (1000 cycles) -> hot_cpu 900, hot_mem 100.
 * At a 50% threshold hot_mem's subtree (10%) is cut; hidden or past the
 * limit, whole subtrees count with their inclusive cost. */
Test(views, tree_counts_the_subtrees_it_leaves_out)
{
	plumb_profile *p = two_events();
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	plumb_view_left_out lo;
	o.kind = PLUMB_VIEW_TREE;
	o.left_out = &lo;
	o.threshold = 50;
	plumb_table *t = NULL;
	plumb_error err;
	cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
	cr_expect_eq(t->nrows, 2, "main and hot_cpu shown, got %zu rows", t->nrows);
	cr_expect_eq(lo.under_threshold, 1);
	cr_expect_eq(lo.under_threshold_cost, 100);
	cr_expect_eq(lo.hidden + lo.past_limit, 0);
	plumb_table_free(t);

	plumb_symspec_list hide = { 0 };
	cr_assert_eq(plumb_symspec_list_add(&hide, "hot_cpu", &err), 0, "%s", err.message);
	o.threshold = 0;
	o.hide = &hide;
	cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
	cr_expect_eq(lo.hidden, 1);
	cr_expect_eq(lo.hidden_cost, 900);
	cr_expect_eq(lo.under_threshold, 0);
	plumb_table_free(t);

	o.hide = NULL;
	o.limit = 1;
	cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
	cr_expect_eq(t->nrows, 1);
	cr_expect_eq(lo.past_limit, 2, "both children of main are past the limit, got %zu", lo.past_limit);
	cr_expect_eq(lo.past_limit_cost, 1000);
	plumb_table_free(t);
	plumb_symspec_list_free(&hide);
	plumb_profile_free(p);
}

/* Many rows of equal cost (a lines view of a big profile): the order of
 * ties is by name, file and line, as strcmp and the numbers say, also when
 * the sort numbers the names instead of comparing them (view_sort.c does
 * past a few thousand ties). Names repeat across files and lines repeat
 * across names, so every tie-break is used. */
typedef struct tie_row {
	const char *name, *file;
	int64_t line;
	uint64_t excl;
} tie_row;

static void check_tie_order(size_t nlines)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "Ir", NULL, NULL, &err), 0);
	plumb_id part = plumb_part_default(p);
	unsigned seed = 12345;
	char name[32], file[32];
	for (size_t i = 0; i < nlines; i++) {
		seed = seed * 1103515245u + 12345u;
		snprintf(name, sizeof name, "fn_%u", (seed >> 8) % 997);
		snprintf(file, sizeof file, "src/f%u.c", (seed >> 20) % 7);
		plumb_id fl = plumb_file_intern(p, file);
		plumb_id fn = plumb_function_intern(p, name, NULL, PLUMB_NONE, fl, 1);
		plumb_id fr = plumb_frame_intern(p, fn, fl, 1 + (uint32_t)((seed >> 4) % 50), 0);
		uint64_t cost = 1 + (seed >> 12) % 3;
		cr_assert_eq(plumb_cg_add_self(p, part, fr, &cost, &err), 0, "%s", err.message);
	}
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	o.kind = PLUMB_VIEW_LINES;
	plumb_table *t = NULL;
	cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
	int fn = col(t, "function"), fl = col(t, "file"), ln = col(t, "line"), ex = col(t, "exclusive.Ir");
	cr_assert(fn >= 0 && fl >= 0 && ln >= 0 && ex >= 0, "lines view columns");
	cr_assert_gt(t->nrows, nlines / 3);
	for (size_t i = 1; i < t->nrows; i++) {
		const plumb_cell *a = t->rows[i - 1].cells, *b = t->rows[i].cells;
		tie_row x = { a[fn].s, a[fl].s, a[ln].i, a[ex].u }, y = { b[fn].s, b[fl].s, b[ln].i, b[ex].u };
		int r = x.excl > y.excl ? -1 : x.excl < y.excl;
		if (!r)
			r = strcmp(x.name, y.name);
		if (!r)
			r = strcmp(x.file, y.file);
		if (!r)
			r = x.line < y.line ? -1 : x.line > y.line;
		cr_assert_lt(r, 0, "row %zu (%s %s:%lld, %llu) should come after row %zu (%s %s:%lld, %llu)",
			     i - 1, x.name, x.file, (long long)x.line, (unsigned long long)x.excl, i,
			     y.name, y.file, (long long)y.line, (unsigned long long)y.excl);
	}
	plumb_table_free(t);
	plumb_profile_free(p);
}

Test(views, few_ties_ordered_by_name_file_line)
{
	check_tie_order(300);
}

Test(views, many_ties_ordered_by_name_file_line)
{
	check_tie_order(40000);
}
