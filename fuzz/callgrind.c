/* libFuzzer target for the Callgrind reader, detection and writer.
 *
 * `make $(BUILD)/fuzz-callgrind` builds it with fuzz/replay.c, which runs
 * every file of the directories it is given once (make check runs it over
 * tests/data/callgrind and tests/fuzz/callgrind, the inputs fuzzing found).
 * For real fuzzing, link it against a libplumb.a built with clang for
 * libFuzzer (the reader looks for part files through the format registry,
 * which needs most of the library); fuzz/README.md has the commands.
 *
 * Besides "never crash, leak or hang", it checks an oracle: whatever the
 * reader accepts, the writer writes (unless the parts' costs overflow
 * together), and reading that back gives the same
 * events (in the writer's order, names as one token), the same total per
 * event and the same number of parts. And the reader in two pieces
 * (formats/callgrind_par.c, split where PLUMB_CG_SPLIT says) gives what
 * the serial reader gives: the same warnings, error, or profile written
 * as Callgrind.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/callgrind_read.h"
#include "plumb/formats.h"
#include "roundtrip.h"

/* The events of a in the order the writer writes them, which reading back
 * gives: measured ones (the events: line), then derived ones. */
static size_t *written_order(const plumb_profile *a)
{
	size_t n = a->events.n, k = 0;
	size_t *ord = malloc((n + 1) * sizeof *ord);
	if (!ord)
		abort();
	for (int derived = 0; derived < 2; derived++)
		for (size_t e = 0; e < n; e++)
			if ((a->events.v[e].formula != PLUMB_NONE) == derived)
				ord[k++] = e;
	return ord;
}

/* b's name is a's as one token (bytes up to ' ' as '_'), maybe with a
 * "_N" suffix that keeps it apart from another event's. */
static bool same_token(const char *a, const char *b)
{
	for (; *a; a++, b++)
		if (*b != ((unsigned char)*a <= ' ' ? '_' : *a))
			return false;
	return *b == '\0' || (*b == '_' && b[1] >= '2' && b[1] <= '9');
}

static void check_same(const plumb_profile *a, const plumb_profile *b)
{
	size_t n = a->events.n;
	if (b->events.n != n || a->parts.n != b->parts.n)
		abort();
	uint64_t *ta = calloc(n + 1, sizeof *ta), *tb = calloc(n + 1, sizeof *tb);
	if (!ta || !tb || plumb_profile_totals(a, ta, NULL) || plumb_profile_totals(b, tb, NULL))
		abort();
	size_t *ord = written_order(a);
	for (size_t i = 0; i < n; i++) {
		const char *na = plumb_str(a, a->events.v[ord[i]].name);
		if (ta[ord[i]] != tb[i] || (*na && !same_token(na, plumb_str(b, b->events.v[i].name))))
			abort();
	}
	free(ord);
	free(ta);
	free(tb);
}

/* Parts each within 64 bits can overflow together (the summary: line). */
static bool totals_overflow(const plumb_profile *p)
{
	uint64_t *t = calloc(p->events.n + 1, sizeof *t);
	if (!t)
		abort();
	plumb_error err;
	bool over = plumb_profile_totals(p, t, &err) != 0;
	free(t);
	return over;
}

/* The writer writes any profile whose totals fit. */
static bool write_may_fail(const plumb_profile *p, const plumb_error *err)
{
	(void)p;
	return err->code == PLUMB_ERR_OVERFLOW && totals_overflow(p);
}

static const fuzz_format format = {
	.fmt = PLUMB_FMT_CALLGRIND, .ext = ".cg", .check_same = check_same, .write_may_fail = write_may_fail,
	.read_io_errors = false,
};

static void note(void *ctx, const char *msg)
{
	fprintf(ctx, "%s\n", msg);
}

/* Warnings, then the error or the profile as Callgrind (functions_only:
 * the reads that may be split); pct < 0: serially. */
static char *read_as(const char *path, int pct, size_t *n)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, n);
	if (!f)
		abort();
	plumb_read_opts o = { .warn = note, .warn_ctx = f, .functions_only = true };
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	int rc = 1;
	if (pct >= 0) {
		char v[16];
		snprintf(v, sizeof v, "%d", pct);
		setenv("PLUMB_CG_SPLIT", v, 1);
		rc = cg_read_parallel(p, path, &o, &err);
		unsetenv("PLUMB_CG_SPLIT");
	}
	if (rc == 1)
		rc = cg_read_serial(p, path, &o, &err);
	if (rc)
		fprintf(f, "error %s\n", err.message);
	else if (plumb_write_stream(p, f, "memory", PLUMB_FMT_CALLGRIND, &err))
		fprintf(f, "write error %s\n", err.message);
	plumb_profile_free(p);
	fclose(f);
	return buf;
}

static void check_split(const char *path)
{
	size_t n, m;
	char *want = read_as(path, -1, &n);
	for (int pct = 10; pct < 100; pct += 30) {
		char *got = read_as(path, pct, &m);
		if (m != n || memcmp(got, want, n) != 0)
			abort();
		free(got);
	}
	free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_round_trip(&format, data, size);
	check_split(fuzz_put_temp(data, size));
	return 0;
}
