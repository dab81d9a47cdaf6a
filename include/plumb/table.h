/* plumb: a view's result, a table of typed cells.
 *
 * Views (src/analysis/view_*.c) compute tables and build them with the
 * functions below (src/analysis/table.c); writers (src/output/,
 * plumb/output.h) print them as text, CSV or JSON. A writer never computes
 * a metric: every number it prints is a cell or a summary value here.
 */
#ifndef PLUMB_TABLE_H
#define PLUMB_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "plumb/error.h"

typedef enum plumb_cell_type {
	PLUMB_CELL_NULL = 0,  /* unknown / not applicable: "-" in text, null in JSON */
	PLUMB_CELL_U64,       /* a count or cost */
	PLUMB_CELL_PCT,       /* a percentage, 0..100 (printed with one decimal) */
	PLUMB_CELL_STR,       /* text */
	PLUMB_CELL_INT,       /* an identifier-like integer: line, pid (not grouped) */
	PLUMB_CELL_NUM,       /* a real number: a fitted exponent, R^2 */
	PLUMB_CELL_BIG        /* a non-negative integer that may pass 2^64 (a sum of
				 squares), printed exactly; a "count" in JSON */
} plumb_cell_type;

typedef struct plumb_cell {
	plumb_cell_type type;
	union {
		uint64_t u;
		int64_t i;
		double pct;
		double num;
		const long double *big; /* in the table's arena: a cell stays 16 bytes */
		const char *s;    /* owned by the table's arena */
	};
} plumb_cell;

typedef struct plumb_column {
	const char *key;      /* machine name: "exclusive", "function" (CSV/JSON) */
	const char *title;    /* header text: "Excl. samples" */
	plumb_cell_type type; /* the type of its non-null cells */
	int event;            /* event index for cost/percent columns, -1 otherwise */
	bool name_column;     /* the column that holds the row's name (indented in trees) */
	/* the title without the event's name ("Excl." for "Excl. cycles"), for
	 * narrow text tables of one event; NULL: the title is already short */
	const char *short_title;
} plumb_column;

typedef enum plumb_row_kind {
	PLUMB_ROW_NORMAL = 0,
	PLUMB_ROW_CALLER,     /* butterfly: a caller of the selected function */
	PLUMB_ROW_FOCUS,      /* butterfly: the selected function itself */
	PLUMB_ROW_CALLEE,     /* butterfly: a callee */
	PLUMB_ROW_SEPARATOR   /* butterfly: between two functions' blocks */
} plumb_row_kind;

typedef struct plumb_row {
	plumb_row_kind kind;
	uint32_t depth;       /* indentation of the name column (tree views) */
	plumb_cell *cells;    /* ncols cells */
} plumb_row;

/* ---- the function summary ----------------------------------------------
 * What every `--format json` document carries beside its rows, whatever the
 * view (docs/report-json.md): the events shown, their totals, and each
 * selected function with its callers and callees. Cost vectors have one
 * value per event of `events`, in that order. Unknown counts are
 * PLUMB_COUNT_UNKNOWN, unknown strings NULL, "no cycle" 0. */

typedef struct plumb_table_event {
	const char *name, *description;
	const char *unit;     /* NULL: not known */
	const char *formula;  /* NULL: not derived */
	uint64_t period;      /* sampled every `period` events (costs count
				 events; samples = cost / period); 0: none */
	uint64_t count;       /* the kernel's count of a frequency-sampled
				 event while recording; 0: not known */
	const char *count_unit;
} plumb_table_event;

/* A function as other entries name it. */
typedef struct plumb_table_ref {
	const char *name, *file, *module;
	uint32_t cycle;       /* its <cycle N>, 0: none */
} plumb_table_ref;

typedef struct plumb_table_arc {
	plumb_table_ref other;   /* the caller (in callers) or the callee (in callees) */
	uint64_t calls;
	bool recursive;          /* inside one cycle, or a self call, of a call graph */
	const uint64_t *attributed;
} plumb_table_arc;

typedef struct plumb_table_function {
	plumb_table_ref ref;
	uint32_t line;           /* 0: not known */
	const uint64_t *exclusive, *inclusive;
	uint64_t calls;
	size_t ncallers, ncallees;
	const plumb_table_arc *callers, *callees;  /* heaviest first */
} plumb_table_function;

typedef struct plumb_table_cycle {
	uint32_t number;
	const uint64_t *exclusive, *inclusive;
	uint64_t calls;
	size_t nmembers;
	const plumb_table_ref *members;
} plumb_table_cycle;

typedef struct plumb_table_summary {
	size_t nevents;
	const plumb_table_event *events;
	const uint64_t *totals;
	bool inclusive_estimated;
	size_t nfunctions;
	const plumb_table_function *functions;
	size_t ncycles;
	const plumb_table_cycle *cycles;
} plumb_table_summary;

