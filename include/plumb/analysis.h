/* plumb: metrics, symspecs and views.
 *
 * The metric rules (DESIGN.md, seed 004): for a stack f0 (root) .. fk (leaf)
 * of weight m, exclusive(fk) += m; inclusive(g) += m once per distinct g on
 * the stack; with i the innermost occurrence of g, the caller arc f(i-1)->g
 * gets m as g's caller attribution and the callee arc g->f(i+1) gets m as g's
 * callee attribution (nothing when i = k: that m is g's exclusive). The same
 * rules apply at every level (function, line, file, module): a level is a map
 * from frames to keys.
 */
#ifndef PLUMB_ANALYSIS_H
#define PLUMB_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "plumb/error.h"
#include "plumb/profile.h"
#include "plumb/table.h"

/* ---- symspecs (gprof's grammar) ---------------------------------------
 *   file.c          everything in a file (a dot makes it a file name)
 *   func            every function of that name (no dot)
 *   file.c:func     a function in a file
 *   file.c:123      a line in a file
 *   :name           a function whose name has a dot (":.mul")
 *   odd:            a file whose name has no dot
 *   123             a line in any file
 * File names match the recorded path or its basename; function names match
 * the name or the mangled name. An empty symspec matches everything. */
typedef struct plumb_symspec {
	char *file;           /* NULL: any */
	char *func;           /* NULL: any */
	uint32_t line;        /* 0: any */
	char *text;           /* the original text, for messages */
} plumb_symspec;

int plumb_symspec_parse(plumb_symspec *s, const char *text, plumb_error *err);
void plumb_symspec_free(plumb_symspec *s);
/* Does a function (all of it) match? A line-only spec matches a function
 * when one of its frames is on that line or its first line is that line. */
bool plumb_symspec_match_function(const plumb_symspec *s, const plumb_profile *p, plumb_id fn);
/* Does a frame match (function, file and line of the position)? */
bool plumb_symspec_match_frame(const plumb_symspec *s, const plumb_profile *p, plumb_id frame);

/* A list of symspecs: matches if any one matches. */
typedef struct plumb_symspec_list {
	plumb_symspec *v;
	size_t n;
} plumb_symspec_list;

int plumb_symspec_list_add(plumb_symspec_list *l, const char *text, plumb_error *err);
void plumb_symspec_list_free(plumb_symspec_list *l);
bool plumb_symspec_list_match_function(const plumb_symspec_list *l, const plumb_profile *p,
				       plumb_id fn);
bool plumb_symspec_list_match_frame(const plumb_symspec_list *l, const plumb_profile *p,
				    plumb_id frame);

/* A spec with a '.' and no ':' is read as a file name, as gprof reads it.
 * When it names no file or load module of p but names a function of p
 * ("f.part.0", "f.cold", "_GLOBAL__sub_I_main.cpp"), make it that
 * function's: true if it did. */
bool plumb_symspec_resolve(plumb_symspec *s, const plumb_profile *p);
/* Does s name anything in p: a function, a position, a file or a load
 * module? */
bool plumb_symspec_matches_any(const plumb_symspec *s, const plumb_profile *p);
/* 0 if s names something in p; else -1 and a PLUMB_ERR_USAGE message that
 * says what matched nothing in `where` (a file name, for the message) and
 * the nearest names ("did you mean 'quicksort'?"), or that p has no file
 * names when s names a file (folded stacks). */
int plumb_symspec_check(const plumb_symspec *s, const plumb_profile *p, const char *where,
			plumb_error *err);

/* ---- "did you mean" ---------------------------------------------------- */

/* Optimal string alignment distance between a and b, ignoring case (a swap
 * of neighbours counts one); limit + 1 when it is over limit. */
size_t plumb_edit_distance(const char *a, const char *b, size_t limit);

/* The few candidates nearest to a word: within about one typo in three
 * letters, or containing the word. Candidates are borrowed, not copied. */
typedef struct plumb_suggestions {
	const char *word;
	size_t limit;
	const char *v[4];
	size_t dist[4];
	size_t n;
} plumb_suggestions;

