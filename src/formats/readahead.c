/* A read-ahead thread (see readahead.h): a ring of PLUMB_RA_SLOTS chunks
 * under one mutex. The thread fills the free slot after the last one it
 * filled and waits while none is free; the consumer takes the slots in the
 * same order and frees each when it has copied all of it. */
#include "formats/readahead.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

enum { FREE, FULL, END, FAILED };

static void *fill_loop(void *arg)
{
	plumb_readahead *ra = arg;
	for (unsigned i = 0;; i = (i + 1) % PLUMB_RA_SLOTS) {
		pthread_mutex_lock(&ra->mu);
		while (ra->slot[i].state != FREE && !ra->stop)
			pthread_cond_wait(&ra->cv, &ra->mu);
		bool stop = ra->stop;
		pthread_mutex_unlock(&ra->mu);
		if (stop)
			return NULL;
		/* the slot is ours until marked: the consumer waits for it */
		uint64_t mark = 0;
		plumb_error err;
		ssize_t n = ra->fill(ra->ctx, ra->slot[i].buf, ra->chunk, &mark, &err);
		pthread_mutex_lock(&ra->mu);
		ra->slot[i].len = n > 0 ? (size_t)n : 0;
		ra->slot[i].mark = mark;
		ra->slot[i].state = n > 0 ? FULL : n == 0 ? END : FAILED;
		if (n < 0)
			ra->err = err;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->mu);
		if (n <= 0)
			return NULL; /* nothing comes after the end or an error */
	}
}

int plumb_readahead_start(plumb_readahead *ra, plumb_fill_fn fill, void *ctx, size_t chunk,
			  plumb_error *err)
{
	memset(ra, 0, sizeof *ra);
	ra->fill = fill;
	ra->ctx = ctx;
	ra->chunk = chunk;
	for (unsigned i = 0; i < PLUMB_RA_SLOTS; i++)
		if (!(ra->slot[i].buf = malloc(chunk))) {
			for (unsigned k = 0; k < i; k++)
				free(ra->slot[k].buf);
			return plumb_fail_nomem(err);
		}
	pthread_mutex_init(&ra->mu, NULL);
	pthread_cond_init(&ra->cv, NULL);
	if (pthread_create(&ra->thread, NULL, fill_loop, ra) != 0) {
		pthread_mutex_destroy(&ra->mu);
		pthread_cond_destroy(&ra->cv);
		for (unsigned i = 0; i < PLUMB_RA_SLOTS; i++)
			free(ra->slot[i].buf);
		memset(ra, 0, sizeof *ra);
		return plumb_fail(err, PLUMB_ERR_NOMEM, "cannot start a read-ahead thread");
	}
	return 0;
}

ssize_t plumb_readahead_read(plumb_readahead *ra, char *dst, size_t n, uint64_t *mark,
			     plumb_error *err)
{
	assert(n > 0); /* else a count of 0 would read as the end */
	unsigned i = ra->head;
	pthread_mutex_lock(&ra->mu);
	while (ra->slot[i].state == FREE)
		pthread_cond_wait(&ra->cv, &ra->mu);
	int state = ra->slot[i].state;
	pthread_mutex_unlock(&ra->mu);
	if (state == FAILED) {
		*err = ra->err;
		return -1;
	}
	if (state == END)
		return 0; /* stays at the end: later calls say so again */
	/* a full slot is the consumer's until it frees it */
	size_t k = ra->slot[i].len - ra->used;
	if (k > n)
		k = n;
	memcpy(dst, ra->slot[i].buf + ra->used, k);
	*mark = ra->slot[i].mark;
	ra->used += k;
	if (ra->used == ra->slot[i].len) {
		pthread_mutex_lock(&ra->mu);
		ra->slot[i].state = FREE;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->mu);
		ra->head = (i + 1) % PLUMB_RA_SLOTS;
		ra->used = 0;
	}
	return (ssize_t)k;
}

void plumb_readahead_stop(plumb_readahead *ra)
{
	if (!ra->fill)
		return; /* never started */
	pthread_mutex_lock(&ra->mu);
	ra->stop = true;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	pthread_join(ra->thread, NULL);
	pthread_mutex_destroy(&ra->mu);
	pthread_cond_destroy(&ra->cv);
	for (unsigned i = 0; i < PLUMB_RA_SLOTS; i++)
		free(ra->slot[i].buf);
	memset(ra, 0, sizeof *ra);
}
