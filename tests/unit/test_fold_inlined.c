/* Inlined frames folded into their callers (plumb report --inline=no). */
#include <criterion/criterion.h>
#include <string.h>

#include "plumb/analysis.h"

/* main (0x10) -> hot at 0x40, with inl inlined in hot (same address 0x40),
 * and leaf called from inl's code at 0x50 (a real call: another address). */
static plumb_profile *inlined_profile(void)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "samples", "Samples", "samples", &err), 0);
	plumb_id part = plumb_part_default(p);
	plumb_id mod = plumb_module_intern(p, "/bin/x", NULL);
	plumb_id fmain = plumb_function_intern(p, "main", NULL, mod, PLUMB_NONE, 0);
	plumb_id fhot = plumb_function_intern(p, "hot", NULL, mod, PLUMB_NONE, 0);
	plumb_id finl = plumb_function_intern(p, "inl", NULL, mod, PLUMB_NONE, 0);
	plumb_id fleaf = plumb_function_intern(p, "leaf", NULL, mod, PLUMB_NONE, 0);
	plumb_id m = plumb_frame_intern(p, fmain, PLUMB_NONE, 3, 0x10);
	plumb_id h = plumb_frame_intern(p, fhot, PLUMB_NONE, 20, 0x40);
	plumb_id i = plumb_frame_intern(p, finl, PLUMB_NONE, 8, 0x40);
	plumb_id h2 = plumb_frame_intern(p, fhot, PLUMB_NONE, 21, 0x50);
	plumb_id i2 = plumb_frame_intern(p, finl, PLUMB_NONE, 9, 0x50);
	plumb_id l = plumb_frame_intern(p, fleaf, PLUMB_NONE, 30, 0x90);
	const plumb_id s1[] = { m, h, i }, s2[] = { m, h2, i2, l }, s3[] = { m, h };
	const uint64_t w1 = 7, w2 = 5, w3 = 2;
	cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, part, s1, 3), &w1, &err), 0);
	cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, part, s2, 4), &w2, &err), 0);
	cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, part, s3, 2), &w3, &err), 0);
	return p;
}

static const uint64_t *cost(const plumb_profile *p, const plumb_metrics *m, const char *name,
			    bool incl)
{
	for (size_t k = 0; k < m->nkeys; k++)
		if (strcmp(plumb_function_name(p, m->keys[k].function), name) == 0)
			return incl ? plumb_metrics_incl(m, k) : plumb_metrics_excl(m, k);
	return NULL;
}

Test(fold_inlined, marks_only_frames_at_their_callers_address)
{
	plumb_profile *p = inlined_profile();
	cr_assert(plumb_frame_inlined_into(p, 2, 1));   /* inl at hot's 0x40 */
	cr_assert_not(plumb_frame_inlined_into(p, 1, 0)); /* hot called from main */
	cr_assert_not(plumb_frame_inlined_into(p, 5, 4)); /* leaf called from inl */
	cr_assert_not(plumb_frame_inlined_into(p, 1, 1));
	plumb_profile_free(p);
}

Test(fold_inlined, moves_cost_into_the_caller_and_lists_the_callee_nowhere)
{
	plumb_profile *p = inlined_profile(), *q = NULL;
	plumb_error err;
	size_t n = 0;
	cr_assert_eq(plumb_profile_fold_inlined(p, &q, &n, &err), 0, "%s", err.message);
	cr_assert_eq(n, 2);
	plumb_metrics *m = NULL;
	cr_assert_eq(plumb_metrics_compute(q, NULL, &m, &err), 0, "%s", err.message);
	const uint64_t *inl = cost(q, m, "inl", true);
	cr_assert(!inl || inl[0] == 0, "inl still has a cost");
	cr_assert_eq(cost(q, m, "hot", false)[0], 7 + 2);
	cr_assert_eq(cost(q, m, "hot", true)[0], 14);
	cr_assert_eq(cost(q, m, "leaf", false)[0], 5);
	cr_assert_eq(m->totals[0], 14);
	/* leaf's caller is now hot */
	bool hot_calls_leaf = false;
	for (size_t a = 0; a < m->narcs; a++)
		if (strcmp(plumb_function_name(q, m->keys[m->arcs[a].caller].function), "hot") == 0 &&
		    strcmp(plumb_function_name(q, m->keys[m->arcs[a].callee].function), "leaf") == 0)
			hot_calls_leaf = true;
	cr_assert(hot_calls_leaf);
	plumb_metrics_free(m);
	plumb_profile_free(q);
	plumb_profile_free(p);
}
