/* plumb annotate: callgrind_annotate's cells, ranges, table, trees and
 * annotated source, on hand-built call-graph profiles. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "plumb/annotate.h"
#include "plumb/symbols.h"

/* ---- helpers ---------------------------------------------------------- */

/* The view, then the writer, as plumb annotate runs them. */
static int annotate_to(const plumb_profile *p, const plumb_annotate_opts *o, FILE *f,
		       plumb_error *err)
{
	plumb_annotation *a = NULL;
	int rc = plumb_annotate(p, o, &a, err);
	if (rc == 0)
		rc = plumb_annotation_write(a, f, err);
	plumb_annotation_free(a);
	return rc;
}

static char *cell(uint64_t v, uint64_t total, bool percs, size_t width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	plumb_ann_write_cell(f, v, total, percs, width);
	fclose(f);
	return buf;
}

static void expect_cell(uint64_t v, uint64_t total, bool percs, size_t width, const char *want)
{
	char *got = cell(v, total, percs, width);
	cr_expect_str_eq(got, want, "cell(%llu, %llu): [%s], want [%s]", (unsigned long long)v,
			 (unsigned long long)total, got, want);
	free(got);
}

/* The sources live in a temporary directory; file names in the profile are
 * absolute paths into it. */
static char dir[64];

static void write_source(const char *name, int lines)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	for (int i = 1; i <= lines; i++)
		fprintf(f, "line %d\n", i);
	fclose(f);
}

static plumb_id frame(plumb_profile *p, plumb_id fn, plumb_id file, uint32_t line)
{
	return plumb_frame_intern(p, fn, file, line, 0);
}

static void self(plumb_profile *p, plumb_id fr, uint64_t v)
{
	plumb_error err;
	cr_assert_eq(plumb_cg_add_self(p, 0, fr, &v, &err), 0, "%s", err.message);
}

static void call(plumb_profile *p, plumb_id from, plumb_id to, uint64_t calls, uint64_t incl)
{
	plumb_error err;
	cr_assert_geq(plumb_arc_add(p, 0, from, to, calls, &incl, &err), 0, "%s", err.message);
}

/* main (a.c) calls work twice from line 11; work (a.c) calls leaf (b.c)
 * 4000 times from line 21. Self: main 100 + 50, work 600, leaf 200 at
 * line 5 of a 3-line b.c. Total 950. */
static plumb_profile *sample_profile(void)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	char a[128], b[128];
	snprintf(a, sizeof a, "%s/a.c", dir);
	snprintf(b, sizeof b, "%s/b.c", dir);
	cr_assert_geq(plumb_event_add(p, "Ir", NULL, NULL, &err), 0);
	plumb_part_default(p);
	plumb_id mod = plumb_module_intern(p, "/bin/prog", NULL);
	plumb_id fa = plumb_file_intern(p, a), fb = plumb_file_intern(p, b);
	plumb_id main_fn = plumb_function_intern(p, "main", NULL, mod, fa, 9);
	plumb_id work = plumb_function_intern(p, "work", NULL, mod, fa, 19);
	plumb_id leaf = plumb_function_intern(p, "leaf", NULL, mod, fb, 5);
	self(p, frame(p, main_fn, fa, 10), 100);
	self(p, frame(p, main_fn, fa, 12), 50);
	call(p, frame(p, main_fn, fa, 11), work, 2, 800);
	self(p, frame(p, work, fa, 20), 600);
	call(p, frame(p, work, fa, 21), leaf, 4000, 200);
	self(p, frame(p, leaf, fb, 5), 200);
	cr_assert_eq(plumb_meta_set(p, "creator", "callgrind-3.19.0", &err), 0);
	cr_assert_eq(plumb_meta_set(p, "cmd", " ./prog", &err), 0);
	cr_assert_eq(plumb_meta_set(p, "pid", "42", &err), 0);
	cr_assert_eq(plumb_meta_set(p, "callgrind.part", "1", &err), 0);
	cr_assert_eq(plumb_meta_set(p, "callgrind.summary", "950", &err), 0);
	cr_assert_eq(plumb_meta_set(p, "callgrind.desc", "I1 cache: \nOption: --x\nTrigger: Program termination", &err), 0);
	return p;
}

