/* plumb annotate, the view: the events shown and sorted, the thresholds,
 * PROGRAM TOTALS and the file:function table with its caller/callee trees,
 * as callgrind_annotate 3.19 chooses them. The sources and the disassembly
 * are in annotate_source_view.c and annotate_disasm_view.c; the layout is
 * src/output/annotate*.c's. */
#include <assert.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/annotate_view.h"

void plumb_annotate_opts_init(plumb_annotate_opts *o)
{
	*o = (plumb_annotate_opts){ .threshold = 99, .show_percs = true, .auto_annotate = true,
				    .tree = PLUMB_ANN_TREE_NONE, .context = 8 };
}

/* ---- the arena ---------------------------------------------------------- */

/* One allocation of the result, chained from plumb_annotation.blocks. */
struct plumb_ann_block {
	struct plumb_ann_block *next;
	alignas(max_align_t) unsigned char data[];
};

void *ann_alloc(plumb_annotation *a, size_t n, size_t size)
{
	if (size && n > (SIZE_MAX - sizeof(struct plumb_ann_block)) / size)
		return NULL;
	struct plumb_ann_block *b = calloc(1, sizeof *b + n * size);
	if (!b)
		return NULL;
	b->next = a->blocks;
	a->blocks = b;
	return b->data;
}

char *ann_strndup(plumb_annotation *a, const char *s, size_t n)
{
	if (!s)
		return NULL;
	char *d = ann_alloc(a, n + 1, 1);
	if (d)
		memcpy(d, s, n);
	return d;
}

char *ann_strdup(plumb_annotation *a, const char *s)
{
	return s ? ann_strndup(a, s, strlen(s)) : NULL;
}

uint64_t *ann_cost(ann_view *v, const uint64_t *values, const uint64_t *zeros)
{
	uint64_t *c = ann_alloc(v->a, v->nev + 1, sizeof *c);
	for (size_t e = 0; c && e < v->nev; e++)
		c[e] = values[e] || (zeros && zeros[e]) ? values[e] : PLUMB_ANN_NONE;
	return c;
}

void plumb_annotation_free(plumb_annotation *a)
{
	if (!a)
		return;
	for (struct plumb_ann_block *b = a->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a);
}

/* ---- shared helpers ----------------------------------------------------- */

int ann_cmp_costs(const ann_view *v, const uint64_t *a, const uint64_t *b)
{
	return ann_cmp_costs_z(v, a, NULL, b, NULL);
}

int ann_cmp_costs_z(const ann_view *v, const uint64_t *a, const uint64_t *za, const uint64_t *b,
		    const uint64_t *zb)
{
	for (size_t i = 0; i < v->a->nsort; i++) {
		size_t e = v->a->sort[i];
		if (a[e] != b[e])
			return a[e] > b[e] ? -1 : 1;
		/* callgrind_annotate sorts no value below a written 0 */
		bool wa = za && za[e], wb = zb && zb[e];
		if (!a[e] && wa != wb)
			return wa ? -1 : 1;
	}
	return 0;
}

void ann_arc_costs(const ann_view *v, uint32_t arc, const uint64_t *raw, uint64_t *out)
{
	const plumb_metrics *m = v->fm;
	memcpy(out, raw, v->nev * sizeof *out);
	if (arc == UINT32_MAX || !m->arc_in_scc || !m->arc_in_scc[arc])
		return;
	const uint64_t *cap = plumb_metrics_incl(m, m->arcs[arc].callee);
	for (size_t e = 0; e < v->nev; e++)
		if (out[e] > cap[e])
			out[e] = cap[e];
}

const char *ann_file_name(const ann_view *v, plumb_id file)
{
	if (file == PLUMB_NONE)
		return "???";
	const char *s = plumb_str(v->p, v->p->files.v[file].path);
	const char *pre = v->o->strip_prefix;
	size_t n = pre ? strlen(pre) : 0;
	if (n && strncmp(s, pre, n) == 0 && s[n])
		return s + n;
	return s;
}

