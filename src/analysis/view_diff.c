/* diff view: two profiles compared function by function (or line by line).
 *
 * Each profile's metrics are computed on their own; a function is the same
 * in both when its name, file and module (and line, at the line level) are
 * the same text, since ids differ between profiles. A function of one
 * profile only has 0 on the other side. Rows come by the size of the
 * change of exclusive cost (or of inclusive with --sort inclusive),
 * largest first; with normalize, costs are shares of each profile's total
 * (percent) and the change is in percentage points. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/view_internal.h"

typedef struct diff_entry {
	char *key;            /* name \x1f file \x1f module \x1f line: what matches */
	const char *name, *file, *module;
	uint32_t line;
	uint64_t excl[2], incl[2];  /* [0] base, [1] new */
} diff_entry;

typedef struct diff_side {
	const plumb_profile *p;
	plumb_metrics *m;
	int ev;
	uint64_t total;
} diff_side;

static char *entry_key(const char *name, const char *file, const char *module, uint32_t line)
{
	size_t n = strlen(name ? name : "") + strlen(file ? file : "") + strlen(module ? module : "") + 16;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s\x1f%s\x1f%s\x1f%u", name ? name : "", file ? file : "",
			 module ? module : "", (unsigned)line);
	return s;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const diff_entry *)a)->key, ((const diff_entry *)b)->key);
}

/* Every key with a cost of one side, as entries of that side. */
static int side_entries(const diff_side *s, int which, plumb_level level, diff_entry **v, size_t *n,
			plumb_error *err)
{
	const plumb_metrics *m = s->m;
	diff_entry *e = realloc(*v, (*n + m->nkeys + 1) * sizeof *e);
	if (!e)
		return plumb_fail_nomem(err);
	*v = e;
	for (size_t k = 0; k < m->nkeys; k++) {
		uint64_t x = plumb_metrics_excl(m, k)[s->ev], i = plumb_metrics_incl(m, k)[s->ev];
		if (!x && !i)
			continue;
		const plumb_key *key = &m->keys[k];
		diff_entry *d = &e[(*n)];
		memset(d, 0, sizeof *d);
		d->name = view_key_name(s->p, key);
		d->file = view_key_file(s->p, key);
		d->module = view_key_module(s->p, key);
		d->line = level == PLUMB_LEVEL_LINE ? key->line : 0;
		d->excl[which] = x;
		d->incl[which] = i;
		if (!(d->key = entry_key(d->name, d->file, d->module, d->line)))
			return plumb_fail_nomem(err);
		(*n)++;
	}
	return 0;
}

typedef struct diff_sort {
	bool inclusive, normalize;
	const uint64_t *total;  /* [2] */
} diff_sort;

static double value(const diff_entry *d, bool incl, int side, const diff_sort *s)
{
	uint64_t v = incl ? d->incl[side] : d->excl[side];
	return s->normalize ? view_pct(v, s->total[side]) : (double)v;
}

static double change(const diff_entry *d, bool incl, const diff_sort *s)
{
	return fabs(value(d, incl, 1, s) - value(d, incl, 0, s));
}

static int by_change(const void *va, const void *vb, void *ctx)
{
	const diff_sort *s = ctx;
	const diff_entry *a = va, *b = vb;
	double ca = change(a, s->inclusive, s), cb = change(b, s->inclusive, s);
	if (ca != cb)
		return ca > cb ? -1 : 1;
	ca = change(a, !s->inclusive, s);
	cb = change(b, !s->inclusive, s);
	if (ca != cb)
		return ca > cb ? -1 : 1;
	int r = view_cmp_str(a->name, b->name);
	return r ? r : strcmp(a->key, b->key);
}

/* Sort the entries by key and merge the two sides of each. */
static size_t merge(diff_entry *v, size_t n)
{
	qsort(v, n, sizeof *v, by_key);
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		if (out && strcmp(v[out - 1].key, v[i].key) == 0) {
			diff_entry *d = &v[out - 1];
			for (int s = 0; s < 2; s++) {
				d->excl[s] += v[i].excl[s];
				d->incl[s] += v[i].incl[s];
			}
			free(v[i].key);
			continue;
		}
		v[out++] = v[i];
	}
	return out;
}

