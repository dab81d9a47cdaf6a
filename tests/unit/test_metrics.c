/* Metrics: seed 004's Figure 2-1, recursion, and the invariants on random stacks. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/analysis.h"

/* Build a one-event profile from "a;b;c" stacks and weights. */
static plumb_profile *from_stacks(const char *const *stacks, const uint64_t *w, size_t n)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "samples", "Samples", "samples", &err), 0);
	plumb_id part = plumb_part_default(p);
	for (size_t i = 0; i < n; i++) {
		plumb_id frames[64];
		size_t nf = 0;
		char *copy = strdup(stacks[i]), *save = NULL;
		for (char *t = strtok_r(copy, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
			plumb_id fn = plumb_function_intern(p, t, NULL, PLUMB_NONE, PLUMB_NONE, 0);
			frames[nf++] = plumb_frame_intern(p, fn, PLUMB_NONE, 0, 0);
		}
		free(copy);
		plumb_id node = plumb_cct_path(p, part, frames, nf);
		cr_assert_neq(node, PLUMB_NONE);
		cr_assert_eq(plumb_cct_add_self(p, node, &w[i], &err), 0, "%s", err.message);
	}
	return p;
}

static plumb_metrics *metrics_of(const plumb_profile *p)
{
	plumb_metrics *m = NULL;
	plumb_error err;
	cr_assert_eq(plumb_metrics_compute(p, NULL, &m, &err), 0, "%s", err.message);
	return m;
}

static long key(const plumb_profile *p, const plumb_metrics *m, const char *name)
{
	for (size_t k = 0; k < m->nkeys; k++)
		if (strcmp(plumb_function_name(p, m->keys[k].function), name) == 0)
			return (long)k;
	cr_assert_fail("no function %s", name);
	return -1;
}

static long arc(const plumb_profile *p, const plumb_metrics *m, const char *from, const char *to)
{
	long a = key(p, m, from), b = key(p, m, to);
	for (size_t i = 0; i < m->narcs; i++)
		if (m->arcs[i].caller == (uint32_t)a && m->arcs[i].callee == (uint32_t)b)
			return (long)i;
	return -1;
}

static uint64_t excl(const plumb_profile *p, const plumb_metrics *m, const char *f)
{
	return plumb_metrics_excl(m, (size_t)key(p, m, f))[0];
}
static uint64_t incl(const plumb_profile *p, const plumb_metrics *m, const char *f)
{
	return plumb_metrics_incl(m, (size_t)key(p, m, f))[0];
}
/* The caller's view of from->to (callee attribution of `from`). */
static uint64_t callee_attr(const plumb_profile *p, const plumb_metrics *m, const char *from,
			    const char *to)
{
	long a = arc(p, m, from, to);
	cr_assert_geq(a, 0, "no arc %s -> %s", from, to);
	return m->callee_attr[a];
}
/* The callee's view of from->to (caller attribution of `to`). */
static uint64_t caller_attr(const plumb_profile *p, const plumb_metrics *m, const char *from,
			    const char *to)
{
	long a = arc(p, m, from, to);
	cr_assert_geq(a, 0, "no arc %s -> %s", from, to);
	return m->caller_attr[a];
}

/* Figure 2-1: C does 20% itself, 40% in E, 40% in F (F calls G). */
static const char *const fig21[] = {
	"main", "main;A;C", "main;A;C;E", "main;A;C;F", "main;A;C;F;G",
	"main;B", "main;B;C", "main;B;C;E", "main;B;C;F", "main;B;C;F;G",
};
static const uint64_t fig21_w[] = { 2, 2, 4, 2, 2, 5, 3, 6, 3, 3 };

