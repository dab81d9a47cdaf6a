/* Unit tests for src/output: tables, number formatting, text, CSV, JSON. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/output.h"

/* ---- helpers ---------------------------------------------------------- */

/* Run one writer into memory; returns the malloc'd output. */
static char *render(const plumb_table *t, int kind, const plumb_text_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	plumb_error err = { 0 };
	int rc = kind == 0 ? plumb_table_write_text(t, f, o, &err)
		: kind == 1 ? plumb_table_write_csv(t, f, &err)
			    : plumb_table_write_json(t, f, &err);
	cr_assert_eq(rc, 0, "writer failed: %s", err.message);
	fclose(f);
	return buf;
}

static char *text_of(const plumb_table *t, unsigned width, bool color)
{
	plumb_text_opts o;
	plumb_text_opts_init(&o);
	o.width = width;
	o.color = color;
	return render(t, 0, &o);
}

static void expect_text(const plumb_table *t, unsigned width, bool color, const char *want)
{
	char *got = text_of(t, width, color);
	cr_expect_str_eq(got, want);
	free(got);
}

static void add_u64_row(plumb_table *t, plumb_row_kind kind, uint32_t depth, uint64_t v,
			const char *name)
{
	plumb_row *r = plumb_table_add_row(t, kind, depth);
	cr_assert_not_null(r);
	plumb_cell_u64(&r->cells[0], v);
	plumb_cell_str(&r->cells[1], plumb_table_strdup(t, name));
}

/* calls (U64), excl_pct (PCT), function (name): a flat profile. */
static plumb_table *flat_table(void)
{
	plumb_table *t = plumb_table_new("flat", NULL);
	cr_assert_not_null(t);
	cr_assert_eq(plumb_table_add_column(t, "calls", "Calls", PLUMB_CELL_U64, 0, false), 0);
	cr_assert_eq(plumb_table_add_column(t, "excl_pct", "Excl. %", PLUMB_CELL_PCT, 0, false), 1);
	cr_assert_eq(plumb_table_add_column(t, "function", "Function", PLUMB_CELL_STR, -1, true), 2);
	static const struct { uint64_t calls; double pct; const char *name; } rows[] = {
		{ 1234567, 45.26, "main" }, { 999, 1.0, "compute" }, { 0, -1, "idle" },
	};
	for (size_t i = 0; i < 3; i++) {
		plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, 0);
		cr_assert_not_null(r);
		if (rows[i].pct >= 0) { /* the last row keeps NULL numbers */
			plumb_cell_u64(&r->cells[0], rows[i].calls);
			plumb_cell_pct(&r->cells[1], rows[i].pct);
		}
		plumb_cell_str(&r->cells[2], plumb_table_strdup(t, rows[i].name));
	}
	return t;
}

/* An excl (U64) column and a name column. */
static plumb_table *named_table(const char *view)
{
	plumb_table *t = plumb_table_new(view, NULL);
	cr_assert_not_null(t);
	cr_assert_eq(plumb_table_add_column(t, "excl", "Excl.", PLUMB_CELL_U64, 0, false), 0);
	cr_assert_eq(plumb_table_add_column(t, "name", "Name", PLUMB_CELL_STR, -1, true), 1);
	return t;
}

/* Parse JSON with Python's strict parser and run `check` (a Python
 * expression on the document d); 0 when both succeed. */
static int python_check(const char *json, const char *check)
{
	char path[] = "/tmp/plumb-test-json-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	FILE *f = fdopen(fd, "w");
	cr_assert_not_null(f);
	fputs(json, f);
	fclose(f);
	char cmd[64];
	snprintf(cmd, sizeof cmd, "python3 - %s", path);
	FILE *py = popen(cmd, "w");
	cr_assert_not_null(py);
	fprintf(py, "import json, sys\n"
		    "d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
		    "sys.exit(0 if (%s) else 1)\n", check);
	int rc = pclose(py);
	unlink(path);
	return rc;
}

/* ---- construction and numbers ---------------------------------------- */

