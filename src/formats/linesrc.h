/* Private to the readers: a file read line by line, plain or gzip/zstd
 * compressed (found by the magic bytes, not the name), through one buffer
 * that is refilled as the lines are consumed. Offsets are 64-bit, so files
 * of any size are read; memory stays at the buffer (and the longest line). */
#ifndef PLUMB_FORMATS_LINESRC_H
#define PLUMB_FORMATS_LINESRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plumb/error.h"

typedef enum plumb_compression {
	PLUMB_COMP_NONE = 0,
	PLUMB_COMP_GZIP,
	PLUMB_COMP_ZSTD
} plumb_compression;

/* The longest line a text reader takes (a bound on its memory). */
#define PLUMB_LINE_MAX (16 << 20)

typedef struct plumb_linesrc {
	const char *path;
	uint64_t offset;         /* byte offset (of the text) of buf[0] */
	int fd;
	plumb_compression comp;
	char *buf;               /* decompressed text; lines are [pos, end) */
	size_t cap, pos, end, scanned;
	bool eof;                /* no more text will come */
	unsigned char *in;       /* compressed input */
	size_t in_cap, in_pos, in_len;
	bool in_eof, stream_done;
	void *z;                 /* z_stream or ZSTD_DStream */
	uint64_t file_done;      /* bytes of the file read (compressed, if it is) */
	uint64_t mark;           /* file_done as of the text in buf (progress) */
	struct plumb_readahead *ra; /* reading and decompressing on a second
				  * thread (big files), or NULL */
	uint64_t file_size;      /* 0: not a regular file */
	uint64_t line_off;       /* byte offset of the last line given */
	bool no_readahead;       /* set after open: read on this thread only
				  * (a parallel reader's pieces are threads already) */
	void (*progress)(void *ctx, const char *path, uint64_t done, uint64_t total);
	void *progress_ctx;      /* told at each refill (plumb_read_opts.progress) */
} plumb_linesrc;

/* The compression a file's first bytes announce. */
plumb_compression plumb_compression_of(const unsigned char *head, size_t len);

int plumb_linesrc_open(plumb_linesrc *s, const char *path, plumb_error *err);
/* Files of at least this many bytes are read ahead on a second thread
 * (formats/readahead.h); the text is the same either way. Tests set it. */
extern uint64_t plumb_linesrc_readahead_min;
/* The next line, without its '\n' (a '\r' before it stays): 1 with *line
 * and *len set (valid until the next call), 0 at the end, -1 on error: a
 * line over PLUMB_LINE_MAX bytes, a NUL byte (both named by byte offset of
 * the text, decompressed when the file is), or a failed read. */
int plumb_linesrc_next(plumb_linesrc *s, char **line, size_t *len, plumb_error *err);
void plumb_linesrc_close(plumb_linesrc *s);
/* Before the first line of an uncompressed file: start at byte off (a
 * line's start), as if the lines before had been read. -1 otherwise. */
int plumb_linesrc_seek(plumb_linesrc *s, uint64_t off, plumb_error *err);

/* The first cap bytes of the file's text (decompressed if it is
 * compressed) for format detection; *comp says how it was stored. */
int plumb_read_head(const char *path, unsigned char *buf, size_t cap, size_t *n,
		    plumb_compression *comp, plumb_error *err);

#endif