const char *ann_fn_name(ann_view *v, plumb_id fn)
{
	if (v->fname[fn])
		return v->fname[fn];
	const plumb_function *f = &v->p->functions.v[fn];
	const char *file = ann_file_name(v, f->file);
	const char *name = plumb_str(v->p, f->name);
	size_t n = strlen(file) + strlen(name) + 2;
	char *s = ann_alloc(v->a, n, 1);
	if (s)
		snprintf(s, n, "%s:%s", file, name);
	return v->fname[fn] = s;
}

const char *ann_fn_object(const ann_view *v, plumb_id fn)
{
	plumb_id m = v->p->functions.v[fn].module;
	/* Callgrind names every function's object; "???" (unknown) is read
	 * as none, and callgrind_annotate shows it. */
	if (m == PLUMB_NONE)
		return plumb_meta_get(v->p, "callgrind.positions") ? "???" : NULL;
	const char *s = plumb_str(v->p, v->p->modules.v[m].path);
	return s && *s ? s : NULL;
}

/* ---- events: --show and --sort ------------------------------------------ */

static int find_event(const ann_view *v, const char *name, size_t len, const char *opt,
		      plumb_error *err)
{
	for (size_t e = 0; e < v->nev; e++) {
		const char *s = plumb_str(v->p, v->p->events.v[e].name);
		if (strlen(s) == len && memcmp(s, name, len) == 0)
			return (int)e;
	}
	char known[512] = "";
	for (size_t e = 0; e < v->nev && strlen(known) < 400; e++) {
		strcat(known, e ? " " : "");
		strncat(known, plumb_str(v->p, v->p->events.v[e].name), 64);
	}
	return plumb_fail(err, PLUMB_ERR_USAGE, "%s: event '%.*s' is not in the profile (events: %s)",
			  opt, (int)(len > 200 ? 200 : len), name, known);
}

/* Split "A,B:90,C" into event indexes and the text after each ':'. */
static int parse_event_list(ann_view *v, const char *spec, const char *opt, size_t *idx,
			    char **thr, size_t *n, plumb_error *err)
{
	*n = 0;
	const char *s = spec;
	for (;;) {
		const char *end = s + strcspn(s, ",");
		const char *colon = memchr(s, ':', (size_t)(end - s));
		const char *name_end = colon ? colon : end;
		if (name_end == s)
			return plumb_fail(err, PLUMB_ERR_USAGE, "%s: empty event name in '%s'", opt, spec);
		int e = find_event(v, s, (size_t)(name_end - s), opt, err);
		if (e < 0)
			return -1;
		if (colon && !thr)
			return plumb_fail(err, PLUMB_ERR_USAGE, "%s: unexpected ':' in '%s'", opt, spec);
		if (thr) {
			thr[*n] = colon ? ann_strndup(v->a, colon + 1, (size_t)(end - colon - 1)) : NULL;
			if (colon && !thr[*n])
				return plumb_fail_nomem(err);
		}
		idx[(*n)++] = (size_t)e;
		if (!*end)
			return 0;
		s = end + 1;
	}
}

/* A threshold: a number 0..100, optionally followed by '%'. */
static int parse_threshold(const char *text, double *out)
{
	char *end;
	if (!*text || !strchr("0123456789.", *text))
		return -1;
	double val = strtod(text, &end);
	if (*end == '%')
		end++;
	if (*end || !(val >= 0 && val <= 100))
		return -1;
	*out = val;
	return 0;
}

static char *text_of_double(plumb_annotation *a, double val)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%g", val);
	return ann_strdup(a, buf);
}

static int resolve_sort(ann_view *v, size_t *sort, char **thr_text, plumb_error *err)
{
	const plumb_annotate_opts *o = v->o;
	plumb_annotation *a = v->a;
	if (!o->sort) {
		memcpy(sort, a->recorded, a->nrecorded * sizeof *sort);
		a->nsort = a->nrecorded;
	} else if (parse_event_list(v, o->sort, "--sort", sort, thr_text, &a->nsort, err))
		return -1;
	bool any = false;
	for (size_t i = 0; i < a->nsort; i++) {
		if (!thr_text[i])
			continue;
		any = true;
		char *t = thr_text[i];
		size_t len = strlen(t);
		if (parse_threshold(t, &v->thr[i]))
			return plumb_fail(err, PLUMB_ERR_USAGE,
					  "--sort: threshold '%s' is not a percentage 0-100", t);
		if (len && t[len - 1] == '%')
			t[len - 1] = '\0';
	}
	v->single_threshold = !any;
	for (size_t i = 0; i < a->nsort; i++) {
		if (any && thr_text[i])
			continue;
		double val = !any && i == 0 ? o->threshold : 0;
		v->thr[i] = val;
		thr_text[i] = !any && i == 0 && o->threshold_text ? ann_strdup(a, o->threshold_text)
								   : text_of_double(a, val);
		if (!thr_text[i])
			return plumb_fail_nomem(err);
	}
	return 0;
}

