/* The .plumb store's tables for sqlite3 users (lines, stacks) past their
 * bounds: the heaviest are kept, and sql_info says how many there were. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/store.h"
#include "store/store_lines.h"
#include "store/store_stacks.h"

static char dir[] = "/tmp/plumb-store-sql-XXXXXX";
static char path[sizeof dir + 32];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/p.plumb", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
}

TestSuite(store_sql, .init = setup, .fini = teardown);

static void ok(int rc, const plumb_error *err)
{
	cr_assert_eq(rc, 0, "unexpected failure: %s", err->message);
}

static long long sql_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s: no row", sql);
	long long v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static sqlite3 *write_and_open(plumb_profile *p)
{
	plumb_error err;
	ok(plumb_store_write(p, path, &err), &err);
	plumb_profile_free(p);
	sqlite3 *db;
	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	return db;
}

/* One function in two files with STORE_LINES_MAX + 5 lines, line i of
 * cost i in event 0 and none in event 1, but for the last line, whose only
 * cost is 1 of event 1: all of that event. */
Test(store_sql, the_heaviest_lines_are_kept)
{
	plumb_error err;
	plumb_profile *p = plumb_profile_new();
	cr_assert_eq(plumb_event_add(p, "a", NULL, NULL, &err), 0);
	cr_assert_eq(plumb_event_add(p, "b", NULL, NULL, &err), 1);
	plumb_id fc = plumb_file_intern(p, "f.c"), gh = plumb_file_intern(p, "g.h");
	plumb_id fn = plumb_function_intern(p, "f", NULL, PLUMB_NONE, fc, 1);
	plumb_id part = plumb_part_add(p, PLUMB_PART_WHOLE, NULL, -1, -1);
	uint32_t n = STORE_LINES_MAX + 5;
	for (uint32_t i = 1; i <= n; i++) {
		plumb_id fr = plumb_frame_intern(p, fn, i % 2 ? fc : gh, i, 0);
		uint64_t c[2] = { i < n ? i : 0, i < n ? 0 : 1 };
		ok(plumb_cg_add_self(p, part, fr, c, &err), &err);
	}
	sqlite3 *db = write_and_open(p);
	cr_assert_eq(sql_int(db, "SELECT value FROM sql_info WHERE name = 'lines'"), n);
	cr_assert_eq(sql_int(db, "SELECT value FROM sql_info WHERE name = 'lines_kept'"),
		     STORE_LINES_MAX);
	cr_assert_eq(sql_int(db, "SELECT count(*) FROM v_line_costs WHERE event = 'a'"), STORE_LINES_MAX);
	/* lines 1 to 5 are the lightest of a; the last is all of b */
	cr_assert_eq(sql_int(db, "SELECT min(line) FROM v_line_costs"), 6);
	char sql[160];
	snprintf(sql, sizeof sql, "SELECT self FROM v_line_costs WHERE line = %u AND event = 'b'", n);
	cr_assert_eq(sql_int(db, sql), 1);
	/* a row per file: f.c has the odd lines */
	cr_assert_eq(sql_int(db, "SELECT count(*) FROM lines"), 2);
	cr_assert_eq(sql_int(db, "SELECT count(*) FROM v_line_costs WHERE file = 'f.c' AND line % 2 = 0"), 0);
	sqlite3_close(db);
}

/* STORE_STACKS_MAX + 3 stacks main;s<i> of weight i + 1 (of cpu), with no
 * known calls: the three lightest are left out. */
Test(store_sql, the_heaviest_stacks_are_kept)
{
	plumb_error err;
	plumb_profile *p = plumb_profile_new();
	cr_assert_eq(plumb_event_add(p, "cpu", NULL, NULL, &err), 0);
	plumb_id part = plumb_part_add(p, PLUMB_PART_WHOLE, NULL, -1, -1);
	plumb_id fmain = plumb_function_intern(p, "main", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_id nmain = plumb_cct_child(p, p->parts.v[part].root, plumb_frame_intern(p, fmain, PLUMB_NONE, 0, 0));
	uint32_t n = STORE_STACKS_MAX + 3;
	for (uint32_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "s%u", i);
		plumb_id f = plumb_function_intern(p, name, NULL, PLUMB_NONE, PLUMB_NONE, 0);
		plumb_id node = plumb_cct_child(p, nmain, plumb_frame_intern(p, f, PLUMB_NONE, 0, 0));
		ok(plumb_cct_add_self(p, node, (uint64_t[]){ i + 1 }, &err), &err);
	}
	sqlite3 *db = write_and_open(p);
	cr_assert_eq(sql_int(db, "SELECT value FROM sql_info WHERE name = 'stacks'"), n);
	cr_assert_eq(sql_int(db, "SELECT count(*) FROM stacks"), STORE_STACKS_MAX);
	cr_assert_eq(sql_int(db, "SELECT min(weight) FROM v_stacks"), 4);
	cr_assert_eq(sql_int(db, "SELECT count(*) FROM v_stacks WHERE folded = 'main;s3'"), 1);
	cr_assert_eq(sql_int(db, "SELECT count(*) FROM v_stacks WHERE folded = 'main;s2'"), 0);
	/* main's calls: every one without a count, so [callee] each */
	cr_assert_eq(sql_int(db, "SELECT count(*) FROM json_each((SELECT calls FROM functions WHERE id = 0))"
			     " WHERE json_array_length(value) = 1"), n);
	cr_assert_eq(sql_int(db, "SELECT count(*) FROM v_calls WHERE caller_name = 'main' AND calls IS NULL"), n);
	sqlite3_close(db);
}

/* Lines of equal cost past the bound: the first in order of function, file
 * and line are kept, exactly STORE_LINES_MAX. */
Test(store_sql, lines_of_equal_cost_keep_the_first)
{
	plumb_error err;
	plumb_profile *p = plumb_profile_new();
	cr_assert_eq(plumb_event_add(p, "a", NULL, NULL, &err), 0);
	plumb_id fc = plumb_file_intern(p, "f.c");
	plumb_id fn = plumb_function_intern(p, "f", NULL, PLUMB_NONE, fc, 1);
	plumb_id part = plumb_part_add(p, PLUMB_PART_WHOLE, NULL, -1, -1);
	uint32_t n = STORE_LINES_MAX + 10;
	for (uint32_t i = n; i >= 1; i--) /* backwards: the writer sorts them */
		ok(plumb_cg_add_self(p, part, plumb_frame_intern(p, fn, fc, i, 0), (uint64_t[]){ 7 }, &err),
		   &err);
	sqlite3 *db = write_and_open(p);
	cr_assert_eq(sql_int(db, "SELECT count(*) FROM v_line_costs"), STORE_LINES_MAX);
	cr_assert_eq(sql_int(db, "SELECT min(line) FROM v_line_costs"), 1);
	cr_assert_eq(sql_int(db, "SELECT max(line) FROM v_line_costs"), STORE_LINES_MAX);
	cr_assert_eq(sql_int(db, "SELECT sum(self) FROM v_line_costs"), 7LL * STORE_LINES_MAX);
	sqlite3_close(db);
}
