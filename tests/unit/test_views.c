/* Views over a profile with two events: every event gets its columns, or
 * only the one --metric picks; sorting and percentages use that event. */
#include <criterion/criterion.h>
#include <string.h>

#include "plumb/analysis.h"

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