void plumb_suggest_init(plumb_suggestions *s, const char *word);
void plumb_suggest_add(plumb_suggestions *s, const char *candidate);
/* Each word of "a, b, c" (commas, spaces or bars between); the words are
 * copied into scratch, which must live as long as s. */
void plumb_suggest_add_list(plumb_suggestions *s, const char *list, char *scratch, size_t size);
/* "'a', 'b' or 'c'" (each between before and after) into buf: the nearest,
 * ties kept; "" and 0 when there is none. */
size_t plumb_suggest_format(const plumb_suggestions *s, const char *before, const char *after, char *buf,
			    size_t size);

/* ---- metrics ---------------------------------------------------------- */

typedef enum plumb_level {
	PLUMB_LEVEL_FUNCTION = 0,
	PLUMB_LEVEL_LINE,     /* (function, file, line) */
	PLUMB_LEVEL_FILE,
	PLUMB_LEVEL_MODULE
} plumb_level;

/* What one key of a level stands for. Unused ids are PLUMB_NONE / 0. */
typedef struct plumb_key {
	plumb_id function;
	plumb_id file;
	plumb_id module;
	uint32_t line;
} plumb_key;

/* Does a symspec (list) match a key of a level? Function level: as
 * match_function; line level: function, file and line; file level: the file;
 * module level: the module path or its basename (a dotted name, "libc.so.6"). */
bool plumb_symspec_match_key(const plumb_symspec *s, const plumb_profile *p, plumb_level level,
			     const plumb_key *k);
bool plumb_symspec_list_match_key(const plumb_symspec_list *l, const plumb_profile *p,
				  plumb_level level, const plumb_key *k);

typedef struct plumb_metric_arc {
	uint32_t caller, callee;  /* key indexes */
	uint64_t calls;           /* PLUMB_COUNT_UNKNOWN if not known */
} plumb_metric_arc;

/* A cycle: a strongly connected component of two or more functions in a
 * call graph (mutual recursion). Cycles exist at the function level of a
 * call-graph profile only; a CCT profile has exact inclusive costs and none.
 * Cycle n (1-based, as printed: "<cycle n>") is cycles[n-1]; cycles are
 * numbered by descending inclusive cost of the first event, ties by their
 * lowest member key. */
typedef struct plumb_metric_cycle {
	uint32_t first, n;        /* members: cycle_members[first .. first+n), key order */
	uint64_t calls;           /* calls into members from outside the cycle;
				     PLUMB_COUNT_UNKNOWN if not known */
} plumb_metric_cycle;

typedef struct plumb_metrics {
	plumb_level level;
	size_t nevents;
	size_t nkeys;
	plumb_key *keys;
	uint64_t *exclusive;      /* nkeys * nevents */
	uint64_t *inclusive;      /* nkeys * nevents */
	uint64_t *calls;          /* nkeys; PLUMB_COUNT_UNKNOWN if not known */
	size_t narcs;
	plumb_metric_arc *arcs;
	uint64_t *callee_attr;    /* narcs * nevents: the caller's view of the arc */
	uint64_t *caller_attr;    /* narcs * nevents: the callee's view of the arc
				   * (both NULL with keys_only) */
	uint64_t *root;           /* nkeys * nevents: cost of stacks rooted at the key
				   * (NULL with keys_only) */
	uint64_t *totals;         /* nevents */
	bool inclusive_estimated; /* from a call graph without arc costs */
	/* arcs by caller and by callee: index arrays into arcs, grouped per key */
	uint32_t *out_start, *out_arcs;  /* out_arcs[out_start[k] .. out_start[k+1]) */
	uint32_t *in_start, *in_arcs;
	/* Call graphs (docs/metrics.md): recursion is found as strongly
	 * connected components (SCCs) of the level's key graph, and an arc
	 * inside one never adds to inclusive cost: inclusive(k) = exclusive(k)
	 * + the inclusive costs of k's arcs to keys outside k's SCC. */
	uint8_t *arc_in_scc;      /* narcs: 1 if caller and callee share an SCC
				     (a recursive call, self arcs included) */
	uint32_t *cycle;          /* nkeys: the key's cycle number, 0 = none */
	size_t ncycles;
	plumb_metric_cycle *cycles;
	uint32_t *cycle_members;
	uint64_t *cycle_exclusive; /* ncycles * nevents: Σ members' exclusive */
	uint64_t *cycle_inclusive; /* ncycles * nevents: that + arcs leaving the cycle */
} plumb_metrics;

