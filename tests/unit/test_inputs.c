/* The runtime's rms algorithm (src/inputs/rms.c, research/aprof.md §5) on
 * hand-made event sequences: calls, reads, writes and returns of one
 * thread, with made-up addresses (the shadow never touches them), stack
 * addresses and costs. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inputs/inputs.h"

static inp_thread t;

static void setup(void)
{
	cr_assert_eq(inp_thread_init(&t, 2), 0);
}

static void teardown(void)
{
	inp_thread_free(&t);
}

TestSuite(inputs, .init = setup, .fini = teardown);

/* Routines are told apart by pc; frames by a stack address that shrinks
 * with depth, as a real stack does. */
#define F 0x1000
#define G 0x2000
#define H 0x3000
#define CELL(i) ((uintptr_t)0x7f0000000000ull + 4 * (uintptr_t)(i))

static void enter(uintptr_t pc)
{
	inp_enter(&t, pc, 0x7ffff000 - 256 * (uintptr_t)t.depth, 0x10 + t.depth);
}

static void leave(void)
{
	inp_exit(&t, 0x7ffff000 - 256 * (uintptr_t)(t.depth - 1), 0xdead);
}

/* The one point of routine pc with input rms; NULL when there is none. */
static const inp_point *point(uintptr_t pc, uint64_t rms)
{
	const inp_point *found = NULL;
	for (size_t i = 0; i < t.npoints; i++) {
		const inp_point *p = &t.points[i];
		if (t.routines[t.nodes[p->node].routine].pc == pc && p->rms == rms) {
			cr_assert_null(found, "two points of %#lx with rms %lu", (unsigned long)pc, (unsigned long)rms);
			found = p;
		}
	}
	return found;
}

/* The points of routine pc with input rms over all its contexts, merged
 * as a report without contexts has them. */
static inp_point merged(uintptr_t pc, uint64_t rms)
{
	inp_point m = { .min = UINT64_MAX, .self_min = UINT64_MAX };
	for (size_t i = 0; i < t.npoints; i++) {
		const inp_point *p = &t.points[i];
		if (t.routines[t.nodes[p->node].routine].pc != pc || p->rms != rms)
			continue;
		m.calls += p->calls;
		m.sum += p->sum;
		m.real_sum += p->real_sum;
		m.self_sum += p->self_sum;
		m.sqr += p->sqr;
		m.self_sqr += p->self_sqr;
		m.min = p->min < m.min ? p->min : m.min;
		m.max = p->max > m.max ? p->max : m.max;
		m.self_min = p->self_min < m.self_min ? p->self_min : m.self_min;
		m.self_max = p->self_max > m.self_max ? p->self_max : m.self_max;
	}
	return m;
}

static size_t points_of(uintptr_t pc)
{
	size_t n = 0;
	for (size_t i = 0; i < t.npoints; i++)
		n += t.routines[t.nodes[t.points[i].node].routine].pc == pc;
	return n;
}

Test(inputs, distinct_cells_read_count_once)
{
	enter(F);
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 10; i++)
			inp_read(&t, CELL(i), 4);
	leave();
	cr_assert_not_null(point(F, 10));
	cr_assert_eq(points_of(F), 1);
}

Test(inputs, written_first_is_not_input)
{
	enter(F);
	inp_write(&t, CELL(0), 4);
	inp_read(&t, CELL(0), 4);
	inp_read(&t, CELL(1), 4);
	leave();
	cr_assert_not_null(point(F, 1));
}

Test(inputs, child_cells_count_for_the_parent_once)
{
	/* f reads c0; g reads c0 c1; h reads c1 c2: g 2, h 2, f 3 */
	enter(F);
	inp_read(&t, CELL(0), 4);
	enter(G);
	inp_read(&t, CELL(0), 4);
	inp_read(&t, CELL(1), 4);
	leave();
	enter(H);
	inp_read(&t, CELL(1), 4);
	inp_read(&t, CELL(2), 4);
	leave();
	leave();
	cr_assert_not_null(point(G, 2));
	cr_assert_not_null(point(H, 2));
	cr_assert_not_null(point(F, 3));
}

