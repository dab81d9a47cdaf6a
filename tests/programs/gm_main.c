/* gmon test program: self recursion, a two-function cycle, a static
 * function, a function never called, an alias, and a function in a second
 * file (gm_second.c). Runs about 0.3 s under gcc -pg. */
#include <stdio.h>

unsigned long gm_work(unsigned long n);   /* gm_second.c */

static volatile unsigned long sink;

static unsigned long gm_static_burn(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

unsigned long gm_fact(unsigned long n)
{
	return n < 2 ? gm_static_burn(200000) : n + gm_fact(n - 1);
}

unsigned long gm_pong(unsigned long n);

unsigned long gm_ping(unsigned long n)
{
	return n == 0 ? gm_static_burn(300000) : gm_static_burn(50000) + gm_pong(n - 1);
}

unsigned long gm_pong(unsigned long n)
{
	return n == 0 ? 1 : gm_ping(n - 1) + gm_work(40000);
}

unsigned long gm_never(unsigned long n)
{
	return n * 3;
}

/* A second name for gm_never at the same address. */
unsigned long gm_never_alias(unsigned long n) __attribute__((alias("gm_never")));

int main(int argc, char **argv)
{
	(void)argv;
	unsigned long t = 0;
	for (int i = 0; i < 300; i++) {
		t += gm_fact(12);
		t += gm_ping(7);
		t += gm_work(200000);
	}
	if (argc > 5)
		t += gm_never(t);
	sink = t;
	printf("done\n");
	return 0;
}
