/* The entry and the return of an activation (research/aprof.md §5), inline:
 * a common case (inp_enter_fast, inp_exit_fast) that hooks.c puts in the
 * gcc plugin's entry and exit hooks, which an interpreter calls tens of
 * millions of times (Lua: a call per few blocks), and the whole path
 * (inp_enter_inline, inp_exit_inline), which rms.c makes inp_enter_whole
 * and inp_exit_whole, out of line. inp_enter and inp_exit (the unit tests,
 * clang's hooks) try the one, then the other. The lookups the whole path
 * misses (a new child, a new point) stay out of line in rms.c. */
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

/* Failed once (out of memory): stop collecting. */
static inline void inp_fail(inp_thread *t)
{
	t->failed = true;
	t->slow = true;
}

/* After the whole path ran: whether the next hooks may take the fast ones. */
static inline void inp_slow_update(inp_thread *t)
{
	t->slow = t->failed || t->cost_time || t->dframes;
}

INP_INLINE void inp_point_add(inp_point *pt, uint64_t cum, uint64_t self, bool outermost)
{
	/* min and self_min start at UINT64_MAX (point_lookup) */
	if (cum < pt->min)
		pt->min = cum;
	if (cum > pt->max)
		pt->max = cum;
	if (self < pt->self_min)
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
}

/* The top frame f's rms, as its point is keyed. */
static inline uint64_t inp_rms_of(const inp_frame *f)
{
	return f->partial > 0 ? (uint64_t)f->partial : 0;
}

/* Pop the top frame f, whose point is pt (NULL: out of memory): its cost
 * and rms to the point and the parent. */
INP_INLINE void inp_pop_to(inp_thread *t, inp_frame *f, inp_point *pt, bool drms)
{
	uint64_t cum = t->cost - f->start_cost;
	if (pt) {
		inp_point_add(pt, cum, cum - f->children_cost, t->nodes[f->node].outermost);
		if (drms && __builtin_expect(t->dframes != NULL, 0))
			inp_drms_pop(t, pt);
	} else
		inp_fail(t);
	t->depth--;
	if (__builtin_expect(t->depth < t->ancestor_hint, 0))
		inp_fast_no_hint(t);
	inp_frame *parent = f - 1;
	parent->partial += f->partial;
	parent->children_cost += cum;
}

/* Pop the top activation: its point, its rms and cost to the parent. */
INP_INLINE void inp_pop(inp_thread *t)
{
	inp_frame *f = &t->frames[t->depth];
	uint64_t rms = inp_rms_of(f);
	/* activations in a row often have the same rms: the node's last point */
	uint32_t last = t->nodes[f->node].last_point;
	inp_point *pt = last && t->points[last - 1].rms == rms ? &t->points[last - 1]
							       : inp_point_slow(t, f->node, rms);
	inp_pop_to(t, f, pt, true);
}

/* Push a frame above f (the top) for the child node `node`. */
INP_INLINE inp_frame *inp_push(inp_thread *t, inp_frame *f, uint32_t node, uintptr_t sp, uintptr_t caller_pc)
{
	f++;
	t->depth++;
	f->aid = ++t->clock;
	f->node = node;
	f->sp = sp;
	f->caller_pc = caller_pc;
	f->start_cost = t->cost;
	f->children_cost = 0;
	f->partial = 0;
	/* right above the ancestor found last: the stamps of the frames that
	 * were there, finished, are that ancestor's now (the plugin's inline
	 * reads would send them to the runtime) */
	if (__builtin_expect(t->ancestor_hint && t->depth == t->ancestor_hint + 1, 0))
		t->fast[INP_FAST_HINT_SPAN] = f->aid - f[-1].aid;
	return f;
}

/* The child of the top frame's node for the routine at pc from the
 * node's last child or the child cache; 0 when neither has it. */
INP_INLINE uint32_t inp_child_cached(inp_thread *t, const inp_frame *f, uintptr_t pc)
{
	inp_node *p = &t->nodes[f->node];
	uint32_t node = p->last_child;
	if (__builtin_expect(p->last_child_pc == pc && node, 1))
		return node;
	/* an interpreter's loop calls many routines in turn */
	inp_child_slot *slot = &t->child_cache[inp_child_hash(f->node, pc)];
	if (slot->node && slot->parent == f->node && slot->pc == pc) {
		p->last_child = slot->node;
		p->last_child_pc = pc;
		return slot->node;
	}
	return 0;
}

/* The whole entry (inp_enter_whole in rms.c): every case. */
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
			inp_fail(t);
			return;
		}
		inp_fast_no_hint(t); /* the frames may have moved */
	}
	inp_frame *f = &t->frames[t->depth];
	uint32_t node = inp_child_cached(t, f, pc);
	if (!node && !(node = inp_child_slow(t, f->node, pc))) {
		inp_fail(t);
		return;
	}
	if (__builtin_expect(t->dframes != NULL, 0))
		inp_drms_enter(t);
	inp_push(t, f, node, sp, caller_pc);
}

/* The common entry, or NULL (nothing done) when it takes the whole path:
 * t->slow, frames a longjmp left (sp - f->sp wraps when f->sp > sp; the
 * root's sp, 0, is more than 64 MiB below any stack), the clock or the
 * frames running out, a child not cached. Returns the new top frame. */
INP_INLINE inp_frame *inp_enter_fast(inp_thread *t, uintptr_t pc, uintptr_t sp, uintptr_t caller_pc)
{
	inp_frame *f = &t->frames[t->depth];
	if (__builtin_expect(t->slow | (sp - f->sp < (64u << 20)) | (t->clock >= t->clock_max) |
			     (t->depth + 1 >= t->frames_cap), 0))
		return NULL;
	uint32_t node = inp_child_cached(t, f, pc);
	if (__builtin_expect(!node, 0))
		return NULL;
	return inp_push(t, f, node, sp, caller_pc);
}

/* The whole exit (inp_exit_whole in rms.c). */
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

/* The common exit, or NULL (nothing done): t->slow, no frame, frames a
 * longjmp left (f->sp < sp, within 64 MiB), a point other than the
 * node's last. Returns the new top frame. */
INP_INLINE inp_frame *inp_exit_fast(inp_thread *t, uintptr_t sp)
{
	inp_frame *f = &t->frames[t->depth];
	if (__builtin_expect(t->slow | !t->depth | (sp - f->sp - 1 < (64u << 20) - 1), 0))
		return NULL;
	uint32_t last = t->nodes[f->node].last_point;
	if (__builtin_expect(!last, 0))
		return NULL;
	inp_point *pt = &t->points[last - 1];
	if (__builtin_expect(pt->rms != inp_rms_of(f), 0))
		return NULL;
	inp_pop_to(t, f, pt, false);
	return f - 1;
}

#endif
