/* Direct recursion (fib) and mutual recursion (is_even/is_odd) for
 * tests/e2e/t_cycles.sh, which runs it under valgrind --tool=callgrind. */
#include <stdio.h>
#include <stdlib.h>

static int is_odd(unsigned n);
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

static unsigned long fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static unsigned long leaf(unsigned n)
{
	unsigned long s = 0;
	for (unsigned i = 0; i < n; i++)
		s += i * i;
	return s;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 300;
	unsigned long r = 0;
	for (unsigned i = 0; i < 20; i++)
		r += is_even(n + i);
	r += fib(18);
	r += leaf(5000);
	printf("%lu\n", r);
	return 0;
}
