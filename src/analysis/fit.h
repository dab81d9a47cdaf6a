/* Private to libplumb: how a routine's cost grows with its input size
 * (the inputs view, docs/aprof.md "Views"). Pure functions of arrays.
 *
 * Each growth class fits y = a + b * f(n) by weighted least squares, with
 * weights 1/y^2 so that every input size counts by its relative error (a
 * routine's cost spans decades; unweighted, the biggest inputs alone would
 * decide). The free power law y = a + b * n^c is fitted too, c by a grid
 * then Brent's search, a and b by least squares at each c. A class
 * is chosen by its relative RMS error with a penalty for complexity: the
 * simplest class whose error is within PLUMB_FIT_TOLERANCE of the best
 * one's wins (so noise never turns n into n log n), and it must fit about
 * as well as the power law (else the growth is n^c). n = 0 counts as 1.
 */
#ifndef PLUMB_FIT_H
#define PLUMB_FIT_H

#include <stdbool.h>
#include <stddef.h>

typedef enum plumb_growth {
	PLUMB_GROWTH_NONE = 0,  /* too few input sizes, or no cost */
	PLUMB_GROWTH_CONST,     /* 1 */
	PLUMB_GROWTH_LOG,       /* log n */
	PLUMB_GROWTH_LINEAR,    /* n */
	PLUMB_GROWTH_NLOGN,     /* n log n */
	PLUMB_GROWTH_QUADRATIC, /* n^2 */
	PLUMB_GROWTH_CUBIC,     /* n^3 */
	PLUMB_GROWTH_POWER      /* n^c, no class fits well */
} plumb_growth;

/* Fewest distinct input sizes a fit needs. */
#define PLUMB_FIT_MIN_POINTS 5
/* A simpler class wins while its relative RMS error is at most the best
 * class's times (1 + REL) plus ABS. */
#define PLUMB_FIT_TOLERANCE_REL 0.25
#define PLUMB_FIT_TOLERANCE_ABS 0.002
/* The class fits well when its error is at most the power law's times
 * (1 + REL) plus ABS. */
#define PLUMB_FIT_WELL_REL 0.5
#define PLUMB_FIT_WELL_ABS 0.005

/* y = a + b * f(n) for a class, or a + b * n^c for the power law. */
typedef struct plumb_fit_curve {
	plumb_growth cls;
	double a, b, c;   /* c: the power law's exponent (classes: unused) */
	double rms;       /* relative RMS error: sqrt(sum w r^2 / n) */
	double r2;        /* weighted R^2; NaN for the constant */
} plumb_fit_curve;

typedef struct plumb_fit {
	plumb_growth growth;    /* NONE: not fitted */
	plumb_fit_curve chosen; /* the class chosen, or the power law */
	plumb_fit_curve power;  /* the free power law (its c is the exponent) */
	plumb_fit_curve classes[6]; /* CONST .. CUBIC, at [cls - 1] */
} plumb_fit;

/* "1", "log n", "n", "n log n", "n^2", "n^3"; NULL for NONE and POWER. */
const char *plumb_growth_name(plumb_growth g);
/* f(n) of a class (n < 1 counts as 1). */
double plumb_growth_f(plumb_growth g, double n);
/* y of a fitted curve at n. */
double plumb_fit_eval(const plumb_fit_curve *c, double n);
/* How steep a growth is, for ordering worst first: 0 for 1, a little for
 * log n, 1 for n, a little more for n log n, 2, 3, and c for n^c. */
double plumb_fit_steepness(const plumb_fit *f);

/* Weighted least squares y = a + b x; false when the x are all equal
 * (then b = 0 and a is the weighted mean). */
bool plumb_fit_line(const double *x, const double *y, const double *w, size_t n, double *a,
		    double *b);

/* Fit n[i] (input sizes, distinct) against y[i] (average cost per call).
 * Fewer than PLUMB_FIT_MIN_POINTS points, or every y zero: growth NONE. */
void plumb_fit_growth(const double *n, const double *y, size_t npts, plumb_fit *out);

#endif