Test(inputs, a_parent_write_is_input_to_a_later_child_only)
{
	/* f writes c0, then g reads it: g's input, not f's */
	enter(F);
	inp_write(&t, CELL(0), 4);
	enter(G);
	inp_read(&t, CELL(0), 4);
	leave();
	leave();
	cr_assert_not_null(point(G, 1));
	cr_assert_not_null(point(F, 0));
}

Test(inputs, wide_and_unaligned_accesses_cover_their_cells)
{
	enter(F);
	inp_read(&t, CELL(0), 8);          /* cells 0, 1 */
	inp_read(&t, CELL(1) + 2, 4);      /* cells 1, 2 */
	inp_read(&t, CELL(3) + 1, 1);      /* cell 3 */
	leave();
	cr_assert_not_null(point(F, 4));
}

/* memcpy (d, s, 0) and friends: nothing read, nothing written */
Test(inputs, zero_length_accesses_touch_no_cell)
{
	enter(F);
	inp_write(&t, CELL(0) + 1, 0);
	inp_read(&t, CELL(1) + 2, 0);
	enter(G);
	inp_read(&t, CELL(0), 4); /* input to g, and to f, which never wrote it */
	leave();
	leave();
	cr_assert_not_null(point(G, 1));
	cr_assert_not_null(point(F, 1));
}

/* Two-cell writes (an 8-byte store) stamp both cells, also unaligned; a
 * store across a shadow leaf (64 KiB) stamps the cells of both leaves. */
Test(inputs, two_cell_and_cross_leaf_writes_stamp_every_cell)
{
	uintptr_t edge = CELL(0) + 0x10000; /* the first cell of the next leaf */
	enter(F);
	inp_write(&t, CELL(0), 8);      /* cells 0, 1 */
	inp_write(&t, CELL(2) + 2, 4);  /* cells 2, 3 */
	inp_write(&t, edge - 4, 8);     /* the last cell of a leaf, the first of the next */
	inp_read(&t, CELL(0), 16);
	inp_read(&t, edge - 4, 8);
	inp_read(&t, CELL(4), 4);       /* the only input */
	leave();
	cr_assert_not_null(point(F, 1));
}

/* The ancestor decrement, by the caller or a deeper ancestor: every
 * pending activation counts each cell once. */
Test(inputs, cells_counted_by_the_caller_or_an_older_ancestor_count_once)
{
	enter(F);
	inp_read(&t, CELL(0), 8);       /* f: cells 0, 1 */
	enter(G);
	inp_read(&t, CELL(2), 4);       /* g: cell 2 */
	enter(H);
	inp_read(&t, CELL(0), 4);       /* counted by f */
	inp_read(&t, CELL(2), 8);       /* cell 2 by g, cell 3 new */
	leave();
	enter(H);
	inp_read(&t, CELL(1), 4);       /* f's again */
	leave();
	leave();
	leave();
	cr_assert_not_null(point(H, 3));
	cr_assert_not_null(point(H, 1));
	cr_assert_not_null(point(G, 4));
	cr_assert_not_null(point(F, 4));
}

/* What the gcc plugin's inline reads use (inp_thread.fast): the ancestor
 * found last, as the range of timestamps it takes and its partial, gone
 * when that frame returns or the clock is renumbered. */
Test(inputs, the_ancestor_found_last_is_published_while_pending)
{
	enter(F);
	inp_read(&t, CELL(0), 4); /* f's */
	enter(G);
	enter(H);
	inp_read(&t, CELL(0), 4); /* counted by f, below the caller */
	uint32_t f_aid = t.frames[1].aid, g_aid = t.frames[2].aid;
	cr_assert_eq(t.fast[INP_FAST_HINT_LO], f_aid);
	cr_assert_eq(t.fast[INP_FAST_HINT_SPAN], g_aid - f_aid);
	cr_assert_eq(t.fast[INP_FAST_HINT_PARTIAL], (uintptr_t)&t.frames[1].partial);
	leave();
	leave();
	cr_assert_eq(t.fast[INP_FAST_HINT_SPAN], g_aid - f_aid, "f is still pending");
	leave();
	cr_assert_eq(t.fast[INP_FAST_HINT_SPAN], 0, "f returned: no range");
	cr_assert_eq(t.fast[INP_FAST_HINT_PARTIAL], (uintptr_t)&t.hint_sink);

	enter(F);
	inp_read(&t, CELL(1), 4);
	enter(G);
	enter(H);
	inp_read(&t, CELL(0), 4); /* an older stamp: no pending ancestor's */
	cr_assert_eq(t.fast[INP_FAST_HINT_SPAN], 0);
	inp_read(&t, CELL(1), 4); /* f's */
	cr_assert_neq(t.fast[INP_FAST_HINT_SPAN], 0);
	inp_renumber(&t);
	cr_assert_eq(t.fast[INP_FAST_HINT_SPAN], 0, "renumbered: no range");
	leave();
	leave();
	leave();
}