Test(metrics, figure_2_1)
{
	plumb_profile *p = from_stacks(fig21, fig21_w, 10);
	plumb_metrics *m = metrics_of(p);
	cr_expect_eq(m->totals[0], 32);
	cr_expect_eq(incl(p, m, "main"), 32);
	cr_expect_eq(excl(p, m, "main"), 2);
	cr_expect_eq(excl(p, m, "A"), 0);
	cr_expect_eq(incl(p, m, "A"), 10);
	cr_expect_eq(excl(p, m, "B"), 5);
	cr_expect_eq(incl(p, m, "B"), 20);
	cr_expect_eq(excl(p, m, "C"), 5);
	cr_expect_eq(incl(p, m, "C"), 25);
	cr_expect_eq(callee_attr(p, m, "main", "A"), 10);
	cr_expect_eq(callee_attr(p, m, "main", "B"), 20);
	cr_expect_eq(caller_attr(p, m, "A", "C"), 10);
	cr_expect_eq(caller_attr(p, m, "B", "C"), 15);
	cr_expect_eq(callee_attr(p, m, "C", "E"), 10);
	cr_expect_eq(callee_attr(p, m, "C", "F"), 10);
	cr_expect_eq(incl(p, m, "E"), 10);
	cr_expect_eq(excl(p, m, "E"), 10);
	cr_expect_eq(incl(p, m, "F"), 10);
	cr_expect_eq(excl(p, m, "F"), 5);
	cr_expect_eq(incl(p, m, "G"), 5);
	cr_expect_eq(m->calls[key(p, m, "C")], PLUMB_COUNT_UNKNOWN);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}

Test(metrics, direct_recursion_counted_once)
{
	static const char *const s[] = { "main;f;f;f", "main;f" };
	static const uint64_t w[] = { 10, 5 };
	plumb_profile *p = from_stacks(s, w, 2);
	plumb_metrics *m = metrics_of(p);
	cr_expect_eq(incl(p, m, "f"), 15);
	cr_expect_eq(excl(p, m, "f"), 15);
	cr_expect_eq(incl(p, m, "main"), 15);
	/* The higher activations count zero: the deep stack is attributed to f itself. */
	cr_expect_eq(caller_attr(p, m, "main", "f"), 5);
	cr_expect_eq(caller_attr(p, m, "f", "f"), 10);
	/* main, as a caller, attributes all of f's work to its call of f. */
	cr_expect_eq(callee_attr(p, m, "main", "f"), 15);
	cr_expect_eq(callee_attr(p, m, "f", "f"), 0);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}

Test(metrics, mutual_recursion_counted_once)
{
	static const char *const s[] = { "main;a;b;a;b", "main;a;b;a", "main;a" };
	static const uint64_t w[] = { 4, 3, 1 };
	plumb_profile *p = from_stacks(s, w, 3);
	plumb_metrics *m = metrics_of(p);
	cr_expect_eq(incl(p, m, "a"), 8);
	cr_expect_eq(incl(p, m, "b"), 7);
	cr_expect_eq(excl(p, m, "a"), 4);
	cr_expect_eq(excl(p, m, "b"), 4);
	cr_expect_eq(caller_attr(p, m, "b", "a"), 7);
	cr_expect_eq(caller_attr(p, m, "main", "a"), 1);
	cr_expect_eq(caller_attr(p, m, "a", "b"), 7);
	cr_expect_eq(callee_attr(p, m, "a", "b"), 4);
	cr_expect_eq(callee_attr(p, m, "b", "a"), 3);
	cr_expect_eq(callee_attr(p, m, "main", "a"), 8);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}

