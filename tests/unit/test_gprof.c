/* The gprof core on hand-made symbols, histograms and arcs: bin-overlap
 * credit, symspec tables and their precedence, cycles, propagation, the
 * per-call unit, the symbol table's duplicate rules, -y's file names. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "gprof/gp_internal.h"
#include "plumb/elfsym.h"
#include "plumb/gmon.h"
#include "plumb/gprof.h"

#define SYM(a, n) { .addr = (a), .name = (n), .is_func = true }

/* Symbols given without ends get gprof's: the next start - 1. */
static plumb_gprof *make(plumb_gprof_symbol *s, size_t n, uint64_t text_end)
{
	plumb_error err;
	n = plumb_gprof_finalize_symbols(s, n, text_end);
	plumb_gprof_opts o;
	plumb_gprof_opts_init(&o);
	o.brief = true;
	plumb_gprof *g = plumb_gprof_new(s, n, &o, &err);
	cr_assert_not_null(g, "%s", err.message);
	return g;
}

static void spec(plumb_gprof *g, plumb_gprof_table t, const char *text)
{
	plumb_error err;
	cr_assert_eq(plumb_gprof_add_spec(g, t, text, &err), 0, "%s", err.message);
}

static void analyze(plumb_gprof *g)
{
	plumb_error err;
	cr_assert_eq(plumb_gprof_analyze(g, &err), 0, "%s", err.message);
}

/* What the analysis holds for symbol i (read inside: no caller of the
 * library needs it). */
typedef struct estimate {
	double self, children;
	uint64_t calls, self_calls;
	int cycle;
} estimate;

static estimate est(const plumb_gprof *g, size_t i)
{
	cr_assert_lt(i, g->nsym);
	const gp_sym *s = &g->sym[i];
	return (estimate){ s->time, s->child_time, s->ncalls, s->self_calls, s->cyc_num };
}

/* Four bins over 18 bytes: 9 units / 4 bins = 2.25 units a bin, so the
 * bin edges truncate to units 0, 2, 4, 6, 9 above low_pc / 2. */
static plumb_gprof *four_bins(void)
{
	static plumb_gprof_symbol s[4];
	plumb_gprof_symbol init[4] = { SYM(0x1000, "a"), SYM(0x1006, "b"), SYM(0x100a, "c"),
				       SYM(0x1020, "d") };
	memcpy(s, init, sizeof s);
	plumb_gprof *g = make(s, 4, 0x1040);
	static const uint64_t bins[4] = { 4, 9, 0, 1 };
	plumb_error err;
	cr_assert_eq(plumb_gprof_add_hist(g, 0x1000, 0x1012, 4, bins, 100, "seconds", 's', &err), 0);
	return g;
}

Test(gprof, bin_overlap_credit_in_units)
{
	plumb_gprof *g = four_bins();
	analyze(g);
	/* bin 0 [2048,2050) lies in a: 2 units * 4 / 2.25; bin 1 [2050,2052)
	 * is split: one unit to a, one to b, 9 / 2.25 each; bin 3 [2054,2057)
	 * lies in c: 3 * 1 / 2.25 */
	cr_expect_float_eq(est(g, 0).self, 2 * 4 / 2.25 + 9 / 2.25, 1e-9);
	cr_expect_float_eq(est(g, 1).self, 9 / 2.25, 1e-9);
	cr_expect_float_eq(est(g, 2).self, 3 / 2.25, 1e-9);
	cr_expect_float_eq(est(g, 3).self, 0.0, 1e-12);
	cr_expect_float_eq(g->total_time, 14.0, 1e-12); /* raw samples */
	plumb_gprof_free(g);
}

/* take_hist moves the caller's 64-bit bins into the engine as 32-bit
 * saturating counts; a second record of the range is added, not taken. */
