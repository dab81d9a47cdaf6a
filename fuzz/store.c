/* libFuzzer target for the .plumb store reader (a SQLite database).
 *
 * `make $(BUILD)/fuzz-store` builds it with fuzz/replay.c, which runs every
 * file of the directories it is given once (make check runs it over
 * tests/fuzz/store: small .plumb files written by plumb convert from
 * tests/data, then VACUUMed to 512-byte pages so that the fuzzer's inputs
 * stay small). For real fuzzing, build the library with clang and
 * -fsanitize=fuzzer-no-link,address,undefined (the store needs most of it):
 *
 *   make BUILD=build-lf CC=clang SANITIZE=1 \
 *     CFLAGS='-O1 -g -fsanitize=fuzzer-no-link' build-lf/libplumb.a
 *   clang -g -O1 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc \
 *     -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 *     fuzz/store.c fuzz/roundtrip.c build-lf/libplumb.a $(pkg-config --libs sqlite3 zlib \
 *     libzstd capstone libelf libdw libprotobuf-c) -liberty -lm \
 *     -o build-lf/fuzz-store-lf
 *   mkdir -p build-lf/corpus-store
 *   ./build-lf/fuzz-store-lf build-lf/corpus-store tests/fuzz/store
 *
 * Besides "never crash, leak or hang", it checks an oracle: whatever the
 * reader accepts, the store writes, and reading that back gives the same
 * events, the same total per event, and the same number of parts, frames,
 * calling contexts, call-graph entries, arcs, samples and points; and read
 * with functions_only, the same events, parts, functions and totals; read
 * with flat_only and inputs_only, the same parts and functions.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/analysis.h"
#include "plumb/formats.h"
#include "roundtrip.h"
#include "plumb/store.h"

static void check_same(const plumb_profile *a, const plumb_profile *b)
{
	size_t n = a->events.n;
	if (b->events.n != n || a->parts.n != b->parts.n || a->frames.n != b->frames.n ||
	    a->cct.n != b->cct.n || a->cg_self.n != b->cg_self.n || a->arcs.n != b->arcs.n ||
	    a->samples.n != b->samples.n || a->points.n != b->points.n)
		abort();
	uint64_t *ta = calloc(n + 1, sizeof *ta), *tb = calloc(n + 1, sizeof *tb);
	if (!ta || !tb || plumb_profile_totals(a, ta, NULL) || plumb_profile_totals(b, tb, NULL))
		abort();
	for (size_t e = 0; e < n; e++) {
		int eb = plumb_event_find(b, plumb_str(a, a->events.v[e].name));
		if (eb < 0 || ta[e] != tb[eb])
			abort();
	}
	free(ta);
	free(tb);
}

/* The store writes what it reads. */
static bool write_may_fail(const plumb_profile *p, const plumb_error *err)
{
	(void)p;
	return err->code == PLUMB_ERR_OVERFLOW;
}

/* Read with functions_only (the call graph summed by function, where the
 * file has it): the input may be refused but never crashes; the store
 * plumb wrote reads with the same events, parts, functions and totals. */
static void check_functions_only(const plumb_profile *p, const char *in, const char *out)
{
	plumb_read_opts fo = { .lines_only = true, .functions_only = true };
	plumb_error err;
	plumb_profile *q = plumb_profile_new();
	if (!q || (plumb_store_read(q, in, &fo, &err) != 0 && err.code == PLUMB_ERR_NOMEM))
		abort();
	plumb_profile_free(q);
	q = plumb_profile_new();
	if (!q || plumb_store_read(q, out, &fo, &err) != 0)
		abort();
	size_t n = p->events.n;
	uint64_t *ta = calloc(n + 1, sizeof *ta), *tb = calloc(n + 1, sizeof *tb);
	if (!ta || !tb || q->events.n != n || q->parts.n != p->parts.n ||
	    q->functions.n != p->functions.n || plumb_profile_totals(p, ta, NULL) ||
	    plumb_profile_totals(q, tb, NULL) || memcmp(ta, tb, n * sizeof *ta) != 0)
		abort();
	free(ta);
	free(tb);
	plumb_profile_free(q);
	/* Read for the flat view only (the metrics the file keeps, version 8):
	 * refused or not, never a crash; accepted, the same parts and
	 * functions as the whole read, and metrics of those functions. */
	plumb_read_opts flo = { .lines_only = true, .functions_only = true, .flat_only = true,
				.inputs_only = true };
	q = plumb_profile_new();
	if (!q)
		abort();
	if (plumb_store_read(q, in, &flo, &err) != 0) {
		if (err.code == PLUMB_ERR_NOMEM)
			abort();
	} else if (q->parts.n != p->parts.n || q->functions.n != p->functions.n ||
		   (q->flat && (q->flat->nkeys > q->functions.n || !q->kept_totals)) ||
		   (q->inputs && !q->kept_totals)) {
		abort();
	}
	plumb_profile_free(q);
}

static const fuzz_format format = {
	.fmt = PLUMB_FMT_PLUMB, .ext = ".plumb", .check_same = check_same, .write_may_fail = write_may_fail,
	.read_io_errors = true, .check_more = check_functions_only,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_round_trip(&format, data, size);
}
