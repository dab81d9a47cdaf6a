/* libplumb-sampler.so: the wait tracer (--off-cpu, --sync-wait). The
 * wrappers of blocking libc calls (wait_hooks.c) time each call and hand
 * it to wt_end, which writes a WAIT record (format.h) into the calling
 * thread's sampler buffer. See docs/waits.md. */
#ifndef PLUMB_PRELOAD_WAIT_H
#define PLUMB_PRELOAD_WAIT_H

#include <pthread.h>
#include <stdint.h>

/* Waits shorter than this cannot hold a context switch out and back in:
 * no record (an off-CPU interval needs one to lie in). */
#define WT_MIN_OFFCPU_NS 2000u

struct wt_call {
	uint64_t t0;
	int kind;
	uint32_t holder;       /* the lock's owner when the wait began; 0: unknown */
};

/* PSMP_MODE_* bits in force (0: the wrappers only pass calls on). */
extern int wt_modes;

/* Start timing a call of this kind: 0 when it is not to be traced (the
 * tracer is off, the thread is not sampled, or we are inside our own
 * call). Async-signal-safe. */
int wt_begin(struct wt_call *c, int kind);
/* The call returned: record it. ra is the wrapper's return address (the
 * frames above it are the program's) and sp its caller's stack pointer, fn
 * the real function's address. Keeps errno. */
void wt_end(struct wt_call *c, uint64_t obj, const void *fn, const void *ra, uint64_t sp);
/* The call turned out to be no wait (a lock taken at once): nothing is
 * recorded, and the thread may be timed again. */
void wt_cancel(struct wt_call *c);
/* Are locks tried before they are timed? Not with --sync-wait=0, which
 * counts every call, uncontended ones included. */
int wt_try_locks(void);

/* Read PLUMB_SAMPLER_WAITS (and calibrate); lock/unlock are the real ones. */
void wt_setup(int (*lock)(pthread_mutex_t *), int (*unlock)(pthread_mutex_t *));

/* "PLUMB_SAMPLER_WAITS" value for an exec'd image ("" when off). */
const char *wt_settings(void);

#endif
