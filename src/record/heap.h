/* Heap tracing (plumb record --heap, docs/heap.md), the reading side:
 * replays the allocation events the preloaded library wrote (the HEAP_*
 * records of src/preload/format.h) in the process-wide order it gave them
 * and turns them into per-stack samples of the heap events. Internal to
 * libplumb; the unit tests use it directly. */
#ifndef PLUMB_RECORD_HEAP_H
#define PLUMB_RECORD_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "plumb/record.h"

/* The events, in this order, from plumb_heap_events_add's first index. */
enum {
	HEAP_EV_ALLOCS, HEAP_EV_ALLOC_BYTES, HEAP_EV_PEAK_BYTES, HEAP_EV_LEAKS,
	HEAP_EV_LEAK_BYTES, HEAP_EV_TEMP_ALLOCS, HEAP_EV_MMAP_BYTES, HEAP_EV_COUNT
};

/* What the files said, summed over the files read. */
typedef struct plumb_heap_info {
	unsigned images;            /* process images with heap tracing on */
	uint64_t events;            /* allocation events read */
	uint32_t flags;             /* PSMP_HEAP_MALLOC_ELSEWHERE, ... of any image */
	char where[256];            /* the allocator of the last such image */
	unsigned next_image;        /* numbering of the heap.image.N metadata */
} plumb_heap_info;

/* Register allocs, alloc-bytes, peak-bytes, leaks, leak-bytes, temp-allocs
 * and mmap-bytes in d; returns the index of the first. */
int plumb_heap_events_add(plumb_rec_data *d, plumb_error *err);

/* The unit of a recorded event by its name: "bytes" for the byte events,
 * "allocations" for the counts, "samples" for anything else. */
const char *plumb_heap_event_unit(const char *name);

/* Read the heap records of one sampler file (bytes buf[0..len)); name for
 * messages. Samples go to events first .. first + HEAP_EV_COUNT - 1 of d;
 * each image also adds "heap.image.N" metadata (peak, when, totals, the
 * size histogram). Damage is an error naming the byte offset. */
int plumb_heap_read_buffer(const char *name, const unsigned char *buf, size_t len,
			   plumb_rec_data *d, uint32_t first, plumb_heap_info *info,
			   plumb_error *err);
int plumb_heap_read_file(const char *path, plumb_rec_data *d, uint32_t first,
			 plumb_heap_info *info, plumb_error *err);
/* A sampler file mapped read-only, its pages put in at once; *len 0 (and
 * a pointer to nothing) for an empty file; NULL with err on failure. Given
 * back with plumb_rec_unmap_file. */
const unsigned char *plumb_rec_map_file(const char *path, size_t *len, plumb_error *err);
void plumb_rec_unmap_file(const unsigned char *m, size_t len);

/* plumb record --heap cannot see a static executable's allocations (no
 * preloading): an error naming it, found through PATH like exec does. */
int plumb_heap_check_command(const char *argv0, plumb_error *err);

/* After reading every file: the mode as metadata ("heap.mode"), an error
 * when no image traced anything, and a warning (o->warn and "heap.note")
 * when malloc was defined ahead of the tracer or is not libc's. */
int plumb_heap_note(const plumb_record_opts *o, const plumb_heap_info *h, plumb_rec_data *d,
		    plumb_error *err);

#endif