static void setup(void)
{
	strcpy(dir, "/tmp/plumb-ann-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	write_source("a.c", 30);
	write_source("b.c", 3);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

static char *annotate(const plumb_profile *p, const plumb_annotate_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	plumb_error err = { 0 };
	int rc = annotate_to(p, o, f, &err);
	fclose(f);
	cr_assert_eq(rc, 0, "annotate failed: %s", err.message);
	return buf;
}

/* The text between the line that starts with from and the one that starts
 * with to (from's line included). */
static char *section(const char *text, const char *from, const char *to)
{
	const char *a = strstr(text, from);
	cr_assert_not_null(a, "no [%s] in:\n%s", from, text);
	const char *b = to ? strstr(a + 1, to) : NULL;
	size_t n = b ? (size_t)(b - a) : strlen(a);
	return strndup(a, n);
}

/* text with every "@D" replaced by the source directory */
static char *with_dir(const char *text)
{
	size_t n = 0, dl = strlen(dir);
	for (const char *t = strstr(text, "@D"); t; t = strstr(t + 2, "@D"))
		n++;
	char *s = malloc(strlen(text) + n * dl + 1), *o = s;
	cr_assert_not_null(s);
	for (const char *t = text; *t;) {
		if (t[0] == '@' && t[1] == 'D') {
			memcpy(o, dir, dl);
			o += dl;
			t += 2;
		} else
			*o++ = *t++;
	}
	*o = '\0';
	return s;
}

#define FANCY "--------------------------------------------------------------------------------\n"

/* ---- cells ------------------------------------------------------------ */

Test(annotate, cell_commas_and_percentages)
{
	expect_cell(31544, 197473, true, 15, "31,544 (15.97%) ");
	expect_cell(197473, 197473, true, 16, "197,473 (100.0%) ");
	expect_cell(287760, 197473, true, 10, "287,760 (145.7%) "); /* overflows its column */
	expect_cell(5, 1000, true, 12, "  5 ( 0.50%) ");
	expect_cell(999, 1000, true, 12, "999 (99.90%) ");
	expect_cell(99996, 100000, true, 0, "99,996 (100.0%) "); /* 99.996 rounds past 99.99 */
	expect_cell(1234567, 0, true, 0, "1,234,567 ( 0.00%) ");
	expect_cell(1234567, 10, false, 12, "   1,234,567 ");
}

Test(annotate, no_value_is_a_dot_without_percentage)
{
	expect_cell(PLUMB_ANN_NONE, 100, true, 12, "  .          ");
	expect_cell(PLUMB_ANN_NONE, 100, false, 3, "  . ");
}

Test(annotate, written_zero_is_0_without_percentage)
{
	expect_cell(0, 100, true, 12, "  0          ");
	expect_cell(0, 100, false, 3, "  0 ");
	cr_expect_eq(plumb_ann_cell_width(0, true), 1 + 9);
	cr_expect_eq(plumb_ann_cell_width(0, false), 1);
}

Test(annotate, cell_widths)
{
	cr_expect_eq(plumb_ann_cell_width(PLUMB_ANN_NONE, true), 0);
	cr_expect_eq(plumb_ann_cell_width(7, false), 1);
	cr_expect_eq(plumb_ann_cell_width(999, false), 3);
	cr_expect_eq(plumb_ann_cell_width(1000, false), 5);
	cr_expect_eq(plumb_ann_cell_width(1000000, true), 9 + 9);
}

/* ---- ranges ----------------------------------------------------------- */

Test(annotate, ranges_join_and_start_at_line_one)
{
	uint32_t lines[] = { 3, 20, 36, 60 };
	uint64_t out[8];
	size_t n = plumb_ann_ranges(lines, 4, 8, out);
	/* 3: 1..11; 20 and 36 touch (20 + 16 >= 36): 12..44; 60: 52..68 */
	cr_assert_eq(n, 3);
	uint64_t want[] = { 1, 11, 12, 44, 52, 68 };
	for (size_t i = 0; i < 6; i++)
		cr_expect_eq(out[i], want[i], "out[%zu] = %llu", i, (unsigned long long)out[i]);
	uint32_t far[] = { 10, 27 };
	cr_assert_eq(plumb_ann_ranges(far, 2, 8, out), 2); /* 10 + 16 < 27 */
	cr_expect_eq(out[1], 18);
	cr_expect_eq(out[2], 19);
	cr_assert_eq(plumb_ann_ranges(far, 2, 0, out), 2);
	cr_expect(out[0] == 10 && out[1] == 10 && out[2] == 27 && out[3] == 27);
}

/* ---- header, totals and the function table ----------------------------- */

Test(annotate, header_totals_and_table, .init = setup, .fini = teardown)
{
	plumb_profile *p = sample_profile();
	plumb_annotate_opts o;
	plumb_annotate_opts_init(&o);
	o.profile_path = "callgrind.out.42";
	o.auto_annotate = false;
	char *got = annotate(p, &o);
	char *want = with_dir(
		FANCY
		"Profile data file 'callgrind.out.42' (creator: callgrind-3.19.0)\n"
		FANCY
		"I1 cache: \n"
		"Trigger: Program termination\n"
		"Profiled target:  ./prog (PID 42, part 1)\n"
		"Events recorded:  Ir\n"
		"Events shown:     Ir\n"
		"Event sort order: Ir\n"
		"Thresholds:       99\n"
		"Include dirs:     \n"
		"User annotated:   \n"
		"Auto-annotation:  off\n"
		"\n"
		FANCY
		"Ir           \n"
		FANCY
		"950 (100.0%)  PROGRAM TOTALS\n"
		"\n"
		FANCY
		"Ir            file:function\n"
		FANCY
		"600 (63.16%)  @D/a.c:work [/bin/prog]\n"
		"200 (21.05%)  @D/b.c:leaf [/bin/prog]\n"
		"150 (15.79%)  @D/a.c:main [/bin/prog]\n"
		"\n");
	cr_expect_str_eq(got, want);
	free(got);
	free(want);
	plumb_profile_free(p);
}

Test(annotate, threshold_is_cumulative, .init = setup, .fini = teardown)
{
	plumb_profile *p = sample_profile();
	plumb_annotate_opts o;
	plumb_annotate_opts_init(&o);
	o.auto_annotate = false;
	o.threshold = 80; /* work (63%) is not enough; work + leaf (84%) is */
	o.threshold_text = "80";
	char *got = annotate(p, &o);
	cr_expect(strstr(got, "/b.c:leaf") != NULL);
	cr_expect(strstr(got, "/a.c:main") == NULL, "main listed past the threshold:\n%s", got);
	cr_expect(strstr(got, "Thresholds:       80\n") != NULL);
	free(got);
	o.threshold = 50;
	got = annotate(p, &o);
	cr_expect(strstr(got, "/a.c:work") != NULL);
	cr_expect(strstr(got, "/b.c:leaf") == NULL);
	free(got);
	plumb_profile_free(p);
}

Test(annotate, inclusive_sorts_by_inclusive, .init = setup, .fini = teardown)
{
	plumb_profile *p = sample_profile();
	plumb_annotate_opts o;
	plumb_annotate_opts_init(&o);
	o.auto_annotate = false;
	o.inclusive = true;
	char *got = annotate(p, &o);
	char *table = section(got, "Ir            file:function", NULL);
	char *want = with_dir("Ir            file:function\n" FANCY
			      "950 (100.0%)  @D/a.c:main [/bin/prog]\n"
			      "800 (84.21%)  @D/a.c:work [/bin/prog]\n"
			      "200 (21.05%)  @D/b.c:leaf [/bin/prog]\n\n");
	cr_expect_str_eq(table, want);
	free(want);
	free(table);
	free(got);
	plumb_profile_free(p);
}

Test(annotate, tree_both, .init = setup, .fini = teardown)
{
	plumb_profile *p = sample_profile();
	plumb_annotate_opts o;
	plumb_annotate_opts_init(&o);
	o.auto_annotate = false;
	o.tree = PLUMB_ANN_TREE_BOTH;
	o.threshold = 70;
	char *got = annotate(p, &o);
	char *table = section(got, "Ir            file:function", NULL);
	/* leaf's caller line costs 200: the arc's cost, not work's */
	char *want = with_dir("Ir            file:function\n" FANCY
			"\n"
			"800 (84.21%)  < @D/a.c:main (2x) [/bin/prog]\n"
			"600 (63.16%)  *  @D/a.c:work [/bin/prog]\n"
			"200 (21.05%)  >   @D/b.c:leaf (4,000x) [/bin/prog]\n"
			"\n"
			"200 (21.05%)  < @D/a.c:work (4,000x) [/bin/prog]\n"
			"200 (21.05%)  *  @D/b.c:leaf [/bin/prog]\n"
			"\n");
	cr_expect_str_eq(table, want);
	free(want);
	free(table);
	free(got);
	plumb_profile_free(p);
}

Test(annotate, show_sort_and_unknown_events, .init = setup, .fini = teardown)
{
	plumb_profile *p = sample_profile();
	plumb_annotate_opts o;
	plumb_annotate_opts_init(&o);
	o.show = "Ir,Ir";
	o.sort = "Ir:60";
	o.auto_annotate = false;
	char *got = annotate(p, &o);
	cr_expect(strstr(got, "Events shown:     Ir Ir\n") != NULL);
	cr_expect(strstr(got, "Thresholds:       60\n") != NULL);
	cr_expect(strstr(got, "600 (63.16%) 600 (63.16%)  ") != NULL, "%s", got);
	cr_expect(strstr(got, "b.c:leaf") == NULL, "the per-event threshold 60 stops after work");
	free(got);

	plumb_error err = { 0 };
	FILE *f = fopen("/dev/null", "w");
	o.show = "Dr";
	cr_expect_eq(annotate_to(p, &o, f, &err), -1);
	cr_expect_eq(err.code, PLUMB_ERR_USAGE);
	cr_expect(strstr(err.message, "'Dr'") != NULL, "%s", err.message);
	o.show = NULL;
	o.sort = "Ir:150";
	cr_expect_eq(annotate_to(p, &o, f, &err), -1);
	cr_expect_eq(err.code, PLUMB_ERR_USAGE);
	o.sort = NULL;
	const char *missing[] = { "no-such-file.c" };
	o.user_files = missing;
	o.n_user = 1;
	cr_expect_eq(annotate_to(p, &o, f, &err), -1);
	cr_expect_eq(err.code, PLUMB_ERR_IO);
	fclose(f);
	plumb_profile_free(p);
}

/* ---- annotated source -------------------------------------------------- */

Test(annotate, source_ranges_calls_and_bogus_lines, .init = setup, .fini = teardown)
{
	plumb_profile *p = sample_profile();
	plumb_annotate_opts o;
	plumb_annotate_opts_init(&o);
	o.context = 2;
	char *got = annotate(p, &o);
	char *a = section(got, FANCY "-- Auto-annotated source", NULL);
	char *want = with_dir(
		FANCY "-- Auto-annotated source: @D/a.c\n" FANCY
		"Ir           \n\n"
		"-- line 8 ----------------------------------------\n"
		"  .           line 8\n"
		"  .           line 9\n"
		"100 (10.53%)  line 10\n"
		"  .           line 11\n"
		"800 (84.21%)  => @D/a.c:work (2x)\n"
		" 50 ( 5.26%)  line 12\n"
		"  .           line 13\n"
		"  .           line 14\n"
		"-- line 14 ----------------------------------------\n"
		"-- line 18 ----------------------------------------\n"
		"  .           line 18\n"
		"  .           line 19\n"
		"600 (63.16%)  line 20\n"
		"  .           line 21\n"
		"200 (21.05%)  => @D/b.c:leaf (4,000x)\n"
		"  .           line 22\n"
		"-- line 22 ----------------------------------------\n"
		"\n"
		FANCY "-- Auto-annotated source: @D/b.c\n" FANCY
		"Ir           \n\n"
		"-- line 3 ----------------------------------------\n"
		"  .           line 3\n"
		"200 (21.05%)  <bogus line 5>\n"
		"\n"
		"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
		"@@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@\n"
		"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
		"@@\n"
		"@@ Information recorded about lines past the end of '@D/b.c'.\n"
		"@@\n"
		"@@ Probable cause and solution:\n"
		"@@ cause:    not sure, sorry\n"
		"@@\n"
		"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
		"\n"
		FANCY "Ir           \n" FANCY
		"750 (78.95%)  events annotated\n\n");
	cr_expect_str_eq(a, want);
	free(want);
	free(a);
	free(got);
	plumb_profile_free(p);
}

Test(annotate, unidentified_lines_missing_files_and_include_dirs, .init = setup, .fini = teardown)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "Ir", NULL, NULL, &err), 0);
	plumb_part_default(p);
	plumb_id fa = plumb_file_intern(p, "a.c"), fm = plumb_file_intern(p, "missing.c");
	plumb_id f = plumb_function_intern(p, "f", NULL, PLUMB_NONE, fa, 0);
	plumb_id g = plumb_function_intern(p, "g", NULL, PLUMB_NONE, fm, 0);
	self(p, frame(p, f, fa, 0), 7);
	self(p, frame(p, f, fa, 1), 3);
	self(p, frame(p, g, fm, 4), 10);
	plumb_annotate_opts o;
	plumb_annotate_opts_init(&o);
	const char *inc[] = { dir };
	o.include_dirs = inc;
	o.n_include = 1;
	o.context = 0;
	char *got = annotate(p, &o);
	char *want = with_dir(
		"Include dirs:     @D/\n"
		"User annotated:   \n"
		"Auto-annotation:  on\n"
		"\n"
		FANCY "Ir          \n" FANCY "20 (100.0%)  PROGRAM TOTALS (calculated)\n\n"
		FANCY "Ir           file:function\n" FANCY
		"10 (50.00%)  a.c:f\n"
		"10 (50.00%)  missing.c:g\n"
		"\n"
		FANCY "-- Auto-annotated source: @D/ + a.c\n" FANCY
		"Ir         \n\n"
		"3 (15.00%)  line 1\n"
		"-- line 1 ----------------------------------------\n"
		"\n"
		"7 (35.00%)  <counts for unidentified lines in a.c>\n\n"
		FANCY "The following files chosen for auto-annotation could not be found:\n" FANCY
		"  missing.c\n\n"
		FANCY "Ir         \n" FANCY "3 (15.00%)  events annotated\n\n");
	char *tail = section(got, "Include dirs:", NULL);
	cr_expect_str_eq(tail, want);
	free(tail);
	free(want);
	free(got);
	plumb_profile_free(p);
}

