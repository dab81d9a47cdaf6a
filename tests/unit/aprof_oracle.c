/* An independent reading of aprof reports for the tests (see the header). */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aprof_oracle.h"

typedef struct ref_routine {
	unsigned long long id;
	char name[4096], object[512];
} ref_routine;

typedef struct ref_ctx {
	unsigned long long id, routine;
	long long parent;
} ref_ctx;

typedef struct pending {
	char tag;
	unsigned long long id;
	plumb_point v;
} pending;

/* The quoted or bare string at *s; *s moves past it. */
static void str_at(char **s, char *dst, size_t cap)
{
	while (**s == ' ')
		(*s)++;
	char *b = *s, *e;
	if (*b == '"') {
		b++;
		e = strchr(b, '"');
		cr_assert_not_null(e);
		*s = e + 1;
	} else {
		e = b + strcspn(b, " ");
		*s = e;
	}
	cr_assert_lt((size_t)(e - b), cap);
	memcpy(dst, b, (size_t)(e - b));
	dst[e - b] = '\0';
}

static ref_routine *routine_of(ref_routine *rs, size_t n, unsigned long long id)
{
	for (size_t i = 0; i < n; i++)
		if (rs[i].id == id)
			return &rs[i];
	cr_assert_fail("routine %llu not declared", id);
	return NULL;
}

/* The layouts of research/aprof.md 1.5, by name. */
static const char *layout_of(int v, int n)
{
	switch (v) {
	case 0: return "id in avg calls";
	case 1: return "id in min max sum sqr calls";
	case 2: return "id in min max sum calls real self";
	case 3: return "id in min max sum calls real self smin smax";
	}
	if (n == 12)
		return "id in min max sum sqr calls real self smin smax ssqr";
	if (n == 14)
		return "id in min max sum sqr calls real self smin smax ssqr dep dep";
	return "id in min max sum sqr calls real self smin smax ssqr dep dep sc tc ss ts";
}

static void parse_point(int version, char *s, pending *out)
{
	char *tok[32];
	int n = 0;
	for (char *t = strtok(s, " "); t && n < 32; t = strtok(NULL, " "))
		tok[n++] = t;
	char lay[128];
	snprintf(lay, sizeof lay, "%s", layout_of(version, n));
	plumb_point *v = &out->v;
	memset(v, 0, sizeof *v);
	int i = 0;
	uint64_t avg = 0;
	for (char *f = strtok(lay, " "); f; f = strtok(NULL, " "), i++) {
		cr_assert_lt(i, n, "too few fields");
		unsigned long long x = strtoull(tok[i], NULL, 10);
		if (!strcmp(f, "id")) out->id = x;
		else if (!strcmp(f, "in")) v->input = x;
		else if (!strcmp(f, "avg")) avg = x;
		else if (!strcmp(f, "calls")) v->calls = x;
		else if (!strcmp(f, "min")) { v->min = x; v->has |= PLUMB_PT_MIN_MAX; }
		else if (!strcmp(f, "max")) v->max = x;
		else if (!strcmp(f, "sum")) { v->sum = x; v->has |= PLUMB_PT_SUM; }
		else if (!strcmp(f, "sqr")) { v->sqr_sum = strtold(tok[i], NULL); v->has |= PLUMB_PT_SQR; }
		else if (!strcmp(f, "real")) { v->real_sum = x; v->has |= PLUMB_PT_REAL; }
		else if (!strcmp(f, "self")) { v->self_sum = x; v->has |= PLUMB_PT_SELF; }
		else if (!strcmp(f, "smin")) { v->self_min = x; v->has |= PLUMB_PT_SELF_MIN_MAX; }
		else if (!strcmp(f, "smax")) v->self_max = x;
		else if (!strcmp(f, "ssqr")) { v->self_sqr_sum = strtold(tok[i], NULL); v->has |= PLUMB_PT_SELF_SQR; }
		else if (!strcmp(f, "sc")) { v->syscall_cumul = x; v->has |= PLUMB_PT_INPUT_STATS; }
		else if (!strcmp(f, "tc")) v->thread_cumul = x;
		else if (!strcmp(f, "ss")) v->syscall_self = x;
		else if (!strcmp(f, "ts")) v->thread_self = x;
	}
	cr_assert_eq(i, n, "field count %d, layout %d", n, i);
	if (version == 0)
		v->sum = avg * v->calls;
}

