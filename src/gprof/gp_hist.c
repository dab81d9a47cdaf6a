/* Histogram samples credited to symbols, and the flat profile. gprof works
 * in 2-byte units with truncated bin edges; the arithmetic below is the
 * same, so the same samples give the same (sometimes >100%) shares. */
#include <stdlib.h>
#include <string.h>

#include "gprof/gp_internal.h"
#include "plumb/gmon.h"

enum { UNIT = 2 };

/* A symbol's credit (plumb_gmon_credit_bin). A symbol left out of the
 * flat profile (-p/-P specs) gives its share back: the total shrinks
 * instead. */
static void credit_symbol(void *ctx, size_t j, double credit)
{
	plumb_gprof *g = ctx;
	if (gp_selected(g, PLUMB_GP_INCL_FLAT, g->sym[j].s.addr))
		g->sym[j].time += credit;
	else
		g->total_time -= credit;
}

/* Every bin counts in the total, then goes to the symbols it overlaps with
 * the gmon decoder's credit (gprof's arithmetic). Range j is symbol j up to
 * symbol j + 1: gprof's last symbol gets no time. */
void gp_hist_assign(plumb_gprof *g)
{
	plumb_gmon_credit c = { .start = &g->sym[0].s.addr, .stride = sizeof *g->sym,
				.n = g->nsym ? g->nsym - 1 : 0, .scale = g->hist_scale,
				.add = credit_symbol, .ctx = g };
	for (size_t k = 0; k < g->nhist; k++) {
		const gp_hist *h = &g->hist[k];
		c.low_pc = h->low;
		c.cursor = 0;
		for (uint32_t i = 0; i < h->nbins; i++) {
			if (!h->bins[i])
				continue;
			g->total_time += (double)h->bins[i];
			plumb_gmon_credit_bin(&c, i, h->bins[i]);
		}
	}
}

static const struct {
	char prefix;
	double scale;
} si[] = {
	{ 'T', 1e-12 }, { 'G', 1e-09 }, { 'M', 1e-06 }, { 'K', 1e-03 }, { ' ', 1e-00 },
	{ 'm', 1e+03 }, { 'u', 1e+06 }, { 'n', 1e+09 }, { 'p', 1e+12 }, { 'f', 1e+15 },
	{ 'a', 1e+18 },
};
enum { NSI = sizeof si / sizeof *si };

/* The first prefix that brings the largest per-call time into [1, 1000);
 * past the table when none does (gprof then prints garbage; we keep 'T'
 * for a zero time, as it does, and the last prefix otherwise). */
int gp_si_prefix(double top_time)
{
	if (!(top_time > 0.0))
		return 0;
	int i;
	for (i = 0; i < NSI; i++) {
		double v = si[i].scale * top_time;
		if (v >= 1.0 && v < 1000.0)
			break;
	}
	return i < NSI ? i : NSI - 1;
}

char gp_si_char(int i) { return si[i].prefix; }
double gp_si_scale(int i) { return si[i].scale; }

/* Flat order: self time down, then calls down, then raw name. */
static int cmp_time(const void *ctx, uint32_t a, uint32_t b)
{
	const gp_sym *l = &((const plumb_gprof *)ctx)->sym[a], *r = &((const plumb_gprof *)ctx)->sym[b];
	double d = r->time - l->time;
	if (d > 0.0)
		return 1;
	if (d < 0.0)
		return -1;
	if (r->ncalls != l->ncalls)
		return r->ncalls > l->ncalls ? 1 : -1;
	return strcmp(l->s.name, r->s.name);
}

static int per_call_prefix(const plumb_gprof *g, const uint32_t *order)
{
	if (g->o.bsd)
		return 5; /* milliseconds, always */
	double top = 0.0;
	bool found = false;
	for (size_t i = 0; i < g->nsym; i++) {
		const gp_sym *s = &g->sym[order[i]];
		if (!s->ncalls)
			continue;
		double t = (s->time + s->child_time) / (double)s->ncalls;
		if (t > top) {
			top = t;
			found = true;
		}
	}
	return found && top > 0.0 ? gp_si_prefix(top / g->hz) : 0;
}

