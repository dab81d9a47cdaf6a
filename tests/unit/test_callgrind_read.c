/* Callgrind reader: the hand-written files of tests/data/callgrind (every
 * grammar rule), exact self costs per function and line, arcs, parts,
 * events, metadata, warnings, compressed input, and every bad input with
 * its exact FILE:LINE message. Run from the top of the tree. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/formats.h"

#define DATA "tests/data/callgrind/"

/* ---- reading and warnings ------------------------------------------------ */

static char warnings[8192];
static int nwarnings;

static void collect(void *ctx, const char *msg)
{
	(void)ctx;
	size_t n = strlen(warnings);
	snprintf(warnings + n, sizeof warnings - n, "%s\n", msg);
	nwarnings++;
}

static plumb_profile *load_read_opts(const char *name, plumb_read_opts o);

static plumb_profile *load_opts(const char *name, bool lines_only)
{
	return load_read_opts(name, (plumb_read_opts){ collect, NULL, lines_only });
}

static plumb_profile *load_read_opts(const char *name, plumb_read_opts o)
{
	char path[256];
	snprintf(path, sizeof path, DATA "%s", name);
	warnings[0] = '\0';
	nwarnings = 0;
	plumb_profile *p = plumb_profile_new();
	cr_assert_not_null(p);
	plumb_error err;
	plumb_format fmt;
	cr_assert_eq(plumb_read_file(p, path, &o, &fmt, &err), 0, "%s: %s", name, err.message);
	cr_assert_eq(fmt, PLUMB_FMT_CALLGRIND);
	return p;
}

static plumb_profile *load(const char *name)
{
	return load_opts(name, false);
}

/* Reading must fail with code and exactly "DATA/bad/NAME:" + what. */
static void bad(const char *name, plumb_status code, const char *what)
{
	char path[256], want[1024];
	snprintf(path, sizeof path, DATA "bad/%s", name);
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_eq(plumb_read_file(p, path, NULL, NULL, &err), -1, "%s was accepted", name);
	snprintf(want, sizeof want, "%s:%s", path, what);
	cr_assert_str_eq(err.message, want);
	cr_assert_eq(err.code, code, "%s: code %d", name, err.code);
	plumb_profile_free(p);
}

/* ---- looking things up ------------------------------------------------------- */

/* The function named name in file (NULL: any file); PLUMB_NONE if none. */
static plumb_id fn_in(const plumb_profile *p, const char *name, const char *file)
{
	for (size_t f = 0; f < p->functions.n; f++) {
		const char *fl = plumb_function_file(p, (plumb_id)f);
		if (strcmp(plumb_function_name(p, (plumb_id)f), name) == 0 &&
		    (!file || (fl && strcmp(fl, file) == 0)))
			return (plumb_id)f;
	}
	return PLUMB_NONE;
}

static const char *file_of_frame(const plumb_profile *p, plumb_id fr)
{
	plumb_id f = p->frames.v[fr].file;
	return f == PLUMB_NONE ? NULL : plumb_str(p, p->files.v[f].path);
}

/* Self cost (event ev) of function fn: all parts, or one (part >= 0), and
 * only at line (if line > 0) of file (if not NULL). */
static uint64_t self_where(const plumb_profile *p, plumb_id fn, int part, uint32_t line,
			   const char *file, size_t ev)
{
	cr_assert_neq(fn, PLUMB_NONE, "no such function");
	uint64_t sum = 0;
	for (size_t i = 0; i < p->cg_self.n; i++) {
		const plumb_frame *fr = &p->frames.v[p->cg_self.v[i].frame];
		const char *ff = file_of_frame(p, p->cg_self.v[i].frame);
		if (fr->function == fn && (part < 0 || p->cg_self.v[i].part == (plumb_id)part) &&
		    (!line || fr->line == line) && (!file || (ff && strcmp(ff, file) == 0)))
			sum += p->cg_self_cost.v[i * p->events.n + ev];
	}
	return sum;
}

static uint64_t self_of(const plumb_profile *p, const char *name, const char *file, size_t ev)
{
	return self_where(p, fn_in(p, name, file), -1, 0, NULL, ev);
}

