/* Private to the readers: one of the two places libplumb starts a thread
 * (jobs.h, a job queue, is the other). A read-ahead fills chunks of bytes
 * on a second thread (read(2) and gzip or zstd decompression) while the
 * reader parses the chunk before: the bytes
 * come out exactly as the fill function gives them, in order, so a reader
 * reads the same text whether or not it runs. Two chunks in flight bound
 * its memory. The fill function runs only on the read-ahead's thread from
 * start to stop: what it touches must not be touched by the caller then. */
#ifndef PLUMB_FORMATS_READAHEAD_H
#define PLUMB_FORMATS_READAHEAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "plumb/error.h"

/* Up to n bytes into dst: the count, 0 at the end, -1 with err filled.
 * *mark: where the source stands (bytes of the file read), for progress. */
typedef ssize_t (*plumb_fill_fn)(void *ctx, char *dst, size_t n, uint64_t *mark, plumb_error *err);

#define PLUMB_RA_SLOTS 2

typedef struct plumb_readahead {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	plumb_fill_fn fill;
	void *ctx;
	size_t chunk;
	struct {
		char *buf;
		size_t len;      /* bytes in buf */
		uint64_t mark;   /* the fill's mark after them */
		int state;       /* 0 free, 1 full, 2 the end (len 0), 3 failed */
	} slot[PLUMB_RA_SLOTS];
	unsigned head;       /* the slot the consumer reads */
	size_t used;         /* bytes of it taken */
	bool stop;           /* the consumer is done: the thread ends */
	plumb_error err;     /* the fill's error (state 3) */
} plumb_readahead;

/* Start the thread; -1 (err filled) when it cannot start: the caller then
 * reads without it. */
int plumb_readahead_start(plumb_readahead *ra, plumb_fill_fn fill, void *ctx, size_t chunk,
			  plumb_error *err);
/* The next up to n bytes (n > 0: 0 means the end), as the fill gave them:
 * the count, 0 at the end, -1 with the fill's error. *mark gets the mark of the chunk they are from. */
ssize_t plumb_readahead_read(plumb_readahead *ra, char *dst, size_t n, uint64_t *mark,
			     plumb_error *err);
/* Stop the thread and free the chunks (at any point, even mid-file). */
void plumb_readahead_stop(plumb_readahead *ra);

#endif
