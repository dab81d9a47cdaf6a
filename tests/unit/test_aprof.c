/* aprof reports: every version and layout of tests/data/aprof read with
 * every field of every point equal to the file's (against an independent
 * reading, aprof_oracle.c); written back as version 6 and read again with
 * nothing lost; two runs merged as aprof merges them; bad input with its
 * FILE:LINE message; detection against every other file of tests/data.
 * Run from the top of the tree. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aprof_oracle.h"
#include "plumb/formats.h"

#define DATA "tests/data/aprof/"

static const char *const good[] = {
	"v0_old_2011.aprof", "v1.aprof", "v2_sample.aprof", "v3.aprof", "v4.aprof", "v5.aprof",
	"v5_rvms_ratio.aprof", "v6_rvms_0.1.2.aprof", "sha_4242_0_4.aprof", "app_100_1_4.aprof",
	"cct_77_0_4.aprof", "dev_extras.aprof", "merge/run_1001_0_4.aprof",
	"merge/run_1002_0_4.aprof",
};
#define NGOOD (sizeof good / sizeof *good)

static char warnings[8192];
static int nwarnings;

static void collect(void *ctx, const char *msg)
{
	(void)ctx;
	size_t n = strlen(warnings);
	snprintf(warnings + n, sizeof warnings - n, "%s\n", msg);
	nwarnings++;
}

static plumb_profile *load_path(const char *path)
{
	warnings[0] = '\0';
	nwarnings = 0;
	plumb_read_opts o = { .warn = collect };
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	plumb_format fmt;
	cr_assert_eq(plumb_read_file(p, path, &o, &fmt, &err), 0, "%s: %s", path, err.message);
	cr_assert_eq(fmt, PLUMB_FMT_APROF, "%s detected as %s", path, plumb_format_name(fmt));
	return p;
}

static plumb_profile *load(const char *name)
{
	char path[256];
	snprintf(path, sizeof path, DATA "%s", name);
	return load_path(path);
}

static plumb_id function_named(const plumb_profile *p, const char *name)
{
	for (size_t i = 0; i < p->functions.n; i++)
		if (strcmp(plumb_str(p, p->functions.v[i].name), name) == 0)
			return (plumb_id)i;
	cr_assert_fail("no function %s", name);
	return PLUMB_NONE;
}

static const plumb_point *point_of(const plumb_profile *p, const char *fn, uint64_t input)
{
	plumb_id f = function_named(p, fn);
	for (size_t i = 0; i < p->points.n; i++)
		if (p->points.v[i].function == f && p->points.v[i].input == input)
			return &p->points.v[i];
	cr_assert_fail("no point %s %" PRIu64, fn, input);
	return NULL;
}

/* ---- every field of every point ------------------------------------------ */

Test(aprof, every_point_of_every_version_reads_as_the_file_says)
{
	for (size_t i = 0; i < NGOOD; i++) {
		char path[256];
		snprintf(path, sizeof path, DATA "%s", good[i]);
		plumb_profile *p = load_path(path);
		ref_report want;
		ref_read(path, &want);
		cr_expect_gt(want.n, 0, "%s: no points in the file?", path);
		expect_points(p, &want, path);
		cr_expect_eq(p->points_info.version, want.version, "%s: version", path);
		cr_expect_eq(p->points_info.total_cost, want.total, "%s: k", path);
		cr_expect_eq(p->parts.n, 1, "%s: one part", path);
		ref_free(&want);
		plumb_profile_free(p);
	}
}

/* Equal points (same routine and input size) merge wherever they are: in
 * one block of a routine's points past the reader's first table sizes, in
 * a second block of the same routine, and in the block of another routine
 * of the same name and object; a point added after reading finds them. */
