/* -s: gmon.sum, the files read with the arcs and basic-block counts as
 * gprof writes them back. */
#include <stdlib.h>

#include "gprof/gp_internal.h"
#include "plumb/gmon.h"

/* One arc per symbol pair, at the symbols' addresses: symbols in address
 * order, each one's callees newest first; -c's arcs are left out. */
static plumb_gmon_arc *sum_arcs(const plumb_gprof *g, size_t *n)
{
	size_t max = g->narc < g->narc_read ? g->narc : g->narc_read;
	plumb_gmon_arc *v = malloc((max ? max : 1) * sizeof *v);
	*n = 0;
	for (size_t i = 0; v && i < g->nsym; i++)
		for (uint32_t a = g->sym[i].children; a != GP_NONE; a = g->arc[a].next_child) {
			if (a >= g->narc_read)
				continue;
			const gp_arc *arc = &g->arc[a];
			v[(*n)++] = (plumb_gmon_arc){ g->sym[arc->parent].s.addr, g->sym[arc->child].s.addr,
						      arc->count };
		}
	return v;
}

/* The block counts kept on symbols (-l): symbols in address order, each
 * one's blocks in the order first read. */
static plumb_gmon_bb *sum_blocks(const plumb_gprof *g, size_t *n)
{
	plumb_gmon_bb *v = malloc((g->nblocks ? g->nblocks : 1) * sizeof *v);
	*n = 0;
	for (size_t i = 0; v && i < g->nsym; i++)
		for (uint32_t b = g->sym[i].bb_first; b != GP_NONE; b = g->blocks[b].next)
			v[(*n)++] = (plumb_gmon_bb){ g->blocks[b].addr, g->blocks[b].count };
	return v;
}

int plumb_gprof_write_sum(const plumb_gprof *g, const plumb_gmon *gm, const char *path, plumb_error *err)
{
	plumb_gmon copy = *gm;
	copy.arcs = sum_arcs(g, &copy.narcs);
	copy.bbs = sum_blocks(g, &copy.nbbs);
	copy.format = PLUMB_GMON_GNU;
	copy.version = 1;
	int rc = copy.arcs && copy.bbs ? plumb_gmon_write(&copy, path, err) : plumb_fail_nomem(err);
	free(copy.arcs);
	free(copy.bbs);
	return rc;
}
