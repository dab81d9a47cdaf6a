/* Private to src/output/annotate*.c: the writer of a plumb_annotation in
 * callgrind_annotate 3.19's layout. It only reads the annotation. */
#ifndef PLUMB_OUTPUT_ANNOTATE_INTERNAL_H
#define PLUMB_OUTPUT_ANNOTATE_INTERNAL_H

#include "plumb/annotate.h"

#define ANN_FANCY "--------------------------------------------------------------------------------\n"

typedef struct ann_writer {
	const plumb_annotation *a;
	FILE *out;
	const uint64_t *base;        /* the 100% of the cells being written */
} ann_writer;

/* Column widths (one per event) for n cost vectors: at least each name. */
void ann_widths_init(const ann_writer *w, size_t *widths);
void ann_widen(const ann_writer *w, const uint64_t *cost, size_t *widths);
void ann_events_header(const ann_writer *w, const size_t *widths);
/* The cells of one row (NULL = all empty), each followed by a space. */
void ann_cells(const ann_writer *w, const uint64_t *cost, const size_t *widths);

/* The annotated sources after the table (annotate_source.c). */
void ann_write_sources(ann_writer *w);
/* The per-instruction annotation (annotate_disasm.c). */
void ann_write_disasm(ann_writer *w);

#endif
