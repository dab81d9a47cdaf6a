/* Shared by src/output/annotate*.c: the state of one annotation run. */
#ifndef PLUMB_ANNOTATE_INTERNAL_H
#define PLUMB_ANNOTATE_INTERNAL_H

#include "plumb/analysis.h"
#include "plumb/annotate.h"

#define ANN_FANCY "--------------------------------------------------------------------------------\n"

typedef struct ann_ctx {
	const plumb_profile *p;
	const plumb_annotate_opts *o;
	FILE *out;
	size_t nev;
	size_t *recorded, nrecorded; /* events of the file (not derived) */
	size_t *show, nshow;         /* event indexes, in column order */
	size_t *sort, nsort;         /* event indexes, primary first */
	double *thr;                 /* one per sort event */
	char **thr_text;
	bool single_threshold;       /* no per-event thresholds were given */
	uint64_t *total;             /* the 100% of each event */
	bool calculated;             /* the file had no summary/totals */
	plumb_metrics *fm, *lm;      /* function and line level */
	char **fname;                /* function id -> "file:name" (lazily filled) */
	bool *listed;                /* function id -> printed in the table */
	plumb_id *order;             /* the printed functions, in table order */
	size_t norder;
	size_t *fn_widths;           /* the table's column widths, per event */
} ann_ctx;

/* Column widths for rows of values (rows * nev): at least each name. */
void ann_widths(const ann_ctx *c, const uint64_t *rows, size_t n, size_t *widths);
void ann_events_header(const ann_ctx *c, const size_t *widths);
/* The cells of one row (nev values, NULL = all empty), each followed by a space. */
void ann_cells(const ann_ctx *c, const uint64_t *v, const size_t *widths);
/* callgrind_annotate's order: descending by the sort events; 0 if equal. */
int ann_cmp_costs(const ann_ctx *c, const uint64_t *a, const uint64_t *b);
/* The cost shown for function-level arc (UINT32_MAX: none) of raw cost: a
 * recursive call (inside a strongly connected component) is capped at the
 * callee's inclusive cost, since Callgrind's figure counts every level of
 * the recursion again. */
void ann_arc_costs(const ann_ctx *c, uint32_t arc, const uint64_t *raw, uint64_t *out);
/* A file's name as shown: the strip prefix removed; "???" for none. */
const char *ann_file_name(const ann_ctx *c, plumb_id file);
/* "file:function"; NULL on ENOMEM. */
const char *ann_fn_name(ann_ctx *c, plumb_id fn);

/* Every user file can be opened (checked before anything is written). */
int ann_check_user_files(const ann_ctx *c, plumb_error *err);
/* The annotated sources after the table (annotate_source.c). */
int ann_sources(ann_ctx *c, plumb_error *err);
/* Per-instruction annotation of the listed functions (annotate_disasm.c). */
int ann_disasm(ann_ctx *c, plumb_error *err);

#endif
