/* Tables that fit, units, and the fprof view (issue 16: items 3, 4, 10):
 * compact numbers, word wrapping, no text line longer than the width for
 * any width, one-event titles, module basenames, nested rows; an event's
 * period; folded stacks with a named event; fprof's rows and line marks. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/analysis.h"
#include "plumb/formats.h"
#include "plumb/output.h"

static char *text_at(const plumb_table *t, unsigned width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	plumb_text_opts o;
	plumb_text_opts_init(&o);
	o.width = width;
	plumb_error err;
	cr_assert_eq(plumb_table_write_text(t, f, &o, &err), 0, "%s", err.message);
	fclose(f);
	return buf;
}

/* The widest line in code points. */
static size_t widest(const char *s)
{
	size_t best = 0, w = 0;
	for (; *s; s++) {
		if (*s == '\n') {
			best = w > best ? w : best;
			w = 0;
		} else if (((unsigned char)*s & 0xC0) != 0x80) {
			w++;
		}
	}
	return w > best ? w : best;
}

Test(tables, compact_numbers)
{
	char b[32];
	cr_expect_str_eq(plumb_format_compact(0, b, sizeof b), "0");
	cr_expect_str_eq(plumb_format_compact(9999, b, sizeof b), "9,999");
	cr_expect_str_eq(plumb_format_compact(12345, b, sizeof b), "12.3k");
	cr_expect_str_eq(plumb_format_compact(123456, b, sizeof b), "123k");
	cr_expect_str_eq(plumb_format_compact(999999, b, sizeof b), "1.0M");
	cr_expect_str_eq(plumb_format_compact(1234567, b, sizeof b), "1.2M");
	cr_expect_str_eq(plumb_format_compact(4500000000ull, b, sizeof b), "4.5G");
	cr_expect_str_eq(plumb_format_compact(UINT64_MAX, b, sizeof b), "18.4E");
}

static char *wrapped(const char *text, unsigned width, unsigned hang)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	plumb_text_write_wrapped(f, text, width, hang);
	fclose(f);
	return buf;
}

Test(tables, wrap_words_with_a_hang)
{
	char *s = wrapped("one two three four five", 9, 2);
	cr_expect_str_eq(s, "one two\n  three\n  four\n  five\n");
	free(s);
	s = wrapped("abcdefghijkl xy\nshort\n", 5, 0);
	cr_expect_str_eq(s, "abcde\nfghij\nkl xy\nshort\n");
	free(s);
	s = wrapped("as it is, however long", 0, 2);
	cr_expect_str_eq(s, "as it is, however long\n");
	free(s);
	s = wrapped("tab\there", 0, 0);
	cr_expect_str_eq(s, "tab?here\n");
	free(s);
}

/* A flat table of one event as the views make it. */
static plumb_table *flat_of_one_event(uint32_t depth_step)
{
	plumb_table *t = plumb_table_new("flat", "Flat profile");
	cr_assert_not_null(t);
	cr_assert_geq(plumb_table_add_column(t, "percent.cycles", "% cycles", PLUMB_CELL_PCT, 0, false), 0);
	t->cols[0].short_title = "%";
	cr_assert_geq(plumb_table_add_column(t, "cumulative", "Cumul %", PLUMB_CELL_PCT, 0, false), 0);
	cr_assert_geq(plumb_table_add_column(t, "exclusive.cycles", "Excl. cycles", PLUMB_CELL_U64, 0, false), 0);
	t->cols[2].short_title = "Excl.";
	cr_assert_geq(plumb_table_add_column(t, "function", "Function", PLUMB_CELL_STR, -1, true), 0);
	cr_assert_geq(plumb_table_add_column(t, "file", "File", PLUMB_CELL_STR, -1, false), 0);
	cr_assert_geq(plumb_table_add_column(t, "module", "Load module", PLUMB_CELL_STR, -1, false), 0);
	static const char *const names[] = { "parse_configuration_file", "main", "a_rather_long_function_name_x" };
	for (int i = 0; i < 3; i++) {
		plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, (uint32_t)i * depth_step);
		cr_assert_not_null(r);
		plumb_cell_pct(&r->cells[0], 33.3);
		plumb_cell_pct(&r->cells[1], 33.3 * (i + 1));
		plumb_cell_u64(&r->cells[2], 1234567890ull / (uint64_t)(i + 1));
		plumb_cell_str(&r->cells[3], names[i]);
		plumb_cell_str(&r->cells[4], "src/some/deep/directory/of/sources/config.c");
		plumb_cell_str(&r->cells[5], "/usr/lib/x86_64-linux-gnu/libsomething.so.1");
	}
	cr_assert_eq(plumb_table_add_note(t, "a note long enough that it has to be wrapped on narrow "
					  "terminals, word by word, never cut"), 0);
	return t;
}