/* A leaf reading cells of two ancestors in turn (the one found last
 * changes at every read, the memo by stamp answers), and an 8-byte read of
 * two cells of one stamp (one search for both): each activation counts
 * each cell once; the published range of the ancestor follows a newer
 * frame above it. */
Test(inputs, reads_of_two_ancestors_in_turn_and_of_two_cells_of_one_stamp)
{
	enter(F);
	inp_read(&t, CELL(0), 8); /* f: cells 0, 1 */
	inp_read(&t, CELL(8), 8); /* f: cells 8, 9 */
	enter(G);
	inp_read(&t, CELL(4), 8); /* g: cells 4, 5 */
	enter(G);
	enter(H);
	for (int i = 0; i < 2; i++) {
		inp_read(&t, CELL(4 + i), 4); /* the outer g's */
		inp_read(&t, CELL(0 + i), 4); /* f's: found last */
	}
	leave();
	leave();
	leave();
	enter(G); /* newer frames above f, the ancestor found last */
	uint32_t f_aid = t.frames[1].aid;
	cr_assert_eq(t.fast[INP_FAST_HINT_SPAN], t.frames[2].aid - f_aid, "the range grows at the entry");
	enter(H);
	inp_read(&t, CELL(8), 8); /* f's: two cells of one stamp */
	cr_assert_eq(t.fast[INP_FAST_HINT_LO], f_aid);
	cr_assert_eq(t.fast[INP_FAST_HINT_SPAN], t.frames[2].aid - f_aid, "the range up to the newer g");
	cr_assert_eq(t.fast[INP_FAST_HINT_PARTIAL], (uintptr_t)&t.frames[1].partial);
	leave();
	leave();
	leave();
	cr_assert_eq(merged(H, 4).calls, 1, "h: f's 2 cells and g's 2");
	cr_assert_eq(merged(H, 2).calls, 1, "the second h: f's 8, 9");
	cr_assert_eq(merged(G, 4).calls, 2, "both g: 4 cells");
	cr_assert_eq(merged(G, 2).calls, 1, "the second g: f's 8, 9 by its callee");
	cr_assert_eq(merged(F, 6).calls, 1, "f: its 4 cells and g's 2");
	cr_assert_eq(t.npoints, 6);
}

Test(inputs, costs_self_and_real_sums_of_a_recursion)
{
	/* f(5 blocks, then f(3 blocks, then f(2 blocks))) */
	enter(F);
	t.cost += 5;
	enter(F);
	t.cost += 3;
	enter(F);
	t.cost += 2;
	leave();
	leave();
	leave();
	cr_assert_eq(points_of(F), 3, "one point per context");
	inp_point m = merged(F, 0);
	const inp_point *p = &m;
	cr_assert_eq(p->calls, 3);
	cr_assert_eq(p->sum, 10 + 5 + 2);
	cr_assert_eq(p->min, 2);
	cr_assert_eq(p->max, 10);
	cr_assert_eq(p->real_sum, 10, "only the outermost activation: %lu", (unsigned long)p->real_sum);
	cr_assert_eq(p->self_sum, 10);
	cr_assert_eq(p->self_min, 2);
	cr_assert_eq(p->self_max, 5);
	cr_assert(p->sqr == 100 + 25 + 4);
	cr_assert(p->self_sqr == 25 + 9 + 4);
}