Test(annotate, source_newer_than_profile_is_flagged, .init = setup, .fini = teardown)
{
	plumb_profile *p = sample_profile();
	char prof[128], a[128];
	snprintf(prof, sizeof prof, "%s/callgrind.out", dir);
	snprintf(a, sizeof a, "%s/a.c", dir);
	FILE *f = fopen(prof, "w");
	cr_assert_not_null(f);
	fclose(f);
	/* the profile an hour older than the source */
	struct timespec old[2] = { { time(NULL) - 3600, 0 }, { time(NULL) - 3600, 0 } };
	cr_assert_eq(utimensat(AT_FDCWD, prof, old, 0), 0);
	plumb_annotate_opts o;
	plumb_annotate_opts_init(&o);
	o.profile_path = prof;
	char *got = annotate(p, &o);
	char *want = NULL;
	cr_assert_geq(asprintf(&want, "@ Source file '%s' is more recent than input file '%s'.\n"
				      "@ Annotations may not be correct.\n", a, prof), 0);
	cr_expect(strstr(got, want) != NULL, "no warning for %s in:\n%s", a, got);
	free(want);
	free(got);
	/* a profile newer than the sources: no warning */
	struct timespec now[2] = { { time(NULL) + 3600, 0 }, { time(NULL) + 3600, 0 } };
	cr_assert_eq(utimensat(AT_FDCWD, prof, now, 0), 0);
	got = annotate(p, &o);
	cr_expect(strstr(got, "is more recent than") == NULL);
	free(got);
	plumb_profile_free(p);
}

