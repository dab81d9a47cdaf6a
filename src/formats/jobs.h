/* Private to libplumb: the second place it starts a thread (readahead.h is
 * the first). A queue of jobs and one helper thread that runs them as they
 * are queued; the caller runs the ones still queued when it waits, so that
 * two cores share the work. Each job owns what it touches from the time it
 * is queued until plumb_jobs_wait returns: the caller and the other jobs
 * must not touch it then. */
#ifndef PLUMB_FORMATS_JOBS_H
#define PLUMB_FORMATS_JOBS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct plumb_job plumb_job;
/* worker: 0 on the caller's thread, 1 on the helper's (for state kept per
 * thread, such as a compressor) */
typedef void (*plumb_job_fn)(plumb_job *job, unsigned worker);

struct plumb_job {
	plumb_job_fn run;
	plumb_job *next;          /* the queue's */
};

typedef struct plumb_jobs {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	plumb_job *head, *tail;   /* queued, not started */
	unsigned running;         /* started, not done */
	bool threaded, stop;
} plumb_jobs;

/* Start the helper; without it (it cannot start) the caller runs every job
 * when it waits. */
void plumb_jobs_start(plumb_jobs *q);
/* Queue job (its run set): the helper takes it when it is free. */
void plumb_jobs_add(plumb_jobs *q, plumb_job *job);
/* Run the jobs still queued, wait for the helper's, and stop it. */
void plumb_jobs_wait(plumb_jobs *q);
/* Is a CPU free for a second thread right now (this process may run on
 * two or more, and fewer threads are runnable than there are CPUs)? For
 * work split in two that costs more CPU in all: on a busy machine it is
 * only slower. A guess from one look at /proc/loadavg. */
bool plumb_jobs_cpu_free(void);

#endif
