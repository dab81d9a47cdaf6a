/* bench/waits.sh: two threads take turns through a mutex and a condition
 * variable, N turns each (default 75000: 150,000 context switches). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long turn, n = 75000;

static void *player(void *arg)
{
	long me = (long)arg;
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&m);
		while (turn % 2 != me)
			pthread_cond_wait(&cv, &m);
		turn++;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atol(argv[1]);
	pthread_t a, b;
	pthread_create(&a, NULL, player, (void *)0L);
	pthread_create(&b, NULL, player, (void *)1L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("%ld turns\n", turn);
	return 0;
}
