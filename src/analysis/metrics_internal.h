/* Private to src/analysis/metrics*.c: the builder that gathers a level's
 * keys, costs and arcs, shared by the stack (metrics.c) and call-graph
 * (metrics_cg.c) halves of plumb_metrics_compute. */
#ifndef PLUMB_METRICS_INTERNAL_H
#define PLUMB_METRICS_INTERNAL_H

#include "model/index.h"
#include "analysis/cycles.h"
#include "analysis/view_internal.h"

typedef struct builder {
	const plumb_profile *p;
	plumb_metrics *m;
	size_t nev;
	PLUMB_VEC(plumb_key) keys;
	PLUMB_VEC(uint64_t) excl, incl, root;
	PLUMB_VEC(uint64_t) calls;
	PLUMB_VEC(uint8_t) calls_known;
	PLUMB_VEC(plumb_metric_arc) arcs;
	PLUMB_VEC(uint64_t) callee_attr, caller_attr;
	PLUMB_VEC(uint64_t) cg_cost;  /* per arc: inclusive cost from call-graph arcs */
	PLUMB_VEC(uint8_t) arc_cg;    /* per arc: a call-graph arc made it */
	plumb_index key_ix, arc_ix;
	uint32_t *frame_key;     /* frame -> key */
	uint32_t *fn_key;        /* function -> key at the function level; PLUMB_NONE if unseen */
	uint32_t *seen;          /* key -> stamp of the last stack that counted it */
	uint32_t *node_arc;      /* CCT node -> the arc parent -> node (PLUMB_NONE at a root) */
	bool keys_only;          /* plumb_metrics_opts.keys_only: no arcs from call stacks */
	/* keys only, a call graph with measured arc costs: no arcs at all. The
	 * SCC stage reads the profile's arcs again, each with its callee's key
	 * (arc_to: PLUMB_NONE for another part's): a metric arc per pair of
	 * keys, its costs and its index were as big as the profile's arcs */
	bool direct;
	uint32_t *arc_to;
} builder;

#define GROW(b, vec) plumb_costs_grow((vec), (b)->nev)

/* The key's index, or PLUMB_NONE if it is not there. */
uint32_t metrics_key_find(builder *b, const plumb_key *k);
/* The key's index, added with zeroed costs if new; PLUMB_NONE on ENOMEM. */
uint32_t metrics_key_intern(builder *b, const plumb_key *k);
/* The arc caller -> callee, created with a zero count if absent. */
uint32_t metrics_arc_get(builder *b, uint32_t caller, uint32_t callee);
/* vec[idx * nevents ...] += m, checked. */
int metrics_add(builder *b, uint64_t *vec, uint32_t idx, const uint64_t *m, plumb_error *err);

/* Call graphs (metrics_cg.c): gather self costs and arcs, then inclusive
 * costs and cycles from the SCCs of the key graph. */
int metrics_from_call_graph(builder *b, const plumb_metrics_opts *o, plumb_error *err);
int metrics_scc_stage(builder *b, const plumb_metrics_opts *o, plumb_error *err);
/* Performance points (metrics_points.c): inclusive costs from the routines'
 * real sums, calls from the points where nothing else counted them. */
int metrics_from_points(builder *b, const plumb_metrics_opts *o, plumb_error *err);
/* A call count into an arc's sum. The metrics' rule, unlike the model's
 * plumb_count_add: one unknown count makes the sum unknown, since a total
 * that leaves out some calls would be a wrong number. False on overflow. */
static inline bool metrics_count_add(uint64_t *sum, uint64_t n)
{
	if (*sum == PLUMB_COUNT_UNKNOWN)
		return true;
	if (n == PLUMB_COUNT_UNKNOWN) {
		*sum = PLUMB_COUNT_UNKNOWN;
		return true;
	}
	if (*sum > PLUMB_COUNT_UNKNOWN - 1 - n)
		return false;
	*sum += n;
	return true;
}

/* Before the SCC stage sizes its arrays: a key for every routine with
 * points, frame or not. */
int metrics_points_keys(builder *b, const plumb_metrics_opts *o, plumb_error *err);

#endif
