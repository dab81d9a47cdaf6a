/* aprof writer: a profile's performance points as a version 6 report, in
 * the order aprof 0.2.1 writes (research/aprof.md 1.3): comment lines,
 * v k e m i t a f, then per routine its r line, a u line when the mangled
 * name differs, its p lines and its q lines; the x lines of the calling
 * context tree last, in pre-order, children of the root with parent -1.
 *
 * The parts (one per file read) become one report, merged as aprof merges
 * reports: points of the same routine (or context path) and input size add
 * their sums and counts and combine min and max (plumb_point_add, on a
 * scratch profile of one part). Contexts are matched by their path of
 * routines, which aprof's merger cannot do.
 *
 * A field the source lacked is written as the value it must have when
 * that follows from the others (one call: min = max = sum; min = max:
 * sqr = calls x min^2), else as 0, which no measurement gives for min,
 * sqr, self, self-min or self-sqr (aprof-helper -k flags it). A comment
 * line "c plumb-missing: ..." before such points names the fields, so
 * that plumb reads back exactly what it had. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/aprof_internal.h"
#include "formats/quote.h"
#include "model/index.h"
#include "plumb/formats.h"

static int unwritable(plumb_error *err, const char *what, const char *s)
{
	char q[PLUMB_QUOTE_SIZE];
	return plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
			  "aprof output: cannot write the %s %s: an aprof report has no way to "
			  "write a double quote or a line break in it", what,
			  plumb_quote_input(q, sizeof q, s, strlen(s)));
}

/* A name between quotes: no '"', no line break. */
static int check_name(const char *s, const char *what, plumb_error *err)
{
	return s && strpbrk(s, "\"\n") ? unwritable(err, what, s) : 0;
}

/* A header word (m, i): one token between spaces, on one line. */
static int check_word(const char *s, const char *what, plumb_error *err)
{
	for (const char *c = s; *c; c++)
		if (*c == ' ' || *c == '\n' || *c == '\r') {
			char q[PLUMB_QUOTE_SIZE];
			return plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
					  "aprof output: cannot write the %s %s: it must be one word", what,
					  plumb_quote_input(q, sizeof q, s, strlen(s)));
		}
	return *s ? 0 : plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
				   "aprof output: cannot write an empty %s", what);
}

/* ---- one part: the source's points merged ------------------------------ */

typedef struct merged {
	plumb_profile *s;       /* scratch: one part */
	plumb_id *ctx_id;       /* scratch CCT node -> context id (0: the root) */
	plumb_id *order;        /* scratch CCT nodes in pre-order, without the root */
	size_t nctx;
	uint32_t *pt_order;     /* points sorted by routine, context, input */
} merged;

static void merged_free(merged *m)
{
	plumb_profile_free(m->s);
	free(m->ctx_id);
	free(m->order);
	free(m->pt_order);
}

static int copy_functions(const plumb_profile *p, plumb_profile *s, plumb_id *fmap,
			  plumb_error *err)
{
	for (size_t f = 0; f < p->functions.n; f++) {
		const plumb_function *fn = &p->functions.v[f];
		const char *name = plumb_str(p, fn->name), *mangled = plumb_str(p, fn->mangled);
		const char *mod = fn->module != PLUMB_NONE ? plumb_str(p, p->modules.v[fn->module].path)
							   : NULL;
		if (!name)
			name = "";
		if (check_name(name, "routine name", err) || check_name(mangled, "mangled name", err) ||
		    check_name(mod, "object file name", err))
			return -1;
		plumb_id m = mod ? plumb_module_intern(s, mod, NULL) : PLUMB_NONE;
		if ((mod && m == PLUMB_NONE) ||
		    (fmap[f] = plumb_function_intern(s, name, mangled, m, PLUMB_NONE, 0)) == PLUMB_NONE ||
		    plumb_frame_intern(s, fmap[f], PLUMB_NONE, 0, 0) == PLUMB_NONE)
			return plumb_fail_nomem(err);
	}
	return 0;
}

/* Each source CCT node's scratch node, by the path of routines from its
 * part's root (parents have smaller ids); PLUMB_NONE under a frame that
 * is no routine. */
