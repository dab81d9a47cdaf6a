/* The folded stacks reader in two pieces (PLUMB_FOLDED_SPLIT, see
 * formats/folded.c) against the serial one: the same profile (written back
 * as Callgrind and as folded stacks) or the same error, on the test files
 * and on a generated file with errors on either side of the split. A split
 * read shows in its progress: the first piece reports its end, short of
 * the file's. Run from the top of the tree. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/formats.h"

static int partial; /* progress reports short of the whole file */

static void progress(void *ctx, const char *path, uint64_t done, uint64_t total)
{
	(void)ctx;
	(void)path;
	partial += done < total;
}

static char *snapshot(const char *path, int pct)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	cr_assert_not_null(f);
	char v[16];
	snprintf(v, sizeof v, "%d", pct);
	if (pct >= 0)
		setenv("PLUMB_FOLDED_SPLIT", v, 1);
	plumb_read_opts o = { .progress = progress };
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	if (plumb_folded_read(p, path, &o, &err))
		fprintf(f, "error: %s\n", err.message);
	else if (plumb_write_stream(p, f, "memory", PLUMB_FMT_CALLGRIND, &err) ||
		 plumb_write_stream(p, f, "memory", PLUMB_FMT_FOLDED, &err))
		fprintf(f, "write error: %s\n", err.message);
	unsetenv("PLUMB_FOLDED_SPLIT");
	plumb_profile_free(p);
	fclose(f);
	return buf;
}

/* The same at every split point; the reads that were split. */
static int compare_splits(const char *path)
{
	partial = 0;
	char *want = snapshot(path, -1);
	cr_assert_eq(partial, 0, "%s: a serial read of a small file reports it whole", path);
	int splits = 0;
	for (int pct = 0; pct <= 100; pct += 5) {
		partial = 0;
		char *got = snapshot(path, pct);
		cr_assert_str_eq(got, want, "%s split at %d%%: not the serial reader's result", path, pct);
		splits += partial > 0;
		free(got);
	}
	free(want);
	return splits;
}

static char *generate(const char *name, int bad_line)
{
	static char path[128];
	snprintf(path, sizeof path, "/tmp/plumb-foldedpar-%d-%s", (int)getpid(), name);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "python3 bench/gen_folded.py %s.in 1000 400 5 && "
		 "awk 'NR==%d{print \"a;b 5 x\"; next} {print}' %s.in > %s && rm %s.in",
		 path, bad_line, path, path, path);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	return path;
}

Test(folded_par, test_files_read_the_same_split_anywhere)
{
	const char *dirs[] = { "tests/data/folded/", "tests/fuzz/folded/" };
	int splits = 0;
	for (size_t d = 0; d < 2; d++) {
		DIR *dir = opendir(dirs[d]);
		cr_assert_not_null(dir);
		struct dirent *e;
		while ((e = readdir(dir))) {
			if (e->d_name[0] == '.')
				continue;
			char path[512];
			snprintf(path, sizeof path, "%s%s", dirs[d], e->d_name);
			splits += compare_splits(path);
		}
		closedir(dir);
	}
	cr_assert_gt(splits, 10, "only %d reads were split", splits);
}

Test(folded_par, generated_stacks_and_errors_read_the_same)
{
	const int bad[] = { 0, 100, 500, 950 }; /* 0: no bad line */
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *path = generate("gen.folded", bad[i]);
		int splits = compare_splits(path);
		cr_assert_gt(splits, bad[i] ? 0 : 15, "bad line %d: split %d times", bad[i], splits);
		unlink(path);
	}
}