Test(gprof, taken_bins_narrow_in_place_and_saturate)
{
	static plumb_gprof_symbol s[4];
	plumb_gprof_symbol init[4] = { SYM(0x1000, "a"), SYM(0x1006, "b"), SYM(0x100a, "c"),
				       SYM(0x1020, "d") };
	memcpy(s, init, sizeof s);
	plumb_gprof *g = make(s, 4, 0x1040);
	uint64_t *bins = malloc(4 * sizeof *bins);
	cr_assert_not_null(bins);
	bins[0] = 4, bins[1] = 9, bins[2] = 0, bins[3] = (uint64_t)UINT32_MAX + 7;
	plumb_error err;
	cr_assert_eq(plumb_gprof_take_hist(g, 0x1000, 0x1012, 4, &bins, 100, "seconds", 's', &err), 0);
	cr_assert_null(bins, "the engine took the bins");
	uint64_t *again = malloc(4 * sizeof *again);
	cr_assert_not_null(again);
	again[0] = 1, again[1] = 0, again[2] = 2, again[3] = 1;
	cr_assert_eq(plumb_gprof_take_hist(g, 0x1000, 0x1012, 4, &again, 100, "seconds", 's', &err), 0);
	cr_assert_not_null(again, "a range the engine has is added, not taken");
	free(again);
	cr_expect_eq(g->hist[0].bins[0], 5);
	cr_expect_eq(g->hist[0].bins[1], 9);
	cr_expect_eq(g->hist[0].bins[2], 2);
	cr_expect_eq(g->hist[0].bins[3], UINT32_MAX, "saturated: %u", g->hist[0].bins[3]);
	plumb_gprof_free(g);
}

Test(gprof, flat_filter_takes_time_out_of_the_total)
{
	plumb_gprof *g = four_bins();
	spec(g, PLUMB_GP_INCL_FLAT, "b");
	analyze(g);
	cr_expect_float_eq(est(g, 0).self, 0.0, 1e-12);
	cr_expect_float_eq(est(g, 1).self, 4.0, 1e-9);
	cr_expect_float_eq(g->total_time, 14.0 - (8 / 2.25 + 4.0) - 3 / 2.25, 1e-9);
	plumb_gprof_free(g);
}

Test(gprof, a_spec_that_matches_nothing_has_no_effect)
{
	plumb_gprof *g = four_bins();
	spec(g, PLUMB_GP_INCL_FLAT, "nosuch");
	spec(g, PLUMB_GP_INCL_FLAT, "nosuch.c");
	spec(g, PLUMB_GP_INCL_FLAT, "999");
	analyze(g);
	cr_expect_eq(g->tab[PLUMB_GP_INCL_FLAT].n, 0);
	cr_expect_float_eq(est(g, 0).self, 8 / 2.25 + 4.0, 1e-9);
	cr_expect_float_eq(g->total_time, 14.0, 1e-12);
	plumb_gprof_free(g);
}

Test(gprof, include_beats_exclude)
{
	plumb_gprof *g = four_bins();
	spec(g, PLUMB_GP_INCL_FLAT, "b");
	spec(g, PLUMB_GP_EXCL_FLAT, "b");
	spec(g, PLUMB_GP_EXCL_FLAT, "a");
	analyze(g);
	cr_expect(gp_selected(g, PLUMB_GP_INCL_FLAT, 0x1006));
	cr_expect(!gp_selected(g, PLUMB_GP_INCL_FLAT, 0x100a), "c: INCL is not empty and c is not in it");
	cr_expect_float_eq(est(g, 1).self, 4.0, 1e-9);
	plumb_gprof_free(g);
	g = four_bins();
	spec(g, PLUMB_GP_EXCL_FLAT, "a");
	analyze(g);
	cr_expect(!gp_selected(g, PLUMB_GP_INCL_FLAT, 0x1000));
	cr_expect(gp_selected(g, PLUMB_GP_INCL_FLAT, 0x1006));
	plumb_gprof_free(g);
}

