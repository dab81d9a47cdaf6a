/* A function on a second thread: see task.h. */
#include "formats/task.h"

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
