/* Runs a libFuzzer target without libFuzzer: every file of the
 * directories (or the files) given is fed once to LLVMFuzzerTestOneInput.
 * make check runs the targets this way over their corpora, in both builds
 * (the sanitizer build is the one that finds things). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		perror(path);
		return -1;
	}
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, got;
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			uint8_t *b = realloc(buf, cap);
			if (!b)
				abort();
			buf = b;
		}
		got = fread(buf + len, 1, cap - len, fp);
		len += got;
	} while (got > 0);
	fclose(fp);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int run(const char *path, size_t *n)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*n)++;
		return run_file(path);
	}
	DIR *d = opendir(path);
	if (!d) {
		perror(path);
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d)) && rc == 0) {
		if (e->d_name[0] == '.')
			continue;
		size_t l = strlen(path) + strlen(e->d_name) + 2;
		char *sub = malloc(l);
		if (!sub)
			abort();
		snprintf(sub, l, "%s/%s", path, e->d_name);
		rc = run(sub, n);
		free(sub);
	}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	size_t n = 0;
	for (int i = 1; i < argc; i++)
		if (run(argv[i], &n) != 0)
			return 2;
	printf("%zu inputs run\n", n);
	return n ? 0 : 2;
}