Test(output, table_rows_grow_and_start_null)
{
	plumb_table *t = named_table("flat");
	for (uint32_t i = 0; i < 1000; i++) {
		plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, i);
		cr_assert_not_null(r);
		if (i % 2)
			plumb_cell_u64(&r->cells[0], i);
	}
	cr_assert_eq(t->nrows, 1000);
	cr_assert_geq(t->rows_cap, 1000);
	cr_expect_eq(t->rows[998].cells[0].type, PLUMB_CELL_NULL);
	cr_expect_eq(t->rows[998].cells[1].type, PLUMB_CELL_NULL);
	cr_expect_eq(t->rows[999].cells[0].u, 999);
	cr_expect_eq(t->rows[999].depth, 999);
	/* A column added late gives every existing row a NULL cell. */
	cr_assert_eq(plumb_table_add_column(t, "late", "Late", PLUMB_CELL_INT, -1, false), 2);
	cr_expect_eq(t->rows[500].cells[2].type, PLUMB_CELL_NULL);
	plumb_table_free(t);
}

Test(output, table_copies_strings)
{
	char key[] = "excl", title[] = "Excl.", note[] = "a note", name[] = "main";
	plumb_table *t = plumb_table_new("flat", "A title");
	cr_assert_not_null(t);
	cr_assert_eq(plumb_table_add_column(t, key, title, PLUMB_CELL_U64, 3, false), 0);
	cr_assert_eq(plumb_table_add_note(t, note), 0);
	const char *s = plumb_table_strdup(t, name);
	key[0] = title[0] = note[0] = name[0] = 'X';
	cr_expect_str_eq(t->cols[0].key, "excl");
	cr_expect_str_eq(t->cols[0].title, "Excl.");
	cr_expect_eq(t->cols[0].event, 3);
	cr_expect_str_eq(t->notes[0], "a note");
	cr_expect_str_eq(s, "main");
	cr_expect_str_eq(t->view, "flat");
	cr_expect_str_eq(t->title, "A title");
	cr_expect_eq(plumb_table_add_column(t, NULL, "x", PLUMB_CELL_U64, 0, false), -1);
	cr_expect_eq(plumb_table_add_note(t, NULL), -1);
	plumb_table_free(t);
	plumb_table_free(NULL);
}

Test(output, format_u64_groups_thousands)
{
	char buf[32];
	cr_expect_str_eq(plumb_format_u64(0, buf, sizeof buf), "0");
	cr_expect_str_eq(plumb_format_u64(999, buf, sizeof buf), "999");
	cr_expect_str_eq(plumb_format_u64(1000, buf, sizeof buf), "1,000");
	cr_expect_str_eq(plumb_format_u64(1234567, buf, sizeof buf), "1,234,567");
	cr_expect_str_eq(plumb_format_u64(100000, buf, sizeof buf), "100,000");
	cr_expect_str_eq(plumb_format_u64(UINT64_MAX, buf, sizeof buf),
			 "18,446,744,073,709,551,615");
	/* A short buffer is cut, never overrun. */
	char small[4] = "zzz";
	cr_expect_str_eq(plumb_format_u64(123456, small, sizeof small), "123");
}

Test(output, format_fixed)
{
	char buf[32];
	cr_expect_str_eq(plumb_format_fixed(12.345, 1, buf, sizeof buf), "12.3");
	cr_expect_str_eq(plumb_format_fixed(100.0, 1, buf, sizeof buf), "100.0");
	cr_expect_str_eq(plumb_format_fixed(0.0, 4, buf, sizeof buf), "0.0000");
	cr_expect_str_eq(plumb_format_fixed(-2.5, 0, buf, sizeof buf), "-2");
	cr_expect_null(plumb_format_fixed(NAN, 1, buf, sizeof buf));
	cr_expect_null(plumb_format_fixed(INFINITY, 1, buf, sizeof buf));
	cr_expect_eq(plumb_format_fixed_width(NAN, 1), 0);
	cr_expect_eq(plumb_format_fixed_width(-0.01, 1), 4); /* "-0.0" */
	cr_expect_eq(plumb_format_fixed_width(1e20, 1), 7);  /* "1.0e+20" */
	cr_expect_str_eq(plumb_format_fixed(1e20, 1, buf, sizeof buf), "1.0e+20");
}