static size_t count_items(const char *list)
{
	size_t n = list ? 1 : 0;
	for (const char *s = list; s && *s; s++)
		n += *s == ',';
	return n;
}

static int resolve_events(ann_view *v, plumb_error *err)
{
	plumb_annotation *a = v->a;
	size_t nev = v->nev;
	const char **names = ann_alloc(a, nev, sizeof *names);
	size_t *recorded = ann_alloc(a, nev + 1, sizeof *recorded);
	/* A list may name an event more than once: room for 4 per event. */
	size_t *show = ann_alloc(a, nev * 4 + 1, sizeof *show);
	size_t *sort = ann_alloc(a, nev * 4 + 1, sizeof *sort);
	char **thr_text = ann_alloc(a, nev * 4 + 1, sizeof *thr_text);
	v->thr = ann_alloc(a, nev * 4 + 1, sizeof *v->thr);
	if (!names || !recorded || !show || !sort || !thr_text || !v->thr)
		return plumb_fail_nomem(err);
	for (size_t e = 0; e < nev; e++) {
		names[e] = plumb_str(v->p, v->p->events.v[e].name);
		if (!(names[e] = ann_strdup(a, names[e] ? names[e] : "")))
			return plumb_fail_nomem(err);
		if (v->p->events.v[e].formula == PLUMB_NONE)
			recorded[a->nrecorded++] = e;
	}
	a->event_names = names;
	a->recorded = recorded;
	a->show = show;
	a->sort = sort;
	a->thresholds = (const char *const *)thr_text;
	if (count_items(v->o->show) > nev * 4 || count_items(v->o->sort) > nev * 4)
		return plumb_fail(err, PLUMB_ERR_USAGE, "--show/--sort: too many events");
	if (v->o->show) {
		if (parse_event_list(v, v->o->show, "--show", show, NULL, &a->nshow, err))
			return -1;
	} else {
		memcpy(show, recorded, a->nrecorded * sizeof *show);
		a->nshow = a->nrecorded;
	}
	return resolve_sort(v, sort, thr_text, err);
}

/* ---- the header --------------------------------------------------------- */

static int copy_list(plumb_annotation *a, const char *const *from, size_t n,
		     const char *const **to)
{
	const char **v = ann_alloc(a, n + 1, sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!(v[i] = ann_strdup(a, from[i])))
			return -1;
	*to = v;
	return 0;
}

static const char *meta_copy(ann_view *v, const char *key, bool *nomem)
{
	const char *s = plumb_meta_get(v->p, key);
	char *c = ann_strdup(v->a, s);
	*nomem |= s && !c;
	return c;
}

static int describe(ann_view *v, plumb_error *err)
{
	plumb_annotation *a = v->a;
	const plumb_annotate_opts *o = v->o;
	bool nomem = false;
	a->profile_path = ann_strdup(a, o->profile_path ? o->profile_path : "-");
	a->creator = meta_copy(v, "creator", &nomem);
	a->description = meta_copy(v, "callgrind.desc", &nomem);
	a->command = meta_copy(v, "cmd", &nomem);
	a->pid = meta_copy(v, "pid", &nomem);
	a->part = meta_copy(v, "callgrind.part", &nomem);
	a->thread = meta_copy(v, "callgrind.thread", &nomem);
	a->n_include = o->n_include;
	a->n_user = o->n_user;
	a->auto_annotate = o->auto_annotate;
	a->show_percs = o->show_percs;
	a->tree = o->tree;
	a->disasm = o->disasm;
	if (nomem || !a->profile_path || copy_list(a, o->include_dirs, o->n_include, &a->include_dirs) ||
	    copy_list(a, o->user_files, o->n_user, &a->user_files))
		return plumb_fail_nomem(err);
	return 0;
}

