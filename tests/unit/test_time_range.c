/* Time ranges (plumb report --time) and the timeline view: parsing, exact
 * slices of a profile of timed samples, buckets that sum to the totals. */
#include <criterion/criterion.h>
#include <string.h>

#include "plumb/analysis.h"
#include "plumb/profile.h"
#include "plumb/table.h"

Test(time_range, parses_seconds_open_sides_and_percent)
{
	plumb_time_range r;
	plumb_error err;
	cr_assert_eq(plumb_time_range_parse("2.5,4", &r, &err), 0, "%s", err.message);
	cr_expect(r.has_start && r.has_end && !r.pct && r.start == 2.5 && r.end == 4);
	cr_assert_eq(plumb_time_range_parse(",1.5", &r, &err), 0, "%s", err.message);
	cr_expect(!r.has_start && r.has_end && r.end == 1.5);
	cr_assert_eq(plumb_time_range_parse("3,", &r, &err), 0, "%s", err.message);
	cr_expect(r.has_start && !r.has_end && r.start == 3);
	cr_assert_eq(plumb_time_range_parse("3", &r, &err), 0, "%s", err.message);
	cr_expect(r.has_start && !r.has_end);
	cr_assert_eq(plumb_time_range_parse("10%-20%", &r, &err), 0, "%s", err.message);
	cr_expect(r.pct && r.start == 10 && r.end == 20);
	cr_assert_eq(plumb_time_range_parse("0%,50%", &r, &err), 0, "%s", err.message);
	cr_expect(r.pct && r.start == 0 && r.end == 50);
}

Test(time_range, refuses_what_it_cannot_mean)
{
	static const char *const bad[] = { "", "x", "1,2,3", "-1,2", "2,1", "10%-20", "10%,2", "50%",
					   "0%-150%", "nan,1", "1e999,", "%-%" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		plumb_time_range r;
		plumb_error err = { 0 };
		cr_expect_neq(plumb_time_range_parse(bad[i], &r, &err), 0, "'%s' was accepted", bad[i]);
		cr_expect(strstr(err.message, "--time") != NULL, "'%s': %s", bad[i], err.message);
	}
}

/* Two threads; function a runs at 0-1 s, b at 1-2 s (one sample each 100 ms). */
static plumb_profile *timed(void)
{
	plumb_error err;
	plumb_profile *p = plumb_profile_new();
	cr_assert_not_null(p);
	cr_assert_eq(plumb_event_add(p, "cpu-clock", NULL, "ns", &err), 0);
	plumb_id m = plumb_module_intern(p, "/bin/t", NULL);
	plumb_id fa = plumb_function_intern(p, "a", NULL, m, PLUMB_NONE, 0);
	plumb_id fb = plumb_function_intern(p, "b", NULL, m, PLUMB_NONE, 0);
	plumb_id fra = plumb_frame_intern(p, fa, PLUMB_NONE, 0, 0x10);
	plumb_id frb = plumb_frame_intern(p, fb, PLUMB_NONE, 0, 0x20);
	plumb_id t1 = plumb_part_add(p, PLUMB_PART_THREAD, "one", 7, 7);
	plumb_id t2 = plumb_part_add(p, PLUMB_PART_THREAD, "two", 7, 8);
	plumb_id na = plumb_cct_path(p, t1, &fra, 1), nb = plumb_cct_path(p, t2, &frb, 1);
	const uint64_t base = 5000000000ull; /* the recording's clock need not start at 0 */
	for (uint64_t i = 0; i < 20; i++) {
		plumb_id node = i < 10 ? na : nb;
		uint64_t w[1] = { 1000 + i };
		cr_assert_eq(plumb_cct_add_self(p, node, w, &err), 0);
		cr_assert_eq(plumb_sample_add(p, base + i * 100000000ull, i < 10 ? t1 : t2, node, w, &err), 0);
	}
	return p;
}

static uint64_t total_of(const plumb_profile *p)
{
	uint64_t s = 0;
	for (size_t i = 0; i < p->cct.n; i++)
		s += plumb_cct_self(p, (plumb_id)i)[0];
	return s;
}

