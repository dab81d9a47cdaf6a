/* plumb annotate e2e: direct and mutual recursion, and code inlined from
 * ann_inl.h, where callgrind_annotate's numbers go wrong. */
#include <stdio.h>

#include "ann_inl.h"

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

__attribute__((noinline)) static long work(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += ann_scale(i, 20);
	return s;
}

int main(void)
{
	long t = fib(18) + is_even(301) + work(2000);
	printf("%ld\n", t);
	return 0;
}
