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
 * event and the same number of parts.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/formats.h"

static char in_path[] = "/tmp/plumb-fuzz-callgrind-XXXXXX";
static char out_path[sizeof in_path + 4];

static void put(const char *path, const uint8_t *data, size_t size)
{
	FILE *fp = fopen(path, "wb");
	if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp) != 0)
		abort();
}

static void remove_files(void)
{
	unlink(in_path);
	unlink(out_path);
}

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!out_path[0]) {
		int fd = mkstemp(in_path);
		if (fd < 0)
			abort();
		close(fd);
		atexit(remove_files);
		snprintf(out_path, sizeof out_path, "%s.cg", in_path);
	}
	(void)plumb_callgrind_detect(data, size);
	put(in_path, data, size);
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	if (plumb_callgrind_read(p, in_path, NULL, &err) == 0) {
		if (plumb_callgrind_write(p, out_path, &err) == 0) {
			plumb_profile *q = plumb_profile_new();
			if (plumb_callgrind_read(q, out_path, NULL, &err) != 0)
				abort();
			check_same(p, q);
			plumb_profile_free(q);
			unlink(out_path);
		} else if (err.code != PLUMB_ERR_OVERFLOW || !totals_overflow(p)) {
			abort(); /* the writer writes any profile whose totals fit */
		}
	} else if (err.code != PLUMB_ERR_FORMAT && err.code != PLUMB_ERR_OVERFLOW &&
		   err.code != PLUMB_ERR_UNSUPPORTED) {
		abort();
	}
	plumb_profile_free(p);
	return 0;
}
