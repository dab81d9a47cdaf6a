/* For the recorder's unit tests (test_waits.c, test_waits_sched.c): the
 * weight of every sample of one event, summed. */
#ifndef PLUMB_TESTS_REC_TOTALS_H
#define PLUMB_TESTS_REC_TOTALS_H

#include <stdint.h>
#include <string.h>

#include "plumb/record.h"

static inline uint64_t total(const plumb_rec_data *d, const char *event)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < d->samples.n; i++)
		if (strcmp(d->events.v[d->samples.v[i].event], event) == 0)
			sum += d->samples.v[i].weight;
	return sum;
}

#endif
