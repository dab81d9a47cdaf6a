/* Callgrind test program: direct recursion (fib), mutual recursion
 * (is_even/is_odd), inlining across files (cg_util.h), a call into another
 * file (cg_scale), and one explicit dump when built with -DCG_DUMP
 * (valgrind/callgrind.h), so that a run gives two dumps. */
#include <stdio.h>
#include <stdlib.h>

#include "cg_util.h"
#ifdef CG_DUMP
#include <valgrind/callgrind.h>
#endif

__attribute__((noinline)) static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static int is_odd(unsigned n);

__attribute__((noinline)) static int is_even(unsigned n)
{
	return n == 0 ? 1 : is_odd(n - 1);
}

__attribute__((noinline)) static int is_odd(unsigned n)
{
	return n == 0 ? 0 : is_even(n - 1);
}

__attribute__((noinline)) static long work(int rounds)
{
	long v[64], acc = 0;
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < 64; i++)
			v[i] = i + r;
		acc += cg_sum_squares(v, 64);
		acc += cg_scale(acc, r);
	}
	return acc;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 15;
	long a = fib(n);
#ifdef CG_DUMP
	CALLGRIND_DUMP_STATS;
#endif
	int e = is_even((unsigned)n * 7);
	long w = work(n * 4);
	printf("%ld %d %ld\n", a, e, w);
	return 0;
}
