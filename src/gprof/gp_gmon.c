/* The gprof engine fed from libplumb's gmon reader: histograms, arcs and
 * block counts, and the default options that keep the mcount family out. */
#include <stdbool.h>
#include <stdlib.h>

#include "gprof/gp_internal.h"
#include "plumb/elfsym.h"
#include "plumb/gmon.h"

int plumb_gprof_add_default_specs(plumb_gprof *g, plumb_error *err)
{
	for (const char *const *m = plumb_gmon_mcount_family; *m; m++)
		if (plumb_gprof_add_spec(g, PLUMB_GP_EXCL_TIME, *m, err) ||
		    plumb_gprof_add_spec(g, PLUMB_GP_EXCL_GRAPH, *m, err) ||
		    plumb_gprof_add_spec(g, PLUMB_GP_EXCL_FLAT, *m, err))
			return -1;
	return 0;
}

/* take: the histograms' bins and the arcs move into the engine where they
 * can (gm keeps its block counts; its bins are NULL, its arcs gone) */
static int add_gmon(plumb_gprof *g, struct plumb_gmon *gm, bool take, plumb_error *err)
{
	for (size_t i = 0; i < gm->nhists; i++) {
		plumb_gmon_hist *h = &gm->hists[i];
		/* old BSD files carry no rate: the reader leaves hz 0, gprof takes the host's */
		uint32_t hz = gm->hz ? gm->hz : h->prof_rate ? h->prof_rate : 100;
		if (take ? plumb_gprof_take_hist(g, h->low_pc, h->high_pc, h->nbins, &h->bins, hz, h->dimen,
						 h->dimen_abbrev, err)
			 : plumb_gprof_add_hist(g, h->low_pc, h->high_pc, h->nbins, h->bins, hz, h->dimen,
						h->dimen_abbrev, err))
			return -1;
	}
	if (take && !g->nraw && gm->narcs) {
		g->raw = gm->arcs;
		g->nraw = gm->narcs;
		g->raw_cap = gm->arcs_cap;
		gm->arcs = NULL;
		gm->narcs = gm->arcs_cap = 0;
	}
	for (size_t i = 0; i < gm->narcs; i++)
		plumb_gprof_add_arc(g, gm->arcs[i].from_pc, gm->arcs[i].self_pc, gm->arcs[i].count);
	for (size_t i = 0; i < gm->nbbs; i++)
		plumb_gprof_add_bb(g, gm->bbs[i].addr, gm->bbs[i].count);
	return 0;
}

int plumb_gprof_add_gmon(plumb_gprof *g, const struct plumb_gmon *gm, plumb_error *err)
{
	return add_gmon(g, (struct plumb_gmon *)gm, false, err);
}

int plumb_gprof_take_gmon(plumb_gprof *g, struct plumb_gmon *gm, plumb_error *err)
{
	return add_gmon(g, gm, true, err);
}

/* ---- for the unit tests (gp_internal.h) ---------------------------------- */

plumb_gprof *plumb_gprof_from_gmon(const struct plumb_symtab *st, const struct plumb_gmon *gm,
				   plumb_error *err)
{
	plumb_gprof_symbol *sym = calloc(st->n + 1, sizeof *sym);
	if (!sym) {
		plumb_fail_nomem(err);
		return NULL;
	}
	for (size_t i = 0; i < st->n; i++) {
		const plumb_exe_sym *s = &st->syms[i];
		sym[i] = (plumb_gprof_symbol){ .addr = s->addr, .end_addr = s->end_addr, .name = s->name,
					       .display = s->demangled, .file = s->file, .line = s->line,
					       .is_static = s->is_static, .is_func = s->is_func };
	}
	plumb_gprof_opts o;
	plumb_gprof_opts_init(&o);
	o.brief = true;
	plumb_gprof *g = plumb_gprof_new(sym, st->n, &o, err);
	free(sym);
	if (g && (plumb_gprof_add_default_specs(g, err) || plumb_gprof_add_gmon(g, gm, err) ||
		  plumb_gprof_analyze(g, err))) {
		plumb_gprof_free(g);
		g = NULL;
	}
	return g;
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
