/* The Callgrind reader in two pieces (formats/callgrind_par.c) against the
 * serial one: every file of tests/data/callgrind and files of several parts
 * with compressed names used across the split (tests/gen_cg_parts.py),
 * split at many points (PLUMB_CG_SPLIT), must give the same warnings, the
 * same error, and the same profile (written back as Callgrind, which holds
 * every part, position, arc and written zero; and the metadata). Run from the top
 * of the tree (python3 writes the generated files). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/callgrind_read.h"
#include "plumb/formats.h"

static void hold(void *ctx, const char *msg)
{
	fprintf(ctx, "warning: %s\n", msg);
}

/* Warnings, then the error or the profile as Callgrind text. *split: the
 * parallel path read it (pct >= 0). */
static char *snapshot(const char *path, int pct, bool *split)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	cr_assert_not_null(f);
	plumb_read_opts o = { .warn = hold, .warn_ctx = f, .functions_only = true };
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	int rc;
	*split = false;
	if (pct < 0) {
		rc = cg_read_serial(p, path, &o, &err);
	} else {
		char v[16];
		snprintf(v, sizeof v, "%d", pct);
		setenv("PLUMB_CG_SPLIT", v, 1);
		rc = cg_read_parallel(p, path, &o, &err);
		unsetenv("PLUMB_CG_SPLIT");
		*split = rc != 1;
		if (rc == 1)
			rc = cg_read_serial(p, path, &o, &err);
	}
	for (size_t i = 0; !rc && i < p->meta.n; i++)
		fprintf(f, "meta %s=%s\n", plumb_str(p, p->meta.v[i].key), plumb_str(p, p->meta.v[i].value));
	if (rc)
		fprintf(f, "error: %s\n", err.message);
	else if (plumb_write_stream(p, f, "memory", PLUMB_FMT_CALLGRIND, &err))
		fprintf(f, "write error: %s\n", err.message);
	plumb_profile_free(p);
	fclose(f);
	return buf;
}

/* path read at every pct in steps: the same as serially; the count of
 * reads that were split. */
static int compare_splits(const char *path, int step)
{
	bool split;
	char *want = snapshot(path, -1, &split);
	int splits = 0;
	for (int pct = 0; pct <= 100; pct += step) {
		char *got = snapshot(path, pct, &split);
		cr_assert_str_eq(got, want, "%s split at %d%%: not the serial reader's result", path, pct);
		splits += split;
		free(got);
	}
	free(want);
	return splits;
}

static char *generate(const char *name, const char *args)
{
	static char path[128];
	snprintf(path, sizeof path, "/tmp/plumb-cgpar-%d-%s", (int)getpid(), name);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "python3 tests/gen_cg_parts.py %s %s", path, args);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	return path;
}

Test(callgrind_par, test_files_read_the_same_split_anywhere)
{
	const char *dirs[] = { "tests/data/callgrind/", "tests/data/callgrind/bad/" };
	int files = 0, splits = 0;
	for (size_t d = 0; d < 2; d++) {
		DIR *dir = opendir(dirs[d]);
		cr_assert_not_null(dir);
		struct dirent *e;
		while ((e = readdir(dir))) {
			size_t len = strlen(e->d_name);
			if (len < 4 || strcmp(e->d_name + len - 3, ".cg") != 0)
				continue;
			char path[512];
			snprintf(path, sizeof path, "%s%s", dirs[d], e->d_name);
			splits += compare_splits(path, 5);
			files++;
		}
		closedir(dir);
	}
	cr_assert_gt(files, 20);
	cr_assert_gt(splits, 20, "only %d reads were split: the test tests little", splits);
}

Test(callgrind_par, parts_with_compressed_names_read_the_same)
{
	const char *args[] = { "4 300 1", "3 200 2", "1 500 3", "6 60 4" };
	for (size_t i = 0; i < sizeof args / sizeof *args; i++) {
		char *path = generate("parts.cg", args[i]);
		int splits = compare_splits(path, 3);
		cr_assert_geq(splits, 30, "%s: split %d times only", args[i], splits);
		unlink(path);
	}
}

Test(callgrind_par, errors_in_either_piece_are_the_serial_readers)
{
	const char *args[] = { "4 300 5 0.1", "4 300 6 0.5", "4 300 7 0.9", "2 300 8 0.6" };
	for (size_t i = 0; i < sizeof args / sizeof *args; i++) {
		char *path = generate("bad.cg", args[i]);
		bool split;
		char *want = snapshot(path, -1, &split);
		cr_assert_not_null(strstr(want, "error: "), "%s: no error", args[i]);
		/* an error in the first piece is returned from it; one in the
		 * second makes the whole file read serially (not counted) */
		int splits = compare_splits(path, 7);
		cr_assert_gt(splits, 0, "%s: never split", args[i]);
		free(want);
		unlink(path);
	}
}

/* Without the variable, small files are read serially. */
Test(callgrind_par, small_files_are_read_serially)
{
	char *path = generate("small.cg", "2 100 9");
	unsetenv("PLUMB_CG_SPLIT");
	plumb_read_opts o = { .functions_only = true };
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_eq(cg_read_parallel(p, path, &o, &err), 1);
	cr_assert_eq(p->frames.n, 0);
	plumb_profile_free(p);
	unlink(path);
}