Test(annotate, user_file_is_annotated_without_auto, .init = setup, .fini = teardown)
{
	plumb_profile *p = sample_profile();
	char b[128];
	snprintf(b, sizeof b, "%s/b.c", dir);
	const char *user[] = { b };
	plumb_annotate_opts o;
	plumb_annotate_opts_init(&o);
	o.auto_annotate = false;
	o.user_files = user;
	o.n_user = 1;
	char *got = annotate(p, &o);
	char *want = with_dir("User annotated:   @D/b.c\n");
	cr_expect(strstr(got, want) != NULL, "%s", got);
	free(want);
	want = with_dir("-- User-annotated source: @D/b.c\n");
	cr_expect(strstr(got, want) != NULL, "%s", got);
	cr_expect(strstr(got, "a.c\n" FANCY) == NULL, "a.c annotated without --auto");
	free(want);
	free(got);
	plumb_profile_free(p);
}

/* ---- ELF symbols and disassembly (on this test program itself) -------- */

Test(annotate, elf_bias_from_a_function_entry)
{
	plumb_error err = { 0 };
	plumb_elf *e = plumb_elf_open("/proc/self/exe", &err);
	cr_assert_not_null(e, "%s", err.message);
	uint64_t entry = (uint64_t)(uintptr_t)&plumb_ann_cell_width;
	plumb_elf_function fn;
	cr_assert_eq(plumb_elf_find_function(e, "plumb_ann_cell_width", entry, &fn, &err), 0, "%s",
		     err.message);
	cr_expect_eq(fn.value + fn.bias, entry);
	cr_expect_eq(fn.bias % 4096, 0);
	cr_expect_gt(fn.size, 0);
	/* an entry one byte off gives a bias that is not page-aligned */
	cr_expect_eq(plumb_elf_find_function(e, "plumb_ann_cell_width", entry + 1, &fn, &err), -1);
	cr_expect_eq(err.code, PLUMB_ERR_FORMAT);
	cr_expect_eq(plumb_elf_find_function(e, "no_such_function_here", entry, &fn, &err), -1);

	cr_assert_eq(plumb_elf_find_function(e, "plumb_ann_cell_width", entry, &fn, &err), 0);
	plumb_insn *insn = NULL;
	size_t n = 0;
	cr_assert_eq(plumb_elf_disasm(e, fn.value, fn.size, &insn, &n, &err), 0, "%s", err.message);
	cr_assert_gt(n, 1);
	cr_expect_eq(insn[0].address, fn.value);
	uint64_t bytes = 0;
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(insn[i].address, fn.value + bytes, "instructions are contiguous");
		cr_expect_neq(insn[i].text[0], '\0');
		bytes += insn[i].size;
	}
	cr_expect_leq(bytes, fn.size);
	free(insn);
	plumb_elf_close(e);

	cr_expect_null(plumb_elf_open("/nonexistent/object", &err));
	cr_expect_eq(err.code, PLUMB_ERR_IO);
	cr_expect_null(plumb_elf_open("/proc/self/status", &err));
	cr_expect_eq(err.code, PLUMB_ERR_FORMAT);
}

