/* Spins in doomed() for a while, then crashes with SIGSEGV (argv[1] =
 * "segv") or waits to be killed ("wait"). */
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void doomed(void)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < 200000000; i++)
		x = x * 6364136223846793005UL + 7;
	sink = x;
}

int main(int argc, char **argv)
{
	doomed();
	if (argc > 1 && strcmp(argv[1], "segv") == 0)
		*(volatile int *)(sink & 0) = 1;
	for (;;)
		doomed();
}
