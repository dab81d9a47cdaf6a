/* A function on a second thread: see task.h. */
#include "formats/task.h"

#include <sched.h>
#include <stdio.h>

static void *trampoline(void *arg)
{
	plumb_task *t = arg;
	t->fn(t->arg);
	return NULL;
}

void plumb_task_start(plumb_task *t, void (*fn)(void *arg), void *arg)
{
	t->fn = fn;
	t->arg = arg;
	/* t itself is only read by the thread until the join */
	t->started = pthread_create(&t->thread, NULL, trampoline, t) == 0;
}

void plumb_task_join(plumb_task *t)
{
	if (t->started)
		pthread_join(t->thread, NULL);
	else
		t->fn(t->arg);
	t->started = false;
}

bool plumb_task_cpu_free(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2)
		return false;
	FILE *f = fopen("/proc/loadavg", "r");
	if (!f)
		return true; /* cannot tell: the CPUs are there */
	double l1, l5, l15;
	int running = 0, total = 0;
	int n = fscanf(f, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &total);
	fclose(f);
	/* running counts this thread too */
	return n != 5 || running < CPU_COUNT(&set);
}