Test(annotate, derived_events_only_when_asked)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "Ir", NULL, NULL, &err), 0);
	cr_assert_geq(plumb_event_add(p, "Dr", NULL, NULL, &err), 0);
	cr_assert_geq(plumb_event_add_derived(p, "Sum", NULL, "Ir + 2 * Dr", &err), 0, "%s", err.message);
	plumb_part_default(p);
	plumb_id f = plumb_function_intern(p, "f", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	uint64_t v[3] = { 10, 3, 0 };
	cr_assert_eq(plumb_cg_add_self(p, 0, plumb_frame_intern(p, f, PLUMB_NONE, 1, 0), v, &err), 0);
	cr_assert_eq(plumb_profile_compute_derived(p, &err), 0, "%s", err.message);
	plumb_annotate_opts o;
	plumb_annotate_opts_init(&o);
	o.auto_annotate = false;
	char *got = annotate(p, &o);
	cr_expect(strstr(got, "Events recorded:  Ir Dr\nEvents shown:     Ir Dr\n") != NULL, "%s", got);
	free(got);
	o.show = "Sum,Ir";
	o.sort = "Sum";
	got = annotate(p, &o);
	cr_expect(strstr(got, "Events shown:     Sum Ir\nEvent sort order: Sum\n") != NULL, "%s", got);
	cr_expect(strstr(got, "16 (100.0%) 10 (100.0%)  ???:f\n") != NULL, "%s", got);
	free(got);
	plumb_profile_free(p);
}

