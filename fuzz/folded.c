/* libFuzzer target for the folded-stacks reader, detection and writer.
 *
 * Build and run (from the repository root; clang is Debian's clang):
 *
 *   clang -g -O1 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc \
 *     -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 *     fuzz/folded.c src/formats/folded.c src/formats/fileio.c src/formats/jobs.c src/model/?*.c \
 *     -o build/fuzz-folded
 *   mkdir -p build/fuzz-corpus && ./build/fuzz-folded build/fuzz-corpus tests/data/folded
 *
 * Besides "never crash, leak or hang", it checks an oracle: whatever the
 * reader accepts, the writer writes, and reading that back gives the same
 * total and the same text when written again. And the reader in two
 * pieces (PLUMB_FOLDED_SPLIT at 10, 40 and 70%) gives what the serial
 * reader gives: the same error, or the same text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/formats.h"

static char in_path[] = "/tmp/plumb-fuzz-folded-XXXXXX";
static char out_path[sizeof in_path + 4];

static void put(const char *path, const uint8_t *data, size_t size)
{
	FILE *fp = fopen(path, "wb");
	if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp) != 0)
		abort();
}

/* The folded text of p, malloc'd, or NULL if the writer failed: only
 * because frames of different names (control bytes written as '?') merged
 * into one stack whose total overflows. */
static char *text_of(const plumb_profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	plumb_error err;
	int rc = plumb_folded_write_stream(p, fp, &err);
	fclose(fp);
	if (rc == 0)
		return buf;
	if (err.code != PLUMB_ERR_OVERFLOW)
		abort();
	free(buf);
	return NULL;
}

static uint64_t total(const plumb_profile *p)
{
	uint64_t t[1] = { 0 };
	plumb_error err;
	if (p->events.n != 1 || plumb_profile_totals(p, t, &err) != 0)
		abort();
	return t[0];
}

/* The error or the folded text of in_path, read split at pct% (-1: not). */
static char *read_as(int pct, size_t *len)
{
	char v[16];
	snprintf(v, sizeof v, "%d", pct);
	if (pct >= 0)
		setenv("PLUMB_FOLDED_SPLIT", v, 1);
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	char *text;
	if (plumb_folded_read(p, in_path, NULL, &err) != 0) {
		text = strdup(err.message);
		*len = text ? strlen(text) : 0;
	} else if (!(text = text_of(p, len))) {
		text = strdup("(overflow)");
		*len = text ? strlen(text) : 0;
	}
	unsetenv("PLUMB_FOLDED_SPLIT");
	plumb_profile_free(p);
	if (!text)
		abort();
	return text;
}

static void check_split(void)
{
	size_t n, m;
	char *want = read_as(-1, &n);
	for (int pct = 10; pct < 100; pct += 30) {
		char *got = read_as(pct, &m);
		if (m != n || memcmp(got, want, n) != 0)
			abort();
		free(got);
	}
	free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!out_path[0]) {
		int fd = mkstemp(in_path);
		if (fd < 0)
			abort();
		close(fd);
		snprintf(out_path, sizeof out_path, "%s.out", in_path);
	}
	(void)plumb_folded_detect(data, size);
	put(in_path, data, size);
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	if (plumb_folded_read(p, in_path, NULL, &err) == 0) {
		size_t len;
		char *text = text_of(p, &len);
		if (text) {
			put(out_path, (const uint8_t *)text, len);
			plumb_profile *q = plumb_profile_new();
			if (plumb_folded_read(q, out_path, NULL, &err) != 0 || total(q) != total(p))
				abort();
			size_t len2;
			char *text2 = text_of(q, &len2);
			if (!text2 || len2 != len || memcmp(text, text2, len) != 0)
				abort();
			free(text2);
			plumb_profile_free(q);
			free(text);
		}
	} else if (err.code != PLUMB_ERR_FORMAT && err.code != PLUMB_ERR_OVERFLOW) {
		abort();
	}
	plumb_profile_free(p);
	check_split();
	return 0;
}
