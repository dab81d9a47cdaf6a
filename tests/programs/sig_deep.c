/* Signal sampler test for -O2 -fomit-frame-pointer: recursion, qsort with
 * a callback (libc without frame pointers), and a chain ending in a
 * frameless leaf. Stacks must reach main. Argument: rounds (default 150). Prints its CPU time on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double sink;

__attribute__((noinline)) static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

__attribute__((noinline)) static void sort_some(void)
{
	enum { N = 20000 };
	static double v[N];
	unsigned s = 12345;
	for (int i = 0; i < N; i++) {
		s = s * 1103515245u + 12345u;
		v[i] = (double)(s >> 8);
	}
	qsort(v, N, sizeof *v, cmp);
	sink += v[N / 2];
}

__attribute__((noinline)) static double leaf(long n)
{
	double x = sink;
	for (long i = 0; i < n; i++)
		x = x * 0.999999 + 1.0;
	return x;
}

__attribute__((noinline)) static double chain3(long n) { return leaf(n) + 1; }
__attribute__((noinline)) static double chain2(long n) { return chain3(n) + 1; }
__attribute__((noinline)) static double chain1(long n) { return chain2(n) + 1; }

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 150;
	for (int r = 0; r < rounds; r++) {
		sink += (double)fib(25);
		sort_some();
		sink += chain1(3000000);
	}
	printf("%g\n", sink);
	/* the process's own CPU time, for bench/record_signal.sh */
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	fprintf(stderr, "sig_deep cpu %.6f\n", (double)ts.tv_sec + ts.tv_nsec / 1e9);
	return 0;
}
