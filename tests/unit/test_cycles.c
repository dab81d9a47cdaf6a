/* Call-graph metrics: recursion and cycles found as strongly connected
 * components, never counted twice; the iterative SCC search on a million
 * vertices. Every expected number is worked out by hand in the comments. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/cycles.h"
#include "plumb/analysis.h"
#include "plumb/formats.h"

/* ---- a call-graph profile by hand ---------------------------------------- */

static plumb_profile *cg_new(void)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "Ir", NULL, NULL, &err), 0);
	plumb_part_default(p);
	return p;
}

/* The function's frame (one per function), in a file and module if given. */
static plumb_id frame_in(plumb_profile *p, const char *name, const char *file, const char *module)
{
	plumb_id f = file ? plumb_file_intern(p, file) : PLUMB_NONE;
	plumb_id mod = module ? plumb_module_intern(p, module, NULL) : PLUMB_NONE;
	plumb_id fn = plumb_function_intern(p, name, NULL, mod, f, 0);
	return plumb_frame_intern(p, fn, PLUMB_NONE, 0, 0);
}

static plumb_id frame(plumb_profile *p, const char *name)
{
	return frame_in(p, name, NULL, NULL);
}

static void self_in(plumb_profile *p, plumb_id part, const char *name, uint64_t cost)
{
	plumb_error err;
	cr_assert_eq(plumb_cg_add_self(p, part, frame(p, name), &cost, &err), 0, "%s", err.message);
}

static void self(plumb_profile *p, const char *name, uint64_t cost)
{
	self_in(p, 0, name, cost);
}

static void call_in(plumb_profile *p, plumb_id part, const char *from, const char *to,
		    uint64_t calls, uint64_t incl)
{
	plumb_error err;
	plumb_id callee = p->frames.v[frame(p, to)].function;
	cr_assert_geq(plumb_arc_add(p, part, frame(p, from), callee, calls, &incl, &err), 0,
		      "%s", err.message);
}

static void call(plumb_profile *p, const char *from, const char *to, uint64_t calls, uint64_t incl)
{
	call_in(p, 0, from, to, calls, incl);
}

static plumb_metrics *metrics(const plumb_profile *p, plumb_level level, bool no_cycles)
{
	plumb_metrics_opts o;
	plumb_metrics_opts_init(&o);
	o.level = level;
	o.no_cycles = no_cycles;
	plumb_metrics *m = NULL;
	plumb_error err;
	cr_assert_eq(plumb_metrics_compute(p, &o, &m, &err), 0, "%s", err.message);
	return m;
}

static size_t key(const plumb_profile *p, const plumb_metrics *m, const char *name)
{
	for (size_t k = 0; k < m->nkeys; k++)
		if (m->keys[k].function != PLUMB_NONE &&
		    strcmp(plumb_function_name(p, m->keys[k].function), name) == 0)
			return k;
	cr_assert_fail("no function %s", name);
	return 0;
}

static uint64_t incl(const plumb_profile *p, const plumb_metrics *m, const char *f)
{
	return plumb_metrics_incl(m, key(p, m, f))[0];
}

static uint64_t excl(const plumb_profile *p, const plumb_metrics *m, const char *f)
{
	return plumb_metrics_excl(m, key(p, m, f))[0];
}

static uint64_t calls(const plumb_profile *p, const plumb_metrics *m, const char *f)
{
	return m->calls[key(p, m, f)];
}

static uint32_t cycle_of(const plumb_profile *p, const plumb_metrics *m, const char *f)
{
	return m->cycle[key(p, m, f)];
}

static long arc_of(const plumb_profile *p, const plumb_metrics *m, const char *from, const char *to)
{
	size_t a = key(p, m, from), b = key(p, m, to);
	for (size_t i = 0; i < m->narcs; i++)
		if (m->arcs[i].caller == a && m->arcs[i].callee == b)
			return (long)i;
	cr_assert_fail("no arc %s -> %s", from, to);
	return -1;
}

/* No key's inclusive cost exceeds the total, and none is below its own. */
static void check_bounds(const plumb_metrics *m)
{
	for (size_t k = 0; k < m->nkeys; k++) {
		cr_expect_leq(m->inclusive[k * m->nevents], m->totals[0], "key %zu", k);
		cr_expect_geq(m->inclusive[k * m->nevents], m->exclusive[k * m->nevents], "key %zu", k);
	}
}