/* The printf-free path rounds exactly as printf does: halfway cases of the
 * binary value go to even (0.25 -> 0.2), values just under a visible tie go
 * down (0.15 is 0.1499...), and anything else is printf's own result. */
Test(output, format_fixed_matches_printf)
{
	char buf[64], want[64];
	cr_expect_str_eq(plumb_format_fixed(0.25, 1, buf, sizeof buf), "0.2");
	cr_expect_str_eq(plumb_format_fixed(0.75, 1, buf, sizeof buf), "0.8");
	cr_expect_str_eq(plumb_format_fixed(0.15, 1, buf, sizeof buf), "0.1");
	cr_expect_str_eq(plumb_format_fixed(-0.01, 1, buf, sizeof buf), "-0.0");
	uint64_t x = 0x9E3779B97F4A7C15u;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int d = (int)(x % 7);
		double v;
		switch (i % 4) {
		case 0: /* a percentage */
			v = (double)(x >> 11) / (double)(1ull << 53) * 100.0;
			break;
		case 1: /* a visible tie, k + 0.5 in the last place */
			v = ((double)(x % 2000000) + 0.5) / pow(10, d);
			break;
		case 2: /* quarters and eighths: exact binary ties */
			v = (double)(x % 100000) / 8.0;
			break;
		default: /* any magnitude, either sign */
			v = ldexp((double)(x >> 11), (int)(x % 80) - 60) * ((x & 1) ? -1 : 1);
			break;
		}
		snprintf(want, sizeof want, fabs(v) < 1e18 ? "%.*f" : "%.*e", d, v);
		cr_assert_str_eq(plumb_format_fixed(v, d, buf, sizeof buf), want, "v=%a d=%d", v, d);
		cr_assert_eq(plumb_format_fixed_width(v, d), strlen(want), "width of v=%a d=%d: %zu, "
			     "expected %zu", v, d, plumb_format_fixed_width(v, d), strlen(want));
	}
}

Test(output, text_opts_defaults)
{
	plumb_text_opts o = { .width = 7, .color = true, .header = false };
	plumb_text_opts_init(&o);
	cr_expect_eq(o.width, 0);
	cr_expect_not(o.color);
	cr_expect(o.header);
}

/* ---- text ------------------------------------------------------------- */

Test(output, text_aligns_columns_and_null_cells)
{
	plumb_table *t = flat_table();
	expect_text(t, 0, false,
		    "    Calls  Excl. %  Function\n"
		    "1,234,567     45.3  main\n"
		    "      999      1.0  compute\n"
		    "        -        -  idle\n");
	plumb_table_free(t);
}

Test(output, text_title_header_off_and_notes)
{
	plumb_table *t = named_table("flat");
	cr_assert_eq(plumb_table_add_note(t, "inclusive times are estimates"), 0);
	cr_assert_eq(plumb_table_add_note(t, "2 cycles"), 0);
	add_u64_row(t, PLUMB_ROW_NORMAL, 0, 7, "f");
	plumb_text_opts o;
	plumb_text_opts_init(&o);
	o.header = false;
	char *got = render(t, 0, &o);
	cr_expect_str_eq(got, "7  f\n\ninclusive times are estimates\n2 cycles\n");
	free(got);
	plumb_table_free(t);

	t = plumb_table_new("flat", "Flat profile of ./a.out");
	cr_assert_not_null(t);
	cr_assert_eq(plumb_table_add_column(t, "excl", "Excl.", PLUMB_CELL_U64, 0, false), 0);
	expect_text(t, 0, false, "Flat profile of ./a.out\n\nExcl.\n");
	plumb_table_free(t);
}

