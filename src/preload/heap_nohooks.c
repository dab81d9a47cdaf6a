/* libplumb-sampler.so is built with this file in place of heap_hooks.c:
 * it wraps no allocator, so a recording that asks for no heap data costs
 * nothing per malloc or free (an interposed malloc costs a call and a few
 * loads each time: +0.4 s on 50 M malloc+free pairs, bench/heap.sh).
 * plumb record --heap preloads libplumb-sampler-heap.so, built with
 * heap_hooks.c. Here heap tracing cannot start. */
#include "preload/heap.h"

int heap_hooks_resolve(void)
{
	return -1;
}
