/* A forked child: the thread that called fork goes on in the child with
 * its pending activations (what they read before the fork stays their
 * input), but the calls that returned before the fork are the parent's:
 * the child's report starts from no points, and costs count from the
 * fork. */
#include <string.h>

#include "inputs/inputs.h"

#define FREE_TABLE(tb) inp_unmap((tb)->keys, (tb)->cap * sizeof *(tb)->keys), \
	inp_unmap((tb)->vals, (tb)->cap * sizeof *(tb)->vals)

INP_HIDDEN void inp_after_fork(inp_thread *t)
{
	FREE_TABLE(&t->point_ix);
	memset(&t->point_ix, 0, sizeof t->point_ix);
	t->npoints = 0;
	if (t->dpoints)
		memset(t->dpoints, 0, t->dpoints_cap * sizeof *t->dpoints);
	if (t->blocks)
		inp_blocks_free(t->blocks);
	if (t->cost_time)
		t->cost_base = inp_now_us();
	t->cost = 0;
	__plumb_inp_cost = 0;
	for (uint32_t d = 0; d <= t->depth; d++) {
		t->frames[d].start_cost = 0;
		t->frames[d].children_cost = 0;
		if (t->dframes)
			memset(&t->dframes[d], 0, sizeof t->dframes[d]);
	}
}
