/* Lines of a plain, gzip or zstd file through one refilled buffer. */
#include "formats/linesrc.h"
#include "formats/readahead.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define TEXT_CHUNK ((size_t)1 << 20)  /* text buffer, grown for longer lines */
#define IN_CHUNK ((size_t)1 << 18)    /* compressed input per read */

plumb_compression plumb_compression_of(const unsigned char *h, size_t len)
{
	if (len >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return PLUMB_COMP_GZIP;
	if (len >= 4 && h[0] == 0x28 && h[1] == 0xb5 && h[2] == 0x2f && h[3] == 0xfd)
		return PLUMB_COMP_ZSTD;
	return PLUMB_COMP_NONE;
}

static const char *comp_name(plumb_compression c)
{
	return c == PLUMB_COMP_GZIP ? "gzip" : "zstd";
}

/* read() until n bytes or the end; -1 on error. */
static ssize_t read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static int io_fail(plumb_linesrc *s, plumb_error *err)
{
	return plumb_fail(err, PLUMB_ERR_IO, "%s: read error: %s", s->path, strerror(errno));
}

static int open_input(const char *path, plumb_error *err)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return plumb_fail(err, PLUMB_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return plumb_fail(err, PLUMB_ERR_IO, "%s: is a directory, expected a profile file", path);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return plumb_fail(err, PLUMB_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return fd;
}

/* Refill the compressed input buffer when it is used up. */
static int fill_input(plumb_linesrc *s, plumb_error *err)
{
	if (s->in_pos < s->in_len || s->in_eof)
		return 0;
	ssize_t r = read_full(s->fd, s->in, s->in_cap);
	if (r < 0)
		return io_fail(s, err);
	s->file_done += (uint64_t)r;
	s->in_pos = 0;
	s->in_len = (size_t)r;
	s->in_eof = r == 0;
	return 0;
}

static int truncated(plumb_linesrc *s, plumb_error *err)
{
	return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: the %s data ends early (truncated file?)",
			  s->path, comp_name(s->comp));
}

/* Decompress gzip members (several may follow each other) into dst. */
static ssize_t gzip_text(plumb_linesrc *s, char *dst, size_t n, plumb_error *err)
{
	z_stream *zs = s->z;
	zs->next_out = (Bytef *)dst;
	zs->avail_out = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
	while (zs->avail_out > 0) {
		if (fill_input(s, err))
			return -1;
		if (s->in_pos == s->in_len) {
			if (!s->stream_done)
				return truncated(s, err);
			break;
		}
		if (s->stream_done) {
			if (inflateReset(zs) != Z_OK)
				return plumb_fail_nomem(err);
			s->stream_done = false;
		}
		zs->next_in = s->in + s->in_pos;
		zs->avail_in = (uInt)(s->in_len - s->in_pos);
		int rc = inflate(zs, Z_NO_FLUSH);
		s->in_pos = s->in_len - zs->avail_in;
		if (rc == Z_STREAM_END)
			s->stream_done = true;
		else if (rc == Z_MEM_ERROR)
			return plumb_fail_nomem(err);
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: bad gzip data: %s", s->path,
					  zs->msg ? zs->msg : "inflate failed");
	}
	return (ssize_t)(n - zs->avail_out);
}

/* Decompress zstd frames into dst. */
static ssize_t zstd_text(plumb_linesrc *s, char *dst, size_t n, plumb_error *err)
{
	ZSTD_outBuffer out = { dst, n, 0 };
	while (out.pos < out.size) {
		if (fill_input(s, err))
			return -1;
		if (s->in_pos == s->in_len) {
			if (!s->stream_done)
				return truncated(s, err);
			break;
		}
		ZSTD_inBuffer in = { s->in, s->in_len, s->in_pos };
		size_t rc = ZSTD_decompressStream(s->z, &out, &in);
		s->in_pos = in.pos;
		if (ZSTD_isError(rc))
			return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: bad zstd data: %s", s->path,
					  ZSTD_getErrorName(rc));
		s->stream_done = rc == 0; /* a frame ended; another may follow */
	}
	return (ssize_t)out.pos;
}

