/* The stacks table of the .plumb store (store_stacks.h): the calling
 * context tree's nodes with a self cost are its distinct stacks (every
 * sample of a stack lands in one node); the heaviest are written, a row
 * each, with the functions on the path from the part's root as JSON.
 * Schema: docs/plumb-format.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_json.h"
#include "store/store_private.h"
#include "store/store_stacks.h"

const char store_stacks_schema[] =
	"CREATE TABLE stacks (id INTEGER PRIMARY KEY,"
	" part INTEGER NOT NULL REFERENCES parts(id),"
	" weights TEXT NOT NULL,"
	" functions TEXT NOT NULL);\n";

typedef struct heavy {
	uint64_t w;    /* the first event's self cost */
	plumb_id node;
} heavy;

/* Heaviest first, then by node id (the same order each time). */
static int heavy_cmp(const void *a, const void *b)
{
	const heavy *x = a, *y = b;
	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int node_cmp(const void *a, const void *b)
{
	const heavy *x = a, *y = b;
	return x->node < y->node ? -1 : x->node > y->node;
}

static bool has_self(const plumb_profile *p, size_t i)
{
	const uint64_t *c = p->cct_self.v + i * p->events.n;
	for (size_t e = 0; e < p->events.n; e++)
		if (c[e])
			return true;
	return false;
}

/* Node's row: SQLite's rc. path is scratch room for the deepest stack. */
static int put_stack(const plumb_profile *p, sqlite3_stmt *ins, store_json *j, plumb_id node,
		     plumb_id *path)
{
	size_t depth = 0;
	for (plumb_id n = node; p->cct.v[n].frame != PLUMB_NONE; n = p->cct.v[n].parent)
		path[depth++] = p->frames.v[p->cct.v[n].frame].function;
	j->len = 0;
	int bad = store_json_costs(j, p->cct_self.v + (size_t)node * p->events.n, p->events.n, true);
	size_t fns = j->len;
	for (size_t k = depth; k-- > 0 && !bad;) {
		char id[16];
		snprintf(id, sizeof id, "%u", (unsigned)path[k]);
		bad = store_json_put(j, k + 1 == depth ? "[" : ",", false) || store_json_put(j, id, false);
	}
	if (bad || store_json_put(j, depth ? "]" : "[]", true))
		return SQLITE_NOMEM;
	int rc = sqlite3_bind_int64(ins, 1, node);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(ins, 2, p->cct.v[node].part);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(ins, 3, j->text, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(ins, 4, j->text + fns, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK && (rc = sqlite3_step(ins)) == SQLITE_DONE)
		rc = SQLITE_OK;
	sqlite3_reset(ins);
	return rc;
}

static int stacks_rows(sqlite3 *db, const plumb_profile *p, size_t *all, size_t *kept)
{
	size_t n = 0, nn = p->cct.n, deepest = 0;
	heavy *v = malloc((nn + 1) * sizeof *v);
	if (!v)
		return SQLITE_NOMEM;
	for (size_t i = 0; i < nn; i++)
		if (p->cct.v[i].frame != PLUMB_NONE && has_self(p, i))
			v[n++] = (heavy){ p->events.n ? p->cct_self.v[i * p->events.n] : 0, (plumb_id)i };
	*all = n;
	qsort(v, n, sizeof *v, heavy_cmp);
	n = n < STORE_STACKS_MAX ? n : STORE_STACKS_MAX;
	*kept = n;
	qsort(v, n, sizeof *v, node_cmp);
	for (size_t i = 0; i < n; i++) { /* the kept stacks' depths: a few thousand frames */
		size_t depth = 0;
		for (plumb_id k = v[i].node; p->cct.v[k].frame != PLUMB_NONE; k = p->cct.v[k].parent)
			depth++;
		deepest = depth > deepest ? depth : deepest;
	}
	sqlite3_stmt *ins = NULL;
	store_json j = { 0 };
	plumb_id *path = malloc((deepest + 1) * sizeof *path);
	int rc = path ? sqlite3_prepare_v2(db, "INSERT INTO stacks VALUES (?1, ?2, ?3, ?4)", -1, &ins,
					   NULL)
		      : SQLITE_NOMEM;
	for (size_t i = 0; i < n && rc == SQLITE_OK; i++)
		rc = put_stack(p, ins, &j, v[i].node, path);
	sqlite3_finalize(ins);
	store_json_free(&j);
	free(path);
	free(v);
	return rc;
}

int store_write_stacks(sqlite3 *db, const plumb_profile *p, const char *path, plumb_error *err)
{
	size_t all = 0, kept = 0;
	int rc = sqlite3_exec(db, store_stacks_schema, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = stacks_rows(db, p, &all, &kept);
	if (rc == SQLITE_OK) {
		char sql[200];
		snprintf(sql, sizeof sql,
			 "INSERT INTO sql_info VALUES ('stacks', %zu), ('stacks_kept', %zu),"
			 " ('stacks_max', %u)", all, kept, STORE_STACKS_MAX);
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	}
	if (rc == SQLITE_OK)
		return 0;
	if ((rc & 0xff) == SQLITE_NOMEM)
		return plumb_fail_nomem(err);
	return plumb_fail(err, PLUMB_ERR_IO, "%s: cannot write .plumb file (SQLite: %s)", path,
			  sqlite3_errmsg(db));
}
