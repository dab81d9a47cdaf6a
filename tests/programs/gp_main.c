/* gprof comparison program: self-recursion (fact), a two-function cycle
 * (ping/pong), a static function (burn), a function never called (unused),
 * work in a second source file (gp_second.c) and calls never made (for
 * -c). Runs about 0.4 s. */
#include <stdio.h>
#include <stdlib.h>

unsigned long second_work(unsigned long n);
unsigned long second_leaf(unsigned long n);

static volatile unsigned long sink;

static unsigned long burn(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

unsigned long fact(unsigned long n)
{
	return n <= 1 ? 1 : n * fact(n - 1);
}

unsigned long pong(unsigned long n, unsigned long work);

unsigned long ping(unsigned long n, unsigned long work)
{
	unsigned long x = burn(work);
	return n == 0 ? x : x + pong(n - 1, work);
}

unsigned long pong(unsigned long n, unsigned long work)
{
	unsigned long x = burn(work / 2);
	for (unsigned long i = 0; i < work; i++)
		x ^= x >> 3;
	return n == 0 ? x : x + ping(n - 1, work);
}

unsigned long unused(unsigned long n)
{
	return n * 3;
}

/* Called only with many arguments: gprof -c finds rare_after's call (a
 * forward call) but not rare_before's (backward: gprof 2.40 does not
 * sign-extend the displacement). */
unsigned long rare_before(unsigned long n)
{
	return n + 1;
}

unsigned long rare_after(unsigned long n);

int main(int argc, char **argv)
{
	unsigned long scale = argc > 1 ? strtoul(argv[1], NULL, 10) : 4;
	unsigned long total = 0;
	for (unsigned long i = 0; i < 300; i++) {
		total += ping(i % 5, 20000 * scale);
		total += fact(10);
		total += second_work(30000 * scale);
	}
	for (unsigned long i = 0; i < 30; i++)
		total += burn(100000 * scale);
	if (argc > 9)
		total += rare_before(1) + rare_after(2);
	sink = total;
	printf("%lu\n", total & 1);
	return 0;
}

unsigned long rare_after(unsigned long n)
{
	return n + 2;
}