static int copy_contexts(const plumb_profile *p, plumb_profile *s, const plumb_id *fmap,
			 plumb_id *nmap, plumb_error *err)
{
	plumb_id root = s->parts.v[0].root;
	for (size_t i = 0; i < p->cct.n; i++) {
		const plumb_cct_node *n = &p->cct.v[i];
		if (n->parent == PLUMB_NONE) {
			nmap[i] = root;
			continue;
		}
		plumb_id up = nmap[n->parent], fr = n->frame;
		plumb_id fn = fr != PLUMB_NONE ? p->frames.v[fr].function : PLUMB_NONE;
		nmap[i] = PLUMB_NONE;
		if (up == PLUMB_NONE || fn == PLUMB_NONE)
			continue;
		/* the routine's frame in s is frame fmap[fn]'s only frame */
		plumb_id sf = plumb_frame_intern(s, fmap[fn], PLUMB_NONE, 0, 0);
		if (sf == PLUMB_NONE || (nmap[i] = plumb_cct_child(s, up, sf)) == PLUMB_NONE)
			return plumb_fail_nomem(err);
	}
	return 0;
}

static int copy_points(const plumb_profile *p, plumb_profile *s, const plumb_id *fmap,
		       const plumb_id *nmap, plumb_error *err)
{
	for (size_t i = 0; i < p->points.n; i++) {
		plumb_point pt = p->points.v[i];
		pt.part = 0;
		pt.function = fmap[pt.function];
		if (pt.context != PLUMB_NONE && (pt.context = nmap[pt.context]) == PLUMB_NONE)
			return plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
					  "aprof output: a calling context of %s has a frame that is no "
					  "routine: aprof contexts are paths of routines",
					  plumb_function_name(p, p->points.v[i].function));
		if (plumb_point_add(s, &pt, err))
			return -1;
	}
	return 0;
}

/* Context ids: 1, 2, ... in pre-order from the root (0). */
static int number_contexts(merged *m, plumb_error *err)
{
	const plumb_profile *s = m->s;
	size_t n = s->cct.n;
	m->ctx_id = calloc(n, sizeof *m->ctx_id);
	m->order = malloc(n * sizeof *m->order);
	plumb_id *stack = malloc(n * sizeof *stack);
	if (!m->ctx_id || !m->order || !stack) {
		free(stack);
		return plumb_fail_nomem(err);
	}
	size_t top = 0;
	stack[top++] = s->parts.v[0].root;
	while (top) {
		plumb_id v = stack[--top];
		if (v != s->parts.v[0].root) {
			m->order[m->nctx++] = v;
			m->ctx_id[v] = (plumb_id)m->nctx;
		}
		/* children pushed in reverse, so that they come out in list order */
		size_t first = top;
		for (plumb_id c = s->cct.v[v].first_child; c != PLUMB_NONE; c = s->cct.v[c].next_sibling)
			stack[top++] = c;
		for (size_t a = first, b = top; a + 1 < b; a++, b--) {
			plumb_id t = stack[a];
			stack[a] = stack[b - 1];
			stack[b - 1] = t;
		}
	}
	free(stack);
	return 0;
}

static int compare_points(const void *pa, const void *pb, void *ctx)
{
	const merged *m = ctx;
	const plumb_point *a = &m->s->points.v[*(const uint32_t *)pa];
	const plumb_point *b = &m->s->points.v[*(const uint32_t *)pb];
	if (a->function != b->function)
		return a->function < b->function ? -1 : 1;
	plumb_id ca = a->context == PLUMB_NONE ? 0 : m->ctx_id[a->context];
	plumb_id cb = b->context == PLUMB_NONE ? 0 : m->ctx_id[b->context];
	if (ca != cb)
		return ca < cb ? -1 : 1;
	return a->input < b->input ? -1 : a->input > b->input;
}