/* ---- totals ------------------------------------------------------------- */

/* The numbers of a "summary:"/"totals:" value into out (recorded events, in
 * order; missing ones are 0). False if absent, malformed or all zero. */
static bool parse_summary(const ann_view *v, const char *text, uint64_t *out)
{
	if (!text)
		return false;
	bool any = false;
	const plumb_annotation *a = v->a;
	for (size_t i = 0; i < a->nrecorded; i++) {
		char *end;
		while (*text == ' ' || *text == '\t')
			text++;
		if (!*text) {
			out[a->recorded[i]] = 0;
			continue;
		}
		if (*text < '0' || *text > '9')
			return false;
		out[a->recorded[i]] = strtoull(text, &end, 10);
		any |= out[a->recorded[i]] != 0;
		text = end;
	}
	return any;
}

/* "Ir 1,234, Dr 5" for the events where the file's line differs from the
 * cost lines; empty when none does. */
static void list_differences(const ann_view *v, const uint64_t *said, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < v->a->nrecorded && len < size; i++) {
		size_t e = v->a->recorded[i];
		if (said[e] == v->total[e])
			continue;
		char num[32];
		snprintf(num, sizeof num, "%llu", (unsigned long long)said[e]);
		len += (size_t)snprintf(buf + len, size - len, "%s%s %s", len ? ", " : "",
					v->a->event_names[e], num);
	}
}

/* The 100% is the sum of every cost line, as in plumb report, whatever the
 * file's summary: (or totals:) line says; when a one-part file's line says
 * otherwise (Callgrind's summary also counts the program's last system
 * call, which no cost line holds), a note says what it says. Several parts
 * have a summary each and the profile keeps the last: not compared. */
static int choose_totals(ann_view *v, plumb_error *err)
{
	const char *sum = plumb_meta_get(v->p, "callgrind.summary");
	const char *tot = plumb_meta_get(v->p, "callgrind.totals");
	memcpy(v->total, v->fm->totals, v->nev * sizeof *v->total);
	v->a->total_calculated = !sum && !tot;
	if (v->p->parts.n != 1)
		return 0;
	uint64_t said[v->nev];
	memcpy(said, v->total, sizeof said);
	const char *label = "summary:";
	if (!parse_summary(v, sum, said)) {
		label = "totals:";
		memcpy(said, v->total, sizeof said);
		if (!parse_summary(v, tot, said))
			return 0;
	}
	char diff[400], note[512];
	list_differences(v, said, diff, sizeof diff);
	if (!diff[0])
		return 0;
	snprintf(note, sizeof note, "(the file's %s line says %s; the totals are its cost lines' sum)",
		 label, diff);
	return (v->a->total_note = ann_strdup(v->a, note)) ? 0 : plumb_fail_nomem(err);
}

/* 1 where bit e of zero[i] is set, per entry i < n and event e (< 64). */
static uint64_t *zero_costs(const uint64_t *zero, size_t nzero, size_t n, size_t nev)
{
	uint64_t *c = calloc(n * nev + 1, sizeof *c);
	for (size_t i = 0; c && i < nzero && i < n; i++)
		for (size_t e = 0; e < nev && e < 64; e++)
			c[i * nev + e] = zero[i] >> e & 1;
	return c;
}

/* zf and zl: the metrics of a copy of the profile whose costs are 1 where a
 * cost line wrote a 0 and 0 elsewhere. Keys and arcs come from frames and
 * arcs, not costs, so they are fm's and lm's (checked). */