/* ---- direct recursion ------------------------------------------------------ */

/* Callgrind's shape (--separate-recs=2): main calls fib once, fib calls
 * fib'2 twice, and fib'2 calls itself 50 times. Run:
 *   main self 10, fib self 5, fib'2 self 95: total 110.
 *   main -> fib: incl 100 = 5 + 95.  fib -> fib'2: incl 95 (all of fib'2).
 *   fib'2 -> fib'2: 50 calls, incl 300: each call counts the calls nested
 *   in it again, so the arc's cost is far more than fib'2's own 95.
 * Expected: fib'2 inclusive 95 (not 95 + 300), fib 100, main 110 = total;
 * fib'2 called 2 times from outside itself (its 50 self calls stay on the
 * fib'2 -> fib'2 arc); direct recursion is not a cycle. */
Test(cycles, direct_recursion_fib_shape)
{
	plumb_profile *p = cg_new();
	self(p, "main", 10);
	self(p, "fib", 5);
	self(p, "fib'2", 95);
	call(p, "main", "fib", 1, 100);
	call(p, "fib", "fib'2", 2, 95);
	call(p, "fib'2", "fib'2", 50, 300);
	plumb_metrics *m = metrics(p, PLUMB_LEVEL_FUNCTION, false);
	cr_expect_eq(m->totals[0], 110);
	cr_expect_eq(incl(p, m, "fib'2"), 95);
	cr_expect_eq(excl(p, m, "fib'2"), 95);
	cr_expect_eq(incl(p, m, "fib"), 100);
	cr_expect_eq(incl(p, m, "main"), 110);
	cr_expect_eq(calls(p, m, "fib'2"), 2);
	cr_expect_eq(calls(p, m, "fib"), 1);
	long self_arc = arc_of(p, m, "fib'2", "fib'2");
	cr_expect_eq(m->arcs[self_arc].calls, 50);
	cr_expect_eq(m->callee_attr[self_arc], 300, "an arc keeps its own inclusive cost");
	cr_expect(m->arc_in_scc[self_arc]);
	cr_expect_not(m->arc_in_scc[arc_of(p, m, "fib", "fib'2")]);
	cr_expect_eq(m->ncycles, 0);
	cr_expect_eq(cycle_of(p, m, "fib'2"), 0);
	check_bounds(m);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}

/* A plain self arc: f (self 20) calls itself with arc cost 200; main (self
 * 1) calls f once for 20. f's inclusive is 20, main's 21. */
Test(cycles, plain_self_arc)
{
	plumb_profile *p = cg_new();
	self(p, "main", 1);
	self(p, "f", 20);
	call(p, "main", "f", 1, 20);
	call(p, "f", "f", 9, 200);
	plumb_metrics *m = metrics(p, PLUMB_LEVEL_FUNCTION, false);
	cr_expect_eq(incl(p, m, "f"), 20);
	cr_expect_eq(incl(p, m, "main"), 21);
	cr_expect_eq(calls(p, m, "f"), 1);
	cr_expect_eq(m->ncycles, 0);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}

/* ---- mutual recursion ------------------------------------------------------ */

/* main -> A1 -> B1 -> A2 -> B2 -> C, and A2 also calls C.
 * Self: main 7; A1 2 + A2 2 = A 4; B1 3 + B2 3 = B 6; C 12 (under B2) +
 * 8 (under A2) = 20. Total 37.
 * Arcs as Callgrind measures them (each call's whole cost):
 *   main -> A  1 call   30 = A1's subtree = 4 + 6 + 20
 *   A -> B     2 calls  43 = B1's (3 + A2's 25) 28 + B2's (3 + 12) 15
 *   B -> A     1 call   25 = A2's subtree = 2 + 8 + 15
 *   B -> C     1 call   12;   A -> C  1 call  8
 * {A, B} is a cycle. A's inclusive = 4 + 8 (its call leaving the cycle) =
 * 12; B's = 6 + 12 = 18; <cycle 1>: self 4 + 6 = 10, inclusive 10 + 8 + 12
 * = 30 = the call into it from main, called once. main = 7 + 30 = 37 =
 * the total. Without SCCs A would be 4 + 43 + 8 = 55 > 37. */