Test(aprof, equal_points_merge_in_and_across_blocks)
{
	char path[] = "/tmp/plumb-test-aprof-blocks-XXXXXX.aprof";
	int fd = mkstemps(path, 6);
	cr_assert_geq(fd, 0);
	FILE *f = fdopen(fd, "w");
	cr_assert_not_null(f);
	const unsigned inputs = 300;
	fputs("v 6\nr \"big\" \"/bin/x\" 1\n", f);
	for (unsigned round = 0; round < 2; round++) /* each input twice in the block */
		for (unsigned i = 1; i <= inputs; i++)
			fprintf(f, "p 1 %u %u %u %u %u 1 %u %u %u %u %u\n", i * 7, i, i, i, i * i, i, i,
				i, i, i * i);
	fputs("r \"other\" \"/bin/x\" 2\np 2 7 5 5 5 25 1 5 5 5 5 25\n", f);
	for (unsigned i = 1; i <= inputs; i += 3) /* a second block of big */
		fprintf(f, "p 1 %u %u %u %u %u 1 %u %u %u %u %u\n", i * 7, i, i, i, i * i, i, i, i, i,
			i * i);
	fputs("r \"big\" \"/bin/x\" 3\n", f); /* the same function again */
	for (unsigned i = 2; i <= inputs; i += 3)
		fprintf(f, "p 3 %u %u %u %u %u 1 %u %u %u %u %u\n", i * 7, i, i, i, i * i, i, i, i, i,
			i * i);
	cr_assert_eq(fclose(f), 0);
	plumb_profile *p = load_path(path);
	unlink(path);
	cr_expect_eq(p->points.n, inputs + 1, "one point per routine and input size");
	for (unsigned i = 1; i <= inputs; i++) {
		const plumb_point *pt = point_of(p, "big", i * 7);
		uint64_t lines = 2 + (i % 3 != 0);
		cr_expect_eq(pt->calls, lines, "input %u: calls", i * 7);
		cr_expect_eq(pt->sum, lines * i, "input %u: sum", i * 7);
		cr_expect_eq(pt->min, i, "input %u: min", i * 7);
	}
	/* the profile's index of points holds what the reader added */
	plumb_point extra = *point_of(p, "big", 7);
	plumb_error err;
	cr_assert_eq(plumb_point_add(p, &extra, &err), 0, "%s", err.message);
	cr_expect_eq(p->points.n, inputs + 1, "a point added later merges with its equal");
	cr_expect_eq(point_of(p, "big", 7)->calls, 6);
	plumb_profile_free(p);
}

/* Numbers of every length from 1 to 20 digits, at every offset from the
 * end of the line (the reader takes digits 8 at a time where it can). */
Test(aprof, numbers_of_every_length_read_exactly)
{
	char path[] = "/tmp/plumb-test-aprof-digits-XXXXXX.aprof";
	int fd = mkstemps(path, 6);
	cr_assert_geq(fd, 0);
	FILE *f = fdopen(fd, "w");
	cr_assert_not_null(f);
	fputs("v 6\nr \"digits\" \"/bin/x\" 1\n", f);
	uint64_t want[40];
	size_t nwant = 0;
	for (unsigned len = 1; len <= 20; len++) {
		/* len digits: 1, 12, 123, ... wrapping through 9 then 0 */
		uint64_t v = 0;
		for (unsigned i = 0; i < len && v <= (UINT64_MAX - 9) / 10; i++)
			v = v * 10 + (i + 1) % 10;
		if (len == 20)
			v = UINT64_MAX; /* 18446744073709551615, the largest */
		/* the input in the middle of the line, the self sum of squares last */
		fprintf(f, "p 1 %" PRIu64 " 1 1 1 1 1 1 1 1 1 %" PRIu64 "\n", v, v);
		want[nwant++] = v;
	}
	cr_assert_eq(fclose(f), 0);
	plumb_profile *p = load_path(path);
	unlink(path);
	cr_assert_eq(p->points.n, nwant);
	for (size_t i = 0; i < nwant; i++) {
		cr_expect_eq(p->points.v[i].input, want[i], "%zu digits: input", i + 1);
		cr_expect(p->points.v[i].self_sqr_sum == (long double)want[i], "%zu digits: self sqr", i + 1);
	}
	plumb_profile_free(p);
}

Test(aprof, version_0_sum_is_avg_times_calls_and_not_exact)
{
	plumb_profile *p = load("v0_old_2011.aprof");
	const plumb_point *q = point_of(p, "_Z5qsortPiii", 20);
	cr_expect_eq(q->sum, 95 * 2);
	cr_expect_eq(q->calls, 2);
	cr_expect_eq(q->has, 0, "v0 has only an average: %#x", q->has);
	cr_expect_eq(p->points_info.version, 0, "no v line is version 0");
	cr_expect_str_eq(plumb_str(p, p->events.v[0].name), "cost");
	cr_expect_eq(p->functions.v[function_named(p, "memcpy")].module, PLUMB_NONE);
	cr_expect_eq(p->cg_self.n, 0, "no self costs in version 0");
	cr_expect(strstr(warnings, "4 points without self costs") != NULL, "%s", warnings);
	plumb_profile_free(p);
}

