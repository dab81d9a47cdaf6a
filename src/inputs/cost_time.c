/* --cost time: an activation's cost is the wall-clock microseconds between
 * its entry and its exit (aprof's time-usec), read at every entry and exit
 * instead of counting basic blocks. */
#include <time.h>

#include "inputs/inputs.h"

INP_HIDDEN uint64_t inp_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

INP_HIDDEN void inp_cost_sync(inp_thread *t)
{
	t->cost = inp_now_us() - t->cost_base;
}