/* The arc from caller (function name) to callee (function id). */
static const plumb_arc *arc_of(const plumb_profile *p, const char *caller, plumb_id callee)
{
	cr_assert_neq(callee, PLUMB_NONE, "no callee");
	for (size_t i = 0; i < p->arcs.n; i++) {
		const plumb_arc *a = &p->arcs.v[i];
		if (a->callee == callee &&
		    strcmp(plumb_function_name(p, p->frames.v[a->caller].function), caller) == 0)
			return a;
	}
	cr_assert_fail("no arc %s -> %s", caller, plumb_function_name(p, callee));
	return NULL;
}

static uint64_t arc_incl(const plumb_profile *p, const plumb_arc *a, size_t ev)
{
	return p->arc_incl.v[(size_t)(a - p->arcs.v) * p->events.n + ev];
}

static uint64_t total(const plumb_profile *p, size_t ev)
{
	uint64_t t[16];
	plumb_error err;
	cr_assert_lt(p->events.n, 16);
	cr_assert_eq(plumb_profile_totals(p, t, &err), 0);
	return t[ev];
}

/* ---- grammar ------------------------------------------------------------------ */

TestSuite(callgrind_read);

Test(callgrind_read, spec_example_with_compression)
{
	plumb_profile *p = load("spec_example.cg");
	cr_assert_eq(p->events.n, 1);
	cr_assert_str_eq(plumb_str(p, p->events.v[0].name), "Instructions");
	cr_assert_eq(self_of(p, "main", "file1.c", 0), 20);
	cr_assert_eq(self_of(p, "func1", "file1.c", 0), 100);
	cr_assert_eq(self_of(p, "func2", "file2.c", 0), 700);
	cr_assert_eq(total(p, 0), 820);
	plumb_id f1 = fn_in(p, "func1", "file1.c"), f2 = fn_in(p, "func2", "file2.c");
	const plumb_arc *a = arc_of(p, "main", f1);
	cr_assert_eq(a->calls, 1);
	cr_assert(a->has_inclusive);
	cr_assert_eq(arc_incl(p, a, 0), 400);
	cr_assert_eq(p->frames.v[a->caller].line, 16);
	a = arc_of(p, "main", f2);
	cr_assert_eq(a->calls, 3);
	cr_assert_eq(arc_incl(p, a, 0), 400);
	a = arc_of(p, "func1", f2);
	cr_assert_eq(a->calls, 2);
	cr_assert_eq(arc_incl(p, a, 0), 300);
	cr_assert_eq(p->arcs.n, 3);
	/* the call targets give the callees' first lines */
	cr_assert_eq(p->functions.v[f1].line, 50);
	cr_assert_eq(p->functions.v[f2].line, 20);
	cr_assert_eq(p->functions.n, 3, "one function per name+file");
	cr_assert_eq(nwarnings, 0, "%s", warnings);
	plumb_profile_free(p);
}

Test(callgrind_read, subpositions_relative_to_last_cost_line)
{
	plumb_profile *p = load("positions.cg");
	plumb_id f = fn_in(p, "f", NULL), g = fn_in(p, "g", NULL);
	/* 0x1000:10, +3:10, +1:11 (Dr 0x10), then the call site, -4 -1 from it */
	cr_assert_eq(self_where(p, f, -1, 10, NULL, 0), 1 + 2 + 7);
	cr_assert_eq(self_where(p, f, -1, 11, NULL, 0), 3);
	cr_assert_eq(self_where(p, f, -1, 11, NULL, 1), 16);
	cr_assert_eq(self_where(p, f, -1, 10, NULL, 1), 1);
	cr_assert_eq(self_where(p, f, -1, 50, NULL, 0), 4);
	cr_assert_eq(self_of(p, "f", NULL, 0), 17);
	/* the call site is * * from 0x1004:11: the target +0x100/+90 did not move it */
	const plumb_arc *a = arc_of(p, "f", g);
	cr_assert_eq(p->frames.v[a->caller].line, 11);
	cr_assert_eq(p->frames.v[a->caller].address, 0x1004);
	cr_assert_eq(a->calls, 2);
	cr_assert_eq(arc_incl(p, a, 0), 5);
	/* -4 -1 from the call site: 0x1000, line 10 */
	bool found = false;
	for (size_t i = 0; i < p->cg_self.n; i++) {
		const plumb_frame *fr = &p->frames.v[p->cg_self.v[i].frame];
		if (fr->function == f && fr->address == 0x1000 && fr->line == 10) {
			cr_assert_eq(p->cg_self_cost.v[i * 2], 1 + 7);
			found = true;
		}
	}
	cr_assert(found);
	/* g's entry (target 0x1104, line 101) is a frame with no cost */
	cr_assert_eq(p->functions.v[g].line, 101);
	bool entry = false;
	for (size_t i = 0; i < p->frames.n; i++)
		entry |= p->frames.v[i].function == g && p->frames.v[i].address == 0x1104;
	cr_assert(entry);
	cr_assert_str_eq(plumb_meta_get(p, "callgrind.positions"), "instr line");
	plumb_profile_free(p);
}

