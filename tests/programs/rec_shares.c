/* Known shares of CPU time: work_a does 50% of the iterations, work_b 30%,
 * work_c 20%, each in its own loop; runs for about argv[1] seconds (default
 * 2) of CPU time. */
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

__attribute__((noinline)) void work_a(void) { SPIN(50000); }
__attribute__((noinline)) void work_b(void) { SPIN(30000); }
__attribute__((noinline)) void work_c(void) { SPIN(20000); }

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
	while (cpu_seconds() - start < secs)
		for (int i = 0; i < 50; i++) {
			work_a();
			work_b();
			work_c();
		}
	return 0;
}