/* Files match by basename, lines by the symbol's line, "file:func" both. */
Test(gprof, symspec_grammar_and_matching)
{
	plumb_gprof_symbol s[] = {
		{ .addr = 0x100, .name = "f", .file = "/src/dir/x.c", .line = 10, .is_func = true },
		{ .addr = 0x200, .name = "g", .file = "/src/dir/x.c", .line = 20, .is_func = true },
		{ .addr = 0x300, .name = "h", .file = "y.c", .line = 10, .is_func = true },
		{ .addr = 0x400, .name = ".dot", .file = "odd", .line = 5, .is_func = true },
	};
	plumb_gprof *g = make(s, 4, 0x500);
	spec(g, PLUMB_GP_INCL_FLAT, "x.c");       /* f and g: one range */
	spec(g, PLUMB_GP_INCL_TIME, "10");        /* f and h: two ranges */
	spec(g, PLUMB_GP_INCL_GRAPH, "y.c:10");   /* h */
	spec(g, PLUMB_GP_INCL_ANNO, ":.dot");     /* a function with a dot */
	spec(g, PLUMB_GP_INCL_EXEC, "odd:");      /* a file without a dot */
	spec(g, PLUMB_GP_EXCL_EXEC, "dir/x.c");   /* split at '/': matches all / all */
	analyze(g);
	const gp_spec_tab *t = g->tab;
	cr_assert_eq(t[PLUMB_GP_INCL_FLAT].n, 1);
	cr_expect_eq(t[PLUMB_GP_INCL_FLAT].r[0].addr, 0x100);
	cr_expect_eq(t[PLUMB_GP_INCL_FLAT].r[0].end_addr, 0x2ff);
	cr_expect_eq(t[PLUMB_GP_INCL_TIME].n, 2);
	cr_assert_eq(t[PLUMB_GP_INCL_GRAPH].n, 1);
	cr_expect_eq(t[PLUMB_GP_INCL_GRAPH].r[0].addr, 0x300);
	cr_assert_eq(t[PLUMB_GP_INCL_ANNO].n, 1);
	cr_expect_eq(t[PLUMB_GP_INCL_ANNO].r[0].addr, 0x400);
	cr_assert_eq(t[PLUMB_GP_INCL_EXEC].n, 1);
	cr_expect_eq(t[PLUMB_GP_INCL_EXEC].r[0].addr, 0x400);
	cr_expect_null(gp_tab_lookup(&t[PLUMB_GP_INCL_TIME], 0x200));
	cr_expect_not_null(gp_tab_lookup(&t[PLUMB_GP_INCL_TIME], 0x3ff));
	plumb_gprof_free(g);
}

/* main -> a <-> b (b also calls itself), main -> c <-> d: two cycles,
 * numbered by the address of their heads; self-recursion is no cycle. */
Test(gprof, cycles_are_found_and_numbered)
{
	plumb_gprof_symbol s[] = { SYM(0x1000, "main"), SYM(0x1100, "a"), SYM(0x1200, "b"),
				   SYM(0x1300, "c"), SYM(0x1400, "d"), SYM(0x1500, "e") };
	plumb_gprof *g = make(s, 6, 0x1600);
	plumb_gprof_add_arc(g, 0x1010, 0x1304, 1);
	plumb_gprof_add_arc(g, 0x1010, 0x1104, 2);
	plumb_gprof_add_arc(g, 0x1110, 0x1204, 5);
	plumb_gprof_add_arc(g, 0x1210, 0x1104, 3);
	plumb_gprof_add_arc(g, 0x1220, 0x1204, 7);
	plumb_gprof_add_arc(g, 0x1310, 0x1404, 4);
	plumb_gprof_add_arc(g, 0x1410, 0x1304, 6);
	plumb_gprof_add_arc(g, 0x1410, 0x1504, 1);
	analyze(g);
	cr_expect_eq(g->ncycles, 2);
	cr_expect_eq(est(g, 1).cycle, 1);
	cr_expect_eq(est(g, 2).cycle, 1);
	cr_expect_eq(est(g, 3).cycle, 2);
	cr_expect_eq(est(g, 4).cycle, 2);
	cr_expect_eq(est(g, 0).cycle, 0);
	cr_expect_eq(est(g, 5).cycle, 0);
	cr_expect_eq(est(g, 2).self_calls, 7);
	cr_expect_eq(est(g, 2).calls, 5, "b: 5 from a; its 7 self calls apart");
	const gp_sym *c1 = &g->sym[g->nsym + 1], *c2 = &g->sym[g->nsym + 2];
	cr_expect_eq(c1->ncalls, 2, "cycle 1: calls from outside");
	cr_expect_eq(c1->self_calls, 8, "cycle 1: calls between members");
	cr_expect_eq(c2->ncalls, 1);
	cr_expect_eq(c2->self_calls, 10);
	/* callees are numbered before callers: e < cycle 2 < main */
	cr_expect_lt(g->sym[5].top_order, g->sym[3].top_order);
	cr_expect_eq(g->sym[3].top_order, g->sym[4].top_order);
	cr_expect_lt(g->sym[3].top_order, g->sym[0].top_order);
	plumb_gprof_free(g);
}