/* main calls r once; r calls itself 10 times. Callgrind's arc r -> r
 * counts every level again (5,000 here); plumb shows r's inclusive. */
Test(annotate, recursive_calls_capped_at_inclusive)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "Ir", NULL, NULL, &err), 0);
	plumb_part_default(p);
	plumb_id fa = plumb_file_intern(p, "r.c");
	plumb_id m = plumb_function_intern(p, "main", NULL, PLUMB_NONE, fa, 0);
	plumb_id r = plumb_function_intern(p, "r", NULL, PLUMB_NONE, fa, 0);
	self(p, frame(p, m, fa, 1), 10);
	call(p, frame(p, m, fa, 2), r, 1, 100);
	self(p, frame(p, r, fa, 5), 100);
	call(p, frame(p, r, fa, 6), r, 10, 5000);
	plumb_annotate_opts o;
	plumb_annotate_opts_init(&o);
	o.auto_annotate = false;
	o.inclusive = true;
	o.tree = PLUMB_ANN_TREE_BOTH;
	char *got = annotate(p, &o);
	char *table = section(got, "Ir            file:function", NULL);
	cr_expect_str_eq(table, "Ir            file:function\n" FANCY
				"\n"
				"110 (100.0%)  *  r.c:main\n"
				"100 (90.91%)  >   r.c:r (1x)\n"
				"\n"
				"100 (90.91%)  < r.c:main (1x)\n"
				"100 (90.91%)  < r.c:r (10x)\n"
				"100 (90.91%)  *  r.c:r\n"
				"100 (90.91%)  >   r.c:r (10x)\n"
				"\n");
	free(table);
	free(got);
	plumb_profile_free(p);
}

