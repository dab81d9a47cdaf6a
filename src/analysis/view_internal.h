/* Private to libplumb: what the views (and the report JSON writer) share. */
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

/* The keys of m a view lists, filtered (select, hide, threshold, zero rows)
 * and sorted, cut to the limit. *keys is malloc'd. */
int view_ordered_keys(const plumb_profile *p, const plumb_metrics *m, const plumb_view_opts *o,
		      const view_events *ve, uint32_t **keys, size_t *n, plumb_error *err);

double view_pct(uint64_t part, uint64_t whole);

/* A copy of arcs[0..n) sorted heaviest first by the attributed cost of
 * event ev (caller attribution when callers, callee attribution otherwise);
 * ties by arc index. NULL on ENOMEM. */
typedef struct view_arc_sort {
	const plumb_metrics *m;
	const uint64_t *attr;
	int ev;
} view_arc_sort;
uint32_t *view_sorted_arcs(const plumb_metrics *m, const uint32_t *arcs, size_t n, bool callers,
			   int ev);

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
	uint32_t *keys;
	size_t n;
} view_rows;

/* Fill r; on failure nothing is left to free. */
int view_rows_prepare(const plumb_profile *p, const plumb_view_opts *o, plumb_level level,
		      view_rows *r, plumb_error *err);
void view_rows_free(view_rows *r);

/* Compute metrics for a view's options at a level. */
int view_metrics(const plumb_profile *p, const plumb_view_opts *o, plumb_level level,
		 plumb_metrics **m, plumb_error *err);

/* flat, lines, files, modules: one row per key of the view's level. */
int view_keyed(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);
int view_calls(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);
int view_tree(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);
int view_threads(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err);

#endif