static int zero_metrics(ann_view *v, plumb_metrics_opts *mo, plumb_error *err)
{
	const plumb_profile *p = v->p;
	if (!p->cg_self_zero.n && !p->arc_zero.n)
		return 0;
	plumb_profile shadow = *p;
	uint64_t *self = zero_costs(p->cg_self_zero.v, p->cg_self_zero.n, p->cg_self.n, v->nev);
	uint64_t *arcs = zero_costs(p->arc_zero.v, p->arc_zero.n, p->arcs.n, v->nev);
	uint64_t *cct = calloc(p->cct.n * v->nev + 1, sizeof *cct);
	int rc = -1;
	if (!self || !arcs || !cct) {
		plumb_fail_nomem(err);
		goto out;
	}
	shadow.cg_self_cost.v = self;
	shadow.arc_incl.v = arcs;
	shadow.cct_self.v = cct;
	mo->level = PLUMB_LEVEL_FUNCTION;
	if (plumb_metrics_compute(&shadow, mo, &v->zf, err))
		goto out;
	mo->level = PLUMB_LEVEL_LINE;
	if (plumb_metrics_compute(&shadow, mo, &v->zl, err))
		goto out;
	assert(v->zf->nkeys == v->fm->nkeys && v->zf->narcs == v->fm->narcs);
	assert(v->zl->nkeys == v->lm->nkeys && v->zl->narcs == v->lm->narcs);
	const plumb_metrics *z = v->zf;
	if (!(v->zincl = calloc(z->nkeys * v->nev + 1, sizeof *v->zincl))) {
		plumb_fail_nomem(err);
		goto out;
	}
	for (size_t k = 0; k < z->nkeys; k++) {
		uint64_t *to = v->zincl + k * v->nev;
		memcpy(to, plumb_metrics_incl(z, k), v->nev * sizeof *to);
		for (uint32_t i = z->in_start[k]; i < z->in_start[k + 1]; i++)
			for (size_t e = 0; e < v->nev; e++)
				to[e] += z->caller_attr[(size_t)z->in_arcs[i] * v->nev + e];
	}
	rc = 0;
out:
	free(self);
	free(arcs);
	free(cct);
	return rc;
}

static int compute_metrics(ann_view *v, plumb_error *err)
{
	plumb_metrics_opts mo;
	plumb_metrics_opts_init(&mo);
	mo.no_cycles = true;
	mo.level = PLUMB_LEVEL_FUNCTION;
	if (plumb_metrics_compute(v->p, &mo, &v->fm, err))
		return -1;
	mo.level = PLUMB_LEVEL_LINE;
	if (plumb_metrics_compute(v->p, &mo, &v->lm, err) || zero_metrics(v, &mo, err))
		return -1;
	for (size_t k = 0; k < v->fm->nkeys; k++)
		if (v->fm->keys[k].function != PLUMB_NONE)
			v->fn_key[v->fm->keys[k].function] = (uint32_t)k;
	return choose_totals(v, err);
}

/* ---- the function table ----------------------------------------------- */

typedef struct row {
	uint32_t key;
	const uint64_t *cost;
	const uint64_t *zeros;  /* zf's at the key, or NULL */
	const char *name;
} row;

static int cmp_rows(const void *x, const void *y, void *ctx)
{
	const row *a = x, *b = y;
	int r = ann_cmp_costs_z(ctx, a->cost, a->zeros, b->cost, b->zeros);
	return r ? r : strcmp(a->name, b->name);
}

/* One row per function of the profile, in the table's order. */
static row *function_rows(ann_view *v, size_t *n, plumb_error *err)
{
	const plumb_metrics *m = v->fm;
	row *rows = calloc(m->nkeys + 1, sizeof *rows);
	if (!rows) {
		plumb_fail_nomem(err);
		return NULL;
	}
	*n = 0;
	for (size_t k = 0; k < m->nkeys; k++) {
		if (m->keys[k].function == PLUMB_NONE)
			continue;
		const uint64_t *cost = v->o->inclusive ? plumb_metrics_incl(m, k) : plumb_metrics_excl(m, k);
		const uint64_t *zeros = !v->o->inclusive ? ann_zeros(v->zf, ANN_EXCL, k)
				      : v->zincl ? v->zincl + k * v->nev : NULL;
		row r = { (uint32_t)k, cost, zeros, ann_fn_name(v, m->keys[k].function) };
		if (!r.name) {
			free(rows);
			plumb_fail_nomem(err);
			return NULL;
		}
		rows[(*n)++] = r;
	}
	qsort_r(rows, *n, sizeof *rows, cmp_rows, v);
	return rows;
}

