/* The one byte hash of libplumb (see model/hash.h). */
#include "model/hash.h"

uint64_t plumb_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a's offset basis and prime */
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return plumb_hash_mix(h, len);
}
