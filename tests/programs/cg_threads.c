/* Callgrind test program: two worker threads doing different work, for
 * --separate-threads=yes (one file or one part per thread). */
#include <pthread.h>
#include <stdio.h>

__attribute__((noinline)) static long spin(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i ^ (s >> 3);
	return s;
}

/* Both workers are alive at once, so each gets its own thread id (valgrind
 * reuses the id of a thread that has ended). */
static pthread_barrier_t all_started;

static void *worker(void *arg)
{
	long n = (long)arg;
	pthread_barrier_wait(&all_started);
	return (void *)spin(n);
}

int main(void)
{
	pthread_t t1, t2;
	void *r1, *r2;
	pthread_barrier_init(&all_started, NULL, 3);
	pthread_create(&t1, NULL, worker, (void *)20000L);
	pthread_create(&t2, NULL, worker, (void *)50000L);
	pthread_barrier_wait(&all_started);
	pthread_join(t1, &r1);
	pthread_join(t2, &r2);
	printf("%ld %ld\n", (long)r1, (long)r2);
	return 0;
}
