/* The summary tables of the .plumb store, for people querying it with
 * sqlite3: the bulk (frames, call graph, CCT, samples) is in compressed
 * blocks that only plumb reads, so each function's self cost and the
 * calls between functions are also written as plain rows. plumb never
 * reads them back. Schema: docs/plumb-format.md. */
#include <stdlib.h>

#include "store/store_private.h"
#include "store/store_summary.h"

const char store_summary_schema[] =
	"CREATE TABLE function_costs (function INTEGER NOT NULL REFERENCES functions(id),"
	" event INTEGER NOT NULL REFERENCES events(id), self INTEGER,"
	" PRIMARY KEY (function, event)) WITHOUT ROWID;\n"
	"CREATE TABLE calls (caller INTEGER NOT NULL REFERENCES functions(id),"
	" callee INTEGER NOT NULL REFERENCES functions(id), calls INTEGER,"
	" PRIMARY KEY (caller, callee)) WITHOUT ROWID;\n";

typedef struct summary {
	sqlite3 *db;
	const plumb_profile *p;
	const char *path;
	plumb_error *err;
} summary;

static int sql_fail(summary *s, int rc)
{
	if ((rc & 0xff) == SQLITE_NOMEM)
		return plumb_fail_nomem(s->err);
	return plumb_fail(s->err, PLUMB_ERR_IO, "%s: cannot write .plumb file (SQLite: %s)", s->path,
			  sqlite3_errmsg(s->db));
}

/* Insert one row of n integers (NULL where null[k]). */
static int put_row(summary *s, sqlite3_stmt *st, const int64_t *v, const bool *null, int n)
{
	int rc = SQLITE_OK;
	for (int k = 0; k < n && rc == SQLITE_OK; k++)
		rc = null && null[k] ? sqlite3_bind_null(st, k + 1) : sqlite3_bind_int64(st, k + 1, v[k]);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_DONE)
		rc = SQLITE_OK;
	sqlite3_reset(st);
	return rc == SQLITE_OK ? 0 : sql_fail(s, rc);
}

/* dst += src, slot by slot, held at UINT64_MAX (written as NULL: too big to
 * say) instead of wrapping. */
static void add_held(uint64_t *dst, const uint64_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = dst[i] > UINT64_MAX - src[i] ? UINT64_MAX : dst[i] + src[i];
}

static int function_costs(summary *s, sqlite3_stmt *st)
{
	const plumb_profile *p = s->p;
	size_t nev = p->events.n, nfn = p->functions.n;
	uint64_t *sum = calloc(nfn * nev + 1, sizeof *sum);
	if (!sum)
		return plumb_fail_nomem(s->err);
	int ret = -1;
	for (size_t i = 0; i < p->cct.n; i++)
		if (p->cct.v[i].frame != PLUMB_NONE)
			add_held(sum + p->frames.v[p->cct.v[i].frame].function * nev,
				 p->cct_self.v + i * nev, nev);
	for (size_t i = 0; i < p->cg_self.n; i++)
		add_held(sum + p->frames.v[p->cg_self.v[i].frame].function * nev,
			 p->cg_self_cost.v + i * nev, nev);
	for (size_t f = 0; f < nfn; f++)
		for (size_t e = 0; e < nev; e++) {
			uint64_t v = sum[f * nev + e];
			if (v && put_row(s, st, (int64_t[]){ (int64_t)f, (int64_t)e, store_u2i(v) },
					 (bool[]){ false, false, v == UINT64_MAX }, 3))
				goto out;
		}
	ret = 0;
out:
	free(sum);
	return ret;
}

typedef struct call {
	plumb_id caller, callee;
	uint64_t calls; /* PLUMB_COUNT_UNKNOWN if not known */
} call;

static int call_cmp(const void *a, const void *b)
{
	const call *x = a, *y = b;
	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/* Calls from the call graph's arcs and the CCT's edges (activations). */
static int calls(summary *s, sqlite3_stmt *st)
{
	const plumb_profile *p = s->p;
	size_t n = 0;
	call *v = malloc((p->arcs.n + p->cct.n + 1) * sizeof *v);
	if (!v)
		return plumb_fail_nomem(s->err);
	for (size_t i = 0; i < p->arcs.n; i++) {
		const plumb_arc *a = &p->arcs.v[i];
		v[n++] = (call){ p->frames.v[a->caller].function, a->callee, a->calls };
	}
	for (size_t i = 0; i < p->cct.n; i++) {
		const plumb_cct_node *c = &p->cct.v[i];
		if (c->parent == PLUMB_NONE || p->cct.v[c->parent].frame == PLUMB_NONE)
			continue;
		v[n++] = (call){ p->frames.v[p->cct.v[c->parent].frame].function,
				 p->frames.v[c->frame].function, c->activations };
	}
	qsort(v, n, sizeof *v, call_cmp);
	int ret = 0;
	for (size_t i = 0; i < n && !ret;) {
		uint64_t total = 0;
		bool known = false;
		size_t j = i;
		for (; j < n && v[j].caller == v[i].caller && v[j].callee == v[i].callee; j++)
			if (v[j].calls != PLUMB_COUNT_UNKNOWN) {
				add_held(&total, &v[j].calls, 1);
				known = true;
			}
		ret = put_row(s, st, (int64_t[]){ v[i].caller, v[i].callee, store_u2i(total) },
			      (bool[]){ false, false, !known || total == UINT64_MAX }, 3);
		i = j;
	}
	free(v);
	return ret;
}

int store_write_summary(sqlite3 *db, const plumb_profile *p, const char *path, plumb_error *err)
{
	summary s = { db, p, path, err };
	sqlite3_stmt *fc = NULL, *cl = NULL;
	int rc = sqlite3_prepare_v2(db, "INSERT INTO function_costs VALUES (?1, ?2, ?3)", -1, &fc,
					NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "INSERT INTO calls VALUES (?1, ?2, ?3)", -1, &cl, NULL);
	int ret = rc != SQLITE_OK ? sql_fail(&s, rc) : function_costs(&s, fc) || calls(&s, cl) ? -1 : 0;
	sqlite3_finalize(fc);
	sqlite3_finalize(cl);
	return ret;
}