static plumb_profile *mutual(void)
{
	plumb_profile *p = cg_new();
	self(p, "main", 7);
	self(p, "A", 4);
	self(p, "B", 6);
	self(p, "C", 20);
	call(p, "main", "A", 1, 30);
	call(p, "A", "B", 2, 43);
	call(p, "B", "A", 1, 25);
	call(p, "B", "C", 1, 12);
	call(p, "A", "C", 1, 8);
	return p;
}

Test(cycles, mutual_recursion_every_number)
{
	plumb_profile *p = mutual();
	plumb_metrics *m = metrics(p, PLUMB_LEVEL_FUNCTION, false);
	cr_expect_eq(m->totals[0], 37);
	cr_expect_eq(incl(p, m, "main"), 37);
	cr_expect_eq(incl(p, m, "A"), 12);
	cr_expect_eq(incl(p, m, "B"), 18);
	cr_expect_eq(incl(p, m, "C"), 20);
	cr_expect_eq(excl(p, m, "A"), 4);
	/* Calls from other functions, members included: A from main and B. */
	cr_expect_eq(calls(p, m, "A"), 2);
	cr_expect_eq(calls(p, m, "B"), 2);
	cr_expect_eq(calls(p, m, "C"), 2);
	cr_assert_eq(m->ncycles, 1);
	cr_expect_eq(cycle_of(p, m, "A"), 1);
	cr_expect_eq(cycle_of(p, m, "B"), 1);
	cr_expect_eq(cycle_of(p, m, "main"), 0);
	cr_expect_eq(cycle_of(p, m, "C"), 0);
	const plumb_metric_cycle *c = plumb_metrics_cycle(m, 1);
	cr_expect_eq(c->n, 2);
	cr_expect_eq(c->calls, 1);
	cr_expect_eq(m->cycle_exclusive[0], 10);
	cr_expect_eq(m->cycle_inclusive[0], 30);
	cr_expect_eq(m->caller_attr[arc_of(p, m, "main", "A")], m->cycle_inclusive[0]);
	cr_expect(m->arc_in_scc[arc_of(p, m, "A", "B")]);
	cr_expect(m->arc_in_scc[arc_of(p, m, "B", "A")]);
	cr_expect_not(m->arc_in_scc[arc_of(p, m, "B", "C")]);
	/* Members partition the cycle: 12 + 18 = 30. */
	cr_expect_eq(incl(p, m, "A") + incl(p, m, "B"), m->cycle_inclusive[0]);
	check_bounds(m);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}

/* The research's s02 numbers (KCachegrind with cycle detection: <cycle 1>
 * 30, A 10, B 20, total 37), on a file of our own of that shape:
 * main (self 7) -> A1 (self 6) -> B1 (self 8) -> A2 (self 4), and B1 -> C
 * (self 12). Self: A 10, B 8, C 12; total 37. Arcs: main -> A 30 (6 + 8 +
 * 4 + 12), A -> B 24 (B1's subtree: 8 + 4 + 12), B -> A 4, B -> C 12.
 * A = 10 + nothing leaving = 10; B = 8 + 12 = 20; <cycle 1> = 18 + 12 = 30;
 * main = 7 + 30 = 37. Summing every call into A instead (callgrind_annotate)
 * would give A 30 + 4 = 34 and B 24. */
Test(cycles, kcachegrind_s02_shape)
{
	plumb_profile *p = cg_new();
	self(p, "main", 7);
	self(p, "A", 10);
	self(p, "B", 8);
	self(p, "C", 12);
	call(p, "main", "A", 1, 30);
	call(p, "A", "B", 1, 24);
	call(p, "B", "A", 1, 4);
	call(p, "B", "C", 1, 12);
	plumb_metrics *m = metrics(p, PLUMB_LEVEL_FUNCTION, false);
	cr_expect_eq(m->totals[0], 37);
	cr_expect_eq(incl(p, m, "A"), 10);
	cr_expect_eq(incl(p, m, "B"), 20);
	cr_expect_eq(incl(p, m, "main"), 37);
	cr_assert_eq(m->ncycles, 1);
	cr_expect_eq(m->cycle_inclusive[0], 30);
	cr_expect_eq(m->cycle_exclusive[0], 18);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}