Test(output, text_indents_name_column_by_depth)
{
	plumb_table *t = named_table("tree");
	add_u64_row(t, PLUMB_ROW_NORMAL, 0, 100, "main");
	add_u64_row(t, PLUMB_ROW_NORMAL, 1, 60, "a");
	add_u64_row(t, PLUMB_ROW_NORMAL, 2, 10, "b");
	expect_text(t, 0, false,
		    "Excl.  Name\n"
		    "  100  main\n"
		    "   60    a\n"
		    "   10      b\n");
	plumb_table_free(t);
}

Test(output, text_butterfly_marks_focus_and_separates)
{
	plumb_table *t = named_table("callers-callees");
	add_u64_row(t, PLUMB_ROW_CALLER, 1, 10, "main");
	add_u64_row(t, PLUMB_ROW_FOCUS, 0, 10, "foo");
	add_u64_row(t, PLUMB_ROW_CALLEE, 1, 4, "bar");
	cr_assert_not_null(plumb_table_add_row(t, PLUMB_ROW_SEPARATOR, 0));
	add_u64_row(t, PLUMB_ROW_FOCUS, 0, 4, "bar");
	expect_text(t, 0, false,
		    "Excl.  Name\n"
		    "   10    main\n"
		    "   10  *foo\n"
		    "    4    bar\n"
		    "\n"
		    "    4  *bar\n");
	plumb_table_free(t);
}

Test(output, text_elides_utf8_name_to_width)
{
	plumb_table *t = named_table("flat");
	add_u64_row(t, PLUMB_ROW_NORMAL, 0, 5, "ñandú_función_largísima_ü");
	add_u64_row(t, PLUMB_ROW_NORMAL, 0, 6, "short");
	/* 20 columns: 5 for the numbers, 2 apart, 13 code points of name. */
	expect_text(t, 20, false,
		    "Excl.  Name\n"
		    "    5  ñandú...ima_ü\n"
		    "    6  short\n");
	/* Too narrow: no line is longer than the width, the name gives up last. */
	expect_text(t, 10, false,
		    "Excl.  Nam\n"
		    "    5  ñan\n"
		    "    6  sho\n");
	/* Wide enough: nothing changes. */
	expect_text(t, 80, false,
		    "Excl.  Name\n"
		    "    5  ñandú_función_largísima_ü\n"
		    "    6  short\n");
	plumb_table_free(t);
}

Test(output, text_gives_up_file_before_name)
{
	plumb_table *t = named_table("flat");
	cr_assert_eq(plumb_table_add_column(t, "file", "File", PLUMB_CELL_STR, -1, false), 2);
	plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, 0);
	cr_assert_not_null(r);
	plumb_cell_u64(&r->cells[0], 12345);
	plumb_cell_str(&r->cells[1], "abcdefghijklmnopqrstuvwxyz0123");
	plumb_cell_str(&r->cells[2], "src/aaaaaaaaaa/bbbbbbbbbb/x.c");
	/* Natural width 6+2+30+2+29 = 69; at 68 the numbers go compact. */
	expect_text(t, 68, false,
		    "Excl.  Name                            File\n"
		    "12.3k  abcdefghijklmnopqrstuvwxyz0123  src/aaaaaaaaaa/bbbbbbbbbb/x.c\n");
	/* At 59 the file gives up its middle, the name nothing. */
	expect_text(t, 59, false,
		    "Excl.  Name                            File\n"
		    "12.3k  abcdefghijklmnopqrstuvwxyz0123  src/aaaaa...bbbb/x.c\n");
	/* At 40 the file column goes: the name stays whole. */
	expect_text(t, 40, false,
		    "Excl.  Name\n"
		    "12.3k  abcdefghijklmnopqrstuvwxyz0123\n");
	/* At 20 the name is all that can give. */
	expect_text(t, 20, false,
		    "Excl.  Name\n"
		    "12.3k  abcde...z0123\n");
	plumb_table_free(t);
}

