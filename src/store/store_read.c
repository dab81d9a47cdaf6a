/* The .plumb reader: checks that a file is a plumb profile this version
 * understands, then replays it through the model API in id order, so that
 * reading into an empty profile gives back the very same ids. Every id in a
 * row is checked before use: a hand-edited file gets an error naming the
 * table and row, never an out-of-bounds access. Schema: docs/plumb-format.md. */
#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plumb/formats.h"
#include "plumb/store.h"
#include "store/store_flat.h"
#include "store/store_read.h"
#include "store/store_jumps.h"
#include "store/store_points.h"
#include "store/store_private.h"

/* The current row of a table, for messages and column checks. */
typedef struct row {
	rd *r;
	const char *table;
	sqlite3_stmt *st;
	int64_t id;
} row;

/* ---- errors ---------------------------------------------------------------- */

int store_rd_fail(rd *r, int rc)
{
	const char *msg = r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(rc);
	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		/* a damaged record can claim more bytes than SQLite will allocate:
		 * say both, as a file error, not a bare "out of memory" */
		return plumb_fail(r->err, PLUMB_ERR_FORMAT,
				  "%s: damaged .plumb file, or out of memory (SQLite: %s)", r->path, msg);
	case SQLITE_IOERR:
		if (rc == SQLITE_IOERR_SHORT_READ)
			break;
		/* fall through */
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
		return plumb_fail(r->err, PLUMB_ERR_IO, "%s: cannot read .plumb file (SQLite: %s)",
				  r->path, msg);
	}
	return plumb_fail(r->err, PLUMB_ERR_FORMAT, "%s: damaged or truncated .plumb file (SQLite: %s)",
			  r->path, msg);
}

static int row_fail(const row *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int row_fail(const row *w, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return plumb_fail(w->r->err, PLUMB_ERR_FORMAT, "%s: table %s, row %lld: %s", w->r->path,
			  w->table, (long long)w->id, what);
}

/* A model call failed and filled err: say where in the file it happened. */
static int row_model_fail(const row *w)
{
	plumb_error *err = w->r->err;
	if (!err)
		return -1;
	char what[sizeof err->message];
	memcpy(what, err->message, sizeof what);
	/* what the model refuses as a caller's mistake (an event without a
	 * name) is, read from a file, damage in the file */
	plumb_status code = err->code == PLUMB_ERR_USAGE ? PLUMB_ERR_FORMAT : err->code;
	return plumb_fail(err, code, "%s: table %s, row %lld: %s", w->r->path, w->table,
			  (long long)w->id, what);
}

/* ---- id maps ---------------------------------------------------------------- */

int store_map_push(rd *r, idmap *m, plumb_id id)
{
	if (id == PLUMB_NONE)
		return plumb_fail_nomem(r->err); /* the model's only failure left */
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		plumb_id *v = realloc(m->v, cap * sizeof *v);
		if (!v)
			return plumb_fail_nomem(r->err);
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n++] = id;
	return 0;
}

/* ---- columns ---------------------------------------------------------------- */

static const char *type_name(int type)
{
	switch (type) {
	case SQLITE_INTEGER: return "an integer";
	case SQLITE_FLOAT: return "a real number";
	case SQLITE_TEXT: return "text";
	case SQLITE_BLOB: return "a blob";
	default: return "NULL";
	}
}

/* An integer column; NULL is allowed (and *present cleared) only when present
 * is non-NULL. */
static int col_int(const row *w, int col, const char *name, int64_t *out, bool *present)
{
	int type = sqlite3_column_type(w->st, col);
	*out = 0; /* defined on every path */
	if (type == SQLITE_NULL && present) {
		*present = false;
		return 0;
	}
	if (type != SQLITE_INTEGER)
		return row_fail(w, "%s: expected an integer, found %s", name, type_name(type));
	if (present)
		*present = true;
	*out = sqlite3_column_int64(w->st, col);
	return 0;
}