typedef struct plumb_metrics_opts {
	plumb_level level;
	/* keep only stacks with a frame that matches (--focus); NULL = all */
	const plumb_symspec_list *focus;
	/* only this part (PLUMB_NONE = all parts summed) */
	plumb_id part;
	/* no cycle numbers or rows (inclusive costs stay SCC-safe) */
	bool no_cycles;
	/* only what a flat table shows: each key's exclusive and inclusive
	 * costs and calls. The arcs of call stacks and their attributed and
	 * root costs are left out (callee_attr, caller_attr and root NULL);
	 * so are a call graph's, whose inclusive costs are summed from the
	 * profile's arcs, unless they are gprof's estimates (gmon.out). */
	bool keys_only;
} plumb_metrics_opts;

void plumb_metrics_opts_init(plumb_metrics_opts *o);
/* The totals of the stacks through focus (out: one per event): what the
 * views' percentages are of. A linear pass; no metrics are computed. */
int plumb_focus_totals(const plumb_profile *p, const plumb_symspec_list *focus, uint64_t *out,
		       plumb_error *err);
int plumb_metrics_compute(const plumb_profile *p, const plumb_metrics_opts *o,
			  plumb_metrics **out, plumb_error *err);
void plumb_metrics_free(plumb_metrics *m);

static inline const uint64_t *plumb_metrics_excl(const plumb_metrics *m, size_t key)
{
	return m->exclusive + key * m->nevents;
}
static inline const uint64_t *plumb_metrics_incl(const plumb_metrics *m, size_t key)
{
	return m->inclusive + key * m->nevents;
}
/* Cycle n (1-based) */
static inline const plumb_metric_cycle *plumb_metrics_cycle(const plumb_metrics *m, uint32_t n)
{
	return &m->cycles[n - 1];
}

/* ---- the inputs view's routines ------------------------------------------ */

/* One routine of the inputs view of a whole profile (all parts, its calling
 * contexts merged): what the view computes from its points. */
typedef struct plumb_inputs_routine {
	plumb_id function;
	uint32_t has;          /* PLUMB_PT_* every point had */
	uint64_t calls, points, min_input, max_input;
	uint64_t cost, self;   /* sums of real_sum and self_sum (saturating) */
	uint64_t order_cost;   /* cost, or the sum of sums without real sums */
	int growth;            /* the fitted growth class (analysis/fit.h); 0: none */
	double exponent;       /* the free power law's c */
	double r2;             /* the chosen curve's R^2 (NaN: none) */
} plumb_inputs_routine;

typedef struct plumb_inputs_summary {
	size_t n;
	plumb_inputs_routine *v;  /* in the order of their first point */
	uint64_t total_cost;      /* what shares are of */
} plumb_inputs_summary;

/* The routines of p's inputs view (p has points): what a .plumb store
 * keeps (plumb_profile.inputs) so that a report does not fit them again. */
int plumb_inputs_summarize(const plumb_profile *p, plumb_inputs_summary **out, plumb_error *err);
void plumb_inputs_summary_free(plumb_inputs_summary *s);

/* ---- views ------------------------------------------------------------ */

