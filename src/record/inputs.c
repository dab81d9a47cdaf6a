/* plumb record on a program built with plumb cc: no sampling; the program's
 * runtime measures everything and writes aprof reports into a temporary
 * directory, which become the profile's parts. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plumb/formats.h"
#include "plumb/inputs.h"
#include "record/inputs_lines.h"

bool plumb_inputs_instrumented(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool found = false;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx;
	if (e && elf_kind(e) == ELF_K_ELF && elf_getshdrstrndx(e, &shstrndx) == 0) {
		for (Elf_Scn *s = elf_nextscn(e, NULL); s && !found; s = elf_nextscn(e, s)) {
			GElf_Shdr sh;
			const char *name = gelf_getshdr(s, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
			found = name && strcmp(name, ".plumb_inputs") == 0;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return found;
}

char *plumb_inputs_which(const char *name)
{
	if (strchr(name, '/'))
		return strdup(name);
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path;; ) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		size_t size = len + strlen(name) + 3;
		char *cand = malloc(size);
		if (!cand)
			return NULL;
		snprintf(cand, size, "%.*s/%s", (int)len, len ? p : ".", name);
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		if (!colon)
			return NULL;
		p = colon + 1;
	}
}

static int by_version(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* The reports in dir, in the order of process and thread numbers. */
static int list_reports(const char *dir, char ***out, size_t *n, plumb_error *err)
{
	*out = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return plumb_fail(err, PLUMB_ERR_IO, "%s: %s", dir, strerror(errno));
	size_t cap = 0;
	for (struct dirent *de; (de = readdir(d));) {
		size_t len = strlen(de->d_name);
		if (len < 7 || strcmp(de->d_name + len - 6, ".aprof") != 0)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			char **v = realloc(*out, cap * sizeof *v);
			if (!v)
				goto nomem;
			*out = v;
		}
		if (!((*out)[*n] = strdup(de->d_name)))
			goto nomem;
		(*n)++;
	}
	closedir(d);
	qsort(*out, *n, sizeof **out, by_version);
	return 0;
nomem:
	closedir(d);
	return plumb_fail_nomem(err);
}

/* Everything in dir (reports, and a report left half-written by a killed
 * thread), then dir. */
static void remove_dir(const char *dir)
{
	char path[4096 + 512];
	DIR *d = opendir(dir);
	for (struct dirent *de; d && (de = readdir(d));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static int run(const plumb_inputs_opts *o, const char *dir, int *wait_status, plumb_error *err)
{
	char memres[16];
	snprintf(memres, sizeof memres, "%u", o->memres ? o->memres : 4);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return plumb_fail(err, PLUMB_ERR_IO, "cannot fork: %s", strerror(errno));
	if (pid == 0) {
		setenv("PLUMB_APROF_DIR", dir, 1);
		setenv("PLUMB_APROF_MEMRES", memres, 1);
		setenv("PLUMB_APROF_CONTEXTS", o->no_contexts ? "no" : "yes", 1);
		setenv("PLUMB_APROF_DRMS", o->drms ? "yes" : "no", 1);
		setenv("PLUMB_APROF_COST", o->cost_time ? "time" : "bb", 1);
		/* per-line costs need contexts (and blocks for their cost) */
		setenv("PLUMB_APROF_LINES", o->no_contexts || o->cost_time ? "no" : "yes", 1);
		execvp(o->argv[0], o->argv);
		fprintf(stderr, "plumb record: cannot run %s: %s\n", o->argv[0], strerror(errno));
		_exit(127);
	}
	if (o->started)
		o->started(pid, o->ctx);
	while (waitpid(pid, wait_status, 0) < 0)
		if (errno != EINTR)
			return plumb_fail(err, PLUMB_ERR_IO, "waiting for %s: %s", o->argv[0], strerror(errno));
	if (WIFEXITED(*wait_status) && WEXITSTATUS(*wait_status) == 127)
		return plumb_fail(err, PLUMB_ERR_IO, "cannot run %s", o->argv[0]);
	return 0;
}

int plumb_record_inputs(const plumb_inputs_opts *o, plumb_profile *p, int *wait_status,
			size_t *nreports, plumb_error *err)
{
	*wait_status = -1;
	*nreports = 0;
	const char *tmp = getenv("TMPDIR");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/plumb-inputs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return plumb_fail(err, PLUMB_ERR_IO, "cannot make a temporary directory %s: %s", dir,
				  strerror(errno));
	char **names = NULL;
	size_t n = 0;
	int rc = run(o, dir, wait_status, err);
	if (rc == 0)
		rc = list_reports(dir, &names, &n, err);
	if (rc == 0 && n == 0)
		rc = plumb_fail(err, PLUMB_ERR_FORMAT, "%s wrote no report (killed by a signal it cannot "
				"catch, or it never ran instrumented code)", o->argv[0]);
	plumb_read_opts ro = { 0 };
	char path[4096 + 512];
	for (size_t i = 0; rc == 0 && i < n; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		size_t parts = p->parts.n;
		rc = plumb_read_file(p, path, &ro, NULL, err);
		if (rc == 0 && p->parts.n == parts + 1)
			rc = plumb_inputs_add_lines(p, (plumb_id)parts, path, err);
	}
	if (rc == 0)
		*nreports = n;
	remove_dir(dir);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}