Test(callgrind_read, lines_only_merges_instructions_of_a_line)
{
	plumb_profile *p = load_opts("positions.cg", true);
	plumb_id f = fn_in(p, "f", NULL);
	for (size_t i = 0; i < p->frames.n; i++)
		cr_assert_eq(p->frames.v[i].address, 0);
	cr_assert_eq(self_where(p, f, -1, 10, NULL, 0), 3 + 7);
	cr_assert_eq(self_of(p, "f", NULL, 0), 17);
	cr_assert_eq(self_of(p, "g", NULL, 0), 9);
	size_t rows = 0;
	for (size_t i = 0; i < p->cg_self.n; i++)
		rows += p->frames.v[p->cg_self.v[i].frame].function == f;
	cr_assert_eq(rows, 3, "lines 10, 11, 50 of f");
	plumb_profile_free(p);
}

/* functions_only: one frame per function (line 0, its own file), with the
 * same self costs per function, arcs per pair of functions and function
 * lines as the full read; no jumps. */
Test(callgrind_read, functions_only_sums_positions_by_function)
{
	const char *files[] = { "inline.cg", "positions.cg", "jumps.cg", "calls0.cg", "lsprof.cg",
				"parts.cg" };
	for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
		plumb_profile *full = load(files[k]);
		plumb_profile *p = load_read_opts(files[k], (plumb_read_opts){ collect, NULL, true, true });
		cr_assert_eq(p->functions.n, full->functions.n, "%s", files[k]);
		cr_assert_eq(p->jumps.n, 0, "%s: jumps read", files[k]);
		for (size_t i = 0; i < p->frames.n; i++) {
			const plumb_frame *fr = &p->frames.v[i];
			cr_assert(fr->line == 0 && fr->address == 0 &&
				  fr->file == p->functions.v[fr->function].file,
				  "%s: frame %zu is not a whole function", files[k], i);
		}
		for (size_t f = 0; f < p->functions.n; f++) {
			const char *name = plumb_function_name(p, (plumb_id)f);
			const char *file = plumb_function_file(p, (plumb_id)f);
			cr_assert_eq(p->functions.v[f].line, full->functions.v[f].line, "%s: %s", files[k], name);
			for (size_t e = 0; e < p->events.n; e++)
				cr_assert_eq(self_where(p, (plumb_id)f, -1, 0, NULL, e),
					     self_where(full, (plumb_id)f, -1, 0, NULL, e),
					     "%s: %s (%s) event %zu", files[k], name, file ? file : "?", e);
		}
		for (size_t e = 0; e < p->events.n; e++)
			cr_assert_eq(total(p, e), total(full, e), "%s: total of event %zu", files[k], e);
		for (size_t i = 0; i < full->arcs.n; i++) {
			const plumb_arc *a = &full->arcs.v[i];
			plumb_id caller = full->frames.v[a->caller].function;
			uint64_t want = 0, got = 0;
			for (size_t j = 0; j < full->arcs.n; j++)
				if (full->frames.v[full->arcs.v[j].caller].function == caller &&
				    full->arcs.v[j].callee == a->callee && full->arcs.v[j].part == a->part)
					want += arc_incl(full, &full->arcs.v[j], 0);
			size_t found = 0;
			for (size_t j = 0; j < p->arcs.n; j++)
				if (p->frames.v[p->arcs.v[j].caller].function == caller &&
				    p->arcs.v[j].callee == a->callee && p->arcs.v[j].part == a->part) {
					got += arc_incl(p, &p->arcs.v[j], 0);
					found++;
				}
			cr_assert_eq(found, 1, "%s: arc %zu: %zu function-level arcs", files[k], i, found);
			cr_assert_eq(got, want, "%s: arc %zu inclusive", files[k], i);
		}
		plumb_profile_free(p);
		plumb_profile_free(full);
	}
}

