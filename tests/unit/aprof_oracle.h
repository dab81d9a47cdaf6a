/* For the aprof tests: a second, independent reading of an aprof report
 * (a plain line parser written from research/aprof.md 1.5, not from the
 * reader) and a comparison of performance points by what they are about:
 * routine name, object, context path and input size. */
#ifndef PLUMB_TESTS_APROF_ORACLE_H
#define PLUMB_TESTS_APROF_ORACLE_H

#include "plumb/profile.h"

typedef struct ref_point {
	char key[8192];        /* name \x1f object \x1f context path \x1f input */
	plumb_point v;         /* only the numbers and has are meaningful */
} ref_point;

typedef struct ref_report {
	int version;
	uint64_t total;
	ref_point *pts;
	size_t n;
} ref_report;

/* Parse path the simple way; the test fails on anything unexpected. */
void ref_read(const char *path, ref_report *out);
void ref_free(ref_report *r);
/* aprof's merge of b into a: same key, sums and counts add, min/max combine. */
void ref_merge(ref_report *a, const ref_report *b);

/* The key of a model point, as ref_point.key. */
void model_key(const plumb_profile *p, const plumb_point *pt, char *buf, size_t cap);

/* Every point of p equals one of want and there are as many: every field
 * and the has bits. what names the comparison in failures. */
void expect_points(const plumb_profile *p, const ref_report *want, const char *what);
/* The same between two profiles (points of b by key). */
void expect_same_points(const plumb_profile *a, const plumb_profile *b, const char *what);

#endif
