/* Private to the recorder: sorting the off-CPU finish's records by
 * thread, then time (waits_order.c says why not qsort). */
#ifndef PLUMB_RECORD_WAITS_ORDER_H
#define PLUMB_RECORD_WAITS_ORDER_H

#include <stddef.h>
#include <stdint.h>

typedef struct plumb_order_key {
	uint64_t time;
	int32_t pid, tid;
	size_t index;          /* the record's place before sorting */
} plumb_order_key;

/* Sort k by (pid, tid, time), stably. -1 on ENOMEM (k unchanged). */
int plumb_order_by_thread_time(plumb_order_key *k, size_t n);
/* Reorder the n records of size bytes at v as k says: record i becomes
 * the one k[i].index was. -1 on ENOMEM (v unchanged). */
int plumb_order_apply(void *v, size_t n, size_t size, const plumb_order_key *k);

#endif
