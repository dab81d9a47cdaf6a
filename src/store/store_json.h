/* Private to src/store: JSON texts for the columns written for sqlite3
 * users (store_summary.c, store_lines.c, store_stacks.c), built back to
 * back in one buffer: each text ends with its NUL. */
#ifndef PLUMB_STORE_JSON_H
#define PLUMB_STORE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct store_json {
	char *text;
	size_t len, cap;
} store_json;

/* Append str (and its NUL when end): 0, or -1 on ENOMEM. */
int store_json_put(store_json *s, const char *str, bool end);
/* Append a u64 as the int64 of the same bits (the store's convention),
 * or null when not known. */
int store_json_value(store_json *s, uint64_t v, bool known);
/* Append v[0..n) as a JSON array ("[1,2,3]"), a slot at UINT64_MAX as
 * null (a sum held there, too big to say); with end, its NUL. */
int store_json_costs(store_json *s, const uint64_t *v, size_t n, bool end);
void store_json_free(store_json *s);

/* dst += src, slot by slot, held at UINT64_MAX (written as null) instead
 * of wrapping. */
static inline void store_add_held(uint64_t *dst, const uint64_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = dst[i] > UINT64_MAX - src[i] ? UINT64_MAX : dst[i] + src[i];
}

#endif
