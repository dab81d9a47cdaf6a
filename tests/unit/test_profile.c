/* The model's lookup tables: reserving room and dropping them once a
 * profile is complete must never change what an add finds. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "plumb/profile.h"

static plumb_profile *small_call_graph(plumb_id *fr, plumb_id *fn)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "Ir", NULL, NULL, &err), 0);
	plumb_id part = plumb_part_default(p);
	plumb_part_add(p, PLUMB_PART_THREAD, "t2", 1, 2);
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof name, "f%d", i);
		fn[i] = plumb_function_intern(p, name, NULL, PLUMB_NONE, PLUMB_NONE, 0);
		fr[i] = plumb_frame_intern(p, fn[i], PLUMB_NONE, 10 + (uint32_t)i, 0x1000 + (uint64_t)i);
		uint64_t c = 5;
		cr_assert_eq(plumb_cg_add_self(p, part, fr[i], &c, &err), 0);
		cr_assert_eq(plumb_cg_add_self(p, 1, fr[i], &c, &err), 0); /* a second part: hashed */
	}
	uint64_t incl = 7;
	cr_assert_geq(plumb_arc_add(p, part, fr[0], fn[1], 2, &incl, &err), 0);
	return p;
}

Test(profile, dropped_lookups_find_the_same_entries)
{
	plumb_id fr[3], fn[3];
	plumb_profile *p = small_call_graph(fr, fn);
	plumb_error err;
	size_t nframes = p->frames.n, ncg = p->cg_self.n, narcs = p->arcs.n;
	plumb_profile_drop_lookups(p);
	cr_expect_eq(p->frame_ix.nslots, 0);
	/* the same position is the same frame */
	cr_expect_eq(plumb_frame_intern(p, fn[1], PLUMB_NONE, 11, 0x1001), fr[1]);
	cr_expect_eq(p->frames.n, nframes);
	/* costs of both parts land on their entries, not new ones */
	uint64_t c = 1;
	cr_assert_eq(plumb_cg_add_self(p, 0, fr[2], &c, &err), 0);
	cr_assert_eq(plumb_cg_add_self(p, 1, fr[2], &c, &err), 0);
	cr_expect_eq(p->cg_self.n, ncg);
	uint64_t tot[1];
	cr_assert_eq(plumb_profile_totals(p, tot, &err), 0);
	cr_expect_eq(tot[0], 3 * 5 * 2 + 2);
	/* the arc too, and new entries still come */
	uint64_t incl = 1;
	cr_expect_eq(plumb_arc_add(p, 0, fr[0], fn[1], 1, &incl, &err), 0);
	cr_expect_eq(p->arcs.n, narcs);
	cr_expect_eq(p->arcs.v[0].calls, 3);
	cr_expect_eq(p->arc_incl.v[0], 8);
	cr_expect_eq(plumb_frame_intern(p, fn[0], PLUMB_NONE, 99, 0), nframes);
	plumb_profile_drop_lookups(p);
	plumb_profile_drop_lookups(p); /* twice is harmless */
	cr_expect_eq(plumb_frame_intern(p, fn[0], PLUMB_NONE, 99, 0), nframes);
	plumb_profile_free(p);
}

Test(profile, reserve_keeps_entries)
{
	plumb_id fr[3], fn[3];
	plumb_profile *p = small_call_graph(fr, fn);
	plumb_error err;
	cr_assert_eq(plumb_profile_reserve(p, 100000, 100000, &err), 0);
	cr_expect_geq(p->frames.cap, 100000);
	for (int i = 0; i < 3; i++)
		cr_expect_eq(plumb_frame_intern(p, fn[i], PLUMB_NONE, 10 + (uint32_t)i, 0x1000 + (uint64_t)i), fr[i]);
	cr_expect_eq(p->frames.n, 3);
	plumb_profile_free(p);
}

