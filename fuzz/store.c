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
 *     fuzz/store.c build-lf/libplumb.a $(pkg-config --libs sqlite3 zlib \
 *     libzstd capstone libelf libdw libprotobuf-c) -liberty -lm \
 *     -o build-lf/fuzz-store-lf
 *   mkdir -p build-lf/corpus-store
 *   ./build-lf/fuzz-store-lf build-lf/corpus-store tests/fuzz/store
 *
 * Besides "never crash, leak or hang", it checks an oracle: whatever the
 * reader accepts, the store writes, and reading that back gives the same
 * events, the same total per event and the same number of parts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/formats.h"
#include "plumb/store.h"

static char in_path[] = "/tmp/plumb-fuzz-store-XXXXXX";
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
	for (size_t e = 0; e < n; e++) {
		int eb = plumb_event_find(b, plumb_str(a, a->events.v[e].name));
		if (eb < 0 || ta[e] != tb[eb])
			abort();
	}
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
		snprintf(out_path, sizeof out_path, "%s.plumb", in_path);
	}
	(void)plumb_store_detect(data, size);
	put(in_path, data, size);
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	if (plumb_store_read(p, in_path, NULL, &err) == 0) {
		if (plumb_store_write(p, out_path, &err) == 0) {
			plumb_profile *q = plumb_profile_new();
			if (plumb_store_read(q, out_path, NULL, &err) != 0)
				abort();
			check_same(p, q);
			plumb_profile_free(q);
			unlink(out_path);
		} else if (err.code != PLUMB_ERR_OVERFLOW) {
			abort(); /* the store writes what it reads */
		}
	} else if (err.code != PLUMB_ERR_FORMAT && err.code != PLUMB_ERR_OVERFLOW &&
		   err.code != PLUMB_ERR_UNSUPPORTED && err.code != PLUMB_ERR_IO) {
		abort();
	}
	plumb_profile_free(p);
	return 0;
}