/* main calls a once and b three times; both call c as often; c has all
 * the samples. gprof shares c's time 1:3 between a and b. */
static plumb_gprof *shared_callee(void)
{
	static plumb_gprof_symbol s[5];
	plumb_gprof_symbol init[5] = { SYM(0x0, "main"), SYM(0x10, "a"), SYM(0x20, "b"), SYM(0x30, "c"),
				       SYM(0x40, "end") };
	memcpy(s, init, sizeof s);
	plumb_gprof *g = make(s, 5, 0x50);
	uint64_t bins[32] = { 0 };
	bins[24] = 8; /* unit 24 = address 0x30: c */
	plumb_error err;
	cr_assert_eq(plumb_gprof_add_hist(g, 0, 0x40, 32, bins, 100, "seconds", 's', &err), 0);
	plumb_gprof_add_arc(g, 0x4, 0x14, 1);
	plumb_gprof_add_arc(g, 0x4, 0x24, 3);
	plumb_gprof_add_arc(g, 0x14, 0x34, 1);
	plumb_gprof_add_arc(g, 0x24, 0x34, 3);
	return g;
}

Test(gprof, propagation_shares_by_call_counts)
{
	plumb_gprof *g = shared_callee();
	analyze(g);
	cr_expect_float_eq(est(g, 3).self, 8.0, 1e-12);
	cr_expect_float_eq(est(g, 1).children, 2.0, 1e-12);
	cr_expect_float_eq(est(g, 2).children, 6.0, 1e-12);
	cr_expect_float_eq(est(g, 0).children, 8.0, 1e-12);
	bool seen = false;
	plumb_gprof_arc_estimate e;
	for (size_t i = 0; plumb_gprof_arc_estimate_at(g, i, &e) == 0; i++)
		if (e.parent == 2 && e.child == 3) {
			cr_expect_float_eq(e.time, 6.0, 1e-12);
			cr_expect_eq(e.count, 3);
			seen = true;
		}
	cr_expect(seen, "the arc b -> c");
	cr_expect_float_eq(g->print_time, 8.0, 1e-12);
	plumb_gprof_free(g);
}

Test(gprof, no_time_stops_propagation)
{
	plumb_gprof *g = shared_callee();
	spec(g, PLUMB_GP_EXCL_TIME, "b");
	analyze(g);
	/* b keeps its own estimate but passes nothing up; main gets a's 2 */
	cr_expect_float_eq(est(g, 0).children, 2.0, 1e-12);
	cr_expect_float_eq(g->sym[2].fract, 0.0, 1e-12);
	plumb_gprof_free(g);
	g = shared_callee();
	spec(g, PLUMB_GP_EXCL_ARCS, "b/c");
	analyze(g);
	cr_expect_eq(est(g, 3).calls, 1, "-k b/c drops the arc before anything counts it");
	cr_expect_float_eq(est(g, 1).children, 8.0, 1e-12);
	plumb_gprof_free(g);
}