/* --cycles=no: no numbers, no cycle entries; inclusive costs unchanged. */
Test(cycles, no_cycles_keeps_inclusive_safe)
{
	plumb_profile *p = mutual();
	plumb_metrics *m = metrics(p, PLUMB_LEVEL_FUNCTION, true);
	cr_expect_eq(m->ncycles, 0);
	cr_expect_eq(cycle_of(p, m, "A"), 0);
	cr_expect_eq(incl(p, m, "A"), 12);
	cr_expect_eq(incl(p, m, "B"), 18);
	cr_expect_eq(incl(p, m, "main"), 37);
	cr_expect(m->arc_in_scc[arc_of(p, m, "A", "B")]);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}

/* Two cycles: {A, B} as above (30) and {X, Y} entered from main for 50:
 * X self 10, Y self 40, X -> Y 1 call 40, Y -> X 1 call 5 (its self 5 of
 * X's 10; hand-made, consistent enough: inclusive only uses self and
 * leaving arcs). The heavier {X, Y} is <cycle 1>: self 50, inclusive 50,
 * X 10, Y 40. main = 7 + 30 + 50 = 87 = total. */
Test(cycles, two_cycles_numbered_by_cost)
{
	plumb_profile *p = mutual();
	self(p, "X", 10);
	self(p, "Y", 40);
	call(p, "main", "X", 1, 50);
	call(p, "X", "Y", 1, 40);
	call(p, "Y", "X", 1, 5);
	plumb_metrics *m = metrics(p, PLUMB_LEVEL_FUNCTION, false);
	cr_assert_eq(m->ncycles, 2);
	cr_expect_eq(cycle_of(p, m, "X"), 1);
	cr_expect_eq(cycle_of(p, m, "Y"), 1);
	cr_expect_eq(cycle_of(p, m, "A"), 2);
	cr_expect_eq(m->cycle_inclusive[0], 50);
	cr_expect_eq(m->cycle_inclusive[1], 30);
	cr_expect_eq(incl(p, m, "X"), 10);
	cr_expect_eq(incl(p, m, "Y"), 40);
	cr_expect_eq(incl(p, m, "main"), 87);
	cr_expect_eq(m->totals[0], 87);
	/* members in key order */
	const plumb_metric_cycle *c = plumb_metrics_cycle(m, 1);
	cr_expect_eq(m->cycle_members[c->first], key(p, m, "X"));
	cr_expect_eq(m->cycle_members[c->first + 1], key(p, m, "Y"));
	check_bounds(m);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}

/* A cycle inside a bigger SCC: A <-> B, and B -> D -> A closes a larger
 * loop; B also recurses on itself. One SCC {A, B, D}: one cycle of three.
 * Self A 1, B 2, D 3, E 4 (a leaf under D), main 5; main -> A 10 (= all of
 * A, B, D, E), D -> E 4, the arcs inside the SCC carry nested costs.
 * <cycle 1>: self 6, inclusive 6 + 4 = 10; D's inclusive 3 + 4 = 7; main 15. */
Test(cycles, nested_cycle_is_one_scc)
{
	plumb_profile *p = cg_new();
	self(p, "main", 5);
	self(p, "A", 1);
	self(p, "B", 2);
	self(p, "D", 3);
	self(p, "E", 4);
	call(p, "main", "A", 1, 10);
	call(p, "A", "B", 2, 9);
	call(p, "B", "A", 1, 8);
	call(p, "B", "B", 3, 6);
	call(p, "B", "D", 1, 7);
	call(p, "D", "A", 1, 2);
	call(p, "D", "E", 1, 4);
	plumb_metrics *m = metrics(p, PLUMB_LEVEL_FUNCTION, false);
	cr_assert_eq(m->ncycles, 1);
	cr_expect_eq(plumb_metrics_cycle(m, 1)->n, 3);
	cr_expect_eq(cycle_of(p, m, "D"), 1);
	cr_expect_eq(cycle_of(p, m, "E"), 0);
	cr_expect_eq(m->cycle_exclusive[0], 6);
	cr_expect_eq(m->cycle_inclusive[0], 10);
	cr_expect_eq(incl(p, m, "D"), 7);
	cr_expect_eq(incl(p, m, "A"), 1);
	cr_expect_eq(incl(p, m, "B"), 2);
	cr_expect_eq(incl(p, m, "main"), 15);
	cr_expect_eq(plumb_metrics_cycle(m, 1)->calls, 1);
	check_bounds(m);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}

