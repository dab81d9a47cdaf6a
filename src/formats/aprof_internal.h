/* Private to the aprof reader, detector and writer (src/formats/aprof_*.c):
 * aprof's input-sensitive profiles, format in docs/aprof.md. */
#ifndef PLUMB_FORMATS_APROF_INTERNAL_H
#define PLUMB_FORMATS_APROF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plumb/profile.h"

/* ---- a map from the file's 64-bit ids (routines, contexts) to indexes ---- */

typedef struct aprof_idmap {
	uint64_t *keys;
	uint32_t *vals;        /* index + 1; 0 = empty slot */
	size_t nslots, count;  /* nslots: 0 or a power of two */
} aprof_idmap;

/* The index stored for key, or PLUMB_NONE. */
uint32_t aprof_idmap_get(const aprof_idmap *m, uint64_t key);
/* Store key -> val (val < PLUMB_NONE; key absent). -1 on ENOMEM. */
int aprof_idmap_put(aprof_idmap *m, uint64_t key, uint32_t val);
void aprof_idmap_free(aprof_idmap *m);

/* ---- the comment line by which plumb's writer marks absent fields ----
 * "c plumb-missing: sum sqr self": the p and q lines that follow lack
 * these fields (their numbers are 0 or computed; "sum" means avg x calls),
 * up to the next such line; "c plumb-missing:" alone: none lacking. Other
 * readers take it for a comment. */
#define APROF_MISSING_TAG "plumb-missing:"

typedef struct aprof_field_name {
	uint32_t bit;          /* PLUMB_PT_* */
	const char *name;
} aprof_field_name;

extern const aprof_field_name aprof_field_names[];  /* ends with { 0, NULL } */

/* Split off the next space-separated token of [*s, end): its start and
 * length; false at the end of the line. */
static inline bool aprof_token(const char **s, const char *end, const char **tok, size_t *len)
{
	const char *p = *s;
	while (p < end && *p == ' ')
		p++;
	if (p == end)
		return false;
	const char *q = p;
	while (q < end && *q != ' ')
		q++;
	*tok = p;
	*len = (size_t)(q - p);
	*s = q;
	return true;
}

/* A token of decimal digits that fits 64 bits. */
bool aprof_parse_u64(const char *s, size_t n, uint64_t *out);

#endif
