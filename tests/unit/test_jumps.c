/* Jumps (Callgrind's jump=/jcnd=): the model merges equal ones, the
 * Callgrind reader keeps them (both jcnd= forms, jfi=, jfn=, relative
 * targets), the writer writes them back, the .plumb store keeps them and
 * still reads files from before the jumps table, and merging maps them. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/formats.h"
#include "plumb/store.h"

TestSuite(jumps);

/* ---- helpers --------------------------------------------------------------- */

static void ok(int rc, const plumb_error *err)
{
	cr_assert_geq(rc, 0, "unexpected failure: %s", err->message);
}

static plumb_profile *new_profile(void)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_not_null(p);
	ok(plumb_event_add(p, "Ir", NULL, NULL, &err), &err);
	return p;
}

/* A temporary file holding text; its path in path[64]. */
static void temp_file(char *path, const char *text)
{
	strcpy(path, "/tmp/plumb-jumps-XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	FILE *fp = fdopen(fd, "w");
	cr_assert_not_null(fp);
	fputs(text, fp);
	cr_assert_eq(fclose(fp), 0);
}

static plumb_profile *read_text(const char *text)
{
	char path[64];
	temp_file(path, text);
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	int rc = plumb_callgrind_read(p, path, NULL, &err);
	unlink(path);
	cr_assert_eq(rc, 0, "read failed: %s", err.message);
	return p;
}

/* The read of text fails with a message that ends with want. */
static void read_fails(const char *text, const char *want)
{
	char path[64];
	temp_file(path, text);
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	int rc = plumb_callgrind_read(p, path, NULL, &err);
	unlink(path);
	cr_assert_eq(rc, -1, "accepted");
	size_t n = strlen(err.message), w = strlen(want);
	cr_assert(n >= w && strcmp(err.message + n - w, want) == 0, "message '%s', wanted '...%s'",
		  err.message, want);
	plumb_profile_free(p);
}

static char *write_text(const plumb_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	plumb_error err;
	cr_assert_not_null(fp);
	cr_assert_eq(plumb_callgrind_write_stream(p, fp, &err), 0, "write failed: %s", err.message);
	fclose(fp);
	return buf;
}

/* "fn@line" of a frame, to compare jumps by name. */
static const char *where(const plumb_profile *p, plumb_id frame, char *buf, size_t cap)
{
	const plumb_frame *f = &p->frames.v[frame];
	const char *file = f->file == PLUMB_NONE ? "?" : plumb_str(p, p->files.v[f->file].path);
	snprintf(buf, cap, "%s:%s:%u:%#llx", plumb_function_name(p, f->function), file, f->line,
		 (unsigned long long)f->address);
	return buf;
}

/* Every jump as "from -> to kind executed/followed", one line each. */
static char *describe(const plumb_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	cr_assert_not_null(fp);
	for (size_t i = 0; i < p->jumps.n; i++) {
		const plumb_jump *j = &p->jumps.v[i];
		char a[200], b[200];
		fprintf(fp, "%u %s -> %s %s %llu/%llu\n", (unsigned)j->part,
			where(p, j->from, a, sizeof a), where(p, j->to, b, sizeof b),
			j->conditional ? "jcnd" : "jump", (unsigned long long)j->executed,
			(unsigned long long)j->followed);
	}
	fclose(fp);
	return buf;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of text in sorted order (in place): jumps in any order. */
static char *sorted(char *text)
{
	char *v[64], *copy = strdup(text);
	size_t n = 0;
	cr_assert_not_null(copy);
	for (char *s = strtok(copy, "\n"); s && n < 64; s = strtok(NULL, "\n"))
		v[n++] = s;
	qsort(v, n, sizeof *v, cmp_str);
	text[0] = '\0';
	for (size_t i = 0; i < n; i++)
		strcat(strcat(text, v[i]), "\n");
	free(copy);
	return text;
}

/* ---- the model ------------------------------------------------------------- */

Test(jumps, equal_jumps_add_up)
{
	plumb_profile *p = new_profile();
	plumb_error err;
	plumb_id part = plumb_part_default(p);
	plumb_id f = plumb_function_intern(p, "f", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_id a = plumb_frame_intern(p, f, PLUMB_NONE, 3, 0), b = plumb_frame_intern(p, f, PLUMB_NONE, 5, 0);
	cr_assert_eq(plumb_jump_add(p, part, a, b, true, 10, 4, &err), 0);
	cr_assert_eq(plumb_jump_add(p, part, a, b, true, 5, 5, &err), 0);
	cr_assert_eq(plumb_jump_add(p, part, a, b, false, 7, 0, &err), 1, "a jump= is another jump");
	cr_assert_eq(plumb_jump_add(p, part, b, a, false, 2, 2, &err), 2);
	cr_assert_eq(p->jumps.n, 3);
	cr_assert_eq(p->jumps.v[0].executed, 15);
	cr_assert_eq(p->jumps.v[0].followed, 9);
	cr_assert_eq(p->jumps.v[1].followed, 7, "an unconditional jump jumps every time");
	cr_assert_eq(plumb_jump_add(p, part, a, 99, false, 1, 1, &err), -1);
	cr_assert_eq(err.code, PLUMB_ERR_USAGE);
	cr_assert_eq(plumb_jump_add(p, part, a, b, true, UINT64_MAX, 0, &err), -1);
	cr_assert_eq(err.code, PLUMB_ERR_OVERFLOW);
	cr_assert_eq(p->jumps.v[0].executed, 15, "a failed add changes nothing");
	plumb_profile_free(p);
}

/* ---- the Callgrind reader ------------------------------------------------------ */

static const char with_jumps[] =
	"# callgrind format\n"
	"version: 1\n"
	"positions: instr line\n"
	"events: Ir\n"
	"fl=(1) a.c\n"
	"fn=(1) main\n"
	"0x100 3 2\n"
	"+4 4 1\n"
	"jump=2 +12 9\n"
	"* *\n"
	"+6 * 1\n"
	"jcnd=3/5 -2 4\n"           /* callgrind's FOLLOWED/EXECUTED */
	"* *\n"
	"jcnd=8 6 0x130 7\n"        /* the manual's EXECUTED FOLLOWED */
	"+2 5\n"
	"jfi=(2) b.h\n"
	"jump=1 0x140 20\n"
	"* *\n"
	"jfn=(2) helper\n"         /* jfi= named the jump before only */
	"jcnd=0/4 0x200 30\n"
	"* *\n"
	"jump=6 0x100 3\n"          /* jfn= too */
	"0x10a 5\n"
	"fn=(2)\n"
	"0x200 30 4\n";

Test(jumps, callgrind_reader_keeps_them)
{
	plumb_profile *p = read_text(with_jumps);
	char *d = describe(p);
	cr_assert_str_eq(d,
			 "0 main:a.c:4:0x104 -> main:a.c:9:0x110 jump 2/2\n"
			 "0 main:a.c:4:0x10a -> main:a.c:4:0x108 jcnd 5/3\n"
			 "0 main:a.c:5:0x10c -> main:a.c:7:0x130 jcnd 8/6\n"
			 "0 main:a.c:5:0x10c -> main:b.h:20:0x140 jump 1/1\n"
			 "0 main:a.c:5:0x10c -> helper:a.c:30:0x200 jcnd 4/0\n"
			 "0 main:a.c:5:0x10a -> main:a.c:3:0x100 jump 6/6\n");
	free(d);
	/* the source lines carry no cost; the self costs are as without jumps */
	uint64_t total;
	plumb_error err;
	ok(plumb_profile_totals(p, &total, &err), &err);
	cr_assert_eq(total, 8);
	cr_assert_str_eq(plumb_meta_get(p, "callgrind.jumps"), "6");
	plumb_profile_free(p);
}

Test(jumps, callgrind_reader_wants_the_source_line)
{
	read_fails("events: Ir\nfn=main\n1 1\njump=1 3\n",
		   ":4: expected the source line of the jump on line 4, got the end of the file");
	read_fails("events: Ir\nfn=main\n1 1\njcnd=1/2 3\ncalls=1 3\n",
		   ":5: expected the source line of the jump on line 4, got calls=");
	read_fails("events: Ir\nfn=main\n1 1\njump=1 3\ntotals: 1\n",
		   ":5: expected the source line of the jump on line 4, got a header line");
	read_fails("events: Ir\nfn=main\n1 1\njcnd=1/x 3\n1\n",
		   ":4: expected a second count after \"jcnd=\" (a decimal or 0x number), got \"x\"");
}

/* ---- the Callgrind writer --------------------------------------------------------- */

Test(jumps, callgrind_writer_writes_them_back)
{
	plumb_profile *p = read_text(with_jumps);
	char *text = write_text(p);
	const char *body = strstr(text, "fn=(2) main\n");
	cr_assert_not_null(body, "%s", text);
	cr_assert_str_eq(body,
			 "fn=(2) main\n"
			 "0x100 3 2\n"
			 "+4 +1 1\n"
			 "jump=2 0x110 9\n"
			 "* *\n"
			 "+6 * 1\n"
			 "jcnd=3/5 0x108 4\n"
			 "* *\n"
			 "jump=6 0x100 3\n"
			 "* 5\n"
			 "jfn=(1)\n"
			 "jcnd=0/4 0x200 30\n"
			 "0x10c 5\n"
			 "jcnd=6/8 0x130 7\n"
			 "0x10c 5\n"
			 "jfi=(2) b.h\n"
			 "jump=1 0x140 20\n"
			 "0x10c 5\n"
			 "\n"
			 "totals: 8\n"
			 "\n");
	/* read back: the same jumps */
	char path[64];
	temp_file(path, text);
	plumb_profile *q = plumb_profile_new();
	plumb_error err;
	cr_assert_eq(plumb_callgrind_read(q, path, NULL, &err), 0, "%s", err.message);
	unlink(path);
	char *a = describe(p), *b = describe(q);
	cr_assert_str_eq(sorted(b), sorted(a));
	free(a);
	free(b);
	free(text);
	plumb_profile_free(p);
	plumb_profile_free(q);
}

/* ---- the .plumb store and merging ---------------------------------------------- */

static void run_sql(const char *path, const char *sql)
{
	sqlite3 *db;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	char *msg = NULL;
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s: %s", sql, msg);
	cr_assert_eq(sqlite3_close(db), SQLITE_OK);
}

static char store_path[64];

static plumb_profile *stored_and_read(plumb_profile *p, const char *edit, plumb_error *err)
{
	strcpy(store_path, "/tmp/plumb-jumps-XXXXXX");
	int fd = mkstemp(store_path);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(plumb_store_write(p, store_path, err), 0, "%s", err->message);
	if (edit)
		run_sql(store_path, edit);
	plumb_profile *q = plumb_profile_new();
	int rc = plumb_store_read(q, store_path, NULL, err);
	unlink(store_path);
	if (rc) {
		plumb_profile_free(q);
		return NULL;
	}
	return q;
}

Test(jumps, store_keeps_them)
{
	plumb_profile *p = read_text(with_jumps);
	plumb_error err;
	plumb_profile *q = stored_and_read(p, NULL, &err);
	cr_assert_not_null(q, "%s", err.message);
	cr_assert_eq(q->jumps.n, p->jumps.n);
	for (size_t i = 0; i < p->jumps.n; i++) {
		const plumb_jump *a = &p->jumps.v[i], *b = &q->jumps.v[i];
		cr_assert(a->part == b->part && a->from == b->from && a->to == b->to &&
			  a->conditional == b->conditional && a->executed == b->executed &&
			  a->followed == b->followed, "jump %zu differs: the same ids and counts", i);
	}
	plumb_profile_free(q);
	plumb_profile_free(p);
}

/* Every file plumb reads (schema version 5) has the jumps table. */
Test(jumps, store_without_the_jumps_table_is_damaged)
{
	plumb_profile *p = read_text(with_jumps);
	plumb_error err;
	cr_assert_null(stored_and_read(p, "DROP TABLE jumps", &err));
	cr_assert_eq(err.code, PLUMB_ERR_FORMAT);
	cr_assert_not_null(strstr(err.message, "no such table: jumps"), "%s", err.message);
	plumb_profile_free(p);
}

Test(jumps, store_checks_every_row)
{
	plumb_profile *p = read_text(with_jumps);
	plumb_error err;
	static const char *const edits[][2] = {
		{ "UPDATE jumps SET target = 999 WHERE id = 1",
		  "table jumps, row 1: target 999 out of range (table frames has" },
		{ "UPDATE jumps SET part = 3 WHERE id = 0",
		  "table jumps, row 0: part 3 out of range (table parts has 1 rows)" },
		{ "UPDATE jumps SET conditional = 2 WHERE id = 2",
		  "table jumps, row 2: conditional: expected 0 or 1, found 2" },
		{ "UPDATE jumps SET followed = 1 WHERE id = 0",
		  "table jumps, row 0: followed: an unconditional jump's is its executed count" },
		{ "UPDATE jumps SET executed = 'many' WHERE id = 4",
		  "table jumps, row 4: executed: expected an integer" },
		{ "UPDATE jumps SET id = 9 WHERE id = 5",
		  "table jumps, row 5: ids must run 0, 1, 2, ... without gaps; found 9" },
	};
	for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
		cr_assert_null(stored_and_read(p, edits[i][0], &err), "%s was accepted", edits[i][0]);
		cr_assert_eq(err.code, PLUMB_ERR_FORMAT, "%s", err.message);
		cr_assert_not_null(strstr(err.message, edits[i][1]), "'%s' lacks '%s'", err.message,
				   edits[i][1]);
		cr_assert_not_null(strstr(err.message, store_path), "%s", err.message);
	}
	plumb_profile_free(p);
}

Test(jumps, merge_maps_them)
{
	plumb_profile *p = read_text(with_jumps);
	plumb_profile *q = new_profile();
	plumb_error err;
	/* something first, so that the ids differ */
	plumb_id f = plumb_function_intern(q, "other", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	cr_assert_neq(plumb_frame_intern(q, f, PLUMB_NONE, 1, 0), PLUMB_NONE);
	plumb_part_default(q);
	ok(plumb_profile_merge(q, p, &err), &err);
	ok(plumb_profile_merge(q, p, &err), &err);
	cr_assert_eq(q->jumps.n, 2 * p->jumps.n, "each part its own jumps");
	char *a = describe(p), *b = describe(q);
	/* q's parts 1 and 2 are p's part 0 twice */
	char *want = malloc(2 * strlen(a) + 1);
	cr_assert_not_null(want);
	want[0] = '\0';
	for (int k = 1; k <= 2; k++)
		for (const char *s = a; *s; s = strchr(s, '\n') + 1) {
			size_t n = strlen(want);
			want[n] = (char)('0' + k);
			want[n + 1] = '\0';
			strncat(want, s + 1, (size_t)(strchr(s, '\n') - s));
		}
	cr_assert_str_eq(b, want);
	free(want);
	free(a);
	free(b);
	plumb_profile_free(p);
	plumb_profile_free(q);
}