Test(tables, no_line_longer_than_any_width)
{
	for (uint32_t step = 0; step <= 20; step += 20) {
		plumb_table *t = flat_of_one_event(step);
		for (unsigned w = 1; w <= 200; w++) {
			char *s = text_at(t, w);
			cr_expect_leq(widest(s), w, "width %u: a line of %zu\n%s", w, widest(s), s);
			free(s);
		}
		plumb_table_free(t);
	}
}

Test(tables, narrow_gives_up_columns_before_names)
{
	plumb_table *t = flat_of_one_event(0);
	char *s = text_at(t, 80);
	/* Compact numbers, the event said once, names whole, depth shown. */
	cr_expect_not_null(strstr(s, "Event: cycles\n"), "%s", s);
	cr_expect_not_null(strstr(s, "1.2G"), "%s", s);
	cr_expect_not_null(strstr(s, "parse_configuration_file"), "%s", s);
	cr_expect_not_null(strstr(s, "a_rather_long_function_name_x"), "%s", s);
	cr_expect_null(strstr(s, "Cumul"), "the cumulative column goes first:\n%s", s);
	free(s);
	/* Wide: nothing given up. */
	s = text_at(t, 300);
	cr_expect_not_null(strstr(s, "1,234,567,890"), "%s", s);
	cr_expect_not_null(strstr(s, "Excl. cycles"), "%s", s);
	cr_expect_not_null(strstr(s, "/usr/lib/x86_64-linux-gnu/libsomething.so.1"), "%s", s);
	free(s);
	/* Module paths give up their directories before their width. */
	s = text_at(t, 150);
	cr_expect_not_null(strstr(s, "  libsomething.so.1"), "%s", s);
	free(s);
	plumb_table_free(t);
}

Test(tables, deep_rows_say_their_depth)
{
	plumb_table *t = flat_of_one_event(20);
	char *s = text_at(t, 40);
	cr_expect_not_null(strstr(s, "\xE2\x86\xB3" "40 "), "%s", s);
	free(s);
	s = text_at(t, 0);
	cr_expect_null(strstr(s, "\xE2\x86\xB3"), "%s", s);
	free(s);
	plumb_table_free(t);
}

Test(tables, nested_rows_leave_empty_cells_blank)
{
	plumb_table *t = plumb_table_new("fprof", NULL);
	cr_assert_not_null(t);
	cr_assert_eq(plumb_table_add_column(t, "n", "N", PLUMB_CELL_U64, -1, false), 0);
	cr_assert_eq(plumb_table_add_column(t, "f", "F", PLUMB_CELL_STR, -1, true), 1);
	cr_assert_eq(plumb_table_add_column(t, "x", "X", PLUMB_CELL_STR, -1, false), 2);
	plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, 0);
	plumb_cell_u64(&r->cells[0], 5);
	plumb_cell_str(&r->cells[1], "main");
	r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, 1);
	plumb_cell_u64(&r->cells[0], 3);
	plumb_cell_str(&r->cells[2], "> x++;");
	char *s = text_at(t, 0);
	cr_expect_str_eq(s, "N  F     X\n5  main  -\n3    -   > x++;\n");
	free(s);
	t->nested = true;
	s = text_at(t, 0);
	cr_expect_str_eq(s, "N  F     X\n5  main  -\n3        > x++;\n");
	free(s);
	plumb_table_free(t);
}

/* ---- units ---------------------------------------------------------------- */

Test(tables, event_period_is_kept_and_read)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	int e = plumb_event_add(p, "minor-faults", NULL, "events", &err);
	cr_assert_geq(e, 0);
	cr_expect_eq(plumb_event_period(p, e), 0);
	cr_assert_eq(plumb_event_set_period(p, e, 100, &err), 0);
	cr_expect_eq(plumb_event_period(p, e), 100);
	cr_expect_eq(plumb_event_period(p, 7), 0);
	const char *unit = "x";
	cr_expect_eq(plumb_event_count(p, e, &unit), 0);
	cr_expect_null(unit);
	cr_assert_eq(plumb_meta_set(p, "count.minor-faults", "12345 events", &err), 0);
	cr_expect_eq(plumb_event_count(p, e, &unit), 12345);
	cr_expect_str_eq(unit, "events");
	cr_assert_eq(plumb_meta_set(p, "count.minor-faults", "bogus", &err), 0);
	cr_expect_eq(plumb_event_count(p, e, NULL), 0);
	plumb_profile_free(p);
}

