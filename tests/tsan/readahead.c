/* The reader threads under ThreadSanitizer (make tsan; Criterion's runner
 * and TSan do not mix, so this is a plain program). Each FILE is read as
 * lines and as a profile, on one thread and with the read-ahead thread,
 * which must give the same text, profile (written as Callgrind) or error;
 * then read again and stopped after its first line, chunks in flight.
 * Exit 0 when all agree, 1 otherwise (naming the file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/linesrc.h"
#include "plumb/formats.h"

/* All the lines of path, then its profile as Callgrind text (or errors). */
static char *read_both(const char *path, uint64_t ra_min, size_t *n)
{
	plumb_linesrc_readahead_min = ra_min;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, n);
	plumb_linesrc s;
	plumb_error err;
	if (plumb_linesrc_open(&s, path, &err) == 0) {
		char *line;
		size_t len;
		int got;
		while ((got = plumb_linesrc_next(&s, &line, &len, &err)) == 1)
			fprintf(f, "%.*s\n", (int)len, line);
		if (got < 0)
			fprintf(f, "!%s\n", err.message);
		plumb_linesrc_close(&s);
	}
	plumb_profile *p = plumb_profile_new();
	if (plumb_read_file(p, path, NULL, NULL, &err) == 0 &&
	    plumb_write_stream(p, f, "memory", PLUMB_FMT_CALLGRIND, &err) == 0)
		fputs("(read)\n", f);
	else
		fprintf(f, "!%s\n", err.message);
	plumb_profile_free(p);
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	int bad = 0;
	for (int i = 1; i < argc; i++) {
		size_t n1, n2;
		char *a = read_both(argv[i], UINT64_MAX, &n1), *b = read_both(argv[i], 0, &n2);
		if (n1 != n2 || memcmp(a, b, n1) != 0) {
			fprintf(stderr, "tsan-readahead: %s: read differently with the read-ahead\n", argv[i]);
			bad = 1;
		}
		free(a);
		free(b);
		plumb_linesrc_readahead_min = 0;
		plumb_linesrc s;
		plumb_error err;
		char *line;
		size_t len;
		if (plumb_linesrc_open(&s, argv[i], &err) == 0) {
			(void)plumb_linesrc_next(&s, &line, &len, &err);
			plumb_linesrc_close(&s);
		}
	}
	printf("tsan-readahead: %d files, %s\n", argc - 1, bad ? "FAILED" : "all read the same");
	return bad;
}
