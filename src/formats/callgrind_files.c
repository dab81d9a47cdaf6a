/* The files an empty Callgrind file stands for. Callgrind run with
 * --separate-threads=yes (or --dump-every-bb, --dump-before) names each
 * thread and dump BASE-NN, BASE.N or BASE.N-NN and may leave BASE itself
 * empty; only those names count, so that a converted "BASE-01.rt" or an
 * editor's backup beside them is never read as a part. */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/index.h"
#include "plumb/formats.h"

/* A run of digits at *s; advances past it. */
static bool digits(const char **s)
{
	const char *p = *s;
	while (isdigit((unsigned char)*p))
		p++;
	bool any = p != *s;
	*s = p;
	return any;
}

/* Is suffix ".N", "-NN" or ".N-NN"? */
static bool part_suffix(const char *s)
{
	bool any = false;
	if (*s == '.') {
		s++;
		if (!digits(&s))
			return false;
		any = true;
	}
	if (*s == '-') {
		s++;
		if (!digits(&s))
			return false;
		any = true;
	}
	return any && *s == '\0';
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_paths(char **v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(v[k]);
	free(v);
}

/* Directory entries are read by name, not through glob(): a path may hold
 * '[' or '*' itself. */
int plumb_callgrind_part_files(const char *path, char ***out, size_t *n, plumb_error *err)
{
	*out = NULL;
	*n = 0;
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != 0)
		return 0;
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = path + dirlen;
	size_t blen = strlen(base);
	char *dir = dirlen ? strndup(path, dirlen) : strdup(".");
	if (!dir)
		return plumb_fail_nomem(err);
	DIR *d = opendir(dir);
	free(dir);
	if (!d)
		return 0; /* unreadable directory: the empty file is read as it is */
	PLUMB_VEC(char *) v = { 0 };
	int rc = 0;
	for (struct dirent *e; rc == 0 && (e = readdir(d));) {
		if (strncmp(e->d_name, base, blen) != 0 || !part_suffix(e->d_name + blen))
			continue;
		size_t nlen = strlen(e->d_name);
		char *cand = malloc(dirlen + nlen + 1);
		if (!cand) {
			rc = plumb_fail_nomem(err);
			break;
		}
		memcpy(cand, path, dirlen);
		memcpy(cand + dirlen, e->d_name, nlen + 1);
		plumb_format fmt;
		plumb_error ignored;
		if (plumb_detect_file(cand, &fmt, &ignored) || fmt != PLUMB_FMT_CALLGRIND) {
			free(cand);
			continue;
		}
		if (plumb_vec_push(v, cand)) {
			free(cand);
			rc = plumb_fail_nomem(err);
		}
	}
	closedir(d);
	if (rc) {
		free_paths(v.v, v.n);
		return -1;
	}
	if (v.n)
		qsort(v.v, v.n, sizeof *v.v, cmp_str);
	*out = v.v;
	*n = v.n;
	return 0;
}