static int add_columns(plumb_table *t, bool lines, bool normalize)
{
	static const char *const keys[] = { "exclusive_base", "exclusive_new", "exclusive_delta",
					    "inclusive_base", "inclusive_new", "inclusive_delta" };
	static const char *const titles[] = { "Excl. base", "Excl. new", "Excl. change",
					      "Incl. base", "Incl. new", "Incl. change" };
	static const char *const pct_titles[] = { "Excl. % base", "Excl. % new", "Excl. change",
						  "Incl. % base", "Incl. % new", "Incl. change" };
	if (plumb_table_add_column(t, "function", "Function", PLUMB_CELL_STR, -1, true) < 0 ||
	    plumb_table_add_column(t, "file", "File", PLUMB_CELL_STR, -1, false) < 0 ||
	    (lines && plumb_table_add_column(t, "line", "Line", PLUMB_CELL_INT, -1, false) < 0) ||
	    plumb_table_add_column(t, "module", "Load module", PLUMB_CELL_STR, -1, false) < 0)
		return -1;
	for (size_t i = 0; i < 6; i++) {
		plumb_cell_type ty = normalize ? PLUMB_CELL_NUM : i % 3 == 2 ? PLUMB_CELL_INT : PLUMB_CELL_U64;
		if (plumb_table_add_column(t, keys[i], normalize ? pct_titles[i] : titles[i], ty, -1, false) < 0)
			return -1;
	}
	return 0;
}

static int64_t delta(uint64_t a, uint64_t b, bool *ok)
{
	if (a > INT64_MAX || b > INT64_MAX) {
		*ok = false;
		return 0;
	}
	return (int64_t)b - (int64_t)a;
}

static int add_rows(plumb_table *t, const diff_entry *v, size_t n, bool lines, const diff_sort *s,
		    plumb_error *err)
{
	for (size_t i = 0; i < n; i++) {
		const diff_entry *d = &v[i];
		plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, 0);
		if (!r)
			return plumb_fail_nomem(err);
		size_t c = 0;
		bool ok = true;
		const char *name = d->name ? plumb_table_strdup(t, d->name) : NULL;
		const char *file = d->file ? plumb_table_strdup(t, d->file) : NULL;
		const char *module = d->module ? plumb_table_strdup(t, d->module) : NULL;
		if ((d->name && !name) || (d->file && !file) || (d->module && !module))
			return plumb_fail_nomem(err);
		plumb_cell_str(&r->cells[c++], name);
		plumb_cell_str(&r->cells[c++], file);
		if (lines) {
			if (d->line)
				plumb_cell_int(&r->cells[c], d->line);
			c++;
		}
		plumb_cell_str(&r->cells[c++], module);
		for (int incl = 0; incl < 2; incl++) {
			const uint64_t *x = incl ? d->incl : d->excl;
			if (s->normalize) {
				double a = value(d, incl, 0, s), b = value(d, incl, 1, s);
				plumb_cell_num(&r->cells[c++], a);
				plumb_cell_num(&r->cells[c++], b);
				plumb_cell_num(&r->cells[c++], b - a);
			} else {
				plumb_cell_u64(&r->cells[c++], x[0]);
				plumb_cell_u64(&r->cells[c++], x[1]);
				plumb_cell_int(&r->cells[c++], delta(x[0], x[1], &ok));
			}
		}
		if (!ok)
			return plumb_fail(err, PLUMB_ERR_OVERFLOW, "diff: a cost past 2^63 has no signed change");
	}
	return 0;
}

static int side_init(diff_side *s, const plumb_profile *p, const char *event, const char *which,
		     const plumb_diff_opts *o, plumb_error *err)
{
	s->p = p;
	/* the event the caller named is a usage error; the base's first event
	 * missing in the new profile is a mismatch of the two files */
	if ((s->ev = plumb_event_find(p, event)) < 0)
		return plumb_fail(err, o->metric ? PLUMB_ERR_USAGE : PLUMB_ERR_FORMAT,
				  "the %s profile has no event '%s'", which, event);
	plumb_view_opts vo;
	plumb_view_opts_init(&vo);
	vo.focus = o->focus;
	if (view_metrics(p, &vo, o->level, false, &s->m, err))
		return -1;
	s->total = s->m->totals[s->ev];
	return 0;
}

