/* A CPU-bound program whose functions do known shares of the work (1:2:3),
 * with a recursion, for end-to-end tests. */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) static void work(long n)
{
	for (long i = 0; i < n; i++)
		sink += (double)i * 0.5;
}

__attribute__((noinline)) void one(long n) { work(n); }
__attribute__((noinline)) void two(long n) { work(2 * n); }
__attribute__((noinline)) void three(long n) { work(3 * n); }

__attribute__((noinline)) void recurse(int depth, long n)
{
	if (depth == 0) {
		work(n);
		return;
	}
	recurse(depth - 1, n);
	sink += depth;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100;
	for (long r = 0; r < rounds; r++) {
		one(100000);
		two(100000);
		three(100000);
		recurse(5, 100000);
	}
	printf("%g\n", sink);
	return 0;
}
