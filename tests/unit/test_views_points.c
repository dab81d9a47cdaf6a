/* Views of input-sensitive profiles (aprof): the points and inputs views,
 * their charts and writers, and flat/tree on profiles of points. Profiles
 * are built as the aprof reader builds them: routine points plus their self
 * sums in the call graph, or context points plus self sums in the CCT. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fit.h"
#include "plumb/analysis.h"
#include "plumb/output.h"

static plumb_error err;

typedef double (*cost_fn)(double n);
static double c_quad(double n) { return 20 + 0.5 * n * n; }
static double c_lin(double n) { return 10 + 4 * n; }
static double c_const(double n) { (void)n; return 300; }

/* A routine point as aprof writes it: every field of v4-v5. */
static plumb_point routine_point(plumb_id part, plumb_id fn, uint64_t input, uint64_t calls,
				 uint64_t each)
{
	return (plumb_point){
		.part = part, .function = fn, .context = PLUMB_NONE, .input = input,
		.has = PLUMB_PT_ALL & ~(uint32_t)PLUMB_PT_INPUT_STATS, .calls = calls,
		.min = each - each / 10, .max = each + each / 10, .sum = each * calls,
		.sqr_sum = (long double)each * each * calls, .real_sum = each * calls,
		.self_sum = each * calls / 2, .self_min = each / 2, .self_max = each / 2,
		.self_sqr_sum = (long double)(each / 2) * (each / 2) * calls,
	};
}

/* Add a point and its self sum in the call graph, as the reader does. */
static void add(plumb_profile *p, const plumb_point *pt)
{
	plumb_id fr = plumb_frame_intern(p, pt->function, PLUMB_NONE, 0, 0);
	uint64_t self = pt->self_sum;
	cr_assert_eq(plumb_point_add(p, pt, &err), 0, "%s", err.message);
	if (pt->context == PLUMB_NONE)
		cr_assert_eq(plumb_cg_add_self(p, pt->part, fr, &self, &err), 0, "%s", err.message);
	else
		cr_assert_eq(plumb_cct_add_self(p, pt->context, &self, &err), 0, "%s", err.message);
}

static void add_routine(plumb_profile *p, plumb_id part, const char *name, cost_fn f)
{
	plumb_id fn = plumb_function_intern(p, name, NULL, plumb_module_intern(p, "/bin/app", NULL),
					    PLUMB_NONE, 0);
	for (uint64_t n = 8; n <= 4096; n = n * 3 / 2) {
		plumb_point pt = routine_point(part, fn, n, 1 + n % 3, (uint64_t)f((double)n));
		add(p, &pt);
	}
}

/* quad_sort (n^2), lin_scan (n), const_op (1) in part 1; lin_scan again
 * in part 2 with the same inputs; tiny has too few inputs to fit. */
static plumb_profile *routines(void)
{
	plumb_profile *p = plumb_profile_new();
	cr_assert(p && plumb_event_add(p, "bb-count", NULL, NULL, &err) == 0);
	plumb_id a = plumb_part_add(p, PLUMB_PART_THREAD, "t1", 1, 1);
	plumb_id b = plumb_part_add(p, PLUMB_PART_THREAD, "t2", 1, 2);
	add_routine(p, a, "const_op", c_const);
	add_routine(p, a, "lin_scan", c_lin);
	add_routine(p, a, "quad_sort", c_quad);
	add_routine(p, b, "lin_scan", c_lin);
	plumb_id tiny = plumb_function_intern(p, "tiny", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	for (uint64_t n = 1; n <= 3; n++) {
		plumb_point pt = routine_point(a, tiny, n, 1, 7);
		add(p, &pt);
	}
	return p;
}

static plumb_table *view(const plumb_profile *p, plumb_view_kind kind, plumb_view_opts *o)
{
	plumb_view_opts def;
	if (!o) {
		plumb_view_opts_init(&def);
		o = &def;
	}
	o->kind = kind;
	plumb_table *t = NULL;
	cr_assert_eq(plumb_view_build(p, o, &t, &err), 0, "%s", err.message);
	return t;
}

static int col(const plumb_table *t, const char *key)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].key, key) == 0)
			return (int)c;
	cr_assert_fail("no column %s", key);
	return -1;
}