Test(callgrind_read, inlined_code_stays_in_its_function)
{
	plumb_profile *p = load("inline.cg");
	plumb_id m = fn_in(p, "main", "main.c");
	cr_assert_eq(self_where(p, m, -1, 0, "main.c", 0), 10 + 2);
	cr_assert_eq(self_where(p, m, -1, 0, "util.h", 0), 5 + 6 + 1);
	cr_assert_eq(self_where(p, m, -1, 8, "util.h", 0), 6);
	/* fn= went back to main.c although fi= util.h was current */
	cr_assert_eq(self_of(p, "work", "main.c", 0), 4);
	cr_assert_eq(fn_in(p, "work", "util.h"), PLUMB_NONE);
	/* cfn= without cfi= inside inlined code: the callee is in util.h */
	plumb_id h = fn_in(p, "helper", "util.h");
	const plumb_arc *a = arc_of(p, "main", h);
	cr_assert_str_eq(file_of_frame(p, a->caller), "util.h");
	cr_assert_eq(arc_incl(p, a, 0), 30);
	cr_assert_eq(self_where(p, h, -1, 20, NULL, 0), 30);
	cr_assert_str_eq(plumb_function_module(p, h), "/bin/prog");
	cr_assert_eq(total(p, 0), 58);
	plumb_profile_free(p);
}

Test(callgrind_read, calls_zero_is_an_arc_not_self_cost)
{
	plumb_profile *p = load("calls0.cg");
	cr_assert_eq(self_of(p, "main", NULL, 0), 10);
	cr_assert_eq(self_of(p, "child", NULL, 0), 100);
	const plumb_arc *a = arc_of(p, "main", fn_in(p, "child", NULL));
	cr_assert_eq(a->calls, 0);
	cr_assert_eq(arc_incl(p, a, 0), 100);
	cr_assert_eq(total(p, 0), 110);
	plumb_profile_free(p);
}

Test(callgrind_read, jumps_are_kept_not_costs)
{
	plumb_profile *p = load("jumps.cg");
	plumb_id l = fn_in(p, "loop", NULL);
	cr_assert_eq(self_where(p, l, -1, 5, NULL, 0), 3);
	/* the targets moved nothing: the last line is +1 from 0x16, line 6 */
	cr_assert_eq(self_where(p, l, -1, 6, NULL, 0), 10 + 1);
	cr_assert_eq(p->frames.v[p->cg_self.v[2].frame].address, 0x17);
	cr_assert_eq(total(p, 0), 14);
	/* jfn= names the jump's target function, which has no cost */
	plumb_id e = fn_in(p, "elsewhere", "other.c");
	cr_assert_neq(e, PLUMB_NONE);
	cr_assert_eq(p->functions.n, 2);
	cr_assert_eq(p->arcs.n, 0);
	cr_assert_eq(p->cg_self.n, 3);
	cr_assert_str_eq(plumb_meta_get(p, "callgrind.jumps"), "4");
	cr_assert_eq(p->jumps.n, 4);
	const plumb_jump *j = p->jumps.v;
	cr_assert(j[0].conditional && j[0].followed == 4 && j[0].executed == 10);
	cr_assert_eq(p->frames.v[j[0].from].address, 0x10);
	cr_assert_eq(p->frames.v[j[0].to].address, 0x16);
	cr_assert(!j[1].conditional && j[1].executed == 3 && j[1].followed == 3);
	cr_assert_eq(p->frames.v[j[1].to].address, 0x10);
	cr_assert(j[2].conditional && j[2].executed == 2 && j[2].followed == 5, "the spec's order");
	cr_assert_eq(p->frames.v[j[3].to].function, e);
	cr_assert_eq(p->frames.v[j[3].to].address, 0x99);
	cr_assert_eq(p->frames.v[j[3].to].line, 70);
	plumb_profile_free(p);
}

