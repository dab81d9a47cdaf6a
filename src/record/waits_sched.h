/* Private to the recorder: --off-cpu's default mode, without switch
 * records. plumb record reads each thread's /proc/PID/task/TID/schedstat
 * (cumulative on-CPU ns, runqueue wait ns) every few milliseconds; a poll
 * period of a thread splits into on-CPU, preempted and blocked time here.
 * docs/waits.md says how each part is charged. */
#ifndef PLUMB_RECORD_WAITS_SCHED_H
#define PLUMB_RECORD_WAITS_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "plumb/record.h"

/* ---- the arithmetic of one period -------------------------------------- */

/* What a thread carries from one period to the next. The kernel updates a
 * running thread's on-CPU sum at ticks and switches only, so a period may
 * show more on-CPU time than it lasted (the last one's, caught up): that
 * excess is owed by the next periods' off-CPU time, never dropped, so the
 * thread's off-CPU total stays its elapsed time less its on-CPU time. A
 * runqueue wait larger than the period's off-CPU time waits likewise. */
typedef struct plumb_sched_carry {
	uint64_t debt;         /* on-CPU ns counted ahead of the off-CPU they hide */
	uint64_t delay;        /* runqueue ns not yet placed */
} plumb_sched_carry;

typedef struct plumb_sched_split {
	uint64_t off;          /* off-CPU: elapsed - on-CPU, after the carry */
	uint64_t traced;       /* of off: inside traced calls (at most off) */
	uint64_t preempted;    /* of off: runnable but not running */
	uint64_t pre_traced;   /* of preempted: inside traced calls */
	uint64_t pre_untraced; /* of preempted: outside them (at the CPU samples) */
	uint64_t blocked;      /* of off: outside traced calls, not runnable */
} plumb_sched_split;

/* Split a period of wall ns in which the thread ran exec ns, waited delay
 * ns on a runqueue and spent traced ns in traced calls (their elapsed
 * times within the period). Runqueue time goes first to the time outside
 * traced calls: preemption takes a running thread, and running code is
 * outside them. off = traced + pre_untraced + blocked. */
void plumb_sched_split_period(plumb_sched_carry *c, uint64_t wall, uint64_t exec, uint64_t delay,
			      uint64_t traced, plumb_sched_split *s);

/* ---- the poller (plumb record's loop) ---------------------------------- */

typedef struct plumb_sched_poller plumb_sched_poller;

plumb_sched_poller *plumb_sched_poller_new(void);
void plumb_sched_poller_free(plumb_sched_poller *p);
/* Watch tid of pid: with start, it began at time_ns (its counters were 0
 * then: a fork or clone); else its counters are read now. A thread that
 * has gone already is not an error. */
int plumb_sched_watch(plumb_sched_poller *p, plumb_rec_data *d, int32_t pid, int32_t tid,
		      uint64_t time_ns, bool start, plumb_error *err);
/* Threads being read (0 when the first could not be: no schedstat). */
size_t plumb_sched_watching(const plumb_sched_poller *p);
/* Every thread of pid, read now (-p, as the window opens). */
int plumb_sched_watch_all(plumb_sched_poller *p, plumb_rec_data *d, int32_t pid, plumb_error *err);
/* Watch every thread of root and of its descendant processes not watched
 * yet (read now), found through /proc/PID/task and each thread's
 * children file: the signal sampler has no FORK records to say so. */
int plumb_sched_scan(plumb_sched_poller *p, plumb_rec_data *d, int32_t root, plumb_error *err);
/* tid ended at time_ns (PERF_RECORD_EXIT): a last reading if it can still
 * be read (a zombie leader), then its end. */
int plumb_sched_ended(plumb_sched_poller *p, plumb_rec_data *d, int32_t pid, int32_t tid,
		      uint64_t time_ns, plumb_error *err);
/* The time between two polls: period_ns, longer with many threads (100 us
 * a thread), so that reading them costs plumb at most a few percent of a
 * CPU. */
uint64_t plumb_sched_period(const plumb_sched_poller *p, uint64_t period_ns);
/* Read every watched thread now if plumb_sched_period(period_ns) has
 * passed since the last poll (force: now). */
int plumb_sched_poll(plumb_sched_poller *p, plumb_rec_data *d, uint64_t period_ns, bool force,
		     plumb_error *err);

#endif
