/* The dynamic read memory size (research/aprof.md §5 steps 8-11): like
 * rms, but a value another thread or the kernel wrote since the thread last
 * touched the cell is new input, counted for the reading activation and,
 * through the partials, for every pending one (no ancestor decrement).
 *
 * Activation ids and the stamps of drms mode come from one global clock,
 * so that a thread's stamps and every thread's writes are ordered in time.
 * A global write shadow keeps, per cell, the clock of the latest write by
 * any thread, with the top bit set when the kernel wrote it (read(),
 * recv(), a file's mmap ...: io.c). Under Valgrind aprof also bumps the
 * clock at each thread switch; here threads run at once, and the clock
 * bumped at every entry orders them as they really interleave. When the
 * clock reaches its limit (2^31 less a margin) drms stops: threads go on
 * with rms and their own clocks (docs/inputs.md). */
#include <stdatomic.h>
#include <string.h>

#include "inputs/inputs.h"

#define SYS_BIT 0x80000000u
#define TOP_ENTRIES (1u << 16)
#define MID_ENTRIES (1u << 16)

static atomic_uint clock_now;               /* the latest id or stamp given */
static uint32_t limit = SYS_BIT - (1u << 20);
static atomic_bool stopped;
static _Atomic(uint32_t *) *_Atomic *top;    /* [addr >> 32] -> [(addr >> 16) & 0xffff] -> leaf */
static unsigned shift;

INP_HIDDEN int inp_drms_init(unsigned memres_shift, uint32_t clock_max)
{
	shift = memres_shift;
	if (clock_max < limit)
		limit = clock_max; /* tests: a small clock stops drms early */
	top = inp_map(TOP_ENTRIES * sizeof *top);
	return top ? 0 : -1;
}

/* The global shadow's cell of addr, made on first touch when make is
 * set; NULL when not there (or out of memory). Leaves are published with
 * a compare-and-swap: threads racing to make one keep the first. */
static _Atomic uint32_t *global_cell(uintptr_t addr, bool make)
{
	if ((uint64_t)addr >> 48 || !top)
		return NULL;
	_Atomic(uint32_t *) *mid = atomic_load_explicit(&top[(uint64_t)addr >> 32], memory_order_acquire);
	if (!mid) {
		if (!make)
			return NULL;
		_Atomic(uint32_t *) *fresh = inp_map(MID_ENTRIES * sizeof *fresh);
		if (!fresh)
			return NULL;
		_Atomic(uint32_t *) *expected = NULL;
		if (atomic_compare_exchange_strong(&top[(uint64_t)addr >> 32], &expected, fresh)) {
			mid = fresh;
		} else {
			inp_unmap(fresh, MID_ENTRIES * sizeof *fresh);
			mid = expected;
		}
	}
	_Atomic(uint32_t *) *slot = &mid[(addr >> INP_LEAF_BITS) & (MID_ENTRIES - 1)];
	uint32_t *leaf = atomic_load_explicit(slot, memory_order_acquire);
	size_t cells = ((size_t)1 << INP_LEAF_BITS) >> shift;
	if (!leaf) {
		if (!make)
			return NULL;
		uint32_t *fresh = inp_map(cells * sizeof *fresh);
		if (!fresh)
			return NULL;
		uint32_t *expected = NULL;
		if (atomic_compare_exchange_strong(slot, &expected, fresh)) {
			leaf = fresh;
		} else {
			inp_unmap(fresh, cells * sizeof *fresh);
			leaf = expected;
		}
	}
	return (_Atomic uint32_t *)&leaf[(addr & (((uintptr_t)1 << INP_LEAF_BITS) - 1)) >> shift];
}

/* drms ends for every thread: each renumbers its own stamps at its next
 * entry and goes on with rms. */
static void stop_thread(inp_thread *t)
{
	t->drms = false;
	inp_renumber(t);
}

