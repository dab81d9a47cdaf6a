/* -s: the arcs and basic-block counts as gprof writes them into gmon.sum. */
#include <stdlib.h>

#include "gprof/gp_internal.h"

int plumb_gprof_sum_arcs(const plumb_gprof *g, plumb_gprof_sum_arc **out, size_t *n, plumb_error *err)
{
	*out = NULL;
	*n = 0;
	size_t count = 0;
	for (size_t i = 0; i < g->narc; i++)
		count += i < g->narc_read;
	plumb_gprof_sum_arc *v = malloc((count ? count : 1) * sizeof *v);
	if (!v)
		return plumb_fail_nomem(err);
	size_t k = 0;
	for (size_t i = 0; i < g->nsym; i++)
		for (uint32_t a = g->sym[i].children; a != GP_NONE; a = g->arc[a].next_child) {
			if (a >= g->narc_read)
				continue;
			const gp_arc *arc = &g->arc[a];
			v[k++] = (plumb_gprof_sum_arc){ g->sym[arc->parent].s.addr, g->sym[arc->child].s.addr,
							arc->count };
		}
	*out = v;
	*n = k;
	return 0;
}

int plumb_gprof_sum_blocks(const plumb_gprof *g, plumb_gprof_sum_block **out, size_t *n, plumb_error *err)
{
	*out = NULL;
	*n = 0;
	plumb_gprof_sum_block *v = malloc((g->nblocks ? g->nblocks : 1) * sizeof *v);
	if (!v)
		return plumb_fail_nomem(err);
	size_t k = 0;
	for (size_t i = 0; i < g->nsym; i++)
		for (uint32_t b = g->sym[i].bb_first; b != GP_NONE; b = g->blocks[b].next)
			v[k++] = (plumb_gprof_sum_block){ g->blocks[b].addr, g->blocks[b].count };
	*out = v;
	*n = k;
	return 0;
}