Test(aprof, names_header_and_part)
{
	plumb_profile *p = load("sha_4242_0_4.aprof");
	plumb_id f = function_named(p, "sha256_update(ctx*, unsigned char const*, unsigned long)");
	cr_expect_str_eq(plumb_str(p, p->functions.v[f].mangled), "_Z13sha256_updateP3ctxPKhm");
	plumb_id nw = function_named(p, "operator new(unsigned long)");
	cr_expect_eq(p->functions.v[nw].module, PLUMB_NONE, "NONE is no module");
	function_named(p, "std::pair<int, int> make(int, int)");
	function_named(p, "below_main"); /* a routine without points */
	/* the line of over 1024 characters */
	const char *m = plumb_str(p, p->functions.v[function_named(p, "hot_loop") + 1].mangled);
	cr_expect(m && strlen(m) > 1024);
	/* a square that wrapped and one written as %.0f past 2^64 */
	const plumb_point *h = point_of(p, "hot_loop", 8);
	cr_expect(h->sqr_sum == 12.0L);
	cr_expect(h->self_sqr_sum == 36893488147419103232.0L, "%.0Lf", h->self_sqr_sum);
	cr_expect_eq(p->points_info.memres, 4);
	cr_expect_str_eq(plumb_str(p, p->points_info.input_metric), "rms");
	cr_expect_eq(p->points_info.exe_mtime, 1418000000);
	cr_expect_eq(p->points_info.total_cost, UINT64_MAX);
	cr_expect_str_eq(plumb_meta_get(p, "exe"), "./sha");
	cr_expect_str_eq(plumb_meta_get(p, "cmd"), "./sha -a 256 big file.bin");
	cr_expect_eq(p->parts.v[0].kind, PLUMB_PART_THREAD);
	cr_expect_eq(p->parts.v[0].pid, 4242);
	cr_expect_eq(p->parts.v[0].tid, 1, "TID-1 0 in the name is thread 1");
	cr_expect_str_eq(plumb_str(p, p->events.v[0].unit), "basic blocks");
	/* self sums as call-graph self costs */
	uint64_t tot[1];
	plumb_error err;
	cr_assert_eq(plumb_profile_totals(p, tot, &err), 0);
	uint64_t self = 0;
	for (size_t i = 0; i < p->points.n; i++)
		self += p->points.v[i].self_sum;
	cr_expect_eq(tot[0], self);
	plumb_profile_free(p);
}

Test(aprof, version_1_d_line_is_the_demangled_name)
{
	plumb_profile *p = load("v1.aprof");
	plumb_id f = function_named(p, "qsort(int*, int, int)");
	cr_expect_str_eq(plumb_str(p, p->functions.v[f].mangled), "_Z5qsortPiii");
	cr_expect_str_eq(plumb_str(p, p->functions.v[0].name), "main", "the file's order");
	plumb_profile_free(p);
}

Test(aprof, drms_counts_and_thread_from_the_name)
{
	plumb_profile *p = load("app_100_1_4.aprof");
	const plumb_point *w = point_of(p, "worker(void*)", 300);
	cr_expect_eq(w->has, PLUMB_PT_ALL);
	cr_expect_eq(w->syscall_cumul, 120);
	cr_expect_eq(w->thread_self, 10);
	cr_expect_eq(p->parts.v[0].tid, 2);
	cr_expect_eq(p->parts.v[0].pid, 100);
	cr_expect_str_eq(plumb_str(p, p->points_info.input_metric), "drms");
	plumb_profile_free(p);
}

Test(aprof, contexts_defined_after_their_points_become_cct_paths)
{
	plumb_profile *p = load("cct_77_0_4.aprof");
	cr_expect_eq(p->cct.n, 8, "root and 7 contexts");
	cr_expect_eq(p->cg_self.n, 0);
	for (size_t i = 0; i < p->points.n; i++) {
		const plumb_point *pt = &p->points.v[i];
		cr_assert_neq(pt->context, PLUMB_NONE);
		cr_expect_eq(p->frames.v[p->cct.v[pt->context].frame].function, pt->function,
			     "a point's routine is its context's");
	}
	/* main;walk;walk: two input sizes, 3 activations, self 80 + 90 */
	plumb_id main = function_named(p, "main"), walk = function_named(p, "walk(node*)");
	plumb_id n1 = p->cct.v[p->parts.v[0].root].first_child;
	cr_assert_eq(p->frames.v[p->cct.v[n1].frame].function, main);
	plumb_id found = PLUMB_NONE;
	for (size_t i = 0; i < p->cct.n; i++) {
		plumb_id up = p->cct.v[i].parent;
		if (up != PLUMB_NONE && p->cct.v[up].parent != PLUMB_NONE &&
		    p->frames.v[p->cct.v[i].frame].function == walk &&
		    p->frames.v[p->cct.v[up].frame].function == walk)
			found = (plumb_id)i;
	}
	cr_assert_neq(found, PLUMB_NONE);
	cr_expect_eq(plumb_cct_self(p, found)[0], 170);
	cr_expect_eq(plumb_cct_activations(p, found), 3);
	plumb_profile_free(p);
}

