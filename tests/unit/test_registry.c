/* The format registry: one row per format, and everything that lists or
 * chooses formats is built from it. */
#include <criterion/criterion.h>
#include <string.h>

#include "plumb/formats.h"

Test(registry, one_row_per_format_with_a_reader)
{
	size_t n;
	const plumb_format_ops *f = plumb_formats(&n);
	cr_assert_eq(n, PLUMB_FMT_COUNT - 1, "rows %zu, formats %d", n, PLUMB_FMT_COUNT - 1);
	for (size_t i = 0; i < n; i++) {
		/* a format is read (detected by content) or written or both */
		cr_expect(f[i].detect ? f[i].read != NULL : f[i].read == NULL && f[i].write,
			  "%s: detect and read go together, and a row reads or writes", f[i].name);
		cr_expect_eq(plumb_format_by_name(f[i].name), &f[i], "%s by name", f[i].name);
		cr_expect_eq(plumb_format_get(f[i].id), &f[i], "%s by id", f[i].name);
		for (size_t k = i + 1; k < n; k++)
			cr_expect_str_neq(f[i].name, f[k].name);
	}
}

Test(registry, output_names_choose_writable_formats)
{
	struct { const char *path; plumb_format want; } cases[] = {
		{ "out.plumb", PLUMB_FMT_PLUMB },
		{ "dir/callgrind.out.1234", PLUMB_FMT_CALLGRIND },
		{ "x.callgrind", PLUMB_FMT_CALLGRIND },
		{ "out.cg", PLUMB_FMT_CALLGRIND },
		{ "stacks.folded", PLUMB_FMT_FOLDED },
		{ "stacks.txt", PLUMB_FMT_FOLDED },
		{ "x.speedscope.json", PLUMB_FMT_SPEEDSCOPE },
		{ "x.json", PLUMB_FMT_UNKNOWN },
		{ "profile", PLUMB_FMT_UNKNOWN },
		{ "gmon.out", PLUMB_FMT_UNKNOWN },   /* read only */
		{ ".plumb", PLUMB_FMT_UNKNOWN },     /* an extension alone is no name */
		{ "callgrind.out/x.pdf", PLUMB_FMT_UNKNOWN },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		cr_expect_eq(plumb_format_for_output(cases[i].path), cases[i].want, "%s: got %s, expected %s",
			     cases[i].path, plumb_format_name(plumb_format_for_output(cases[i].path)),
			     plumb_format_name(cases[i].want));
}

Test(registry, writers_list_names_every_writer_and_its_names)
{
	size_t n;
	const plumb_format_ops *f = plumb_formats(&n);
	const char *list = plumb_format_writers_list();
	for (size_t i = 0; i < n; i++) {
		if (!f[i].write) {
			cr_expect_null(strstr(list, f[i].name), "read-only %s listed: %s", f[i].name, list);
			continue;
		}
		cr_expect_not_null(strstr(list, f[i].name), "%s missing: %s", f[i].name, list);
		for (const char *const *e = f[i].extensions; e && *e; e++)
			cr_expect_not_null(strstr(list, *e), "%s missing: %s", *e, list);
	}
}

Test(registry, stream_writer_refuses_a_format_without_one)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	FILE *out = tmpfile();
	cr_assert(p && out);
	cr_expect_eq(plumb_write_stream(p, out, "the stream", PLUMB_FMT_PLUMB, &err), -1);
	cr_expect_eq(err.code, PLUMB_ERR_USAGE);
	cr_expect_not_null(strstr(err.message, "the stream"), "%s", err.message);
	cr_expect_eq(plumb_write_stream(p, out, "the stream", PLUMB_FMT_GMON, &err), -1);
	cr_expect_not_null(strstr(err.message, "cannot write format 'gmon'"), "%s", err.message);
	fclose(out);
	plumb_profile_free(p);
}

/* plumb_progress_stream: the bytes reach the stream beneath unchanged, the
 * reports count up with total 0 (a write's size is not known ahead), and
 * the last one, at close, says done == total == every byte. */
typedef struct seen_progress {
	uint64_t last, calls, end_done, end_total;
	bool ended, wrong;
} seen_progress;

static void note_progress(void *ctx, const char *path, uint64_t done, uint64_t total)
{
	seen_progress *s = ctx;
	s->calls++;
	if (strcmp(path, "out.bin") != 0 || s->ended || done < s->last || (total && total != done))
		s->wrong = true;
	s->last = done;
	if (total) {
		s->ended = true;
		s->end_done = done;
		s->end_total = total;
	}
}

Test(registry, progress_stream_counts_and_passes_bytes_through)
{
	FILE *under = tmpfile();
	cr_assert_not_null(under);
	seen_progress s = { 0 };
	plumb_write_progress wp = { note_progress, &s };
	FILE *f = plumb_progress_stream(under, "out.bin", &wp);
	cr_assert_not_null(f);
	size_t n = 3u << 20;
	for (size_t i = 0; i < n; i++)
		fputc((int)(i * 7 % 251), f);
	cr_assert_eq(fclose(f), 0);
	cr_expect(!s.wrong, "reports out of order, after the end, or with a total before it");
	cr_expect(s.ended, "no report at the end");
	cr_expect_eq(s.end_done, n);
	cr_expect_eq(s.end_total, n);
	cr_expect_geq(s.calls, 3, "%llu reports for 3 MB", (unsigned long long)s.calls);
	cr_assert_eq(fseek(under, 0, SEEK_END), 0);
	cr_expect_eq((size_t)ftell(under), n);
	rewind(under);
	bool same = true;
	for (size_t i = 0; i < n && same; i++)
		same = fgetc(under) == (int)(i * 7 % 251);
	cr_expect(same, "the bytes written differ");
	fclose(under);
}