/* Up to n bytes of text into dst; 0 at the end. */
static ssize_t get_text(plumb_linesrc *s, char *dst, size_t n, plumb_error *err)
{
	if (s->comp == PLUMB_COMP_GZIP)
		return gzip_text(s, dst, n, err);
	if (s->comp == PLUMB_COMP_ZSTD)
		return zstd_text(s, dst, n, err);
	ssize_t r = read_full(s->fd, dst, n);
	if (r < 0)
		return io_fail(s, err);
	s->file_done += (uint64_t)r;
	return r;
}

uint64_t plumb_linesrc_readahead_min = (uint64_t)8 << 20;

/* get_text on the read-ahead's thread: from then on only it touches the
 * file, the decoder and file_done. */
static ssize_t fill_text(void *ctx, char *dst, size_t n, uint64_t *mark, plumb_error *err)
{
	plumb_linesrc *s = ctx;
	ssize_t r = get_text(s, dst, n, err);
	*mark = s->file_done;
	return r;
}

/* The next text, from the read-ahead once one runs. A big file starts one
 * at its first refill (not at open: plumb_read_head reads directly). */
static ssize_t next_text(plumb_linesrc *s, char *dst, size_t n, plumb_error *err)
{
	if (!s->ra && !s->no_readahead && s->file_size >= plumb_linesrc_readahead_min &&
	    s->mark == 0) {
		plumb_readahead *ra = malloc(sizeof *ra);
		plumb_error ignored;
		if (ra && plumb_readahead_start(ra, fill_text, s, TEXT_CHUNK, &ignored) == 0)
			s->ra = ra;
		else
			free(ra); /* read on this thread then */
	}
	if (s->ra)
		return plumb_readahead_read(s->ra, dst, n, &s->mark, err);
	ssize_t r = get_text(s, dst, n, err);
	s->mark = s->file_done;
	return r;
}

static int setup_decoder(plumb_linesrc *s, plumb_error *err)
{
	s->in_cap = IN_CHUNK;
	if (!(s->in = malloc(s->in_cap)))
		return plumb_fail_nomem(err);
	if (s->comp == PLUMB_COMP_GZIP) {
		z_stream *zs = calloc(1, sizeof *zs);
		if (!zs || inflateInit2(zs, 15 + 32) != Z_OK) {
			free(zs);
			return plumb_fail_nomem(err);
		}
		s->z = zs;
	} else {
		if (!(s->z = ZSTD_createDStream()) || ZSTD_isError(ZSTD_initDStream(s->z)))
			return plumb_fail_nomem(err);
	}
	return 0;
}

int plumb_linesrc_open(plumb_linesrc *s, const char *path, plumb_error *err)
{
	memset(s, 0, sizeof *s);
	s->path = path;
	s->fd = -1;
	if ((s->fd = open_input(path, err)) < 0)
		return -1;
	s->cap = TEXT_CHUNK;
	if (!(s->buf = malloc(s->cap + 1))) {
		plumb_linesrc_close(s);
		return plumb_fail_nomem(err);
	}
	unsigned char magic[4];
	ssize_t r = read_full(s->fd, magic, sizeof magic);
	if (r < 0 || lseek(s->fd, 0, SEEK_SET) != 0) {
		io_fail(s, err);
		plumb_linesrc_close(s);
		return -1;
	}
	s->comp = plumb_compression_of(magic, (size_t)r);
	struct stat st;
	if (fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode))
		s->file_size = (uint64_t)st.st_size;
	if (s->comp != PLUMB_COMP_NONE && setup_decoder(s, err)) {
		plumb_linesrc_close(s);
		return -1;
	}
	return 0;
}

int plumb_linesrc_seek(plumb_linesrc *s, uint64_t off, plumb_error *err)
{
	if (s->comp != PLUMB_COMP_NONE || s->end || s->ra || off > (uint64_t)INT64_MAX)
		return plumb_fail(err, PLUMB_ERR_USAGE, "%s: cannot start reading at byte %llu",
				  s->path, (unsigned long long)off);
	if (lseek(s->fd, (off_t)off, SEEK_SET) < 0)
		return io_fail(s, err);
	s->offset = s->file_done = s->mark = off;
	return 0;
}

