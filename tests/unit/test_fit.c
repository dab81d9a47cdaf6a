/* Growth fits (src/analysis/fit.c): routines whose cost is known, with a
 * few percent of deterministic noise and additive constants over realistic
 * input ranges, get their class; too few points get none. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "analysis/fit.h"

/* Deterministic noise in [-amp, amp] (a 64-bit LCG, Knuth's MMIX). */
static double noise(uint64_t *s, double amp)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return amp * (2.0 * (double)(*s >> 11) / 9007199254740992.0 - 1.0);
}

typedef enum { GEOMETRIC, LINEAR_STEPS, SMALL } layout;

/* Input sizes of three kinds of runs: sizes doubling-ish from 16 to 65536,
 * evenly spaced sizes 10..1000, and small sizes 1..60. */
static size_t inputs(layout l, double *n)
{
	size_t k = 0;
	switch (l) {
	case GEOMETRIC:
		for (double v = 16; v <= 65536; v *= 1.3)
			n[k++] = floor(v);
		break;
	case LINEAR_STEPS:
		for (int v = 10; v <= 1000; v += 10)
			n[k++] = v;
		break;
	case SMALL:
		for (int v = 1; v <= 60; v += 2)
			n[k++] = v;
		break;
	}
	return k;
}

typedef double (*cost_fn)(double n);
static double c_const(double n) { (void)n; return 480; }
static double c_log(double n) { return 20 + 9 * log(n); }
static double c_lin(double n) { return 40 + 3 * n; }
static double c_nlogn(double n) { return 100 + 2 * n * log(n); }
static double c_quad(double n) { return 50 + 0.5 * n * n; }
static double c_cubic(double n) { return 10 + 0.01 * n * n * n; }
static double c_pow15(double n) { return 30 + 2 * pow(n, 1.5); }

static plumb_fit fit_of(cost_fn f, layout l, double amp, uint64_t seed)
{
	double n[512], y[512];
	size_t k = inputs(l, n);
	uint64_t s = seed;
	for (size_t i = 0; i < k; i++)
		y[i] = f(n[i]) * (1 + noise(&s, amp));
	plumb_fit fit;
	plumb_fit_growth(n, y, k, &fit);
	return fit;
}

static void expect_class(cost_fn f, plumb_growth want, const char *what)
{
	static const layout layouts[] = { GEOMETRIC, LINEAR_STEPS, SMALL };
	static const char *const lnames[] = { "geometric", "evenly spaced", "small" };
	for (size_t l = 0; l < 3; l++)
		for (uint64_t seed = 1; seed <= 5; seed++) {
			plumb_fit fit = fit_of(f, layouts[l], 0.03, seed);
			cr_expect_eq(fit.growth, want, "%s, %s inputs, seed %llu: got %s (exponent %.2f)",
				     what, lnames[l], (unsigned long long)seed,
				     fit.growth == PLUMB_GROWTH_POWER ? "n^c"
				     : plumb_growth_name(fit.growth) ? plumb_growth_name(fit.growth) : "none",
				     fit.power.c);
		}
}

Test(fit, constant_cost_is_1)
{
	expect_class(c_const, PLUMB_GROWTH_CONST, "480");
}

Test(fit, logarithmic_cost_is_log_n)
{
	expect_class(c_log, PLUMB_GROWTH_LOG, "20 + 9 ln n");
}

Test(fit, linear_cost_is_n)
{
	expect_class(c_lin, PLUMB_GROWTH_LINEAR, "40 + 3n");
}

Test(fit, n_log_n_cost_is_n_log_n)
{
	expect_class(c_nlogn, PLUMB_GROWTH_NLOGN, "100 + 2 n ln n");
}

Test(fit, quadratic_cost_is_n2)
{
	expect_class(c_quad, PLUMB_GROWTH_QUADRATIC, "50 + n^2/2");
}

Test(fit, cubic_cost_is_n3)
{
	expect_class(c_cubic, PLUMB_GROWTH_CUBIC, "10 + n^3/100");
}

Test(fit, other_powers_are_n_to_the_fitted_exponent)
{
	plumb_fit fit = fit_of(c_pow15, GEOMETRIC, 0.03, 7);
	cr_assert_eq(fit.growth, PLUMB_GROWTH_POWER, "got %d", fit.growth);
	cr_expect(fabs(fit.power.c - 1.5) < 0.05, "exponent %.3f", fit.power.c);
	cr_expect(fit.chosen.r2 > 0.99, "R2 %.4f", fit.chosen.r2);
}