/* A 0 that a cost line wrote is shown as 0, a value never written as ".",
 * as callgrind_annotate shows them; the written 0 sorts above no value. */
Test(annotate, written_zeros_are_0_and_missing_values_dots, .init = setup, .fini = teardown)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	char a[128];
	snprintf(a, sizeof a, "%s/a.c", dir);
	cr_assert_geq(plumb_event_add(p, "Ir", NULL, NULL, &err), 0);
	cr_assert_geq(plumb_event_add(p, "Dr", NULL, NULL, &err), 0);
	plumb_part_default(p);
	plumb_id fa = plumb_file_intern(p, a);
	plumb_id x = plumb_function_intern(p, "x", NULL, PLUMB_NONE, fa, 1);
	plumb_id y = plumb_function_intern(p, "y", NULL, PLUMB_NONE, fa, 2);
	uint64_t c[2] = { 100, 0 };
	plumb_id fx = frame(p, x, fa, 1), fy = frame(p, y, fa, 2);
	cr_assert_eq(plumb_cg_add_self(p, 0, fy, c, &err), 0);
	cr_assert_eq(plumb_cg_add_self(p, 0, fx, c, &err), 0);
	cr_assert_eq(plumb_cg_note_zeros(p, 0, fy, 1u << 1, &err), 0); /* y wrote Dr 0 */
	plumb_annotate_opts o;
	plumb_annotate_opts_init(&o);
	o.threshold = 100;
	o.show_percs = false;
	char *out = annotate(p, &o);
	char *table = section(out, "Ir  Dr  file:function", "\n\n");
	char *want = with_dir("Ir  Dr  file:function\n" FANCY "100  0  @D/a.c:y\n100  .  @D/a.c:x");
	cr_expect_str_eq(table, want);
	char *lines = section(out, "100  .  line 1\n", NULL);
	cr_expect(strstr(lines, "100  .  line 1\n100  0  line 2\n") == lines, "%s", lines);
	free(lines);
	free(want);
	free(table);
	free(out);
	plumb_profile_free(p);
}
