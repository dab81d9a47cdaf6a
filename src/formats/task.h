/* Private to the readers: one function run on a second thread while the
 * caller works on its own share (a parallel reader's later piece). The
 * other place libplumb starts a thread is formats/readahead.h.
 *
 * Who owns what: from plumb_task_start until plumb_task_join returns, arg
 * and everything reachable only through it belong to fn; the caller must
 * neither read nor write them. Both sides may read what neither writes
 * (the path, the caller's options). After the join, all of it is the
 * caller's again (pthread_join orders fn's writes before the caller's
 * reads). If no thread can start, fn runs on the caller's thread inside
 * plumb_task_join: slower, never different. */
#ifndef PLUMB_FORMATS_TASK_H
#define PLUMB_FORMATS_TASK_H

#include <pthread.h>
#include <stdbool.h>

typedef struct plumb_task {
	pthread_t thread;
	bool started;       /* on its own thread; else run at the join */
	void (*fn)(void *arg);
	void *arg;
} plumb_task;

void plumb_task_start(plumb_task *t, void (*fn)(void *arg), void *arg);
/* Is a CPU free for a second thread right now (this process may run on
 * two or more, and fewer threads are runnable than there are CPUs)? For
 * work split in two that costs more CPU in all: on a busy machine it is
 * only slower. A guess from one look at /proc/loadavg. */
bool plumb_task_cpu_free(void);
/* Wait for fn(arg) to return (or run it now). Called exactly once. */
void plumb_task_join(plumb_task *t);

#endif
