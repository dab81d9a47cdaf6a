/* The entry and the return of an activation (research/aprof.md §5), inline:
 * rms.c makes them inp_enter and inp_exit (the unit tests, clang's hooks),
 * and hooks.c puts them in the gcc plugin's entry and exit hooks, which an
 * interpreter calls tens of millions of times (Lua: a call per few blocks),
 * so that each costs one call, not three. The lookups they miss (a new
 * child, a new point) stay out of line in rms.c. */
#ifndef PLUMB_INPUTS_RMS_INLINE_H
#define PLUMB_INPUTS_RMS_INLINE_H

#include "inputs/inputs.h"

#define INP_INLINE static inline __attribute__((always_inline))

static inline size_t inp_child_hash(uint32_t parent, uintptr_t pc)
{
	return (pc ^ (pc >> 12) ^ parent * 0x9e3779b1u) & (INP_CHILD_CACHE - 1);
}

/* The child of node `parent` for the routine at pc (made if new; 0 when
 * out of memory), and the point of (node, rms) (NULL: out of memory). */
uint32_t inp_child_slow(inp_thread *t, uint32_t parent, uintptr_t pc);
inp_point *inp_point_slow(inp_thread *t, uint32_t node, uint64_t rms);
/* Pop the top frame, which a longjmp left (an entry found it below its
 * own); at an exit, the frames a longjmp left and the exiting one. */
void inp_pop_left(inp_thread *t);
void inp_exit_left(inp_thread *t, uintptr_t sp, uintptr_t ra);

INP_INLINE void inp_point_add(inp_thread *t, inp_point *pt, uint64_t cum, uint64_t self, bool outermost)
{
	if (!pt->calls || cum < pt->min)
		pt->min = cum;
	if (cum > pt->max)
		pt->max = cum;
	if (!pt->calls || self < pt->self_min)
		pt->self_min = self;
	if (self > pt->self_max)
		pt->self_max = self;
	pt->calls++;
	pt->sum += cum;
	pt->sqr += (unsigned __int128)cum * cum;
	pt->self_sum += self;
	pt->self_sqr += (unsigned __int128)self * self;
	if (outermost)
		pt->real_sum += cum;
	if (t->dframes)
		inp_drms_pop(t, pt);
}

/* Pop the top activation: its point, its rms and cost to the parent. */
INP_INLINE void inp_pop(inp_thread *t)
{
	inp_frame *f = &t->frames[t->depth];
	uint64_t cum = t->cost - f->start_cost;
	uint64_t self = cum - f->children_cost;
	uint64_t rms = f->partial > 0 ? (uint64_t)f->partial : 0;
	bool outermost = --t->routines[f->routine].pending == 0;
	/* activations in a row often have the same rms: the node's last point */
	uint32_t last = t->nodes[f->node].last_point;
	inp_point *pt = last && t->points[last - 1].rms == rms ? &t->points[last - 1]
							       : inp_point_slow(t, f->node, rms);
	if (pt)
		inp_point_add(t, pt, cum, self, outermost);
	else
		t->failed = true;
	t->depth--;
	if (__builtin_expect(t->depth < t->ancestor_hint, 0))
		inp_fast_no_hint(t);
	inp_frame *parent = f - 1;
	parent->partial += f->partial;
	parent->children_cost += cum;
}

INP_INLINE void inp_enter_inline(inp_thread *t, uintptr_t pc, uintptr_t sp, uintptr_t caller_pc)
{
	if (t->failed)
		return;
	if (__builtin_expect(t->cost_time, 0))
		inp_cost_sync(t);
	/* frames at or below this one's stack address were left by a longjmp
	 * (within 64 MiB: a signal handler on another stack leaves them be) */
	while (__builtin_expect(t->depth && t->frames[t->depth].sp <= sp && sp - t->frames[t->depth].sp < (64u << 20), 0))
		inp_pop_left(t);
	if (__builtin_expect(t->clock >= t->clock_max, 0))
		inp_renumber(t);
	if (__builtin_expect(t->depth + 1 >= t->frames_cap, 0)) {
		if (inp_grow((void **)&t->frames, &t->frames_cap, t->depth + 2, sizeof *t->frames)) {
			t->failed = true;
			return;
		}
		inp_fast_no_hint(t); /* the frames may have moved */
	}
	inp_frame *f = &t->frames[t->depth];
	inp_node *p = &t->nodes[f->node];
	uint32_t node = p->last_child;
	if (p->last_child_pc != pc || !node) {
		/* an interpreter's loop calls many routines in turn */
		inp_child_slot *slot = &t->child_cache[inp_child_hash(f->node, pc)];
		if (slot->node && slot->parent == f->node && slot->pc == pc) {
			node = slot->node;
			p->last_child = node;
			p->last_child_pc = pc;
		} else
			node = inp_child_slow(t, f->node, pc);
	}
	if (!node) {
		t->failed = true;
		return;
	}
	if (__builtin_expect(t->dframes != NULL, 0))
		inp_drms_enter(t);
	uint32_t routine = t->nodes[node].routine;
	t->routines[routine].pending++;
	f++;
	t->depth++;
	f->aid = ++t->clock;
	f->node = node;
	f->routine = routine;
	f->sp = sp;
	f->caller_pc = caller_pc;
	f->start_cost = t->cost;
	f->children_cost = 0;
	f->partial = 0;
}

INP_INLINE void inp_exit_inline(inp_thread *t, uintptr_t sp, uintptr_t ra)
{
	if (t->failed)
		return;
	if (__builtin_expect(t->cost_time, 0))
		inp_cost_sync(t);
	/* deeper frames than this hook's: rms.c */
	if (__builtin_expect(t->depth && t->frames[t->depth].sp < sp && sp - t->frames[t->depth].sp < (64u << 20), 0)) {
		inp_exit_left(t, sp, ra);
		return;
	}
	if (t->depth)
		inp_pop(t);
}

#endif
