/* Two threads doing different amounts of work, for the Callgrind writer's
 * tests: valgrind --separate-threads=yes makes one file per thread, which
 * plumb reads as parts and writes as sections with thread: lines. */
#include <pthread.h>
#include <stdio.h>

__attribute__((noinline)) static unsigned long spin(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * i;
	return s;
}

static void *worker(void *arg)
{
	return (void *)spin((unsigned long)arg);
}

int main(void)
{
	pthread_t t[2];
	void *r[2];
	for (unsigned long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(1000 * (i + 1))))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], &r[i]);
	printf("%lu\n", (unsigned long)r[0] + (unsigned long)r[1]);
	return 0;
}