static int merge_parts(const plumb_profile *p, merged *m, plumb_error *err)
{
	if (!(m->s = plumb_profile_new()))
		return plumb_fail_nomem(err);
	plumb_profile *s = m->s;
	const char *event = p->events.n ? plumb_str(p, p->events.v[0].name) : "cost";
	if (plumb_event_add(s, event, NULL, NULL, err) < 0 || plumb_part_default(s) == PLUMB_NONE)
		return -1;
	plumb_id *fmap = malloc((p->functions.n + 1) * sizeof *fmap);
	plumb_id *nmap = malloc((p->cct.n + 1) * sizeof *nmap);
	int rc = !fmap || !nmap ? plumb_fail_nomem(err) : 0;
	if (rc == 0)
		rc = copy_functions(p, s, fmap, err);
	if (rc == 0)
		rc = copy_contexts(p, s, fmap, nmap, err);
	if (rc == 0)
		rc = copy_points(p, s, fmap, nmap, err);
	free(fmap);
	free(nmap);
	if (rc || number_contexts(m, err))
		return -1;
	if (!(m->pt_order = malloc((s->points.n + 1) * sizeof *m->pt_order)))
		return plumb_fail_nomem(err);
	for (size_t i = 0; i < s->points.n; i++)
		m->pt_order[i] = (uint32_t)i;
	qsort_r(m->pt_order, s->points.n, sizeof *m->pt_order, compare_points, m);
	return 0;
}

/* ---- lines --------------------------------------------------------------- */

/* Text to the end of the line: a line break becomes a space. */
static void put_text_line(FILE *out, char tag, const char *s)
{
	fprintf(out, "%c ", tag);
	for (; *s; s++)
		putc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
	putc('\n', out);
}

static int write_header(const plumb_profile *p, const plumb_profile *s, FILE *out,
			plumb_error *err)
{
	const plumb_points_info *info = &p->points_info;
	const char *metric = plumb_str(s, s->events.v[0].name);
	const char *input = plumb_str(p, info->input_metric);
	if (check_word(metric, "cost metric", err) || (input && check_word(input, "input metric", err)))
		return -1;
	fputs("c -------------------------------------\n"
	      "c report generated by plumb (aprof format)\n"
	      "c -------------------------------------\n"
	      "v 6\n", out);
	fprintf(out, "k %" PRIu64 "\n", info->total_cost);
	if (info->exe_mtime >= 0)
		fprintf(out, "e %" PRId64 "\n", info->exe_mtime);
	fprintf(out, "m %s\n", metric);
	if (input)
		fprintf(out, "i %s\n", input);
	if (info->memres)
		fprintf(out, "t %" PRIu32 "\n", info->memres);
	const char *exe = plumb_meta_get(p, "exe"), *cmd = plumb_meta_get(p, "cmd");
	if (exe)
		put_text_line(out, 'a', exe);
	if (cmd)
		put_text_line(out, 'f', cmd);
	return 0;
}

/* The fields a point lacks, with their values filled in where the others
 * fix them (see the top of the file). */
static uint32_t complete(plumb_point *pt, uint32_t fields)
{
	uint32_t missing = fields & ~pt->has;
	if ((missing & PLUMB_PT_MIN_MAX) && pt->calls == 1)
		pt->min = pt->max = pt->sum;
	if (missing & PLUMB_PT_SQR) {
		if (pt->calls == 1)
			pt->sqr_sum = (long double)pt->sum * pt->sum;
		else if ((pt->has & PLUMB_PT_MIN_MAX) && pt->min == pt->max)
			pt->sqr_sum = (long double)pt->calls * pt->min * pt->min;
	}
	if ((missing & PLUMB_PT_SELF_MIN_MAX) && (pt->has & PLUMB_PT_SELF) && pt->calls == 1)
		pt->self_min = pt->self_max = pt->self_sum;
	if (missing & PLUMB_PT_SELF_SQR) {
		if ((pt->has & PLUMB_PT_SELF) && pt->calls == 1)
			pt->self_sqr_sum = (long double)pt->self_sum * pt->self_sum;
		else if ((pt->has & PLUMB_PT_SELF_MIN_MAX) && pt->self_min == pt->self_max)
			pt->self_sqr_sum = (long double)pt->calls * pt->self_min * pt->self_min;
	}
	return missing;
}

static void write_missing(FILE *out, uint32_t missing)
{
	fputs("c " APROF_MISSING_TAG, out);
	for (const aprof_field_name *f = aprof_field_names; f->name; f++)
		if (missing & f->bit)
			fprintf(out, " %s", f->name);
	putc('\n', out);
}