static void flat_header(const plumb_gprof *g, FILE *out, char prefix, double *total)
{
	char unit[64];
	snprintf(unit, sizeof unit, "%c%c/call", prefix, g->abbrev);
	if (g->o.bsd) {
		fprintf(out, "\ngranularity: each sample hit covers %ld byte(s)", (long)g->hist_scale * (long)UNIT);
		if (*total > 0.0)
			fprintf(out, " for %.2f%% of %.2f %s\n\n", 100.0 / *total, *total / g->hz, g->dimen);
	} else {
		fprintf(out, "\nEach sample counts as %g %s.\n", 1.0 / g->hz, g->dimen);
	}
	if (*total <= 0.0) {
		fputs(" no time accumulated\n\n", out);
		*total = 1.0; /* every numerator is zero */
	}
	fprintf(out, "%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "%  ", "cumulative", "self  ", "",
		"self  ", "total ", "");
	fprintf(out, "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "time", g->dimen, g->dimen, "calls",
		unit, unit, "name");
}

static void flat_row(const plumb_gprof *g, FILE *out, const gp_sym *s, double scale, double total,
		     double *accum)
{
	if (!g->o.zeros && s->ncalls == 0 && s->time == 0)
		return;
	*accum += s->time;
	double pct = total > 0.0 ? 100 * s->time / total : 0.0;
	fprintf(out, g->o.bsd ? "%5.1f %10.2f %8.2f" : "%6.2f %9.2f %8.2f", pct, *accum / g->hz,
		s->time / g->hz);
	if (s->ncalls != 0)
		fprintf(out, " %8lu %8.2f %8.2f  ", (unsigned long)s->ncalls,
			scale * s->time / g->hz / (double)s->ncalls,
			scale * (s->time + s->child_time) / g->hz / (double)s->ncalls);
	else
		fprintf(out, " %8.8s %8.8s %8.8s  ", "", "", "");
	if (g->o.bsd)
		gp_print_name(g, s, out);
	else
		gp_print_name_only(g, s, out);
	fputc('\n', out);
}

static const char flat_notes[] =
	"\n"
	"Reading the flat profile (plumb's notes; gprof -b leaves them out):\n"
	"  % time      share of all samples that landed in this function's code.\n"
	"              Samples in a bin that straddles two functions are split by\n"
	"              overlap, so the column can add up to a little over 100.\n"
	"  cumulative  running sum of the self column, top to bottom.\n"
	"  self        time sampled in the function itself (exact up to sampling).\n"
	"  calls       calls counted by the -pg entry hook, recursive calls excluded;\n"
	"              blank when the function was not built with -pg.\n"
	"  self/call   self time divided by calls.\n"
	"  total/call  self plus children time per call. Children time is gprof's\n"
	"              estimate: a callee's time is shared among its callers in\n"
	"              proportion to their call counts, which is only a guess.\n"
	"  name        the function; rows are sorted by self time, then calls.\n";

int plumb_gprof_print_flat(plumb_gprof *g, FILE *out)
{
	uint32_t *order = malloc((g->nsym ? g->nsym : 1) * sizeof *order);
	if (!order)
		return -1;
	for (size_t i = 0; i < g->nsym; i++)
		order[i] = (uint32_t)i;
	gp_stable_sort(order, g->nsym, cmp_time, g);
	gp_section_start(g, out);
	if (g->o.bsd) {
		if (!g->o.brief)
			fputs("\n\n\nflat profile:\n", out);
	} else {
		fputs("Flat profile:\n", out);
	}
	int p = per_call_prefix(g, order);
	double total = g->total_time, accum = 0.0;
	flat_header(g, out, gp_si_char(p), &total);
	for (size_t i = 0; i < g->nsym; i++) {
		const gp_sym *s = &g->sym[order[i]];
		if (gp_selected(g, PLUMB_GP_INCL_FLAT, s->s.addr))
			flat_row(g, out, s, gp_si_scale(p), total, &accum);
	}
	free(order);
	if (!g->o.brief)
		fputs(flat_notes, out);
	return ferror(out) ? -1 : 0;
}
