/* The lines table of the .plumb store (store_lines.h): the self costs of
 * the call graph's entries and the calling context tree's nodes, summed by
 * (function, file, line) of their frames. A row per function and file holds
 * that file's lines as JSON, [[line, e0, e1, ...], ...] by line: a row per
 * line would be 1.7 million rows for a 100 MB Callgrind file, a second more
 * to write. Schema: docs/plumb-format.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/index.h"
#include "store/store_json.h"
#include "store/store_lines.h"
#include "store/store_private.h"

const char store_lines_schema[] =
	"CREATE TABLE lines (id INTEGER PRIMARY KEY,"
	" function INTEGER NOT NULL REFERENCES functions(id),"
	" file INTEGER REFERENCES files(id),"
	" costs TEXT NOT NULL);\n";

/* A cost entry of one function: its (file + 1, line) as one sortable key,
 * and the entry (a CCT node below ncct, else a call-graph entry). */
typedef struct line_ent {
	uint64_t key;
	uint32_t ent;
} line_ent;

static int ent_cmp(const void *a, const void *b)
{
	const line_ent *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

static plumb_id ent_frame(const store_lines *w, uint32_t e)
{
	return e < w->ncct ? w->p->cct.v[e].frame : w->p->cg_self.v[e - w->ncct].frame;
}

static const uint64_t *ent_costs(const store_lines *w, uint32_t e)
{
	return e < w->ncct ? w->p->cct_self.v + (size_t)e * w->nev
			   : w->p->cg_self_cost.v + (size_t)(e - w->ncct) * w->nev;
}

static bool any_cost(const uint64_t *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (c[i])
			return true;
	return false;
}

/* One function's entries v[0..n): sorted by file and line and summed
 * into w's lines. */
static int one_function(store_lines *w, plumb_id fn, line_ent *v, size_t n)
{
	if (n > 64) {
		qsort(v, n, sizeof *v, ent_cmp);
	} else { /* a function's entries are a few runs in line order: */
		for (size_t i = 1; i < n; i++) { /* an insertion sort moves little */
			line_ent t = v[i];
			size_t k = i;
			for (; k > 0 && v[k - 1].key > t.key; k--)
				v[k] = v[k - 1];
			v[k] = t;
		}
	}
	for (size_t i = 0, j; i < n; i = j) {
		if (plumb_vec_push(w->recs, ((store_line){ v[i].key, 0, fn, false })) ||
		    plumb_costs_grow(w->costs, w->nev))
			return SQLITE_NOMEM;
		uint64_t *sum = w->costs.v + (w->recs.n - 1) * w->nev;
		for (j = i; j < n && v[j].key == v[i].key; j++)
			store_add_held(sum, ent_costs(w, v[j].ent), w->nev);
		store_add_held(w->total, sum, w->nev);
	}
	return SQLITE_OK;
}

/* Every entry with a cost, bucketed by its frame's function (a counting
 * sort: a big profile has millions), then each function's lines. */
static int all_lines(store_lines *w)
{
	const plumb_profile *p = w->p;
	size_t nfn = p->functions.n, n = w->ncct + p->cg_self.n;
	if (n >= UINT32_MAX)
		return SQLITE_NOMEM;
	size_t *at = calloc(nfn + 2, sizeof *at);
	PLUMB_VEC(uint32_t) costed = { 0 }; /* the entries with a cost, in order */
	line_ent *v = NULL;
	int rc = at ? SQLITE_OK : SQLITE_NOMEM;
	for (uint32_t e = 0; e < n && rc == SQLITE_OK; e++) {
		plumb_id fr = ent_frame(w, e);
		if (fr != PLUMB_NONE && any_cost(ent_costs(w, e), w->nev)) {
			at[p->frames.v[fr].function + 2]++;
			if (plumb_vec_push(costed, e))
				rc = SQLITE_NOMEM;
		}
	}
	for (size_t f = 0; rc == SQLITE_OK && f < nfn; f++) /* at[fn + 1]: where fn's start */
		at[f + 2] += at[f + 1];
	if (rc == SQLITE_OK && !(v = malloc((costed.n + 1) * sizeof *v)))
		rc = SQLITE_NOMEM;
	for (size_t i = 0; i < costed.n && rc == SQLITE_OK; i++) {
		uint32_t e = costed.v[i];
		const plumb_frame *f = &p->frames.v[ent_frame(w, e)];
		uint64_t file1 = f->file == PLUMB_NONE ? 0 : (uint64_t)f->file + 1;
		v[at[f->function + 1]++] = (line_ent){ file1 << 32 | f->line, e };
	} /* now at[fn] is where fn's entries start, at[fn + 1] where they end */
	free(costed.v);
	for (size_t f = 0; rc == SQLITE_OK && f < nfn; f++)
		if (at[f + 1] > at[f])
			rc = one_function(w, (plumb_id)f, v + at[f], at[f + 1] - at[f]);
	free(at);
	free(v);
	return rc;
}

/* The k-th largest of v[0..n) (k < n), v reordered: a selection with
 * three-way partitions (many shares are equal), in linear time on average
 * (a sort of 1.7 million shares took 0.35 s). */
static double kth_largest(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n; /* the answer is in v[lo..hi) */
	for (;;) {
		double pivot = v[lo + (hi - lo) / 2], t;
		/* v[lo..gt) > pivot, v[gt..i) == pivot, v[lt..hi) < pivot */
		size_t gt = lo, i = lo, lt = hi;
		while (i < lt) {
			if (v[i] > pivot) {
				t = v[gt], v[gt++] = v[i], v[i++] = t;
			} else if (v[i] < pivot) {
				t = v[--lt], v[lt] = v[i], v[i] = t;
			} else {
				i++;
			}
		}
		if (k < gt)
			hi = gt;
		else if (k >= lt)
			lo = lt;
		else
			return pivot;
	}
}

/* Each line's largest share of an event's total; the STORE_LINES_MAX
 * largest are kept (ties in the order of the lines). */
static int select_lines(store_lines *w)
{
	size_t n = w->recs.n;
	for (size_t i = 0; i < n; i++) {
		const uint64_t *c = w->costs.v + i * w->nev;
		double most = 0;
		for (size_t e = 0; e < w->nev; e++)
			if (w->total[e] && (double)c[e] / (double)w->total[e] > most)
				most = (double)c[e] / (double)w->total[e];
		w->recs.v[i].share = most;
	}
	double least = 0; /* the share of the STORE_LINES_MAX-th line */
	if (n > STORE_LINES_MAX) {
		double *s = malloc(n * sizeof *s);
		if (!s)
			return SQLITE_NOMEM;
		for (size_t i = 0; i < n; i++)
			s[i] = w->recs.v[i].share;
		least = kth_largest(s, n, STORE_LINES_MAX - 1);
		free(s);
	}
	for (size_t pass = 0; pass < 2; pass++) /* above least, then equal to it */
		for (size_t i = 0; i < n && w->kept < STORE_LINES_MAX; i++) {
			store_line *r = &w->recs.v[i];
			if (!r->keep && (pass ? r->share >= least : r->share > least)) {
				r->keep = true;
				w->kept++;
			}
		}
	return SQLITE_OK;
}

/* The rows: a row per function and file with a line kept. */
static int put_rows(const store_lines *w, sqlite3 *db)
{
	sqlite3_stmt *ins;
	store_json j = { 0 };
	int rc = sqlite3_prepare_v2(db, "INSERT INTO lines VALUES (?1, ?2, ?3, ?4)", -1, &ins, NULL);
	int64_t rows = 0;
	for (size_t i = 0, k; i < w->recs.n && rc == SQLITE_OK; i = k) {
		const store_line *r = &w->recs.v[i];
		j.len = 0;
		for (k = i; k < w->recs.n && w->recs.v[k].fn == r->fn &&
			    w->recs.v[k].key >> 32 == r->key >> 32; k++) {
			if (!w->recs.v[k].keep)
				continue;
			const uint64_t *c = w->costs.v + k * w->nev;
			char line[16];
			snprintf(line, sizeof line, "%u,", (unsigned)(w->recs.v[k].key & UINT32_MAX));
			/* "[[line," opens a row, ",[line," goes on */
			int bad = store_json_put(&j, j.len ? ",[" : "[[", false) ||
				  store_json_put(&j, line, false);
			for (size_t e = 0; e < w->nev && !bad; e++)
				bad = (e && store_json_put(&j, ",", false)) ||
				      store_json_value(&j, c[e], c[e] != UINT64_MAX);
			if (bad || store_json_put(&j, "]", false))
				rc = SQLITE_NOMEM;
		}
		if (rc != SQLITE_OK || j.len == 0)
			continue;
		uint64_t file1 = r->key >> 32;
		if (store_json_put(&j, "]", true))
			rc = SQLITE_NOMEM;
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(ins, 1, rows++);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(ins, 2, r->fn);
		if (rc == SQLITE_OK)
			rc = file1 ? sqlite3_bind_int64(ins, 3, (int64_t)(file1 - 1)) : sqlite3_bind_null(ins, 3);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_text(ins, 4, j.text, -1, SQLITE_STATIC);
		if (rc == SQLITE_OK && (rc = sqlite3_step(ins)) == SQLITE_DONE)
			rc = SQLITE_OK;
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	store_json_free(&j);
	return rc;
}

static int sql_fail(sqlite3 *db, int rc, const char *path, plumb_error *err)
{
	if ((rc & 0xff) == SQLITE_NOMEM)
		return plumb_fail_nomem(err);
	return plumb_fail(err, PLUMB_ERR_IO, "%s: cannot write .plumb file (SQLite: %s)", path,
			  sqlite3_errmsg(db));
}

int store_lines_build(const plumb_profile *p, store_lines *l, plumb_error *err)
{
	size_t nev = p->events.n;
	*l = (store_lines){ .p = p, .nev = nev, .ncct = p->cct.n };
	l->total = calloc(nev + 1, sizeof *l->total);
	if (!l->total || all_lines(l) != SQLITE_OK || select_lines(l) != SQLITE_OK) {
		store_lines_free(l);
		return plumb_fail_nomem(err);
	}
	return 0;
}

int store_lines_write(sqlite3 *db, const store_lines *l, const char *path, plumb_error *err)
{
	int rc = sqlite3_exec(db, store_lines_schema, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = put_rows(l, db);
	if (rc == SQLITE_OK) {
		char sql[200];
		snprintf(sql, sizeof sql,
			 "INSERT INTO sql_info VALUES ('lines', %zu), ('lines_kept', %zu),"
			 " ('lines_max', %u)", l->recs.n, l->kept, STORE_LINES_MAX);
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	}
	return rc == SQLITE_OK ? 0 : sql_fail(db, rc, path, err);
}

void store_lines_free(store_lines *l)
{
	free(l->total);
	free(l->recs.v);
	free(l->costs.v);
	*l = (store_lines){ 0 };
}
