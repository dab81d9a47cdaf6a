/* libFuzzer target for the aprof reader, detection and writer.
 *
 * `make $(BUILD)/fuzz-aprof` builds it with fuzz/replay.c, a main() that
 * runs every file of the directories it is given once (make check runs it
 * over tests/data/aprof). For real fuzzing (from the repository root;
 * clang is Debian's clang):
 *
 *   clang -g -O1 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc \
 *     -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 *     fuzz/aprof.c fuzz/roundtrip.c src/formats/aprof_*.c src/formats/linesrc.c src/formats/quote.c \
 *     src/formats/fileio.c src/model/?*.c -lz -lzstd -lm -o build/fuzz-aprof-lf
 *   mkdir -p build/fuzz-corpus-aprof
 *   ./build/fuzz-aprof-lf build/fuzz-corpus-aprof tests/data/aprof
 *
 * (the registry is not linked: the target calls the aprof functions).
 * Besides "never crash, leak or hang", it checks an oracle: whatever the
 * reader accepts, the writer writes as version 6 (or refuses a name it
 * cannot quote), and reading that back gives the same points, every field
 * and which fields are known.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/formats.h"
#include "roundtrip.h"

/* What a point is about, comparable across profiles: routine name and
 * object, context path, input size. */
static char *key_of(const plumb_profile *p, const plumb_point *pt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	if (!fp)
		abort();
	const plumb_function *fn = &p->functions.v[pt->function];
	fprintf(fp, "%s|%s|", plumb_str(p, fn->name),
		fn->module != PLUMB_NONE ? plumb_str(p, p->modules.v[fn->module].path) : "-");
	for (plumb_id n = pt->context; n != PLUMB_NONE && p->cct.v[n].parent != PLUMB_NONE;
	     n = p->cct.v[n].parent) {
		plumb_id f = p->frames.v[p->cct.v[n].frame].function;
		fprintf(fp, "%zu:%s<", strlen(plumb_str(p, p->functions.v[f].name)),
			plumb_str(p, p->functions.v[f].name));
	}
	fprintf(fp, "|%llu", (unsigned long long)pt->input);
	fclose(fp);
	return buf;
}

static int same_numbers(const plumb_point *a, const plumb_point *b)
{
	return a->has == b->has && a->calls == b->calls && a->min == b->min && a->max == b->max &&
	       a->sum == b->sum && a->sqr_sum == b->sqr_sum && a->real_sum == b->real_sum &&
	       a->self_sum == b->self_sum && a->self_min == b->self_min &&
	       a->self_max == b->self_max && a->self_sqr_sum == b->self_sqr_sum &&
	       a->syscall_cumul == b->syscall_cumul && a->thread_cumul == b->thread_cumul &&
	       a->syscall_self == b->syscall_self && a->thread_self == b->thread_self;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every point of a is in b with the same numbers, and as many. */
static void check_same(const plumb_profile *a, const plumb_profile *b)
{
	size_t n = a->points.n;
	if (b->points.n != n)
		abort();
	char **kb = malloc((n + 1) * sizeof *kb);
	size_t *ib = malloc((n + 1) * sizeof *ib);
	if (!kb || !ib)
		abort();
	for (size_t i = 0; i < n; i++) {
		/* key + index, sorted, to find each point of a */
		char *k = key_of(b, &b->points.v[i]);
		size_t l = strlen(k);
		kb[i] = realloc(k, l + 24);
		snprintf(kb[i] + l, 24, "#%zu", i);
	}
	qsort(kb, n, sizeof *kb, cmp_str);
	for (size_t i = 0; i < n; i++)
		ib[i] = strtoull(strrchr(kb[i], '#') + 1, NULL, 10);
	for (size_t i = 0; i < n; i++) {
		char *k = key_of(a, &a->points.v[i]);
		size_t l = strlen(k), lo = 0, hi = n;
		while (lo < hi) { /* first entry >= k */
			size_t mid = (lo + hi) / 2;
			if (strcmp(kb[mid], k) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == n || strncmp(kb[lo], k, l) != 0 || kb[lo][l] != '#' ||
		    !same_numbers(&a->points.v[i], &b->points.v[ib[lo]]))
			abort();
		free(k);
	}
	for (size_t i = 0; i < n; i++)
		free(kb[i]);
	free(kb);
	free(ib);
}

/* Only no points, or a name that cannot be quoted. */
static bool write_may_fail(const plumb_profile *p, const plumb_error *err)
{
	(void)p;
	return err->code == PLUMB_ERR_UNSUPPORTED &&
	       (p->points.n == 0 || strstr(err->message, "cannot write the"));
}

static const fuzz_format format = {
	.fmt = PLUMB_FMT_APROF, .ext = ".aprof", .check_same = check_same, .write_may_fail = write_may_fail,
	.read_io_errors = false,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_round_trip(&format, data, size);
}
