/* Interned strings: each distinct string is stored once and named by a dense id. */
#include <string.h>

#include "model/index.h"

typedef struct probe {
	const char *s;
	size_t len;
} probe;

static bool str_eq(const void *ctx, uint32_t id, const void *key)
{
	const plumb_strtab *t = ctx;
	const probe *k = key;
	return t->lens.v[id] == k->len && memcmp(t->buf + t->off.v[id], k->s, k->len) == 0;
}

static plumb_id find(const plumb_strtab *t, const char *s, size_t len, uint32_t h)
{
	probe k = { s, len };
	return plumb_index_find(&t->ix, h, str_eq, t, &k);
}

plumb_id plumb_intern_n(plumb_profile *p, const char *s, size_t len)
{
	plumb_strtab *t = &p->strings;
	if (len > UINT32_MAX - 1)
		return PLUMB_NONE;
	uint32_t h = (uint32_t)plumb_hash_bytes(s, len);
	if (t->off.n >= PLUMB_NONE - 1)
		return find(t, s, len, h);
	/* Room for it first: the lookup records it when it is new. s may be
	 * in the table itself (a suffix of a path), which may move. */
	uintptr_t at = (uintptr_t)s - (uintptr_t)t->buf;
	bool inside = t->buf && (uintptr_t)s >= (uintptr_t)t->buf && at < t->len;
	size_t need = t->len + len + 1;
	if (need > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		while (cap < need)
			cap *= 2;
		char *nb = realloc(t->buf, cap);
		if (!nb)
			return PLUMB_NONE;
		t->buf = nb;
		t->cap = cap;
		if (inside)
			s = nb + at;
	}
	if (plumb_vec_reserve(t->off, t->off.n + 1) || plumb_vec_reserve(t->lens, t->lens.n + 1))
		return PLUMB_NONE;
	probe k = { s, len };
	bool added;
	plumb_id id = plumb_index_find_or_add(&t->ix, h, str_eq, t, &k, (plumb_id)t->off.n, &added);
	if (!added)
		return id;
	memcpy(t->buf + t->len, s, len);
	t->buf[t->len + len] = '\0';
	t->off.v[t->off.n++] = t->len;
	t->lens.v[t->lens.n++] = (uint32_t)len;
	t->len += len + 1;
	return id;
}

plumb_id plumb_intern(plumb_profile *p, const char *s)
{
	return s ? plumb_intern_n(p, s, strlen(s)) : PLUMB_NONE;
}

plumb_id plumb_string_find(const plumb_profile *p, const char *s)
{
	size_t len = strlen(s);
	return find(&p->strings, s, len, (uint32_t)plumb_hash_bytes(s, len));
}

const char *plumb_str(const plumb_profile *p, plumb_id id)
{
	if (id == PLUMB_NONE || id >= p->strings.off.n)
		return NULL;
	return p->strings.buf + p->strings.off.v[id];
}
