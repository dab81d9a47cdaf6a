/* Private to libplumb: adding call-graph data whose ids a reader already
 * knows, without the lookups that intern it. The .plumb store uses these:
 * its frames, call-graph entries and arcs were unique when written, so
 * reading them back needs no hashing (4.7 million frames of a 100 MB
 * Callgrind file would otherwise each be looked up and inserted).
 *
 * Each call drops the lookup tables (plumb_profile_drop_lookups): a later
 * plumb_frame_intern, plumb_cg_add_self or plumb_arc_add rebuilds them and
 * finds what was appended. The caller vouches that what it appends is not
 * already there (a duplicate would be kept as a second entry). */
#ifndef PLUMB_MODEL_APPEND_H
#define PLUMB_MODEL_APPEND_H

#include "plumb/profile.h"

/* Append a frame (file PLUMB_NONE: the function's file); its id or PLUMB_NONE
 * on a bad reference or ENOMEM. */
plumb_id plumb_frame_append(plumb_profile *p, plumb_id function, plumb_id file, uint32_t line,
			    uint64_t address);
/* Append the call-graph entry (part, frame) with its costs and the mask of
 * events written as 0 (see cg_self_zero). -1 with err on a bad id, ENOMEM. */
int plumb_cg_self_append(plumb_profile *p, plumb_id part, plumb_id frame, const uint64_t *costs,
			 uint64_t zeros, plumb_error *err);
/* Append an arc: incl NULL when its inclusive cost is not known. */
int plumb_arc_append(plumb_profile *p, plumb_id part, plumb_id caller, plumb_id callee,
		     uint64_t calls, const uint64_t *incl, uint64_t zeros, plumb_error *err);

#endif
