/* Growth of cost with input size: least-squares fits of each class and of
 * the free power law, and the choice between them (fit.h says how). */
#include "analysis/fit.h"

#include <math.h>
#include <stdlib.h>

static const char *const growth_names[] = {
	[PLUMB_GROWTH_CONST] = "1",       [PLUMB_GROWTH_LOG] = "log n",
	[PLUMB_GROWTH_LINEAR] = "n",      [PLUMB_GROWTH_NLOGN] = "n log n",
	[PLUMB_GROWTH_QUADRATIC] = "n^2", [PLUMB_GROWTH_CUBIC] = "n^3",
};

const char *plumb_growth_name(plumb_growth g)
{
	return g >= PLUMB_GROWTH_CONST && g <= PLUMB_GROWTH_CUBIC ? growth_names[g] : NULL;
}

/* f(n) of a class for n >= 1 whose log is logn: the fits have every
 * point's log at hand. */
static double growth_at(plumb_growth g, double n, double logn)
{
	switch (g) {
	case PLUMB_GROWTH_LOG: return logn;
	case PLUMB_GROWTH_LINEAR: return n;
	case PLUMB_GROWTH_NLOGN: return n * logn;
	case PLUMB_GROWTH_QUADRATIC: return n * n;
	case PLUMB_GROWTH_CUBIC: return n * n * n;
	default: return 0;
	}
}

double plumb_growth_f(plumb_growth g, double n)
{
	if (n < 1)
		n = 1;
	return growth_at(g, n, g == PLUMB_GROWTH_LOG || g == PLUMB_GROWTH_NLOGN ? log(n) : 0);
}

double plumb_fit_eval(const plumb_fit_curve *c, double n)
{
	if (c->cls == PLUMB_GROWTH_POWER)
		return c->a + c->b * pow(n < 1 ? 1 : n, c->c);
	return c->a + c->b * plumb_growth_f(c->cls, n);
}

double plumb_fit_steepness(const plumb_fit *f)
{
	switch (f->growth) {
	case PLUMB_GROWTH_CONST: return 0;
	case PLUMB_GROWTH_LOG: return 0.001;
	case PLUMB_GROWTH_LINEAR: return 1;
	case PLUMB_GROWTH_NLOGN: return 1.001;
	case PLUMB_GROWTH_QUADRATIC: return 2;
	case PLUMB_GROWTH_CUBIC: return 3;
	case PLUMB_GROWTH_POWER: return f->power.c;
	case PLUMB_GROWTH_NONE: break;
	}
	return -INFINITY;
}

bool plumb_fit_line(const double *x, const double *y, const double *w, size_t n, double *a,
		    double *b)
{
	double sw = 0, sx = 0, sy = 0;
	for (size_t i = 0; i < n; i++) {
		sw += w[i];
		sx += w[i] * x[i];
		sy += w[i] * y[i];
	}
	double xm = sw > 0 ? sx / sw : 0, ym = sw > 0 ? sy / sw : 0;
	double sxx = 0, sxy = 0;
	for (size_t i = 0; i < n; i++) {
		double dx = x[i] - xm;
		sxx += w[i] * dx * dx;
		sxy += w[i] * dx * (y[i] - ym);
	}
	/* centred sums: x values of 1e15 (n^3) keep their precision */
	if (!(sxx > 1e-300 * (sw > 0 ? sw : 1)) || !isfinite(sxx)) {
		*a = ym;
		*b = 0;
		return false;
	}
	*b = sxy / sxx;
	*a = ym - *b * xm;
	return true;
}

typedef struct fit_data {
	const double *y, *w, *logn;
	double *x;     /* scratch: f(n) of the curve being fitted */
	size_t n;
	double sw, sy; /* sums of w and w * y, the same for every curve */
	double tss;    /* weighted total sum of squares about the weighted mean */
} fit_data;

/* Fit a + b * x over d->x, whose sum of w * x is sx (summed as the x were
 * made: one pass less per curve, and the same sums as plumb_fit_line's),
 * and measure it. */
