/* The views kept in the .plumb store (version 8). The flat view: the
 * metrics plumb_metrics_compute makes, given by the caller or computed by
 * the writer, are kept, and a read for the flat view only gives them back
 * exactly (cycles included) with the totals and no cost; without them, or
 * into a profile that has something, the read is the usual one; a damaged
 * flat block is named. The inputs view's routines (kind inputs) likewise,
 * fits bit for bit. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/analysis.h"
#include "plumb/formats.h"
#include "plumb/store.h"

static char dir[] = "/tmp/plumb-flat-XXXXXX";
static char path[sizeof dir + 32];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/p.plumb", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
}

TestSuite(store_flat, .init = setup, .fini = teardown);

static plumb_profile *read_text(const char *file)
{
	plumb_error err;
	plumb_profile *p = plumb_profile_new();
	cr_assert_not_null(p);
	cr_assert_eq(plumb_read_file(p, file, NULL, NULL, &err), 0, "%s: %s", file, err.message);
	return p;
}

/* tests/data/cycles/mutual.callgrind: a call graph with a cycle of two. */
static plumb_profile *text(void)
{
	return read_text("tests/data/cycles/mutual.callgrind");
}

static plumb_metrics *flat_of(const plumb_profile *p)
{
	plumb_metrics_opts mo;
	plumb_metrics_opts_init(&mo);
	mo.keys_only = true;
	plumb_metrics *m = NULL;
	plumb_error err;
	cr_assert_eq(plumb_metrics_compute(p, &mo, &m, &err), 0, "%s", err.message);
	return m;
}

/* p written with its flat view kept. */
static void write_with_flat(plumb_profile *p)
{
	plumb_error err;
	p->flat = flat_of(p);
	p->flat_free = plumb_metrics_free;
	cr_assert_eq(plumb_store_write(p, path, &err), 0, "%s", err.message);
}

static int read_flat(plumb_profile *q, plumb_error *err)
{
	plumb_read_opts o = { .lines_only = true, .functions_only = true, .flat_only = true };
	return plumb_store_read(q, path, &o, err);
}

static void same_u64(const uint64_t *a, const uint64_t *b, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(a[i], b[i], "%s[%zu]: %llu, expected %llu", what, i,
			     (unsigned long long)b[i], (unsigned long long)a[i]);
}

/* The store at path, read for its flat view, gives m, p's, back exactly. */
static void read_back_exactly(const plumb_profile *p, const plumb_metrics *m)
{
	cr_assert_gt(m->ncycles, 0, "the test file has a cycle");
	plumb_profile *q = plumb_profile_new();
	plumb_error err;
	cr_assert_eq(read_flat(q, &err), 0, "%s", err.message);
	const plumb_metrics *r = q->flat;
	cr_assert_not_null(r);
	cr_assert_not_null(q->kept_totals);
	cr_assert_eq(r->nkeys, m->nkeys);
	cr_assert_eq(r->nevents, m->nevents);
	cr_assert_eq(r->ncycles, m->ncycles);
	cr_expect_eq(r->inclusive_estimated, m->inclusive_estimated);
	size_t nev = m->nevents;
	for (size_t k = 0; k < m->nkeys; k++) {
		cr_expect_str_eq(plumb_function_name(q, r->keys[k].function),
				 plumb_function_name(p, m->keys[k].function));
		cr_expect_eq(r->keys[k].file, m->keys[k].file);
		cr_expect_eq(r->keys[k].module, m->keys[k].module);
		cr_expect_eq(r->keys[k].line, m->keys[k].line);
		cr_expect_eq(r->cycle[k], m->cycle[k]);
	}
	same_u64(m->exclusive, r->exclusive, m->nkeys * nev, "exclusive");
	same_u64(m->inclusive, r->inclusive, m->nkeys * nev, "inclusive");
	same_u64(m->calls, r->calls, m->nkeys, "calls");
	same_u64(m->totals, r->totals, nev, "totals");
	same_u64(m->cycle_exclusive, r->cycle_exclusive, m->ncycles * nev, "cycle exclusive");
	same_u64(m->cycle_inclusive, r->cycle_inclusive, m->ncycles * nev, "cycle inclusive");
	for (size_t c = 0; c < m->ncycles; c++) {
		cr_expect_eq(r->cycles[c].n, m->cycles[c].n);
		cr_expect_eq(r->cycles[c].first, m->cycles[c].first);
		cr_expect_eq(r->cycles[c].calls, m->cycles[c].calls);
		for (uint32_t i = 0; i < m->cycles[c].n; i++)
			cr_expect_eq(r->cycle_members[m->cycles[c].first + i],
				     m->cycle_members[m->cycles[c].first + i]);
	}
	/* no cost was read; the totals are the profile's */
	cr_expect_eq(q->cg_self.n + q->arcs.n + q->frames.n, 0);
	cr_expect_eq(q->parts.n, p->parts.n);
	uint64_t tp[8], tq[8];
	cr_assert_leq(nev, 8);
	cr_assert_eq(plumb_profile_totals(p, tp, &err), 0);
	cr_assert_eq(plumb_profile_totals(q, tq, &err), 0);
	same_u64(tp, tq, nev, "plumb_profile_totals");
	/* such a profile is neither written nor merged */
	cr_expect_eq(plumb_store_write(q, path, &err), -1);
	cr_expect(strstr(err.message, "without its costs"), "%s", err.message);
	plumb_profile *both = text();
	cr_expect_eq(plumb_profile_merge(both, q, &err), -1);
	plumb_profile_free(both);
	plumb_profile_free(q);
}