Test(output, text_deep_rows_keep_some_name_when_shrunk)
{
	plumb_table *t = named_table("tree");
	add_u64_row(t, PLUMB_ROW_NORMAL, 0, 1, "root_function_name");
	add_u64_row(t, PLUMB_ROW_NORMAL, 20, 1, "leaf_function_name");
	char *got = text_of(t, 30, false);
	cr_expect_str_eq(got,
			 "Excl.  Name\n"
			 "    1  root_function_name\n"
			 "    1      \xE2\x86\xB3" "20 leaf_f...n_name\n");
	free(got);
	plumb_table_free(t);
}

Test(output, text_no_colour_codes_without_color)
{
	plumb_table *t = flat_table();
	add_u64_row(t, PLUMB_ROW_FOCUS, 0, 1, "focus");
	char *got = text_of(t, 0, false);
	cr_expect_null(strchr(got, '\x1b'), "escape in: %s", got);
	free(got);
	plumb_table_free(t);
}

Test(output, text_colour_codes_with_color)
{
	plumb_table *t = flat_table();
	plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_FOCUS, 0);
	cr_assert_not_null(r);
	plumb_cell_pct(&r->cells[1], 0.5);
	plumb_cell_str(&r->cells[2], "f");
	expect_text(t, 0, true,
		    "\x1b[1m    Calls  Excl. %  Function\x1b[0m\n"
		    "1,234,567     \x1b[31m45.3\x1b[39m  main\n"
		    "      999      \x1b[33m1.0\x1b[39m  compute\n"
		    "        -        -  idle\n"
		    "\x1b[1m        -      0.5  *f\x1b[0m\n");
	plumb_table_free(t);
}

Test(output, text_makes_strings_terminal_safe)
{
	plumb_table *t = named_table("flat");
	add_u64_row(t, PLUMB_ROW_NORMAL, 0, 1, "a\tb\x1b[31m\xff" "c\xc2\x9b");
	expect_text(t, 0, false, "Excl.  Name\n    1  a?b?[31m\xef\xbf\xbd" "c?\n");
	plumb_table_free(t);
}

Test(output, text_write_error_is_reported)
{
	FILE *f = fopen("/dev/full", "w");
	cr_assert_not_null(f);
	plumb_table *t = flat_table();
	plumb_error err = { 0 };
	cr_expect_eq(plumb_table_write_text(t, f, NULL, &err), -1);
	cr_expect_eq(err.code, PLUMB_ERR_IO);
	clearerr(f);
	plumb_error_clear(&err);
	cr_expect_eq(plumb_table_write_csv(t, f, &err), -1);
	cr_expect_eq(err.code, PLUMB_ERR_IO);
	clearerr(f);
	plumb_error_clear(&err);
	cr_expect_eq(plumb_table_write_json(t, f, &err), -1);
	cr_expect_eq(err.code, PLUMB_ERR_IO);
	cr_expect_neq(err.message[0], '\0');
	fclose(f);
	plumb_table_free(t);
}

/* ---- CSV -------------------------------------------------------------- */

Test(output, csv_flat_numbers_unformatted)
{
	plumb_table *t = flat_table();
	char *got = render(t, 1, NULL);
	cr_expect_str_eq(got,
			 "calls,excl_pct,function\n"
			 "1234567,45.2600,main\n"
			 "999,1.0000,compute\n"
			 ",,idle\n");
	free(got);
	plumb_table_free(t);
}

Test(output, csv_quotes_fields)
{
	plumb_table *t = named_table("flat");
	add_u64_row(t, PLUMB_ROW_NORMAL, 0, 1, "a,b");
	add_u64_row(t, PLUMB_ROW_NORMAL, 0, 2, "say \"hi\"");
	add_u64_row(t, PLUMB_ROW_NORMAL, 0, 3, "line\nbreak\r");
	add_u64_row(t, PLUMB_ROW_NORMAL, 0, 4, "");
	plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, 0);
	cr_assert_not_null(r);
	char *got = render(t, 1, NULL);
	cr_expect_str_eq(got,
			 "excl,name\n"
			 "1,\"a,b\"\n"
			 "2,\"say \"\"hi\"\"\"\n"
			 "3,\"line\nbreak\r\"\n"
			 "4,\"\"\n"
			 ",\n");
	free(got);
	plumb_table_free(t);
}

