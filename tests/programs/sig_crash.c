/* Signal sampler test: burns about half a second of CPU in crash_work,
 * then dies of SIGSEGV (or of the signal named by the first argument when
 * it is "term": SIGTERM sent to itself). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

static double burn(long n)
{
	double x = 0;
	for (long i = 0; i < n; i++)
		x = x * 0.999999 + 1.0;
	return x;
}

__attribute__((noinline)) double crash_work(void) { return burn(120000000L); }

int main(int argc, char **argv)
{
	double r = crash_work();
	printf("%g\n", r);
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "term") == 0)
		raise(SIGTERM);
	*(volatile int *)(long)(r < 0) = 1;   /* address 0: SIGSEGV */
	return 0;
}