static void measure(const fit_data *d, double sx, plumb_fit_curve *c, bool constant)
{
	double ym = d->sw > 0 ? d->sy / d->sw : 0;
	c->a = ym;
	c->b = 0;
	double sxy = 0;
	if (!constant) {
		double xm = d->sw > 0 ? sx / d->sw : 0;
		double sxx = 0;
		for (size_t i = 0; i < d->n; i++) {
			double dx = d->x[i] - xm;
			sxx += d->w[i] * dx * dx;
			sxy += d->w[i] * dx * (d->y[i] - ym);
		}
		if (sxx > 1e-300 * (d->sw > 0 ? d->sw : 1) && isfinite(sxx)) { /* as plumb_fit_line */
			c->b = sxy / sxx;
			c->a = ym - c->b * xm;
		}
	}
	/* the residuals' sum of squares from the centred sums, without a
	 * third pass: tss - b * sxy (b = sxy / sxx minimizes it) */
	double sse = d->tss - c->b * sxy;
	if (sse < 0) /* rounding, when the fit is exact; NaN stays NaN */
		sse = 0;
	c->rms = sqrt(sse / (double)d->n);
	c->r2 = constant || !(d->tss > 0) ? NAN : 1 - sse / d->tss;
}

static void power_measure(const fit_data *d, double c, double sx, plumb_fit_curve *out)
{
	out->cls = PLUMB_GROWTH_POWER;
	out->c = c;
	measure(d, sx, out, c == 0);
}

static void power_at(const fit_data *d, double c, plumb_fit_curve *out)
{
	double sx = 0;
	for (size_t i = 0; i < d->n; i++) {
		d->x[i] = exp(c * d->logn[i]);
		sx += d->w[i] * d->x[i];
	}
	power_measure(d, c, sx, out);
}

/* Brent's minimization of the power law's error over c in [a, b], from
 * the grid's best point x and its neighbours w and v (already measured):
 * a parabola through the three best points so far while it steps inside
 * the bracket and shrinks, a golden-section step otherwise. Near the
 * minimum the error is a parabola in c, so this takes a few fits where
 * golden sections alone took 15, each an exp() per point. */
#define POWER_TOL 2e-5 /* exponent's absolute precision, well under the 4 decimals shown */
static void power_refine(const fit_data *d, double a, double b, plumb_fit_curve *x,
			 plumb_fit_curve w, plumb_fit_curve v)
{
	const double golden = (3 - sqrt(5.0)) / 2;
	double step = 0, prev = b - a; /* the last two steps; a large one lets the first be a parabola */
	for (int iter = 0; iter < 60; iter++) {
		double m = (a + b) / 2;
		if (fabs(x->c - m) <= 2 * POWER_TOL - (b - a) / 2)
			break;
		double fx = x->rms * x->rms, fw = w.rms * w.rms, fv = v.rms * v.rms;
		bool parabola = false;
		if (fabs(prev) > POWER_TOL) {
			double r = (x->c - w.c) * (fx - fv), q = (x->c - v.c) * (fx - fw);
			double p = (x->c - v.c) * q - (x->c - w.c) * r;
			q = 2 * (q - r);
			if (q > 0)
				p = -p;
			else
				q = -q;
			if (q != 0 && fabs(p) < fabs(0.5 * q * prev) && p > q * (a - x->c) &&
			    p < q * (b - x->c)) {
				prev = step;
				step = p / q;
				double u = x->c + step;
				if (u - a < 2 * POWER_TOL || b - u < 2 * POWER_TOL)
					step = m > x->c ? POWER_TOL : -POWER_TOL;
				parabola = true;
			}
		}
		if (!parabola) {
			prev = x->c >= m ? a - x->c : b - x->c;
			step = golden * prev;
		}
		double uc = x->c + (fabs(step) >= POWER_TOL ? step : step > 0 ? POWER_TOL : -POWER_TOL);
		plumb_fit_curve u;
		power_at(d, uc, &u);
		if (u.rms <= x->rms) {
			if (uc >= x->c)
				a = x->c;
			else
				b = x->c;
			v = w;
			w = *x;
			*x = u;
		} else {
			if (uc < x->c)
				a = uc;
			else
				b = uc;
			if (u.rms <= w.rms || w.c == x->c) {
				v = w;
				w = u;
			} else if (u.rms <= v.rms || v.c == x->c || v.c == w.c) {
				v = u;
			}
		}
	}
}

/* The power law: the exponent by a grid over [-1, 4], then Brent's search
 * around the best grid point. The grid's n^c are found by multiplying by
 * n^step, not by exp: the inputs view fits every routine of a
 * million-point report. */