/* ---- other levels ---------------------------------------------------------- */

/* A callback: main (x.c, exe) -> qsort (y.c, libc) -> cmp (x.c, exe).
 * Self main 10, qsort 20, cmp 30, log (z.c, libm) 5 called by main.
 * main -> qsort 1 call 50; qsort -> cmp 100 calls 30; main -> log 5.
 * At function level there is no cycle: main = 10 + 50 + 5 = 65 = total,
 * qsort = 20 + 30 = 50. Files: x.c <-> y.c is an SCC, so by the arcs alone
 * x.c = 40 + 5 (log, outside) = 45 and y.c = 20 (its only arc, to cmp,
 * stays inside); but a file is on the stack whenever one of its functions
 * is, so x.c is at least main's 65 and y.c at least qsort's 50. z.c 5.
 * Modules alike: exe 65, libc 50, libm 5. */
Test(cycles, file_and_module_sccs)
{
	plumb_profile *p = cg_new();
	plumb_error err;
	struct { const char *fn, *file, *mod; uint64_t self; } f[] = {
		{ "main", "x.c", "exe", 10 }, { "qsort", "y.c", "libc", 20 },
		{ "cmp", "x.c", "exe", 30 }, { "log", "z.c", "libm", 5 },
	};
	plumb_id fr[4];
	for (int i = 0; i < 4; i++) {
		fr[i] = frame_in(p, f[i].fn, f[i].file, f[i].mod);
		cr_assert_eq(plumb_cg_add_self(p, 0, fr[i], &f[i].self, &err), 0);
	}
	uint64_t c50 = 50, c30 = 30, c5 = 5;
	cr_assert_geq(plumb_arc_add(p, 0, fr[0], p->frames.v[fr[1]].function, 1, &c50, &err), 0);
	cr_assert_geq(plumb_arc_add(p, 0, fr[1], p->frames.v[fr[2]].function, 100, &c30, &err), 0);
	cr_assert_geq(plumb_arc_add(p, 0, fr[0], p->frames.v[fr[3]].function, 1, &c5, &err), 0);
	plumb_metrics *m = metrics(p, PLUMB_LEVEL_FUNCTION, false);
	cr_expect_eq(incl(p, m, "main"), 65);
	cr_expect_eq(m->ncycles, 0);
	plumb_metrics_free(m);
	for (plumb_level lv = PLUMB_LEVEL_FILE; lv <= PLUMB_LEVEL_MODULE; lv++) {
		m = metrics(p, lv, false);
		cr_expect_eq(m->ncycles, 0, "cycles are a function-level notion");
		uint64_t got[3] = { 0 };
		const char *names[3] = { lv == PLUMB_LEVEL_FILE ? "x.c" : "exe",
					 lv == PLUMB_LEVEL_FILE ? "y.c" : "libc",
					 lv == PLUMB_LEVEL_FILE ? "z.c" : "libm" };
		for (size_t k = 0; k < m->nkeys; k++) {
			plumb_id id = lv == PLUMB_LEVEL_FILE ? m->keys[k].file : m->keys[k].module;
			const char *s = lv == PLUMB_LEVEL_FILE ? plumb_str(p, p->files.v[id].path)
							       : plumb_str(p, p->modules.v[id].path);
			for (int i = 0; i < 3; i++)
				if (strcmp(s, names[i]) == 0)
					got[i] = m->inclusive[k];
		}
		cr_expect_eq(got[0], 65, "level %d", lv);
		cr_expect_eq(got[1], 50, "level %d", lv);
		cr_expect_eq(got[2], 5, "level %d", lv);
		check_bounds(m);
		plumb_metrics_free(m);
	}
	plumb_profile_free(p);
}

