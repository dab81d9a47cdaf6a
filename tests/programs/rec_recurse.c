/* Recursion: fib spends all the time, on stacks up to 25 frames deep. */
#include <stdlib.h>

__attribute__((noinline)) unsigned long fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 32;
	return fib(n) == 1 ? 1 : 0;
}