static void fit_power(const fit_data *d, double *step_pow, plumb_fit_curve *best)
{
	enum { STEPS = 20 };
	const double lo = -1, hi = 4, step = (hi - lo) / STEPS;
	plumb_fit_curve grid[STEPS + 1];
	int k_best = 0;
	power_at(d, lo, &grid[0]);
	for (size_t i = 0; i < d->n; i++)
		step_pow[i] = exp(step * d->logn[i]);
	for (int k = 1; k <= STEPS; k++) {
		double sx = 0;
		for (size_t i = 0; i < d->n; i++) {
			d->x[i] *= step_pow[i];
			sx += d->w[i] * d->x[i];
		}
		power_measure(d, lo + k * step, sx, &grid[k]); /* exact: quarters are binary */
		if (grid[k].rms < grid[k_best].rms)
			k_best = k;
	}
	*best = grid[k_best];
	if (!isfinite(best->rms))
		return;
	/* the bracket: the grid cells on either side; at an end of the grid,
	 * the neighbour inside it stands for the missing one */
	int kw = k_best < STEPS ? k_best + 1 : k_best - 1;
	int kv = k_best > 0 ? k_best - 1 : k_best + 1;
	double a = k_best > 0 ? grid[k_best - 1].c : lo;
	double b = k_best < STEPS ? grid[k_best + 1].c : hi;
	power_refine(d, a, b, best, grid[kw], grid[kv]);
}

static bool simpler_fits(const plumb_fit_curve *c, double best_rms)
{
	return c->rms <= best_rms * (1 + PLUMB_FIT_TOLERANCE_REL) + PLUMB_FIT_TOLERANCE_ABS;
}

/* The class chosen: the simplest within tolerance of the best class that
 * grows (b > 0; the constant always may), if it fits about as well as the
 * power law, which has a parameter more; else the power law. */
static void choose(plumb_fit *f)
{
	double best = INFINITY;
	for (int k = 0; k < 6; k++) {
		const plumb_fit_curve *c = &f->classes[k];
		if ((c->cls == PLUMB_GROWTH_CONST || c->b > 0) && c->rms < best)
			best = c->rms;
	}
	for (int k = 0; k < 6; k++) {
		const plumb_fit_curve *c = &f->classes[k];
		if ((c->cls != PLUMB_GROWTH_CONST && !(c->b > 0)) || !simpler_fits(c, best))
			continue;
		if (c->rms <= f->power.rms * (1 + PLUMB_FIT_WELL_REL) + PLUMB_FIT_WELL_ABS) {
			f->growth = c->cls;
			f->chosen = *c;
			return;
		}
		break;
	}
	f->growth = PLUMB_GROWTH_POWER;
	f->chosen = f->power;
}

void plumb_fit_growth(const double *n, const double *y, size_t npts, plumb_fit *out)
{
	*out = (plumb_fit){ .growth = PLUMB_GROWTH_NONE };
	double ymax = 0;
	for (size_t i = 0; i < npts; i++)
		if (fabs(y[i]) > ymax)
			ymax = fabs(y[i]);
	if (npts < PLUMB_FIT_MIN_POINTS || !(ymax > 0) || !isfinite(ymax))
		return;
	double *buf = malloc(4 * npts * sizeof *buf);
	if (!buf)
		return;
	double *w = buf, *logn = buf + npts, *x = buf + 2 * npts, *step_pow = buf + 3 * npts;
	for (size_t i = 0; i < npts; i++) {
		/* relative errors: a zero cost weighs as a tiny one */
		double s = fabs(y[i]) > 1e-9 * ymax ? fabs(y[i]) : 1e-9 * ymax;
		w[i] = 1 / (s * s);
		logn[i] = log(n[i] < 1 ? 1 : n[i]);
	}
	fit_data d = { .y = y, .w = w, .logn = logn, .x = x, .n = npts };
	for (size_t i = 0; i < npts; i++) {
		d.sw += w[i];
		d.sy += w[i] * y[i];
	}
	for (size_t i = 0; i < npts; i++)
		d.tss += w[i] * (y[i] - d.sy / d.sw) * (y[i] - d.sy / d.sw);
	for (int k = 0; k < 6; k++) {
		plumb_growth g = (plumb_growth)(PLUMB_GROWTH_CONST + k);
		double sx = 0;
		for (size_t i = 0; i < npts; i++) {
			x[i] = growth_at(g, n[i] < 1 ? 1 : n[i], logn[i]);
			sx += w[i] * x[i];
		}
		out->classes[k].cls = g;
		measure(&d, sx, &out->classes[k], g == PLUMB_GROWTH_CONST);
	}
	fit_power(&d, step_pow, &out->power);
	free(buf);
	choose(out);
}