Test(aprof, skipped_lines_warn_once_per_kind)
{
	plumb_profile *p = load("dev_extras.aprof");
	cr_expect_eq(nwarnings, 2, "%s", warnings);
	cr_expect(strstr(warnings, "dev_extras.aprof:6: \"g\" lines") != NULL, "%s", warnings);
	cr_expect(strstr(warnings, "dev_extras.aprof:10: \"fav\" lines") != NULL, "%s", warnings);
	plumb_profile_free(p);
	p = load("v6_rvms_0.1.2.aprof");
	cr_expect_eq(nwarnings, 1, "%s", warnings);
	cr_expect(strstr(warnings, ":13: fields 13 and 14") != NULL, "%s", warnings);
	plumb_profile_free(p);
}

/* ---- bad input ----------------------------------------------------------- */

static void bad(const char *name, plumb_status code, const char *what)
{
	char path[256], want[1024];
	snprintf(path, sizeof path, DATA "bad/%s", name);
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	plumb_format fmt = PLUMB_FMT_UNKNOWN;
	cr_assert_eq(plumb_read_file(p, path, NULL, &fmt, &err), -1, "%s was accepted", name);
	cr_expect_eq(fmt, PLUMB_FMT_APROF, "%s: detected as %s", name, plumb_format_name(fmt));
	snprintf(want, sizeof want, "%s:%s", path, what);
	cr_expect_str_eq(err.message, want);
	cr_expect_eq(err.code, code, "%s: code %d", name, err.code);
	plumb_profile_free(p);
}

Test(aprof, bad_input_names_file_and_line)
{
	bad("undeclared_routine.aprof", PLUMB_ERR_FORMAT,
	    "7: routine 2 was not declared (expected an \"r\" line with id 2 before this line)");
	bad("undeclared_context.aprof", PLUMB_ERR_FORMAT,
	    "7: context 9 was not defined (expected an \"x\" line with context id 9 at the end of the report)");
	bad("too_few_fields.aprof", PLUMB_ERR_FORMAT,
	    "7: expected 12, 14 or 18 fields after \"p\" in a version 6 report, got 11");
	bad("too_many_fields.aprof", PLUMB_ERR_FORMAT,
	    "4: expected 8 fields after \"p\" in a version 2 report, got 9");
	bad("bad_number.aprof", PLUMB_ERR_FORMAT,
	    "6: expected a sum of costs (a whole decimal number of at most 64 bits) as field 5 after \"p\", got \"1O\"");
	bad("huge_number.aprof", PLUMB_ERR_FORMAT,
	    "3: expected a sum of costs (a whole decimal number of at most 64 bits) as field 5 after \"p\", got \"18446744073709551616\"");
	bad("duplicate_routine.aprof", PLUMB_ERR_FORMAT,
	    "3: expected each routine id once, got 1 again (first on line 2)");
	bad("undefined_parent.aprof", PLUMB_ERR_FORMAT,
	    "4: context 2's parent 5 was not defined (expected an \"x\" line with context id 5)");
	bad("context_cycle.aprof", PLUMB_ERR_FORMAT,
	    "4: expected contexts that form a tree, got context 2 among its own ancestors");
	bad("undeclared_x_routine.aprof", PLUMB_ERR_FORMAT,
	    "3: routine 4 was not declared (expected an \"r\" line with id 4 before this line)");
	bad("unclosed_quote.aprof", PLUMB_ERR_FORMAT,
	    "3: expected the routine name between double quotes, got no closing quote");
	bad("unknown_tag.aprof", PLUMB_ERR_FORMAT,
	    "4: expected a line tag among c v k e m i t a f r u d p q x, got \"z\"");
	bad("version_7.aprof", PLUMB_ERR_UNSUPPORTED, "1: expected a report version from 0 to 6, got 7");
}