/* Lines: a recursive call from fib's line 12 back to fib is inside fib's
 * SCC, so the line's inclusive is its own cost, not the nested arc's 300. */
Test(cycles, line_level_recursion_counted_once)
{
	plumb_profile *p = cg_new();
	plumb_error err;
	plumb_id file = plumb_file_intern(p, "fib.c");
	plumb_id fm = plumb_function_intern(p, "main", NULL, PLUMB_NONE, file, 2);
	plumb_id ff = plumb_function_intern(p, "fib", NULL, PLUMB_NONE, file, 10);
	plumb_id m3 = plumb_frame_intern(p, fm, PLUMB_NONE, 3, 0);
	plumb_id f11 = plumb_frame_intern(p, ff, PLUMB_NONE, 11, 0);
	plumb_id f12 = plumb_frame_intern(p, ff, PLUMB_NONE, 12, 0);
	uint64_t one = 1, forty = 40, sixty = 60, incl100 = 100, incl300 = 300;
	cr_assert_eq(plumb_cg_add_self(p, 0, m3, &one, &err), 0);
	cr_assert_eq(plumb_cg_add_self(p, 0, f11, &forty, &err), 0);
	cr_assert_eq(plumb_cg_add_self(p, 0, f12, &sixty, &err), 0);
	cr_assert_geq(plumb_arc_add(p, 0, m3, ff, 1, &incl100, &err), 0);
	cr_assert_geq(plumb_arc_add(p, 0, f12, ff, 30, &incl300, &err), 0);
	plumb_metrics *m = metrics(p, PLUMB_LEVEL_LINE, false);
	cr_expect_eq(m->totals[0], 101);
	for (size_t k = 0; k < m->nkeys; k++) {
		if (m->keys[k].line == 12)
			cr_expect_eq(m->inclusive[k], 60);
		if (m->keys[k].line == 3)
			cr_expect_eq(m->inclusive[k], 101);
	}
	/* The arc from line 12 is recursive; main's call is not. */
	for (size_t a = 0; a < m->narcs; a++)
		cr_expect_eq(m->arc_in_scc[a], m->keys[m->arcs[a].caller].line == 12, "arc %zu", a);
	check_bounds(m);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}

/* ---- parts ----------------------------------------------------------------- */

/* Part 1 holds the mutual recursion, part 2 only main -> C (self 3 + 9). */
Test(cycles, part_selection)
{
	plumb_profile *p = mutual();
	plumb_id part2 = plumb_part_add(p, PLUMB_PART_DUMP, "dump 2", -1, -1);
	self_in(p, part2, "main", 3);
	self_in(p, part2, "C", 9);
	call_in(p, part2, "main", "C", 1, 9);
	plumb_metrics_opts o;
	plumb_metrics_opts_init(&o);
	o.part = part2;
	plumb_metrics *m = NULL;
	plumb_error err;
	cr_assert_eq(plumb_metrics_compute(p, &o, &m, &err), 0, "%s", err.message);
	cr_expect_eq(m->totals[0], 12);
	cr_expect_eq(incl(p, m, "main"), 12);
	cr_expect_eq(m->ncycles, 0);
	plumb_metrics_free(m);
	m = metrics(p, PLUMB_LEVEL_FUNCTION, false);
	cr_expect_eq(m->totals[0], 49);
	cr_expect_eq(incl(p, m, "main"), 49);
	cr_expect_eq(m->ncycles, 1);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}

/* A CCT profile has exact inclusive costs and no cycles, even with A <-> B. */
Test(cycles, cct_profiles_have_no_cycles)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	plumb_event_add(p, "samples", NULL, NULL, &err);
	plumb_id part = plumb_part_default(p);
	plumb_id fr[4] = { frame(p, "main"), frame(p, "A"), frame(p, "B"), frame(p, "A") };
	uint64_t w = 5;
	cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, part, fr, 4), &w, &err), 0);
	plumb_metrics *m = metrics(p, PLUMB_LEVEL_FUNCTION, false);
	cr_expect_eq(m->ncycles, 0);
	cr_expect_eq(incl(p, m, "A"), 5);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}

