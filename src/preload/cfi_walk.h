/* libplumb-sampler.so: a stack walk from cached per-address CFI recipes
 * (cfi_walk.c), in front of libgcc's _Unwind_Backtrace. */
#ifndef PLUMB_PRELOAD_CFI_WALK_H
#define PLUMB_PRELOAD_CFI_WALK_H

#include <stdint.h>

/* The recipe table (process-wide). -1 when it cannot be mapped. */
int cfi_walk_init(void);
/* Forget every recipe: a library was unloaded, and another may come to
 * its addresses. */
void cfi_walk_forget(void);
/* A thread's own small copy of the recipes it used last, in front of the
 * process-wide table: that table is large, and a probe there is a cache
 * miss more often than not (most of a walk's time on cc1plus). */
#define CFI_NEAR 1024
struct cfi_near {
	uint64_t gen;                  /* the table's generation it copies */
	struct {
		uint64_t key, val;
	} e[CFI_NEAR];
};

/* The frames from the one executing at return address ra with stack
 * pointer sp0 (the caller of our wrapper) outwards: ips[i] its code
 * addresses, sps[i] each frame's stack pointer, as libgcc's walk gives
 * them. 0 when some frame is one the recipes cannot follow: then use
 * libgcc's walk. near: the calling thread's copy, or NULL. */
unsigned cfi_walk(uint64_t ra, uint64_t sp0, uint64_t *ips, uint64_t *sps, unsigned max,
		  int *truncated, struct cfi_near *near);

/* The stack from the wrapper's caller (return address ra, stack pointer
 * sp0, rbp bp0) outwards, joined to an old stack of the same thread:
 * pips/psps[0..pn) its frames, outermost first. The walk stops at the
 * first frame that is an old one (same code address, same stack pointer)
 * whose callers' return addresses all still sit in their slots: those
 * callers are then the same frames (each frame's place follows from the
 * one below it and its code address). Returns the frames walked before
 * it (ips, sps: innermost first) and *join its index in the old stack,
 * or UINT32_MAX when the walk went to the end (or was cut at max:
 * *truncated); -1 when a frame the recipes cannot follow came first. */
int cfi_walk_join(uint64_t ra, uint64_t sp0, uint64_t bp0, uint64_t *ips, uint64_t *sps,
		  unsigned max, int *truncated, struct cfi_near *near, const uint64_t *pips,
		  const uint64_t *psps, unsigned pn, unsigned *join);

/* Where the frame executing at return address ra (stack pointer sp, rbp
 * bp) keeps its own return address: its CFA - 8, or 0 when the recipes
 * do not say. One recipe probe, no walk. */
uint64_t cfi_ret_slot(struct cfi_near *near, uint64_t ra, uint64_t sp, uint64_t bp);

#endif