static int col_u32(const row *w, int col, const char *name, uint32_t *out)
{
	int64_t v;
	*out = 0;
	if (col_int(w, col, name, &v, NULL))
		return -1;
	if (v < 0 || v > UINT32_MAX)
		return row_fail(w, "%s: %lld out of range", name, (long long)v);
	*out = (uint32_t)v;
	return 0;
}

/* A reference to a row of another table, mapped to the profile's id.
 * optional: NULL gives PLUMB_NONE. */
static int col_ref(const row *w, int col, const char *name, const idmap *m, bool optional,
		   plumb_id *out)
{
	int64_t v;
	bool present = true;
	*out = PLUMB_NONE;
	if (col_int(w, col, name, &v, optional ? &present : NULL))
		return -1;
	if (!present) {
		*out = PLUMB_NONE;
		return 0;
	}
	if (v < 0 || (uint64_t)v >= m->n)
		return row_fail(w, "%s %lld out of range (table %s has %zu rows)", name,
				(long long)v, m->table, m->n);
	*out = m->v[v];
	return 0;
}

/* A string reference for the model API, which takes C strings: a string
 * with a NUL byte inside stands for its prefix, which is interned here. The
 * caller turns ids into pointers (S) only once all of a row's strings are
 * read: interning a new string may move the buffer those pointers point
 * into, and the model then finds every string it is given already there. */
static int col_sid(const row *w, int col, const char *name, bool optional, plumb_id *out)
{
	plumb_profile *p = w->r->p;
	if (col_ref(w, col, name, &w->r->str, optional, out))
		return -1;
	if (*out == PLUMB_NONE)
		return 0;
	size_t len = strlen(plumb_str(p, *out));
	if (len == p->strings.lens.v[*out])
		return 0;
	char *copy = strndup(plumb_str(p, *out), len);
	*out = copy ? plumb_intern_n(p, copy, len) : PLUMB_NONE;
	free(copy);
	return *out == PLUMB_NONE ? plumb_fail_nomem(w->r->err) : 0;
}

#define S(r, id) plumb_str((r)->p, (id))

/* ---- iterating a table in id order ------------------------------------------ */

int store_rd_prepare(rd *r, const char *sql, sqlite3_stmt **st)
{
	int rc = sqlite3_prepare_v2(r->db, sql, -1, st, NULL);
	return rc == SQLITE_OK ? 0 : store_rd_fail(r, rc);
}

/* Step to row number index (0-based): 1 on a row, 0 at the end, -1 on error.
 * Ids must be dense, so that they can serve as array indexes. */