Test(callgrind_read, parts_ids_restart_and_metadata)
{
	plumb_profile *p = load("parts.cg");
	cr_assert_eq(p->parts.n, 2);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(p->parts.v[i].kind, PLUMB_PART_DUMP);
		cr_assert_eq(p->parts.v[i].pid, 4242);
		cr_assert_eq(p->parts.v[i].tid, -1);
	}
	cr_assert_str_eq(plumb_str(p, p->parts.v[0].name), "part 1");
	cr_assert_str_eq(plumb_str(p, p->parts.v[1].name), "part 2");
	/* id 1 was a.c:main in part 1 and b.c:g in part 2 */
	plumb_id m = fn_in(p, "main", "a.c");
	cr_assert_eq(self_where(p, m, 0, 0, NULL, 0), 10);
	cr_assert_eq(self_where(p, m, 1, 0, NULL, 0), 2);
	cr_assert_eq(self_where(p, fn_in(p, "g", "b.c"), 1, 0, NULL, 0), 5);
	cr_assert_eq(self_of(p, "f", "a.c", 1), 2);
	cr_assert_eq(total(p, 0), 37);
	cr_assert_eq(total(p, 1), 3);
	cr_assert_eq(nwarnings, 0, "totals agree: %s", warnings);
	cr_assert_str_eq(plumb_meta_get(p, "creator"), "callgrind-3.19.0");
	cr_assert_str_eq(plumb_meta_get(p, "cmd"), "./prog a\nb c\\d");
	cr_assert_str_eq(plumb_meta_get(p, "pid"), "4242");
	cr_assert_str_eq(plumb_meta_get(p, "callgrind.version"), "1");
	cr_assert_str_eq(plumb_meta_get(p, "callgrind.part"), "1");
	cr_assert_null(plumb_meta_get(p, "callgrind.thread"));
	cr_assert_str_eq(plumb_meta_get(p, "callgrind.desc"), "I1 cache: \nTrigger: Client Request");
	cr_assert_str_eq(plumb_meta_get(p, "callgrind.positions"), "line");
	cr_assert_str_eq(plumb_meta_get(p, "callgrind.summary"), "7 0");
	cr_assert_str_eq(plumb_meta_get(p, "callgrind.totals"), "7 0");
	cr_assert_str_eq(plumb_meta_get(p, "callgrind.jumps"), "0");
	cr_assert_str_eq(plumb_meta_get(p, "source"), DATA "parts.cg");
	plumb_profile_free(p);
}

Test(callgrind_read, thread_sections_are_thread_parts)
{
	plumb_profile *p = load("threads.cg");
	cr_assert_eq(p->parts.n, 2);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(p->parts.v[i].kind, PLUMB_PART_THREAD);
		cr_assert_eq(p->parts.v[i].pid, 77);
		cr_assert_eq(p->parts.v[i].tid, i + 1);
	}
	cr_assert_eq(self_where(p, fn_in(p, "main", "t.c"), 0, 0, NULL, 0), 10);
	cr_assert_eq(self_where(p, fn_in(p, "worker", "t.c"), 1, 0, NULL, 0), 4);
	cr_assert_str_eq(plumb_meta_get(p, "callgrind.thread"), "1");
	cr_assert_str_eq(plumb_meta_get(p, "cmd"), "./t");
	cr_assert_eq(nwarnings, 0, "%s", warnings);
	plumb_profile_free(p);
}

Test(callgrind_read, event_long_names_and_derived_events)
{
	plumb_profile *p = load("events.cg");
	cr_assert_eq(p->events.n, 5);
	const char *names[] = { "Ir", "Dr", "Dw", "Sum", "Both" };
	for (int i = 0; i < 5; i++)
		cr_assert_str_eq(plumb_str(p, p->events.v[i].name), names[i]);
	cr_assert_str_eq(plumb_str(p, p->events.v[0].long_name), "Instruction Fetches");
	cr_assert_str_eq(plumb_str(p, p->events.v[1].long_name), "Data Reads");
	cr_assert_null(plumb_str(p, p->events.v[2].long_name));
	cr_assert_str_eq(plumb_str(p, p->events.v[3].formula), "Ir + 2 * Dr");
	cr_assert_str_eq(plumb_str(p, p->events.v[4].formula), "Ir + Dw");
	cr_assert_str_eq(plumb_str(p, p->events.v[4].long_name), "Reads and writes");
	/* fewer costs than events: the rest are 0 */
	plumb_id m = fn_in(p, "main", NULL);
	cr_assert_eq(self_where(p, m, -1, 2, NULL, 0), 5);
	cr_assert_eq(self_where(p, m, -1, 2, NULL, 1), 0);
	cr_assert_eq(self_where(p, m, -1, 3, NULL, 1), 1);
	cr_assert_eq(self_where(p, m, -1, 3, NULL, 2), 0);
	cr_assert_eq(total(p, 0), 16);
	cr_assert_eq(total(p, 1), 4);
	cr_assert_eq(total(p, 2), 1);
	cr_assert_eq(total(p, 3), 16 + 2 * 4);
	cr_assert_eq(total(p, 4), 17);
	plumb_profile_free(p);
}