Test(output, csv_butterfly_has_depth_and_kind)
{
	plumb_table *t = named_table("callers-callees");
	add_u64_row(t, PLUMB_ROW_CALLER, 1, 10, "main");
	add_u64_row(t, PLUMB_ROW_FOCUS, 0, 10, "foo");
	add_u64_row(t, PLUMB_ROW_CALLEE, 1, 4, "bar");
	cr_assert_not_null(plumb_table_add_row(t, PLUMB_ROW_SEPARATOR, 0));
	add_u64_row(t, PLUMB_ROW_FOCUS, 0, 4, "bar");
	char *got = render(t, 1, NULL);
	cr_expect_str_eq(got,
			 "depth,kind,excl,name\n"
			 "1,caller,10,main\n"
			 "0,focus,10,foo\n"
			 "1,callee,4,bar\n"
			 "0,focus,4,bar\n");
	free(got);
	plumb_table_free(t);
}

Test(output, csv_lone_empty_field_is_not_a_blank_line)
{
	plumb_table *t = plumb_table_new("x", NULL);
	cr_assert_not_null(t);
	cr_assert_eq(plumb_table_add_column(t, "name", "Name", PLUMB_CELL_STR, -1, true), 0);
	cr_assert_not_null(plumb_table_add_row(t, PLUMB_ROW_NORMAL, 0));
	char *got = render(t, 1, NULL);
	cr_expect_str_eq(got, "name\n\"\"\n");
	free(got);
	plumb_table_free(t);
}

/* ---- JSON ------------------------------------------------------------- */

Test(output, json_flat_exact)
{
	plumb_table *t = flat_table();
	cr_assert_eq(plumb_table_add_note(t, "estimates"), 0);
	plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, 0);
	cr_assert_not_null(r);
	plumb_cell_u64(&r->cells[0], UINT64_MAX);
	plumb_cell_pct(&r->cells[1], 100.0);
	char *got = render(t, 2, NULL);
	cr_expect_str_eq(got,
		"{\n"
		"  \"format\": \"plumb-report\",\n"
		"  \"version\": 2,\n"
		"  \"view\": \"flat\",\n"
		"  \"title\": null,\n"
		"  \"events\": null,\n"
		"  \"totals\": null,\n"
		"  \"columns\": [\n"
		"    {\"key\": \"calls\", \"title\": \"Calls\", \"type\": \"count\", \"event\": 0},\n"
		"    {\"key\": \"excl_pct\", \"title\": \"Excl. %\", \"type\": \"percent\", \"event\": 0},\n"
		"    {\"key\": \"function\", \"title\": \"Function\", \"type\": \"string\", \"event\": null}\n"
		"  ],\n"
		"  \"rows\": [\n"
		"    {\"depth\": 0, \"kind\": \"normal\", \"cells\": {\"calls\": 1234567, \"excl_pct\": 45.26, \"function\": \"main\"}},\n"
		"    {\"depth\": 0, \"kind\": \"normal\", \"cells\": {\"calls\": 999, \"excl_pct\": 1.0, \"function\": \"compute\"}},\n"
		"    {\"depth\": 0, \"kind\": \"normal\", \"cells\": {\"calls\": null, \"excl_pct\": null, \"function\": \"idle\"}},\n"
		"    {\"depth\": 0, \"kind\": \"normal\", \"cells\": {\"calls\": 18446744073709551615, \"excl_pct\": 100.0, \"function\": null}}\n"
		"  ],\n"
		"  \"notes\": [\n"
		"    \"estimates\"\n"
		"  ],\n"
		"  \"functions\": null,\n"
		"  \"cycles\": null\n"
		"}\n");
	cr_expect_eq(python_check(got, "d['rows'][3]['cells']['calls'] == 18446744073709551615"
				  " and d['notes'] == ['estimates']"), 0);
	free(got);
	plumb_table_free(t);
}

