/* A job queue with one helper thread (see jobs.h): a singly linked list of
 * jobs under one mutex; the helper and the waiting caller take them from
 * its head, in the order they were queued. */
#include "formats/jobs.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

/* The next queued job, or NULL (under the mutex). */
static plumb_job *take(plumb_jobs *q)
{
	plumb_job *j = q->head;
	if (j) {
		q->head = j->next;
		if (!q->head)
			q->tail = NULL;
		q->running++;
	}
	return j;
}

/* Run job outside the mutex, then count it done (under it again). */
static void run_one(plumb_jobs *q, plumb_job *j, unsigned worker)
{
	pthread_mutex_unlock(&q->mu);
	j->run(j, worker);
	pthread_mutex_lock(&q->mu);
	q->running--;
	pthread_cond_broadcast(&q->cv);
}

static void *helper(void *arg)
{
	plumb_jobs *q = arg;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		plumb_job *j = take(q);
		if (j)
			run_one(q, j, 1);
		else if (q->stop)
			break;
		else
			pthread_cond_wait(&q->cv, &q->mu);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

void plumb_jobs_start(plumb_jobs *q)
{
	memset(q, 0, sizeof *q);
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	q->threaded = pthread_create(&q->thread, NULL, helper, q) == 0;
}

void plumb_jobs_add(plumb_jobs *q, plumb_job *job)
{
	job->next = NULL;
	pthread_mutex_lock(&q->mu);
	if (q->tail)
		q->tail->next = job;
	else
		q->head = job;
	q->tail = job;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void plumb_jobs_wait(plumb_jobs *q)
{
	pthread_mutex_lock(&q->mu);
	q->stop = true;
	pthread_cond_broadcast(&q->cv);
	for (plumb_job *j; (j = take(q));)
		run_one(q, j, 0);
	while (q->running)
		pthread_cond_wait(&q->cv, &q->mu);
	pthread_mutex_unlock(&q->mu);
	if (q->threaded)
		pthread_join(q->thread, NULL);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	memset(q, 0, sizeof *q);
}

bool plumb_jobs_cpu_free(void)
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
