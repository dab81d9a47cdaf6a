/* -C: the execution counts of every symbol and its basic blocks. */
#include <stdlib.h>
#include <string.h>

#include "gprof/gp_internal.h"

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