Test(tables, folded_reads_a_named_event_and_unit)
{
	char path[] = "/tmp/plumb-test-folded-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	FILE *f = fdopen(fd, "w");
	fputs("main;wait 3000000\nmain;work 1000\n", f);
	fclose(f);
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	plumb_read_opts o = { .event_name = "off-cpu", .event_unit = "ns" };
	cr_assert_eq(plumb_folded_read(p, path, &o, &err), 0, "%s", err.message);
	cr_expect_str_eq(plumb_str(p, p->events.v[0].name), "off-cpu");
	cr_expect_str_eq(plumb_str(p, p->events.v[0].unit), "ns");
	/* More stacks of the same event add up; of another, an error. */
	cr_expect_eq(plumb_folded_read(p, path, &o, &err), 0, "%s", err.message);
	cr_expect_eq(plumb_folded_read(p, path, NULL, &err), -1);
	cr_expect_not_null(strstr(err.message, "\"samples\""), "%s", err.message);
	plumb_profile_free(p);
	p = plumb_profile_new();
	cr_assert_eq(plumb_folded_read(p, path, NULL, &err), 0, "%s", err.message);
	cr_expect_str_eq(plumb_str(p, p->events.v[0].name), "samples");
	cr_expect_str_eq(plumb_str(p, p->events.v[0].unit), "samples");
	plumb_profile_free(p);
	unlink(path);
}

/* ---- fprof ------------------------------------------------------------------ */

static int col(const plumb_table *t, const char *key)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].key, key) == 0)
			return (int)c;
	cr_assert_fail("no column %s", key);
	return -1;
}

/* fn in two threads: lines 10 (at 0x100 and 0x120), 11 (0x110) and 12
 * (0x108): line 10 is split by 11 and 12 (~), line 12's code comes before
 * line 11's (11 is out of order: *>). */
static plumb_profile *fprof_profile(void)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "cpu-clock", NULL, "samples", &err), 0);
	plumb_id mod = plumb_module_intern(p, "/bin/prog", NULL);
	plumb_id file = plumb_file_intern(p, "prog.c");
	plumb_id fn = plumb_function_intern(p, "fn", NULL, mod, file, 9);
	plumb_id other = plumb_function_intern(p, "other", NULL, mod, file, 30);
	plumb_id part1 = plumb_part_add(p, PLUMB_PART_THREAD, "t1", 1, 101);
	plumb_id part2 = plumb_part_add(p, PLUMB_PART_THREAD, "t2", 1, 102);
	cr_assert_neq(part1, PLUMB_NONE);
	p->parts.v[part2].start_function = other;
	static const struct { uint32_t line; uint64_t addr, cost; } at[] = {
		{ 10, 0x100, 5 }, { 10, 0x120, 3 }, { 11, 0x110, 4 }, { 12, 0x108, 2 },
	};
	for (size_t i = 0; i < 4; i++) {
		plumb_id fr = plumb_frame_intern(p, fn, file, at[i].line, at[i].addr);
		uint64_t c = at[i].cost;
		cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, part1, &fr, 1), &c, &err), 0);
	}
	plumb_id fr = plumb_frame_intern(p, other, file, 31, 0x200);
	uint64_t c = 6;
	cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, part2, &fr, 1), &c, &err), 0);
	return p;
}

Test(tables, fprof_rows_and_line_marks)
{
	plumb_profile *p = fprof_profile();
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	o.kind = PLUMB_VIEW_FPROF;
	plumb_table *t = NULL;
	plumb_error err;
	cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
	int cs = col(t, "samples.cpu-clock"), cf = col(t, "function"), cl = col(t, "line"),
	    cst = col(t, "statement"), ct = col(t, "thread"), cc = col(t, "cumulative");
	/* fn (14) first, its lines in order with their instructions, then other (6). */
	static const struct { uint32_t depth; uint64_t cost; const char *line, *stmt; } want[] = {
		{ 0, 14, NULL, NULL }, { 1, 8, "~10", ">" }, { 2, 5, "0x100", NULL }, { 2, 3, "0x120", NULL },
		{ 1, 4, "11", "*>" }, { 2, 4, "0x110", NULL }, { 1, 2, "12", ">" }, { 2, 2, "0x108", NULL },
		{ 0, 6, NULL, NULL }, { 1, 6, "31", ">" }, { 2, 6, "0x200", NULL },
	};
	cr_assert_eq(t->nrows, sizeof want / sizeof *want);
	for (size_t i = 0; i < t->nrows; i++) {
		const plumb_row *r = &t->rows[i];
		cr_expect_eq(r->depth, want[i].depth, "row %zu", i);
		cr_expect_eq(r->cells[cs].u, want[i].cost, "row %zu", i);
		if (want[i].line)
			cr_expect_str_eq(r->cells[cl].s, want[i].line, "row %zu", i);
		if (want[i].stmt)
			cr_expect_str_eq(r->cells[cst].s, want[i].stmt, "row %zu", i);
	}
	cr_expect_str_eq(t->rows[0].cells[cf].s, "fn");
	cr_expect_str_eq(t->rows[0].cells[ct].s, "101 t1");
	cr_expect_str_eq(t->rows[8].cells[ct].s, "102 t2 (other)");
	cr_expect_float_eq(t->rows[8].cells[cc].pct, 100.0, 1e-9);
	cr_expect(t->nested);
	plumb_table_free(t);

	/* --select and --limit pick thread x function rows. */
	plumb_symspec_list sel = { 0 };
	cr_assert_eq(plumb_symspec_list_add(&sel, "other", &err), 0);
	o.select = &sel;
	cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
	cr_expect_eq(t->nrows, 3);
	cr_expect_str_eq(t->rows[0].cells[col(t, "function")].s, "other");
	plumb_table_free(t);
	plumb_symspec_list_free(&sel);
	o.select = NULL;
	o.limit = 1;
	cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
	cr_expect_eq(t->nrows, 8);
	plumb_table_free(t);
	plumb_profile_free(p);
}

