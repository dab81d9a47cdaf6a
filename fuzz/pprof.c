/* libFuzzer target for the pprof reader, detection and writer.
 *
 * `make $(BUILD)/fuzz-pprof` builds it with fuzz/replay.c, which runs
 * every file of the directories it is given once (make check runs it over
 * tests/data/pprof). For real fuzzing (from the repository root; clang is
 * Debian's clang):
 *
 *   clang -g -O1 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc \
 *     -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 *     fuzz/pprof.c fuzz/roundtrip.c src/formats/pprof_*.c src/formats/fileio.c src/model/?*.c \
 *     -lprotobuf-c -ldeflate -lz -lm -o build/fuzz-pprof-lf
 *   mkdir -p build/fuzz-corpus-pprof
 *   ./build/fuzz-pprof-lf build/fuzz-corpus-pprof tests/data/pprof
 *
 * Besides "never crash, leak or hang", it checks an oracle: whatever the
 * reader accepts, the writer writes, and reading that back gives the same
 * events, the same total per event and the same number of parts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/formats.h"
#include "roundtrip.h"

static void check_same(const plumb_profile *a, const plumb_profile *b)
{
	size_t n = a->events.n;
	if (b->events.n != n || a->parts.n != b->parts.n)
		abort();
	uint64_t *ta = calloc(n + 1, sizeof *ta), *tb = calloc(n + 1, sizeof *tb);
	if (!ta || !tb || plumb_profile_totals(a, ta, NULL) || plumb_profile_totals(b, tb, NULL))
		abort();
	for (size_t e = 0; e < n; e++)
		if (ta[e] != tb[e] || strcmp(plumb_str(a, a->events.v[e].name),
					     plumb_str(b, b->events.v[e].name)) != 0)
			abort();
	free(ta);
	free(tb);
}

/* Only values past pprof's signed 64 bits. */
static bool write_may_fail(const plumb_profile *p, const plumb_error *err)
{
	(void)p;
	return err->code == PLUMB_ERR_OVERFLOW;
}

static const fuzz_format format = {
	.fmt = PLUMB_FMT_PPROF, .ext = ".pb.gz", .check_same = check_same, .write_may_fail = write_may_fail,
	.read_io_errors = false,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_round_trip(&format, data, size);
}
