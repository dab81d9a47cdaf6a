/* The .plumb store: a hand-built profile with every kind of entity survives
 * a write and a read with the very same ids and values; writes replace the
 * target only on success; every damaged, foreign, truncated, newer or
 * hand-edited file gets a clear error (and never a crash); two stores read
 * into one profile add up. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "plumb/formats.h"
#include "plumb/store.h"
#include "store/store_points.h"

static char dir[] = "/tmp/plumb-store-XXXXXX";
static char path[sizeof dir + 32];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/p.plumb", dir);
}

static void teardown(void)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char f[sizeof dir + 300];
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(f, sizeof f, "%s/%s", dir, e->d_name);
			unlink(f);
		}
	closedir(d);
	rmdir(dir);
}

TestSuite(store, .init = setup, .fini = teardown);

/* ---- a profile with everything ------------------------------------------ */

static void ok(int rc, const plumb_error *err)
{
	cr_assert_eq(rc, 0, "unexpected failure: %s", err->message);
}

static plumb_id node_with(plumb_profile *p, plumb_id parent, plumb_id frame)
{
	plumb_id n = plumb_cct_child(p, parent, frame);
	cr_assert_neq(n, PLUMB_NONE);
	return n;
}

static plumb_profile *build(void)
{
	plumb_error err;
	plumb_profile *p = plumb_profile_new();
	cr_assert_not_null(p);
	/* Strings nothing refers to must survive too, NUL byte included. */
	cr_assert_neq(plumb_intern_n(p, "odd\0one", 7), PLUMB_NONE);
	cr_assert_neq(plumb_intern(p, "unreferenced"), PLUMB_NONE);

	cr_assert_eq(plumb_event_add(p, "Ir", "Instruction fetches", "instructions", &err), 0);
	cr_assert_eq(plumb_event_add(p, "Dr", NULL, NULL, &err), 1);
	cr_assert_eq(plumb_event_add_derived(p, "Sum", "Ir plus twice Dr", "Ir + 2 * Dr", &err), 2);
	p->events.v[2].unit = plumb_intern(p, "accesses");

	plumb_id app = plumb_module_intern(p, "/usr/bin/app", "0123abcd");
	plumb_id libc = plumb_module_intern(p, "/lib/libc.so.6", NULL);
	plumb_id main_c = plumb_file_intern(p, "main.c");
	plumb_id util_h = plumb_file_intern(p, "util.h");
	plumb_id f_main = plumb_function_intern(p, "main", NULL, app, main_c, 10);
	plumb_id f_help = plumb_function_intern(p, "helper()", "_Z6helperv", app, main_c, 30);
	plumb_id f_copy = plumb_function_intern(p, "memcpy", NULL, libc, PLUMB_NONE, 0);
	plumb_id f_lost = plumb_function_intern(p, "0x1234", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_id fr_main = plumb_frame_intern(p, f_main, PLUMB_NONE, 12, 0x401000);
	plumb_id fr_help = plumb_frame_intern(p, f_help, util_h, 5, 0x401020); /* inlined */
	plumb_id fr_copy = plumb_frame_intern(p, f_copy, PLUMB_NONE, 0, 0xffffffff81000000ULL);
	plumb_id fr_lost = plumb_frame_intern(p, f_lost, PLUMB_NONE, 0, UINT64_MAX);

	plumb_id a = plumb_part_add(p, PLUMB_PART_THREAD, "worker", 100, 101);
	p->parts.v[a].start_function = f_help;
	plumb_id ra = p->parts.v[a].root;
	plumb_id n_main = node_with(p, ra, fr_main);
	plumb_id n_help = node_with(p, n_main, fr_help);
	plumb_id n_copy = node_with(p, n_help, fr_copy);
	plumb_id n_copy2 = node_with(p, n_main, fr_copy);
	/* The second part comes after nodes of the first: its root id is not 1. */
	plumb_id b = plumb_part_add(p, PLUMB_PART_DUMP, NULL, -1, -1);
	p->parts.v[b].arc_costs = PLUMB_ARC_COSTS_GPROF;
	plumb_id n_lost = node_with(p, p->parts.v[b].root, fr_lost);
	plumb_id n_b = node_with(p, n_lost, fr_main);

	ok(plumb_cct_add_self(p, n_copy, (uint64_t[]){ 7, 3, 13 }, &err), &err);
	ok(plumb_cct_add_self(p, n_copy2, (uint64_t[]){ 0, 0, 0 }, &err), &err);
	ok(plumb_cct_add_self(p, n_b, (uint64_t[]){ UINT64_MAX - 1, 0, 1 }, &err), &err);
	ok(plumb_cct_add_activations(p, n_main, 1, &err), &err);
	ok(plumb_cct_add_activations(p, n_copy, 0, &err), &err);
	ok(plumb_cct_add_activations(p, n_b, UINT64_MAX - 1, &err), &err);

	ok(plumb_cg_add_self(p, a, fr_main, (uint64_t[]){ 5, 0, 5 }, &err), &err);
	ok(plumb_cg_add_self(p, b, fr_copy, (uint64_t[]){ UINT64_MAX - 1, 0, 0 }, &err), &err);
	ok(plumb_cg_add_self(p, a, fr_help, (uint64_t[]){ 0, 0, 0 }, &err), &err);

	cr_assert_eq(plumb_arc_add(p, a, fr_main, f_help, 3, (uint64_t[]){ 10, 2, 14 }, &err), 0);
	cr_assert_eq(plumb_arc_add(p, a, fr_help, f_copy, PLUMB_COUNT_UNKNOWN, NULL, &err), 1);
	cr_assert_eq(plumb_arc_add(p, b, fr_lost, f_main, 0, (uint64_t[]){ 0, 0, 0 }, &err), 2);
	cr_assert_eq(plumb_arc_add(p, b, fr_main, f_copy, UINT64_MAX - 1, NULL, &err), 3);
	/* Callgrind's "written as 0" marks (annotate shows 0, not .) */
	ok(plumb_cg_note_zeros(p, a, fr_help, 5, &err), &err);
	ok(plumb_arc_note_zeros(p, 2, 2, &err), &err);

	ok(plumb_sample_add(p, 1000, a, n_copy, (uint64_t[]){ 1, 0, 1 }, &err), &err);
	ok(plumb_sample_add(p, UINT64_MAX - 5, b, n_b, (uint64_t[]){ 0, 1, 2 }, &err), &err);
	ok(plumb_sample_add(p, 0, a, ra, (uint64_t[]){ 0, 0, 0 }, &err), &err);

	ok(plumb_meta_set(p, "command", "./app --fast", &err), &err);
	ok(plumb_meta_set(p, "creator", "plumb test", &err), &err);
	ok(plumb_meta_set(p, "empty", "", &err), &err);
	return p;
}

/* ---- comparing every field ---------------------------------------------- */

#define SAME_VEC(a, b, field)                                                              \
	do {                                                                               \
		cr_assert_eq((a)->field.n, (b)->field.n, #field ": %zu vs %zu rows",        \
			     (a)->field.n, (b)->field.n);                                  \
		if ((a)->field.n)                                                          \
			cr_assert(memcmp((a)->field.v, (b)->field.v,                       \
					 (a)->field.n * sizeof *(a)->field.v) == 0,       \
				  #field " differ");                                       \
	} while (0)

static void same_events(const plumb_profile *a, const plumb_profile *b)
{
	cr_assert_eq(a->events.n, b->events.n);
	for (size_t i = 0; i < a->events.n; i++) {
		const plumb_event *x = &a->events.v[i], *y = &b->events.v[i];
		cr_assert_eq(x->name, y->name);
		cr_assert_eq(x->long_name, y->long_name);
		cr_assert_eq(x->unit, y->unit);
		cr_assert_eq(x->formula, y->formula);
		cr_assert_eq(x->nterms, y->nterms);
		for (size_t t = 0; t < x->nterms; t++) {
			cr_assert_eq(x->terms[t].coef, y->terms[t].coef);
			cr_assert_eq(x->terms[t].event, y->terms[t].event);
		}
	}
}

/* Field by field, so that struct padding does not matter. */
static void same_parts_and_tree(const plumb_profile *a, const plumb_profile *b)
{
	cr_assert_eq(a->parts.n, b->parts.n);
	for (size_t i = 0; i < a->parts.n; i++) {
		const plumb_part *x = &a->parts.v[i], *y = &b->parts.v[i];
		cr_assert(x->kind == y->kind && x->name == y->name && x->pid == y->pid &&
			  x->tid == y->tid && x->start_function == y->start_function &&
			  x->root == y->root && x->arc_costs == y->arc_costs, "part %zu differs", i);
	}
	cr_assert_eq(a->cct.n, b->cct.n);
	for (size_t i = 0; i < a->cct.n; i++) {
		const plumb_cct_node *x = &a->cct.v[i], *y = &b->cct.v[i];
		cr_assert(x->frame == y->frame && x->parent == y->parent && x->part == y->part &&
			  x->first_child == y->first_child && x->next_sibling == y->next_sibling &&
			  plumb_cct_activations(a, (plumb_id)i) == plumb_cct_activations(b, (plumb_id)i),
			  "cct node %zu differs", i);
	}
	for (size_t i = 0; i < a->arcs.n; i++) {
		const plumb_arc *x = &a->arcs.v[i], *y = &b->arcs.v[i];
		cr_assert(x->part == y->part && x->caller == y->caller && x->callee == y->callee &&
			  x->calls == y->calls && x->has_inclusive == y->has_inclusive,
			  "arc %zu differs", i);
	}
	for (size_t i = 0; i < a->samples.n; i++) {
		const plumb_sample *x = &a->samples.v[i], *y = &b->samples.v[i];
		cr_assert(x->time_ns == y->time_ns && x->part == y->part && x->node == y->node,
			  "sample %zu differs", i);
	}
}

/* Zero marks: arrays that may be longer than needed; missing is 0. */
static void same_zeros(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny, size_t n,
		       const char *what)
{
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(i < nx ? x[i] : 0, i < ny ? y[i] : 0, "%s %zu differ", what, i);
}

static void same_profile(const plumb_profile *a, const plumb_profile *b)
{
	SAME_VEC(a, b, strings.off);
	SAME_VEC(a, b, strings.lens);
	cr_assert_eq(a->strings.len, b->strings.len);
	cr_assert(!a->strings.len || memcmp(a->strings.buf, b->strings.buf, a->strings.len) == 0);
	same_events(a, b);
	SAME_VEC(a, b, modules);
	SAME_VEC(a, b, files);
	SAME_VEC(a, b, functions);
	cr_assert_eq(a->frames.n, b->frames.n);
	for (size_t i = 0; i < a->frames.n; i++) {
		const plumb_frame *x = &a->frames.v[i], *y = &b->frames.v[i];
		cr_assert(x->function == y->function && x->file == y->file && x->line == y->line &&
			  x->address == y->address, "frame %zu differs", i);
	}
	cr_assert_eq(a->arcs.n, b->arcs.n);
	cr_assert_eq(a->samples.n, b->samples.n);
	same_parts_and_tree(a, b);
	SAME_VEC(a, b, cct_self);
	SAME_VEC(a, b, cg_self);
	SAME_VEC(a, b, cg_self_cost);
	SAME_VEC(a, b, arc_incl);
	SAME_VEC(a, b, sample_weights);
	SAME_VEC(a, b, meta);
	same_zeros(a->cg_self_zero.v, a->cg_self_zero.n, b->cg_self_zero.v, b->cg_self_zero.n,
		   a->cg_self.n, "cg_self zero marks");
	same_zeros(a->arc_zero.v, a->arc_zero.n, b->arc_zero.v, b->arc_zero.n, a->arcs.n,
		   "arc zero marks");
	cr_assert_eq(a->jumps.n, b->jumps.n);
}

/* ---- helpers for files ------------------------------------------------- */

static void write_ok(const plumb_profile *p, const char *to)
{
	plumb_error err;
	plumb_error_clear(&err);
	cr_assert_eq(plumb_store_write(p, to, &err), 0, "write failed: %s", err.message);
}

static plumb_profile *read_ok(const char *from)
{
	plumb_error err;
	plumb_error_clear(&err);
	plumb_profile *p = plumb_profile_new();
	cr_assert_not_null(p);
	cr_assert_eq(plumb_store_read(p, from, NULL, &err), 0, "read failed: %s", err.message);
	return p;
}

/* Read path, which must fail with code and a message holding want. */
static void read_fails(plumb_status code, const char *want)
{
	plumb_error err;
	plumb_error_clear(&err);
	plumb_profile *p = plumb_profile_new();
	cr_assert_not_null(p);
	cr_assert_eq(plumb_store_read(p, path, NULL, &err), -1, "read of a bad file succeeded");
	cr_assert_eq(err.code, code, "code %d, message: %s", (int)err.code, err.message);
	cr_assert_not_null(strstr(err.message, want), "message '%s' lacks '%s'", err.message, want);
	cr_assert_not_null(strstr(err.message, path), "message '%s' lacks the path", err.message);
	plumb_profile_free(p);
}

static void put_bytes(const char *to, const void *data, size_t n)
{
	FILE *fp = fopen(to, "wb");
	cr_assert_not_null(fp);
	cr_assert_eq(fwrite(data, 1, n, fp), n);
	cr_assert_eq(fclose(fp), 0);
}

/* The whole file, its size in *n. */
static unsigned char *slurp(const char *from, size_t *n)
{
	FILE *fp = fopen(from, "rb");
	cr_assert_not_null(fp);
	cr_assert_eq(fseek(fp, 0, SEEK_END), 0);
	long size = ftell(fp);
	cr_assert_gt(size, 0);
	rewind(fp);
	unsigned char *buf = malloc((size_t)size);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)size, fp), (size_t)size);
	fclose(fp);
	*n = (size_t)size;
	return buf;
}

