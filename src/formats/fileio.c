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

/* The file an output path stands for: a symbolic link's target (followed
 * as cp follows it, also when the target does not exist yet), else path. */
static char *output_target(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
		return strdup(path);
	char *real = realpath(path, NULL);
	if (real)
		return real;
	/* a dangling link: the name it holds, relative to the link's directory */
	char link[4096];
	ssize_t n = readlink(path, link, sizeof link - 1);
	if (n <= 0)
		return strdup(path);
	link[n] = '\0';
	const char *slash = strrchr(path, '/');
	if (link[0] == '/' || !slash)
		return strdup(link);
	size_t dir = (size_t)(slash - path) + 1;
	char *joined = malloc(dir + (size_t)n + 1);
	if (joined) {
		memcpy(joined, path, dir);
		memcpy(joined + dir, link, (size_t)n + 1);
	}
	return joined;
}

/* A temporary file for the output to path: beside it, or in $TMPDIR for a
 * special file (never create files in /dev). Returns its fd. */
int plumb_spool_input(const char *path, char **tmp_out, plumb_error *err)
{
	*tmp_out = NULL;
	struct stat st;
	bool is_stdin = strcmp(path, "-") == 0;
	if (!is_stdin && (stat(path, &st) != 0 || !S_ISFIFO(st.st_mode)))
		return 0; /* a file the readers open themselves (or report) */
	int in = is_stdin ? STDIN_FILENO : open(path, O_RDONLY);
	if (in < 0)
		return plumb_fail(err, PLUMB_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	const char *tmpdir = getenv("TMPDIR");
	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	char *tmp = malloc(strlen(tmpdir) + sizeof "/plumb-in.XXXXXX");
	if (!tmp) {
		if (!is_stdin)
			close(in);
		return plumb_fail_nomem(err);
	}
	sprintf(tmp, "%s/plumb-in.XXXXXX", tmpdir);
	int out = mkstemp(tmp);
	int e = out < 0 ? errno : 0;
	char buf[65536];
	while (!e) {
		ssize_t n = read(in, buf, sizeof buf);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno != EINTR)
				e = errno;
			continue;
		}
		for (ssize_t done = 0; done < n && !e;) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));
			if (w < 0 && errno != EINTR)
				e = errno;
			else if (w > 0)
				done += w;
		}
	}
	if (!is_stdin)
		close(in);
	if (out >= 0 && close(out) != 0 && !e)
		e = errno;
	if (e) {
		if (out >= 0)
			unlink(tmp);
		free(tmp);
		return plumb_fail(err, PLUMB_ERR_IO, "%s: cannot read it into a temporary file: %s",
				  is_stdin ? "standard input" : path, strerror(e));
	}
	*tmp_out = tmp;
	return 0;
}

static int make_tmp(plumb_atomic_file *af, const char *path, plumb_error *err)
{
	memset(af, 0, sizeof *af);
	af->path = output_target(path);
	if (!af->path)
		return plumb_fail_nomem(err);
	struct stat st;
	bool exists = stat(af->path, &st) == 0;
	af->special = exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
	const char *tmpdir = getenv("TMPDIR");
	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	size_t n = strlen(af->path);
	af->tmp_path = af->special ? malloc(strlen(tmpdir) + sizeof "/plumb-out.tmp-XXXXXX")
				   : malloc(n + sizeof ".tmp-XXXXXX");
	if (!af->tmp_path) {
		free(af->path);
		memset(af, 0, sizeof *af);
		return plumb_fail_nomem(err);
	}
	if (af->special)
		sprintf(af->tmp_path, "%s/plumb-out.tmp-XXXXXX", tmpdir);
	else
		sprintf(af->tmp_path, "%s.tmp-XXXXXX", af->path);
	int fd = mkstemp(af->tmp_path);
	if (fd < 0) {
		int e = errno;
		plumb_fail(err, PLUMB_ERR_IO, "%s: cannot create output: %s", path, strerror(e));
		free(af->path);
		free(af->tmp_path);
		memset(af, 0, sizeof *af);
		return -1;
	}
	if (exists && S_ISREG(st.st_mode)) {
		/* a replaced file keeps its mode, and its owner where we may set it */
		fchmod(fd, st.st_mode & 07777);
		if (geteuid() == 0 && fchown(fd, st.st_uid, st.st_gid) == 0)
			fchmod(fd, st.st_mode & 07777); /* chown clears set-id bits */
	} else {
		/* mkstemp makes 0600 files; a new output gets the usual umask mode */
		mode_t mask = umask(0);
		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	return fd;
}

/* Copy the finished temporary file into the special file at af->path. */
static int copy_into_special(const plumb_atomic_file *af)
{
	int in = open(af->tmp_path, O_RDONLY);
	if (in < 0)
		return errno;
	int out = open(af->path, O_WRONLY);
	if (out < 0) {
		int e = errno;
		close(in);
		return e;
	}
	int e = 0;
	char buf[65536];
	for (;;) {
		ssize_t n = read(in, buf, sizeof buf);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			break;
		}
		for (ssize_t done = 0; done < n && !e;) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));
			if (w < 0 && errno != EINTR)
				e = errno;
			else if (w > 0)
				done += w;
		}
		if (e)
			break;
	}
	close(in);
	if (close(out) != 0 && !e)
		e = errno;
	return e;
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
	if (!e && af->special) {
		e = copy_into_special(af);
		unlink(af->tmp_path);
	} else if (!e && rename(af->tmp_path, af->path) != 0) {
		e = errno;
	}
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

/* ---- a stream that reports its progress ------------------------------------- */

#define PROGRESS_STEP (1u << 20) /* bytes between reports (the CLI redraws by time) */

typedef struct progress_cookie {
	FILE *out;
	const char *path;
	plumb_write_progress wp;
	uint64_t done, reported;
} progress_cookie;

static ssize_t progress_write(void *c, const char *buf, size_t n)
{
	progress_cookie *pc = c;
	size_t w = fwrite(buf, 1, n, pc->out);
	pc->done += w;
	if (pc->wp.fn && pc->done - pc->reported >= PROGRESS_STEP) {
		pc->reported = pc->done;
		pc->wp.fn(pc->wp.ctx, pc->path, pc->done, 0);
	}
	return w == n ? (ssize_t)n : -1;
}

static int progress_close(void *c)
{
	progress_cookie *pc = c;
	int rc = fflush(pc->out) == 0 && !ferror(pc->out) ? 0 : -1;
	if (pc->wp.fn)
		pc->wp.fn(pc->wp.ctx, pc->path, pc->done, pc->done);
	free(pc);
	return rc;
}

FILE *plumb_progress_stream(FILE *out, const char *path, const plumb_write_progress *wp)
{
	progress_cookie *pc = malloc(sizeof *pc);
	if (!pc)
		return NULL;
	*pc = (progress_cookie){ out, path, *wp, 0, 0 };
	cookie_io_functions_t io = { .write = progress_write, .close = progress_close };
	FILE *f = fopencookie(pc, "w", io);
	if (!f)
		free(pc);
	return f;
}
