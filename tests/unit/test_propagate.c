/* gprof's propagation in analysis (propagate.c): call graphs whose part
 * says its arc costs are gprof's estimate (gmon.out) get, as each arc's
 * inclusive cost, the callee's self plus children cost shared among its
 * callers in proportion to their calls; cycles are shared as a whole;
 * the -pg runtime is left out; the result is marked estimated. The expected
 * numbers are worked out by hand with gprof's rules (research gprof.md
 * §2.5) in the comments. */
#include <criterion/criterion.h>
#include <string.h>

#include "plumb/analysis.h"
#include "plumb/table.h"

typedef struct graph {
	plumb_profile *p;
	plumb_id part;
} graph;

static graph new_graph(plumb_arc_costs how)
{
	graph g = { plumb_profile_new(), PLUMB_NONE };
	plumb_error err;
	cr_assert_geq(plumb_event_add(g.p, "time", NULL, "ns", &err), 0);
	g.part = plumb_part_default(g.p);
	g.p->parts.v[g.part].arc_costs = how;
	return g;
}

static plumb_id fn(graph *g, const char *name)
{
	return plumb_function_intern(g->p, name, NULL, PLUMB_NONE, PLUMB_NONE, 0);
}

static plumb_id site(graph *g, const char *name)
{
	return plumb_frame_intern(g->p, fn(g, name), PLUMB_NONE, 0, 0);
}

static void self(graph *g, const char *name, uint64_t cost)
{
	plumb_error err;
	cr_assert_eq(plumb_cg_add_self(g->p, g->part, site(g, name), &cost, &err), 0);
}

/* A call with its count and no cost, as the gmon.out reader adds it. */
static void call(graph *g, const char *from, const char *to, uint64_t count)
{
	plumb_error err;
	cr_assert_geq(plumb_arc_add(g->p, g->part, site(g, from), fn(g, to), count, NULL, &err), 0);
}

static plumb_metrics *metrics_of(const plumb_profile *p)
{
	plumb_metrics *m = NULL;
	plumb_error err;
	cr_assert_eq(plumb_metrics_compute(p, NULL, &m, &err), 0, "%s", err.message);
	return m;
}

static size_t key(const plumb_profile *p, const plumb_metrics *m, const char *name)
{
	for (size_t k = 0; k < m->nkeys; k++)
		if (strcmp(plumb_function_name(p, m->keys[k].function), name) == 0)
			return k;
	cr_assert_fail("no function %s", name);
	return 0;
}

static uint64_t incl(const plumb_profile *p, const plumb_metrics *m, const char *f)
{
	return plumb_metrics_incl(m, key(p, m, f))[0];
}

/* The caller's view of the arc from -> to: its estimated cost. */
static uint64_t arc_cost(const plumb_profile *p, const plumb_metrics *m, const char *from,
			 const char *to)
{
	size_t a = key(p, m, from), b = key(p, m, to);
	for (size_t i = 0; i < m->narcs; i++)
		if (m->arcs[i].caller == a && m->arcs[i].callee == b)
			return m->callee_attr[i];
	cr_assert_fail("no arc %s -> %s", from, to);
	return 0;
}

/* c (self 400) is called 3 times by a and once by b: a gets 300, b 100. */
static graph shared_callee(plumb_arc_costs how)
{
	graph g = new_graph(how);
	self(&g, "main", 10);
	self(&g, "a", 100);
	self(&g, "b", 0);
	self(&g, "c", 400);
	call(&g, "main", "a", 1);
	call(&g, "main", "b", 1);
	call(&g, "a", "c", 3);
	call(&g, "b", "c", 1);
	return g;
}

Test(propagate, callee_time_is_shared_by_call_counts)
{
	graph g = shared_callee(PLUMB_ARC_COSTS_GPROF);
	plumb_metrics *m = metrics_of(g.p);
	cr_expect_eq(arc_cost(g.p, m, "a", "c"), 300);
	cr_expect_eq(arc_cost(g.p, m, "b", "c"), 100);
	cr_expect_eq(arc_cost(g.p, m, "main", "a"), 400, "a's self 100 + its share 300");
	cr_expect_eq(arc_cost(g.p, m, "main", "b"), 100);
	cr_expect_eq(incl(g.p, m, "main"), 510);
	cr_expect_eq(incl(g.p, m, "c"), 400);
	cr_expect(m->inclusive_estimated);
	plumb_metrics_free(m);
	plumb_profile_free(g.p);
}