/* ---- detection ----------------------------------------------------------- */

static void walk(const char *dir, void (*fn)(const char *path))
{
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "%s", dir);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			walk(path, fn);
		else
			fn(path);
	}
	closedir(d);
}

static size_t nchecked;

static void head_of(const char *path, unsigned char *buf, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	cr_assert_not_null(fp);
	*n = fread(buf, 1, 65536, fp);
	fclose(fp);
}

static void not_aprof(const char *path)
{
	static unsigned char buf[65536];
	size_t n;
	if (strstr(path, "tests/data/aprof/"))
		return;
	head_of(path, buf, &n);
	cr_expect(!plumb_aprof_detect(buf, n), "%s taken for an aprof report", path);
	nchecked++;
}

static void is_aprof(const char *path)
{
	plumb_format fmt;
	plumb_error err;
	cr_expect_eq(plumb_detect_file(path, &fmt, &err), 0, "%s: %s", path, err.message);
	cr_expect_eq(fmt, PLUMB_FMT_APROF, "%s detected as %s", path, plumb_format_name(fmt));
	nchecked++;
}

Test(aprof, detection_takes_reports_and_nothing_else)
{
	nchecked = 0;
	walk("tests/data", not_aprof);
	cr_expect_gt(nchecked, 20, "only %zu files checked", nchecked);
	nchecked = 0;
	walk("tests/data/aprof", is_aprof);
	cr_expect_gt(nchecked, NGOOD);
	/* folded stacks of one-letter frames are not reports */
	const char *folded = "v 6\nc 3\nr 2\n";
	cr_expect(!plumb_aprof_detect((const unsigned char *)folded, strlen(folded)));
	const char *report = "v 6\nk 12\nm bb-count\n";
	cr_expect(plumb_aprof_detect((const unsigned char *)report, strlen(report)));
}

/* ---- writing ------------------------------------------------------------- */

static char *write_tmp(const plumb_profile *p)
{
	char *path = strdup("/tmp/plumb-test-aprof-XXXXXX.aprof");
	int fd = mkstemps(path, 6);
	cr_assert_geq(fd, 0);
	close(fd);
	plumb_error err;
	cr_assert_eq(plumb_write_file(p, path, PLUMB_FMT_APROF, &err), 0, "%s", err.message);
	return path;
}

Test(aprof, round_trip_through_version_6_loses_nothing)
{
	for (size_t i = 0; i < NGOOD; i++) {
		plumb_profile *a = load(good[i]);
		char *path = write_tmp(a);
		plumb_profile *b = load_path(path);
		char what[300];
		snprintf(what, sizeof what, "%s written and read back", good[i]);
		expect_same_points(a, b, what);
		cr_expect_eq(b->points_info.version, 6);
		cr_expect_eq(a->points_info.total_cost, b->points_info.total_cost, "%s", what);
		cr_expect_eq(a->points_info.memres, b->points_info.memres, "%s", what);
		cr_expect_eq(a->points_info.exe_mtime, b->points_info.exe_mtime, "%s", what);
		cr_expect_eq(a->points_info.input_metric == PLUMB_NONE, b->points_info.input_metric == PLUMB_NONE);
		cr_expect_eq(a->functions.n, b->functions.n, "%s: routines", what);
		for (size_t f = 0; f < a->functions.n; f++) {
			const char *ma = plumb_str(a, a->functions.v[f].mangled);
			const char *mb = plumb_str(b, b->functions.v[f].mangled);
			cr_expect_str_eq(plumb_str(a, a->functions.v[f].name), plumb_str(b, b->functions.v[f].name));
			cr_expect_str_eq(ma ? ma : "", mb ? mb : "", "%s: mangled", what);
		}
		cr_expect_eq(a->cct.n, b->cct.n, "%s: contexts", what);
		const char *keys[] = { "exe", "cmd" };
		for (int k = 0; k < 2; k++) {
			const char *x = plumb_meta_get(a, keys[k]), *y = plumb_meta_get(b, keys[k]);
			cr_expect_str_eq(x ? x : "", y ? y : "", "%s: %s", what, keys[k]);
		}
		unlink(path);
		free(path);
		plumb_profile_free(a);
		plumb_profile_free(b);
	}
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	cr_assert_not_null(fp);
	char *buf = calloc(1, 1 << 20);
	fread(buf, 1, (1 << 20) - 1, fp);
	fclose(fp);
	return buf;
}