/* Nodes and entries made before an event is added get the new width. */
Test(profile, event_added_after_nodes_widens_their_costs)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_not_null(p);
	plumb_id part = plumb_part_default(p);
	cr_assert_eq(plumb_event_add(p, "Ir", NULL, NULL, &err), 0, "%s", err.message);
	plumb_id fn = plumb_function_intern(p, "f", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_id fr = plumb_frame_intern(p, fn, PLUMB_NONE, 0, 0);
	plumb_id node = plumb_cct_child(p, p->parts.v[part].root, fr);
	cr_assert_neq(node, PLUMB_NONE);
	cr_assert_eq(plumb_event_add(p, "Dr", NULL, NULL, &err), 1, "%s", err.message);
	cr_assert_eq(plumb_event_add_derived(p, "Sum", NULL, "Ir + Dr", &err), 2, "%s", err.message);
	cr_expect_eq(p->cct_self.n, p->cct.n * 3, "cct_self %zu for %zu nodes", p->cct_self.n, p->cct.n);
	uint64_t c[3] = { 5, 7, 0 };
	cr_assert_eq(plumb_cct_add_self(p, node, c, &err), 0, "%s", err.message);
	cr_assert_eq(plumb_profile_compute_derived(p, &err), 0, "%s", err.message);
	cr_expect_eq(plumb_cct_self(p, node)[2], 12);
	cr_expect_eq(plumb_cct_self(p, p->parts.v[part].root)[0], 0);
	plumb_profile_free(p);
}

/* plumb_cct_new_path makes the same chain plumb_cct_child would, and the
 * child lookups find its nodes afterwards (they are in the index); more
 * nodes than one prefetch batch, and ids checked. */
Test(profile, new_path_is_the_chain_child_lookups_find)
{
	plumb_id fr[3], fn[3];
	plumb_profile *p = small_call_graph(fr, fn);
	plumb_id root = p->parts.v[0].root, top = plumb_cct_child(p, root, fr[0]);
	enum { N = 40 };
	plumb_id frames[N], nodes[N];
	for (int i = 0; i < N; i++)
		frames[i] = fr[(i + 1) % 3];
	size_t before = p->cct.n;
	cr_assert_eq(plumb_cct_new_path(p, top, frames, N, nodes), 0);
	cr_assert_eq(p->cct.n, before + N);
	plumb_id up = top;
	for (int i = 0; i < N; i++) {
		cr_assert_eq(p->cct.v[nodes[i]].parent, up);
		cr_assert_eq(p->cct.v[nodes[i]].frame, frames[i]);
		cr_assert_eq(p->cct.v[nodes[i]].part, 0);
		cr_assert_eq(plumb_cct_child(p, up, frames[i]), nodes[i], "node %d not found", i);
		up = nodes[i];
	}
	cr_assert_eq(p->cct.n, before + N, "a lookup created a node again");
	cr_assert_eq(plumb_cct_path(p, 0, (plumb_id[]){ fr[0], fr[1], fr[2] }, 3), nodes[1]);
	plumb_id bad = (plumb_id)p->frames.n;
	cr_assert_eq(plumb_cct_new_path(p, top, &bad, 1, nodes), -1);
	cr_assert_eq(plumb_cct_new_path(p, (plumb_id)p->cct.n, frames, 1, nodes), -1);
	plumb_profile_free(p);
}

Test(profile, activations_are_unknown_until_counted)
{
	plumb_id fr[3], fn[3];
	plumb_profile *p = small_call_graph(fr, fn);
	plumb_error err;
	plumb_id root = p->parts.v[0].root;
	plumb_id a = plumb_cct_child(p, root, fr[0]), b = plumb_cct_child(p, a, fr[1]);
	cr_assert_eq(plumb_cct_activations(p, a), PLUMB_COUNT_UNKNOWN);
	cr_assert_eq(plumb_cct_add_activations(p, b, 3, &err), 0);
	cr_assert_eq(plumb_cct_add_activations(p, b, 4, &err), 0);
	cr_assert_eq(plumb_cct_activations(p, b), 7);
	cr_assert_eq(plumb_cct_activations(p, a), PLUMB_COUNT_UNKNOWN);
	/* a node made after the counts: unknown too, until counted */
	plumb_id c = plumb_cct_child(p, b, fr[2]);
	cr_assert_eq(plumb_cct_activations(p, c), PLUMB_COUNT_UNKNOWN);
	cr_assert_eq(plumb_cct_add_activations(p, c, 0, &err), 0);
	cr_assert_eq(plumb_cct_activations(p, c), 0);
	cr_assert_eq(plumb_cct_activations(p, b), 7);
	cr_assert_eq(plumb_cct_add_activations(p, c, PLUMB_COUNT_UNKNOWN, &err), -1);
	plumb_profile_free(p);
}
