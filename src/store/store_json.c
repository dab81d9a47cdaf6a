/* JSON texts for the store's columns for sqlite3 users (store_json.h). */
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
	if (!known)
		return store_json_put(s, "null", false);
	/* by hand: snprintf took a quarter of the time of these columns */
	char num[24], *d = num + sizeof num;
	int64_t i = store_u2i(v);
	uint64_t u = i < 0 ? (uint64_t)0 - v : v;
	*--d = '\0';
	do
		*--d = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (i < 0)
		*--d = '-';
	return store_json_put(s, d, false);
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