Test(callgrind_read, crlf_bom_tabs_trailing_spaces)
{
	plumb_profile *p = load("crlf.cg");
	cr_assert_eq(p->events.n, 2);
	cr_assert_str_eq(plumb_str(p, p->events.v[1].name), "Dr");
	cr_assert_eq(self_of(p, "main", "c.c", 0), 15);
	cr_assert_eq(self_of(p, "main", "c.c", 1), 2);
	cr_assert_eq(self_of(p, "f", "c.c", 0), 7);
	const plumb_arc *a = arc_of(p, "main", fn_in(p, "f", "c.c"));
	cr_assert_eq(arc_incl(p, a, 0), 7);
	cr_assert_eq(arc_incl(p, a, 1), 1);
	cr_assert_eq(nwarnings, 0, "%s", warnings);
	plumb_profile_free(p);
}

Test(callgrind_read, callee_file_and_object)
{
	plumb_profile *p = load("callee_file.cg");
	plumb_id hx = fn_in(p, "helper", "x.c"), ha = fn_in(p, "helper", "a.c");
	cr_assert_neq(hx, ha);
	cr_assert_str_eq(plumb_function_module(p, hx), "/lib/libx.so");
	cr_assert_str_eq(plumb_function_module(p, ha), "/bin/prog");
	/* cfi=/cob= named the first call only; the second cfn= without them
	 * is helper in main's file and object (KCachegrind's rule) */
	cr_assert_eq(arc_incl(p, arc_of(p, "main", hx), 0), 10);
	cr_assert_eq(arc_incl(p, arc_of(p, "main", ha), 0), 4);
	/* fn=(2) under fl=(2) and ob=(1): helper in x.c but in /bin/prog */
	plumb_id hxp = PLUMB_NONE;
	for (size_t f = 0; f < p->functions.n; f++)
		if (strcmp(plumb_function_name(p, (plumb_id)f), "helper") == 0 &&
		    strcmp(plumb_function_file(p, (plumb_id)f), "x.c") == 0 &&
		    strcmp(plumb_function_module(p, (plumb_id)f), "/bin/prog") == 0)
			hxp = (plumb_id)f;
	cr_assert_eq(self_where(p, hxp, -1, 0, NULL, 0), 10);
	cr_assert_eq(self_where(p, ha, -1, 0, NULL, 0), 4);
	plumb_profile_free(p);
}

Test(callgrind_read, lsprofcalltree_style_without_fl)
{
	plumb_profile *p = load("lsprof.cg");
	plumb_id foo = fn_in(p, "foo", "/p/foo.py");
	cr_assert_eq(self_where(p, foo, -1, 12, NULL, 0), 50);
	const plumb_arc *a = arc_of(p, "<method x>", foo);
	cr_assert_eq(a->calls, 3);
	cr_assert_eq(arc_incl(p, a, 0), 50);
	cr_assert_eq(p->functions.n, 2, "foo once: called and costed");
	cr_assert_eq(self_of(p, "<method x>", "~", 0), 10);
	plumb_profile_free(p);
}

Test(callgrind_read, name_table_grows_between_cfn_and_calls)
{
	plumb_profile *p = load("table_growth.cg");
	const plumb_arc *a = arc_of(p, "other", fn_in(p, "g", "a.c"));
	cr_assert_eq(a->calls, 1);
	cr_assert_eq(arc_incl(p, a, 0), 9);
	cr_assert_eq(self_of(p, "g", "a.c", 0), 9);
	plumb_profile_free(p);
}