Test(metrics, activation_counts_become_calls)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	plumb_event_add(p, "samples", NULL, NULL, &err);
	plumb_id part = plumb_part_default(p);
	plumb_id fm = plumb_function_intern(p, "main", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_id ff = plumb_function_intern(p, "f", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_id fr[2] = { plumb_frame_intern(p, fm, PLUMB_NONE, 0, 0),
			   plumb_frame_intern(p, ff, PLUMB_NONE, 0, 0) };
	plumb_id top = plumb_cct_path(p, part, fr, 1), leaf = plumb_cct_path(p, part, fr, 2);
	uint64_t one = 1;
	plumb_cct_add_self(p, leaf, &one, &err);
	plumb_cct_add_activations(p, top, 1, &err);
	plumb_cct_add_activations(p, leaf, 7, &err);
	plumb_metrics *m = metrics_of(p);
	cr_expect_eq(m->calls[key(p, m, "f")], 7);
	cr_expect_eq(m->arcs[arc(p, m, "main", "f")].calls, 7);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}

Test(metrics, overflow_is_an_error_not_a_wrap)
{
	static const char *const s[] = { "main;f", "main;g" };
	static const uint64_t w[] = { UINT64_MAX - 1, 5 };
	plumb_profile *p = from_stacks(s, w, 2);
	plumb_metrics *m = NULL;
	plumb_error err;
	cr_expect_eq(plumb_metrics_compute(p, NULL, &m, &err), -1);
	cr_expect_eq(err.code, PLUMB_ERR_OVERFLOW);
	plumb_profile_free(p);
}

Test(metrics, focus_keeps_stacks_through_a_function)
{
	plumb_profile *p = from_stacks(fig21, fig21_w, 10);
	plumb_symspec_list focus = { 0 };
	plumb_error err;
	cr_assert_eq(plumb_symspec_list_add(&focus, "A", &err), 0);
	plumb_metrics_opts o;
	plumb_metrics_opts_init(&o);
	o.focus = &focus;
	plumb_metrics *m = NULL;
	cr_assert_eq(plumb_metrics_compute(p, &o, &m, &err), 0, "%s", err.message);
	cr_expect_eq(m->totals[0], 10);
	cr_expect_eq(incl(p, m, "main"), 10);
	cr_expect_eq(incl(p, m, "C"), 10);
	cr_expect_eq(incl(p, m, "B"), 0);
	uint64_t ft = 0;
	cr_assert_eq(plumb_focus_totals(p, &focus, &ft, &err), 0);
	cr_expect_eq(ft, m->totals[0]);
	plumb_metrics_free(m);
	plumb_symspec_list_free(&focus);
	plumb_profile_free(p);
}

/* Random stacks over a small alphabet (so recursion is common), checked
 * against a brute-force count and the two invariants of DESIGN.md. */
Test(metrics, invariants_on_random_stacks)
{
	static const char *const names[] = { "a", "b", "c", "d", "e", "main" };
	srand(12345);
	for (int round = 0; round < 40; round++) {
		enum { N = 60 };
		char *stacks[N];
		uint64_t w[N];
		for (int i = 0; i < N; i++) {
			char buf[256] = "";
			int depth = 1 + rand() % 9;
			for (int d = 0; d < depth; d++) {
				if (d)
					strcat(buf, ";");
				strcat(buf, names[rand() % 6]);
			}
			stacks[i] = strdup(buf);
			w[i] = 1 + (uint64_t)(rand() % 100);
		}
		plumb_profile *p = from_stacks((const char *const *)stacks, w, N);
		plumb_metrics *m = metrics_of(p);
		for (size_t k = 0; k < m->nkeys; k++) {
			const char *name = plumb_function_name(p, m->keys[k].function);
			uint64_t brute_incl = 0, brute_excl = 0, total = 0;
			for (int i = 0; i < N; i++) {
				total += w[i];
				char *copy = strdup(stacks[i]), *save = NULL, *last = NULL;
				bool on = false;
				for (char *t = strtok_r(copy, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
					on |= strcmp(t, name) == 0;
					last = t;
				}
				if (on)
					brute_incl += w[i];
				if (last && strcmp(last, name) == 0)
					brute_excl += w[i];
				free(copy);
			}
			cr_assert_eq(m->inclusive[k], brute_incl, "round %d %s", round, name);
			cr_assert_eq(m->exclusive[k], brute_excl, "round %d %s", round, name);
			cr_assert_eq(m->totals[0], total);
			uint64_t out = 0, in = 0;
			for (uint32_t i = m->out_start[k]; i < m->out_start[k + 1]; i++)
				out += m->callee_attr[m->out_arcs[i]];
			for (uint32_t i = m->in_start[k]; i < m->in_start[k + 1]; i++)
				in += m->caller_attr[m->in_arcs[i]];
			cr_assert_eq(m->inclusive[k], m->exclusive[k] + out, "round %d %s", round, name);
			cr_assert_eq(in, m->inclusive[k] - m->root[k], "round %d %s", round, name);
		}
		/* Every arc against the rule itself: at the innermost g of each
		 * stack, f(i-1) -> g gets the caller's share, g -> f(i+1) the callee's. */
		for (size_t a = 0; a < m->narcs; a++) {
			const char *from = plumb_function_name(p, m->keys[m->arcs[a].caller].function);
			const char *to = plumb_function_name(p, m->keys[m->arcs[a].callee].function);
			uint64_t want_caller = 0, want_callee = 0;
			for (int i = 0; i < N; i++) {
				const char *f[16];
				int nf = 0;
				char *copy = strdup(stacks[i]), *save = NULL;
				for (char *t = strtok_r(copy, ";", &save); t; t = strtok_r(NULL, ";", &save))
					f[nf++] = t;
				int in_to = -1, in_from = -1; /* innermost occurrences */
				for (int j = 0; j < nf; j++) {
					if (strcmp(f[j], to) == 0)
						in_to = j;
					if (strcmp(f[j], from) == 0)
						in_from = j;
				}
				if (in_to > 0 && strcmp(f[in_to - 1], from) == 0)
					want_caller += w[i];
				if (in_from >= 0 && in_from + 1 < nf && strcmp(f[in_from + 1], to) == 0)
					want_callee += w[i];
				free(copy);
			}
			cr_assert_eq(m->caller_attr[a], want_caller, "round %d %s -> %s: caller share %llu, want %llu",
				     round, from, to, (unsigned long long)m->caller_attr[a],
				     (unsigned long long)want_caller);
			cr_assert_eq(m->callee_attr[a], want_callee, "round %d %s -> %s: callee share %llu, want %llu",
				     round, from, to, (unsigned long long)m->callee_attr[a],
				     (unsigned long long)want_callee);
		}
		/* A flat table's metrics: the same keys, costs and calls, no arcs. */
		plumb_metrics_opts ko;
		plumb_metrics_opts_init(&ko);
		ko.keys_only = true;
		plumb_metrics *km = NULL;
		plumb_error err;
		cr_assert_eq(plumb_metrics_compute(p, &ko, &km, &err), 0, "%s", err.message);
		cr_assert_eq(km->nkeys, m->nkeys);
		cr_assert_eq(km->narcs, 0, "keys_only made %zu arcs", km->narcs);
		cr_assert_eq(memcmp(km->exclusive, m->exclusive, m->nkeys * sizeof(uint64_t)), 0);
		cr_assert_eq(memcmp(km->inclusive, m->inclusive, m->nkeys * sizeof(uint64_t)), 0);
		cr_assert_eq(memcmp(km->calls, m->calls, m->nkeys * sizeof(uint64_t)), 0);
		cr_assert_eq(km->totals[0], m->totals[0]);
		plumb_metrics_free(km);
		plumb_metrics_free(m);
		plumb_profile_free(p);
		for (int i = 0; i < N; i++)
			free(stacks[i]);
	}
}

Test(metrics, invariants_hold_at_file_and_module_level)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	plumb_event_add(p, "samples", NULL, NULL, &err);
	plumb_id part = plumb_part_default(p);
	plumb_id mod1 = plumb_module_intern(p, "/bin/x", NULL), mod2 = plumb_module_intern(p, "/lib/y.so", NULL);
	plumb_id f1 = plumb_file_intern(p, "x.c"), f2 = plumb_file_intern(p, "y.c");
	plumb_id fns[4] = {
		plumb_function_intern(p, "main", NULL, mod1, f1, 1),
		plumb_function_intern(p, "lib", NULL, mod2, f2, 5),
		plumb_function_intern(p, "cb", NULL, mod1, f1, 9),
		plumb_function_intern(p, "leaf", NULL, mod2, f2, 20),
	};
	plumb_id fr[4];
	for (int i = 0; i < 4; i++)
		fr[i] = plumb_frame_intern(p, fns[i], PLUMB_NONE, 10 + (uint32_t)i, 0);
	uint64_t w1 = 3, w2 = 4;
	plumb_cct_add_self(p, plumb_cct_path(p, part, fr, 4), &w1, &err); /* x y x y */
	plumb_cct_add_self(p, plumb_cct_path(p, part, fr, 2), &w2, &err); /* x y */
	for (int level = PLUMB_LEVEL_LINE; level <= PLUMB_LEVEL_MODULE; level++) {
		plumb_metrics_opts o;
		plumb_metrics_opts_init(&o);
		o.level = (plumb_level)level;
		plumb_metrics *m = NULL;
		cr_assert_eq(plumb_metrics_compute(p, &o, &m, &err), 0);
		for (size_t k = 0; k < m->nkeys; k++) {
			uint64_t out = 0, in = 0;
			for (uint32_t i = m->out_start[k]; i < m->out_start[k + 1]; i++)
				out += m->callee_attr[m->out_arcs[i]];
			for (uint32_t i = m->in_start[k]; i < m->in_start[k + 1]; i++)
				in += m->caller_attr[m->in_arcs[i]];
			cr_assert_eq(m->inclusive[k], m->exclusive[k] + out);
			cr_assert_eq(in, m->inclusive[k] - m->root[k]);
			cr_assert_leq(m->inclusive[k], 7);
		}
		if (level == PLUMB_LEVEL_MODULE) {
			/* Both modules are on both stacks: each counts 7 once. */
			for (size_t k = 0; k < m->nkeys; k++)
				cr_expect_eq(m->inclusive[k], 7);
		}
		plumb_metrics_free(m);
	}
	plumb_profile_free(p);
}

/* A call graph without contexts (what Callgrind and gmon.out give): self
 * cost per frame, arcs with call counts and, where known, inclusive cost. */
Test(metrics, call_graph_self_costs_and_arcs)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	plumb_event_add(p, "Ir", NULL, NULL, &err);
	plumb_id part = plumb_part_default(p);
	plumb_id fm = plumb_function_intern(p, "main", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_id fa = plumb_function_intern(p, "a", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_id fb = plumb_function_intern(p, "b", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_id rm = plumb_frame_intern(p, fm, PLUMB_NONE, 3, 0);
	plumb_id ra = plumb_frame_intern(p, fa, PLUMB_NONE, 7, 0);
	plumb_id rb = plumb_frame_intern(p, fb, PLUMB_NONE, 9, 0);
	uint64_t sm = 10, sa = 20, sb = 30, ia = 50, ib = 30;
	cr_assert_eq(plumb_cg_add_self(p, part, rm, &sm, &err), 0);
	cr_assert_eq(plumb_cg_add_self(p, part, ra, &sa, &err), 0);
	cr_assert_eq(plumb_cg_add_self(p, part, rb, &sb, &err), 0);
	cr_assert_geq(plumb_arc_add(p, part, rm, fa, 2, &ia, &err), 0); /* main -> a: 2 calls, 50 incl */
	cr_assert_geq(plumb_arc_add(p, part, ra, fb, 5, &ib, &err), 0); /* a -> b: 5 calls, 30 incl */
	plumb_metrics *m = metrics_of(p);
	cr_expect_eq(m->totals[0], 60);
	cr_expect_eq(excl(p, m, "a"), 20);
	cr_expect_eq(incl(p, m, "a"), 50);
	cr_expect_eq(incl(p, m, "main"), 60);
	cr_expect_eq(incl(p, m, "b"), 30);
	cr_expect_eq(m->calls[key(p, m, "b")], 5);
	cr_expect_eq(m->arcs[arc(p, m, "main", "a")].calls, 2);
	cr_expect_eq(callee_attr(p, m, "a", "b"), 30);
	cr_expect_eq(caller_attr(p, m, "main", "a"), 50);
	cr_expect_not(m->inclusive_estimated);
	plumb_metrics_free(m);
	/* An arc without inclusive cost makes inclusive an estimate. */
	cr_assert_geq(plumb_arc_add(p, part, rm, fb, 1, NULL, &err), 0);
	m = metrics_of(p);
	cr_expect(m->inclusive_estimated);
	cr_expect_eq(m->calls[key(p, m, "b")], 6);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}
