/* Private to the model: an open-addressing hash index of ids and helpers
 * (hashes: model/hash.h). */
#ifndef PLUMB_MODEL_INDEX_H
#define PLUMB_MODEL_INDEX_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "model/hash.h"
#include "plumb/profile.h"

/* Equality of the entry `id` with the key being looked up. */
typedef bool (*plumb_index_eq)(const void *ctx, uint32_t id, const void *key);

/* The id whose key equals key (with hash h), or PLUMB_NONE. */
uint32_t plumb_index_find(const plumb_index *ix, uint32_t h, plumb_index_eq eq,
			  const void *ctx, const void *key);
/* Record id under hash h (the caller has checked it is absent). -1 on ENOMEM. */
int plumb_index_insert(plumb_index *ix, uint32_t h, uint32_t id);
/* A find, and an insert of new_id when nothing equals key, in one probe
 * (a reader's new keys cost one walk of the table, not two). The caller
 * has made room for entity new_id, so that eq may be asked about it once
 * it is recorded. The id found, or new_id (*added set), or PLUMB_NONE on
 * ENOMEM. */
uint32_t plumb_index_find_or_add(plumb_index *ix, uint32_t h, plumb_index_eq eq, const void *ctx,
				 const void *key, uint32_t new_id, bool *added);
void plumb_index_free(plumb_index *ix);
/* Start fetching the slot a lookup or insert of hash h begins at. */
static inline void plumb_index_prefetch(const plumb_index *ix, uint32_t h)
{
	if (ix->nslots)
		__builtin_prefetch(&ix->slots[h & (ix->nslots - 1)], 1);
}
/* Make room for n entries without growing again. -1 on ENOMEM. */
int plumb_index_reserve(plumb_index *ix, size_t n);

/* Hint that the bytes at p (a table of several MB, about to be filled)
 * be backed by huge pages: fewer page faults as it fills. Does nothing for
 * small tables. */
void plumb_advise_huge(void *p, size_t bytes);

/* Grow a PLUMB_VEC to hold at least need elements. -1 on ENOMEM. The
 * check that it has room already is inline: readers ask millions of times. */
int plumb_vec_reserve_(void **v, size_t *cap, size_t need, size_t elem);
#define plumb_vec_reserve(vec, need)                              \
	(__builtin_expect((size_t)(need) <= (vec).cap, 1) ? 0 :    \
	 plumb_vec_reserve_((void **)&(vec).v, &(vec).cap, (need), sizeof *(vec).v))
/* Append nev zeroed slots to a vector of uint64 costs. -1 on ENOMEM. */
int plumb_costs_grow_(uint64_t **v, size_t *n, size_t *cap, size_t nev);
#define plumb_costs_grow(vec, nev) plumb_costs_grow_(&(vec).v, &(vec).n, &(vec).cap, (nev))
/* Append one element; evaluates to -1 on ENOMEM, 0 otherwise. */
#define plumb_vec_push(vec, val) \
	(plumb_vec_reserve((vec), (vec).n + 1) ? -1 : ((vec).v[(vec).n++] = (val), 0))

#endif
