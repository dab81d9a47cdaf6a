/* Inlined frames folded into the function they were inlined into
 * (plumb report --inline=no, perf report's default).
 *
 * The model marks an inlined call by position: a recording (and a pprof
 * location with several lines) gives every frame of one address's inline
 * chain that address, outermost first down the CCT. A node whose frame has
 * the address and module of its parent's frame, and another function, is
 * an inlined call; folding it moves its cost and children to the parent.
 */
#include <stdlib.h>

#include "plumb/analysis.h"

static plumb_id module_of(const plumb_profile *p, const plumb_frame *f)
{
	return f->function != PLUMB_NONE ? p->functions.v[f->function].module : PLUMB_NONE;
}

bool plumb_frame_inlined_into(const plumb_profile *p, plumb_id frame, plumb_id parent_frame)
{
	if (frame == PLUMB_NONE || parent_frame == PLUMB_NONE || frame == parent_frame)
		return false;
	const plumb_frame *a = &p->frames.v[parent_frame], *b = &p->frames.v[frame];
	return a->address && a->address == b->address && a->function != b->function &&
	       module_of(p, a) == module_of(p, b);
}

int plumb_profile_fold_inlined(const plumb_profile *p, plumb_profile **out, size_t *nfolded,
			       plumb_error *err)
{
	*out = NULL;
	size_t n = 0;
	uint8_t *fold = calloc(p->cct.n + 1, 1);
	plumb_profile *q = plumb_profile_new();
	if (!fold || !q) {
		free(fold);
		plumb_profile_free(q);
		return plumb_fail_nomem(err);
	}
	for (size_t i = 0; i < p->cct.n; i++) {
		const plumb_cct_node *c = &p->cct.v[i];
		if (c->parent != PLUMB_NONE &&
		    plumb_frame_inlined_into(p, c->frame, p->cct.v[c->parent].frame)) {
			fold[i] = 1;
			n++;
		}
	}
	int rc = plumb_profile_merge_folding(q, p, fold, err);
	free(fold);
	if (rc) {
		plumb_profile_free(q);
		return -1;
	}
	if (nfolded)
		*nfolded = n;
	*out = q;
	return 0;
}
