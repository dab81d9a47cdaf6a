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

/* Room for n more frames: where the caller writes them, ids and all
 * (a frame's file is never PLUMB_NONE unless its function's is). NULL on
 * ENOMEM. Then plumb_frames_added adds them: -1 if one has a bad reference
 * (then none is added). */
plumb_frame *plumb_frames_room(plumb_profile *p, size_t n);
int plumb_frames_added(plumb_profile *p, size_t n, plumb_error *err);
/* The same for call-graph entries: the keys and their cost vectors
 * (n * events slots) to fill. */
uint64_t *plumb_cg_self_room(plumb_profile *p, size_t n, plumb_cg_self **keys);
int plumb_cg_self_added(plumb_profile *p, size_t n, plumb_error *err);
/* The mask of events written as 0 (see cg_self_zero) of entry id, which
 * may be one in the room. */
int plumb_cg_self_zeros(plumb_profile *p, size_t id, uint64_t mask, plumb_error *err);
/* Append an arc: its inclusive cost vector (zeroed; the caller fills it
 * when has_inclusive, else leaves it zero). */
uint64_t *plumb_arc_append(plumb_profile *p, plumb_id part, plumb_id caller, plumb_id callee,
			   uint64_t calls, bool has_inclusive, uint64_t zeros, plumb_error *err);

#endif