Test(time_range, a_slice_holds_exactly_the_samples_of_its_time)
{
	plumb_profile *p = timed();
	plumb_error err;
	plumb_time_range r;
	plumb_profile *q = NULL;
	size_t kept = 0;
	/* [0.2 s, 0.5 s): samples 2, 3, 4 */
	cr_assert_eq(plumb_time_range_parse("0.2,0.5", &r, &err), 0);
	cr_assert_eq(plumb_profile_time_slice(p, &r, &q, &kept, &err), 0, "%s", err.message);
	cr_expect_eq(kept, 3);
	cr_expect_eq(total_of(q), 1002 + 1003 + 1004, "%llu", (unsigned long long)total_of(q));
	plumb_profile_free(q);
	/* an open end keeps the last sample (at 1.9 s = 100% of the span) */
	cr_assert_eq(plumb_time_range_parse("0.95,", &r, &err), 0);
	cr_assert_eq(plumb_profile_time_slice(p, &r, &q, &kept, &err), 0, "%s", err.message);
	cr_expect_eq(kept, 10);
	uint64_t want = 0;
	for (uint64_t i = 10; i < 20; i++)
		want += 1000 + i;
	cr_expect_eq(total_of(q), want);
	plumb_profile_free(q);
	/* percent of the 1.9 s span: 0%-50% is [0, 0.95 s): samples 0..9 */
	cr_assert_eq(plumb_time_range_parse("0%-50%", &r, &err), 0);
	cr_assert_eq(plumb_profile_time_slice(p, &r, &q, &kept, &err), 0, "%s", err.message);
	cr_expect_eq(kept, 10);
	plumb_profile_free(q);
	plumb_profile_free(p);
}

Test(time_range, costs_without_time_are_refused_not_dropped)
{
	plumb_profile *p = timed();
	plumb_error err = { 0 };
	/* a cost no sample carries (as after merging a folded profile) */
	cr_assert_eq(plumb_cct_add_self(p, (plumb_id)1, (uint64_t[]){ 5 }, &err), 0);
	plumb_time_range r;
	plumb_profile *q = NULL;
	cr_assert_eq(plumb_time_range_parse("0,1", &r, &err), 0);
	cr_expect_neq(plumb_profile_time_slice(p, &r, &q, NULL, &err), 0);
	cr_expect_null(q);
	cr_expect(strstr(err.message, "no time") != NULL, "%s", err.message);
	plumb_profile_free(p);
	p = plumb_profile_new();
	cr_assert_eq(plumb_event_add(p, "samples", NULL, NULL, &err), 0);
	cr_expect_neq(plumb_profile_time_slice(p, &r, &q, NULL, &err), 0);
	cr_expect(strstr(err.message, "no timed samples") != NULL, "%s", err.message);
	plumb_profile_free(p);
}

Test(time_range, timeline_buckets_sum_to_each_threads_total)
{
	plumb_profile *p = timed();
	plumb_error err;
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	o.kind = PLUMB_VIEW_TIMELINE;
	o.buckets = 4;
	plumb_table *t = NULL;
	cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
	cr_assert_not_null(t->timeline);
	cr_assert_eq(t->timeline->nlanes, 2);
	cr_expect_eq(t->timeline->nbuckets, 4);
	uint64_t want[2] = { 0, 0 };
	for (uint64_t i = 0; i < 20; i++)
		want[i >= 10] += 1000 + i;
	uint64_t rows_sum = 0;
	for (size_t l = 0; l < 2; l++) {
		const plumb_timeline_lane *L = &t->timeline->lanes[l];
		uint64_t s = 0;
		for (size_t b = 0; b < 4; b++)
			s += L->values[b];
		cr_expect_eq(s, want[l], "lane %zu: %llu", l, (unsigned long long)s);
		cr_expect_eq(L->total, want[l]);
		cr_expect_eq(L->part, l + 1);
	}
	/* thread one ran in the first half only: its last two buckets are 0 */
	cr_expect_eq(t->timeline->lanes[0].values[3], 0);
	cr_expect_eq(t->timeline->lanes[1].values[0], 0);
	/* the rows hold the same numbers, zero buckets left out */
	cr_assert_eq(t->ncols, 6);
	cr_expect_str_eq(t->cols[0].key, "part");
	cr_expect_str_eq(t->cols[5].key, "value");
	for (size_t i = 0; i < t->nrows; i++) {
		cr_expect_neq(t->rows[i].cells[5].u, 0);
		rows_sum += t->rows[i].cells[5].u;
	}
	cr_expect_eq(rows_sum, want[0] + want[1]);
	plumb_table_free(t);
	plumb_profile_free(p);
}
