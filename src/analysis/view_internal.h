/* Private to the views (src/analysis/view*.c): what they share. */
#ifndef PLUMB_VIEW_INTERNAL_H
#define PLUMB_VIEW_INTERNAL_H

#include "plumb/analysis.h"

/* Which CCT nodes take part (see metrics.c): pass[n] when the stack ending
 * at n belongs to the part and goes through a --focus match; keep[n] when n
 * lies on some passing stack. Either output may be NULL. */
int plumb_cct_select(const plumb_profile *p, plumb_id part, const plumb_symspec_list *focus,
		     uint8_t **pass, uint8_t **keep);

/* The events a view shows: all, or the one of --metric. */
#define PLUMB_VIEW_MAX_EVENTS 256
typedef struct view_events {
	size_t n;
	int ev[PLUMB_VIEW_MAX_EVENTS];
	int primary;  /* the event that sorts and thresholds */
} view_events;

int view_events_of(const plumb_profile *p, const plumb_view_opts *o, view_events *ve,
		   plumb_error *err);

/* Row ids: a key index of m, or m->nkeys + n - 1 for the row of <cycle n>
 * (a call graph's mutual recursion as a whole; see analysis.h). */
static inline bool view_is_cycle(const plumb_metrics *m, uint32_t id)
{
	return id >= m->nkeys;
}
static inline uint32_t view_cycle_number(const plumb_metrics *m, uint32_t id)
{
	return id >= m->nkeys ? id - (uint32_t)m->nkeys + 1 : m->cycle[id];
}
const uint64_t *view_row_excl(const plumb_metrics *m, uint32_t id);
const uint64_t *view_row_incl(const plumb_metrics *m, uint32_t id);
uint64_t view_row_calls(const plumb_metrics *m, uint32_t id);
/* What a row's function cell says: the name, "name <cycle n>" for a member
 * of a cycle, "<cycle n>" for a cycle row; kept in t's arena. NULL when the
 * name is unknown or memory runs out (*nomem set). */
const char *view_row_label(plumb_table *t, const plumb_profile *p, const plumb_metrics *m,
			   uint32_t id, bool *nomem);
/* The same into *buf (grown as needed, *cap bytes), for rows made on
 * demand: the label lives until the next call. */
const char *view_row_label_buf(const plumb_profile *p, const plumb_metrics *m, uint32_t id,
			       char **buf, size_t *cap, bool *nomem);

/* The rows a keyed view lists, filtered (select, hide, threshold, zero
 * rows) and sorted, cut to the limit; with_cycles adds the cycle rows.
 * *keys is malloc'd. */
int view_ordered_keys(const plumb_profile *p, const plumb_metrics *m, const plumb_view_opts *o,
		      const view_events *ve, bool with_cycles, uint32_t **keys, size_t *n,
		      plumb_error *err);

double view_pct(uint64_t part, uint64_t whole);

/* Sort a keyed view's rows (key ids, cycle rows past nkeys) by `by` on
 * event ev, ties by name, file, line, module and id (view_sort.c). -1 on
 * ENOMEM. */
int view_sort_keys(uint32_t *keys, size_t n, const plumb_profile *p, const plumb_metrics *m,
		   plumb_sort_key by, int ev);

/* Orderings every view uses: strings with unknowns (NULL) last, costs
 * heaviest first, call counts heaviest first with unknown counts last. */
int view_cmp_str(const char *a, const char *b);
int view_cmp_desc(uint64_t a, uint64_t b);
int view_cmp_calls(uint64_t a, uint64_t b);

/* Rows a and b (keys or cycles) by name, file, line, module, then id: the
 * order of rows whose costs tie, the same however the profile was read. */
int view_cmp_key_names(const plumb_profile *p, const plumb_metrics *m, uint32_t a, uint32_t b);

/* A copy of arcs[0..n) sorted heaviest first by the attributed cost of
 * event ev (caller attribution when callers, callee attribution otherwise);
 * ties by the other end's name (view_cmp_key_names). NULL on ENOMEM. */
uint32_t *view_sorted_arcs(const plumb_profile *p, const plumb_metrics *m, const uint32_t *arcs,
			   size_t n, bool callers, int ev);

/* Display strings for a key: function name (or a fallback), file, module. */
const char *view_key_name(const plumb_profile *p, const plumb_key *k);
const char *view_key_file(const plumb_profile *p, const plumb_key *k);
const char *view_key_module(const plumb_profile *p, const plumb_key *k);

/* Column key "<what>.<event>" and title "<What> <event>" for event e. */
int view_add_event_column(plumb_table *t, const plumb_profile *p, const char *what,
			  const char *title, plumb_cell_type type, int e);

/* What every keyed view starts from: the events shown, the metrics at a
 * level, and the keys to list in order. */
typedef struct view_rows {
	view_events ve;
	plumb_metrics *m;
	bool m_kept;     /* m is the profile's (plumb_profile.flat): not freed */
	uint32_t *keys;
	size_t n;
} view_rows;

/* Fill r (with cycle rows if with_cycles; with the arcs of call stacks and
 * their attributed costs if with_arcs); on failure nothing is left to free. */
int view_rows_prepare(const plumb_profile *p, const plumb_view_opts *o, plumb_level level,
		      bool with_cycles, bool with_arcs, view_rows *r, plumb_error *err);
void view_rows_free(view_rows *r);

/* Said under a table that shows cycles. */
/* The note under a view whose inclusive costs are estimates (m's flag):
 * why they are, in the words of the profile's source. */
const char *view_estimate_note(const plumb_profile *p);

#define VIEW_CYCLE_NOTE \
	"<cycle N>: functions that call each other (mutual recursion), as one row: its own cost " \
	"is its members', its inclusive cost adds the calls leaving it. A member's inclusive cost " \
	"counts only its own calls out of the cycle. --cycles=no hides these rows."

/* Compute metrics for a view's options at a level; without with_arcs,
 * only the keys' costs and calls (plumb_metrics_opts.keys_only). */
int view_metrics(const plumb_profile *p, const plumb_view_opts *o, plumb_level level,
		 bool with_arcs, plumb_metrics **m, plumb_error *err);

/* flat, lines, files, modules: one row per key of the view's level. */
int view_keyed(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);
int view_calls(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);
int view_tree(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);
/* tree and bottom-up unfolded from a call graph's arcs (view_cgtree.c) */
int view_cg_tree(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);
int view_heap(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);
int view_threads(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);
int view_timeline(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);
int view_locks(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);
/* The call tree (or bottom-up tree with o->invert) as flame-graph boxes. */
int view_flame(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);
/* The same, each box with its change against the box of the same call path
 * in base (a flame view's table of another profile); normalize scales the
 * base to p's total. */
int view_flame_against(const plumb_profile *p, const plumb_view_opts *o, const plumb_table *base,
		       bool normalize, plumb_table **out, plumb_error *err);
/* HP Caliper's fprof report (view_fprof.c). */
int view_fprof(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);
/* A part's label, seed 003's "Kernel Thread ID": "4242 worker", "pid 7",
 * "all threads", "part 3" (i: its index). */
void view_part_label(const plumb_profile *p, const plumb_part *part, size_t i, char *buf, size_t n);
/* Input-sensitive profiles (view_points.c, view_inputs.c). */
int view_points(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);
int view_inputs(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);
/* Attach the function summary (plumb/table.h) of o's selection to t. */
int view_add_summary(const plumb_profile *p, const plumb_view_opts *o, plumb_table *t,
		     plumb_error *err);

#endif