/* The same graph in a part whose arc costs are given (and missing): no
 * estimate is made; inclusive costs lack the calls. */
Test(propagate, only_parts_that_ask_for_it)
{
	graph g = shared_callee(PLUMB_ARC_COSTS_GIVEN);
	plumb_metrics *m = metrics_of(g.p);
	cr_expect_eq(arc_cost(g.p, m, "a", "c"), 0);
	cr_expect_eq(incl(g.p, m, "main"), 10);
	cr_expect(m->inclusive_estimated);
	plumb_metrics_free(m);
	plumb_profile_free(g.p);
}

/* x <-> y is a cycle (time 30 + 70), y calls w (100) 10 times, its only
 * caller. main calls x twice and y twice: the cycle's 200 is shared 2/4
 * each; the calls inside the cycle carry nothing; a self call neither. */
Test(propagate, a_cycle_is_shared_as_a_whole)
{
	graph g = new_graph(PLUMB_ARC_COSTS_GPROF);
	self(&g, "main", 1);
	self(&g, "x", 30);
	self(&g, "y", 70);
	self(&g, "w", 100);
	call(&g, "main", "x", 2);
	call(&g, "main", "y", 2);
	call(&g, "x", "y", 5);
	call(&g, "y", "x", 5);
	call(&g, "y", "w", 10);
	call(&g, "w", "w", 7);
	plumb_metrics *m = metrics_of(g.p);
	cr_expect_eq(arc_cost(g.p, m, "y", "w"), 100);
	cr_expect_eq(arc_cost(g.p, m, "w", "w"), 0);
	cr_expect_eq(arc_cost(g.p, m, "x", "y"), 0);
	cr_expect_eq(arc_cost(g.p, m, "y", "x"), 0);
	cr_expect_eq(arc_cost(g.p, m, "main", "x"), 100);
	cr_expect_eq(arc_cost(g.p, m, "main", "y"), 100);
	cr_expect_eq(incl(g.p, m, "main"), 201);
	cr_expect_eq(incl(g.p, m, "y"), 170);
	cr_assert_eq(m->ncycles, 1);
	cr_expect_eq(m->cycle_inclusive[0], 200);
	plumb_metrics_free(m);
	plumb_profile_free(g.p);
}

/* gprof leaves the -pg runtime out: nothing propagates into mcount, and a
 * function called once by mcount and once by main propagates with fraction
 * 1/2 (gprof's inherited fraction): f -> g carries g's 10 times 1/2, while
 * f's own children time (10, unscaled) goes up to main's call, which gets
 * (10 + 10) * 1/2. */
Test(propagate, the_pg_runtime_is_left_out)
{
	graph g = new_graph(PLUMB_ARC_COSTS_GPROF);
	self(&g, "main", 0);
	self(&g, "mcount", 50);
	self(&g, "f", 10);
	self(&g, "g", 10);
	call(&g, "main", "mcount", 5);
	call(&g, "mcount", "f", 1);
	call(&g, "main", "f", 1);
	call(&g, "f", "g", 1);
	plumb_metrics *m = metrics_of(g.p);
	cr_expect_eq(arc_cost(g.p, m, "main", "mcount"), 0);
	cr_expect_eq(arc_cost(g.p, m, "mcount", "f"), 0);
	cr_expect_eq(arc_cost(g.p, m, "f", "g"), 5);
	cr_expect_eq(arc_cost(g.p, m, "main", "f"), 10);
	plumb_metrics_free(m);
	plumb_profile_free(g.p);
}

/* The views say whose estimate it is. */
Test(propagate, views_note_gprof_estimates)
{
	graph g = shared_callee(PLUMB_ARC_COSTS_GPROF);
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	plumb_table *t = NULL;
	plumb_error err;
	cr_assert_eq(plumb_view_build(g.p, &o, &t, &err), 0, "%s", err.message);
	bool found = false;
	for (size_t i = 0; i < t->nnotes; i++)
		found |= strstr(t->notes[i], "gprof's estimates") != NULL;
	cr_expect(found, "no note names gprof's estimates");
	plumb_table_free(t);
	plumb_profile_free(g.p);
}
