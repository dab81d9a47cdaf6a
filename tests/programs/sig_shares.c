/* Signal sampler test: three functions doing 20%, 30% and 50% of the
 * work, each with its own loop, called from main. Argument: work units
 * (default 20, about 2 s here). Each call lasts many ticks (18 to 45 ms):
 * calls much shorter than the 4 ms tick, in a cycle close to a multiple
 * of it, would be sampled at the same few phases and skew the shares. */
#include <stdio.h>
#include <stdlib.h>

static double sink;

#define BURN(n)                                                 \
	do {                                                    \
		double x_ = sink;                               \
		for (long i_ = 0; i_ < (n); i_++)               \
			x_ = x_ * 0.999999 + 1.0;               \
		sink = x_;                                      \
	} while (0)

#define UNIT 6000000L

__attribute__((noinline)) void work_a(long units) { BURN(2 * units * UNIT); }
__attribute__((noinline)) void work_b(long units) { BURN(3 * units * UNIT); }
__attribute__((noinline)) void work_c(long units) { BURN(5 * units * UNIT); }

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 20;
	for (long u = 0; u < units; u++) {
		work_a(1);
		work_b(1);
		work_c(1);
	}
	printf("%g\n", sink);
	return 0;
}
