#define _GNU_SOURCE
/* Signal sampler test: the main thread and two named threads, each burning
 * in its own function (main 1 part, alpha 1 part, beta 2 parts), so that
 * per-thread parts, names and start routines can be checked. Argument:
 * work units (default 60). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long units = 60;

static double burn(long n)
{
	double x = 0;
	for (long i = 0; i < n; i++)
		x = x * 0.999999 + 1.0;
	return x;
}

__attribute__((noinline)) double main_work(void) { return burn(units * 2000000L); }
__attribute__((noinline)) double alpha_work(void) { return burn(units * 2000000L); }
__attribute__((noinline)) double beta_work(void) { return burn(units * 4000000L); }

void *alpha_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "sig-alpha");
	static double r;
	r = alpha_work();
	return &r;
}

void *beta_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "sig-beta");
	static double r;
	r = beta_work();
	pthread_exit(&r);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		units = atol(argv[1]);
	pthread_t a, b;
	pthread_create(&a, NULL, alpha_thread, NULL);
	pthread_create(&b, NULL, beta_thread, NULL);
	double m = main_work();
	void *ra, *rb;
	pthread_join(a, &ra);
	pthread_join(b, &rb);
	printf("%g\n", m + *(double *)ra + *(double *)rb);
	return 0;
}
