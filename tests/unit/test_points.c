/* Performance points in the model: aprof's merge rules. */
#include <criterion/criterion.h>
#include <string.h>

#include "plumb/profile.h"

static plumb_profile *profile_with_routine(plumb_id *fn)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert(p && plumb_event_add(p, "bb-count", NULL, NULL, &err) == 0);
	*fn = plumb_function_intern(p, "qsort", NULL, plumb_module_intern(p, "/bin/q", NULL),
				    PLUMB_NONE, 0);
	plumb_part_default(p);
	return p;
}

static plumb_point point(plumb_id fn, uint64_t input, uint64_t calls, uint64_t min, uint64_t max,
			 uint64_t sum)
{
	return (plumb_point){
		.part = 0, .function = fn, .context = PLUMB_NONE, .input = input,
		.has = PLUMB_PT_ALL & ~(uint32_t)PLUMB_PT_INPUT_STATS,
		.calls = calls, .min = min, .max = max, .sum = sum, .sqr_sum = (long double)max * max,
		.real_sum = sum, .self_sum = sum / 2, .self_min = min / 2, .self_max = max / 2,
		.self_sqr_sum = 4,
	};
}

Test(points, same_input_combines_as_aprof_merges)
{
	plumb_id fn;
	plumb_profile *p = profile_with_routine(&fn);
	plumb_error err;
	plumb_point a = point(fn, 10, 2, 5, 9, 14), b = point(fn, 10, 3, 3, 7, 15), c = point(fn, 11, 1, 4, 4, 4);
	cr_assert_eq(plumb_point_add(p, &a, &err), 0, "%s", err.message);
	cr_assert_eq(plumb_point_add(p, &b, &err), 0, "%s", err.message);
	cr_assert_eq(plumb_point_add(p, &c, &err), 0, "%s", err.message);
	cr_assert_eq(p->points.n, 2, "two input sizes, got %zu points", p->points.n);
	const plumb_point *m = &p->points.v[0];
	cr_expect_eq(m->calls, 5);
	cr_expect_eq(m->min, 3);
	cr_expect_eq(m->max, 9);
	cr_expect_eq(m->sum, 29);
	cr_expect_eq(m->real_sum, 29);
	cr_expect_eq(m->self_min, 1);
	cr_expect_eq(m->self_max, 4);
	cr_expect(m->sqr_sum == 81.0L + 49.0L);
	cr_expect_eq(m->has, a.has);
	plumb_profile_free(p);
}

Test(points, a_field_one_side_lacks_is_unknown_after_merging)
{
	plumb_id fn;
	plumb_profile *p = profile_with_routine(&fn);
	plumb_error err;
	plumb_point a = point(fn, 10, 2, 5, 9, 14), b = point(fn, 10, 3, 3, 7, 15);
	b.has &= ~(uint32_t)(PLUMB_PT_SQR | PLUMB_PT_REAL);
	b.sqr_sum = 0;
	b.real_sum = 0;
	cr_assert_eq(plumb_point_add(p, &a, &err), 0);
	cr_assert_eq(plumb_point_add(p, &b, &err), 0);
	const plumb_point *m = &p->points.v[0];
	cr_expect_eq(m->has & (PLUMB_PT_SQR | PLUMB_PT_REAL), 0);
	cr_expect(m->sqr_sum == 0 && m->real_sum == 0);
	cr_expect_eq(m->sum, 29);
	plumb_profile_free(p);
}

Test(points, overflow_is_an_error_and_leaves_the_point)
{
	plumb_id fn;
	plumb_profile *p = profile_with_routine(&fn);
	plumb_error err;
	plumb_point a = point(fn, 1, 1, 1, UINT64_MAX, UINT64_MAX), b = point(fn, 1, 1, 1, 1, 1);
	cr_assert_eq(plumb_point_add(p, &a, &err), 0);
	cr_expect_eq(plumb_point_add(p, &b, &err), -1);
	cr_expect_eq(err.code, PLUMB_ERR_OVERFLOW);
	cr_expect_eq(p->points.v[0].sum, UINT64_MAX);
	cr_expect_eq(p->points.v[0].calls, 1);
	plumb_profile_free(p);
}

Test(points, merging_profiles_of_different_input_metrics_fails)
{
	plumb_id fn;
	plumb_profile *a = profile_with_routine(&fn), *b = profile_with_routine(&fn);
	plumb_error err;
	plumb_points_info ia, ib;
	plumb_points_info_init(&ia);
	plumb_points_info_init(&ib);
	ia.input_metric = plumb_intern(a, "rms");
	ia.total_cost = 7;
	ib.input_metric = plumb_intern(b, "drms");
	ib.total_cost = 5;
	cr_assert_eq(plumb_points_info_add(a, &ia, &err), 0);
	cr_assert_eq(plumb_points_info_add(b, &ib, &err), 0);
	plumb_point pt = point(fn, 3, 1, 2, 2, 2);
	cr_assert_eq(plumb_point_add(b, &pt, &err), 0);
	cr_expect_eq(plumb_profile_merge(a, b, &err), -1);
	cr_expect(strstr(err.message, "rms and drms") != NULL, "%s", err.message);
	/* the same metric merges, k adds, points join their routine */
	plumb_profile *c = profile_with_routine(&fn);
	plumb_points_info ic = ia;
	ic.input_metric = plumb_intern(c, "rms");
	cr_assert_eq(plumb_points_info_add(c, &ic, &err), 0);
	cr_assert_eq(plumb_point_add(c, &pt, &err), 0);
	cr_assert_eq(plumb_profile_merge(a, c, &err), 0, "%s", err.message);
	cr_expect_eq(a->points_info.total_cost, 14);
	cr_expect_eq(a->points.n, 1);
	cr_expect_str_eq(plumb_function_name(a, a->points.v[0].function), "qsort");
	plumb_profile_free(a);
	plumb_profile_free(b);
	plumb_profile_free(c);
}