/* ---- a million vertices ---------------------------------------------------- */

#define BIG 1000000u

/* One cycle 0 -> 1 -> ... -> n-1 -> 0: one component, closed by a back
 * edge to the search's first vertex (the case KCachegrind's cycleDFS
 * misses). A chain 0 -> ... -> n-1: n components, each edge to a smaller
 * number. A recursive search would need a million C stack frames. */
Test(cycles, scc_of_a_million_vertices)
{
	uint32_t *start = malloc((BIG + 1) * sizeof *start), *adj = malloc(BIG * sizeof *adj);
	uint32_t *comp = malloc(BIG * sizeof *comp);
	cr_assert(start && adj && comp);
	for (uint32_t v = 0; v <= BIG; v++)
		start[v] = v;
	for (uint32_t v = 0; v < BIG; v++)
		adj[v] = (v + 1) % BIG;
	cr_expect_eq(plumb_scc(BIG, start, adj, comp), 1);
	for (uint32_t v = 0; v < BIG; v += 99991)
		cr_expect_eq(comp[v], 0);
	/* The chain: the last vertex has no edge. */
	start[BIG] = BIG - 1;
	cr_expect_eq(plumb_scc(BIG, start, adj, comp), (long)BIG);
	for (uint32_t v = 0; v + 1 < BIG; v += 99991)
		cr_expect_gt(comp[v], comp[v + 1]);
	free(start);
	free(adj);
	free(comp);
}

/* The same through the metrics: a million functions f0 -> f1 -> ... in one
 * cycle (f999999 -> f0), each self 1, each arc's cost nested. One cycle of
 * a million members, inclusive = self = 1,000,000 = the total; then the
 * chain without the back arc: f0's inclusive is the whole million. */
Test(cycles, metrics_of_a_million_function_cycle_and_chain)
{
	for (int closed = 1; closed >= 0; closed--) {
		plumb_profile *p = cg_new();
		plumb_error err;
		plumb_id *fr = malloc(BIG * sizeof *fr);
		cr_assert(fr);
		char name[32];
		uint64_t one = 1;
		for (uint32_t i = 0; i < BIG; i++) {
			snprintf(name, sizeof name, "f%u", i);
			fr[i] = frame(p, name);
			cr_assert_eq(plumb_cg_add_self(p, 0, fr[i], &one, &err), 0);
		}
		for (uint32_t i = 0; i + 1 < BIG + (uint32_t)closed; i++) {
			uint64_t cost = BIG - (i + 1) % BIG;
			cr_assert_geq(plumb_arc_add(p, 0, fr[i], p->frames.v[fr[(i + 1) % BIG]].function, 1,
						    &cost, &err), 0);
		}
		plumb_metrics *m = metrics(p, PLUMB_LEVEL_FUNCTION, false);
		cr_expect_eq(m->totals[0], BIG);
		if (closed) {
			cr_assert_eq(m->ncycles, 1);
			cr_expect_eq(plumb_metrics_cycle(m, 1)->n, BIG);
			cr_expect_eq(m->cycle_inclusive[0], BIG);
			cr_expect_eq(m->inclusive[0], 1);
		} else {
			cr_expect_eq(m->ncycles, 0);
			cr_expect_eq(m->inclusive[0], BIG);
		}
		plumb_metrics_free(m);
		free(fr);
		plumb_profile_free(p);
	}
}

/* A flat table's metrics of a call graph (keys_only) are made from the
 * profile's arcs without arcs of their own; keys, costs, calls and cycles
 * must be the full metrics', at every level and for every part. */
static void same_u64(const uint64_t *a, const uint64_t *b, size_t n, const char *what,
		     const char *f, int level, int part)
{
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(a[i], b[i], "%s, level %d, part %d: %s[%zu] %llu, want %llu", f, level, part,
			     what, i, (unsigned long long)a[i], (unsigned long long)b[i]);
}

