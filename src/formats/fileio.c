/* Opening inputs with clear errors, and writing outputs atomically: a
 * temporary file beside the target, renamed over it only when complete. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plumb/formats.h"

FILE *plumb_open_input(const char *path, plumb_error *err)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		plumb_fail(err, PLUMB_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		plumb_fail(err, PLUMB_ERR_IO, "%s: is a directory, expected a profile file", path);
		return NULL;
	}
	FILE *fp = fopen(path, "rb");
	if (!fp)
		plumb_fail(err, PLUMB_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	return fp;
}

static int make_tmp(plumb_atomic_file *af, const char *path, plumb_error *err)
{
	memset(af, 0, sizeof *af);
	size_t n = strlen(path);
	af->path = strdup(path);
	af->tmp_path = malloc(n + sizeof ".tmp-XXXXXX");
	if (!af->path || !af->tmp_path) {
		free(af->path);
		free(af->tmp_path);
		return plumb_fail_nomem(err);
	}
	memcpy(af->tmp_path, path, n);
	memcpy(af->tmp_path + n, ".tmp-XXXXXX", sizeof ".tmp-XXXXXX");
	int fd = mkstemp(af->tmp_path);
	if (fd < 0) {
		int e = errno;
		free(af->path);
		free(af->tmp_path);
		memset(af, 0, sizeof *af);
		return plumb_fail(err, PLUMB_ERR_IO, "%s: cannot create output: %s", path, strerror(e));
	}
	/* mkstemp makes 0600 files; outputs should get the usual umask mode. */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	return fd;
}

int plumb_atomic_open(plumb_atomic_file *af, const char *path, plumb_error *err)
{
	int fd = make_tmp(af, path, err);
	if (fd < 0)
		return -1;
	af->fp = fdopen(fd, "wb");
	if (!af->fp) {
		close(fd);
		plumb_atomic_abort(af);
		return plumb_fail_nomem(err);
	}
	return 0;
}

int plumb_atomic_reserve(plumb_atomic_file *af, const char *path, plumb_error *err)
{
	int fd = make_tmp(af, path, err);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int plumb_atomic_commit(plumb_atomic_file *af, plumb_error *err)
{
	int e = 0;
	if (af->fp) {
		if (fflush(af->fp) != 0 || ferror(af->fp) || fsync(fileno(af->fp)) != 0)
			e = errno ? errno : EIO;
		if (fclose(af->fp) != 0 && !e)
			e = errno;
		af->fp = NULL;
	} else {
		int fd = open(af->tmp_path, O_RDONLY);
		if (fd >= 0) {
			fsync(fd);
			close(fd);
		}
	}
	if (!e && rename(af->tmp_path, af->path) != 0)
		e = errno;
	if (e) {
		plumb_fail(err, PLUMB_ERR_IO, "%s: cannot write: %s", af->path, strerror(e));
		plumb_atomic_abort(af);
		return -1;
	}
	free(af->path);
	free(af->tmp_path);
	memset(af, 0, sizeof *af);
	return 0;
}

void plumb_atomic_abort(plumb_atomic_file *af)
{
	if (af->fp)
		fclose(af->fp);
	if (af->tmp_path)
		unlink(af->tmp_path);
	free(af->path);
	free(af->tmp_path);
	memset(af, 0, sizeof *af);
}