Test(inputs, calling_contexts_are_a_tree)
{
	enter(F);
	enter(G);
	leave();
	enter(H);
	enter(G);
	leave();
	leave();
	enter(G);
	leave();
	leave();
	/* nodes: root, f, f>g, f>h, f>h>g */
	cr_assert_eq(t.nnodes, 5);
	size_t g_contexts = 0;
	for (size_t i = 0; i < t.npoints; i++)
		if (t.routines[t.nodes[t.points[i].node].routine].pc == G) {
			g_contexts++;
			cr_assert_eq(t.points[i].calls, t.nodes[t.points[i].node].parent == 1 ? 2u : 1u);
		}
	cr_assert_eq(g_contexts, 2);
}

/* f calls g calls h; h's longjmp lands in f, which calls g again: the
 * frames of g and h are closed at that call, and the new g is f's child. */
Test(inputs, frames_left_by_a_longjmp_are_closed)
{
	inp_enter(&t, F, 1000, 1);
	inp_enter(&t, G, 900, 2);
	inp_enter(&t, H, 800, 3);
	inp_read(&t, CELL(7), 4);
	inp_enter(&t, G, 900, 2);
	inp_read(&t, CELL(7), 4);
	cr_assert_eq(t.depth, 2);
	cr_assert_eq(t.nodes[t.frames[2].node].parent, t.frames[1].node);
	inp_exit(&t, 900, 0x77);
	inp_exit(&t, 1000, 0x77);
	cr_assert_eq(t.depth, 0);
	cr_assert_not_null(point(H, 1));
	cr_assert_eq(points_of(G), 1);
	const inp_point *g = point(G, 1);
	cr_assert_not_null(g);
	cr_assert_eq(g->calls, 2);
}

/* gcc makes the exit hook a tail call in leaf routines: the hook's frame
 * is then the caller's level, and its return address is the routine's. */
Test(inputs, a_tail_called_exit_hook_closes_one_frame)
{
	inp_enter(&t, F, 1000, 1);
	inp_enter(&t, G, 900, 0x42);
	inp_exit(&t, 1000, 0x42); /* g's exit hook, tail-called */
	cr_assert_eq(t.depth, 1);
	inp_exit(&t, 1000, 0x99);
	cr_assert_eq(t.depth, 0);
}

/* The same events with a clock that overflows every few activations give
 * the same points. */
static void workload(void)
{
	for (int n = 1; n <= 12; n++) {
		enter(F);
		for (int i = 0; i < n; i++)
			inp_read(&t, CELL(i), 4);
		enter(G);
		for (int i = 0; i < 2 * n; i++)
			inp_read(&t, CELL(i), 4);
		enter(H);
		inp_write(&t, CELL(100), 4);
		inp_read(&t, CELL(100), 4);
		inp_read(&t, CELL(n), 4);
		leave();
		leave();
		for (int i = 0; i < 3 * n; i++)
			inp_read(&t, CELL(i), 4);
		leave();
	}
}

Test(inputs, renumbering_keeps_every_input_size)
{
	enter(F); /* a frame pending across every renumbering */
	workload();
	leave();
	size_t n = t.npoints;
	inp_point *want = malloc(n * sizeof *want);
	memcpy(want, t.points, n * sizeof *want);
	inp_thread_free(&t);
	cr_assert_eq(inp_thread_init(&t, 2), 0);
	t.clock_max = 5;
	enter(F);
	workload();
	leave();
	cr_assert_gt(t.renumberings, 3);
	cr_assert_eq(t.npoints, n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(t.points[i].rms, want[i].rms, "point %zu", i);
		cr_assert_eq(t.points[i].calls, want[i].calls, "point %zu", i);
		cr_assert_eq(t.points[i].node, want[i].node, "point %zu", i);
	}
	free(want);
}

Test(inputs, pending_activations_close_at_exit)
{
	enter(F);
	inp_read(&t, CELL(0), 4);
	enter(G);
	inp_read(&t, CELL(1), 4);
	inp_unwind_all(&t);
	cr_assert_eq(t.depth, 0);
	cr_assert_not_null(point(G, 1));
	cr_assert_not_null(point(F, 2));
}