static int rows_next(row *w, size_t index)
{
	int rc = sqlite3_step(w->st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return store_rd_fail(w->r, rc);
	w->id = (int64_t)index;
	int64_t id;
	if (col_int(w, 0, "id", &id, NULL))
		return -1;
	if (id != (int64_t)index) {
		w->id = id;
		return row_fail(w, "ids must run 0, 1, 2, ... without gaps; expected %zu", index);
	}
	return 1;
}

/* ---- the tables -------------------------------------------------------------- */

static int read_strings(rd *r)
{
	row w = { r, "strings", NULL, 0 };
	if (store_rd_prepare(r, "SELECT id, text FROM strings ORDER BY id", &w.st))
		return -1;
	int more, ret = -1;
	for (size_t i = 0; (more = rows_next(&w, i)) > 0; i++) {
		int type = sqlite3_column_type(w.st, 1);
		if (type != SQLITE_TEXT && type != SQLITE_BLOB) {
			row_fail(&w, "text: expected text, found %s", type_name(type));
			goto out;
		}
		const char *s = (const char *)sqlite3_column_blob(w.st, 1);
		size_t len = (size_t)sqlite3_column_bytes(w.st, 1);
		if (store_map_push(r, &r->str, len ? plumb_intern_n(r->p, s, len) : plumb_intern(r->p, "")))
			goto out;
	}
	ret = more;
out:
	sqlite3_finalize(w.st);
	return ret;
}

/* Events are added to an empty profile, or must match the profile's. */
static int use_event(rd *r, const row *w, size_t i, bool add)
{
	plumb_id sname, slong, sunit, sformula;
	if (col_sid(w, 1, "name", false, &sname) || col_sid(w, 2, "long_name", true, &slong) ||
	    col_sid(w, 3, "unit", true, &sunit) || col_sid(w, 4, "formula", true, &sformula))
		return -1;
	plumb_profile *p = r->p;
	const char *name = S(r, sname), *long_name = S(r, slong), *formula = S(r, sformula);
	if (!add) {
		if (i >= p->events.n || strcmp(plumb_str(p, p->events.v[i].name), name) != 0)
			return plumb_fail(r->err, PLUMB_ERR_FORMAT,
					  "%s: event %zu is '%s' but the profile's is '%s': files read "
					  "together must have the same events in the same order",
					  r->path, i, name,
					  i < p->events.n ? plumb_str(p, p->events.v[i].name) : "(none)");
		return 0;
	}
	int id = formula ? plumb_event_add_derived(p, name, long_name, formula, r->err)
			 : plumb_event_add(p, name, long_name, S(r, sunit), r->err);
	if (id < 0)
		return row_model_fail(w);
	if (formula) /* the derived-event call takes no unit */
		p->events.v[id].unit = sunit;
	return 0;
}

static int read_events(rd *r)
{
	row w = { r, "events", NULL, 0 };
	if (store_rd_prepare(r, "SELECT id, name, long_name, unit, formula FROM events ORDER BY id", &w.st))
		return -1;
	size_t had = r->p->events.n, i;
	int more, ret = -1;
	for (i = 0; (more = rows_next(&w, i)) > 0; i++)
		if (use_event(r, &w, i, had == 0))
			goto out;
	if (more < 0)
		goto out;
	if (had && i != had) {
		plumb_fail(r->err, PLUMB_ERR_FORMAT,
			   "%s: the file has %zu events but the profile has %zu: files read together "
			   "must have the same events in the same order", r->path, i, had);
		goto out;
	}
	r->vec = calloc(i ? i : 1, sizeof *r->vec);
	ret = r->vec ? 0 : plumb_fail_nomem(r->err);
out:
	sqlite3_finalize(w.st);
	return ret;
}

static int read_modules(rd *r)
{
	row w = { r, "modules", NULL, 0 };
	if (store_rd_prepare(r, "SELECT id, path, build_id FROM modules ORDER BY id", &w.st))
		return -1;
	int more, ret = -1;
	for (size_t i = 0; (more = rows_next(&w, i)) > 0; i++) {
		plumb_id path, build_id;
		if (col_sid(&w, 1, "path", false, &path) || col_sid(&w, 2, "build_id", true, &build_id) ||
		    store_map_push(r, &r->mod, plumb_module_intern(r->p, S(r, path), S(r, build_id))))
			goto out;
	}
	ret = more;
out:
	sqlite3_finalize(w.st);
	return ret;
}

static int read_files(rd *r)
{
	row w = { r, "files", NULL, 0 };
	if (store_rd_prepare(r, "SELECT id, path FROM files ORDER BY id", &w.st))
		return -1;
	int more, ret = -1;
	for (size_t i = 0; (more = rows_next(&w, i)) > 0; i++) {
		plumb_id path;
		if (col_sid(&w, 1, "path", false, &path) ||
		    store_map_push(r, &r->file, plumb_file_intern(r->p, S(r, path))))
			goto out;
	}
	ret = more;
out:
	sqlite3_finalize(w.st);
	return ret;
}

static int read_functions(rd *r)
{
	row w = { r, "functions", NULL, 0 };
	if (store_rd_prepare(r, "SELECT id, name, mangled, module, file, line FROM functions ORDER BY id",
		       &w.st))
		return -1;
	int more, ret = -1;
	for (size_t i = 0; (more = rows_next(&w, i)) > 0; i++) {
		plumb_id name, mangled, module, file;
		uint32_t line;
		if (col_sid(&w, 1, "name", false, &name) || col_sid(&w, 2, "mangled", true, &mangled) ||
		    col_ref(&w, 3, "module", &r->mod, true, &module) ||
		    col_ref(&w, 4, "file", &r->file, true, &file) || col_u32(&w, 5, "line", &line) ||
		    store_map_push(r, &r->fn, plumb_function_intern_ids(r->p, name, mangled, module,
								  file, line)))
			goto out;
	}
	ret = more;
out:
	sqlite3_finalize(w.st);
	return ret;
}

/* Parts are only described here; read_cct adds each when its root comes, so
 * that part roots get the same node ids as in the profile that was written. */
static int read_parts(rd *r)
{
	row w = { r, "parts", NULL, 0 };
	if (store_rd_prepare(r, "SELECT id, kind, name, pid, tid, start_function, root, arc_costs FROM parts"
			  " ORDER BY id", &w.st))
		return -1;
	int more, ret = -1;
	size_t cap = 0;
	for (size_t i = 0; (more = rows_next(&w, i)) > 0; i++) {
		if (i == cap) {
			cap = cap ? cap * 2 : 16;
			file_part *v = realloc(r->parts, cap * sizeof *v);
			if (!v) {
				plumb_fail_nomem(r->err);
				goto out;
			}
			r->parts = v;
		}
		file_part *fp = &r->parts[i];
		int64_t kind, arc_costs;
		if (col_int(&w, 1, "kind", &kind, NULL) || col_sid(&w, 2, "name", true, &fp->name) ||
		    col_int(&w, 3, "pid", &fp->pid, NULL) || col_int(&w, 4, "tid", &fp->tid, NULL) ||
		    col_ref(&w, 5, "start_function", &r->fn, true, &fp->start_function) ||
		    col_int(&w, 6, "root", &fp->root, NULL) ||
		    col_int(&w, 7, "arc_costs", &arc_costs, NULL))
			goto out;
		if (kind < PLUMB_PART_WHOLE || kind > PLUMB_PART_DUMP) {
			row_fail(&w, "kind: %lld is not a part kind (0 to 3)", (long long)kind);
			goto out;
		}
		if (arc_costs < PLUMB_ARC_COSTS_GIVEN || arc_costs > PLUMB_ARC_COSTS_GPROF) {
			row_fail(&w, "arc_costs: expected 0 (given) or 1 (gprof's estimate), found %lld",
				 (long long)arc_costs);
			goto out;
		}
		fp->kind = (plumb_part_kind)kind;
		fp->arc_costs = (plumb_arc_costs)arc_costs;
		r->nparts = i + 1;
	}
	ret = more;
out:
	sqlite3_finalize(w.st);
	return ret;
}

/* ---- performance points ------------------------------------------------------
 * points_info is a row; version 5 kept a row per point too (point_row). */

/* A field of a point: NULL when the source lacked it (its bit is cleared);
 * bit 0: a field every point has, never NULL. */
static int point_field(const row *w, int col, const char *name, uint32_t bit, uint32_t *has,
		       uint64_t *out)
{
	int64_t v;
	bool present;
	if (col_int(w, col, name, &v, bit ? &present : NULL))
		return -1;
	if (!bit)
		present = true;
	*out = present ? store_i2u(v) : 0;
	if (!present)
		*has &= ~bit;
	return 0;
}

/* A sum of squares: an integer (64-bit pattern) or the decimal digits of a
 * larger value as text; NULL when absent. */
static int point_sqr(const row *w, int col, const char *name, uint32_t bit, uint32_t *has,
		     long double *out)
{
	int type = sqlite3_column_type(w->st, col);
	*out = 0;
	if (type == SQLITE_NULL) {
		*has &= ~bit;
		return 0;
	}
	if (type == SQLITE_INTEGER) {
		*out = (long double)store_i2u(sqlite3_column_int64(w->st, col));
		return 0;
	}
	const char *text = type == SQLITE_TEXT ? (const char *)sqlite3_column_text(w->st, col) : NULL;
	char *end;
	if (text && *text >= '0' && *text <= '9') {
		errno = 0;
		*out = strtold(text, &end);
		if (!*end && errno == 0)
			return 0;
	}
	return row_fail(w, "%s: expected an integer or its digits as text, found %s", name,
			type_name(type));
}

static int point_row(rd *r, const row *w)
{
	plumb_point t = { .has = PLUMB_PT_ALL };
	int64_t exact;
	if (col_ref(w, 1, "part", &r->part, false, &t.part) ||
	    col_ref(w, 2, "function", &r->fn, false, &t.function) ||
	    col_ref(w, 3, "context", &r->node, true, &t.context) ||
	    point_field(w, 4, "input", 0, &t.has, &t.input) ||
	    point_field(w, 5, "calls", 0, &t.has, &t.calls) ||
	    point_field(w, 6, "sum", 0, &t.has, &t.sum) ||
	    col_int(w, 7, "sum_exact", &exact, NULL) ||
	    point_field(w, 8, "min", PLUMB_PT_MIN_MAX, &t.has, &t.min) ||
	    point_field(w, 9, "max", PLUMB_PT_MIN_MAX, &t.has, &t.max) ||
	    point_sqr(w, 10, "sqr_sum", PLUMB_PT_SQR, &t.has, &t.sqr_sum) ||
	    point_field(w, 11, "real_sum", PLUMB_PT_REAL, &t.has, &t.real_sum) ||
	    point_field(w, 12, "self_sum", PLUMB_PT_SELF, &t.has, &t.self_sum) ||
	    point_field(w, 13, "self_min", PLUMB_PT_SELF_MIN_MAX, &t.has, &t.self_min) ||
	    point_field(w, 14, "self_max", PLUMB_PT_SELF_MIN_MAX, &t.has, &t.self_max) ||
	    point_sqr(w, 15, "self_sqr_sum", PLUMB_PT_SELF_SQR, &t.has, &t.self_sqr_sum) ||
	    point_field(w, 16, "syscall_cumul", PLUMB_PT_INPUT_STATS, &t.has, &t.syscall_cumul) ||
	    point_field(w, 17, "thread_cumul", PLUMB_PT_INPUT_STATS, &t.has, &t.thread_cumul) ||
	    point_field(w, 18, "syscall_self", PLUMB_PT_INPUT_STATS, &t.has, &t.syscall_self) ||
	    point_field(w, 19, "thread_self", PLUMB_PT_INPUT_STATS, &t.has, &t.thread_self))
		return -1;
	if (exact != 0 && exact != 1)
		return row_fail(w, "sum_exact: expected 0 or 1, found %lld", (long long)exact);
	if (!exact)
		t.has &= ~(uint32_t)PLUMB_PT_SUM;
	/* the pairs and the four drms counts come together or not at all */
	if (t.has & PLUMB_PT_MIN_MAX ? sqlite3_column_type(w->st, 8) == SQLITE_NULL ||
					       sqlite3_column_type(w->st, 9) == SQLITE_NULL
				      : sqlite3_column_type(w->st, 8) != SQLITE_NULL ||
					       sqlite3_column_type(w->st, 9) != SQLITE_NULL)
		return row_fail(w, "min and max: expected both or neither");
	if (t.context != PLUMB_NONE && r->p->cct.v[t.context].part != t.part)
		return row_fail(w, "context: a node of another part");
	if (plumb_point_add(r->p, &t, r->err))
		return row_model_fail(w);
	return 0;
}

static int read_points_info(rd *r)
{
	row w = { r, "points_info", NULL, 0 };
	if (store_rd_prepare(r, "SELECT id, input_metric, memres, total_cost, exe_mtime, version "
			  "FROM points_info ORDER BY id", &w.st))
		return -1;
	int more, ret = -1;
	for (size_t i = 0; (more = rows_next(&w, i)) > 0; i++) {
		plumb_points_info in;
		int64_t total, mtime, version;
		bool has_mtime, has_version;
		plumb_points_info_init(&in);
		if (i > 0) {
			row_fail(&w, "expected one row at most");
			goto out;
		}
		if (col_sid(&w, 1, "input_metric", true, &in.input_metric) ||
		    col_u32(&w, 2, "memres", &in.memres) || col_int(&w, 3, "total_cost", &total, NULL) ||
		    col_int(&w, 4, "exe_mtime", &mtime, &has_mtime) ||
		    col_int(&w, 5, "version", &version, &has_version))
			goto out;
		in.total_cost = store_i2u(total);
		in.exe_mtime = has_mtime ? mtime : -1;
		if (has_version && (version < 0 || version > 1000)) {
			row_fail(&w, "version: %lld out of range", (long long)version);
			goto out;
		}
		in.version = has_version ? (int)version : -1;
		if (plumb_points_info_add(r->p, &in, r->err)) {
			row_model_fail(&w);
			goto out;
		}
	}
	ret = more ? -1 : 0;
out:
	sqlite3_finalize(w.st);
	return ret;
}

/* Version 6 keeps the points in blocks, version 5 a row each. */
static int read_points(rd *r)
{
	if (read_points_info(r))
		return -1;
	if (r->version >= 6)
		return store_read_point_blocks(r);
	row w = { r, "points", NULL, 0 };
	if (store_rd_prepare(r, "SELECT id, part, function, context, input, calls, sum, sum_exact, min, "
			  "max, sqr_sum, real_sum, self_sum, self_min, self_max, self_sqr_sum, "
			  "syscall_cumul, thread_cumul, syscall_self, thread_self FROM points "
			  "ORDER BY id", &w.st))
		return -1;
	int more;
	for (size_t i = 0; (more = rows_next(&w, i)) > 0; i++)
		if (point_row(r, &w)) {
			more = -1;
			break;
		}
	sqlite3_finalize(w.st);
	return more ? -1 : 0;
}

static int read_meta(rd *r)
{
	row w = { r, "meta", NULL, 0 };
	if (store_rd_prepare(r, "SELECT id, name, value FROM meta ORDER BY id", &w.st))
		return -1;
	int more, ret = -1;
	for (size_t i = 0; (more = rows_next(&w, i)) > 0; i++) {
		plumb_id name, value;
		if (col_sid(&w, 1, "name", false, &name) || col_sid(&w, 2, "value", false, &value))
			goto out;
		if (plumb_meta_set(r->p, S(r, name), S(r, value), r->err)) {
			row_model_fail(&w);
			goto out;
		}
	}
	ret = more;
out:
	sqlite3_finalize(w.st);
	return ret;
}

/* ---- opening and checking the file ------------------------------------------- */

static uint32_t be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Check the 100-byte SQLite header before SQLite sees the file, so that the
 * common mistakes get a precise message: not SQLite, another application's
 * database, a file cut short (SQLite alone would only say "malformed"). */
static int check_header(const char *path, uint64_t *file_size, plumb_error *err)
{
	FILE *f = plumb_open_input(path, err);
	if (!f)
		return -1;
	unsigned char h[100];
	size_t n = fread(h, 1, sizeof h, f);
	struct stat st;
	int bad = ferror(f) || fstat(fileno(f), &st) != 0;
	fclose(f);
	if (bad)
		return plumb_fail(err, PLUMB_ERR_IO, "%s: cannot read", path);
	*file_size = (uint64_t)st.st_size;
	if (!plumb_store_detect(h, n))
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s: not a plumb profile (not a SQLite database: expected the "
				  "header \"SQLite format 3\")", path);
	if (n < sizeof h)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s: damaged or truncated .plumb file (SQLite: %zu bytes, shorter "
				  "than the 100-byte database header)", path, n);
	uint32_t app = be32(h + 68);
	if (app != PLUMB_STORE_APPLICATION_ID)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s: not a plumb profile (SQLite application_id 0x%08x, expected "
				  "0x%08x)", path, (unsigned)app, (unsigned)PLUMB_STORE_APPLICATION_ID);
	uint32_t page = (uint32_t)h[16] << 8 | h[17];
	if (page == 1)
		page = 65536;
	/* The header's page count is valid when its change counter matches. */
	uint64_t want = (uint64_t)page * be32(h + 28);
	if (be32(h + 24) == be32(h + 92) && want > (uint64_t)st.st_size)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s: damaged or truncated .plumb file (SQLite: the header says "
				  "%llu bytes, the file has %lld)", path, (unsigned long long)want,
				  (long long)st.st_size);
	return 0;
}

static int pragma_int(rd *r, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	if (store_rd_prepare(r, sql, &st))
		return -1;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : store_rd_fail(r, rc);
}

static int check_version(rd *r)
{
	int64_t app, version;
	if (pragma_int(r, "PRAGMA application_id", &app) ||
	    pragma_int(r, "PRAGMA user_version", &version))
		return -1;
	if (app != PLUMB_STORE_APPLICATION_ID)
		return plumb_fail(r->err, PLUMB_ERR_FORMAT,
				  "%s: not a plumb profile (SQLite application_id 0x%08llx, expected "
				  "0x%08x)", r->path, (unsigned long long)(uint32_t)app,
				  (unsigned)PLUMB_STORE_APPLICATION_ID);
	if (version > PLUMB_STORE_VERSION)
		return plumb_fail(r->err, PLUMB_ERR_UNSUPPORTED,
				  "%s: .plumb schema version %lld is newer than this plumb reads "
				  "(up to %d): upgrade plumb", r->path, (long long)version,
				  PLUMB_STORE_VERSION);
	if (version < 1)
		return plumb_fail(r->err, PLUMB_ERR_FORMAT,
				  "%s: damaged .plumb file (schema version %lld, expected %d)",
				  r->path, (long long)version, PLUMB_STORE_VERSION);
	/* Versions 1 to 4 kept a row per frame and per cost: plumb no longer
	 * reads them (docs/plumb-format.md, "Versioning policy"). Version 5
	 * differs from 6 in its points alone (read_points). */
	if (version < PLUMB_STORE_VERSION_OLDEST)
		return plumb_fail(r->err, PLUMB_ERR_UNSUPPORTED,
				  "%s: .plumb schema version %lld was written by an older plumb; this "
				  "plumb reads versions %d to %d: convert the original profile again "
				  "(plumb convert INPUT -o %s) or record it again", r->path,
				  (long long)version, PLUMB_STORE_VERSION_OLDEST, PLUMB_STORE_VERSION,
				  r->path);
	r->version = (int)version;
	return 0;
}

static int rd_exec(rd *r, const char *sql)
{
	int rc = sqlite3_exec(r->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : store_rd_fail(r, rc);
}

/* The file is untrusted input: no schema-defined code may run with power. */
static int rd_open(rd *r)
{
	int rc = sqlite3_open_v2(r->path, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_extended_result_codes(r->db, 1);
	if (rc == SQLITE_OK)
		rc = sqlite3_db_config(r->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_db_config(r->db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
	return rc == SQLITE_OK ? 0 : store_rd_fail(r, rc);
}

/* The number of entities of each bulk kind: n[0] cct, n[1] samples,
 * n[2] cg_self, n[3] arcs, n[4] fn_self, n[5] fn_arcs. */
static int bulk_counts(rd *r, int64_t n[6])
{
	static const char *const kinds[6] = { "cct", "samples", "cg_self", "arcs", "fn_self",
					      "fn_arcs" };
	sqlite3_stmt *st;
	if (store_rd_prepare(r, "SELECT kind, sum(count) FROM bulk GROUP BY kind", &st))
		return -1;
	memset(n, 0, 6 * sizeof *n);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(st, 0);
		for (int k = 0; kind && k < 6; k++)
			if (strcmp(kind, kinds[k]) == 0)
				n[k] = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : store_rd_fail(r, rc);
}

/* Read the call graph by function (store_fnlevel.h) instead of every
 * position? Only when asked, and when the file has it: no calling
 * contexts but the parts' roots, no samples, and fn_ blocks for the call
 * graph's (a file written without them has cg_self or arcs alone). */
static int use_fnlevel(rd *r, bool asked, bool *use)
{
	int64_t n[6];
	*use = false;
	if (!asked)
		return 0;
	sqlite3_stmt *st;
	if (bulk_counts(r, n) || store_rd_prepare(r, "SELECT count(*) FROM parts", &st))
		return -1;
	int rc = sqlite3_step(st);
	int64_t parts = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return store_rd_fail(r, rc);
	*use = n[0] == parts && n[1] == 0 && (n[2] == 0 || n[4] > 0) && (n[3] == 0 || n[5] > 0);
	return 0;
}

/* The parts alone, for a read of the flat view only: made as their root
 * nodes would make them, without the nodes' costs. */
static int flat_parts(rd *r)
{
	for (size_t i = 0; i < r->nparts; i++) {
		const file_part *fp = &r->parts[i];
		plumb_id id = plumb_part_add(r->p, fp->kind, plumb_str(r->p, fp->name), fp->pid, fp->tid);
		if (store_map_push(r, &r->part, id))
			return -1;
		r->p->parts.v[id].start_function = fp->start_function;
		r->p->parts.v[id].arc_costs = fp->arc_costs;
	}
	return 0;
}

static int read_all(rd *r, const plumb_read_opts *o)
{
	bool fnlevel, functions_only = o && (o->functions_only || o->flat_only);
	/* the flat view only, into an empty profile, from a file that keeps it */
	bool empty = plumb_profile_is_empty(r->p);
	bool flat_only = o && o->flat_only && empty, inputs_only = o && o->inputs_only && empty;
	int64_t flat = 0, inputs = 0;
	/* One read transaction: a consistent snapshot of the whole file. */
	if (check_version(r) || rd_exec(r, "BEGIN"))
		return -1;
	if (read_strings(r) || read_events(r) || read_modules(r) || read_files(r) ||
	    read_functions(r) || store_check_bulk_size(r) ||
	    (flat_only && r->version >= 8 && store_kept_count(r, "flat", &flat)) ||
	    (inputs_only && r->version >= 8 && store_kept_count(r, "inputs", &inputs)))
		return -1;
	if (flat > 0)
		return read_parts(r) || flat_parts(r) || store_read_flat(r, flat) || read_meta(r) ||
		       rd_exec(r, "COMMIT");
	if (inputs > 0)
		return read_parts(r) || flat_parts(r) || store_read_inputs(r, inputs) ||
		       read_points_info(r) || read_meta(r) || rd_exec(r, "COMMIT");
	if (use_fnlevel(r, functions_only, &fnlevel))
		return -1;
	if (fnlevel) {
		r->frame.table = "functions";
		if (store_function_frames(r) || read_parts(r) || store_read_cct(r) ||
		    store_read_cg_self(r, "fn_self") || store_read_arcs(r, "fn_arcs"))
			return -1;
	} else if (store_read_frames(r) || read_parts(r) || store_read_cct(r) ||
		   store_read_cg_self(r, "cg_self") || store_read_arcs(r, "arcs") ||
		   store_read_jumps(r->db, r->p, r->part.v, r->part.n, r->frame.v, r->frame.n,
				    r->path, r->err)) {
		return -1;
	}
	if (store_read_samples(r) || read_points(r) || read_meta(r))
		return -1;
	return rd_exec(r, "COMMIT");
}

int plumb_store_read(plumb_profile *p, const char *path, const struct plumb_read_opts *opts,
		     plumb_error *err)
{
	/* nothing in a well-formed store calls for a warning */
	uint64_t size = 0;
	if (check_header(path, &size, err))
		return -1;
	rd r = { .p = p, .path = path, .err = err, .file_size = size };
	if (opts && opts->progress && size > 1)
		r.progress = (store_read_progress){ opts->progress, opts->progress_ctx, 0, size };
	r.str.table = "strings";
	r.mod.table = "modules";
	r.file.table = "files";
	r.fn.table = "functions";
	r.frame.table = "frames";
	r.part.table = "parts";
	r.node.table = "cct_nodes";
	int ret = rd_open(&r) || read_all(&r, opts) ? -1 : 0;
	sqlite3_close(r.db); /* every statement is finalized; a read-only close cannot fail */
	idmap *maps[] = { &r.str, &r.mod, &r.file, &r.fn, &r.frame, &r.part, &r.node };
	for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
		free(maps[i]->v);
	free(r.parts);
	free(r.vec);
	if (r.progress.fn)
		r.progress.fn(r.progress.ctx, path, size, size);
	return ret;
}
