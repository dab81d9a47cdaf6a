/* The hooks clang 14 calls in a program built with `plumb cc --cc=clang`:
 * -finstrument-functions-after-inlining (__cyg_profile_func_enter/exit,
 * with the function's own address and its call site), and sanitizer
 * coverage with bb,no-prune,trace-pc-guard,trace-loads,trace-stores (a
 * guard per basic block, __sanitizer_cov_loadN/storeN before each load and
 * store). They feed the same rms code as gcc's hooks (hooks.c). */
#include <stdatomic.h>

#include "inputs/inputs.h"

/* Blocks are numbered 1, 2, ... across the program and its instrumented
 * shared objects, in the order their guards are set up. */
static atomic_uint guards_given;

INP_EXPORT void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop)
{
	if (start == stop || *start)
		return; /* no blocks, or this object's guards are numbered already */
	uint32_t first = atomic_fetch_add(&guards_given, (unsigned)(stop - start)) + 1;
	for (uint32_t *g = start; g < stop; g++)
		*g = first + (uint32_t)(g - start);
}

INP_EXPORT void __sanitizer_cov_trace_pc_guard(uint32_t *guard)
{
	(void)guard;
	/* counted from the thread's first entry hook, as the blocks' lines are */
	inp_thread *t = tls_thread;
	if (t) {
		__plumb_inp_cost++;
		if (t->blocks)
			inp_block_hit(t, (uintptr_t)__builtin_return_address(0));
	}
}

/* The instrumented function's frame, by the slot holding its return
 * address (call_site): clang calls the hooks after the prologue, so the
 * hook's own frame lies below frames of different sizes, and a function
 * called after a longjmp from the same caller could sit above a frame the
 * jump left. The slot is the same at entry and exit, and lower for every
 * callee. Searched upwards from the function's stack pointer, over at most
 * 64 KiB of locals; past that, the hook's frame stands in. */
__attribute__((always_inline)) static inline uintptr_t frame_of(void *hook_frame, void *call_site)
{
	const uintptr_t *p = (const uintptr_t *)hook_frame + 2; /* the function's sp at the call */
	for (size_t i = 0; i < 8192; i++)
		if (p[i] == (uintptr_t)call_site)
			return (uintptr_t)&p[i];
	return (uintptr_t)hook_frame;
}

INP_EXPORT void __cyg_profile_func_enter(void *fn, void *call_site)
{
	inp_thread *t = tls_thread;
	if (__builtin_expect(!t, 0) && !(t = inp_current_start()))
		return;
	/* the function's first block ran before this hook, counted for the
	 * caller: it is the callee's (as with gcc, whose entry hook comes first) */
	bool first = __plumb_inp_cost > 0 && !t->cost_time;
	if (first)
		__plumb_inp_cost--;
	t->cost = __plumb_inp_cost;
	inp_enter(t, (uintptr_t)fn, frame_of(__builtin_frame_address(0), call_site), (uintptr_t)call_site);
	if (first) {
		__plumb_inp_cost++;
		if (t->blocks)
			inp_block_to_top(t);
	}
}

INP_EXPORT void __cyg_profile_func_exit(void *fn, void *call_site)
{
	(void)fn;
	inp_thread *t = tls_thread;
	if (t) {
		t->cost = __plumb_inp_cost;
		inp_exit(t, frame_of(__builtin_frame_address(0), call_site), (uintptr_t)call_site);
	}
}

#define ACCESS(name, size, fn)                        \
	INP_EXPORT void name(void *addr)              \
	{                                             \
		inp_thread *t = tls_thread;           \
		if (t)                                \
			fn(t, (uintptr_t)addr, size); \
	}
ACCESS(__sanitizer_cov_load1, 1, inp_read)
ACCESS(__sanitizer_cov_load2, 2, inp_read)
ACCESS(__sanitizer_cov_load4, 4, inp_read)
ACCESS(__sanitizer_cov_load8, 8, inp_read)
ACCESS(__sanitizer_cov_load16, 16, inp_read)
ACCESS(__sanitizer_cov_store1, 1, inp_write)
ACCESS(__sanitizer_cov_store2, 2, inp_write)
ACCESS(__sanitizer_cov_store4, 4, inp_write)
ACCESS(__sanitizer_cov_store8, 8, inp_write)
ACCESS(__sanitizer_cov_store16, 16, inp_write)