void ref_read(const char *path, ref_report *out)
{
	FILE *fp = fopen(path, "r");
	cr_assert_not_null(fp, "%s", path);
	memset(out, 0, sizeof *out);
	ref_routine *rs = calloc(64, sizeof *rs);
	ref_ctx *cs = calloc(64, sizeof *cs);
	pending *ps = calloc(256, sizeof *ps);
	size_t nr = 0, nc = 0, np = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, fp)) > 0) {
		line[strcspn(line, "\r\n")] = '\0';
		char *s = line + 2;
		switch (line[0]) {
		case 'v': out->version = atoi(s); break;
		case 'k': out->total = strtoull(s, NULL, 10); break;
		case 'r':
			cr_assert_lt(nr, 64);
			str_at(&s, rs[nr].name, sizeof rs[nr].name);
			str_at(&s, rs[nr].object, sizeof rs[nr].object);
			rs[nr].id = strtoull(s, NULL, 10);
			nr++;
			break;
		case 'd': {
			unsigned long long id = strtoull(s, &s, 10);
			ref_routine *r = routine_of(rs, nr, id);
			str_at(&s, r->name, sizeof r->name);
			break;
		}
		case 'p':
		case 'q':
			cr_assert_lt(np, 256);
			ps[np].tag = line[0];
			parse_point(out->version, s, &ps[np++]);
			break;
		case 'x': {
			cr_assert_lt(nc, 64);
			cs[nc].routine = strtoull(s, &s, 10);
			cs[nc].id = strtoull(s, &s, 10);
			cs[nc].parent = strtoll(s, NULL, 10);
			nc++;
			break;
		}
		default: break;
		}
	}
	free(line);
	fclose(fp);
	out->pts = calloc(np + 1, sizeof *out->pts);
	for (size_t i = 0; i < np; i++) {
		ref_point *rp = &out->pts[out->n++];
		rp->v = ps[i].v;
		char ctx[4096] = "";
		unsigned long long rid = ps[i].id;
		if (ps[i].tag == 'q') {
			/* the path from the root: names joined by ';' */
			long long c = (long long)ps[i].id;
			const char *names[64];
			int depth = 0;
			while (c != -1) {
				size_t k = 0;
				while (k < nc && cs[k].id != (unsigned long long)c)
					k++;
				cr_assert_lt(k, nc, "context %lld", c);
				if (depth == 0)
					rid = cs[k].routine;
				names[depth++] = routine_of(rs, nr, cs[k].routine)->name;
				c = cs[k].parent;
			}
			for (int d = depth - 1; d >= 0; d--) {
				strcat(ctx, names[d]);
				if (d)
					strcat(ctx, ";");
			}
		}
		ref_routine *r = routine_of(rs, nr, rid);
		snprintf(rp->key, sizeof rp->key, "%s\x1f%s\x1f%s\x1f%" PRIu64, r->name,
			 strcmp(r->object, "NONE") ? r->object : "", ctx, rp->v.input);
	}
	free(rs);
	free(cs);
	free(ps);
}

void ref_free(ref_report *r)
{
	free(r->pts);
	r->pts = NULL;
}

void ref_merge(ref_report *a, const ref_report *b)
{
	a->pts = realloc(a->pts, (a->n + b->n + 1) * sizeof *a->pts);
	a->total += b->total;
	for (size_t j = 0; j < b->n; j++) {
		const plumb_point *y = &b->pts[j].v;
		size_t i = 0;
		while (i < a->n && strcmp(a->pts[i].key, b->pts[j].key) != 0)
			i++;
		if (i == a->n) {
			a->pts[a->n++] = b->pts[j];
			continue;
		}
		plumb_point *x = &a->pts[i].v;
		x->calls += y->calls;
		x->sum += y->sum;
		x->sqr_sum += y->sqr_sum;
		x->real_sum += y->real_sum;
		x->self_sum += y->self_sum;
		x->self_sqr_sum += y->self_sqr_sum;
		x->syscall_cumul += y->syscall_cumul;
		x->thread_cumul += y->thread_cumul;
		x->syscall_self += y->syscall_self;
		x->thread_self += y->thread_self;
		x->min = y->min < x->min ? y->min : x->min;
		x->max = y->max > x->max ? y->max : x->max;
		x->self_min = y->self_min < x->self_min ? y->self_min : x->self_min;
		x->self_max = y->self_max > x->self_max ? y->self_max : x->self_max;
	}
}