Test(output, json_empty_table)
{
	plumb_table *t = plumb_table_new("flat", "T");
	cr_assert_not_null(t);
	char *got = render(t, 2, NULL);
	cr_expect_str_eq(got,
			 "{\n  \"format\": \"plumb-report\",\n  \"version\": 2,\n  \"view\": \"flat\",\n"
			 "  \"title\": \"T\",\n  \"events\": null,\n  \"totals\": null,\n"
			 "  \"columns\": [],\n  \"rows\": [],\n  \"notes\": [],\n"
			 "  \"functions\": null,\n  \"cycles\": null\n}\n");
	cr_expect_eq(python_check(got, "d['rows'] == [] and d['title'] == 'T'"), 0);
	free(got);
	plumb_table_free(t);
}

Test(output, json_string_escapes)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	plumb_json_write_string(f, "q\" b\\ \n\t\r\b\f \x01\x1f \x7f é €");
	fputc(' ', f);
	/* A lone continuation byte, a cut sequence, an overlong '/', a surrogate. */
	plumb_json_write_string(f, "a\x80" "b\xe2\x82" "c\xc0\xaf" "d\xed\xa0\x80" "e\xff");
	fputc(' ', f);
	plumb_json_write_string(f, NULL);
	fclose(f);
	cr_expect_str_eq(buf,
		"\"q\\\" b\\\\ \\n\\t\\r\\b\\f \\u0001\\u001f \x7f é €\" "
		"\"a\\ufffdb\\ufffd\\ufffdc\\ufffd\\ufffdd\\ufffd\\ufffd\\ufffde\\ufffd\" null");
	free(buf);
}

Test(output, json_parses_with_hostile_strings)
{
	plumb_table *t = plumb_table_new("fl\"at", "ti\ntle\xff");
	cr_assert_not_null(t);
	cr_assert_eq(plumb_table_add_column(t, "na\x01me", "N", PLUMB_CELL_STR, -1, true), 0);
	cr_assert_eq(plumb_table_add_column(t, "pct", "%", PLUMB_CELL_PCT, 2, false), 1);
	cr_assert_eq(plumb_table_add_column(t, "line", "Line", PLUMB_CELL_INT, -1, false), 2);
	plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_CALLEE, 3);
	cr_assert_not_null(r);
	plumb_cell_str(&r->cells[0], plumb_table_strdup(t, "x\xc3(\x1b\xf0\x9f\x94\xa5"));
	plumb_cell_pct(&r->cells[1], 12.34567);
	plumb_cell_int(&r->cells[2], -42);
	r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, 0);
	cr_assert_not_null(r);
	plumb_cell_pct(&r->cells[1], NAN);
	cr_assert_not_null(plumb_table_add_row(t, PLUMB_ROW_SEPARATOR, 0));
	cr_assert_eq(plumb_table_add_note(t, "tab\there"), 0);
	char *got = render(t, 2, NULL);
	cr_expect_eq(python_check(got,
		"d['view'] == 'fl\"at' and d['title'] == 'ti\\ntle\\ufffd'"
		" and len(d['rows']) == 2 and d['rows'][0]['kind'] == 'callee'"
		" and d['rows'][0]['depth'] == 3"
		" and d['rows'][0]['cells']['na\\x01me'] == 'x\\ufffd(\\x1b\\U0001f525'"
		" and d['rows'][0]['cells']['pct'] == 12.3457"
		" and d['rows'][0]['cells']['line'] == -42"
		" and d['rows'][1]['cells']['pct'] is None"
		" and d['columns'][1]['event'] == 2 and d['columns'][2]['type'] == 'integer'"
		" and d['notes'] == ['tab\\there']"), 0, "output: %s", got);
	free(got);
	plumb_table_free(t);
}