static const plumb_cell *cell(const plumb_table *t, size_t row, const char *key)
{
	cr_assert_lt(row, t->nrows);
	return &t->rows[row].cells[col(t, key)];
}

static const char *str(const plumb_table *t, size_t row, const char *key)
{
	const plumb_cell *c = cell(t, row, key);
	return c->type == PLUMB_CELL_STR ? c->s : NULL;
}

static size_t row_of(const plumb_table *t, const char *routine)
{
	size_t name = 0;
	while (name < t->ncols && !t->cols[name].name_column)
		name++;
	cr_assert_lt(name, t->ncols);
	for (size_t i = 0; i < t->nrows; i++)
		if (str(t, i, t->cols[name].key) && strcmp(str(t, i, t->cols[name].key), routine) == 0)
			return i;
	cr_assert_fail("no row %s", routine);
	return 0;
}

typedef int (*writer_fn)(const plumb_table *, FILE *, plumb_error *);

static char *written(const plumb_table *t, const char *format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	plumb_text_opts o;
	plumb_text_opts_init(&o);
	o.width = 100;
	const plumb_view_writer *w = plumb_view_writer_by_name(format);
	cr_assert(w, "no writer %s", format);
	cr_assert_eq(w->write(t, f, &o, &err), 0, "%s", err.message);
	fclose(f);
	return buf;
}

/* ---- points ---------------------------------------------------------------- */

Test(views_points, points_csv_has_exactly_the_issue_columns)
{
	plumb_profile *p = routines();
	plumb_table *t = view(p, PLUMB_VIEW_POINTS, NULL);
	char *csv = written(t, "csv");
	const char *head = "routine,module,context,input,calls,min,max,sum,sqr_sum,real_sum,self_sum,"
			   "self_min,self_max,self_sqr_sum,syscall_cumul,thread_cumul,syscall_self,"
			   "thread_self\n";
	cr_expect_eq(strncmp(csv, head, strlen(head)), 0, "header: %.200s", csv);
	free(csv);
	plumb_table_free(t);
	plumb_profile_free(p);
}

Test(views_points, points_are_summed_over_parts_unless_one_is_chosen)
{
	plumb_profile *p = routines();
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	plumb_symspec_list sel = { 0 };
	cr_assert_eq(plumb_symspec_list_add(&sel, "lin_scan", &err), 0);
	o.select = &sel;
	plumb_table *t = view(p, PLUMB_VIEW_POINTS, &o);
	/* first input 8: calls 1 + 8 % 3 = 3 per part, cost 42 each */
	cr_assert_gt(t->nrows, 0);
	cr_expect_eq(cell(t, 0, "input")->u, 8);
	cr_expect_eq(cell(t, 0, "calls")->u, 6, "two parts' calls add");
	cr_expect_eq(cell(t, 0, "sum")->u, 2 * 3 * 42);
	cr_expect_eq(cell(t, 0, "min")->u, 42 - 4);
	cr_expect_eq(cell(t, 0, "context")->type, PLUMB_CELL_NULL, "a routine point has no context");
	cr_expect_eq(cell(t, 0, "syscall_cumul")->type, PLUMB_CELL_NULL, "no drms counts in the source");
	size_t all = t->nrows;
	plumb_table_free(t);
	o.part = 1;
	t = view(p, PLUMB_VIEW_POINTS, &o);
	cr_expect_eq(t->nrows, all, "the same inputs in part 2");
	cr_expect_eq(cell(t, 0, "calls")->u, 3, "part 2 alone");
	plumb_table_free(t);
	plumb_symspec_list_free(&sel);
	plumb_profile_free(p);
}