/* Have the listed functions reached every threshold? */
static bool thresholds_reached(const ann_view *v, const uint64_t *done)
{
	for (size_t i = 0; i < v->a->nsort; i++) {
		uint64_t t = v->total[v->a->sort[i]];
		double prop = (double)done[i] * 100.0;
		if (t > 0)
			prop /= (double)t;
		if (!(prop >= v->thr[i]))
			return false;
	}
	return true;
}

typedef struct tree_arc {
	uint32_t arc;
	uint64_t *cost;
	const uint64_t *zeros;
	plumb_ann_call call;
} tree_arc;

static int cmp_tree_arcs(const void *x, const void *y, void *ctx)
{
	const tree_arc *a = x, *b = y;
	int r = ann_cmp_costs_z(ctx, a->cost, a->zeros, b->cost, b->zeros);
	return r ? r : strcmp(a->call.name, b->call.name);
}

/* The "<" (callers) or ">" (callees) lines of one function, by cost. */
static int tree_side(ann_view *v, uint32_t key, bool callers, const plumb_ann_call **out,
		     size_t *nout, plumb_error *err)
{
	const plumb_metrics *m = v->fm;
	const uint32_t *start = callers ? m->in_start : m->out_start;
	const uint32_t *list = callers ? m->in_arcs : m->out_arcs;
	size_t n = start[key + 1] - start[key];
	if (!n)
		return 0;
	tree_arc *t = calloc(n, sizeof *t);
	uint64_t *capped = calloc(n * v->nev, sizeof *capped);
	plumb_ann_call *calls = ann_alloc(v->a, n, sizeof *calls);
	int rc = -1;
	if (!t || !capped || !calls)
		goto out;
	for (size_t i = 0; i < n; i++) {
		uint32_t a = list[start[key] + i];
		uint32_t other = callers ? m->arcs[a].caller : m->arcs[a].callee;
		plumb_id fn = m->keys[other].function;
		const uint64_t *costs = (callers ? m->caller_attr : m->callee_attr) + (size_t)a * m->nevents;
		t[i].arc = a;
		t[i].cost = capped + i * v->nev;
		ann_arc_costs(v, a, costs, t[i].cost);
		t[i].zeros = ann_zeros(v->zf, callers ? ANN_CALLER_ATTR : ANN_CALLEE_ATTR, a);
		t[i].call = (plumb_ann_call){ fn == PLUMB_NONE ? "???" : ann_fn_name(v, fn),
					      fn == PLUMB_NONE ? NULL : ann_fn_object(v, fn),
					      m->arcs[a].calls, NULL };
		if (!t[i].call.name)
			goto out;
	}
	qsort_r(t, n, sizeof *t, cmp_tree_arcs, v);
	for (size_t i = 0; i < n; i++) {
		calls[i] = t[i].call;
		calls[i].object = ann_strdup(v->a, calls[i].object);
		if (!(calls[i].cost = ann_cost(v, t[i].cost, t[i].zeros)) || (t[i].call.object && !calls[i].object))
			goto out;
	}
	*out = calls;
	*nout = n;
	rc = 0;
out:
	free(t);
	free(capped);
	return rc ? plumb_fail_nomem(err) : 0;
}

static int add_function(ann_view *v, const row *r, plumb_ann_function *f, plumb_error *err)
{
	plumb_id fn = v->fm->keys[r->key].function;
	const char *object = ann_fn_object(v, fn);
	*f = (plumb_ann_function){ r->name, ann_strdup(v->a, object), ann_cost(v, r->cost, r->zeros) };
	if ((object && !f->object) || !f->cost)
		return plumb_fail_nomem(err);
	/* callgrind_annotate draws no tree for the unknown function */
	if (strcmp(r->name, "???:???") == 0)
		return 0;
	if ((v->o->tree & PLUMB_ANN_TREE_CALLER) &&
	    tree_side(v, r->key, true, &f->callers, &f->ncallers, err))
		return -1;
	if ((v->o->tree & PLUMB_ANN_TREE_CALLING) &&
	    tree_side(v, r->key, false, &f->callees, &f->ncallees, err))
		return -1;
	return 0;
}

