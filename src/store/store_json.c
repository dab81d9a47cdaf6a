/* JSON texts for the store's columns for sqlite3 users (store_json.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_json.h"
#include "store/store_private.h"

int store_json_put(store_json *s, const char *str, bool end)
{
	size_t n = strlen(str) + end;
	if (s->cap - s->len < n) {
		size_t cap = s->cap ? s->cap : 4096;
		while (cap - s->len < n)
			cap *= 2;
		char *t = realloc(s->text, cap);
		if (!t)
			return -1;
		s->text = t;
		s->cap = cap;
	}
	memcpy(s->text + s->len, str, n);
	s->len += n;
	return 0;
}

int store_json_value(store_json *s, uint64_t v, bool known)
{
	char num[24];
	snprintf(num, sizeof num, "%" PRId64, store_u2i(v));
	return store_json_put(s, known ? num : "null", false);
}

int store_json_costs(store_json *s, const uint64_t *v, size_t n, bool end)
{
	int ret = store_json_put(s, "[", false);
	for (size_t e = 0; e < n && !ret; e++)
		ret = (e && store_json_put(s, ",", false)) || store_json_value(s, v[e], v[e] != UINT64_MAX);
	return ret || store_json_put(s, "]", end);
}

void store_json_free(store_json *s)
{
	free(s->text);
	*s = (store_json){ 0 };
}

void store_add_held(uint64_t *dst, const uint64_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = dst[i] > UINT64_MAX - src[i] ? UINT64_MAX : dst[i] + src[i];
}