Test(gprof, per_call_unit_prefix)
{
	cr_expect_eq(gp_si_char(gp_si_prefix(2.5)), ' ');
	cr_expect_eq(gp_si_char(gp_si_prefix(0.0015)), 'm');
	cr_expect_eq(gp_si_char(gp_si_prefix(0.000999)), 'u');
	cr_expect_eq(gp_si_char(gp_si_prefix(5e-7)), 'n');
	cr_expect_eq(gp_si_char(gp_si_prefix(1500.0)), 'K');
	cr_expect_eq(gp_si_char(gp_si_prefix(0.0)), 'T', "no time at all: gprof's Ts/call");
}

static char *flat_text(plumb_gprof *g)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	cr_assert_eq(plumb_gprof_print_flat(g, f), 0);
	fclose(f);
	return buf;
}

Test(gprof, flat_rows_and_units)
{
	plumb_gprof *g = shared_callee();
	analyze(g);
	char *t = flat_text(g);
	/* c: 8 samples at 100 Hz = 0.08 s over 4 calls = 20 ms a call */
	cr_expect(strstr(t, "100.00      0.08     0.08        4    20.00    20.00  c\n") != NULL, "%s", t);
	cr_expect(strstr(t, "ms/call  ms/call  name") != NULL, "%s", t);
	cr_expect(strstr(t, "  0.00      0.08     0.00        3     0.00    20.00  b\n") != NULL, "%s", t);
	cr_expect(strstr(t, "main") == NULL, "main: no calls, no time, no row without -z");
	free(t);
	plumb_gprof_free(g);
	g = four_bins();
	analyze(g);
	t = flat_text(g);
	cr_expect(strstr(t, "Ts/call") != NULL, "no calls anywhere: %s", t);
	free(t);
	plumb_gprof_free(g);
}

Test(gprof, duplicate_addresses_keep_gprof_s_choice)
{
	plumb_gprof_symbol s[] = {
		{ .addr = 0x10, .name = "_x", .is_func = true },
		{ .addr = 0x10, .name = "x", .is_func = true },
		{ .addr = 0x20, .name = "st", .is_func = true, .is_static = true },
		{ .addr = 0x20, .name = "gl", .is_func = true },
		{ .addr = 0x30, .name = "line", .is_func = false },
		{ .addr = 0x30, .name = "fn", .is_func = true },
		{ .addr = 0x40, .name = "__y", .is_func = true },
		{ .addr = 0x40, .name = "_y", .is_func = true },
	};
	size_t n = plumb_gprof_finalize_symbols(s, 8, 0x50);
	cr_assert_eq(n, 4);
	cr_expect_str_eq(s[0].name, "x");
	cr_expect_str_eq(s[1].name, "gl");
	cr_expect_str_eq(s[2].name, "fn");
	cr_expect_str_eq(s[3].name, "_y");
	cr_expect_eq(s[0].end_addr, 0x1f);
	cr_expect_eq(s[3].end_addr, 0x4f);
}

/* -y: the annotated copy is named after the source's basename only. */
static char opened_name[256];

static FILE *open_src(void *ctx, const char *path)
{
	(void)ctx;
	(void)path;
	return fmemopen((void *)"int x;\nint f(void)\n{\n}\n", 23, "r");
}

static FILE *open_out(void *ctx, const char *name)
{
	(void)ctx;
	snprintf(opened_name, sizeof opened_name, "%s", name);
	return fopen("/dev/null", "w");
}

Test(gprof, separate_files_never_leave_the_directory)
{
	plumb_gprof_symbol s[] = {
		{ .addr = 0x10, .name = "f", .file = "../../etc/x.c", .line = 2, .is_func = true },
		{ .addr = 0x20, .name = "g", .file = "/abs/..", .line = 1, .is_func = true },
	};
	plumb_gprof *g = make(s, 2, 0x30);
	plumb_gprof_add_arc(g, 0x24, 0x14, 1);
	analyze(g);
	plumb_gprof_source_io io = { open_src, open_out, NULL };
	plumb_error err;
	cr_assert_eq(plumb_gprof_print_annotated(g, stdout, &io, &err), 0, "%s", err.message);
	cr_expect_str_eq(opened_name, "x.c-ann");
	cr_expect(strchr(opened_name, '/') == NULL);
	plumb_gprof_free(g);
}

