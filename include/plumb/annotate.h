/* plumb: callgrind_annotate-style annotation of a profile.
 *
 * Two halves, as every view and writer: plumb_annotate (src/analysis/)
 * decides what is listed and with which costs (events shown and sorted,
 * thresholds, the file:function table with its caller/callee trees, which
 * source files and lines, which instructions) and returns a plumb_annotation;
 * plumb_annotation_write (src/output/) prints it in callgrind_annotate 3.19's
 * layout (header, PROGRAM TOTALS, the table, annotated source), plus the
 * optional per-instruction disassembly. It differs from callgrind_annotate
 * where that is wrong (docs/plumb-annotate.1): inclusive costs come from
 * plumb_metrics (recursion is never counted twice), inlined code stays in its
 * function, the 100% is the sum of every cost line, and every order is
 * deterministic.
 *
 * The layout helpers at the end are public so that tests can check them alone.
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

/* ---- the view's result -------------------------------------------------- */

/* A cost vector holds one value per event of the profile (nevents), in the
 * profile's event order; the shown columns are show[0 .. nshow). An event
 * with no value there (callgrind_annotate's "."; no cost line wrote it) is
 * PLUMB_ANN_NONE; 0 is a 0 that a cost line wrote. */
#define PLUMB_ANN_NONE UINT64_MAX

/* A "<" (caller), ">" (callee) or "=>" (call from a source line) line. */
typedef struct plumb_ann_call {
	const char *name;     /* "file:function" */
	const char *object;   /* "[object]" shown after it; NULL: none */
	uint64_t calls;       /* PLUMB_COUNT_UNKNOWN: "(?x)" */
	const uint64_t *cost;
} plumb_ann_call;

/* A row of the file:function table, with its trees when asked for. */
typedef struct plumb_ann_function {
	const char *name;     /* "file:function" */
	const char *object;   /* NULL: none */
	const uint64_t *cost; /* exclusive, or inclusive with --inclusive=yes */
	const plumb_ann_call *callers, *callees; /* by cost; empty without --tree */
	size_t ncallers, ncallees;
} plumb_ann_function;

/* A source line shown, with its text as read (newline included, none at
 * the end of a file without one; may hold NUL bytes). */
typedef struct plumb_ann_line {
	uint64_t number;
	const char *text;
	size_t len;
	const uint64_t *cost;        /* NULL: no cost line there (empty cells) */
	const plumb_ann_call *calls; /* its "=>" lines, by cost */
	size_t ncalls;
} plumb_ann_line;

/* Lines low .. high of a file (context around costed lines). */
typedef struct plumb_ann_range {
	uint64_t low, high;
	const plumb_ann_line *lines;
	size_t n;
	bool cut;                    /* the file ended before high: the last range */
} plumb_ann_range;

/* A source file chosen for annotation and found. */
typedef struct plumb_ann_file {
	const char *name;            /* as the profile (or the user) names it */
	const char *shown;           /* as found: the name, or "DIR/ + name" */
	bool user;                   /* named by the user (else chosen by --auto) */
	bool has_costs;              /* false: "No information has been collected" */
	bool newer;                  /* modified after the profile */
	const plumb_ann_range *ranges;
	size_t nranges;
	const uint32_t *past_end;    /* costed lines past the end of the file */
	const uint64_t *const *past_end_cost;
	size_t npast_end;
	const uint64_t *unknown;     /* the cost of line 0 (no line known), or NULL */
} plumb_ann_file;

/* One row of a function's disassembly. */
typedef enum plumb_ann_insn_kind {
	PLUMB_ANN_INSN = 0,          /* an instruction: address, text, cost */
	PLUMB_ANN_INSN_SOURCE,       /* the source line the next instructions come from */
	PLUMB_ANN_INSN_STRAY         /* a costed address that starts no instruction */
} plumb_ann_insn_kind;

typedef struct plumb_ann_insn {
	plumb_ann_insn_kind kind;
	uint64_t address;            /* the object's (ELF) address */
	const char *text;            /* instruction, or the source line's text */
	const char *file;            /* SOURCE rows: the file's shown name */
	uint32_t line;
	const uint64_t *cost;        /* NULL on SOURCE rows */
} plumb_ann_insn;