Test(store_flat, kept_and_read_back_exactly)
{
	plumb_profile *p = text();
	write_with_flat(p);
	read_back_exactly(p, p->flat);
	plumb_profile_free(p);
}

/* A plain write computes them itself (on its helper thread), as a report
 * of the profile would. */
Test(store_flat, computed_by_the_writer)
{
	plumb_profile *p = text();
	plumb_error err;
	cr_assert_eq(plumb_store_write(p, path, &err), 0, "%s", err.message);
	cr_expect_null(p->flat, "the writer keeps its metrics to itself");
	plumb_metrics *m = flat_of(p);
	read_back_exactly(p, m);
	plumb_metrics_free(m);
	plumb_profile_free(p);
}

static void edit(const char *sql)
{
	sqlite3 *db;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sql);
	cr_assert_eq(sqlite3_close(db), SQLITE_OK);
}

/* Without the metrics (a store without the flat blocks: an older writer's),
 * or into a profile that already has something, a flat-only read reads
 * every cost as usual. */
Test(store_flat, the_usual_read_without_them)
{
	plumb_profile *p = text();
	plumb_error err;
	cr_assert_eq(plumb_store_write(p, path, &err), 0, "%s", err.message);
	edit("DELETE FROM bulk WHERE kind = 'flat'");
	plumb_profile *q = plumb_profile_new();
	cr_assert_eq(read_flat(q, &err), 0, "%s", err.message);
	cr_expect_null(q->flat);
	cr_expect_null(q->kept_totals);
	cr_expect_gt(q->cg_self.n, 0);
	plumb_profile_free(q);
	write_with_flat(p);
	q = text();
	size_t before = q->cg_self.n;
	cr_assert_eq(read_flat(q, &err), 0, "%s", err.message);
	cr_expect_null(q->kept_totals);
	cr_expect_gt(q->cg_self.n, before);
	plumb_profile_free(q);
	plumb_profile_free(p);
}

static void flat_fails(const char *sql, const char *want)
{
	plumb_profile *p = text();
	write_with_flat(p);
	plumb_profile_free(p);
	edit(sql);
	plumb_profile *q = plumb_profile_new();
	plumb_error err;
	cr_assert_eq(read_flat(q, &err), -1, "a damaged flat block was read");
	cr_expect_eq(err.code, PLUMB_ERR_FORMAT);
	cr_expect(strstr(err.message, want), "message '%s' lacks '%s'", err.message, want);
	cr_expect(strstr(err.message, path), "message '%s' lacks the path", err.message);
	plumb_profile_free(q);
}

Test(store_flat, damaged_blocks_are_named)
{
	flat_fails("UPDATE bulk SET count = count + 1 WHERE kind = 'flat'",
		   "flat block at id 0: entity 0: ");
	flat_fails("UPDATE bulk SET count = count - 1 WHERE kind = 'flat'", "flat block");
	flat_fails("UPDATE bulk SET data = x'00' WHERE kind = 'flat'", "flat block");
}