/* -c on hand-made x86 code: a forward call is found, a backward one is
 * not (gprof 2.40 does not sign-extend), a call into the middle of a
 * function is not a call to it. */
Test(gprof, static_calls_forward_only)
{
	plumb_gprof_symbol s[] = { SYM(0x1000, "a"), SYM(0x1010, "b"), SYM(0x1020, "c"), SYM(0x1030, "d") };
	plumb_gprof *g = make(s, 4, 0x1040);
	unsigned char text[0x40] = { 0 };
	/* b at 0x1010: call c (0x1020): rel32 = 0x1020 - 0x1015 */
	text[0x10] = 0xe8;
	text[0x11] = 0x0b;
	/* c at 0x1020: call a (0x1000): rel32 = 0x1000 - 0x1025 = -0x25 */
	text[0x20] = 0xe8;
	text[0x21] = 0xdb;
	text[0x22] = text[0x23] = text[0x24] = 0xff;
	/* d at 0x1030: call 0x1012 (inside b) */
	text[0x30] = 0xe8;
	text[0x31] = 0xdd;
	text[0x32] = text[0x33] = text[0x34] = 0xff;
	uint64_t bins[0x20] = { 0 };
	plumb_error err;
	cr_assert_eq(plumb_gprof_add_hist(g, 0x1000, 0x1040, 0x20, bins, 100, "seconds", 's', &err), 0);
	plumb_gprof_add_arc(g, 0x1004, 0x1034, 1); /* a -> d, so there is a graph */
	cr_assert_eq(plumb_gprof_scan_calls(g, 0x1000, text, sizeof text), 0);
	g->o.static_calls = true;
	analyze(g);
	bool b_to_c = false, c_to_a = false, d_to_b = false;
	plumb_gprof_arc_estimate e;
	for (size_t i = 0; plumb_gprof_arc_estimate_at(g, i, &e) == 0; i++) {
		b_to_c |= e.parent == 1 && e.child == 2 && e.count == 0;
		c_to_a |= e.parent == 2 && e.child == 0;
		d_to_b |= e.parent == 3 && e.child == 1;
	}
	cr_expect(b_to_c, "the forward call b -> c is an arc with no count");
	cr_expect(!c_to_a, "the backward call c -> a is not found");
	cr_expect(!d_to_b, "a call into the middle of b is no call to b");
	plumb_gprof_free(g);
}

/* Arc specs: -k from/to drops only arcs whose caller is in a from range
 * with a to range covering the callee; several -k accumulate. */
Test(gprof, arc_tables)
{
	plumb_gprof *g = shared_callee();
	spec(g, PLUMB_GP_EXCL_ARCS, "a/");
	spec(g, PLUMB_GP_EXCL_ARCS, "/c");
	analyze(g);
	cr_expect(!gp_arc_wanted(g, &g->sym[1], &g->sym[3]), "a -> c");
	cr_expect(!gp_arc_wanted(g, &g->sym[2], &g->sym[3]), "b -> c");
	cr_expect(gp_arc_wanted(g, &g->sym[0], &g->sym[2]), "main -> b: neither spec");
	cr_expect_eq(est(g, 3).calls, 0);
	cr_expect_eq(est(g, 2).calls, 3);
	plumb_gprof_free(g);
	g = shared_callee();
	spec(g, PLUMB_GP_INCL_ARCS, "b/c");
	spec(g, PLUMB_GP_EXCL_ARCS, "b/c");
	analyze(g);
	cr_expect(gp_arc_wanted(g, &g->sym[2], &g->sym[3]), "INCL_ARCS wins");
	cr_expect(!gp_arc_wanted(g, &g->sym[0], &g->sym[2]), "INCL_ARCS not empty: the rest go");
	cr_expect_eq(est(g, 3).calls, 3);
	plumb_gprof_free(g);
}

