/* gmon.out as a plumb profile: the executable's symbols (as gprof builds
 * them) name the addresses; the histogram becomes exclusive time, credited
 * with gprof's bin-overlap arithmetic to functions, or to the source lines
 * inside them when the executable has DWARF lines (the lines of a function
 * add up to the function's gprof self time); arcs become call-graph arcs
 * with their call counts and no inclusive cost, in a part whose arc costs
 * are gprof's estimate (computed by analysis/propagate.c, marked estimated).
 *
 * Event "time" is in nanoseconds: samples / hz, rounded per line.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/index.h"
#include "plumb/elfsym.h"
#include "plumb/formats.h"
#include "plumb/gmon.h"

#define HOST_HZ 100 /* old BSD files carry no rate: gprof takes the host's */

bool plumb_gmon_format_detect(const unsigned char *head, size_t len)
{
	return plumb_gmon_detect(head, len);
}

/* "a.out" in the directory of path. */
static char *default_exe(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	char *s = malloc(dir + sizeof "a.out");
	if (s) {
		memcpy(s, path, dir);
		memcpy(s + dir, "a.out", sizeof "a.out");
	}
	return s;
}

/* ---- address segments: symbols cut at line boundaries ------------------ */

typedef struct segs {
	uint64_t *start;    /* n + 1 boundaries (the last is an end) */
	size_t *sym;        /* symbol of segment i */
	const plumb_line_run **run; /* its line, or NULL */
	size_t n, cap;
} segs;

static int seg_push(segs *s, uint64_t start, size_t sym, const plumb_line_run *run)
{
	if (s->n + 2 > s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 256;
		uint64_t *a = realloc(s->start, nc * sizeof *a);
		if (a)
			s->start = a;
		size_t *b = realloc(s->sym, nc * sizeof *b);
		if (b)
			s->sym = b;
		const plumb_line_run **c = realloc(s->run, nc * sizeof *c);
		if (c)
			s->run = c;
		if (!a || !b || !c)
			return -1;
		s->cap = nc;
	}
	s->start[s->n] = start;
	s->sym[s->n] = sym;
	s->run[s->n] = run;
	s->n++;
	return 0;
}

static void segs_free(segs *s)
{
	free(s->start);
	free(s->sym);
	free(s->run);
}

/* Cut [lo, hi) of symbol i at the runs; *r moves forward through runs. */
static int cut_symbol(segs *s, size_t i, uint64_t lo, uint64_t hi, const plumb_line_run *runs,
		      size_t nruns, size_t *r)
{
	uint64_t cur = lo;
	while (cur < hi) {
		while (*r < nruns && runs[*r].end <= cur)
			(*r)++;
		const plumb_line_run *run = NULL;
		uint64_t next = hi;
		if (*r < nruns && runs[*r].addr <= cur) {
			run = &runs[*r];
			next = run->end < hi ? run->end : hi;
		} else if (*r < nruns && runs[*r].addr < hi) {
			next = runs[*r].addr;
		}
		if (seg_push(s, cur, i, run))
			return -1;
		cur = next;
	}
	return 0;
}

static int build_segs(const plumb_symtab *st, const plumb_line_run *runs, size_t nruns, segs *s)
{
	size_t r = 0;
	for (size_t i = 0; i < st->n; i++) {
		uint64_t lo = st->syms[i].addr;
		uint64_t hi = i + 1 < st->n ? st->syms[i + 1].addr : st->syms[i].end_addr + 1;
		if (hi <= lo)
			hi = lo + 1;
		if (cut_symbol(s, i, lo, hi, runs, nruns, &r))
			return -1;
	}
	s->start[s->n] = st->n ? st->syms[st->n - 1].end_addr + 1 : 0;
	if (s->n && s->start[s->n] <= s->start[s->n - 1])
		s->start[s->n] = s->start[s->n - 1] + 1;
	return 0;
}

static void add_credit(void *ctx, size_t seg, double samples)
{
	((double *)ctx)[seg] += samples;
}

/* gprof's credit of every bin to the segments it overlaps (plumb/gmon.h),
 * at the bin width of the first histogram that has bins, as gprof. */
static void credit_hists(const plumb_gmon *g, const segs *s, double *credit)
{
	plumb_gmon_credit c = { .start = s->start, .stride = sizeof *s->start, .n = s->n,
				.add = add_credit, .ctx = credit };
	for (size_t i = 0; i < g->nhists && !c.scale; i++)
		c.scale = plumb_gmon_hist_scale(&g->hists[i]);
	for (size_t i = 0; i < g->nhists; i++)
		plumb_gmon_credit_hist(&c, &g->hists[i]);
}

