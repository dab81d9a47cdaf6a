/* The jumps table of the .plumb store: Callgrind's jump=/jcnd= lines
 * (plumb_jump), one row per jump. Kept apart from store.c and
 * store_read.c, which call in here once each. Schema: docs/plumb-format.md. */
#include <stdarg.h>
#include <stdio.h>

#include "plumb/store.h"
#include "store/store_jumps.h"
#include "store/store_private.h"

const char store_jumps_schema[] =
	"CREATE TABLE jumps (id INTEGER PRIMARY KEY,"
	" part INTEGER NOT NULL REFERENCES parts(id),"
	" source INTEGER NOT NULL REFERENCES frames(id),"
	" target INTEGER NOT NULL REFERENCES frames(id),"
	" conditional INTEGER NOT NULL,"
	" executed INTEGER NOT NULL,"
	" followed INTEGER NOT NULL);\n";

int store_check_jumps(const plumb_profile *p, const char *path, plumb_error *err)
{
	for (size_t i = 0; i < p->jumps.n; i++) {
		const plumb_jump *j = &p->jumps.v[i];
		if (j->part >= p->parts.n || j->from >= p->frames.n || j->to >= p->frames.n)
			return plumb_fail(err, PLUMB_ERR_USAGE, "%s: cannot write an inconsistent "
					  "profile: jump %zu: part or frame out of range", path, i);
	}
	return 0;
}

/* The messages of store.c (writing) and store_read.c (reading). */
static int sql_fail(sqlite3 *db, int rc, const char *path, bool writing, plumb_error *err)
{
	if ((rc & 0xff) == SQLITE_NOMEM)
		return plumb_fail_nomem(err);
	if (writing)
		return plumb_fail(err, PLUMB_ERR_IO, "%s: cannot write .plumb file (SQLite: %s)", path,
				  sqlite3_errmsg(db));
	return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: damaged or truncated .plumb file (SQLite: %s)",
			  path, sqlite3_errmsg(db));
}

int store_write_jumps(sqlite3 *db, const plumb_profile *p, const char *path, plumb_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_exec(db, store_jumps_schema, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "INSERT INTO jumps VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1,
					&st, NULL);
	if (rc != SQLITE_OK)
		return sql_fail(db, rc, path, true, err);
	for (size_t i = 0; i < p->jumps.n && rc == SQLITE_OK; i++) {
		const plumb_jump *j = &p->jumps.v[i];
		int64_t v[7] = { (int64_t)i, j->part, j->from, j->to, j->conditional,
				 store_u2i(j->executed), store_u2i(j->followed) };
		for (int k = 0; k < 7 && rc == SQLITE_OK; k++)
			rc = sqlite3_bind_int64(st, k + 1, v[k]);
		if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_DONE)
			rc = SQLITE_OK;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : sql_fail(db, rc, path, true, err);
}

/* ---- reading ---------------------------------------------------------------- */

typedef struct jrow {
	sqlite3_stmt *st;
	const char *path;
	int64_t id;
	plumb_error *err;
} jrow;

static int jrow_fail(const jrow *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int jrow_fail(const jrow *w, const char *fmt, ...)
{
	char what[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return plumb_fail(w->err, PLUMB_ERR_FORMAT, "%s: table jumps, row %lld: %s", w->path,
			  (long long)w->id, what);
}

static int jcol(const jrow *w, int col, const char *name, int64_t *out)
{
	*out = 0; /* defined on every path */
	if (sqlite3_column_type(w->st, col) != SQLITE_INTEGER)
		return jrow_fail(w, "%s: expected an integer", name);
	*out = sqlite3_column_int64(w->st, col);
	return 0;
}

/* A reference column: an index below n, mapped through map. */
static int jref(const jrow *w, int col, const char *name, const plumb_id *map, size_t n,
		const char *table, plumb_id *out)
{
	int64_t v;
	*out = PLUMB_NONE;
	if (jcol(w, col, name, &v))
		return -1;
	if (v < 0 || (uint64_t)v >= n)
		return jrow_fail(w, "%s %lld out of range (table %s has %zu rows)", name, (long long)v,
				 table, n);
	*out = map ? map[v] : (plumb_id)v;
	return 0;
}

static int jump_row(const jrow *w, plumb_profile *p, const plumb_id *part, size_t nparts,
		    const plumb_id *frame, size_t nframes)
{
	plumb_id pt, from, to;
	int64_t id, cond, executed, followed;
	if (jcol(w, 0, "id", &id))
		return -1;
	if (id != w->id)
		return jrow_fail(w, "ids must run 0, 1, 2, ... without gaps; found %lld", (long long)id);
	if (jref(w, 1, "part", part, nparts, "parts", &pt) ||
	    jref(w, 2, "source", frame, nframes, "frames", &from) ||
	    jref(w, 3, "target", frame, nframes, "frames", &to) || jcol(w, 4, "conditional", &cond) ||
	    jcol(w, 5, "executed", &executed) || jcol(w, 6, "followed", &followed))
		return -1;
	if (cond != 0 && cond != 1)
		return jrow_fail(w, "conditional: expected 0 or 1, found %lld", (long long)cond);
	if (!cond && followed != executed)
		return jrow_fail(w, "followed: an unconditional jump's is its executed count");
	plumb_error mine;
	if (plumb_jump_add(p, pt, from, to, cond, store_i2u(executed), store_i2u(followed), &mine) < 0) {
		if (mine.code == PLUMB_ERR_NOMEM)
			return plumb_fail_nomem(w->err);
		return plumb_fail(w->err, mine.code, "%s: table jumps, row %lld: %s", w->path,
				  (long long)w->id, mine.message);
	}
	return 0;
}

int store_read_jumps(sqlite3 *db, plumb_profile *p, const plumb_id *part, size_t nparts,
		     const plumb_id *frame, size_t nframes, const char *path, plumb_error *err)
{
	jrow w = { NULL, path, 0, err };
	int rc = sqlite3_prepare_v2(db, "SELECT id, part, source, target, conditional, executed, followed"
				" FROM jumps ORDER BY id", -1, &w.st, NULL);
	if (rc != SQLITE_OK)
		return sql_fail(db, rc, path, false, err);
	int ret = 0;
	while (ret == 0 && (rc = sqlite3_step(w.st)) == SQLITE_ROW) {
		ret = jump_row(&w, p, part, nparts, frame, nframes);
		w.id++;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = sql_fail(db, rc, path, false, err);
	sqlite3_finalize(w.st);
	return ret;
}
