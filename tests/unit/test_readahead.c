/* The read-ahead thread of big text files gives the readers the same lines,
 * and the same errors, as reading on one thread: plain, gzip and zstd,
 * lines longer than a chunk, a truncated stream. (make tsan runs these
 * under ThreadSanitizer.) */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "formats/linesrc.h"
#include "formats/readahead.h"
#include "plumb/formats.h"

/* About 3 MB of numbered lines, one of 1.5 MiB (longer than a chunk). */
static char *make_text(size_t *len)
{
	size_t cap = 8 << 20, n = 0;
	char *t = malloc(cap);
	cr_assert_not_null(t);
	for (int i = 0; n < (3u << 20); i++) {
		if (i == 5000) {
			memset(t + n, 'x', 3 << 19);
			n += 3 << 19;
			t[n++] = '\n';
		}
		n += (size_t)snprintf(t + n, cap - n, "line %d %*s\n", i, i % 97, "");
	}
	*len = n;
	return t;
}

static char *write_tmp(const void *data, size_t len)
{
	char *path = strdup("/tmp/plumb-ra-XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

/* Every line of path joined by '\n', or the error message (prefixed "!"). */
static char *read_all(const char *path, uint64_t ra_min, size_t *out_len)
{
	plumb_linesrc_readahead_min = ra_min;
	plumb_linesrc s;
	plumb_error err;
	cr_assert_eq(plumb_linesrc_open(&s, path, &err), 0);
	size_t cap = 16 << 20, n = 0;
	char *all = malloc(cap), *line;
	size_t len;
	int got;
	while ((got = plumb_linesrc_next(&s, &line, &len, &err)) == 1) {
		cr_assert_lt(n + len + 1, cap);
		memcpy(all + n, line, len);
		n += len;
		all[n++] = '\n';
	}
	if (got < 0)
		n = (size_t)snprintf(all, cap, "!%s", err.message);
	bool threaded = s.ra != NULL;
	plumb_linesrc_close(&s);
	cr_expect_eq(threaded, ra_min == 0, "read-ahead %s", threaded ? "ran" : "did not run");
	plumb_linesrc_readahead_min = (uint64_t)8 << 20;
	*out_len = n;
	return all;
}

static void same_both_ways(const char *path, const char *want, size_t want_len)
{
	size_t n1, n2;
	char *serial = read_all(path, UINT64_MAX, &n1);
	char *ahead = read_all(path, 0, &n2);
	cr_expect_eq(n1, n2);
	cr_expect(n1 == n2 && memcmp(serial, ahead, n1) == 0, "the read-ahead changed the text");
	if (want) {
		cr_expect_eq(n1, want_len);
		cr_expect(n1 == want_len && memcmp(serial, want, n1) == 0, "not the file's text");
	}
	free(serial);
	free(ahead);
}

Test(readahead, plain_gzip_zstd_give_the_same_lines)
{
	size_t len;
	char *text = make_text(&len);
	char *plain = write_tmp(text, len);
	same_both_ways(plain, text, len);

	uLongf zlen = compressBound(len) + 64;
	unsigned char *z = malloc(zlen);
	z_stream zs = { 0 };
	cr_assert_eq(deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)text;
	zs.avail_in = (uInt)len;
	zs.next_out = z;
	zs.avail_out = (uInt)zlen;
	cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	size_t gzlen = zs.total_out;
	deflateEnd(&zs);
	char *gz = write_tmp(z, gzlen);
	same_both_ways(gz, text, len);

	/* cut short: both ways fail with the same message */
	char *cut = write_tmp(z, gzlen / 2);
	same_both_ways(cut, NULL, 0);
	size_t n;
	char *msg = read_all(cut, 0, &n);
	cr_expect(strstr(msg, "ends early") != NULL, "got: %.200s", msg);
	free(msg);

	size_t zcap = ZSTD_compressBound(len);
	void *zst = malloc(zcap);
	size_t zstlen = ZSTD_compress(zst, zcap, text, len, 1);
	cr_assert(!ZSTD_isError(zstlen));
	char *zpath = write_tmp(zst, zstlen);
	same_both_ways(zpath, text, len);

	const char *paths[] = { plain, gz, cut, zpath };
	for (size_t i = 0; i < 4; i++) {
		unlink(paths[i]);
		free((void *)paths[i]);
	}
	free(z);
	free(zst);
	free(text);
}

/* Stopped with chunks still in flight (a reader that failed early). */
Test(readahead, stops_mid_file)
{
	size_t len;
	char *text = make_text(&len);
	char *plain = write_tmp(text, len);
	plumb_linesrc_readahead_min = 0;
	plumb_linesrc s;
	plumb_error err;
	cr_assert_eq(plumb_linesrc_open(&s, plain, &err), 0);
	char *line;
	size_t n;
	cr_assert_eq(plumb_linesrc_next(&s, &line, &n, &err), 1);
	cr_expect(n == 7 && memcmp(line, "line 0 ", 7) == 0);
	cr_expect_not_null(s.ra);
	plumb_linesrc_close(&s);
	plumb_linesrc_readahead_min = (uint64_t)8 << 20;
	unlink(plain);
	free(plain);
	free(text);
}

/* One file read whole into Callgrind text (or "!" and the error). */
static char *cg_text(const char *path, uint64_t ra_min)
{
	plumb_linesrc_readahead_min = ra_min;
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	char *buf = NULL;
	size_t len = 0;
	if (plumb_read_file(p, path, NULL, NULL, &err) == 0) {
		FILE *f = open_memstream(&buf, &len);
		if (plumb_write_stream(p, f, "memory", PLUMB_FMT_CALLGRIND, &err))
			fprintf(f, "!%s", err.message);
		fclose(f);
	} else {
		buf = strdup(err.message);
	}
	plumb_profile_free(p);
	plumb_linesrc_readahead_min = (uint64_t)8 << 20;
	return buf;
}

/* Every Callgrind test file, good and bad, reads the same with a read-ahead. */
Test(readahead, callgrind_files_read_the_same)
{
	const char *dirs[] = { "tests/data/callgrind", "tests/data/callgrind/bad" };
	size_t files = 0;
	for (size_t d = 0; d < 2; d++) {
		DIR *dir = opendir(dirs[d]);
		cr_assert_not_null(dir, "run from the source tree");
		for (struct dirent *e; (e = readdir(dir));) {
			char path[512];
			snprintf(path, sizeof path, "%s/%s", dirs[d], e->d_name);
			struct stat st;
			if (stat(path, &st) || !S_ISREG(st.st_mode))
				continue;
			char *a = cg_text(path, UINT64_MAX), *b = cg_text(path, 0);
			cr_expect_str_eq(a, b, "%s", path);
			free(a);
			free(b);
			files++;
		}
		closedir(dir);
	}
	cr_expect_gt(files, 20);
}
