/* The .plumb store: detection and the writer. A profile is written as one
 * SQLite transaction into a temporary file beside the target, which is
 * renamed over it only when complete. Schema: docs/plumb-format.md. */
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/jobs.h"
#include "plumb/formats.h"
#include "plumb/store.h"
#include "store/store_bulk.h"
#include "store/store_encode.h"
#include "store/store_jumps.h"
#include "store/store_lines.h"
#include "store/store_private.h"
#include "store/store_stacks.h"
#include "store/store_summary.h"
#include "store/store_views.h"

bool plumb_store_detect(const unsigned char *head, size_t len)
{
	return len >= STORE_SQLITE_MAGIC_LEN &&
	       memcmp(head, STORE_SQLITE_MAGIC, STORE_SQLITE_MAGIC_LEN) == 0;
}

/* ---- the schema (version PLUMB_STORE_VERSION) ----------------------------
 * Ids are the in-memory ids; NULL stands for PLUMB_NONE or an unknown count.
 * REFERENCES clauses document the links (SQLite does not enforce them
 * unless asked, so they cost nothing). */

static const char schema_sql[] =
	"CREATE TABLE strings (id INTEGER PRIMARY KEY, text TEXT NOT NULL);\n"
	"CREATE TABLE events (id INTEGER PRIMARY KEY,"
	" name INTEGER NOT NULL REFERENCES strings(id),"
	" long_name INTEGER REFERENCES strings(id),"
	" unit INTEGER REFERENCES strings(id),"
	" formula INTEGER REFERENCES strings(id));\n"
	"CREATE TABLE modules (id INTEGER PRIMARY KEY,"
	" path INTEGER NOT NULL REFERENCES strings(id),"
	" build_id INTEGER REFERENCES strings(id));\n"
	"CREATE TABLE files (id INTEGER PRIMARY KEY,"
	" path INTEGER NOT NULL REFERENCES strings(id));\n"
	"CREATE TABLE functions (id INTEGER PRIMARY KEY,"
	" name INTEGER NOT NULL REFERENCES strings(id),"
	" mangled INTEGER REFERENCES strings(id),"
	" module INTEGER REFERENCES modules(id),"
	" file INTEGER REFERENCES files(id),"
	" line INTEGER NOT NULL,"
	/* for sqlite3 users (store_summary.c), never read by plumb */
	" self TEXT, calls TEXT, points TEXT);\n"
	"CREATE TABLE parts (id INTEGER PRIMARY KEY,"
	" kind INTEGER NOT NULL,"
	" name INTEGER REFERENCES strings(id),"
	" pid INTEGER NOT NULL,"
	" tid INTEGER NOT NULL,"
	" start_function INTEGER REFERENCES functions(id),"
	" root INTEGER NOT NULL,"
	" arc_costs INTEGER NOT NULL);\n"
	"CREATE TABLE meta (id INTEGER PRIMARY KEY,"
	" name INTEGER NOT NULL REFERENCES strings(id),"
	" value INTEGER NOT NULL REFERENCES strings(id));\n"
	/* What performance points were measured with (version 4); the points
	 * are in the bulk table (version 6; version 5 had a points table). */
	"CREATE TABLE points_info (id INTEGER PRIMARY KEY CHECK (id = 0),"
	" input_metric INTEGER REFERENCES strings(id),"
	" memres INTEGER NOT NULL, total_cost INTEGER NOT NULL,"
	" exe_mtime INTEGER, version INTEGER);\n"
	/* What the tables for sqlite3 users (lines, stacks) hold and leave out. */
	"CREATE TABLE sql_info (name TEXT PRIMARY KEY, value INTEGER NOT NULL);\n"
	/* Views with the strings resolved, for people querying with sqlite3. */
	"CREATE VIEW v_events AS SELECT e.id AS id, n.text AS name, l.text AS long_name,"
	" u.text AS unit, f.text AS formula FROM events e JOIN strings n ON n.id = e.name"
	" LEFT JOIN strings l ON l.id = e.long_name LEFT JOIN strings u ON u.id = e.unit"
	" LEFT JOIN strings f ON f.id = e.formula;\n"
	"CREATE VIEW v_functions AS SELECT f.id AS id, n.text AS name, g.text AS mangled,"
	" mp.text AS module, fp.text AS file, f.line AS line FROM functions f"
	" JOIN strings n ON n.id = f.name LEFT JOIN strings g ON g.id = f.mangled"
	" LEFT JOIN modules m ON m.id = f.module LEFT JOIN strings mp ON mp.id = m.path"
	" LEFT JOIN files fl ON fl.id = f.file LEFT JOIN strings fp ON fp.id = fl.path;\n"
	"CREATE VIEW v_parts AS SELECT p.id AS id, p.kind AS kind, n.text AS name,"
	" p.pid AS pid, p.tid AS tid, p.root AS root FROM parts p"
	" LEFT JOIN strings n ON n.id = p.name;\n"
	"CREATE VIEW v_meta AS SELECT m.id AS id, k.text AS name, v.text AS value"
	" FROM meta m JOIN strings k ON k.id = m.name JOIN strings v ON v.id = m.value;\n"
	"CREATE VIEW v_function_costs AS SELECT f.id AS function, n.text AS name,"
	" e.name AS event, j.value AS self FROM functions f JOIN strings n ON n.id = f.name,"
	" json_each(f.self) j JOIN v_events e ON e.id = j.key WHERE f.self IS NOT NULL;\n"
	"CREATE VIEW v_calls AS SELECT f.id AS caller, a.text AS caller_name,"
	" j.value ->> 0 AS callee, b.text AS callee_name, j.value ->> 1 AS calls"
	" FROM functions f JOIN strings a ON a.id = f.name, json_each(f.calls) j"
	" JOIN functions g ON g.id = j.value ->> 0 JOIN strings b ON b.id = g.name"
	" WHERE f.calls IS NOT NULL;\n"
	"CREATE VIEW v_function_points AS SELECT f.id AS function, n.text AS name,"
	" f.points ->> 0 AS points, f.points ->> 1 AS calls, f.points ->> 2 AS sum,"
	" f.points ->> 3 AS min_input, f.points ->> 4 AS max_input"
	" FROM functions f JOIN strings n ON n.id = f.name WHERE f.points IS NOT NULL;\n"
	/* lines and stacks (version 7): store_lines.c, store_stacks.c */
	"CREATE VIEW v_line_costs AS SELECT l.function AS function, n.text AS name,"
	" fp.text AS file, j.value ->> 0 AS line, e.name AS event, c.value AS self"
	" FROM lines l JOIN functions f ON f.id = l.function JOIN strings n ON n.id = f.name"
	" LEFT JOIN files fl ON fl.id = l.file LEFT JOIN strings fp ON fp.id = fl.path,"
	" json_each(l.costs) j, json_each(j.value) c JOIN v_events e ON e.id = c.key - 1"
	" WHERE c.key > 0;\n"
	"CREATE VIEW v_stack_weights AS SELECT s.id AS stack, s.part AS part, e.name AS event,"
	" j.value AS weight FROM stacks s, json_each(s.weights) j JOIN v_events e ON e.id = j.key;\n"
	"CREATE VIEW v_stack_functions AS SELECT s.id AS stack, j.key AS depth,"
	" j.value AS function, n.text AS name FROM stacks s, json_each(s.functions) j"
	" JOIN functions f ON f.id = j.value JOIN strings n ON n.id = f.name;\n"
	"CREATE VIEW v_stacks AS SELECT s.id AS stack, s.part AS part, s.weights ->> 0 AS weight,"
	" (SELECT group_concat(name, ';') FROM (SELECT n.text AS name FROM json_each(s.functions) j"
	" JOIN functions f ON f.id = j.value JOIN strings n ON n.id = f.name ORDER BY j.key))"
	" AS folded FROM stacks s;\n";

