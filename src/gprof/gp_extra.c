/* What else the analysis gives: the arcs of a gmon.sum, gprof's estimate
 * for other views (plumb report), and the execution counts of -C. */
#include <stdlib.h>
#include <string.h>

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

/* Arc times are stored scaled by the caller's propagation fraction, which
 * is 1 unless -n/-N/-F/-E say otherwise: what the call graph prints. */
int plumb_gprof_arc_estimate_at(const plumb_gprof *g, size_t i, plumb_gprof_arc_estimate *out)
{
	if (i >= g->narc)
		return -1;
	const gp_arc *a = &g->arc[i];
	*out = (plumb_gprof_arc_estimate){ .parent = a->parent, .child = a->child, .count = a->count,
					   .time = a->time, .child_time = a->child_time };
	return 0;
}

/* -C order: file, then line (when both have a file), then address. */
static int cmp_bb(const void *ctx, uint32_t a, uint32_t b)
{
	const gp_sym *l = &((const plumb_gprof *)ctx)->sym[a], *r = &((const plumb_gprof *)ctx)->sym[b];
	if (l->s.file && r->s.file) {
		int c = strcmp(l->s.file, r->s.file);
		if (c)
			return c;
		if (l->s.line != r->s.line)
			return l->s.line < r->s.line ? -1 : 1;
	}
	return l->s.addr < r->s.addr ? -1 : l->s.addr > r->s.addr;
}

int plumb_gprof_print_exec_counts(plumb_gprof *g, FILE *out)
{
	uint32_t *v = malloc((g->nsym ? g->nsym : 1) * sizeof *v);
	if (!v)
		return -1;
	size_t n = 0;
	for (uint32_t i = 0; i < g->nsym; i++)
		if (gp_selected(g, PLUMB_GP_INCL_EXEC, g->sym[i].s.addr))
			v[n++] = i;
	gp_stable_sort(v, n, cmp_bb, g);
	gp_section_start(g, out);
	for (size_t k = 0; k < n; k++) {
		const gp_sym *s = &g->sym[v[k]];
		const char *file = s->s.file ? s->s.file : "<unknown>";
		if (s->ncalls > 0 || g->o.zeros)
			fprintf(out, "%s:%u: (%s:0x%lx) %lu executions\n", file, s->s.line, s->s.name,
				(unsigned long)s->s.addr, (unsigned long)s->ncalls);
		for (uint32_t b = s->bb_first; b != GP_NONE; b = g->blocks[b].next)
			if (g->blocks[b].count > 0 || g->o.zeros)
				fprintf(out, "%s:%u: (%s:0x%lx) %lu executions\n", file, s->s.line, s->s.name,
					(unsigned long)g->blocks[b].addr, (unsigned long)g->blocks[b].count);
	}
	free(v);
	return ferror(out) ? -1 : 0;
}