void plumb_diff_opts_init(plumb_diff_opts *o)
{
	memset(o, 0, sizeof *o);
	o->level = PLUMB_LEVEL_FUNCTION;
}

/* The differential flame graph: the new profile's flame, each box with its
 * change against the base's box of the same call path. */
static int diff_flame(const plumb_profile *base, const plumb_profile *cur, const plumb_diff_opts *o,
		      const char *event, plumb_table **out, plumb_error *err)
{
	plumb_view_opts vo;
	plumb_view_opts_init(&vo);
	vo.kind = PLUMB_VIEW_FLAME;
	vo.focus = o->focus;
	vo.invert = o->invert;
	int eb = plumb_event_find(base, event), en = plumb_event_find(cur, event);
	if (eb < 0 || en < 0)
		return plumb_fail(err, o->metric ? PLUMB_ERR_USAGE : PLUMB_ERR_FORMAT,
				  "the %s profile has no event '%s'", eb < 0 ? "base" : "new", event);
	plumb_table *bt = NULL;
	vo.metric = eb;
	if (view_flame(base, &vo, &bt, err))
		return -1;
	vo.metric = en;
	int rc = view_flame_against(cur, &vo, bt, o->normalize, out, err);
	plumb_table_free(bt);
	return rc;
}

int plumb_diff_build(const plumb_profile *base, const plumb_profile *cur, const plumb_diff_opts *o,
		     plumb_table **out, plumb_error *err)
{
	*out = NULL;
	if (o->flame) {
		if (!base->events.n)
			return plumb_fail(err, PLUMB_ERR_FORMAT, "the base profile has no events");
		return diff_flame(base, cur, o, o->metric ? o->metric : plumb_str(base, base->events.v[0].name),
				  out, err);
	}
	if (o->level != PLUMB_LEVEL_FUNCTION && o->level != PLUMB_LEVEL_LINE)
		return plumb_fail(err, PLUMB_ERR_USAGE, "diff compares functions or lines");
	if (!base->events.n)
		return plumb_fail(err, PLUMB_ERR_FORMAT, "the base profile has no events");
	const char *event = o->metric ? o->metric : plumb_str(base, base->events.v[0].name);
	diff_side s[2] = { 0 };
	diff_entry *v = NULL;
	size_t n = 0;
	plumb_table *t = NULL;
	int rc = -1;
	if (side_init(&s[0], base, event, "base", o, err) || side_init(&s[1], cur, event, "new", o, err) ||
	    side_entries(&s[0], 0, o->level, &v, &n, err) || side_entries(&s[1], 1, o->level, &v, &n, err))
		goto done;
	n = merge(v, n);
	uint64_t totals[2] = { s[0].total, s[1].total };
	diff_sort ds = { o->sort_inclusive, o->normalize, totals };
	qsort_r(v, n, sizeof *v, by_change, &ds);
	char title[512];
	snprintf(title, sizeof title, "Difference in %s%s: new against base, largest change of %s cost first",
		 event, o->normalize ? " (shares of each total, in %)" : "",
		 o->sort_inclusive ? "inclusive" : "exclusive");
	bool lines = o->level == PLUMB_LEVEL_LINE;
	if (!(t = plumb_table_new("diff", title)) || add_columns(t, lines, o->normalize)) {
		plumb_fail_nomem(err);
		goto done;
	}
	size_t shown = o->limit && o->limit < n ? o->limit : n;
	if (add_rows(t, v, shown, lines, &ds, err))
		goto done;
	char note[256];
	snprintf(note, sizeof note, "Total %s: base %llu, new %llu.", event, (unsigned long long)totals[0],
		 (unsigned long long)totals[1]);
	if (plumb_table_add_note(t, note) ||
	    ((s[0].m->inclusive_estimated || s[1].m->inclusive_estimated) &&
	     plumb_table_add_note(t, "Inclusive costs of a call graph are estimates in one or both profiles."))) {
		plumb_fail_nomem(err);
		goto done;
	}
	*out = t;
	t = NULL;
	rc = 0;
done:
	for (size_t i = 0; i < n; i++)
		free(v[i].key);
	free(v);
	plumb_table_free(t);
	plumb_metrics_free(s[0].m);
	plumb_metrics_free(s[1].m);
	return rc;
}