typedef enum plumb_view_kind {
	PLUMB_VIEW_FLAT = 0,
	PLUMB_VIEW_CALLERS,
	PLUMB_VIEW_CALLEES,
	PLUMB_VIEW_BUTTERFLY,
	PLUMB_VIEW_TREE,
	PLUMB_VIEW_BOTTOM_UP,
	PLUMB_VIEW_LINES,
	PLUMB_VIEW_FILES,
	PLUMB_VIEW_MODULES,
	PLUMB_VIEW_THREADS,       /* "parts" is another name for it */
	PLUMB_VIEW_POINTS,        /* performance points: routine (or context) x input size */
	PLUMB_VIEW_INPUTS,        /* one row per routine: how its cost grows with input size */
	PLUMB_VIEW_FLAME,         /* the call tree as flame-graph boxes (table.h's plumb_flame) */
	PLUMB_VIEW_FPROF,         /* HP Caliper's fprof report (seed 003, table 26): thread x
				     function rows, their statements and instructions below */
	PLUMB_VIEW_TIMELINE,      /* per part and event, the cost in equal time buckets */
	PLUMB_VIEW_HEAP,          /* a heap recording summed up: peak, leaks, temporaries, sizes */
	PLUMB_VIEW_LOCKS,         /* lock waits per object and waiting function */
	PLUMB_VIEW_COUNT
} plumb_view_kind;

typedef enum plumb_sort_key {
	PLUMB_SORT_DEFAULT = 0, /* the view's own: exclusive for flat, inclusive for trees */
	PLUMB_SORT_EXCLUSIVE,
	PLUMB_SORT_INCLUSIVE,
	PLUMB_SORT_CALLS,
	PLUMB_SORT_NAME,
	PLUMB_SORT_FILE,
	PLUMB_SORT_MODULE,
	PLUMB_SORT_GROWTH       /* inputs: steepest growth first (its default) */
} plumb_sort_key;

typedef struct plumb_view_opts {
	plumb_view_kind kind;
	int metric;                 /* event index, or -1 for every event */
	plumb_sort_key sort;
	size_t limit;               /* rows (functions for butterfly); 0 = no limit */
	double threshold;           /* hide rows below this % of the total; 0 = none */
	const plumb_symspec_list *select; /* rows to show (and butterfly's functions) */
	const plumb_symspec_list *hide;   /* rows to hide */
	const plumb_symspec_list *focus;  /* keep only stacks through these */
	plumb_id part;              /* only this part; PLUMB_NONE (default) = all summed */
	bool no_cycles;             /* call graphs: no <cycle N> rows or tags */
	/* also build the table's function summary (what JSON writes): the
	 * selected functions with callers and callees, whatever the view */
	bool summary;
	/* inputs view with --select: the charts to draw ("cost", "amortized",
	 * "frequency", "total"); NULL = all, with cost the main one */
	const char *chart;
	/* flame view: an icicle of the bottom-up tree (leaves at the top) */
	bool invert;
	/* keyed views (flat, lines, files, modules): rows made as the writer
	 * reads them (plumb_table_row), not kept; only for a writer that reads
	 * rows that way (plumb_view_writer.rows_on_demand). The table then
	 * points into the profile: free it first. */
	bool rows_on_demand;
	/* also build the flame, parts and lines views of the same profile
	 * (and its inputs view with charts when it has performance points)
	 * into the table's views (what an HTML report shows beside its rows);
	 * the inputs view itself then charts its first routines */
	bool report_views;
	/* timeline view: how many time buckets (0: the default, 50) */
	size_t buckets;
	/* timeline view: also each function's cost per bucket (the HTML
	 * report's range selection) */
	bool timeline_functions;
	/* if not NULL: filled with what the rows leave out (flat, lines,
	 * files, modules and call views) */
	struct plumb_view_left_out *left_out;
} plumb_view_opts;

/* The flame view's threshold when it is drawn (SVG, HTML): a box under
 * this % of the total is under 0.1 pixel of a flame graph's width. */
#define PLUMB_FLAME_PICTURE_THRESHOLD 0.005


/* What a view did not show, for a one-line summary under it. Costs are
 * exclusive costs of the view's first event shown. */
typedef struct plumb_view_left_out {
	size_t under_threshold;     /* rows under --threshold */
	uint64_t under_threshold_cost;
	size_t hidden;              /* rows --hide named */
	uint64_t hidden_cost;
	size_t past_limit;          /* rows past --limit */
	uint64_t past_limit_cost;
	int event;                  /* the event those costs are of */
} plumb_view_left_out;