/* ---- charts ------------------------------------------------------------
 * Pictures a view draws beside its rows (the inputs view: cost against
 * input size). The SVG writer draws every chart; the text writer draws the
 * `main` ones under the table. Every number a picture shows is here. */

typedef enum plumb_chart_mark {
	PLUMB_MARK_POINTS = 0,  /* one dot per value */
	PLUMB_MARK_LINE,        /* a polyline through the values (fitted curves) */
	PLUMB_MARK_BARS         /* a bar from zero (counts) */
} plumb_chart_mark;

#define PLUMB_CHART_MAX_SERIES 4

typedef struct plumb_chart_series {
	const char *key;      /* "min", "avg", "max", "fit" */
	const char *label;    /* legend text */
	plumb_chart_mark mark;
	size_t n;
	const double *x, *y;  /* n values each, x ascending */
} plumb_chart_series;

typedef struct plumb_chart {
	const char *key;      /* "cost", "amortized", "frequency", "total" */
	const char *title;    /* "parse: cost per call against input size" */
	const char *xlabel, *ylabel;
	bool xlog, ylog;      /* logarithmic axes (values > 0 only are drawn) */
	bool main;            /* what a terminal shows */
	size_t nseries;
	plumb_chart_series series[PLUMB_CHART_MAX_SERIES];
} plumb_chart;

/* ---- flame graphs ------------------------------------------------------
 * The flame view's boxes (src/analysis/view_flame.c): one per node of the
 * call tree, in depth-first order, parents before children. x and width
 * are in cost units of one event: a box's width is its node's inclusive
 * cost (the tree view's), children lie side by side inside their parent. */

typedef struct plumb_flame_box {
	uint32_t depth;       /* 0: a root (a stack's outermost function) */
	uint64_t x, width;    /* offset from the left edge, inclusive cost */
	double pct;           /* width as % of the event's total */
	const char *name, *file, *module;  /* NULL: unknown */
	/* differential flame (plumb diff --view flame): width less the base
	 * profile's width of the same path (scaled to this total with
	 * --normalize); 0 otherwise */
	int64_t change;
} plumb_flame_box;

typedef struct plumb_flame {
	const char *event;    /* the event's name ("samples", "Ir") */
	uint64_t total;       /* the sum of the roots' widths: the picture's width */
	uint32_t max_depth;
	bool inverted;        /* icicle: leaves at the top, callers below (--invert) */
	bool differential;    /* boxes carry their change against a base profile */
	uint64_t max_change;  /* the largest |change|: the colour scale's end */
	size_t nboxes;
	const plumb_flame_box *boxes;
} plumb_flame;

/* ---- timelines -----------------------------------------------------------
 * The timeline view's lanes (src/analysis/view_timeline.c): one per part
 * and event, its values summed in equal time buckets. Text draws a lane a
 * line, SVG a strip each; the rows hold the same numbers. */
typedef struct plumb_timeline_lane {
	uint32_t part;        /* 1-based, as --part takes it */
	const char *thread;   /* the part's label */
	const char *event;    /* event name */
	const char *unit;     /* NULL: not known */
	uint64_t total;       /* the sum of values */
	uint64_t max;         /* the largest value: the lane's scale */
	const uint64_t *values;  /* nbuckets */
} plumb_timeline_lane;

/* A function's cost per time bucket (plumb_view_opts.timeline_functions):
 * what the HTML report's table shows for a range of buckets. excl and incl
 * hold nevents * nbuckets values, event-major, by the metric rules. */
typedef struct plumb_timeline_fn {
	const char *name, *module;    /* as the flat view shows them */
	const uint64_t *excl, *incl;
} plumb_timeline_fn;

typedef struct plumb_timeline {
	double start_s, bucket_s;  /* the first bucket's start, a bucket's length */
	size_t nbuckets;
	size_t nlanes;
	const plumb_timeline_lane *lanes;
	size_t nevents;            /* the events of fns (the view's), by name */
	const char *const *events;
	size_t nfns;               /* 0 unless asked for */
	const plumb_timeline_fn *fns;
} plumb_timeline;