/* ---- into the profile -------------------------------------------------- */

typedef struct conv {
	plumb_profile *p;
	const plumb_symtab *st;
	plumb_id module, part;
	plumb_id *fn;      /* symbol -> function id, interned on first use */
} conv;

static plumb_id sym_function(conv *c, size_t i)
{
	if (c->fn[i] != PLUMB_NONE)
		return c->fn[i];
	const plumb_exe_sym *s = &c->st->syms[i];
	plumb_id file = s->file ? plumb_file_intern(c->p, s->file) : PLUMB_NONE;
	const char *mangled = s->demangled != s->name ? s->name : NULL;
	c->fn[i] = plumb_function_intern(c->p, s->demangled, mangled, c->module, file, s->line);
	return c->fn[i];
}

static int add_self(conv *c, const segs *s, const double *credit, double hz, plumb_error *err)
{
	for (size_t j = 0; j < s->n; j++) {
		if (credit[j] <= 0)
			continue;
		double ns = credit[j] / hz * 1e9;
		uint64_t cost = (uint64_t)llround(ns);
		if (!cost)
			continue;
		plumb_id fn = sym_function(c, s->sym[j]);
		if (fn == PLUMB_NONE)
			return plumb_fail_nomem(err);
		const plumb_line_run *run = s->run[j];
		plumb_id file = run && run->file ? plumb_file_intern(c->p, run->file) : PLUMB_NONE;
		plumb_id fr = plumb_frame_intern(c->p, fn, file, run ? run->line : 0, 0);
		if (fr == PLUMB_NONE || plumb_cg_add_self(c->p, c->part, fr, &cost, err))
			return fr == PLUMB_NONE ? plumb_fail_nomem(err) : -1;
	}
	return 0;
}

/* Arcs with their call counts and no cost: a gmon file does not say what a
 * call cost. The part says so (PLUMB_ARC_COSTS_GPROF): analysis estimates
 * the costs with gprof's propagation and marks them estimated. */
static int add_arcs(conv *c, const plumb_gmon *g, plumb_error *err)
{
	plumb_sym_arc *arcs;
	size_t n;
	if (plumb_gmon_sym_arcs(g, c->st, &arcs, &n, err))
		return -1;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		plumb_id from = sym_function(c, arcs[i].parent), to = sym_function(c, arcs[i].child);
		plumb_id site = from == PLUMB_NONE ? PLUMB_NONE : plumb_frame_intern(c->p, from, PLUMB_NONE, 0, 0);
		if (site == PLUMB_NONE || to == PLUMB_NONE)
			rc = plumb_fail_nomem(err);
		else if (plumb_arc_add(c->p, c->part, site, to, arcs[i].count, NULL, err) < 0)
			rc = -1;
	}
	free(arcs);
	if (rc == 0 && n)
		c->p->parts.v[c->part].arc_costs = PLUMB_ARC_COSTS_GPROF;
	return rc;
}

static int setup_event(plumb_profile *p, const char *path, plumb_error *err)
{
	if (p->events.n == 0)
		return plumb_event_add(p, "time", "CPU time (gprof histogram)", "ns", err) < 0 ? -1 : 0;
	if (p->events.n != 1 || plumb_event_find(p, "time") != 0)
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "%s: a gmon file's event \"time\" cannot be added to a profile with "
				  "other events", path);
	return 0;
}

static int histogram(conv *c, plumb_exe *e, const plumb_gmon *g, plumb_error *err)
{
	if (!g->nhists)
		return 0;
	plumb_line_run *runs = NULL;
	size_t nruns = 0;
	if (plumb_exe_get_info(e)->has_dwarf && plumb_exe_line_runs(e, &runs, &nruns, err))
		return -1;
	segs s = { 0 };
	double *credit = NULL;
	int rc = build_segs(c->st, runs, nruns, &s);
	if (rc == 0 && !(credit = calloc(s.n ? s.n : 1, sizeof *credit)))
		rc = -1;
	if (rc) {
		rc = plumb_fail_nomem(err);
	} else {
		credit_hists(g, &s, credit);
		rc = add_self(c, &s, credit, g->hz ? g->hz : HOST_HZ, err);
	}
	free(credit);
	segs_free(&s);
	free(runs);
	return rc;
}