void plumb_view_opts_init(plumb_view_opts *o);
const char *plumb_view_name(plumb_view_kind k);
/* By name ("flat", "bottom-up", ...); -1 if unknown. */
int plumb_view_by_name(const char *name);
int plumb_sort_by_name(const char *name);
/* Is name one of the inputs view's charts? "cost, amortized, ..." lists them. */
bool plumb_chart_known(const char *name);
const char *plumb_charts_list(void);

/* Compute a view of p as a table. */
int plumb_view_build(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out,
		     plumb_error *err);

/* ---- inlined frames ----------------------------------------------------
 * Is frame an inlined call in parent_frame (the caller's frame on a CCT
 * path)? The model's mark: both at one non-zero address of one module,
 * different functions (a recording's inline chain, a pprof location's
 * lines). */
bool plumb_frame_inlined_into(const plumb_profile *p, plumb_id frame, plumb_id parent_frame);
/* A copy of p with every inlined call folded into its caller: its cost is
 * the caller's own, it is listed nowhere (plumb report --inline=no).
 * nfolded (may be NULL): how many CCT nodes were folded. */
int plumb_profile_fold_inlined(const plumb_profile *p, plumb_profile **out, size_t *nfolded,
			       plumb_error *err);

/* ---- time ----------------------------------------------------------------
 * A recording's samples carry their time; times are in seconds from its
 * first sample. A range: "START,END" in seconds, either side may be empty
 * (from the first, to the last sample), or "A%-B%" of the recording's span
 * (perf report --time's percent form). */
typedef struct plumb_time_range {
	double start, end;        /* seconds, or percent of the span when pct */
	bool has_start, has_end;  /* false: open on that side */
	bool pct;
} plumb_time_range;
/* Parse a --time argument; an error says what was expected. */
int plumb_time_range_parse(const char *s, plumb_time_range *r, plumb_error *err);
/* The recording's span: first and last sample times (ns). -1 when p has no
 * timed samples, or costs that no sample carries (merged from a format
 * without time): err says which. */
int plumb_profile_time_span(const plumb_profile *p, uint64_t *first_ns, uint64_t *last_ns,
			    plumb_error *err);
/* A copy of p holding only the samples in r (start <= t < end, the last
 * sample included when the range is open at the end): every cost of every
 * view is then what ran in that time. nkept (may be NULL): samples kept. */
int plumb_profile_time_slice(const plumb_profile *p, const plumb_time_range *r, plumb_profile **out,
			     size_t *nkept, plumb_error *err);

/* ---- diff --------------------------------------------------------------
 * Two profiles compared (plumb diff): one row per function (or line) of
 * either, with its exclusive and inclusive cost of one event in each and
 * the change (new - base), the largest change first; a function of one
 * profile only has 0 on the other side. Columns: function, file, [line,]
 * module, exclusive_base, exclusive_new, exclusive_delta, inclusive_base,
 * inclusive_new, inclusive_delta. */
typedef struct plumb_diff_opts {
	plumb_level level;        /* PLUMB_LEVEL_FUNCTION (default) or PLUMB_LEVEL_LINE */
	const char *metric;       /* the event by name; NULL: the base's first */
	bool normalize;           /* shares of each profile's total (%), not counts */
	bool sort_inclusive;      /* order by the inclusive change, not the exclusive */
	size_t limit;             /* rows; 0 = all */
	const plumb_symspec_list *focus; /* keep only stacks through these; NULL = all */
	/* a differential flame graph instead: the new profile's flame view
	 * (plumb_flame), each box with its change against the base's box of
	 * the same call path; invert: of the bottom-up trees */
	bool flame, invert;
} plumb_diff_opts;

void plumb_diff_opts_init(plumb_diff_opts *o);
int plumb_diff_build(const plumb_profile *base, const plumb_profile *cur, const plumb_diff_opts *o,
		     plumb_table **out, plumb_error *err);

#endif
