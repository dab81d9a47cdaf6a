#define _GNU_SOURCE
/* Two named threads with their own start routines, plus the main thread:
 * "hot" spins 2 units, "warm" 1 unit, main 1 unit, at the same time. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void burn(double secs)
{
	double start = thread_cpu();
	unsigned long x = sink;
	while (thread_cpu() - start < secs)
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005UL + 1;
	sink = x;
}

static double unit = 0.3;

__attribute__((noinline)) void *hot_worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "hot");
	burn(2 * unit);
	return NULL;
}

__attribute__((noinline)) void *warm_worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "warm");
	burn(unit);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		unit = atof(argv[1]);
	pthread_t a, b;
	pthread_create(&a, NULL, hot_worker, NULL);
	pthread_create(&b, NULL, warm_worker, NULL);
	burn(unit);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