static int meta(plumb_profile *p, const plumb_gmon *g, const char *exe, plumb_error *err)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%" PRIu32, g->hz ? g->hz : HOST_HZ);
	if (plumb_meta_set(p, "executable", exe, err) || plumb_meta_set(p, "gmon.hz", buf, err))
		return -1;
	snprintf(buf, sizeof buf, "%" PRIu64, plumb_gmon_total_samples(g));
	if (plumb_meta_set(p, "gmon.samples", buf, err))
		return -1;
	return plumb_meta_set(p, "creator", "gcc -pg (gmon.out)", err);
}

/* Addresses outside the executable's symbols mean the wrong executable (or
 * a rebuilt one): gprof says nothing, plumb warns, naming both ranges. */
static void check_ranges(const plumb_gmon *g, const plumb_symtab *st, const char *path,
			 const char *exe, const plumb_read_opts *opts)
{
	if (!opts || !opts->warn || !st->n)
		return;
	uint64_t lo = st->syms[0].addr, hi = st->syms[st->n - 1].end_addr;
	char msg[1024];
	for (size_t i = 0; i < g->nhists; i++) {
		const plumb_gmon_hist *h = &g->hists[i];
		if (h->nbins && (h->high_pc <= lo || h->low_pc > hi)) {
			snprintf(msg, sizeof msg, "%s: byte %" PRIu64 ": histogram 0x%" PRIx64 "-0x%" PRIx64
				 " lies outside the code of %s (0x%" PRIx64 "-0x%" PRIx64 "): is it the "
				 "executable that wrote this file?", path, h->file_offset, h->low_pc,
				 h->high_pc, exe, lo, hi + 1);
			opts->warn(opts->warn_ctx, msg);
		}
	}
	size_t lost = 0;
	for (size_t i = 0; i < g->narcs; i++)
		if (plumb_symtab_lookup(st, g->arcs[i].from_pc) < 0 ||
		    plumb_symtab_lookup(st, g->arcs[i].self_pc) < 0)
			lost++;
	if (lost) {
		snprintf(msg, sizeof msg, "%s: %zu of %zu call arcs have an address outside the "
			 "symbols of %s (0x%" PRIx64 "-0x%" PRIx64 ") and are left out", path, lost,
			 g->narcs, exe, lo, hi + 1);
		opts->warn(opts->warn_ctx, msg);
	}
}

static int convert(plumb_profile *p, plumb_exe *e, const plumb_gmon *g, const char *path,
		   const char *exe, const plumb_read_opts *opts, plumb_error *err)
{
	plumb_symtab *st;
	if (plumb_symtab_build(e, 0, &st, err))
		return -1;
	conv c = { .p = p, .st = st };
	int rc = -1;
	if (!(c.fn = malloc(st->n * sizeof *c.fn))) {
		plumb_fail_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < st->n; i++)
		c.fn[i] = PLUMB_NONE;
	if (setup_event(p, path, err))
		goto out;
	c.module = plumb_module_intern(p, exe, NULL);
	c.part = plumb_part_default(p);
	if (c.module == PLUMB_NONE || c.part == PLUMB_NONE) {
		plumb_fail_nomem(err);
		goto out;
	}
	check_ranges(g, st, path, exe, opts);
	rc = histogram(&c, e, g, err);
	if (rc == 0)
		rc = add_arcs(&c, g, err);
	if (rc == 0)
		rc = meta(p, g, exe, err);
out:
	free(c.fn);
	plumb_symtab_free(st);
	return rc;
}

int plumb_gmon_profile_read(plumb_profile *p, const char *path, const plumb_read_opts *opts,
			    plumb_error *err)
{
	char *dflt = NULL;
	const char *exe = opts && opts->executable ? opts->executable : (dflt = default_exe(path));
	if (!exe)
		return plumb_fail_nomem(err);
	plumb_error e2;
	plumb_exe *e = plumb_exe_open(exe, &e2);
	if (!e) {
		plumb_fail(err, e2.code, "%s: a gmon file needs the executable that wrote it (its "
			   "symbols): %s%s", path, e2.message,
			   dflt ? " (give it with --exe FILE)" : "");
		free(dflt);
		return -1;
	}
	plumb_gmon_layout layout = plumb_exe_gmon_layout(e);
	plumb_gmon *g = plumb_gmon_new();
	int rc = g ? plumb_gmon_read(g, path, &layout, err) : plumb_fail_nomem(err);
	if (rc == 0)
		rc = convert(p, e, g, path, exe, opts, err);
	plumb_gmon_free(g);
	plumb_exe_close(e);
	free(dflt);
	return rc;
}