static void write_point(FILE *out, const plumb_point *pt, uint64_t id, bool drms)
{
	fprintf(out, "%c %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %.0Lf %" PRIu64
		" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %.0Lf",
		pt->context == PLUMB_NONE ? 'p' : 'q', id, pt->input, pt->min, pt->max, pt->sum,
		pt->sqr_sum, pt->calls, pt->real_sum, pt->self_sum, pt->self_min, pt->self_max,
		pt->self_sqr_sum);
	if (drms)
		fprintf(out, " 0 0 %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64, pt->syscall_cumul,
			pt->thread_cumul, pt->syscall_self, pt->thread_self);
	putc('\n', out);
}

/* 18 fields (with the drms counts) for drms reports and points that have
 * the counts; 12 otherwise, as aprof 0.2.1. */
static bool drms_layout(const plumb_profile *p, const plumb_profile *s)
{
	const char *input = plumb_str(p, p->points_info.input_metric);
	if (input && (strcmp(input, "drms") == 0 || strcmp(input, "rvms") == 0))
		return true;
	for (size_t i = 0; i < s->points.n; i++)
		if (s->points.v[i].has & PLUMB_PT_INPUT_STATS)
			return true;
	return false;
}

static void write_body(const merged *m, bool drms, FILE *out)
{
	const plumb_profile *s = m->s;
	uint32_t fields = drms ? PLUMB_PT_ALL : PLUMB_PT_ALL & ~(uint32_t)PLUMB_PT_INPUT_STATS;
	uint32_t missing = 0;
	size_t k = 0;
	for (size_t f = 0; f < s->functions.n; f++) {
		const plumb_function *fn = &s->functions.v[f];
		const char *mod = fn->module != PLUMB_NONE ? plumb_str(s, s->modules.v[fn->module].path)
							   : "NONE";
		fprintf(out, "r \"%s\" \"%s\" %zu\n", plumb_str(s, fn->name), mod, f + 1);
		if (fn->mangled != PLUMB_NONE && fn->mangled != fn->name)
			fprintf(out, "u %zu \"%s\"\n", f + 1, plumb_str(s, fn->mangled));
		for (; k < s->points.n && s->points.v[m->pt_order[k]].function == f; k++) {
			plumb_point pt = s->points.v[m->pt_order[k]];
			uint32_t miss = complete(&pt, fields);
			if (miss != missing)
				write_missing(out, missing = miss);
			write_point(out, &pt, pt.context == PLUMB_NONE ? f + 1 : m->ctx_id[pt.context], drms);
		}
	}
	for (size_t i = 0; i < m->nctx; i++) {
		const plumb_cct_node *n = &s->cct.v[m->order[i]];
		plumb_id up = m->ctx_id[n->parent];
		fprintf(out, "x %" PRIu32 " %zu ", s->frames.v[n->frame].function + 1, i + 1);
		if (up)
			fprintf(out, "%" PRIu32 "\n", up);
		else
			fputs("-1\n", out);
	}
}

int plumb_aprof_write_stream(const plumb_profile *p, FILE *out, plumb_error *err)
{
	if (p->points.n == 0)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
				  "aprof output: expected an input-sensitive profile (performance points "
				  "per routine and input size, as aprof reports hold), got a profile without "
				  "any: there is nothing an aprof report can hold");
	merged m = { 0 };
	int rc = merge_parts(p, &m, err);
	if (rc == 0)
		rc = write_header(p, m.s, out, err);
	if (rc == 0) {
		write_body(&m, drms_layout(p, m.s), out);
		if (ferror(out))
			rc = plumb_fail(err, PLUMB_ERR_IO, "writing an aprof report: %s",
					strerror(errno ? errno : EIO));
	}
	merged_free(&m);
	return rc;
}

int plumb_aprof_write(const plumb_profile *p, const char *path, plumb_error *err)
{
	plumb_atomic_file af;
	if (plumb_atomic_open(&af, path, err) < 0)
		return -1;
	if (plumb_aprof_write_stream(p, af.fp, err) < 0) {
		plumb_atomic_abort(&af);
		return -1;
	}
	return plumb_atomic_commit(&af, err);
}