Test(callgrind_read, unknown_lines_warn_and_are_summarised)
{
	plumb_profile *p = load("unknown.cg");
	cr_assert_eq(self_of(p, "main", NULL, 0), 11);
	cr_assert_str_eq(warnings,
			 DATA "unknown.cg:5: unknown header line \"color: blue\" ignored\n"
			 DATA "unknown.cg:6: unknown header line \"arch: amd64\" ignored\n"
			 DATA "unknown.cg:10: unknown line \"frob=3\" ignored\n"
			 DATA "unknown.cg:11: unknown line \"what is this\" ignored\n"
			 DATA "unknown.cg:12: unknown line \"rec=2\" ignored\n"
			 DATA "unknown.cg: 2 more unknown lines ignored\n");
	plumb_profile_free(p);
}

Test(callgrind_read, totals_mismatch_is_a_warning)
{
	plumb_profile *p = load("totals_mismatch.cg");
	cr_assert_eq(total(p, 0), 10);
	cr_assert_str_eq(warnings, DATA "totals_mismatch.cg:7: totals: says 11 Ir, the cost lines of "
			 "this part add up to 10\n");
	plumb_profile_free(p);
}

Test(callgrind_read, unknown_file_and_object)
{
	plumb_profile *p = load("unknown_names.cg");
	plumb_id f = fn_in(p, "0x0000000000401000", NULL);
	cr_assert_eq(p->functions.v[f].file, PLUMB_NONE);
	cr_assert_eq(p->functions.v[f].module, PLUMB_NONE);
	cr_assert_eq(self_of(p, "0x0000000000401000", NULL, 0), 3);
	plumb_profile_free(p);
}

Test(callgrind_read, header_without_body_is_an_empty_part)
{
	plumb_profile *p = load("header_only.cg");
	cr_assert_eq(p->events.n, 1);
	cr_assert_eq(p->parts.n, 1);
	cr_assert_str_eq(plumb_str(p, p->parts.v[0].name), "part 2");
	cr_assert_eq(total(p, 0), 0);
	plumb_profile_free(p);
}

/* totals: ends a section: a header line after it starts the next part even
 * when the section had no cost lines (plumb writes empty parts so). */
Test(callgrind_read, header_after_totals_starts_the_next_part)
{
	plumb_profile *p = load("empty_parts.cg");
	cr_assert_eq(p->parts.n, 2);
	cr_assert_str_eq(plumb_str(p, p->parts.v[0].name), "part 1");
	cr_assert_str_eq(plumb_str(p, p->parts.v[1].name), "part 2");
	cr_assert_str_eq(warnings, "");
	plumb_profile_free(p);
}

/* ---- detection ------------------------------------------------------------------ */

static bool det(const char *s)
{
	return plumb_callgrind_detect((const unsigned char *)s, strlen(s));
}

Test(callgrind_read, detection)
{
	cr_assert(det("# callgrind format\nevents: Ir\n"));
	cr_assert(det("\xEF\xBB\xBF# callgrind format\r\n"));
	cr_assert(det("positions: instr line\nevents: cpu(ms)\n")); /* pprof */
	cr_assert(det("events: Ticks\nsummary: 3\n"));
	cr_assert(det("# a comment\n\ncmd: x\npid: 3\ncreator: me\n"));
	cr_assert(det("version: 1\n"));
	/* a cmd: that runs past the head, with no magic line or creator: */
	char big[5000] = "cmd: ";
	memset(big + 5, 'x', sizeof big - 6);
	big[sizeof big - 1] = '\0';
	cr_assert(det(big));
	cr_assert_not(det("main;foo 3\nmain 1\n"));
	cr_assert_not(det("events:x;y 3\n"));
	cr_assert_not(det("main 3\nevents: Ir\n"));
	cr_assert_not(det("SQLite format 3"));
	cr_assert_not(det(""));
	cr_assert_not(det("cmd: short\n"));
}

/* ---- compressed input ------------------------------------------------------------ */

static plumb_profile *load_compressed(const char *tool)
{
	char dir[] = "/tmp/plumb-cgz-XXXXXX", cmd[512], path[256];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/in", dir);
	snprintf(cmd, sizeof cmd, "%s < " DATA "inline.cg > %s", tool, path);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	plumb_format fmt;
	cr_assert_eq(plumb_read_file(p, path, NULL, &fmt, &err), 0, "%s", err.message);
	cr_assert_eq(fmt, PLUMB_FMT_CALLGRIND);
	unlink(path);
	rmdir(dir);
	return p;
}

