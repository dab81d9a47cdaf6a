/* plumb annotate: the header, PROGRAM TOTALS and the file:function table
 * with its caller/callee trees, in callgrind_annotate 3.19's layout. */
#include <stdlib.h>
#include <string.h>

#include "output/annotate_internal.h"
#include "plumb/output.h"

void plumb_annotate_opts_init(plumb_annotate_opts *o)
{
	*o = (plumb_annotate_opts){ .threshold = 99, .show_percs = true, .auto_annotate = true,
				    .tree = PLUMB_ANN_TREE_NONE, .context = 8 };
}

/* ---- cells ------------------------------------------------------------- */

size_t plumb_ann_cell_width(uint64_t v, bool percs)
{
	if (v == 0)
		return 0;
	char buf[32];
	size_t len = strlen(plumb_format_u64(v, buf, sizeof buf));
	return len + (percs ? 9 : 0);
}

/* " (12.34%)": %5.2f, or %5.1f when two decimals would not fit. */
static void format_pct(uint64_t v, uint64_t total, char *buf, size_t size)
{
	double pct = total ? (double)v * 100.0 / (double)total : 0.0;
	char num[32];
	bool two = pct > -9.995 && pct < 99.995;
	if (!plumb_format_fixed(pct, two ? 2 : 1, num, sizeof num))
		strcpy(num, "?");
	snprintf(buf, size, " (%5s%%)", num);
}

void plumb_ann_write_cell(FILE *out, uint64_t v, uint64_t total, bool percs, size_t width)
{
	char text[128], num[32];
	if (v == 0)
		snprintf(text, sizeof text, ".%s", percs ? "         " : "");
	else {
		char pct[64] = "";
		if (percs)
			format_pct(v, total, pct, sizeof pct);
		snprintf(text, sizeof text, "%s%s", plumb_format_u64(v, num, sizeof num), pct);
	}
	size_t len = strlen(text);
	for (size_t i = len; i < width; i++)
		fputc(' ', out);
	fputs(text, out);
	fputc(' ', out);
}

void ann_widths(const ann_ctx *c, const uint64_t *rows, size_t n, size_t *widths)
{
	for (size_t e = 0; e < c->nev; e++)
		widths[e] = strlen(plumb_str(c->p, c->p->events.v[e].name));
	for (size_t r = 0; r < n; r++)
		for (size_t e = 0; e < c->nev; e++) {
			size_t w = plumb_ann_cell_width(rows[r * c->nev + e], c->o->show_percs);
			if (w > widths[e])
				widths[e] = w;
		}
}

void ann_events_header(const ann_ctx *c, const size_t *widths)
{
	for (size_t i = 0; i < c->nshow; i++) {
		const char *name = plumb_str(c->p, c->p->events.v[c->show[i]].name);
		fprintf(c->out, "%-*s ", (int)widths[c->show[i]], name);
	}
}

void ann_cells(const ann_ctx *c, const uint64_t *v, const size_t *widths)
{
	for (size_t i = 0; i < c->nshow; i++) {
		size_t e = c->show[i];
		plumb_ann_write_cell(c->out, v ? v[e] : 0, c->total[e], c->o->show_percs, widths[e]);
	}
}

int ann_cmp_costs(const ann_ctx *c, const uint64_t *a, const uint64_t *b)
{
	for (size_t i = 0; i < c->nsort; i++) {
		size_t e = c->sort[i];
		if (a[e] != b[e])
			return a[e] > b[e] ? -1 : 1;
	}
	return 0;
}

/* ---- names ------------------------------------------------------------- */

const char *ann_file_name(const ann_ctx *c, plumb_id file)
{
	if (file == PLUMB_NONE)
		return "???";
	const char *s = plumb_str(c->p, c->p->files.v[file].path);
	const char *pre = c->o->strip_prefix;
	size_t n = pre ? strlen(pre) : 0;
	if (n && strncmp(s, pre, n) == 0 && s[n])
		return s + n;
	return s;
}

const char *ann_fn_name(ann_ctx *c, plumb_id fn)
{
	if (c->fname[fn])
		return c->fname[fn];
	const plumb_function *f = &c->p->functions.v[fn];
	const char *file = ann_file_name(c, f->file);
	const char *name = plumb_str(c->p, f->name);
	size_t n = strlen(file) + strlen(name) + 2;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s:%s", file, name);
	return c->fname[fn] = s;
}