Test(aprof, absent_fields_are_computed_or_zero_and_marked)
{
	plumb_profile *a = load("v0_old_2011.aprof");
	char *path = write_tmp(a);
	char *text = slurp(path);
	/* one call: min = max = sum, sqr = sum^2; otherwise 0 */
	cr_expect(strstr(text, "\nc plumb-missing: min-max sum sqr real self self-min-max self-sqr\n"
			       "p 1 120 5000 5000 5000 25000000 1 0 0 0 0 0\n") != NULL, "%s", text);
	cr_expect(strstr(text, "\np 2 20 0 0 190 0 2 0 0 0 0 0\n") != NULL, "%s", text);
	cr_expect(strstr(text, "\nv 6\n") != NULL);
	unlink(path);
	free(path);
	free(text);
	plumb_profile_free(a);
}

Test(aprof, two_runs_merge_as_aprof_merges)
{
	plumb_profile *a = load("merge/run_1001_0_4.aprof"), *b = load("merge/run_1002_0_4.aprof");
	plumb_error err;
	cr_assert_eq(plumb_profile_merge(a, b, &err), 0, "%s", err.message);
	char *path = write_tmp(a);
	plumb_profile *m = load_path(path);
	ref_report want, other;
	ref_read(DATA "merge/run_1001_0_4.aprof", &want);
	ref_read(DATA "merge/run_1002_0_4.aprof", &other);
	ref_merge(&want, &other);
	expect_points(m, &want, "merged runs");
	cr_expect_eq(m->points_info.total_cost, want.total, "k values add");
	cr_expect_eq(m->parts.n, 1, "one report");
	/* every routine of both, each once */
	cr_expect_eq(m->functions.n, 4);
	char *text = slurp(path);
	cr_expect(strstr(text, "\nf ./sort small.txt\n") || strstr(text, "\nf ./sort big.txt\n"));
	free(text);
	unlink(path);
	free(path);
	ref_free(&want);
	ref_free(&other);
	plumb_profile_free(a);
	plumb_profile_free(b);
	plumb_profile_free(m);
}

Test(aprof, writer_refuses_what_a_report_cannot_hold)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_eq(plumb_event_add(p, "samples", NULL, NULL, &err), 0);
	FILE *out = fopen("/dev/null", "w");
	cr_expect_eq(plumb_aprof_write_stream(p, out, &err), -1);
	cr_expect_eq(err.code, PLUMB_ERR_UNSUPPORTED);
	cr_expect(strstr(err.message, "nothing an aprof report can hold") != NULL, "%s", err.message);
	plumb_profile_free(p);

	p = load("v4.aprof");
	plumb_id f = plumb_function_intern(p, "operator\"\" _km(unsigned long long)", NULL, PLUMB_NONE,
					   PLUMB_NONE, 0);
	plumb_point pt = p->points.v[0];
	pt.function = f;
	cr_assert_eq(plumb_point_add(p, &pt, &err), 0);
	cr_expect_eq(plumb_aprof_write_stream(p, out, &err), -1);
	cr_expect_eq(err.code, PLUMB_ERR_UNSUPPORTED);
	cr_expect(strstr(err.message, "cannot write the routine name \"operator\\\"\\\" _km") != NULL,
		  "%s", err.message);
	fclose(out);
	plumb_profile_free(p);
}

Test(aprof, plumb_missing_comment_marks_fields_absent)
{
	plumb_profile *p = load("written_missing_fields.aprof");
	const plumb_point *v1 = point_of(p, "qsort(int*, int, int)", 10);
	cr_expect_eq(v1->has, PLUMB_PT_MIN_MAX | PLUMB_PT_SUM | PLUMB_PT_SQR);
	/* written as 40 (computed from one call), read as absent: 0 */
	const plumb_point *v2 = NULL;
	for (size_t i = 0; i < p->points.n; i++)
		if (p->points.v[i].input == 1024)
			v2 = &p->points.v[i];
	cr_assert_not_null(v2);
	cr_expect_eq(v2->has, PLUMB_PT_MIN_MAX | PLUMB_PT_SUM | PLUMB_PT_REAL | PLUMB_PT_SELF);
	cr_expect_eq(v2->self_min, 0);
	cr_expect(v2->sqr_sum == 0);
	cr_expect_eq(v2->self_sum, 40);
	plumb_profile_free(p);
}