void model_key(const plumb_profile *p, const plumb_point *pt, char *buf, size_t cap)
{
	const plumb_function *fn = &p->functions.v[pt->function];
	char ctx[4096] = "";
	if (pt->context != PLUMB_NONE) {
		const char *names[64];
		int depth = 0;
		for (plumb_id n = pt->context; p->cct.v[n].parent != PLUMB_NONE; n = p->cct.v[n].parent) {
			cr_assert_lt(depth, 64);
			names[depth++] = plumb_str(p, p->functions.v[p->frames.v[p->cct.v[n].frame].function].name);
		}
		for (int d = depth - 1; d >= 0; d--) {
			strcat(ctx, names[d]);
			if (d)
				strcat(ctx, ";");
		}
	}
	snprintf(buf, cap, "%s\x1f%s\x1f%s\x1f%" PRIu64, plumb_str(p, fn->name),
		 fn->module != PLUMB_NONE ? plumb_str(p, p->modules.v[fn->module].path) : "", ctx,
		 pt->input);
}

static void expect_equal(const plumb_point *a, const plumb_point *b, const char *key,
			 const char *what)
{
	char k[200];
	snprintf(k, sizeof k, "%s: %.150s", what, key);
	for (char *c = k; *c; c++)
		if (*c == '\x1f')
			*c = '|';
	cr_expect_eq(a->has, b->has, "%s: has %#x, expected %#x", k, a->has, b->has);
	cr_expect_eq(a->calls, b->calls, "%s: calls", k);
	cr_expect_eq(a->min, b->min, "%s: min %" PRIu64 " %" PRIu64, k, a->min, b->min);
	cr_expect_eq(a->max, b->max, "%s: max", k);
	cr_expect_eq(a->sum, b->sum, "%s: sum %" PRIu64 " %" PRIu64, k, a->sum, b->sum);
	cr_expect(a->sqr_sum == b->sqr_sum, "%s: sqr %.0Lf, expected %.0Lf", k, a->sqr_sum, b->sqr_sum);
	cr_expect_eq(a->real_sum, b->real_sum, "%s: real", k);
	cr_expect_eq(a->self_sum, b->self_sum, "%s: self", k);
	cr_expect_eq(a->self_min, b->self_min, "%s: self min", k);
	cr_expect_eq(a->self_max, b->self_max, "%s: self max", k);
	cr_expect(a->self_sqr_sum == b->self_sqr_sum, "%s: self sqr %.0Lf, expected %.0Lf", k,
		  a->self_sqr_sum, b->self_sqr_sum);
	cr_expect_eq(a->syscall_cumul, b->syscall_cumul, "%s: syscall cumul", k);
	cr_expect_eq(a->thread_cumul, b->thread_cumul, "%s: thread cumul", k);
	cr_expect_eq(a->syscall_self, b->syscall_self, "%s: syscall self", k);
	cr_expect_eq(a->thread_self, b->thread_self, "%s: thread self", k);
}

void expect_points(const plumb_profile *p, const ref_report *want, const char *what)
{
	cr_expect_eq(p->points.n, want->n, "%s: %zu points, the file has %zu", what, p->points.n,
		     want->n);
	static char key[8192];
	for (size_t i = 0; i < p->points.n; i++) {
		model_key(p, &p->points.v[i], key, sizeof key);
		size_t j = 0;
		while (j < want->n && strcmp(want->pts[j].key, key) != 0)
			j++;
		cr_expect_lt(j, want->n, "%s: point %.200s is not in the file", what, key);
		if (j < want->n)
			expect_equal(&p->points.v[i], &want->pts[j].v, key, what);
	}
}

void expect_same_points(const plumb_profile *a, const plumb_profile *b, const char *what)
{
	cr_expect_eq(a->points.n, b->points.n, "%s: %zu points, then %zu", what, a->points.n,
		     b->points.n);
	static char ka[8192], kb[8192];
	for (size_t i = 0; i < a->points.n; i++) {
		model_key(a, &a->points.v[i], ka, sizeof ka);
		size_t j = 0;
		for (; j < b->points.n; j++) {
			model_key(b, &b->points.v[j], kb, sizeof kb);
			if (strcmp(ka, kb) == 0)
				break;
		}
		cr_expect_lt(j, b->points.n, "%s: point %.200s lost", what, ka);
		if (j < b->points.n)
			expect_equal(&b->points.v[j], &a->points.v[i], ka, what);
	}
}