INP_HIDDEN void inp_drms_enter(inp_thread *t)
{
	if (inp_grow((void **)&t->dframes, &t->dframes_cap, t->depth + 2, sizeof *t->dframes)) {
		t->failed = true;
		return;
	}
	memset(&t->dframes[t->depth + 1], 0, sizeof *t->dframes);
	if (!t->drms)
		return; /* stopped: the counts stay, zero */
	uint32_t now = atomic_fetch_add_explicit(&clock_now, 1, memory_order_relaxed);
	if (now >= limit || atomic_load_explicit(&stopped, memory_order_relaxed)) {
		atomic_store(&stopped, true);
		stop_thread(t);
		return;
	}
	t->clock = now; /* inp_enter gives now + 1 */
}

static void read_cell(inp_thread *t, uintptr_t addr, uint32_t *c, uint32_t now)
{
	_Atomic uint32_t *w = global_cell(addr, false);
	uint32_t wrote = w ? atomic_load_explicit(w, memory_order_relaxed) : 0;
	uint32_t old = *c;
	if (old < (wrote & ~SYS_BIT)) {
		/* an induced first read: new input for every pending activation */
		inp_drms_frame *d = &t->dframes[t->depth];
		*c = now;
		t->frames[t->depth].partial++;
		if (wrote & SYS_BIT)
			d->sys_self++, d->sys_cum++;
		else
			d->thr_self++, d->thr_cum++;
		return;
	}
	inp_read_cell(t, c);
	/* stamped with the time of the read (not the activation's id), so that
	 * the next read compares with writes of other threads since then */
	if (*c < now)
		*c = now;
}

INP_HIDDEN void inp_drms_read(inp_thread *t, uintptr_t addr, size_t size)
{
	if (!size || !t->depth)
		return;
	uint32_t now = atomic_load_explicit(&clock_now, memory_order_relaxed);
	for (uintptr_t g = addr >> shift, last = (addr + size - 1) >> shift; g <= last; g++) {
		uint32_t *c = inp_shadow_cell(&t->shadow, g << shift);
		if (c)
			read_cell(t, g << shift, c, now);
	}
}

INP_HIDDEN void inp_drms_write(inp_thread *t, uintptr_t addr, size_t size)
{
	if (!size || !t->depth)
		return;
	uint32_t now = atomic_load_explicit(&clock_now, memory_order_relaxed);
	for (uintptr_t g = addr >> shift, last = (addr + size - 1) >> shift; g <= last; g++) {
		uint32_t *c = inp_shadow_cell(&t->shadow, g << shift);
		_Atomic uint32_t *w = global_cell(g << shift, true);
		if (c)
			*c = now;
		if (w)
			atomic_store_explicit(w, now, memory_order_relaxed);
	}
}

INP_HIDDEN void inp_drms_kernel_wrote(uintptr_t addr, size_t size)
{
	if (!size || !top || atomic_load_explicit(&stopped, memory_order_relaxed))
		return;
	/* after every stamp so far: the next read by any thread is induced */
	uint32_t now = atomic_fetch_add_explicit(&clock_now, 1, memory_order_relaxed) + 1;
	if (now >= limit)
		return;
	for (uintptr_t g = addr >> shift, last = (addr + size - 1) >> shift; g <= last; g++) {
		_Atomic uint32_t *w = global_cell(g << shift, true);
		if (w)
			atomic_store_explicit(w, now | SYS_BIT, memory_order_relaxed);
	}
}

INP_HIDDEN void inp_drms_pop(inp_thread *t, inp_point *pt)
{
	inp_drms_frame *d = &t->dframes[t->depth], *parent = &t->dframes[t->depth - 1];
	size_t i = (size_t)(pt - t->points);
	if (inp_grow((void **)&t->dpoints, &t->dpoints_cap, i + 1, sizeof *t->dpoints)) {
		t->failed = true;
		return;
	}
	inp_drms_point *dp = &t->dpoints[i];
	dp->sys_cum += d->sys_cum;
	dp->thr_cum += d->thr_cum;
	dp->sys_self += d->sys_self;
	dp->thr_self += d->thr_self;
	parent->sys_cum += d->sys_cum;
	parent->thr_cum += d->thr_cum;
}
