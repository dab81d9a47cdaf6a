/* libFuzzer target for the pprof reader, detection and writer.
 *
 * `make $(BUILD)/fuzz-pprof` builds it with fuzz/replay.c, which runs
 * every file of the directories it is given once (make check runs it over
 * tests/data/pprof). For real fuzzing (from the repository root; clang is
 * Debian's clang):
 *
 *   clang -g -O1 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc \
 *     -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 *     fuzz/pprof.c src/formats/pprof_*.c src/formats/fileio.c src/model/?*.c \
 *     -lprotobuf-c -lz -lm -o build/fuzz-pprof-lf
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

static char in_path[] = "/tmp/plumb-fuzz-pprof-XXXXXX";
static char out_path[sizeof in_path + 8];

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!out_path[0]) {
		int fd = mkstemp(in_path);
		if (fd < 0)
			abort();
		close(fd);
		atexit(remove_files);
		snprintf(out_path, sizeof out_path, "%s.pb.gz", in_path);
	}
	(void)plumb_pprof_detect(data, size);
	put(in_path, data, size);
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	if (plumb_pprof_read(p, in_path, NULL, &err) == 0) {
		if (plumb_pprof_write(p, out_path, &err) == 0) {
			plumb_profile *q = plumb_profile_new();
			if (plumb_pprof_read(q, out_path, NULL, &err) != 0)
				abort();
			check_same(p, q);
			plumb_profile_free(q);
			unlink(out_path);
		} else if (err.code != PLUMB_ERR_OVERFLOW) {
			abort(); /* only values past pprof's signed 64 bits */
		}
	} else if (err.code != PLUMB_ERR_FORMAT && err.code != PLUMB_ERR_OVERFLOW &&
		   err.code != PLUMB_ERR_UNSUPPORTED) {
		abort();
	}
	plumb_profile_free(p);
	return 0;
}
