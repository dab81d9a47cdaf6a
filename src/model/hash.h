/* Private to libplumb: the one hash of bytes (FNV-1a) and the mixer that
 * combines hashes, for every hash index of the model and the recorder. */
#ifndef PLUMB_MODEL_HASH_H
#define PLUMB_MODEL_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a of len bytes, finished with plumb_hash_mix so that the low bits
 * (what a power-of-two table uses) are usable. */
uint64_t plumb_hash_bytes(const void *data, size_t len);

/* Combine a hash with another value (splitmix64's finalizer). */
static inline uint64_t plumb_hash_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 29;
	return h;
}

#endif
