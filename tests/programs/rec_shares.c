/* Known shares of CPU time: work_a does 50% of the iterations, work_b 30%,
 * work_c 20%, each in its own loop; runs for about argv[1] seconds (default
 * 2) of CPU time. Each call lasts many sampling periods (about 20, 12 and
 * 8 ms): with short calls, a cycle of calls that divides the 1 ms period
 * would alias with it and bias the shares. */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

#define SPIN(n)                                                               \
	do {                                                                  \
		unsigned long x = sink;                                       \
		for (unsigned long i = 0; i < (n); i++)                       \
			x = x * 6364136223846793005UL + 1442695040888963407UL; \
		sink = x;                                                     \
	} while (0)

__attribute__((noinline)) void work_a(void) { SPIN(12500000); }
__attribute__((noinline)) void work_b(void) { SPIN(7500000); }
__attribute__((noinline)) void work_c(void) { SPIN(5000000); }

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	double start = cpu_seconds();
	do {
		work_a();
		work_b();
		work_c();
	} while (cpu_seconds() - start < secs);
	return 0;
}