/* ---- the inputs view's routines ------------------------------------------ */

static plumb_profile *aprof_text(void)
{
	return read_text("tests/data/aprof/growth_1_0_4.aprof");
}

static int read_inputs(plumb_profile *q, plumb_error *err)
{
	plumb_read_opts o = { .lines_only = true, .inputs_only = true };
	return plumb_store_read(q, path, &o, err);
}

Test(store_flat, inputs_kept_and_read_back_exactly)
{
	plumb_profile *p = aprof_text();
	plumb_error err;
	cr_assert_eq(plumb_inputs_summarize(p, &p->inputs, &err), 0, "%s", err.message);
	p->inputs_free = plumb_inputs_summary_free;
	cr_assert_eq(plumb_store_write(p, path, &err), 0, "%s", err.message);
	const plumb_inputs_summary *s = p->inputs;
	cr_assert_gt(s->n, 0);
	bool fitted = false;
	plumb_profile *q = plumb_profile_new();
	cr_assert_eq(read_inputs(q, &err), 0, "%s", err.message);
	const plumb_inputs_summary *t = q->inputs;
	cr_assert_not_null(t);
	cr_assert_eq(t->n, s->n);
	cr_expect_eq(t->total_cost, s->total_cost);
	for (size_t i = 0; i < s->n; i++) {
		const plumb_inputs_routine *a = &s->v[i], *b = &t->v[i];
		cr_expect_str_eq(plumb_function_name(q, b->function), plumb_function_name(p, a->function));
		cr_expect_eq(b->has, a->has);
		cr_expect_eq(b->calls, a->calls);
		cr_expect_eq(b->points, a->points);
		cr_expect_eq(b->min_input, a->min_input);
		cr_expect_eq(b->max_input, a->max_input);
		cr_expect_eq(b->cost, a->cost);
		cr_expect_eq(b->self, a->self);
		cr_expect_eq(b->order_cost, a->order_cost);
		cr_expect_eq(b->growth, a->growth);
		/* bit for bit, NaN included */
		cr_expect_eq(memcmp(&b->exponent, &a->exponent, sizeof a->exponent), 0);
		cr_expect_eq(memcmp(&b->r2, &a->r2, sizeof a->r2), 0);
		fitted |= a->growth != 0;
	}
	cr_expect(fitted, "no routine of the test file was fitted");
	cr_expect_eq(q->points.n, 0);
	cr_expect_eq(q->parts.n, p->parts.n);
	uint64_t tp[8], tq[8];
	cr_assert_leq(p->events.n, 8);
	cr_assert_eq(plumb_profile_totals(p, tp, &err), 0);
	cr_assert_eq(plumb_profile_totals(q, tq, &err), 0);
	same_u64(tp, tq, p->events.n, "plumb_profile_totals");
	plumb_profile_free(q);
	/* a flat-only read of it reads everything: it has no flat blocks */
	q = plumb_profile_new();
	cr_assert_eq(read_flat(q, &err), 0, "%s", err.message);
	cr_expect_null(q->inputs);
	cr_expect_eq(q->points.n, p->points.n);
	plumb_profile_free(q);
	plumb_profile_free(p);
}

Test(store_flat, damaged_inputs_blocks_are_named)
{
	plumb_profile *p = aprof_text();
	plumb_error err;
	cr_assert_eq(plumb_inputs_summarize(p, &p->inputs, &err), 0, "%s", err.message);
	p->inputs_free = plumb_inputs_summary_free;
	cr_assert_eq(plumb_store_write(p, path, &err), 0, "%s", err.message);
	plumb_profile_free(p);
	edit("UPDATE bulk SET count = count - 1 WHERE kind = 'inputs'");
	plumb_profile *q = plumb_profile_new();
	cr_assert_eq(read_inputs(q, &err), -1, "a damaged inputs block was read");
	cr_expect(strstr(err.message, "inputs block"), "%s", err.message);
	cr_expect(strstr(err.message, path), "%s", err.message);
	plumb_profile_free(q);
}
