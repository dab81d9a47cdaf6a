/* drms (src/inputs/drms.c, research/aprof.md §5 steps 8-11) on hand-made
 * events: values the kernel or another thread wrote since a thread last
 * touched a cell are new input each time, for every pending activation. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "inputs/inputs.h"

static inp_thread t, u;

static void make(inp_thread *x)
{
	cr_assert_eq(inp_thread_init(x, 2), 0);
	x->drms = true;
	cr_assert_eq(inp_grow((void **)&x->dframes, &x->dframes_cap, 2, sizeof *x->dframes), 0);
}

static void setup(void)
{
	cr_assert_eq(inp_drms_init(2, UINT32_MAX), 0);
	make(&t);
	make(&u);
}

static void teardown(void)
{
	inp_thread_free(&t);
	inp_thread_free(&u);
}

TestSuite(inputs_drms, .init = setup, .fini = teardown);

/* the drms counts of a point of t */
#define D(p) inp_drms_of(&t, (size_t)((p) - t.points))

#define F 0x1000
#define G 0x2000
#define CELL(i) ((uintptr_t)0x7e0000000000ull + 4 * (uintptr_t)(i))

static void enter(inp_thread *x, uintptr_t pc)
{
	inp_enter(x, pc, 0x7ffff000 - 256 * (uintptr_t)x->depth, 0x10 + x->depth);
}

static void leave(inp_thread *x)
{
	inp_exit(x, 0x7ffff000 - 256 * (uintptr_t)(x->depth - 1), 0xdead);
}

static void read_cells(inp_thread *x, int from, int n)
{
	for (int i = from; i < from + n; i++)
		inp_read(x, CELL(i), 4);
}

static const inp_point *only_point(const inp_thread *x, uintptr_t pc)
{
	const inp_point *found = NULL;
	for (size_t i = 0; i < x->npoints; i++)
		if (x->routines[x->nodes[x->points[i].node].routine].pc == pc) {
			cr_assert_null(found, "one point of %#lx", (unsigned long)pc);
			found = &x->points[i];
		}
	cr_assert_not_null(found);
	return found;
}

Test(inputs_drms, a_buffer_read_again_after_each_kernel_write_counts_each_time)
{
	enter(&t, F);
	for (int round = 0; round < 3; round++) {
		inp_drms_kernel_wrote(CELL(0), 40);
		read_cells(&t, 0, 10);
		read_cells(&t, 0, 10); /* again: nothing new */
	}
	leave(&t);
	const inp_point *p = only_point(&t, F);
	cr_assert_eq(p->rms, 30, "drms %lu", (unsigned long)p->rms);
	cr_assert_eq(D(p).sys_cum, 30);
	cr_assert_eq(D(p).sys_self, 30);
	cr_assert_eq(D(p).thr_cum, 0);
}

Test(inputs_drms, induced_reads_count_for_every_pending_activation_without_decrement)
{
	enter(&t, F);
	read_cells(&t, 0, 5);         /* F: 5 first reads */
	enter(&t, G);
	inp_drms_kernel_wrote(CELL(0), 20);
	read_cells(&t, 0, 5);         /* G: 5 induced: new for F too */
	leave(&t);
	leave(&t);
	const inp_point *g = only_point(&t, G), *f = only_point(&t, F);
	cr_assert_eq(g->rms, 5);
	cr_assert_eq(D(g).sys_self, 5);
	cr_assert_eq(f->rms, 10, "F: its own 5 and G's 5 new ones, got %lu", (unsigned long)f->rms);
	cr_assert_eq(D(f).sys_cum, 5);
	cr_assert_eq(D(f).sys_self, 0);
}

Test(inputs_drms, values_another_thread_wrote_are_thread_input_own_writes_are_not)
{
	enter(&t, F);
	for (int i = 0; i < 8; i++)
		inp_write(&t, CELL(100 + i), 4);
	read_cells(&t, 100, 8);       /* its own writes: nothing */
	enter(&u, G);
	enter(&t, G);                 /* the clock moves on */
	for (int i = 0; i < 4; i++)
		inp_write(&u, CELL(100 + i), 4);
	leave(&u);
	/* G reads the 8 cells: the 4 its caller wrote are first reads (input
	 * of G, not of F), the 4 the other thread rewrote are new input for
	 * both */
	read_cells(&t, 100, 8);
	leave(&t);
	leave(&t);
	const inp_point *g = only_point(&t, G), *f = only_point(&t, F);
	cr_assert_eq(g->rms, 8, "got %lu", (unsigned long)g->rms);
	cr_assert_eq(D(g).thr_self, 4);
	cr_assert_eq(D(g).sys_cum, 0);
	cr_assert_eq(f->rms, 4, "got %lu", (unsigned long)f->rms);
	cr_assert_eq(D(f).thr_cum, 4);
	cr_assert_eq(D(f).thr_self, 0);
}

Test(inputs_drms, without_drms_a_kernel_write_changes_nothing)
{
	inp_thread r;
	cr_assert_eq(inp_thread_init(&r, 2), 0);
	enter(&r, F);
	read_cells(&r, 200, 6);
	inp_drms_kernel_wrote(CELL(200), 24);
	read_cells(&r, 200, 6);
	leave(&r);
	cr_assert_eq(only_point(&r, F)->rms, 6);
	inp_thread_free(&r);
}