Test(views_points, fields_the_source_lacked_are_null_but_v0s_sum_is_kept)
{
	plumb_profile *p = plumb_profile_new();
	cr_assert(plumb_event_add(p, "bb-count", NULL, NULL, &err) == 0);
	plumb_id part = plumb_part_default(p);
	plumb_id fn = plumb_function_intern(p, "v0_routine", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	/* v0: avg 12.5 x 4 calls = 50, nothing else */
	plumb_point pt = { .part = part, .function = fn, .context = PLUMB_NONE, .input = 3,
			   .has = 0, .calls = 4, .sum = 50 };
	add(p, &pt);
	plumb_table *t = view(p, PLUMB_VIEW_POINTS, NULL);
	cr_assert_eq(t->nrows, 1);
	cr_expect_eq(cell(t, 0, "sum")->u, 50);
	static const char *const null_cols[] = { "min", "max", "sqr_sum", "real_sum", "self_sum",
		"self_min", "self_max", "self_sqr_sum", "syscall_cumul", "thread_self" };
	for (size_t i = 0; i < sizeof null_cols / sizeof *null_cols; i++)
		cr_expect_eq(cell(t, 0, null_cols[i])->type, PLUMB_CELL_NULL, "%s", null_cols[i]);
	char *csv = written(t, "csv");
	cr_expect(strstr(csv, "\nv0_routine,,,3,4,,,50,,,,,,,,,,\n"), "%s", csv);
	free(csv);
	plumb_table_free(t);
	plumb_profile_free(p);
}

Test(views_points, sums_of_squares_past_2_64_print_exactly)
{
	plumb_profile *p = plumb_profile_new();
	cr_assert(plumb_event_add(p, "bb-count", NULL, NULL, &err) == 0);
	plumb_id part = plumb_part_default(p);
	plumb_id fn = plumb_function_intern(p, "big", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_point pt = routine_point(part, fn, 1, 1, 1000);
	pt.sqr_sum = ldexpl(1, 70) + 128; /* 2^70 + 2^7: 64 significant bits, exact */
	add(p, &pt);
	plumb_table *t = view(p, PLUMB_VIEW_POINTS, NULL);
	char *csv = written(t, "csv"), *json = written(t, "json");
	cr_expect(strstr(csv, ",1180591620717411303552,"), "%s", csv);
	cr_expect(strstr(json, "\"sqr_sum\": 1180591620717411303552"), "%s", json);
	free(csv);
	free(json);
	plumb_table_free(t);
	plumb_profile_free(p);
}

Test(views_points, contexts_are_rows_with_their_path)
{
	plumb_profile *p = plumb_profile_new();
	cr_assert(plumb_event_add(p, "bb-count", NULL, NULL, &err) == 0);
	plumb_id part = plumb_part_default(p);
	const char *names[] = { "main", "parse", "read_item" };
	plumb_id frames[3], fns[3];
	for (int i = 0; i < 3; i++) {
		fns[i] = plumb_function_intern(p, names[i], NULL, PLUMB_NONE, PLUMB_NONE, 0);
		frames[i] = plumb_frame_intern(p, fns[i], PLUMB_NONE, 0, 0);
	}
	plumb_id deep = plumb_cct_path(p, part, frames, 3);
	plumb_id shallow = plumb_cct_path(p, part, (plumb_id[]){ frames[0], frames[2] }, 2);
	plumb_point a = routine_point(part, fns[2], 16, 2, 100), b = routine_point(part, fns[2], 16, 1, 50);
	a.context = deep;
	b.context = shallow;
	add(p, &a);
	add(p, &b);
	plumb_table *t = view(p, PLUMB_VIEW_POINTS, NULL);
	cr_assert_eq(t->nrows, 2, "one row per context");
	cr_expect_str_eq(str(t, 0, "context"), "main;parse;read_item", "the heavier first");
	cr_expect_str_eq(str(t, 1, "context"), "main;read_item");
	plumb_table_free(t);
	/* the inputs view merges a routine's contexts by input size */
	t = view(p, PLUMB_VIEW_INPUTS, NULL);
	size_t r = row_of(t, "read_item");
	cr_expect_eq(cell(t, r, "calls")->u, 3);
	cr_expect_eq(cell(t, r, "points")->u, 1);
	plumb_table_free(t);
	/* tree: from the CCT, exact */
	t = view(p, PLUMB_VIEW_TREE, NULL);
	cr_expect_gt(t->nrows, 2, "main, parse, read_item at least");
	plumb_table_free(t);
	plumb_profile_free(p);
}

Test(views_points, a_profile_without_points_has_no_points_view)
{
	plumb_profile *p = plumb_profile_new();
	cr_assert(plumb_event_add(p, "samples", NULL, NULL, &err) == 0);
	plumb_part_default(p);
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	o.kind = PLUMB_VIEW_INPUTS;
	plumb_table *t = NULL;
	cr_expect_neq(plumb_view_build(p, &o, &t, &err), 0);
	cr_expect(strstr(err.message, "performance points"), "%s", err.message);
	plumb_profile_free(p);
}

/* ---- inputs ---------------------------------------------------------------- */

Test(views_points, inputs_fit_growth_and_list_the_worst_first)
{
	plumb_profile *p = routines();
	plumb_table *t = view(p, PLUMB_VIEW_INPUTS, NULL);
	cr_assert_eq(t->nrows, 4);
	cr_expect_str_eq(str(t, 0, "routine"), "quad_sort");
	cr_expect_str_eq(str(t, 0, "growth"), "n^2");
	cr_expect_str_eq(str(t, 1, "routine"), "lin_scan");
	cr_expect_str_eq(str(t, 1, "growth"), "n");
	cr_expect_str_eq(str(t, 2, "growth"), "1");
	cr_expect_str_eq(str(t, 3, "routine"), "tiny");
	cr_expect_eq(cell(t, 3, "growth")->type, PLUMB_CELL_NULL, "three inputs: too few");
	cr_expect(fabs(cell(t, 0, "exponent")->num - 2) < 0.05, "%f", cell(t, 0, "exponent")->num);
	cr_expect_gt(cell(t, 0, "r2")->num, 0.99);
	cr_expect_eq(cell(t, 0, "min_input")->u, 8);
	/* cost: real sums; self: self sums; shares of all self */
	uint64_t self = 0;
	for (size_t i = 0; i < p->points.n; i++)
		self += p->points.v[i].self_sum;
	cr_expect_eq(cell(t, 0, "self_cost")->u * 2, cell(t, 0, "cost")->u);
	cr_expect(fabs(cell(t, 0, "self_pct")->pct - 100.0 * (double)cell(t, 0, "self_cost")->u / (double)self) < 1e-9);
	cr_expect_eq(t->ncharts, 0, "no --select: no pictures");
	plumb_table_free(t);
	plumb_profile_free(p);
}

/* Past 100,000 points the inputs view fits routines in two threads: each
 * row's fit is still exactly the routine's own (plumb_fit_growth of its
 * cost per call), whichever thread made it. */
Test(views_points, inputs_of_a_large_profile_fit_each_routine_as_alone)
{
	plumb_profile *p = plumb_profile_new();
	cr_assert(p && plumb_event_add(p, "bb-count", NULL, NULL, &err) == 0);
	plumb_id part = plumb_part_add(p, PLUMB_PART_THREAD, "t1", 1, 1);
	plumb_id mod = plumb_module_intern(p, "/bin/app", NULL);
	enum { ROUTINES = 420, POINTS = 250 };
	uint64_t seed = 1;
	for (unsigned r = 0; r < ROUTINES; r++) {
		char name[32];
		snprintf(name, sizeof name, "routine_%u", r);
		plumb_id fn = plumb_function_intern(p, name, NULL, mod, PLUMB_NONE, 0);
		double power = (r % 7) * 0.5; /* 0, n^0.5 .. n^3 */
		for (uint64_t n = 1; n <= POINTS; n++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			double jitter = 1 + (double)(seed >> 40) / (double)(1ULL << 24) * 0.05;
			uint64_t each = (uint64_t)((50 + pow((double)n, power)) * jitter);
			plumb_point pt = routine_point(part, fn, n * 3, 1 + n % 4, each);
			add(p, &pt);
		}
	}
	cr_assert_geq(p->points.n, 100000);
	plumb_table *t = view(p, PLUMB_VIEW_INPUTS, NULL);
	cr_assert_eq(t->nrows, ROUTINES);
	double n[POINTS], y[POINTS];
	for (size_t row = 0; row < t->nrows; row++) {
		plumb_id fn = PLUMB_NONE;
		for (size_t f = 0; f < p->functions.n && fn == PLUMB_NONE; f++)
			if (strcmp(plumb_function_name(p, (plumb_id)f), str(t, row, "routine")) == 0)
				fn = (plumb_id)f;
		size_t k = 0;
		for (size_t i = 0; i < p->points.n; i++) /* added by input, ascending */
			if (p->points.v[i].function == fn) {
				n[k] = (double)p->points.v[i].input;
				y[k++] = (double)p->points.v[i].sum / (double)p->points.v[i].calls;
			}
		cr_assert_eq(k, POINTS);
		plumb_fit want;
		plumb_fit_growth(n, y, k, &want);
		if (isfinite(want.chosen.r2))
			cr_expect_eq(cell(t, row, "r2")->num, want.chosen.r2, "%s: R2", str(t, row, "routine"));
		else
			cr_expect_eq(cell(t, row, "r2")->type, PLUMB_CELL_NULL, "%s: no R2",
				     str(t, row, "routine"));
		double e = want.growth == PLUMB_GROWTH_CONST || fabs(want.power.c) < 5e-4 ? 0 : want.power.c;
		cr_expect_eq(cell(t, row, "exponent")->num, e, "%s: exponent", str(t, row, "routine"));
		const char *g = plumb_growth_name(want.growth);
		if (g)
			cr_expect_str_eq(str(t, row, "growth"), g, "%s", str(t, row, "routine"));
	}
	plumb_table_free(t);
	plumb_profile_free(p);
}

Test(views_points, inputs_follow_hide_limit_and_sort)
{
	plumb_profile *p = routines();
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	plumb_symspec_list hide = { 0 };
	cr_assert_eq(plumb_symspec_list_add(&hide, "quad_sort", &err), 0);
	o.hide = &hide;
	o.limit = 2;
	o.sort = PLUMB_SORT_NAME;
	plumb_table *t = view(p, PLUMB_VIEW_INPUTS, &o);
	cr_assert_eq(t->nrows, 2);
	cr_expect_str_eq(str(t, 0, "routine"), "const_op");
	cr_expect_str_eq(str(t, 1, "routine"), "lin_scan");
	plumb_table_free(t);
	plumb_symspec_list_free(&hide);
	plumb_profile_free(p);
}

Test(views_points, a_selected_routine_gets_its_charts)
{
	plumb_profile *p = routines();
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	plumb_symspec_list sel = { 0 };
	cr_assert_eq(plumb_symspec_list_add(&sel, "quad_sort", &err), 0);
	o.select = &sel;
	plumb_table *t = view(p, PLUMB_VIEW_INPUTS, &o);
	cr_assert_eq(t->ncharts, 4, "cost, amortized, frequency, total");
	const plumb_chart *c = &t->charts[0];
	cr_expect_str_eq(c->key, "cost");
	cr_expect(c->main && !t->charts[1].main);
	cr_expect(c->xlog, "inputs 8 .. 4096 span more than two decades");
	cr_assert_eq(c->nseries, 4);
	cr_expect_str_eq(c->series[0].key, "max");
	cr_expect_str_eq(c->series[1].key, "min");
	cr_expect_str_eq(c->series[2].key, "avg");
	cr_expect_str_eq(c->series[3].key, "fit");
	/* the average is sum / calls at each input: 20 + n^2/2 */
	cr_expect_eq(c->series[2].x[0], 8);
	cr_expect_eq(c->series[2].y[0], 52);
	cr_expect_eq(c->series[1].y[0], 52 - 5, "min as the source said");
	cr_expect(fabs(c->series[3].y[c->series[3].n - 1] - c_quad(c->series[3].x[c->series[3].n - 1])) /
		  c_quad(c->series[3].x[c->series[3].n - 1]) < 0.01, "the fitted curve follows the cost");
	char *text = written(t, "text"), *svg = written(t, "svg");
	cr_expect(strstr(text, "quad_sort: cost per call against input size"), "%s", text);
	cr_expect(!strstr(text, "calls per input size"), "a terminal shows the main chart only");
	cr_expect(strstr(svg, "<svg") && strstr(svg, "calls per input size") && strstr(svg, "<circle"),
		  "%.300s", svg);
	free(text);
	free(svg);
	plumb_table_free(t);
	o.chart = "total";
	t = view(p, PLUMB_VIEW_INPUTS, &o);
	cr_expect_eq(t->ncharts, 1);
	cr_expect_str_eq(t->charts[0].key, "total");
	cr_expect(t->charts[0].main, "the chart asked for is shown in a terminal");
	plumb_table_free(t);
	plumb_symspec_list_free(&sel);
	plumb_profile_free(p);
}

Test(views_points, svg_of_a_view_without_charts_is_an_error)
{
	plumb_profile *p = routines();
	plumb_table *t = view(p, PLUMB_VIEW_INPUTS, NULL);
	FILE *f = fopen("/dev/null", "w");
	cr_expect_neq(plumb_view_writer_by_name("svg")->write(t, f, NULL, &err), 0);
	cr_expect(strstr(err.message, "--select"), "%s", err.message);
	fclose(f);
	plumb_table_free(t);
	plumb_profile_free(p);
}

/* ---- existing views ---------------------------------------------------------- */

Test(views_points, flat_takes_inclusive_from_real_sums)
{
	plumb_profile *p = routines();
	plumb_table *t = view(p, PLUMB_VIEW_FLAT, NULL);
	uint64_t real = 0, self = 0, calls = 0;
	plumb_id fn = plumb_function_intern(p, "lin_scan", NULL, plumb_module_intern(p, "/bin/app", NULL),
					    PLUMB_NONE, 0);
	for (size_t i = 0; i < p->points.n; i++)
		if (p->points.v[i].function == fn) {
			real += p->points.v[i].real_sum;
			self += p->points.v[i].self_sum;
			calls += p->points.v[i].calls;
		}
	size_t r = row_of(t, "lin_scan");
	cr_expect_eq(cell(t, r, "exclusive.bb-count")->u, self);
	cr_expect_eq(cell(t, r, "inclusive.bb-count")->u, real, "real sums, not exclusive");
	cr_expect_eq(cell(t, r, "calls")->u, calls);
	cr_expect_eq(t->nnotes, 0, "real sums are exact");
	plumb_table_free(t);
	plumb_profile_free(p);
}

Test(views_points, flat_marks_inclusive_estimated_without_real_sums)
{
	plumb_profile *p = plumb_profile_new();
	cr_assert(plumb_event_add(p, "bb-count", NULL, NULL, &err) == 0);
	plumb_id part = plumb_part_default(p);
	plumb_id fn = plumb_function_intern(p, "old", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_point pt = routine_point(part, fn, 4, 2, 30);
	pt.has &= ~(uint32_t)PLUMB_PT_REAL;
	pt.real_sum = 0;
	add(p, &pt);
	plumb_table *t = view(p, PLUMB_VIEW_FLAT, NULL);
	cr_expect_eq(cell(t, 0, "inclusive.bb-count")->u, 60, "the sum stands in");
	cr_expect_eq(t->nnotes, 1, "and is said to be an estimate");
	plumb_table_free(t);
	plumb_profile_free(p);
}