typedef struct plumb_table {
	char *view;           /* "flat", "tree", ... */
	char *title;          /* one-line description printed above the table */
	size_t ncols;
	plumb_column *cols;
	size_t nrows, rows_cap;
	plumb_row *rows;
	/* rows of depth > 0 detail the row above them (fprof's statements and
	 * instructions): text leaves their empty cells blank, not "-" */
	bool nested;
	/* notes printed under the table ("inclusive times are estimates") */
	char **notes;
	size_t nnotes;
	/* the function summary (plumb_view_opts.summary); NULL when not built */
	const plumb_table_summary *summary;
	/* pictures (plumb_table_add_chart); none in most views */
	size_t ncharts;
	plumb_chart *charts;
	/* the flame view's boxes; NULL in other views */
	const plumb_flame *flame;
	const plumb_timeline *timeline;  /* the timeline view's lanes, or NULL */
	/* other views of the same profile built with this one
	 * (plumb_view_opts.report_views: an HTML report's flame graph and
	 * parts); owned, freed with the table */
	size_t nviews;
	struct plumb_table **views;
	/* private: the arena of every string and block the table points to */
	void **strs;
	size_t nstrs, strs_cap;
	/* rows made as they are read (plumb_view_opts.rows_on_demand): rows is
	 * NULL, nrows counts them, plumb_table_row makes each; NULL otherwise */
	struct plumb_row_source *source;
} plumb_table;

/* What makes a table's rows on demand: make fills the cells of row i (they
 * come zeroed, NULL cells) and returns 0, or -1 on ENOMEM. Such rows are
 * normal rows at depth 0: a flat list, whose kind and depth a writer need
 * not look at (CSV's depth,kind columns). A big table of
 * numbers is read once or twice by its writer; keeping 15 cells of every
 * row of a 2-million-row table took as much memory as the profile. */
typedef struct plumb_row_source {
	int (*make)(void *ctx, size_t i, plumb_row *row);
	void (*free)(void *ctx);
	void *ctx;
	plumb_row row;        /* the row made last */
	size_t made;          /* its index + 1; 0: none */
} plumb_row_source;

/* Row i of t: its own, or made by its source into one buffer that the next
 * call reuses (read a table's rows one at a time). NULL on ENOMEM. */
const plumb_row *plumb_table_row(const plumb_table *t, size_t i);
/* Give t a source of n rows (t then owns ctx: free(ctx) with the table,
 * also on failure). -1 on ENOMEM. t must have its columns and no rows. */
int plumb_table_set_source(plumb_table *t, size_t n,
			   int (*make)(void *ctx, size_t i, plumb_row *row),
			   void (*free_ctx)(void *ctx), void *ctx);

plumb_table *plumb_table_new(const char *view, const char *title);
void plumb_table_free(plumb_table *t);
/* Add a column; key and title are copied. Returns its index or -1. */
int plumb_table_add_column(plumb_table *t, const char *key, const char *title,
			   plumb_cell_type type, int event, bool name_column);
/* Append a row of NULL cells; returns it, or NULL on ENOMEM. */
/* The pointer is valid until the next add_row (the rows array may move). */
plumb_row *plumb_table_add_row(plumb_table *t, plumb_row_kind kind, uint32_t depth);
/* Copy s into the table's arena; NULL on ENOMEM. */
const char *plumb_table_strdup(plumb_table *t, const char *s);
int plumb_table_add_note(plumb_table *t, const char *note);
/* Keep view in t->views (t owns it from now on, also on failure: then it
 * is freed and -1 returned). */
int plumb_table_attach(plumb_table *t, plumb_table *view);
/* n zeroed bytes in the table's arena (freed with it); NULL on ENOMEM. */
void *plumb_table_alloc(plumb_table *t, size_t n);

/* A chart with no series; its strings are copied (title, labels may be
 * NULL). The pointer is valid until the next add_chart. NULL on ENOMEM. */
plumb_chart *plumb_table_add_chart(plumb_table *t, const char *key, const char *title,
				   const char *xlabel, const char *ylabel);
/* A series of n values in the chart (x and y zeroed, in the table's
 * arena, to fill); NULL on ENOMEM or when the chart is full. */
plumb_chart_series *plumb_chart_add_series(plumb_table *t, plumb_chart *c, const char *key,
					   const char *label, plumb_chart_mark mark, size_t n,
					   double **x, double **y);

static inline void plumb_cell_u64(plumb_cell *c, uint64_t v) { c->type = PLUMB_CELL_U64; c->u = v; }
static inline void plumb_cell_int(plumb_cell *c, int64_t v) { c->type = PLUMB_CELL_INT; c->i = v; }
static inline void plumb_cell_pct(plumb_cell *c, double v) { c->type = PLUMB_CELL_PCT; c->pct = v; }
static inline void plumb_cell_num(plumb_cell *c, double v) { c->type = PLUMB_CELL_NUM; c->num = v; }
/* The value is kept in t's arena; -1 on ENOMEM (the cell stays as it was). */
int plumb_cell_big(plumb_table *t, plumb_cell *c, long double v);
/* s must already live in the table's arena (plumb_table_strdup) or be static. */
static inline void plumb_cell_str(plumb_cell *c, const char *s)
{
	c->type = s ? PLUMB_CELL_STR : PLUMB_CELL_NULL;
	c->s = s;
}

#endif