/* The per-instruction annotation of one listed function. */
typedef struct plumb_ann_disasm {
	const char *name;            /* "file:function" */
	const char *object;          /* NULL: none known */
	const char *problem;         /* why there are no instructions, or NULL */
	bool no_symbol;              /* decoded from the entry the profile shows */
	uint64_t bias;               /* run-time address - ELF address, when not 0 */
	const plumb_ann_insn *rows;
	size_t nrows;
} plumb_ann_disasm;

typedef struct plumb_annotation {
	/* the header */
	const char *profile_path;    /* "-" when none */
	const char *creator;         /* NULL: none */
	const char *description;     /* Callgrind's desc: lines, or NULL */
	const char *command, *pid, *part, *thread; /* NULL: unknown */
	size_t nevents;
	const char *const *event_names;
	const size_t *recorded;      /* the events of the profile (not derived) */
	size_t nrecorded;
	const size_t *show, *sort;   /* the columns; the sort order */
	size_t nshow, nsort;
	const char *const *thresholds; /* one per sort event, as written */
	const char *const *include_dirs;
	size_t n_include;
	const char *const *user_files;
	size_t n_user;
	bool auto_annotate, show_percs;
	unsigned tree;               /* PLUMB_ANN_TREE_* */

	/* PROGRAM TOTALS: the sum of every cost line, the 100% of the table and
	 * the sources */
	const uint64_t *total;
	bool total_calculated;       /* the file has no summary: or totals: line */
	const char *total_note;      /* the file's summary: disagrees, or NULL */

	const plumb_ann_function *functions;
	size_t nfunctions;
	/* per event, the largest cost of any function, listed or not:
	 * callgrind_annotate sizes the table's columns by all of them */
	const uint64_t *table_max;
	const plumb_ann_file *files; /* in name order */
	size_t nfiles;
	const char *const *unfound;  /* files chosen by --auto and not found */
	size_t nunfound;
	const uint64_t *annotated;   /* the cost of the source lines shown; NULL: none */
	/* the 100% of "events annotated" and the disassembly: the total, or the
	 * annotated cost where that is more (costs that do not add up) */
	const uint64_t *late_total;

	bool disasm;
	const plumb_ann_disasm *disasms;
	size_t ndisasms;

	struct plumb_ann_block *blocks; /* private: everything above is kept here */
} plumb_annotation;

/* Compute the annotation of p. A bad --show/--sort event is a
 * PLUMB_ERR_USAGE; a user file that cannot be found is PLUMB_ERR_IO. Source
 * files are read here (the listed lines and whether the costed lines exist
 * decide the annotated totals); the result owns copies of what it shows. */
int plumb_annotate(const plumb_profile *p, const plumb_annotate_opts *o, plumb_annotation **out,
		   plumb_error *err);
void plumb_annotation_free(plumb_annotation *a);

/* Print an annotation in callgrind_annotate's layout. Warnings that belong
 * beside the output (costs past the end of a file) were given to the view's
 * warn callback. */
int plumb_annotation_write(const plumb_annotation *a, FILE *out, plumb_error *err);

/* ---- layout helpers ---------------------------------------------------- */

/* Width one value needs: its digits and thousands commas, plus the 9
 * characters of " (12.34%)" with percentages. PLUMB_ANN_NONE is shown as
 * "." and needs no width (it never widens a column). */
size_t plumb_ann_cell_width(uint64_t v, bool percs);

/* One cell: "1,234 (12.34%)" (or "." for PLUMB_ANN_NONE, "0" for 0, and 9
 * spaces) right-aligned to width, then one space. The percentage is of total (0
 * when total is 0): two decimals, one when it would not fit in five
 * characters. */
void plumb_ann_write_cell(FILE *out, uint64_t v, uint64_t total, bool percs, size_t width);

/* The ranges of lines to print around the costed lines (sorted, distinct,
 * none 0): each costed line widened by context on both sides, overlapping
 * or touching ranges joined, the first starting at line 1 at the earliest.
 * out receives low, high pairs (room for 2 * n); returns the pair count. */
size_t plumb_ann_ranges(const uint32_t *lines, size_t n, uint32_t context, uint64_t *out);

#endif
