/* plumb: callgrind_annotate-style annotation of a profile.
 *
 * plumb_annotate_write prints what callgrind_annotate 3.19 prints, in its
 * layout (header, PROGRAM TOTALS, the file:function table with optional
 * caller/callee trees, annotated source), plus optional per-instruction
 * disassembly. It differs where callgrind_annotate is wrong (docs/
 * plumb-annotate.1): inclusive costs come from plumb_metrics (recursion is
 * never counted twice), inlined code stays in its function, the 100% is the
 * sum of every part's self cost, and every order is deterministic.
 *
 * The layout helpers below are public so that tests can check them alone.
 */
#ifndef PLUMB_ANNOTATE_H
#define PLUMB_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plumb/error.h"
#include "plumb/profile.h"

enum {
	PLUMB_ANN_TREE_NONE = 0,
	PLUMB_ANN_TREE_CALLER = 1,   /* "<" lines: who calls the function */
	PLUMB_ANN_TREE_CALLING = 2,  /* ">" lines: what the function calls */
	PLUMB_ANN_TREE_BOTH = 3
};

typedef struct plumb_annotate_opts {
	const char *profile_path;   /* shown in the header; sources newer than it are flagged,
				     * and its directory is searched for sources; may be NULL */
	const char *show;           /* "Ir,Dr": events to show; NULL = every recorded event */
	const char *sort;           /* "Ir:90,Dr": sort events, optional thresholds;
				     * NULL = the recorded events in order */
	double threshold;           /* % of the primary sort event to list; >= 100: all */
	const char *threshold_text; /* the threshold as written, for the header; NULL: %g */
	bool show_percs;
	bool auto_annotate;         /* annotate the sources of the listed functions */
	bool inclusive;             /* list and sort by inclusive cost */
	unsigned tree;              /* PLUMB_ANN_TREE_* */
	unsigned context;           /* lines shown around each costed line */
	const char *const *include_dirs; /* searched for sources, in order */
	size_t n_include;
	const char *const *user_files;   /* sources to annotate in any case */
	size_t n_user;
	const char *strip_prefix;   /* removed from the front of file names (cwd + "/"); NULL */
	bool disasm;                /* per-instruction annotation of the listed functions */
	plumb_warn_fn warn;         /* may be NULL */
	void *warn_ctx;
} plumb_annotate_opts;

/* callgrind_annotate's defaults: threshold 99, percentages, --auto=yes,
 * context 8, no tree, exclusive costs. */
void plumb_annotate_opts_init(plumb_annotate_opts *o);

/* Write the whole annotation of p to out. A bad --show/--sort event is a
 * PLUMB_ERR_USAGE; a user file that cannot be found is PLUMB_ERR_IO. */
int plumb_annotate_write(const plumb_profile *p, const plumb_annotate_opts *o, FILE *out,
			 plumb_error *err);

/* ---- layout helpers ---------------------------------------------------- */

/* Width one value needs: its digits and thousands commas, plus the 9
 * characters of " (12.34%)" with percentages. A zero value is shown as "."
 * and needs no width (it never widens a column). */
size_t plumb_ann_cell_width(uint64_t v, bool percs);

/* One cell: "1,234 (12.34%)" (or "." and 9 spaces for zero) right-aligned
 * to width, then one space. The percentage is of total (0 when total is 0):
 * two decimals, one when it would not fit in five characters. */
void plumb_ann_write_cell(FILE *out, uint64_t v, uint64_t total, bool percs, size_t width);

/* The ranges of lines to print around the costed lines (sorted, distinct,
 * none 0): each costed line widened by context on both sides, overlapping
 * or touching ranges joined, the first starting at line 1 at the earliest.
 * out receives low, high pairs (room for 2 * n); returns the pair count. */
size_t plumb_ann_ranges(const uint32_t *lines, size_t n, uint32_t context, uint64_t *out);

#endif