static const char *fn_object(const ann_ctx *c, plumb_id fn)
{
	plumb_id m = c->p->functions.v[fn].module;
	/* Callgrind names every function's object; "???" (unknown) is read
	 * as none, and callgrind_annotate shows it. */
	if (m == PLUMB_NONE)
		return plumb_meta_get(c->p, "callgrind.positions") ? "???" : NULL;
	const char *s = plumb_str(c->p, c->p->modules.v[m].path);
	return s && *s ? s : NULL;
}

/* ---- events: --show and --sort ------------------------------------------ */

static int find_event(const ann_ctx *c, const char *name, size_t len, const char *opt,
		      plumb_error *err)
{
	for (size_t e = 0; e < c->nev; e++) {
		const char *s = plumb_str(c->p, c->p->events.v[e].name);
		if (strlen(s) == len && memcmp(s, name, len) == 0)
			return (int)e;
	}
	char known[512] = "";
	for (size_t e = 0; e < c->nev && strlen(known) < 400; e++) {
		strcat(known, e ? " " : "");
		strncat(known, plumb_str(c->p, c->p->events.v[e].name), 64);
	}
	return plumb_fail(err, PLUMB_ERR_USAGE, "%s: event '%.*s' is not in the profile (events: %s)",
			  opt, (int)(len > 200 ? 200 : len), name, known);
}

/* Split "A,B:90,C" into event indexes and the text after each ':'. */
static int parse_event_list(ann_ctx *c, const char *spec, const char *opt, size_t *idx,
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
		int e = find_event(c, s, (size_t)(name_end - s), opt, err);
		if (e < 0)
			return -1;
		if (colon && !thr)
			return plumb_fail(err, PLUMB_ERR_USAGE, "%s: unexpected ':' in '%s'", opt, spec);
		if (thr) {
			thr[*n] = colon ? strndup(colon + 1, (size_t)(end - colon - 1)) : NULL;
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
	double v = strtod(text, &end);
	if (*end == '%')
		end++;
	if (*end || !(v >= 0 && v <= 100))
		return -1;
	*out = v;
	return 0;
}

static char *text_of_double(double v)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%g", v);
	return strdup(buf);
}

