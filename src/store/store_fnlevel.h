/* Private to src/store: a profile's call graph summed up by function, which
 * the store keeps beside the full one (the fn_self and fn_arcs blocks) so
 * that reports that show functions only (flat, callers, tree ...) read a
 * few hundred thousand entities instead of every instruction. Only for
 * profiles without calling contexts or samples: those need their frames. */
#ifndef PLUMB_STORE_FNLEVEL_H
#define PLUMB_STORE_FNLEVEL_H

#include "plumb/profile.h"

typedef struct store_fnlevel {
	/* frame (of self) and caller (of arcs) are function ids here;
	 * entries are sorted by part and function, arcs by part, caller and
	 * callee; zero masks are ORed, counts and costs added */
	PLUMB_VEC(plumb_cg_self) self;
	PLUMB_VEC(uint64_t) self_cost;   /* self.n * events */
	PLUMB_VEC(uint64_t) self_zero;   /* self.n */
	PLUMB_VEC(plumb_arc) arcs;
	PLUMB_VEC(uint64_t) arc_incl;    /* arcs.n * events */
	PLUMB_VEC(uint64_t) arc_zero;    /* arcs.n */
} store_fnlevel;

/* Sum p's call graph by function into *s (zeroed first). 0: done; 1: p
 * has calling contexts or samples, or a sum does not fit in 64 bits: no
 * summary (readers then read the full call graph); -1: ENOMEM (err set).
 * store_fnlevel_free it in every case. */
int store_fnlevel_build(const plumb_profile *p, store_fnlevel *s, plumb_error *err);
void store_fnlevel_free(store_fnlevel *s);

#endif
