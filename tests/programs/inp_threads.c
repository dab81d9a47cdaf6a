/* Threads are parts apart (t_inputs.sh): thread i sums 100*i ints of its
 * own, main sums 7. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long sum(const int *a, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}

static void *worker(void *arg)
{
	int n = (int)(long)arg;
	int *a = calloc((size_t)n, sizeof *a);
	long s = sum(a, n);
	free(a);
	return (void *)s;
}

int main(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(100 * (i + 1)));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	int a[7] = { 0 };
	printf("%ld\n", sum(a, 7));
	return 0;
}
