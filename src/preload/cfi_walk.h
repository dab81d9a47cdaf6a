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
/* The frames from the one executing at return address ra with stack
 * pointer sp0 (the caller of our wrapper) outwards: ips[i] its code
 * addresses, sps[i] each frame's stack pointer, as libgcc's walk gives
 * them. 0 when some frame is one the recipes cannot follow: then use
 * libgcc's walk. */
unsigned cfi_walk(uint64_t ra, uint64_t sp0, uint64_t *ips, uint64_t *sps, unsigned max,
		  int *truncated);

#endif
