/* For plumb record -p --off-cpu: blocked when the recording starts, then on
 * the CPU, then blocked when it ends. block_first sleeps ARG1 ms, burn runs
 * ARG2 ms of CPU, block_last sleeps ARG3 ms. */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

__attribute__((noinline)) void block_first(long ms) { nap(ms); }
__attribute__((noinline)) void block_last(long ms) { nap(ms); }

__attribute__((noinline)) void burn(long ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i * 2654435761u;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
	long a = argc > 1 ? atol(argv[1]) : 1000, b = argc > 2 ? atol(argv[2]) : 300,
	     c = argc > 3 ? atol(argv[3]) : 1500;
	block_first(a);
	burn(b);
	block_last(c);
	return 0;
}