Test(cycles, keys_only_metrics_of_call_graphs_are_the_full_ones)
{
	/* two parts, a cycle a <-> b in each, a self call, calls into the cycle */
	char parts[] = "/tmp/plumb-keys-only-XXXXXX";
	int fd = mkstemp(parts);
	cr_assert_geq(fd, 0);
	static const char two_parts[] =
		"events: Ir\npart: 1\nfl=x.c\nfn=main\n1 5\ncfn=a\ncalls=2 10\n2 100\n"
		"fn=a\n10 7\ncfn=b\ncalls=3 20\n11 60\ncfn=a\ncalls=1 10\n12 9\n"
		"fl=y.c\nfn=b\n20 11\ncfn=a\ncalls=4 10\n21 30\ncfn=c\ncalls=1 30\n22 8\nfn=c\n30 8\n"
		"totals: 31\npart: 2\nfl=x.c\nfn=main\n1 1\ncfn=b\ncalls=1 20\n2 50\n"
		"fl=y.c\nfn=b\n20 20\ncfn=a\ncalls=2 10\n21 29\nfl=x.c\nfn=a\n10 9\ncfn=b\ncalls=1 20\n11 20\n";
	cr_assert_eq(write(fd, two_parts, sizeof two_parts - 1), (ssize_t)(sizeof two_parts - 1));
	close(fd);
	const char *const files[] = { "tests/data/cycles/mutual.callgrind",
				      "tests/data/cycles/derived.callgrind",
				      "tests/data/callgrind/spec_example.cg",
				      "tests/data/callgrind/calls0.cg",
				      "tests/data/callgrind/callee_file.cg",
				      "tests/data/callgrind/inline.cg",
				      "tests/data/callgrind/lsprof.cg",
				      "tests/data/callgrind/table_growth.cg", parts };
	for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
		plumb_profile *p = plumb_profile_new();
		plumb_error err;
		plumb_format fmt;
		cr_assert_eq(plumb_read_file(p, files[f], NULL, &fmt, &err), 0, "%s", err.message);
		cr_assert_gt(p->arcs.n, 0, "%s has no arcs", files[f]);
		for (int level = PLUMB_LEVEL_LINE; level <= PLUMB_LEVEL_MODULE; level++) {
			for (int part = -1; part < (int)p->parts.n; part++) {
				plumb_metrics_opts o;
				plumb_metrics_opts_init(&o);
				o.level = (plumb_level)level;
				o.part = part < 0 ? PLUMB_NONE : (plumb_id)part;
				plumb_metrics *full = NULL, *keys = NULL;
				cr_assert_eq(plumb_metrics_compute(p, &o, &full, &err), 0, "%s", err.message);
				o.keys_only = true;
				cr_assert_eq(plumb_metrics_compute(p, &o, &keys, &err), 0, "%s", err.message);
				size_t nk = full->nkeys, nev = full->nevents;
				cr_assert_eq(keys->nkeys, nk);
				cr_expect_eq(keys->narcs, 0);
				cr_assert_eq(memcmp(keys->keys, full->keys, nk * sizeof *full->keys), 0);
				same_u64(keys->exclusive, full->exclusive, nk * nev, "exclusive", files[f], level, part);
				same_u64(keys->inclusive, full->inclusive, nk * nev, "inclusive", files[f], level, part);
				same_u64(keys->calls, full->calls, nk, "calls", files[f], level, part);
				same_u64(keys->totals, full->totals, nev, "totals", files[f], level, part);
				cr_expect_eq(keys->inclusive_estimated, full->inclusive_estimated);
				cr_assert_eq(keys->ncycles, full->ncycles, "%s, level %d", files[f], level);
				size_t nc = full->ncycles;
				if (nc) {
					cr_expect_eq(memcmp(keys->cycle, full->cycle, nk * sizeof *full->cycle), 0);
					same_u64(keys->cycle_exclusive, full->cycle_exclusive, nc * nev, "cycle excl",
						 files[f], level, part);
					same_u64(keys->cycle_inclusive, full->cycle_inclusive, nc * nev, "cycle incl",
						 files[f], level, part);
					for (size_t c = 0; c < nc; c++)
						cr_expect_eq(keys->cycles[c].calls, full->cycles[c].calls);
				}
				plumb_metrics_free(full);
				plumb_metrics_free(keys);
			}
		}
		plumb_profile_free(p);
	}
	unlink(parts);
}
