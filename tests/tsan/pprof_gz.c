/* The pprof reader's and writer's second thread (formats/jobs.c: the
 * sort of many samples, pprof_gzip.c) under ThreadSanitizer (make tsan; a
 * plain program, as Criterion's runner cannot run under it). Each FILE is
 * read, and written as pprof with gzip members of 1 MiB and of 64 bytes
 * (many jobs on both threads): the two must decompress to the same
 * message. Exit 0 when they do, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/pprof_internal.h"
#include "plumb/formats.h"

/* p written as pprof with members of member bytes, decompressed. */
static uint8_t *written(const plumb_profile *p, size_t member, size_t *n)
{
	char *gz = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&gz, &len);
	plumb_error err;
	pprof_gzip_member = member;
	int rc = plumb_pprof_write_stream(p, f, &err);
	fclose(f);
	uint8_t *raw = NULL;
	if (rc == 0 && pprof_gunzip("memory", (uint8_t *)gz, len, &raw, n, &err) != 0)
		raw = NULL;
	if (!raw)
		fprintf(stderr, "tsan-pprof-gz: %s\n", err.message);
	free(gz);
	return raw;
}

int main(int argc, char **argv)
{
	int bad = 0;
	for (int i = 1; i < argc; i++) {
		plumb_profile *p = plumb_profile_new();
		plumb_error err;
		if (plumb_read_file(p, argv[i], NULL, NULL, &err) != 0) {
			fprintf(stderr, "tsan-pprof-gz: %s\n", err.message);
			bad = 1;
		} else {
			size_t n1 = 0, n2 = 0;
			uint8_t *a = written(p, (size_t)1 << 20, &n1), *b = written(p, 64, &n2);
			if (!a || !b || n1 != n2 || memcmp(a, b, n1) != 0) {
				fprintf(stderr, "tsan-pprof-gz: %s: written differently in small members\n",
					argv[i]);
				bad = 1;
			}
			free(a);
			free(b);
		}
		plumb_profile_free(p);
	}
	if (!bad)
		printf("tsan-pprof-gz: %d files, the same in small members\n", argc - 1);
	return bad;
}
