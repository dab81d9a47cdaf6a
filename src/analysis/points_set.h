/* Private to the input-sensitive views (view_points.c, view_inputs.c): a
 * profile's performance points, filtered and merged into groups. */
#ifndef PLUMB_POINTS_SET_H
#define PLUMB_POINTS_SET_H

#include "plumb/analysis.h"

/* One routine, or one calling context of it, with its points by input. */
typedef struct points_group {
	plumb_id function;
	const char *context;  /* "main;parse;read_item", NULL: the routine as a whole */
	size_t first, n;      /* pts[first .. first + n), input ascending */
	uint64_t cost;        /* sum of real_sum (cumulative, recursion once) */
	uint64_t self;        /* sum of self_sum */
	uint64_t calls;
	uint32_t has;         /* PLUMB_PT_* every point of the group had */
} points_group;

typedef struct points_set {
	const plumb_point **pts; /* one per group and input size: the profile's
				    point, or its merge with equal ones in merged */
	size_t npts;
	plumb_point *merged;  /* points merged from several (parts, contexts) */
	points_group *groups; /* in the order of their first point */
	size_t ngroups;
	char **paths;         /* context path per CCT node (NULL if unused); owned */
	size_t npaths;
	uint64_t total_self;  /* sum of every self_sum of the part(s), selected or not */
	uint64_t total_cost;  /* what shares are of: aprof's k (all parts), else total_self */
} points_set;

/* Gather the points of o's part (all parts summed when PLUMB_NONE) whose
 * routine o->select names and o->hide does not; by_context keeps calling
 * contexts apart (else a routine's contexts merge by input size, as
 * aprof-plot merges them). The profile must have points. */
int points_gather(const plumb_profile *p, const plumb_view_opts *o, bool by_context,
		  points_set *s, plumb_error *err);
void points_set_free(points_set *s);

/* What the input sizes are: "rms, in 4-byte granules". Returns buf. */
const char *view_points_input_desc(const plumb_profile *p, char *buf, size_t n);

/* The error for a view of points on a profile without them. */
int points_none(const plumb_profile *p, const plumb_view_opts *o, plumb_error *err);

#endif
