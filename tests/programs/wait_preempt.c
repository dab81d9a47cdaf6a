/* Preemption for tests/e2e/t_waits.sh: two threads burn the CPU for the
 * given milliseconds of elapsed time (default 600) in burn, never
 * blocking; run on one CPU (taskset -c 0), each is runnable but not
 * running about half the time. Prints its elapsed time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static double ms = 600;
static volatile unsigned long sink;

__attribute__((noinline)) static void *burn(void *a)
{
	(void)a;
	double end = now() + ms / 1000;
	while (now() < end)
		sink++;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		ms = atof(argv[1]);
	double t0 = now();
	pthread_t a, b;
	pthread_create(&a, NULL, burn, NULL);
	pthread_create(&b, NULL, burn, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("elapsed %.0f ms\n", (now() - t0) * 1000);
	return 0;
}