static int resolve_sort(ann_ctx *c, plumb_error *err)
{
	const plumb_annotate_opts *o = c->o;
	if (!o->sort) {
		memcpy(c->sort, c->recorded, c->nrecorded * sizeof *c->sort);
		c->nsort = c->nrecorded;
	} else if (parse_event_list(c, o->sort, "--sort", c->sort, c->thr_text, &c->nsort, err))
		return -1;
	bool any = false;
	for (size_t i = 0; i < c->nsort; i++) {
		if (!c->thr_text[i])
			continue;
		any = true;
		char *t = c->thr_text[i];
		size_t len = strlen(t);
		if (parse_threshold(t, &c->thr[i]))
			return plumb_fail(err, PLUMB_ERR_USAGE,
					  "--sort: threshold '%s' is not a percentage 0-100", t);
		if (len && t[len - 1] == '%')
			t[len - 1] = '\0';
	}
	c->single_threshold = !any;
	for (size_t i = 0; i < c->nsort; i++) {
		if (any && c->thr_text[i])
			continue;
		double v = !any && i == 0 ? o->threshold : 0;
		c->thr[i] = v;
		free(c->thr_text[i]);
		c->thr_text[i] = !any && i == 0 && o->threshold_text ? strdup(o->threshold_text)
								      : text_of_double(v);
		if (!c->thr_text[i])
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

static int resolve_events(ann_ctx *c, plumb_error *err)
{
	size_t nev = c->nev;
	c->recorded = calloc(nev + 1, sizeof *c->recorded);
	c->show = calloc(nev * 4 + 1, sizeof *c->show);
	c->sort = calloc(nev * 4 + 1, sizeof *c->sort);
	c->thr = calloc(nev * 4 + 1, sizeof *c->thr);
	c->thr_text = calloc(nev * 4 + 1, sizeof *c->thr_text);
	if (!c->recorded || !c->show || !c->sort || !c->thr || !c->thr_text)
		return plumb_fail_nomem(err);
	for (size_t e = 0; e < nev; e++)
		if (c->p->events.v[e].formula == PLUMB_NONE)
			c->recorded[c->nrecorded++] = e;
	/* A list may name an event more than once: room for 4 per event. */
	if (count_items(c->o->show) > nev * 4 || count_items(c->o->sort) > nev * 4)
		return plumb_fail(err, PLUMB_ERR_USAGE, "--show/--sort: too many events");
	if (c->o->show) {
		if (parse_event_list(c, c->o->show, "--show", c->show, NULL, &c->nshow, err))
			return -1;
	} else {
		memcpy(c->show, c->recorded, c->nrecorded * sizeof *c->show);
		c->nshow = c->nrecorded;
	}
	return resolve_sort(c, err);
}

/* ---- header ------------------------------------------------------------ */

static void print_list(FILE *out, const char *label, const char *const *v, size_t n)
{
	fprintf(out, "%s%s\n", label, n ? v[0] : "");
	for (size_t i = 1; i < n; i++)
		fprintf(out, "                  %s\n", v[i]);
}

/* callgrind_annotate shows each -I dir with one trailing '/'. */
static void print_include_dirs(const ann_ctx *c)
{
	FILE *out = c->out;
	if (!c->o->n_include) {
		fputs("Include dirs:     \n", out);
		return;
	}
	for (size_t i = 0; i < c->o->n_include; i++) {
		const char *d = c->o->include_dirs[i];
		size_t len = strlen(d);
		if (len && d[len - 1] == '/')
			len--;
		fprintf(out, "%s%.*s/\n", i ? "                  " : "Include dirs:     ", (int)len, d);
	}
}

static void print_desc(const ann_ctx *c)
{
	const char *d = plumb_meta_get(c->p, "callgrind.desc");
	while (d && *d) {
		size_t len = strcspn(d, "\n");
		/* callgrind_annotate hides the profiler's options. */
		if (strncmp(d, "Option:", 7) != 0)
			fprintf(c->out, "%.*s\n", (int)len, d);
		d += len + (d[len] == '\n');
	}
}

static void print_target(const ann_ctx *c)
{
	const char *cmd = plumb_meta_get(c->p, "cmd");
	const char *pid = plumb_meta_get(c->p, "pid");
	const char *part = plumb_meta_get(c->p, "callgrind.part");
	const char *thread = plumb_meta_get(c->p, "callgrind.thread");
	while (cmd && (*cmd == ' ' || *cmd == '\t'))
		cmd++;
	fprintf(c->out, "Profiled target:  %s", cmd && *cmd ? cmd : "(unknown)");
	if (pid && *pid) {
		fprintf(c->out, " (PID %s", pid);
		if (part && *part)
			fprintf(c->out, ", part %s", part);
		if (thread && *thread)
			fprintf(c->out, ", thread %s", thread);
		fputc(')', c->out);
	}
	fputc('\n', c->out);
}

static void print_event_names(const ann_ctx *c, const char *label, const size_t *idx, size_t n)
{
	fputs(label, c->out);
	for (size_t i = 0; i < n; i++)
		fprintf(c->out, "%s%s", i ? " " : "", plumb_str(c->p, c->p->events.v[idx[i]].name));
	fputc('\n', c->out);
}

static void print_header(const ann_ctx *c)
{
	FILE *out = c->out;
	const char *creator = plumb_meta_get(c->p, "creator");
	fputs(ANN_FANCY, out);
	fprintf(out, "Profile data file '%s'", c->o->profile_path ? c->o->profile_path : "-");
	if (creator && *creator)
		fprintf(out, " (creator: %s)", creator);
	fputs("\n" ANN_FANCY, out);
	print_desc(c);
	print_target(c);
	print_event_names(c, "Events recorded:  ", c->recorded, c->nrecorded);
	print_event_names(c, "Events shown:     ", c->show, c->nshow);
	print_event_names(c, "Event sort order: ", c->sort, c->nsort);
	fputs("Thresholds:      ", out);
	for (size_t i = 0; i < c->nsort; i++)
		fprintf(out, " %s", c->thr_text[i]);
	fputc('\n', out);
	print_include_dirs(c);
	print_list(out, "User annotated:   ", c->o->user_files, c->o->n_user);
	fprintf(out, "Auto-annotation:  %s\n\n", c->o->auto_annotate ? "on" : "off");
}

static void print_totals(const ann_ctx *c)
{
	size_t w[c->nev ? c->nev : 1];
	ann_widths(c, c->total, 1, w);
	fputs(ANN_FANCY, c->out);
	ann_events_header(c, w);
	fputs("\n" ANN_FANCY, c->out);
	ann_cells(c, c->total, w);
	fprintf(c->out, " PROGRAM TOTALS%s\n\n", c->calculated ? " (calculated)" : "");
}

/* ---- the function table ----------------------------------------------- */

typedef struct row {
	uint32_t key;
	const uint64_t *v;
	const char *name;
} row;

static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const row *x = a, *y = b;
	int r = ann_cmp_costs(ctx, x->v, y->v);
	return r ? r : strcmp(x->name, y->name);
}

static const uint64_t *key_costs(const ann_ctx *c, uint32_t key)
{
	return c->o->inclusive ? plumb_metrics_incl(c->fm, key) : plumb_metrics_excl(c->fm, key);
}

/* One row per function of the profile, in the table's order. */
static row *function_rows(ann_ctx *c, size_t *n, plumb_error *err)
{
	const plumb_metrics *m = c->fm;
	row *rows = calloc(m->nkeys + 1, sizeof *rows);
	if (!rows) {
		plumb_fail_nomem(err);
		return NULL;
	}
	*n = 0;
	for (size_t k = 0; k < m->nkeys; k++) {
		if (m->keys[k].function == PLUMB_NONE)
			continue;
		row r = { (uint32_t)k, key_costs(c, (uint32_t)k), ann_fn_name(c, m->keys[k].function) };
		if (!r.name) {
			free(rows);
			plumb_fail_nomem(err);
			return NULL;
		}
		rows[(*n)++] = r;
	}
	qsort_r(rows, *n, sizeof *rows, cmp_rows, c);
	return rows;
}

/* Have the listed functions reached every threshold? */
static bool thresholds_reached(const ann_ctx *c, const uint64_t *done)
{
	for (size_t i = 0; i < c->nsort; i++) {
		uint64_t t = c->total[c->sort[i]];
		double prop = (double)done[i] * 100.0;
		if (t > 0)
			prop /= (double)t;
		if (!(prop >= c->thr[i]))
			return false;
	}
	return true;
}

typedef struct tree_arc {
	uint32_t arc;
	uint32_t other;          /* the caller's or the callee's key */
	const uint64_t *v;
	const char *name;
} tree_arc;

static int cmp_tree_arcs(const void *a, const void *b, void *ctx)
{
	const tree_arc *x = a, *y = b;
	int r = ann_cmp_costs(ctx, x->v, y->v);
	return r ? r : strcmp(x->name, y->name);
}

void ann_arc_costs(const ann_ctx *c, uint32_t arc, const uint64_t *raw, uint64_t *out)
{
	const plumb_metrics *m = c->fm;
	memcpy(out, raw, c->nev * sizeof *out);
	if (arc == UINT32_MAX || !m->arc_in_scc || !m->arc_in_scc[arc])
		return;
	const uint64_t *cap = plumb_metrics_incl(m, m->arcs[arc].callee);
	for (size_t e = 0; e < c->nev; e++)
		if (out[e] > cap[e])
			out[e] = cap[e];
}

static void print_calls(const ann_ctx *c, uint64_t calls)
{
	char buf[32];
	if (calls == PLUMB_COUNT_UNKNOWN)
		fputs(" (?x)", c->out);
	else
		fprintf(c->out, " (%sx)", plumb_format_u64(calls, buf, sizeof buf));
}

/* The "<" (callers) or ">" (callees) lines of one function, by cost. */
static int print_tree_side(ann_ctx *c, uint32_t key, bool callers, plumb_error *err)
{
	const plumb_metrics *m = c->fm;
	const uint32_t *start = callers ? m->in_start : m->out_start;
	const uint32_t *list = callers ? m->in_arcs : m->out_arcs;
	size_t n = start[key + 1] - start[key];
	if (!n)
		return 0;
	tree_arc *v = calloc(n, sizeof *v);
	uint64_t *capped = calloc(n * c->nev, sizeof *capped);
	if (!v || !capped) {
		free(v);
		free(capped);
		return plumb_fail_nomem(err);
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t a = list[start[key] + i];
		uint32_t other = callers ? m->arcs[a].caller : m->arcs[a].callee;
		plumb_id fn = m->keys[other].function;
		const uint64_t *costs = (callers ? m->caller_attr : m->callee_attr) + (size_t)a * m->nevents;
		ann_arc_costs(c, a, costs, capped + i * c->nev);
		v[i] = (tree_arc){ a, other, capped + i * c->nev,
				   fn == PLUMB_NONE ? "???" : ann_fn_name(c, fn) };
		if (!v[i].name) {
			free(v);
			free(capped);
			return plumb_fail_nomem(err);
		}
	}
	qsort_r(v, n, sizeof *v, cmp_tree_arcs, c);
	for (size_t i = 0; i < n; i++) {
		plumb_id fn = m->keys[v[i].other].function;
		ann_cells(c, v[i].v, c->fn_widths);
		fprintf(c->out, callers ? " < %s" : " >   %s", v[i].name);
		print_calls(c, m->arcs[v[i].arc].calls);
		const char *obj = fn == PLUMB_NONE ? NULL : fn_object(c, fn);
		if (obj)
			fprintf(c->out, " [%s]", obj);
		fputc('\n', c->out);
	}
	free(v);
	free(capped);
	return 0;
}

static int print_function(ann_ctx *c, const row *r, plumb_error *err)
{
	plumb_id fn = c->fm->keys[r->key].function;
	bool tree = c->o->tree != PLUMB_ANN_TREE_NONE;
	bool no_tree = strcmp(r->name, "???:???") == 0;
	if (tree)
		fputc('\n', c->out);
	if ((c->o->tree & PLUMB_ANN_TREE_CALLER) && !no_tree && print_tree_side(c, r->key, true, err))
		return -1;
	ann_cells(c, r->v, c->fn_widths);
	fprintf(c->out, "%s %s", tree ? " * " : "", r->name);
	const char *obj = fn_object(c, fn);
	if (obj)
		fprintf(c->out, " [%s]", obj);
	fputc('\n', c->out);
	if ((c->o->tree & PLUMB_ANN_TREE_CALLING) && !no_tree && print_tree_side(c, r->key, false, err))
		return -1;
	return 0;
}

static int print_functions(ann_ctx *c, plumb_error *err)
{
	size_t n;
	row *rows = function_rows(c, &n, err);
	if (!rows)
		return -1;
	uint64_t *vals = calloc(n * c->nev + 1, sizeof *vals);
	uint64_t *done = calloc(c->nsort + 1, sizeof *done);
	int rc = -1;
	if (!vals || !done) {
		plumb_fail_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		memcpy(vals + i * c->nev, rows[i].v, c->nev * sizeof *vals);
	ann_widths(c, vals, n, c->fn_widths);
	fputs(ANN_FANCY, c->out);
	ann_events_header(c, c->fn_widths);
	fputs(" file:function\n" ANN_FANCY, c->out);
	bool cut = !(c->single_threshold && c->thr[0] >= 100);
	for (size_t i = 0; i < n; i++) {
		if (cut && thresholds_reached(c, done))
			break;
		if (print_function(c, &rows[i], err))
			goto out;
		c->listed[c->fm->keys[rows[i].key].function] = true;
		c->order[c->norder++] = c->fm->keys[rows[i].key].function;
		for (size_t s = 0; s < c->nsort; s++) {
			uint64_t v = rows[i].v[c->sort[s]], t = c->total[c->sort[s]];
			/* Inclusive lists stop once the rest of the program is under
			 * the threshold; exclusive ones once the listed sum reaches it. */
			done[s] = c->o->inclusive ? (t > v ? t - v : 0) : done[s] + v;
		}
	}
	fputc('\n', c->out);
	rc = 0;
out:
	free(vals);
	free(done);
	free(rows);
	return rc;
}

/* ---- the whole run ------------------------------------------------------ */

static void ctx_free(ann_ctx *c)
{
	if (c->fname)
		for (size_t i = 0; i < c->p->functions.n; i++)
			free(c->fname[i]);
	if (c->thr_text)
		for (size_t i = 0; i < c->nev * 4 + 1; i++)
			free(c->thr_text[i]);
	free(c->fname);
	free(c->thr_text);
	free(c->thr);
	free(c->recorded);
	free(c->show);
	free(c->sort);
	free(c->total);
	free(c->listed);
	free(c->order);
	free(c->fn_widths);
	plumb_metrics_free(c->fm);
	plumb_metrics_free(c->lm);
}

/* The numbers of a "summary:"/"totals:" value into v (recorded events, in
 * order; missing ones are 0). False if absent, malformed or all zero. */
static bool parse_summary(const ann_ctx *c, const char *text, uint64_t *v)
{
	if (!text)
		return false;
	bool any = false;
	for (size_t i = 0; i < c->nrecorded; i++) {
		char *end;
		while (*text == ' ' || *text == '\t')
			text++;
		if (!*text) {
			v[c->recorded[i]] = 0;
			continue;
		}
		if (*text < '0' || *text > '9')
			return false;
		v[c->recorded[i]] = strtoull(text, &end, 10);
		any |= v[c->recorded[i]] != 0;
		text = end;
	}
	return any;
}

/* The 100%: a one-part Callgrind file's own summary, which also counts
 * what no cost line holds (the exit system call); otherwise (several
 * parts, other formats) the sum of every self cost. */
static void choose_totals(ann_ctx *c)
{
	const char *sum = plumb_meta_get(c->p, "callgrind.summary");
	const char *tot = plumb_meta_get(c->p, "callgrind.totals");
	memcpy(c->total, c->fm->totals, c->nev * sizeof *c->total);
	c->calculated = !sum && !tot;
	if (c->p->parts.n != 1)
		return;
	uint64_t v[c->nev];
	memcpy(v, c->total, sizeof v);
	if (parse_summary(c, sum, v) || parse_summary(c, tot, v))
		memcpy(c->total, v, sizeof v);
}

static int compute_metrics(ann_ctx *c, plumb_error *err)
{
	plumb_metrics_opts mo;
	plumb_metrics_opts_init(&mo);
	mo.no_cycles = true;
	mo.level = PLUMB_LEVEL_FUNCTION;
	if (plumb_metrics_compute(c->p, &mo, &c->fm, err))
		return -1;
	mo.level = PLUMB_LEVEL_LINE;
	if (plumb_metrics_compute(c->p, &mo, &c->lm, err))
		return -1;
	choose_totals(c);
	return 0;
}

int plumb_annotate_write(const plumb_profile *p, const plumb_annotate_opts *o, FILE *out,
			 plumb_error *err)
{
	ann_ctx c = { .p = p, .o = o, .out = out, .nev = plumb_profile_nevents(p) };
	int rc = -1;
	if (!c.nev)
		return plumb_fail(err, PLUMB_ERR_FORMAT, "the profile has no events");
	c.fname = calloc(p->functions.n + 1, sizeof *c.fname);
	c.listed = calloc(p->functions.n + 1, sizeof *c.listed);
	c.order = calloc(p->functions.n + 1, sizeof *c.order);
	c.total = calloc(c.nev, sizeof *c.total);
	c.fn_widths = calloc(c.nev, sizeof *c.fn_widths);
	if (!c.fname || !c.listed || !c.order || !c.total || !c.fn_widths) {
		plumb_fail_nomem(err);
		goto out;
	}
	if (resolve_events(&c, err) || ann_check_user_files(&c, err) || compute_metrics(&c, err))
		goto out;
	print_header(&c);
	print_totals(&c);
	if (print_functions(&c, err) || ann_sources(&c, err))
		goto out;
	if (o->disasm && ann_disasm(&c, err))
		goto out;
	if (fflush(out) || ferror(out)) {
		plumb_fail(err, PLUMB_ERR_IO, "write error on the output");
		goto out;
	}
	rc = 0;
out:
	ctx_free(&c);
	return rc;
}
