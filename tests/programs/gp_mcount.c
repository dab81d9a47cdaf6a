/* gprof comparison program: a function named like glibc's profiling
 * internals (__mcount_internal), which gprof leaves out of the flat
 * profile, the call graph and time propagation by default. */
#include <stdio.h>

static volatile unsigned long sink;

unsigned long __mcount_internal(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++)
		x = x * 3 + i;
	return x;
}

unsigned long work(unsigned long n)
{
	return __mcount_internal(n) + 1;
}

int main(void)
{
	unsigned long t = 0;
	for (int i = 0; i < 3000; i++)
		t += work(100000);
	sink = t;
	printf("%lu\n", t & 1);
	return 0;
}