Test(tables, fprof_without_lines_has_function_rows_only)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "samples", NULL, "samples", &err), 0);
	plumb_id fn = plumb_function_intern(p, "f", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_id fr = plumb_frame_intern(p, fn, PLUMB_NONE, 0, 0);
	uint64_t c = 3;
	cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, plumb_part_default(p), &fr, 1), &c, &err), 0);
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	o.kind = PLUMB_VIEW_FPROF;
	plumb_table *t = NULL;
	cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
	cr_expect_eq(t->nrows, 1);
	cr_expect_eq(t->rows[0].cells[col(t, "samples.samples")].u, 3);
	plumb_table_free(t);
	plumb_profile_free(p);
}

/* Rows made on demand (plumb_view_opts.rows_on_demand) print as the kept
 * rows do, at any width, with cycle rows, their members' labels and the
 * running percentage; read out of order, a row is still the same row. */
static plumb_table *keyed_view(const plumb_profile *p, plumb_view_kind kind, bool on_demand)
{
	plumb_view_opts o;
	plumb_view_opts_init(&o);
	o.kind = kind;
	o.rows_on_demand = on_demand;
	plumb_table *t = NULL;
	plumb_error err;
	cr_assert_eq(plumb_view_build(p, &o, &t, &err), 0, "%s", err.message);
	return t;
}

static char *csv_of(const plumb_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	plumb_error err;
	cr_assert_eq(plumb_table_write_csv(t, f, &err), 0, "%s", err.message);
	fclose(f);
	return buf;
}

static bool cells_equal(const plumb_cell *a, const plumb_cell *b)
{
	if (a->type != b->type)
		return false;
	if (a->type == PLUMB_CELL_STR)
		return (!a->s && !b->s) || (a->s && b->s && strcmp(a->s, b->s) == 0);
	return a->type == PLUMB_CELL_NULL || a->u == b->u;
}

Test(tables, rows_on_demand_are_the_kept_rows)
{
	static const char *const files[] = { "tests/data/cycles/mutual.callgrind",
					     "tests/data/callgrind/parts.cg",
					     "tests/data/callgrind/spec_example.cg" };
	static const plumb_view_kind kinds[] = { PLUMB_VIEW_FLAT, PLUMB_VIEW_LINES, PLUMB_VIEW_FILES,
						 PLUMB_VIEW_MODULES };
	for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
		plumb_profile *p = plumb_profile_new();
		plumb_error err;
		plumb_format fmt;
		cr_assert_eq(plumb_read_file(p, files[f], NULL, &fmt, &err), 0, "%s", err.message);
		for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
			plumb_table *kept = keyed_view(p, kinds[k], false);
			plumb_table *made = keyed_view(p, kinds[k], true);
			cr_assert_null(made->rows, "%s: the rows were kept", files[f]);
			cr_assert_not_null(made->source);
			cr_assert_eq(made->nrows, kept->nrows);
			cr_assert_gt(kept->nrows, 0);
			for (unsigned w = 0; w <= 160; w += 20) {
				char *a = text_at(kept, w), *b = text_at(made, w);
				cr_expect_str_eq(b, a, "%s, view %d, width %u", files[f], (int)kinds[k], w);
				free(a);
				free(b);
			}
			char *a = csv_of(kept), *b = csv_of(made);
			cr_expect_str_eq(b, a, "%s, view %d: CSV", files[f], (int)kinds[k]);
			free(a);
			free(b);
			/* last to first: every row made again from the start */
			for (size_t i = kept->nrows; i-- > 0;) {
				const plumb_row *r = plumb_table_row(made, i);
				cr_assert_not_null(r);
				for (size_t c = 0; c < kept->ncols; c++)
					cr_expect(cells_equal(&r->cells[c], &kept->rows[i].cells[c]),
						  "%s, view %d: row %zu, column %s", files[f], (int)kinds[k], i,
						  kept->cols[c].key);
			}
			plumb_table_free(kept);
			plumb_table_free(made);
		}
		plumb_profile_free(p);
	}
}
