/* A hash map from an aprof report's 64-bit ids to dense indexes: routine
 * ids and context ids are any numbers the tool chose, not 0..n-1. */
#include <stdlib.h>

#include "formats/aprof_internal.h"

static size_t slot_of(uint64_t key, size_t nslots)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (nslots - 1);
}

uint32_t aprof_idmap_get(const aprof_idmap *m, uint64_t key)
{
	if (!m->nslots)
		return PLUMB_NONE;
	for (size_t i = slot_of(key, m->nslots);; i = (i + 1) & (m->nslots - 1)) {
		if (!m->vals[i])
			return PLUMB_NONE;
		if (m->keys[i] == key)
			return m->vals[i] - 1;
	}
}

static int grow(aprof_idmap *m)
{
	size_t ns = m->nslots ? m->nslots * 2 : 256;
	uint64_t *keys = malloc(ns * sizeof *keys);
	uint32_t *vals = calloc(ns, sizeof *vals);
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (size_t k = 0; k < m->nslots; k++) {
		if (!m->vals[k])
			continue;
		size_t i = slot_of(m->keys[k], ns);
		while (vals[i])
			i = (i + 1) & (ns - 1);
		keys[i] = m->keys[k];
		vals[i] = m->vals[k];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->nslots = ns;
	return 0;
}

int aprof_idmap_put(aprof_idmap *m, uint64_t key, uint32_t val)
{
	if ((m->count + 1) * 2 > m->nslots && grow(m) < 0)
		return -1;
	size_t i = slot_of(key, m->nslots);
	while (m->vals[i])
		i = (i + 1) & (m->nslots - 1);
	m->keys[i] = key;
	m->vals[i] = val + 1;
	m->count++;
	return 0;
}

void aprof_idmap_free(aprof_idmap *m)
{
	free(m->keys);
	free(m->vals);
	*m = (aprof_idmap){ 0 };
}