void plumb_linesrc_close(plumb_linesrc *s)
{
	if (s->ra) {
		plumb_readahead_stop(s->ra);
		free(s->ra);
	}
	if (s->z && s->comp == PLUMB_COMP_GZIP) {
		inflateEnd(s->z);
		free(s->z);
	} else if (s->z) {
		ZSTD_freeDStream(s->z);
	}
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	free(s->in);
	memset(s, 0, sizeof *s);
	s->fd = -1;
}

/* Move the unread text to the front, grow the buffer if a line fills it,
 * and read more text after it. */
static int refill(plumb_linesrc *s, plumb_error *err)
{
	size_t keep = s->end - s->pos;
	if (keep >= PLUMB_LINE_MAX)
		return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: byte offset %llu: a line of more than "
				  "%d MiB: not a profile plumb reads (a text profile's lines are short)",
				  s->path, (unsigned long long)(s->offset + s->pos), PLUMB_LINE_MAX >> 20);
	if (s->pos > 0) {
		s->offset += s->pos;
		memmove(s->buf, s->buf + s->pos, keep);
		s->scanned -= s->pos;
		s->pos = 0;
		s->end = keep;
	}
	if (s->end == s->cap) {
		if (s->cap > SIZE_MAX / 4)
			return plumb_fail_nomem(err);
		char *nb = realloc(s->buf, s->cap * 2 + 1);
		if (!nb)
			return plumb_fail_nomem(err);
		s->buf = nb;
		s->cap *= 2;
	}
	ssize_t r = next_text(s, s->buf + s->end, s->cap - s->end, err);
	if (r < 0)
		return -1;
	s->end += (size_t)r;
	s->eof = r == 0;
	if (s->progress)
		s->progress(s->progress_ctx, s->path, s->mark, s->file_size);
	return 0;
}

int plumb_linesrc_next(plumb_linesrc *s, char **line, size_t *len, plumb_error *err)
{
	for (;;) {
		char *nl = memchr(s->buf + s->scanned, '\n', s->end - s->scanned);
		/* text profiles hold no NUL: a binary or sparse file is refused
		 * where it starts, not read as empty lines */
		char *nul = memchr(s->buf + s->scanned, '\0',
				   (nl ? (size_t)(nl - s->buf) : s->end) - s->scanned);
		if (nul)
			return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: byte offset %llu: a NUL byte, "
					  "which no text profile holds", s->path,
					  (unsigned long long)(s->offset + (size_t)(nul - s->buf)));
		if (nl) {
			s->line_off = s->offset + s->pos;
			*line = s->buf + s->pos;
			*len = (size_t)(nl - *line);
			s->pos = s->scanned = (size_t)(nl - s->buf) + 1;
			return 1;
		}
		s->scanned = s->end;
		if (s->eof) {
			if (s->pos == s->end)
				return 0;
			s->line_off = s->offset + s->pos;
			*line = s->buf + s->pos; /* a last line without '\n' */
			*len = s->end - s->pos;
			s->pos = s->scanned = s->end;
			return 1;
		}
		if (refill(s, err))
			return -1;
	}
}

int plumb_read_head(const char *path, unsigned char *buf, size_t cap, size_t *n,
		    plumb_compression *comp, plumb_error *err)
{
	plumb_linesrc s;
	if (plumb_linesrc_open(&s, path, err))
		return -1;
	*comp = s.comp;
	size_t got = 0;
	while (got < cap) {
		ssize_t r = get_text(&s, (char *)buf + got, cap - got, err);
		if (r < 0 && s.comp != PLUMB_COMP_NONE && got > 0)
			break; /* a damaged stream: detect on what came out; the reader reports it */
		if (r < 0) {
			plumb_linesrc_close(&s);
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	plumb_linesrc_close(&s);
	*n = got;
	return 0;
}