/* The largest cost of each event over all rows, listed or not. */
static int table_max(ann_view *v, const row *rows, size_t n)
{
	uint64_t max[v->nev], zeros[v->nev];
	memset(max, 0, sizeof max);
	memset(zeros, 0, sizeof zeros);
	for (size_t i = 0; i < n; i++)
		for (size_t e = 0; e < v->nev; e++) {
			max[e] = rows[i].cost[e] > max[e] ? rows[i].cost[e] : max[e];
			zeros[e] |= rows[i].zeros && rows[i].zeros[e];
		}
	return (v->a->table_max = ann_cost(v, max, zeros)) ? 0 : -1;
}

static int list_functions(ann_view *v, plumb_error *err)
{
	plumb_annotation *a = v->a;
	size_t n;
	row *rows = function_rows(v, &n, err);
	if (!rows)
		return -1;
	uint64_t *done = calloc(a->nsort + 1, sizeof *done);
	plumb_ann_function *fns = ann_alloc(a, n + 1, sizeof *fns);
	int rc = -1;
	if (!done || !fns) {
		plumb_fail_nomem(err);
		goto out;
	}
	a->functions = fns;
	if (table_max(v, rows, n)) {
		plumb_fail_nomem(err);
		goto out;
	}
	bool cut = !(v->single_threshold && v->thr[0] >= 100);
	for (size_t i = 0; i < n; i++) {
		if (cut && thresholds_reached(v, done))
			break;
		if (add_function(v, &rows[i], &fns[a->nfunctions], err))
			goto out;
		a->nfunctions++;
		plumb_id fn = v->fm->keys[rows[i].key].function;
		v->listed[fn] = true;
		v->order[v->norder++] = fn;
		for (size_t s = 0; s < a->nsort; s++) {
			uint64_t c = rows[i].cost[a->sort[s]], t = v->total[a->sort[s]];
			/* Inclusive lists stop once the rest of the program is under
			 * the threshold; exclusive ones once the listed sum reaches it. */
			done[s] = v->o->inclusive ? (t > c ? t - c : 0) : done[s] + c;
		}
	}
	rc = 0;
out:
	free(done);
	free(rows);
	return rc;
}

/* ---- the whole view ----------------------------------------------------- */

static int annotate(ann_view *v, plumb_error *err)
{
	plumb_annotation *a = v->a;
	size_t nf = v->p->functions.n + 1;
	v->fname = calloc(nf, sizeof *v->fname);
	v->fn_key = malloc(nf * sizeof *v->fn_key);
	v->listed = calloc(nf, sizeof *v->listed);
	v->order = calloc(nf, sizeof *v->order);
	v->total = ann_alloc(a, v->nev, sizeof *v->total);
	if (!v->fname || !v->fn_key || !v->listed || !v->order || !v->total)
		return plumb_fail_nomem(err);
	memset(v->fn_key, 0xff, nf * sizeof *v->fn_key);
	a->nevents = v->nev;
	if (describe(v, err) || resolve_events(v, err) || ann_check_user_files(v, err) ||
	    compute_metrics(v, err))
		return -1;
	if (!(a->total = ann_cost(v, v->total, v->zf ? v->zf->totals : NULL)))
		return plumb_fail_nomem(err);
	if (list_functions(v, err) || ann_view_sources(v, err))
		return -1;
	return v->o->disasm ? ann_view_disasm(v, err) : 0;
}

int plumb_annotate(const plumb_profile *p, const plumb_annotate_opts *o, plumb_annotation **out,
		   plumb_error *err)
{
	*out = NULL;
	ann_view v = { .p = p, .o = o, .nev = plumb_profile_nevents(p) };
	if (!v.nev)
		return plumb_fail(err, PLUMB_ERR_FORMAT, "the profile has no events");
	if (!(v.a = calloc(1, sizeof *v.a)))
		return plumb_fail_nomem(err);
	int rc = annotate(&v, err);
	free(v.fname);
	free(v.fn_key);
	free(v.listed);
	free(v.order);
	plumb_metrics_free(v.fm);
	plumb_metrics_free(v.lm);
	plumb_metrics_free(v.zf);
	plumb_metrics_free(v.zl);
	free(v.zincl);
	if (rc) {
		plumb_annotation_free(v.a);
		return -1;
	}
	assert(v.a->nfunctions == v.norder);
	*out = v.a;
	return 0;
}
