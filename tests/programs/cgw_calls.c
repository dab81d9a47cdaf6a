/* A small program for the Callgrind writer's tests: direct recursion (fib),
 * mutual recursion (is_even/is_odd), one function called from two sites,
 * code inlined from another file (mix, from "cgw_inline.h" by #line), and a
 * libc call. Run under valgrind --tool=callgrind; the numbers do not matter,
 * only that plumb's copy of the file reads the same. */
#include <stdio.h>
#include <stdlib.h>

static int is_odd(unsigned n);

__attribute__((noinline)) static int is_even(unsigned n)
{
	return n == 0 ? 1 : is_odd(n - 1);
}

__attribute__((noinline)) static int is_odd(unsigned n)
{
	return n == 0 ? 0 : is_even(n - 1);
}

__attribute__((noinline)) static unsigned long fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

#line 1 "cgw_inline.h"
static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
	x ^= x >> 13;
	x *= 0x9E3779B97F4A7C15ul;
	return x ^ (x >> 29);
}
#line 33 "cgw_calls.c"

__attribute__((noinline)) static unsigned long work(unsigned n)
{
	unsigned long s = 0;
	for (unsigned i = 0; i < n; i++)
		s += mix(i);
	return s;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 15;
	unsigned long r = fib(n) + work(n * 10);
	r += work(n);
	r += (unsigned long)is_even(n);
	printf("%lu\n", r);
	return 0;
}