/* ---- checking the profile before writing --------------------------------
 * The reader rejects a file whose ids do not hold together, so the writer
 * refuses to produce one: an inconsistent profile is a caller's bug. */

static int inconsistent(plumb_error *err, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int inconsistent(plumb_error *err, const char *path, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return plumb_fail(err, PLUMB_ERR_USAGE, "%s: cannot write an inconsistent profile: %s",
			  path, what);
}

/* id must be below n, or PLUMB_NONE when optional. */
static bool ref_ok(plumb_id id, size_t n, bool optional)
{
	return id == PLUMB_NONE ? optional : id < n;
}

#define CHECK_REF(table, i, field, id, n, optional)                                          \
	do {                                                                                  \
		if (!ref_ok((id), (n), (optional)))                                           \
			return inconsistent(err, path, "%s %zu: %s %u out of range (%zu)",   \
					    (table), (size_t)(i), (field), (unsigned)(id),    \
					    (size_t)(n));                                     \
	} while (0)

static int check_entities(const plumb_profile *p, const char *path, plumb_error *err)
{
	size_t ns = p->strings.off.n;
	if (p->strings.lens.n != ns)
		return inconsistent(err, path, "string table lengths out of step");
	for (size_t i = 0; i < p->events.n; i++) {
		const plumb_event *e = &p->events.v[i];
		CHECK_REF("event", i, "name", e->name, ns, false);
		CHECK_REF("event", i, "long_name", e->long_name, ns, true);
		CHECK_REF("event", i, "unit", e->unit, ns, true);
		CHECK_REF("event", i, "formula", e->formula, ns, true);
	}
	for (size_t i = 0; i < p->modules.n; i++) {
		CHECK_REF("module", i, "path", p->modules.v[i].path, ns, false);
		CHECK_REF("module", i, "build_id", p->modules.v[i].build_id, ns, true);
	}
	for (size_t i = 0; i < p->files.n; i++)
		CHECK_REF("file", i, "path", p->files.v[i].path, ns, false);
	for (size_t i = 0; i < p->functions.n; i++) {
		const plumb_function *f = &p->functions.v[i];
		CHECK_REF("function", i, "name", f->name, ns, false);
		CHECK_REF("function", i, "mangled", f->mangled, ns, true);
		CHECK_REF("function", i, "module", f->module, p->modules.n, true);
		CHECK_REF("function", i, "file", f->file, p->files.n, true);
	}
	for (size_t i = 0; i < p->frames.n; i++) {
		CHECK_REF("frame", i, "function", p->frames.v[i].function, p->functions.n, false);
		CHECK_REF("frame", i, "file", p->frames.v[i].file, p->files.n, true);
	}
	for (size_t i = 0; i < p->meta.n; i++) {
		CHECK_REF("meta", i, "key", p->meta.v[i].key, ns, false);
		CHECK_REF("meta", i, "value", p->meta.v[i].value, ns, false);
	}
	return 0;
}

/* Parts and the CCT: each part's root is a frameless root node of that part,
 * roots come in part order, and a parent precedes its children. The reader
 * relies on all three to replay the tree with the same ids. */
static int check_tree(const plumb_profile *p, const char *path, plumb_error *err)
{
	size_t nn = p->cct.n;
	for (size_t i = 0; i < p->parts.n; i++) {
		const plumb_part *pt = &p->parts.v[i];
		if (pt->kind > PLUMB_PART_DUMP)
			return inconsistent(err, path, "part %zu: unknown kind %d", i, (int)pt->kind);
		CHECK_REF("part", i, "name", pt->name, p->strings.off.n, true);
		CHECK_REF("part", i, "start_function", pt->start_function, p->functions.n, true);
		CHECK_REF("part", i, "root", pt->root, nn, false);
		const plumb_cct_node *r = &p->cct.v[pt->root];
		if (r->parent != PLUMB_NONE || r->part != i || r->frame != PLUMB_NONE ||
		    (i > 0 && pt->root <= p->parts.v[i - 1].root))
			return inconsistent(err, path, "part %zu: node %u is not its root", i,
					    (unsigned)pt->root);
	}
	for (size_t i = 0; i < nn; i++) {
		const plumb_cct_node *n = &p->cct.v[i];
		CHECK_REF("cct node", i, "part", n->part, p->parts.n, false);
		if (n->parent == PLUMB_NONE) {
			if (p->parts.v[n->part].root != i)
				return inconsistent(err, path, "cct node %zu: a root, but not its part's",
						    i);
			continue;
		}
		CHECK_REF("cct node", i, "parent", n->parent, i, false);
		CHECK_REF("cct node", i, "frame", n->frame, p->frames.n, false);
		if (p->cct.v[n->parent].part != n->part)
			return inconsistent(err, path, "cct node %zu: in another part than its parent",
					    i);
	}
	return 0;
}

static int check_costs(const plumb_profile *p, const char *path, plumb_error *err)
{
	size_t nev = p->events.n;
	for (size_t i = 0; i < p->cg_self.n; i++) {
		CHECK_REF("cg_self", i, "part", p->cg_self.v[i].part, p->parts.n, false);
		CHECK_REF("cg_self", i, "frame", p->cg_self.v[i].frame, p->frames.n, false);
	}
	for (size_t i = 0; i < p->arcs.n; i++) {
		const plumb_arc *a = &p->arcs.v[i];
		CHECK_REF("arc", i, "part", a->part, p->parts.n, false);
		CHECK_REF("arc", i, "caller", a->caller, p->frames.n, false);
		CHECK_REF("arc", i, "callee", a->callee, p->functions.n, false);
	}
	for (size_t i = 0; i < p->samples.n; i++) {
		CHECK_REF("sample", i, "part", p->samples.v[i].part, p->parts.n, false);
		CHECK_REF("sample", i, "node", p->samples.v[i].node, p->cct.n, false);
	}
	CHECK_REF("points_info", 0, "input_metric", p->points_info.input_metric, p->strings.off.n,
		  true);
	for (size_t i = 0; i < p->points.n; i++) {
		const plumb_point *t = &p->points.v[i];
		CHECK_REF("point", i, "part", t->part, p->parts.n, false);
		CHECK_REF("point", i, "function", t->function, p->functions.n, false);
		CHECK_REF("point", i, "context", t->context, p->cct.n, true);
		if (t->has & ~(uint32_t)PLUMB_PT_ALL)
			return inconsistent(err, path, "point %zu: unknown fields %#x", i, t->has);
	} /* sums of squares are checked as they are encoded (store_points.c) */
	if (p->cct_self.n != p->cct.n * nev || p->cg_self_cost.n != p->cg_self.n * nev ||
	    p->arc_incl.n != p->arcs.n * nev || p->sample_weights.n != p->samples.n * nev)
		return inconsistent(err, path, "a cost array does not match its rows");
	return 0;
}

/* ---- writing -------------------------------------------------------------- */

typedef struct wr {
	const plumb_profile *p;
	const char *path;     /* the final path, for messages */
	sqlite3 *db;
	plumb_error *err;
	const plumb_write_progress *progress; /* may be NULL */
	store_lines lines;    /* the lines table, and the functions' self costs */
} wr;

static int wr_fail(wr *w, int rc)
{
	if (rc == SQLITE_NOMEM)
		return plumb_fail_nomem(w->err);
	return plumb_fail(w->err, PLUMB_ERR_IO, "%s: cannot write .plumb file (SQLite: %s)",
			  w->path, w->db ? sqlite3_errmsg(w->db) : sqlite3_errstr(rc));
}

/* A column value: an integer, NULL, or text (owned by the caller). */
typedef struct val {
	int64_t i;
	bool null;
	const char *text;
} val;

static val v_int(int64_t i) { return (val){ i, false, NULL }; }
static val v_u64(uint64_t u) { return (val){ store_u2i(u), false, NULL }; }
static val v_id(plumb_id id) { return (val){ id, id == PLUMB_NONE, NULL }; }
static val v_text(const char *t) { return (val){ 0, t == NULL, t }; }
/* Bind vals to st's parameters 1..n, insert the row, reset st. */
static int wr_row(wr *w, sqlite3_stmt *st, const val *vals, int n)
{
	for (int k = 0; k < n; k++) {
		int rc = vals[k].null ? sqlite3_bind_null(st, k + 1)
			 : vals[k].text ? sqlite3_bind_text(st, k + 1, vals[k].text, -1, SQLITE_STATIC)
					: sqlite3_bind_int64(st, k + 1, vals[k].i);
		if (rc != SQLITE_OK)
			return wr_fail(w, rc);
	}
	int rc = sqlite3_step(st);
	sqlite3_reset(st); /* repeats a step error, which rc already holds */
	return rc == SQLITE_DONE ? 0 : wr_fail(w, rc);
}

#define WR_ROW(w, st, ...) \
	wr_row((w), (st), (const val[]){ __VA_ARGS__ }, \
	       (int)(sizeof((const val[]){ __VA_ARGS__ }) / sizeof(val)))

enum { S_STRING, S_EVENT, S_MODULE, S_FILE, S_FUNCTION, S_PART, S_META, S_POINTS_INFO, S_COUNT };

static const char *const insert_sql[S_COUNT] = {
	[S_STRING] = "INSERT INTO strings VALUES (?1, ?2)",
	[S_EVENT] = "INSERT INTO events VALUES (?1, ?2, ?3, ?4, ?5)",
	[S_MODULE] = "INSERT INTO modules VALUES (?1, ?2, ?3)",
	[S_FILE] = "INSERT INTO files VALUES (?1, ?2)",
	[S_FUNCTION] = "INSERT INTO functions VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[S_PART] = "INSERT INTO parts VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[S_META] = "INSERT INTO meta VALUES (?1, ?2, ?3)",
	[S_POINTS_INFO] = "INSERT INTO points_info VALUES (0, ?1, ?2, ?3, ?4, ?5)",
};

static int wr_strings(wr *w, sqlite3_stmt *st)
{
	const plumb_strtab *t = &w->p->strings;
	for (size_t i = 0; i < t->off.n; i++) {
		int rc = sqlite3_bind_int64(st, 1, (int64_t)i);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_text64(st, 2, t->buf + t->off.v[i], t->lens.v[i],
						 SQLITE_STATIC, SQLITE_UTF8);
		if (rc != SQLITE_OK)
			return wr_fail(w, rc);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return wr_fail(w, rc);
	}
	return 0;
}

/* The lines table and the functions' summaries, built on the jobs' helper
 * thread while the caller writes the strings table and the bulk blocks
 * (the tables' rows may come in any order): both are about a tenth of
 * writing a big Callgrind profile, a third of a big pprof profile's. */
typedef struct lines_job {
	plumb_job job;
	const plumb_profile *p;
	store_lines *lines;
	store_summary sum;
	plumb_error err;
	int rc;
} lines_job;

static void lines_run(plumb_job *job, unsigned worker)
{
	(void)worker;
	lines_job *j = (lines_job *)job;
	j->rc = store_lines_build(j->p, j->lines, &j->err) ||
			store_summary_build(j->p, j->lines, &j->sum, &j->err)
		? -1 : 0;
}

static int wr_entities(wr *w, sqlite3_stmt **st, const store_summary *sum)
{
	const plumb_profile *p = w->p;
	for (size_t i = 0; i < p->events.n; i++) {
		const plumb_event *e = &p->events.v[i];
		if (WR_ROW(w, st[S_EVENT], v_int((int64_t)i), v_id(e->name), v_id(e->long_name),
			   v_id(e->unit), v_id(e->formula)))
			return -1;
	}
	for (size_t i = 0; i < p->modules.n; i++)
		if (WR_ROW(w, st[S_MODULE], v_int((int64_t)i), v_id(p->modules.v[i].path),
			   v_id(p->modules.v[i].build_id)))
			return -1;
	for (size_t i = 0; i < p->files.n; i++)
		if (WR_ROW(w, st[S_FILE], v_int((int64_t)i), v_id(p->files.v[i].path)))
			return -1;
	for (size_t i = 0; i < p->functions.n; i++) {
		const plumb_function *f = &p->functions.v[i];
		if (WR_ROW(w, st[S_FUNCTION], v_int((int64_t)i), v_id(f->name), v_id(f->mangled),
			   v_id(f->module), v_id(f->file), v_int(f->line),
			   v_text(store_summary_text(sum, sum->self, i)),
			   v_text(store_summary_text(sum, sum->calls, i)),
			   v_text(store_summary_text(sum, sum->points, i))))
			return -1;
	}
	for (size_t i = 0; i < p->parts.n; i++) {
		const plumb_part *t = &p->parts.v[i];
		if (WR_ROW(w, st[S_PART], v_int((int64_t)i), v_int(t->kind), v_id(t->name),
			   v_int(t->pid), v_int(t->tid), v_id(t->start_function), v_id(t->root),
			   v_int(t->arc_costs)))
			return -1;
	}
	for (size_t i = 0; i < p->meta.n; i++)
		if (WR_ROW(w, st[S_META], v_int((int64_t)i), v_id(p->meta.v[i].key),
			   v_id(p->meta.v[i].value)))
			return -1;
	return 0;
}

/* The one row of points_info; the points are in the bulk table. */
static int wr_points_info(wr *w, sqlite3_stmt **st)
{
	const plumb_profile *p = w->p;
	const plumb_points_info *in = &p->points_info;
	if ((in->version >= 0 || p->points.n) &&
	    WR_ROW(w, st[S_POINTS_INFO], v_id(in->input_metric), v_int(in->memres),
		   v_u64(in->total_cost), in->exe_mtime < 0 ? v_id(PLUMB_NONE) : v_int(in->exe_mtime),
		   in->version < 0 ? v_id(PLUMB_NONE) : v_int(in->version)))
		return -1;
	return 0;
}

static int wr_exec(wr *w, const char *sql)
{
	int rc = sqlite3_exec(w->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : wr_fail(w, rc);
}

/* The temporary file is private until renamed, so neither a journal nor
 * syncing inside SQLite is needed: a failure discards the whole file, and
 * plumb_atomic_commit fsyncs it before the rename. Pages of 16 KiB for a
 * big profile: its bulk blocks (up to 256 KiB) then take a quarter of the
 * overflow pages, and the 100 MB Callgrind file converts in 0.6 s less CPU
 * (of 5.0) into a store 0.4 MB larger (of 64.6). A small one keeps
 * SQLite's 4 KiB, as each table takes a page at least. */
static int wr_pragmas(wr *w)
{
	const plumb_profile *p = w->p;
	int page = p->frames.n + p->cct.n + p->samples.n + p->points.n > 65536 ? 16384 : 4096;
	char sql[288];
	snprintf(sql, sizeof sql,
		 "PRAGMA page_size=%d; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
		 " PRAGMA locking_mode=EXCLUSIVE; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-32768;"
		 " PRAGMA application_id=%d; PRAGMA user_version=%d;",
		 page, (int)PLUMB_STORE_APPLICATION_ID, (int)PLUMB_STORE_VERSION);
	return wr_exec(w, sql);
}

static int wr_all(wr *w)
{
	sqlite3_stmt *st[S_COUNT] = { 0 };
	lines_job lj = { .job.run = lines_run, .p = w->p, .lines = &w->lines };
	store_views_job vj;
	store_views_job_init(&vj, w->p);
	int ret = -1;
	if (wr_pragmas(w) || wr_exec(w, "BEGIN") || wr_exec(w, store_bulk_schema) ||
	    wr_exec(w, schema_sql))
		return -1;
	for (int k = 0; k < S_COUNT; k++) {
		int rc = sqlite3_prepare_v2(w->db, insert_sql[k], -1, &st[k], NULL);
		if (rc != SQLITE_OK) {
			wr_fail(w, rc);
			goto out;
		}
	}
	/* The kept views first: the longest job, and the helper's alone while
	 * the caller writes. Whichever is free next builds the lines. The
	 * inputs view fits its routines on two threads of its own: it runs
	 * before, not beside three others on two cores (an aprof convert took
	 * 0.37 s that way, 0.45 s beside them). */
	bool views_first = store_views_threaded(&vj);
	if (views_first)
		vj.job.run(&vj.job, 0);
	plumb_jobs q;
	plumb_jobs_start(&q);
	if (!views_first)
		plumb_jobs_add(&q, &vj.job);
	plumb_jobs_add(&q, &lj.job);
	int main_rc = wr_strings(w, st[S_STRING]) ||
		      store_write_bulk(w->db, w->p, w->path, w->progress, w->err);
	plumb_jobs_wait(&q); /* the jobs are done, or run here; store_write_bulk had
			      * a queue of its own, so three threads for a while */
	if (main_rc == 0 && lj.rc && w->err)
		*w->err = lj.err;
	if (main_rc || lj.rc || wr_entities(w, st, &lj.sum) || wr_points_info(w, st) ||
	    store_write_jumps(w->db, w->p, w->path, w->err) ||
	    store_lines_write(w->db, &w->lines, w->path, w->err) ||
	    store_write_stacks(w->db, w->p, w->path, w->err) ||
	    store_views_write(w->db, &vj, w->path, w->progress, w->err))
		goto out;
	ret = 0;
out:
	for (int k = 0; k < S_COUNT; k++)
		sqlite3_finalize(st[k]); /* harmless on NULL; errors were reported by step */
	store_summary_free(&lj.sum);
	store_views_job_free(&vj);
	store_lines_free(&w->lines);
	return ret ? ret : wr_exec(w, "COMMIT");
}

static int wr_file(wr *w, const char *tmp_path)
{
	int rc = sqlite3_open_v2(tmp_path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		wr_fail(w, rc);
		sqlite3_close(w->db);
		return -1;
	}
	int ret = wr_all(w);
	/* Every statement is finalized, so close cannot be busy; it still can
	 * fail to flush, which must not go unnoticed. */
	rc = sqlite3_close(w->db);
	if (rc != SQLITE_OK && !ret)
		ret = plumb_fail(w->err, PLUMB_ERR_IO, "%s: cannot write .plumb file (SQLite: %s)",
				 w->path, sqlite3_errstr(rc));
	w->db = NULL;
	return ret;
}

int plumb_store_write(const plumb_profile *p, const char *path, plumb_error *err)
{
	return plumb_store_write_progress(p, path, NULL, err);
}

int plumb_store_write_progress(const plumb_profile *p, const char *path,
			       const plumb_write_progress *wp, plumb_error *err)
{
	if (p->kept_totals) /* read for its flat view only */
		return plumb_fail(err, PLUMB_ERR_USAGE, "%s: cannot write a profile read without its "
				  "costs", path);
	if (check_entities(p, path, err) || check_tree(p, path, err) || check_costs(p, path, err) ||
	    store_check_jumps(p, path, err))
		return -1;
	plumb_atomic_file af;
	if (plumb_atomic_reserve(&af, path, err))
		return -1;
	wr w = { p, path, NULL, err, wp, { 0 } };
	if (wr_file(&w, af.tmp_path)) {
		plumb_atomic_abort(&af);
		return -1;
	}
	if (plumb_atomic_commit(&af, err))
		return -1;
	if (wp && wp->fn) {
		struct stat st;
		uint64_t size = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
		wp->fn(wp->ctx, path, size, size);
	}
	return 0;
}