static size_t dir_entries(void)
{
	DIR *d = opendir(dir);
	cr_assert_not_null(d);
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* Run SQL on the file at path, as someone editing it by hand would. */
static void edit(const char *sql)
{
	sqlite3 *db;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	cr_assert_eq(rc, SQLITE_OK, "%s: %s", sql, msg ? msg : "?");
	cr_assert_eq(sqlite3_close(db), SQLITE_OK);
}

static void write_built(void)
{
	plumb_profile *p = build();
	write_ok(p, path);
	plumb_profile_free(p);
}

/* ---- round trips -------------------------------------------------------- */

Test(store, round_trip_keeps_every_id_and_value)
{
	plumb_profile *p = build();
	write_ok(p, path);
	plumb_profile *q = read_ok(path);
	same_profile(p, q);
	cr_assert_eq(q->cct_self.v[q->cct.n * 3 - 3], UINT64_MAX - 1);
	cr_assert_eq(plumb_cct_activations(q, 1), 1);
	cr_assert_eq(plumb_cct_activations(q, 2), PLUMB_COUNT_UNKNOWN);
	cr_assert_eq(q->arcs.v[1].calls, PLUMB_COUNT_UNKNOWN);
	cr_assert_eq(q->cg_self_zero.v[2], 5);
	cr_assert_eq(q->arc_zero.v[2], 2);
	cr_assert_str_eq(plumb_meta_get(q, "command"), "./app --fast");
	cr_assert_str_eq(plumb_str(q, q->events.v[2].unit), "accesses");
	/* Written again, the copy still matches: nothing drifts per generation. */
	write_ok(q, path);
	plumb_profile *r = read_ok(path);
	same_profile(p, r);
	plumb_profile_free(p);
	plumb_profile_free(q);
	plumb_profile_free(r);
}

/* The model API takes C strings: a name with a NUL byte inside reads back
 * as its prefix, and nothing else moves. */
Test(store, name_with_a_nul_byte_reads_as_its_prefix)
{
	plumb_profile *p = build();
	plumb_id odd = plumb_intern_n(p, "odd\0one", 7);
	p->functions.v[3].name = odd;
	p->meta.v[0].value = odd;
	write_ok(p, path);
	plumb_profile *q = read_ok(path);
	cr_assert_eq(q->strings.off.n, p->strings.off.n + 1);
	cr_assert_str_eq(plumb_function_name(q, 3), "odd");
	cr_assert_str_eq(plumb_meta_get(q, "command"), "odd");
	cr_assert_eq(q->frames.n, p->frames.n);
	cr_assert_eq(q->cct.n, p->cct.n);
	plumb_profile_free(p);
	plumb_profile_free(q);
}

Test(store, empty_profile_round_trips)
{
	plumb_profile *p = plumb_profile_new();
	write_ok(p, path);
	plumb_profile *q = read_ok(path);
	same_profile(p, q);
	cr_assert_eq(q->events.n, 0);
	plumb_profile_free(p);
	plumb_profile_free(q);
}

Test(store, values_are_queryable_with_sql)
{
	write_built();
	sqlite3 *db;
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	/* The summary columns: self cost per function (null past 2^64 - 1),
	 * calls between functions from the arcs and the CCT (huge values are
	 * their int64 bit pattern, unknown counts add nothing), as JSON that
	 * the v_ views unnest; the v_ views resolve names. */
	cr_assert_eq(sqlite3_prepare_v2(db,
		"SELECT (SELECT self IS NULL FROM v_function_costs WHERE function = 0 AND event = 'Ir'),"
		" (SELECT self FROM v_function_costs WHERE name = 'memcpy' AND event = 'Dr'),"
		" (SELECT count(*) FROM v_function_costs WHERE function = 1),"
		" (SELECT calls FROM v_calls WHERE caller = 0 AND callee = 1),"
		" (SELECT calls FROM v_calls WHERE caller_name = 'helper()' AND callee_name = 'memcpy'),"
		" (SELECT calls FROM v_calls WHERE caller = 3 AND callee = 0),"
		" (SELECT name FROM v_functions WHERE id = 1),"
		" (SELECT value FROM v_meta WHERE name = 'creator'),"
		" (SELECT formula FROM v_events WHERE id = 2),"
		" (SELECT group_concat(kind) FROM (SELECT DISTINCT kind FROM bulk ORDER BY kind)),"
		" (SELECT self || ' ' || calls FROM functions WHERE id = 0)",
		-1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_assert_eq(sqlite3_column_int(st, 0), 1);
	cr_assert_eq(sqlite3_column_int64(st, 1), 3);
	cr_assert_eq(sqlite3_column_int(st, 2), 0);
	cr_assert_eq(sqlite3_column_int64(st, 3), 3);
	cr_assert_eq(sqlite3_column_int64(st, 4), 0);
	cr_assert_eq(sqlite3_column_int64(st, 5), -2);
	cr_assert_str_eq((const char *)sqlite3_column_text(st, 6), "helper()");
	cr_assert_str_eq((const char *)sqlite3_column_text(st, 7), "plumb test");
	cr_assert_str_eq((const char *)sqlite3_column_text(st, 8), "Ir + 2 * Dr");
	cr_assert_str_eq((const char *)sqlite3_column_text(st, 9), "arcs,cct,cg_self,frames,samples");
	cr_assert_str_eq((const char *)sqlite3_column_text(st, 10), "[null,0,6] [[1,3],[2,-2]]");
	sqlite3_finalize(st);
	cr_assert_eq(sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_assert_eq(sqlite3_column_int(st, 0), PLUMB_STORE_APPLICATION_ID);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* One text from SQL on the file at path. */
static char *sql_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s: no row", sql);
	const unsigned char *t = sqlite3_column_text(st, 0);
	char *copy = strdup(t ? (const char *)t : "NULL");
	sqlite3_finalize(st);
	return copy;
}

static void sql_is(sqlite3 *db, const char *sql, const char *want)
{
	char *got = sql_text(db, sql);
	cr_expect_str_eq(got, want, "%s: got '%s', expected '%s'", sql, got, want);
	free(got);
}

Test(store, lines_and_stacks_are_queryable_with_sql)
{
	write_built();
	sqlite3 *db;
	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	/* main:12 has 5 (call graph) + 2^64 - 2 (CCT) of Ir: held, null; 6 of
	 * Sum. memcpy:0 the CCT's 7, 3, 13 and the call graph's 2^64 - 2. The
	 * inlined helper's line in util.h has no cost: no row. */
	sql_is(db, "SELECT count(*) FROM lines", "2");
	sql_is(db, "SELECT costs FROM lines WHERE function = 0", "[[12,null,0,6]]");
	sql_is(db, "SELECT costs FROM lines WHERE function = 2", "[[0,null,3,13]]");
	sql_is(db, "SELECT self FROM v_line_costs WHERE name = 'memcpy' AND event = 'Dr'", "3");
	sql_is(db, "SELECT line || ' ' || event || ' ' || self FROM v_line_costs"
		   " WHERE function = 0 AND event = 'Sum'", "12 Sum 6");
	/* two stacks with a self cost, the heavier first in no order: by node */
	sql_is(db, "SELECT group_concat(part || ':' || weights || ':' || functions, ' ') FROM stacks",
	       "0:[7,3,13]:[0,1,2] 1:[-2,0,1]:[3,0]");
	sql_is(db, "SELECT folded FROM v_stacks WHERE part = 1", "0x1234;main");
	sql_is(db, "SELECT folded || ' ' || weight FROM v_stacks WHERE part = 0", "main;helper();memcpy 7");
	sql_is(db, "SELECT weight FROM v_stack_weights WHERE part = 0 AND event = 'Sum'", "13");
	sql_is(db, "SELECT group_concat(depth || name, ',') FROM v_stack_functions WHERE stack ="
		   " (SELECT id FROM stacks WHERE part = 0)", "0main,1helper(),2memcpy");
	sql_is(db, "SELECT group_concat(name || '=' || value, ' ') FROM (SELECT * FROM sql_info ORDER BY name)",
	       "lines=2 lines_kept=2 lines_max=32768 stacks=2 stacks_kept=2 stacks_max=1024");
	/* the arc's unknown count adds nothing to the CCT's known 0 */
	sql_is(db, "SELECT calls FROM functions WHERE id = 1", "[[2,0]]");
	sqlite3_close(db);
}

Test(store, detects_sqlite_header_and_reads_through_the_registry)
{
	cr_assert(plumb_store_detect((const unsigned char *)"SQLite format 3\0xyz", 19));
	cr_assert_not(plumb_store_detect((const unsigned char *)"SQLite format 3", 15));
	cr_assert_not(plumb_store_detect((const unsigned char *)"SQLite format 2\0", 16));
	write_built();
	plumb_format fmt = PLUMB_FMT_UNKNOWN;
	plumb_error err;
	plumb_error_clear(&err);
	ok(plumb_detect_file(path, &fmt, &err), &err);
	cr_assert_eq(fmt, PLUMB_FMT_PLUMB);
}

/* ---- atomic writes ------------------------------------------------------ */

Test(store, failed_write_leaves_existing_file_intact)
{
	plumb_profile *p = build();
	write_ok(p, path);
	size_t n0, n1;
	unsigned char *before = slurp(path, &n0);
	p->functions.v[0].module = 99; /* an id out of range: a caller's bug */
	plumb_error err;
	plumb_error_clear(&err);
	cr_assert_eq(plumb_store_write(p, path, &err), -1);
	cr_assert_eq(err.code, PLUMB_ERR_USAGE);
	cr_assert_not_null(strstr(err.message, "function 0: module 99"), "%s", err.message);
	unsigned char *after = slurp(path, &n1);
	cr_assert(n0 == n1 && memcmp(before, after, n0) == 0, "the old file was touched");
	cr_assert_eq(dir_entries(), 1, "a temporary file was left behind");
	p->functions.v[0].module = 0;
	plumb_profile *q = read_ok(path);
	same_profile(p, q);
	free(before);
	free(after);
	plumb_profile_free(p);
	plumb_profile_free(q);
}

Test(store, write_replaces_an_existing_file)
{
	put_bytes(path, "old contents", 12);
	write_built();
	plumb_profile *q = read_ok(path);
	cr_assert_eq(q->events.n, 3);
	cr_assert_eq(dir_entries(), 1);
	plumb_profile_free(q);
}

Test(store, write_into_missing_directory_fails_and_creates_nothing)
{
	char bad[sizeof dir + 40];
	snprintf(bad, sizeof bad, "%s/no/such/dir.plumb", dir);
	plumb_profile *p = build();
	plumb_error err;
	plumb_error_clear(&err);
	cr_assert_eq(plumb_store_write(p, bad, &err), -1);
	cr_assert_eq(err.code, PLUMB_ERR_IO);
	cr_assert_not_null(strstr(err.message, bad), "%s", err.message);
	cr_assert_eq(dir_entries(), 0);
	plumb_profile_free(p);
}

Test(store, inconsistent_tree_is_refused)
{
	plumb_profile *p = build();
	plumb_error err;
	p->cct.v[3].parent = 5; /* a parent after its child */
	cr_assert_eq(plumb_store_write(p, path, &err), -1);
	cr_assert_eq(err.code, PLUMB_ERR_USAGE);
	cr_assert_eq(dir_entries(), 0);
	plumb_profile_free(p);
}

/* ---- files that are not (good) .plumb files ------------------------------ */

Test(store, missing_file)
{
	read_fails(PLUMB_ERR_IO, "cannot open");
}

Test(store, garbage_file)
{
	put_bytes(path, "this is not a database, just text\n", 34);
	read_fails(PLUMB_ERR_FORMAT, "not a plumb profile");
}

Test(store, empty_file)
{
	put_bytes(path, "", 0);
	read_fails(PLUMB_ERR_FORMAT, "not a plumb profile");
}

Test(store, foreign_sqlite_database)
{
	edit("CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES ('x');");
	read_fails(PLUMB_ERR_FORMAT,
		   "not a plumb profile (SQLite application_id 0x00000000, expected 0x504c4d42)");
}

Test(store, newer_schema_version)
{
	char sql[64], want[64];
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", PLUMB_STORE_VERSION + 1);
	snprintf(want, sizeof want, "schema version %d is newer", PLUMB_STORE_VERSION + 1);
	write_built();
	edit(sql);
	read_fails(PLUMB_ERR_UNSUPPORTED, want);
}

/* Versions 1 to 4 kept a row per frame and cost: refused, saying what to do. */
Test(store, older_version_is_refused_with_a_way_out)
{
	write_built();
	edit("PRAGMA user_version = 4");
	read_fails(PLUMB_ERR_UNSUPPORTED, "schema version 4 was written by an older plumb; this "
		   "plumb reads versions 5 to 8: convert the original profile again");
}

Test(store, merge_keeps_the_parts_arc_costs)
{
	plumb_profile *p = build(), *q = plumb_profile_new();
	plumb_error err;
	plumb_error_clear(&err);
	ok(plumb_profile_merge(q, p, &err), &err);
	cr_assert_eq(q->parts.n, p->parts.n);
	for (size_t i = 0; i < p->parts.n; i++)
		cr_expect_eq(q->parts.v[i].arc_costs, p->parts.v[i].arc_costs, "part %zu", i);
	plumb_profile_free(p);
	plumb_profile_free(q);
}

Test(store, truncated_file)
{
	write_built();
	size_t n;
	unsigned char *full = slurp(path, &n);
	cr_assert_gt(n, 3000);
	put_bytes(path, full, 3000);
	read_fails(PLUMB_ERR_FORMAT, "damaged or truncated .plumb file");
	/* Cut anywhere: an error every time, never a crash or a success. */
	for (size_t len = 16; len < n; len += len < 200 ? 7 : 509) {
		put_bytes(path, full, len);
		read_fails(PLUMB_ERR_FORMAT, "");
	}
	free(full);
}

/* Damage inside the pages (the header intact): an error or, where the damage
 * happens to leave valid data, a success; never a crash. */
Test(store, damaged_pages_never_crash)
{
	write_built();
	size_t n;
	unsigned char *full = slurp(path, &n);
	unsigned char *copy = malloc(n);
	cr_assert_not_null(copy);
	for (size_t at = 100; at + 24 < n; at += 397) {
		memcpy(copy, full, n);
		memset(copy + at, at & 1 ? 0xff : 0x41, 24);
		put_bytes(path, copy, n);
		plumb_error err;
		plumb_error_clear(&err);
		plumb_profile *p = plumb_profile_new();
		if (plumb_store_read(p, path, NULL, &err) != 0)
			cr_assert(err.message[0] && err.code != PLUMB_OK, "failure without a message");
		plumb_profile_free(p);
	}
	free(copy);
	free(full);
}

/* ---- hand-edited files: ids out of range and the like -------------------- */

static void edited_fails(const char *sql, const char *want)
{
	write_built();
	edit(sql);
	read_fails(PLUMB_ERR_FORMAT, want);
}

Test(store, bad_function_module)
{
	edited_fails("UPDATE functions SET module = 99 WHERE id = 1",
		     "table functions, row 1: module 99 out of range");
}

Test(store, bad_string_reference)
{
	edited_fails("UPDATE modules SET path = -1 WHERE id = 0",
		     "table modules, row 0: path -1 out of range");
}

Test(store, text_where_an_integer_belongs)
{
	edited_fails("UPDATE functions SET line = 'twelve' WHERE id = 0",
		     "table functions, row 0: line: expected an integer, found text");
}

Test(store, ids_with_a_gap)
{
	edited_fails("UPDATE files SET id = 7 WHERE id = 1", "table files, row 7: ids must run");
}

Test(store, unknown_part_kind)
{
	edited_fails("UPDATE parts SET kind = 9 WHERE id = 0", "table parts, row 0: kind: 9");
}

Test(store, bad_arc_costs)
{
	edited_fails("UPDATE parts SET arc_costs = 2 WHERE id = 0",
		     "table parts, row 0: arc_costs: expected 0 (given) or 1 (gprof's estimate), found 2");
}

Test(store, missing_table)
{
	edited_fails("DROP TABLE bulk",
		     "damaged or truncated .plumb file (SQLite: no such table: bulk)");
}

/* ---- hand-edited blocks ----------------------------------------------------
 * A block's varints, decoded and encoded again the documented way
 * (docs/plumb-format.md), so that one field can be changed. */

static uint64_t zz(uint64_t cur, uint64_t prev)
{
	uint64_t d = cur - prev;
	return (d << 1) ^ (uint64_t)-(int64_t)(d >> 63);
}

/* The varints of the first block of kind; *count its entities. */
static uint64_t *block_get(const char *kind, size_t *n, int64_t *count)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT count, size, data FROM bulk WHERE kind = ?1 AND"
					" first = 0", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "no %s block", kind);
	*count = sqlite3_column_int64(st, 0);
	size_t size = (size_t)sqlite3_column_int64(st, 1);
	unsigned char *raw = malloc(size);
	cr_assert_eq(ZSTD_decompress(raw, size, sqlite3_column_blob(st, 2),
				     (size_t)sqlite3_column_bytes(st, 2)), size);
	sqlite3_finalize(st);
	sqlite3_close(db);
	uint64_t *v = calloc(size, sizeof *v);
	*n = 0;
	for (size_t i = 0; i < size;) {
		uint64_t x = 0;
		for (unsigned shift = 0;; shift += 7) {
			x |= (uint64_t)(raw[i] & 0x7f) << shift;
			if (!(raw[i++] & 0x80))
				break;
		}
		v[(*n)++] = x;
	}
	free(raw);
	return v;
}

static void block_put(const char *kind, const uint64_t *v, size_t n, int64_t count)
{
	unsigned char *raw = malloc(n * 10 + 1), *w = raw;
	for (size_t i = 0; i < n; i++) {
		uint64_t x = v[i];
		for (; x >= 0x80; x >>= 7)
			*w++ = (unsigned char)(x | 0x80);
		*w++ = (unsigned char)x;
	}
	size_t size = (size_t)(w - raw), bound = ZSTD_compressBound(size);
	void *z = malloc(bound);
	size_t zn = ZSTD_compress(z, bound, raw, size, 1);
	cr_assert(!ZSTD_isError(zn));
	sqlite3 *db;
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, "UPDATE bulk SET count = ?2, size = ?3, data = ?4 WHERE"
					" kind = ?1 AND first = 0", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, count);
	sqlite3_bind_int64(st, 3, (int64_t)size);
	sqlite3_bind_blob(st, 4, z, (int)zn, SQLITE_STATIC);
	cr_assert_eq(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	cr_assert_eq(sqlite3_close(db), SQLITE_OK);
	free(raw);
	free(z);
}

/* Set varint at of the first block of kind to value (count: +dcount), or
 * keep the first keep varints when keep is non-zero; the read must fail. */
static plumb_profile *with_points(void);

static void block_fails_of(plumb_profile *(*make)(void), const char *kind, size_t at,
			   uint64_t value, size_t keep, int64_t dcount, const char *want)
{
	plumb_profile *p = make();
	write_ok(p, path);
	plumb_profile_free(p);
	size_t n;
	int64_t count;
	uint64_t *v = block_get(kind, &n, &count);
	cr_assert_lt(at, n);
	v[at] = value;
	block_put(kind, v, keep ? keep : n, count + dcount);
	free(v);
	read_fails(PLUMB_ERR_FORMAT, want);
}

static void block_fails(const char *kind, size_t at, uint64_t value, size_t keep, int64_t dcount,
			const char *want)
{
	block_fails_of(build, kind, at, value, keep, dcount, want);
}

/* Frames: function, file, line, address; 4 varints each. */
Test(store, bad_frame_function)
{
	block_fails("frames", 8, zz(9, 1), 0, 0,
		    "table bulk, frames block at id 0: entity 2: function 9 out of range "
		    "(table functions has 4 rows)");
	block_fails("frames", 1, 7, 0, 0, "entity 0: file 6 out of range (table files has 2 rows)");
	block_fails("frames", 2, zz(1ull << 32, 0), 0, 0, "entity 0: line 4294967296 out of range");
}

/* CCT nodes of build(): a tag (distance to the parent x 4, + 2 with
 * activations, + 1 with costs), then for a child its frame, then the
 * activations and the 3 costs as the tag says: node 0 (a root, nothing
 * known) is varint 0, node 1 1-3, node 2 4-5, node 3 6-11, node 4 12-13,
 * node 5 (the second part's root) 14, node 6 15-16, node 7 17-22. */
Test(store, parent_before_the_first_node)
{
	block_fails("cct", 4, 3 << 2, 0, 0, "cct block at id 0: entity 2: parent 3 nodes back");
}

Test(store, part_root_mismatch)
{
	edited_fails("UPDATE parts SET root = 4 WHERE id = 1",
		     "table bulk, cct block at id 0: entity 5: a root node, but part 1's root is node 4");
}

Test(store, extra_root)
{
	block_fails("cct", 15, 0, 0, 0, "entity 6: a root node, but every part has its root");
}

Test(store, part_without_root)
{
	block_fails("cct", 0, 0, 14, -3, "table parts, row 1: root 5 is not a root node");
}

Test(store, block_cut_short_or_too_long)
{
	block_fails("frames", 0, 0, 0, 10, "frames block at id 0: entity 0: 14 entities in 27 bytes: "
		    "too many (each takes 4 or more)");
	block_fails("cct", 0, 0, 21, 0, "cct block at id 0: entity 7: cut short");
	block_fails("cct", 0, 0, 0, -1, "cct block at id 0: 24 bytes left after its 7 entities");
}

/* Samples: time, part, node, 3 weights. Arcs: part, caller, callee,
 * calls + 1, flags, then a zero mask and costs as the flags say. */
Test(store, sample_node_out_of_range)
{
	block_fails("samples", 8, zz(1000000, 3), 0, 0,
		    "samples block at id 0: entity 1: node 1000000 out of range");
}

Test(store, bad_arc_flags)
{
	block_fails("arcs", 4, 4, 0, 0, "arcs block at id 0: entity 0: flags 4: expected 0 to 3");
}

Test(store, damaged_block_rows)
{
	edited_fails("UPDATE bulk SET data = x'28b52ffd00' WHERE kind = 'frames'",
		     "frames block at id 0: data: ");
	edited_fails("UPDATE bulk SET size = size + 1 WHERE kind = 'cct'",
		     "cct block at id 0: data: ");
	edited_fails("UPDATE bulk SET data = 'text' WHERE kind = 'arcs'",
		     "arcs block at id 0: data: expected a blob");
	edited_fails("UPDATE bulk SET count = 0 WHERE kind = 'cg_self'",
		     "cg_self block at id 0: count 0 and size");
	edited_fails("UPDATE bulk SET first = 2 WHERE kind = 'samples'",
		     "samples block at id 2: expected the block at id 0");
	edited_fails("UPDATE bulk SET count = 'x' WHERE kind = 'samples'",
		     "samples block at id 0: count: expected an integer");
}

Test(store, derived_event_with_a_bad_formula)
{
	edited_fails("UPDATE strings SET text = 'Ir + 2 * Nope' WHERE id = "
		     "(SELECT formula FROM events WHERE id = 2)",
		     "table events, row 2: formula 'Ir + 2 * Nope' names unknown event 'Nope'");
}

/* A small file whose blocks claim to expand to gigabytes: refused before
 * anything is expanded (a zstd bomb). */
Test(store, blocks_that_expand_too_much)
{
	edited_fails("UPDATE bulk SET size = 60000000 WHERE kind IN ('cct', 'samples')",
		     "table bulk: the blocks say they expand to 120");
}

/* ---- several stores into one profile ------------------------------------ */

Test(store, two_stores_merge_into_one_profile)
{
	plumb_profile *p = build();
	write_ok(p, path);
	plumb_profile *q = read_ok(path);
	plumb_error err;
	plumb_error_clear(&err);
	ok(plumb_store_read(q, path, NULL, &err), &err);
	/* Interned entities are shared; parts, nodes, samples are added. */
	cr_assert_eq(q->strings.off.n, p->strings.off.n);
	cr_assert_eq(q->functions.n, p->functions.n);
	cr_assert_eq(q->frames.n, p->frames.n);
	cr_assert_eq(q->parts.n, 2 * p->parts.n);
	cr_assert_eq(q->cct.n, 2 * p->cct.n);
	cr_assert_eq(q->cg_self.n, 2 * p->cg_self.n);
	cr_assert_eq(q->arcs.n, 2 * p->arcs.n);
	cr_assert_eq(q->samples.n, 2 * p->samples.n);
	cr_assert_eq(q->meta.n, p->meta.n);
	for (size_t i = 0; i < p->parts.n; i++) {
		const plumb_part *x = &p->parts.v[i], *y = &q->parts.v[p->parts.n + i];
		cr_assert_eq(y->root, x->root + p->cct.n);
		cr_assert_eq(y->start_function, x->start_function);
		cr_assert_eq(y->name, x->name);
		cr_assert_eq(y->arc_costs, x->arc_costs);
	}
	for (size_t i = 0; i < p->cct.n; i++) {
		const plumb_cct_node *x = &p->cct.v[i], *y = &q->cct.v[p->cct.n + i];
		cr_assert_eq(y->frame, x->frame);
		cr_assert_eq(y->part, x->part + p->parts.n);
		cr_assert_eq(plumb_cct_activations(q, (plumb_id)(p->cct.n + i)),
			     plumb_cct_activations(p, (plumb_id)i));
		cr_assert_eq(y->parent == PLUMB_NONE ? PLUMB_NONE : y->parent - p->cct.n, x->parent);
	}
	size_t nev = p->events.n;
	cr_assert(memcmp(q->cct_self.v + p->cct.n * nev, p->cct_self.v,
			 p->cct_self.n * sizeof(uint64_t)) == 0);
	cr_assert_eq(q->samples.v[p->samples.n + 1].node, p->samples.v[1].node + p->cct.n);
	plumb_profile_free(p);
	plumb_profile_free(q);
}

Test(store, merge_with_other_events_is_refused)
{
	write_built();
	plumb_profile *q = plumb_profile_new();
	plumb_error err;
	cr_assert_eq(plumb_event_add(q, "Ir", NULL, NULL, &err), 0);
	cr_assert_eq(plumb_event_add(q, "cycles", NULL, NULL, &err), 1);
	cr_assert_eq(plumb_store_read(q, path, NULL, &err), -1);
	cr_assert_eq(err.code, PLUMB_ERR_FORMAT);
	cr_assert_not_null(strstr(err.message, "event 1 is 'Dr' but the profile's is 'cycles'"),
			   "%s", err.message);
	plumb_profile_free(q);
	q = plumb_profile_new();
	cr_assert_eq(plumb_event_add(q, "Ir", NULL, NULL, &err), 0);
	cr_assert_eq(plumb_store_read(q, path, NULL, &err), -1);
	cr_assert_not_null(strstr(err.message, "same events in the same order"), "%s", err.message);
	plumb_profile_free(q);
}

/* ---- speed -------------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A 200,000-node tree: a few hundred functions, fan-out 4. */
static plumb_profile *big_profile(void)
{
	plumb_error err;
	plumb_profile *p = plumb_profile_new();
	cr_assert_eq(plumb_event_add(p, "samples", NULL, NULL, &err), 0);
	plumb_id mod = plumb_module_intern(p, "/usr/bin/big", NULL);
	plumb_id frames[300];
	for (int i = 0; i < 300; i++) {
		char name[32];
		snprintf(name, sizeof name, "fn_%d", i);
		plumb_id fn = plumb_function_intern(p, name, NULL, mod, PLUMB_NONE, 0);
		frames[i] = plumb_frame_intern(p, fn, PLUMB_NONE, 0, 0x1000 + 16 * (uint64_t)i);
	}
	plumb_id part = plumb_part_default(p);
	plumb_id root = p->parts.v[part].root;
	for (size_t i = 1; p->cct.n < 200000; i++) {
		plumb_id parent = i < 5 ? root : (plumb_id)(i / 4);
		plumb_id n = plumb_cct_child(p, parent, frames[i % 300]);
		cr_assert_neq(n, PLUMB_NONE);
		ok(plumb_cct_add_self(p, n, (uint64_t[]){ i % 3 }, &err), &err);
	}
	return p;
}

Test(store, two_hundred_thousand_nodes_are_quick, .timeout = 60)
{
	plumb_profile *p = big_profile();
	double t0 = now();
	write_ok(p, path);
	double t1 = now();
	plumb_profile *q = read_ok(path);
	double t2 = now();
	same_profile(p, q);
	cr_log_info("200k nodes: write %.3f s, read %.3f s", t1 - t0, t2 - t1);
	/* Generous bounds: sanitizer builds run several times slower. */
	cr_assert_lt(t1 - t0, 5.0);
	cr_assert_lt(t2 - t1, 5.0);
	plumb_profile_free(p);
	plumb_profile_free(q);
}

/* ---- performance points ---------------------------------------- */

static void same_point(const plumb_point *x, const plumb_point *y, size_t i)
{
	cr_expect(x->part == y->part && x->function == y->function && x->context == y->context &&
		  x->has == y->has && x->input == y->input && x->calls == y->calls &&
		  x->min == y->min && x->max == y->max && x->sum == y->sum &&
		  x->real_sum == y->real_sum && x->self_sum == y->self_sum &&
		  x->self_min == y->self_min && x->self_max == y->self_max &&
		  x->syscall_cumul == y->syscall_cumul && x->thread_cumul == y->thread_cumul &&
		  x->syscall_self == y->syscall_self && x->thread_self == y->thread_self &&
		  x->sqr_sum == y->sqr_sum && x->self_sqr_sum == y->self_sqr_sum,
		  "point %zu differs (has %#x/%#x, sqr %.0Lf/%.0Lf)", i, x->has, y->has, x->sqr_sum,
		  y->sqr_sum);
}

static plumb_profile *with_points(void)
{
	plumb_profile *p = build();
	plumb_error err;
	plumb_points_info in;
	plumb_points_info_init(&in);
	in.input_metric = plumb_intern(p, "drms");
	in.memres = 4;
	in.total_cost = UINT64_MAX - 1;
	in.version = 6;
	ok(plumb_points_info_add(p, &in, &err), &err);
	plumb_point all = {
		.part = 0, .function = 0, .context = PLUMB_NONE, .has = PLUMB_PT_ALL, .input = 1u << 31,
		.calls = 3, .min = 1, .max = UINT64_MAX, .sum = UINT64_MAX, .real_sum = 7,
		.self_sum = 5, .self_min = 1, .self_max = 3, .syscall_cumul = 1, .thread_cumul = 2,
		.syscall_self = 3, .thread_self = 4,
		.sqr_sum = 340282366920938463463374607431768211456.0L, /* 2^128: as text */
		.self_sqr_sum = (long double)UINT64_MAX,               /* the largest integer */
	};
	ok(plumb_point_add(p, &all, &err), &err);
	/* a v0 point of a context: only the average's sum, not exact */
	plumb_point v0 = { .part = 1, .function = 1, .context = p->cct.n - 1,
			   .has = 0, .input = 0, .calls = 2, .sum = 10 };
	v0.part = p->cct.v[v0.context].part;
	ok(plumb_point_add(p, &v0, &err), &err);
	return p;
}

Test(store, points_round_trip_with_absent_fields_and_huge_squares)
{
	plumb_profile *p = with_points();
	write_ok(p, path);
	plumb_profile *q = read_ok(path);
	same_profile(p, q);
	cr_assert_eq(q->points.n, p->points.n);
	for (size_t i = 0; i < p->points.n; i++)
		same_point(&p->points.v[i], &q->points.v[i], i);
	cr_expect_str_eq(plumb_str(q, q->points_info.input_metric), "drms");
	cr_expect_eq(q->points_info.memres, 4);
	cr_expect_eq(q->points_info.total_cost, UINT64_MAX - 1);
	cr_expect_eq(q->points_info.exe_mtime, -1);
	cr_expect_eq(q->points_info.version, 6);
	plumb_profile_free(p);
	plumb_profile_free(q);
}

/* Sums of squares are kept exactly (a mantissa and a power of two): whole
 * numbers past 2^64, fractions, 0; a negative or infinite one is refused. */
Test(store, sums_of_squares_are_exact)
{
	static const long double sq[] = { 0, 1.5L, 0x1p64L, 0x1p64L + 2048, 1e59L, 0x1p-70L,
					  0xffffffffffffffffp100L, 3 };
	plumb_profile *p = with_points();
	plumb_error err;
	for (size_t i = 0; i < sizeof sq / sizeof *sq; i++) {
		plumb_point t = { .part = 0, .function = 2, .context = PLUMB_NONE, .input = i,
				  .has = PLUMB_PT_SQR | PLUMB_PT_SELF_SQR, .calls = 1,
				  .sqr_sum = sq[i], .self_sqr_sum = sq[i] * 2 };
		ok(plumb_point_add(p, &t, &err), &err);
	}
	write_ok(p, path);
	plumb_profile *q = read_ok(path);
	cr_assert_eq(q->points.n, p->points.n);
	for (size_t i = 0; i < p->points.n; i++)
		same_point(&p->points.v[i], &q->points.v[i], i);
	plumb_profile_free(q);
	static const long double bad[] = { -1, INFINITY, NAN };
	for (size_t i = 0; i < 3; i++) {
		p->points.v[2].self_sqr_sum = bad[i];
		cr_assert_eq(plumb_store_write(p, path, &err), -1);
		cr_assert_not_null(strstr(err.message, "point 2: a sum of squares that is negative"),
				   "%s", err.message);
	}
	plumb_profile_free(p);
}

/* Version 6 keeps the points in blocks, and no points table; the
 * functions table sums them up for SQL (functions.points). */
Test(store, points_are_in_blocks)
{
	plumb_profile *p = with_points();
	write_ok(p, path);
	plumb_profile_free(p);
	sqlite3 *db;
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT (SELECT sum(count) FROM bulk WHERE kind = 'points'),"
					" (SELECT count(*) FROM sqlite_schema WHERE name = 'points'),"
					" (SELECT count(*) FROM points_info)", -1, &st, NULL),
		     SQLITE_OK, "%s", sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_expect_eq(sqlite3_column_int(st, 0), 2);
	cr_expect_eq(sqlite3_column_int(st, 1), 0);
	cr_expect_eq(sqlite3_column_int(st, 2), 1);
	sqlite3_finalize(st);
	/* SQL sees a summary per function: points, calls, sum (null past
	 * 2^64 - 2), input range */
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT group_concat(function || ':' || name || ':' ||"
					" points || ':' || calls || ':' || ifnull(sum, 'null') || ':' ||"
					" min_input || ':' || max_input, ' ') FROM"
					" (SELECT * FROM v_function_points ORDER BY function)", -1, &st,
					NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_expect_str_eq((const char *)sqlite3_column_text(st, 0),
			 "0:main:1:3:null:2147483648:2147483648 1:helper():1:2:10:0:0");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* The points of with_points() in a block: point 0 has every field (21
 * varints: part, function, context, input, fields, calls, min, max, sum,
 * sqr_sum's exponent and mantissa, real, self min and max, self,
 * self_sqr_sum's two, four drms counts), point 1 none (7: at 21 to 27). */
Test(store, bad_point_entities_are_named)
{
	block_fails_of(with_points, "points", 22, zz(999, 0), 0, 0,
		       "table bulk, points block at id 0: entity 1: function 999 out of range "
		       "(table functions has 4 rows)");
	block_fails_of(with_points, "points", 21, zz(9, 0), 0, 0,
		       "entity 1: part 9 out of range (table parts has 2 rows)");
	block_fails_of(with_points, "points", 23, zz(3, 0) + 1, 0, 0,
		       "entity 1: context 3: a node of another part than the point's (part 1)");
	block_fails_of(with_points, "points", 23, zz(100, 0) + 1, 0, 0,
		       "entity 1: context 100 out of range (table cct_nodes has 8 rows)");
	block_fails_of(with_points, "points", 4, 0x1ff, 0, 0,
		       "entity 0: fields 0x1ff: expected a mask of 0 to 0xff");
	block_fails_of(with_points, "points", 9, zz(20000, 0), 0, 0,
		       "entity 0: sqr_sum: 1 x 2^20000 out of range (expected a finite number, the "
		       "exponent from -16500 to 16500)");
	block_fails_of(with_points, "points", 0, 0, 27, 0, "points block at id 0: entity 1: cut short");
	block_fails_of(with_points, "points", 0, 0, 0, -1,
		       "points block at id 0: 11 bytes left after its 1 entities");
}

/* Version 5 kept a row per point: tests/data/store/v5_points.plumb is
 * with_points() written by that plumb, v5_cct_77_0_4.plumb and
 * v5_written_missing_fields.plumb the aprof files of tests/data/aprof
 * converted by it (all VACUUMed to 512-byte pages). plumb still reads them. */
#define V5 "tests/data/store/v5_"

static void copy_file(const char *from, const char *to)
{
	size_t n;
	unsigned char *b = slurp(from, &n);
	put_bytes(to, b, n);
	free(b);
}

Test(store, version_5_points_in_rows_are_read)
{
	plumb_profile *p = with_points();
	plumb_profile *q = read_ok(V5 "points.plumb");
	same_profile(p, q);
	cr_assert_eq(q->points.n, p->points.n);
	for (size_t i = 0; i < p->points.n; i++)
		same_point(&p->points.v[i], &q->points.v[i], i);
	cr_expect_eq(q->points_info.total_cost, UINT64_MAX - 1);
	plumb_profile_free(p);
	plumb_profile_free(q);
	static const char *const names[] = { "cct_77_0_4", "written_missing_fields" };
	for (size_t k = 0; k < 2; k++) {
		char text[128], store[128];
		snprintf(text, sizeof text, "tests/data/aprof/%s.aprof", names[k]);
		snprintf(store, sizeof store, V5 "%s.plumb", names[k]);
		plumb_error err;
		p = plumb_profile_new();
		cr_assert_eq(plumb_read_file(p, text, NULL, NULL, &err), 0, "%s", err.message);
		q = read_ok(store);
		cr_assert_eq(q->points.n, p->points.n, "%s", store);
		cr_assert_gt(q->points.n, 6);
		for (size_t i = 0; i < p->points.n; i++)
			same_point(&p->points.v[i], &q->points.v[i], i);
		plumb_profile_free(p);
		plumb_profile_free(q);
	}
}

/* Points read into a profile that has some: the file's are in its new
 * parts, with its contexts mapped, and a later add finds each. A version 5
 * and a version 6 file merge alike. */
Test(store, points_of_two_stores_merge)
{
	plumb_profile *p = with_points();
	write_ok(p, path);
	edit("UPDATE points_info SET total_cost = 1"); /* the sum must fit */
	plumb_profile *q = read_ok(V5 "points.plumb");
	plumb_error err;
	plumb_error_clear(&err);
	ok(plumb_store_read(q, path, NULL, &err), &err);
	size_t n = p->points.n, np = p->parts.n, nn = p->cct.n;
	cr_assert_eq(q->points.n, 2 * n);
	cr_assert_eq(q->points_info.total_cost, UINT64_MAX);
	for (size_t i = 0; i < n; i++) {
		plumb_point want = p->points.v[i];
		want.part += (plumb_id)np;
		if (want.context != PLUMB_NONE)
			want.context += (plumb_id)nn;
		same_point(&want, &q->points.v[n + i], n + i);
	}
	/* adding the second file's second point again doubles its calls */
	plumb_point again = q->points.v[n + 1];
	ok(plumb_point_add(q, &again, &err), &err);
	cr_assert_eq(q->points.n, 2 * n);
	cr_assert_eq(q->points.v[n + 1].calls, 2 * p->points.v[1].calls);
	cr_assert_eq(q->points.v[1].calls, p->points.v[1].calls);
	plumb_profile_free(p);
	plumb_profile_free(q);
}

/* A hand-edited version 5 file: its rows of points are checked. */
static void points_edit_fails(const char *sql, const char *want)
{
	copy_file(V5 "points.plumb", path);
	edit(sql);
	read_fails(PLUMB_ERR_FORMAT, want);
}

Test(store, bad_point_rows_are_named)
{
	points_edit_fails("UPDATE points SET min = NULL WHERE id = 0",
			  "table points, row 0: min and max: expected both or neither");
	points_edit_fails("UPDATE points SET sqr_sum = 'lots' WHERE id = 0",
			  "table points, row 0: sqr_sum: expected an integer or its digits as text");
	points_edit_fails("UPDATE points SET function = 999 WHERE id = 1",
			  "table points, row 1: function 999 out of range");
	points_edit_fails("UPDATE points SET calls = 'x' WHERE id = 1",
			  "table points, row 1: calls: expected an integer, found text");
}

/* A sum of squares is written as an odd mantissa and a power of two, read
 * from the long double's bits on x86-64: the same pair frexpl gives, and
 * it reads back exactly, for whole numbers past 2^64, fractions, the
 * largest and the subnormal; a whole number below 2^64 is itself, with
 * exponent 0. */
Test(store, sums_of_squares_split_to_an_odd_mantissa_and_join_back)
{
	const long double vals[] = { 0x1p64L,      3 * 0x1p70L,   0x1.fffffffffffffffep100L,
				     0.5L,         0.1L,          1e30L,
				     LDBL_MAX,     LDBL_MIN,      LDBL_TRUE_MIN,
				     LDBL_MIN / 3, 18446744073709551615.5L, 12345.678L,
				     0,            -0.0L,         1,
				     12345,        0x1p63L,       18446744073709551615.0L };
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		long double v = vals[i];
		uint64_t e, m;
		cr_assert_eq(store_sqr_split(v, &e, &m), 0, "value %zu (%Lg) did not split", i, v);
		int fe;
		long double f = ldexpl(frexpl(v, &fe), 64);
		uint64_t want_m = (uint64_t)f;
		int64_t want_e = (int64_t)fe - 64;
		while (want_m && !(want_m & 1)) {
			want_m >>= 1;
			want_e++;
		}
		if (v < 0x1p64L && v == (long double)(uint64_t)v) { /* whole: as it is, e = 0 */
			want_m = (uint64_t)v;
			want_e = 0;
		}
		cr_expect_eq(m, want_m, "value %zu (%La): mantissa %#llx, expected %#llx", i, v,
			     (unsigned long long)m, (unsigned long long)want_m);
		cr_expect_eq(e, plumb_zigzag((uint64_t)want_e, 0),
			     "value %zu (%La): exponent (zigzag) %llu, expected %lld", i, v,
			     (unsigned long long)e, (long long)want_e);
		long double back;
		cr_assert_eq(store_sqr_join(e, m, &back), 0, "value %zu (%La) did not join", i, v);
		cr_expect(back == v, "value %zu: wrote %La, read back %La", i, v, back);
	}
	uint64_t e, m;
	cr_expect_eq(store_sqr_split(-1.0L, &e, &m), -1, "a negative sum of squares was split");
	cr_expect_eq(store_sqr_split(INFINITY, &e, &m), -1, "an infinite sum of squares was split");
	cr_expect_eq(store_sqr_split(NAN, &e, &m), -1, "a NaN sum of squares was split");
}

/* A merge (several input files read into one profile) keeps which costs
 * were written as 0: annotate shows those as 0, not as never written. */
Test(store, merge_keeps_the_written_zeros)
{
	plumb_profile *p = build();
	plumb_profile *q = plumb_profile_new();
	plumb_error err;
	cr_assert_not_null(q);
	ok(plumb_profile_merge(q, p, &err), &err);
	cr_assert_eq(q->cg_self.n, p->cg_self.n);
	cr_assert_eq(q->arcs.n, p->arcs.n);
	same_zeros(p->cg_self_zero.v, p->cg_self_zero.n, q->cg_self_zero.v, q->cg_self_zero.n,
		   p->cg_self.n, "call-graph entry");
	same_zeros(p->arc_zero.v, p->arc_zero.n, q->arc_zero.v, q->arc_zero.n, p->arcs.n, "arc");
	cr_assert_eq(q->cg_self_zero.v[2], 5, "entry 2's zero mask: %llu, expected 5",
		     (unsigned long long)q->cg_self_zero.v[2]);
	plumb_profile_free(p);
	plumb_profile_free(q);
}