Test(callgrind_read, gzip_and_zstd_input)
{
	const char *tools[] = { "gzip -c", "zstd -q -c" };
	for (int i = 0; i < 2; i++) {
		plumb_profile *p = load_compressed(tools[i]);
		cr_assert_eq(total(p, 0), 58, "%s", tools[i]);
		cr_assert_eq(self_of(p, "helper", "util.h", 0), 30);
		plumb_profile_free(p);
	}
}

Test(callgrind_read, truncated_gzip_is_an_error)
{
	char dir[] = "/tmp/plumb-cgz-XXXXXX", cmd[512], path[256];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/in", dir);
	snprintf(cmd, sizeof cmd, "gzip -c < " DATA "parts.cg | head -c 200 > %s", path);
	cr_assert_eq(system(cmd), 0);
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_eq(plumb_read_file(p, path, NULL, NULL, &err), -1);
	char want[512];
	snprintf(want, sizeof want, "%s: the gzip data ends early (truncated file?)", path);
	cr_assert_str_eq(err.message, want);
	plumb_profile_free(p);
	unlink(path);
	rmdir(dir);
}

/* ---- bad input --------------------------------------------------------------------- */

Test(callgrind_read, bad_inputs_name_file_and_line)
{
	bad("no_events.cg", PLUMB_ERR_FORMAT, "2: expected an events: line before the profile data");
	bad("bad_number.cg", PLUMB_ERR_FORMAT, "5: expected a cost (a decimal or 0x number), got \"12a\"");
	bad("negative_cost.cg", PLUMB_ERR_FORMAT, "5: expected a cost (a decimal or 0x number), got \"-5\"");
	bad("undefined_id.cg", PLUMB_ERR_FORMAT,
	    "6: fn=(3) refers to a name that was not defined (expected \"fn=(3) name\" earlier in this part)");
	bad("too_many_costs.cg", PLUMB_ERR_FORMAT,
	    "5: expected at most 2 costs (one per event), got more: \"7\"");
	bad("calls_then_calls.cg", PLUMB_ERR_FORMAT,
	    "8: expected the cost line of the call on line 6, got calls=");
	bad("calls_at_end.cg", PLUMB_ERR_FORMAT,
	    "6: expected the cost line of the call on line 6, got the end of the file");
	bad("calls_then_header.cg", PLUMB_ERR_FORMAT,
	    "7: expected the cost line of the call on line 6, got a header line");
	bad("calls_no_cfn.cg", PLUMB_ERR_FORMAT, "5: expected cfn= before calls=");
	bad("cost_too_big.cg", PLUMB_ERR_OVERFLOW,
	    "5: expected a cost of at most 64 bits, got \"18446744073709551616\"");
	bad("sum_overflow.cg", PLUMB_ERR_OVERFLOW,
	    "6: expected the costs of Ir to add up within 64 bits, got more");
	bad("version2.cg", PLUMB_ERR_UNSUPPORTED, "2: expected Callgrind format version 1, got version 2");
	bad("below_zero.cg", PLUMB_ERR_FORMAT,
	    "6: expected a relative position that stays at or above 0, got -4 from 3");
	bad("no_fn.cg", PLUMB_ERR_FORMAT, "4: expected fn= before the first cost line");
	bad("bad_positions.cg", PLUMB_ERR_FORMAT,
	    "2: expected positions among instr, addr, bb and line, got \"column\"");
	bad("line_too_big.cg", PLUMB_ERR_OVERFLOW,
	    "5: expected a line number of at most 4294967295, got 4294967296");
	bad("missing_position.cg", PLUMB_ERR_FORMAT,
	    "6: expected 2 positions (instr line) at the start of the line, got 1");
	bad("bad_call_count.cg", PLUMB_ERR_FORMAT,
	    "6: expected a call count after \"calls=\" (a decimal or 0x number), got \"x\"");
	bad("bad_jcnd.cg", PLUMB_ERR_FORMAT, "5: expected 1 position (line) at the start of the line, got 0");
	bad("bad_id.cg", PLUMB_ERR_FORMAT, "3: expected \"(id)\" or \"(id) name\", got \"(1 a.c\"");
	bad("duplicate_event.cg", PLUMB_ERR_FORMAT,
	    "2: expected each event once on the events: line, got \"Ir\" twice");
	bad("new_event_later.cg", PLUMB_ERR_FORMAT,
	    "7: expected the events of the earlier parts, got the new event \"Dr\"");
}