/* gprof's tables keep one range per start address: of -k main/ and -k /c
 * (whose from side, every function, also starts at main) only the spec
 * given last counts. GNU gprof 2.40 does the same. */
Test(gprof, arc_specs_starting_together_keep_the_last)
{
	plumb_gprof *g = shared_callee();
	spec(g, PLUMB_GP_EXCL_ARCS, "main/");
	spec(g, PLUMB_GP_EXCL_ARCS, "/c");
	analyze(g);
	cr_expect_eq(g->tab[PLUMB_GP_EXCL_ARCS].n, 1);
	cr_expect(gp_arc_wanted(g, &g->sym[0], &g->sym[1]), "main -> a: -k main/ was dropped");
	cr_expect(!gp_arc_wanted(g, &g->sym[1], &g->sym[3]), "a -> c: -k /c holds");
	plumb_gprof_free(g);
}

/* What plumb report uses: gprof's estimate from a gmon reading and an ELF
 * symbol table (both hand-made here: a GNU gmon file in memory). */
static void put(unsigned char **p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		*(*p)++ = (unsigned char)(v >> (8 * i));
}

Test(gprof, estimate_from_a_gmon_reading)
{
	unsigned char buf[512] = "gmon", *p = buf + 4;
	put(&p, 1, 4);
	p += 12;
	*p++ = 0; /* histogram: 0x0-0x40, 32 bins of 2 bytes, 100 Hz */
	put(&p, 0, 8);
	put(&p, 0x40, 8);
	put(&p, 32, 4);
	put(&p, 100, 4);
	memcpy(p, "seconds", 7);
	p += 15;
	*p++ = 's';
	for (int i = 0; i < 32; i++)
		put(&p, i == 24 ? 8 : 0, 2);
	const uint64_t arcs[][3] = { { 0x4, 0x14, 1 }, { 0x4, 0x24, 3 }, { 0x14, 0x34, 1 }, { 0x24, 0x34, 3 } };
	for (int i = 0; i < 4; i++) {
		*p++ = 1;
		put(&p, arcs[i][0], 8);
		put(&p, arcs[i][1], 8);
		put(&p, arcs[i][2], 4);
	}
	plumb_gmon *gm = plumb_gmon_new();
	plumb_gmon_layout lay = { .addr_size = 8, .order = PLUMB_GMON_LITTLE };
	plumb_error err;
	cr_assert_eq(plumb_gmon_read_buffer(gm, "hand.gmon", buf, (size_t)(p - buf), &lay, &err), 0, "%s",
		     err.message);
	plumb_exe_sym syms[] = {
		{ .addr = 0x0, .end_addr = 0xf, .name = "main", .demangled = "main", .is_func = true },
		{ .addr = 0x10, .end_addr = 0x1f, .name = "a", .demangled = "a", .is_func = true },
		{ .addr = 0x20, .end_addr = 0x2f, .name = "b", .demangled = "b", .is_func = true },
		{ .addr = 0x30, .end_addr = 0x3f, .name = "c", .demangled = "c", .is_func = true },
		/* gprof credits nothing to its last symbol (past it, its table has
		 * no next start): executables end with _fini or etext */
		{ .addr = 0x40, .end_addr = 0x4f, .name = "_fini", .demangled = "_fini", .is_func = true },
	};
	plumb_symtab st = { .syms = syms, .n = 5 };
	plumb_gprof *g = plumb_gprof_from_gmon(&st, gm, &err);
	cr_assert_not_null(g, "%s", err.message);
	cr_expect_eq(g->hz, 100);
	cr_expect_float_eq(est(g, 3).self, 8.0, 1e-12);
	cr_expect_float_eq(est(g, 1).children, 2.0, 1e-12);
	cr_expect_float_eq(est(g, 2).children, 6.0, 1e-12);
	cr_expect_float_eq(est(g, 0).children, 8.0, 1e-12);
	cr_expect_eq(est(g, 3).calls, 4);
	plumb_gprof_free(g);
	plumb_gmon_free(gm);
}
