/* libFuzzer target for the speedscope writer (speedscope is written, never
 * read): the input is read as folded stacks, and what the reader accepts
 * must be written, as one JSON value whose brackets balance outside its
 * strings and whose profiles' endValues add up to the profile's total.
 * Built and run like fuzz/aprof.c (make check replays tests/data/folded);
 * for libFuzzer add fuzz/speedscope.c fuzz/roundtrip.c to the clang line. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/formats.h"

static char in_path[] = "/tmp/plumb-fuzz-speedscope-XXXXXX";

static void remove_input(void)
{
	unlink(in_path);
}

/* Brackets balance outside strings, and the text is one object. */
static void check_json(const char *s, size_t n)
{
	long depth = 0;
	bool in_str = false;
	if (n < 2 || s[0] != '{' || s[n - 1] != '\n' || s[n - 2] != '}')
		abort();
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
			else if ((unsigned char)c < 0x20)
				abort(); /* control bytes must be escaped */
			continue;
		}
		if (c == '"')
			in_str = true;
		else if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth < 0)
			abort();
	}
	if (depth != 0 || in_str)
		abort();
}

static unsigned long long end_values(const char *s)
{
	unsigned long long sum = 0;
	for (const char *p = s; (p = strstr(p, "\"endValue\":")); p++)
		sum += strtoull(p + 11, NULL, 10);
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	if (!ready) {
		ready = true;
		int fd = mkstemp(in_path);
		if (fd < 0)
			abort();
		close(fd);
		atexit(remove_input);
	}
	FILE *fp = fopen(in_path, "wb");
	if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp) != 0)
		abort();
	plumb_profile *p = plumb_profile_new();
	plumb_read_opts none = { 0 };
	plumb_error err;
	if (plumb_folded_read(p, in_path, &none, &err) == 0) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);
		if (!out)
			abort();
		int rc = plumb_write_stream(p, out, "memory", PLUMB_FMT_SPEEDSCOPE, &err);
		fclose(out);
		if (rc == 0) {
			check_json(buf, len);
			uint64_t total = 0;
			if (p->events.n == 1 && plumb_profile_totals(p, &total, NULL) == 0 &&
			    end_values(buf) != total)
				abort();
		} else if (err.code != PLUMB_ERR_UNSUPPORTED) {
			abort(); /* only a profile with nothing to show */
		}
		free(buf);
	}
	plumb_profile_free(p);
	return 0;
}