Test(fit, exact_data_fits_exactly)
{
	plumb_fit fit = fit_of(c_quad, GEOMETRIC, 0, 1);
	cr_assert_eq(fit.growth, PLUMB_GROWTH_QUADRATIC);
	cr_expect(fabs(fit.chosen.a - 50) < 1e-3 && fabs(fit.chosen.b - 0.5) < 1e-9,
		  "a %g b %g", fit.chosen.a, fit.chosen.b);
	cr_expect(fabs(fit.power.c - 2) < 1e-3, "exponent %.5f", fit.power.c);
	cr_expect(fit.chosen.r2 > 0.999999, "R2 %.8f", fit.chosen.r2);
	cr_expect(fabs(plumb_fit_eval(&fit.chosen, 100) - 5050) < 1e-3);
}

Test(fit, too_few_points_give_no_growth)
{
	double n[] = { 10, 20, 40, 80 }, y[] = { 10, 20, 40, 80 };
	plumb_fit fit;
	plumb_fit_growth(n, y, 4, &fit);
	cr_expect_eq(fit.growth, PLUMB_GROWTH_NONE);
	double z[] = { 0, 0, 0, 0, 0, 0 }, m[] = { 1, 2, 3, 4, 5, 6 };
	plumb_fit_growth(m, z, 6, &fit);
	cr_expect_eq(fit.growth, PLUMB_GROWTH_NONE, "no cost at all: nothing to fit");
}

Test(fit, steepness_orders_worst_first)
{
	plumb_fit a = fit_of(c_cubic, GEOMETRIC, 0.03, 1), b = fit_of(c_pow15, GEOMETRIC, 0.03, 1);
	plumb_fit c = fit_of(c_nlogn, GEOMETRIC, 0.03, 1), d = fit_of(c_lin, GEOMETRIC, 0.03, 1);
	plumb_fit e = fit_of(c_log, GEOMETRIC, 0.03, 1), f = fit_of(c_const, GEOMETRIC, 0.03, 1);
	cr_expect(plumb_fit_steepness(&a) > plumb_fit_steepness(&b));
	cr_expect(plumb_fit_steepness(&b) > plumb_fit_steepness(&c));
	cr_expect(plumb_fit_steepness(&c) > plumb_fit_steepness(&d));
	cr_expect(plumb_fit_steepness(&d) > plumb_fit_steepness(&e));
	cr_expect(plumb_fit_steepness(&e) > plumb_fit_steepness(&f));
}

Test(fit, line_of_equal_x_is_the_mean)
{
	double x[] = { 3, 3, 3 }, y[] = { 1, 2, 6 }, w[] = { 1, 1, 1 }, a, b;
	cr_expect(!plumb_fit_line(x, y, w, 3, &a, &b));
	cr_expect(a == 3 && b == 0);
}

/* The power law's error at exponent c, with a and b fitted by least squares
 * of relative error, as fit.h defines it (a cost under 1e-9 of the largest
 * weighs as that). */
static double power_rms(const double *n, const double *y, size_t k, double c)
{
	double x[512], w[512], a, b, sse = 0, ymax = 0;
	for (size_t i = 0; i < k; i++)
		ymax = fmax(ymax, fabs(y[i]));
	for (size_t i = 0; i < k; i++) {
		double s = fmax(fabs(y[i]), 1e-9 * ymax);
		x[i] = pow(n[i] < 1 ? 1 : n[i], c);
		w[i] = 1 / (s * s);
	}
	plumb_fit_line(x, y, w, k, &a, &b);
	for (size_t i = 0; i < k; i++)
		sse += w[i] * (y[i] - a - b * x[i]) * (y[i] - a - b * x[i]);
	return sqrt(sse / (double)k);
}

/* The exponent found is the minimum of the error, to 1e-4: a dense scan of
 * the error around it finds nothing better further away. */
Test(fit, power_exponent_is_the_error_minimum)
{
	static const cost_fn fns[] = { c_pow15, c_nlogn, c_quad, c_log, c_cubic };
	static const layout layouts[] = { GEOMETRIC, LINEAR_STEPS, SMALL };
	for (size_t f = 0; f < sizeof fns / sizeof *fns; f++)
		for (size_t l = 0; l < 3; l++) {
			double n[512], y[512];
			size_t k = inputs(layouts[l], n);
			uint64_t s = 11 + f;
			for (size_t i = 0; i < k; i++)
				y[i] = fns[f](n[i]) * (1 + noise(&s, 0.05));
			plumb_fit fit;
			plumb_fit_growth(n, y, k, &fit);
			double best_c = -1, best = INFINITY;
			for (double c = -1; c <= 4 + 1e-9; c += 1e-4) {
				double r = power_rms(n, y, k, c);
				if (r < best) {
					best = r;
					best_c = c;
				}
			}
			cr_expect(fabs(fit.power.c - best_c) < 2e-4,
				  "cost %zu, layout %zu: exponent %.5f, the scan's minimum at %.5f",
				  f, l, fit.power.c, best_c);
			cr_expect(fit.power.rms <= best * (1 + 1e-9),
				  "cost %zu, layout %zu: error %.9g, the scan's %.9g", f, l,
				  fit.power.rms, best);
		}
}
