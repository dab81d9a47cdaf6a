/* Raw recorded data: samples with address chains, maps, threads. */
#include <stdlib.h>
#include <string.h>

#include "model/hash.h"
#include "model/index.h"
#include "plumb/record.h"

/* ---- chains stored once -------------------------------------------------- */

typedef struct chain_slot {
	uint64_t hash;         /* 0: empty */
	size_t ips;
	uint32_t nips;
	int32_t pid;
} chain_slot;

struct plumb_rec_chain_ix {
	chain_slot *slots;
	size_t cap, n;
};

plumb_rec_data *plumb_rec_data_new(void)
{
	return calloc(1, sizeof(plumb_rec_data));
}

void plumb_rec_data_free(plumb_rec_data *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->events.n; i++)
		free(d->events.v[i]);
	for (size_t i = 0; i < d->maps.n; i++)
		free(d->maps.v[i].path);
	for (size_t i = 0; i < d->meta.n; i++)
		free(d->meta.v[i]);
	free(d->meta.v);
	free(d->events.v);
	free(d->periods);
	free(d->counts);
	free(d->samples.v);
	free(d->ips.v);
	free(d->maps.v);
	free(d->threads.v);
	if (d->chain_ix)
		free(d->chain_ix->slots);
	free(d->chain_ix);
	plumb_rec_waits_free(d->waits);
	free(d);
}

int plumb_rec_event_add(plumb_rec_data *d, const char *name, plumb_error *err)
{
	char *s = strdup(name);
	uint64_t *periods = realloc(d->periods, (d->events.n + 1) * sizeof *periods);
	if (periods)
		d->periods = periods;
	uint64_t *counts = periods ? realloc(d->counts, (d->events.n + 1) * sizeof *counts) : NULL;
	if (counts)
		d->counts = counts;
	if (!s || !periods || !counts || plumb_vec_reserve(d->events, d->events.n + 1)) {
		free(s);
		return plumb_fail_nomem(err);
	}
	d->periods[d->events.n] = 0;
	d->counts[d->events.n] = 0;
	d->events.v[d->events.n] = s;
	return (int)d->events.n++;
}

int plumb_rec_meta_add(plumb_rec_data *d, const char *key, const char *value, plumb_error *err)
{
	size_t k = strlen(key), v = strlen(value);
	char *s = malloc(k + v + 2);
	if (!s || plumb_vec_reserve(d->meta, d->meta.n + 1)) {
		free(s);
		return plumb_fail_nomem(err);
	}
	memcpy(s, key, k);
	s[k] = '\t';
	memcpy(s + k + 1, value, v + 1);
	d->meta.v[d->meta.n++] = s;
	return 0;
}

/* 0 marks an empty slot, so no chain hashes to it. A word at a time: a
 * heap recording stores a chain of some 40 addresses per allocation site. */
static uint64_t chain_hash(int32_t pid, const uint64_t *c, size_t n)
{
	uint64_t h = (uint32_t)pid;
	for (size_t i = 0; i < n; i++)
		h = plumb_hash_mix(h, c[i]);
	h = plumb_hash_mix(h, n);
	return h ? h : 1;
}

static int chain_ix_grow(struct plumb_rec_chain_ix *ix)
{
	size_t cap = ix->cap ? 2 * ix->cap : 1024;
	chain_slot *v = calloc(cap, sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < ix->cap; i++) {
		if (!ix->slots[i].hash)
			continue;
		size_t j = ix->slots[i].hash & (cap - 1);
		while (v[j].hash)
			j = (j + 1) & (cap - 1);
		v[j] = ix->slots[i];
	}
	free(ix->slots);
	ix->slots = v;
	ix->cap = cap;
	return 0;
}

/* Where chain c of pid is stored: an equal one already kept, or a new copy
 * at the end of d->ips. (size_t)-1 on ENOMEM. */
static size_t chain_store(plumb_rec_data *d, int32_t pid, const uint64_t *c, size_t n)
{
	if (!d->chain_ix && !(d->chain_ix = calloc(1, sizeof *d->chain_ix)))
		return (size_t)-1;
	struct plumb_rec_chain_ix *ix = d->chain_ix;
	if ((ix->n + 1) * 2 > ix->cap && chain_ix_grow(ix))
		return (size_t)-1;
	uint64_t h = chain_hash(pid, c, n);
	size_t j = h & (ix->cap - 1);
	for (; ix->slots[j].hash; j = (j + 1) & (ix->cap - 1)) {
		const chain_slot *sl = &ix->slots[j];
		if (sl->hash == h && sl->pid == pid && sl->nips == n &&
		    memcmp(d->ips.v + sl->ips, c, n * sizeof *c) == 0)
			return sl->ips;
	}
	if (plumb_vec_reserve(d->ips, d->ips.n + n))
		return (size_t)-1;
	size_t at = d->ips.n;
	memcpy(d->ips.v + at, c, n * sizeof *c);
	d->ips.n += n;
	ix->slots[j] = (chain_slot){ h, at, (uint32_t)n, pid };
	ix->n++;
	return at;
}

int plumb_rec_sample_add(plumb_rec_data *d, int32_t pid, int32_t tid, uint64_t time_ns,
			 uint32_t event, uint64_t weight, const uint64_t *chain, size_t n,
			 uint32_t flags, plumb_error *err)
{
	if (event >= d->events.n)
		return plumb_fail(err, PLUMB_ERR_USAGE, "sample of event %u: only %zu events", event,
				  d->events.n);
	/* the chain of the sample before, again (a heap site's events): kept
	 * once, found without hashing it */
	const plumb_rec_sample *last = d->samples.n ? &d->samples.v[d->samples.n - 1] : NULL;
	size_t at = !n ? 0
		    : last && last->pid == pid && last->nips == n &&
				      memcmp(d->ips.v + last->ips, chain, n * sizeof *chain) == 0
			    ? last->ips
			    : chain_store(d, pid, chain, n);
	if (at == (size_t)-1 || plumb_vec_reserve(d->samples, d->samples.n + 1))
		return plumb_fail_nomem(err);
	d->samples.v[d->samples.n++] =
		(plumb_rec_sample){ pid, tid, time_ns, event, flags, weight, at, (uint32_t)n };
	return 0;
}

static void hex(const uint8_t *b, size_t n, char out[41])
{
	static const char digits[] = "0123456789abcdef";
	if (n > 20)
		n = 20;
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = 0;
}

static int map_push(plumb_rec_data *d, const plumb_rec_map *m, plumb_error *err)
{
	char *path = strdup(m->path);
	if (!path || plumb_vec_reserve(d->maps, d->maps.n + 1)) {
		free(path);
		return plumb_fail_nomem(err);
	}
	d->maps.v[d->maps.n] = *m;
	d->maps.v[d->maps.n++].path = path;
	return 0;
}

int plumb_rec_map_add(plumb_rec_data *d, int32_t pid, uint64_t time_ns, uint64_t start,
		      uint64_t len, uint64_t pgoff, const char *path, const uint8_t *build_id,
		      size_t build_id_len, plumb_error *err)
{
	plumb_rec_map m = { pid, start, start + len, pgoff, time_ns, UINT64_MAX, (char *)path, "" };
	if (build_id && build_id_len)
		hex(build_id, build_id_len, m.build_id);
	/* A new mapping over an old range replaces it from now on. */
	for (size_t i = 0; i < d->maps.n; i++) {
		plumb_rec_map *o = &d->maps.v[i];
		if (o->pid == pid && o->end_ns == UINT64_MAX && o->start < m.end && m.start < o->end)
			o->end_ns = time_ns;
	}
	return map_push(d, &m, err);
}

int plumb_rec_fork(plumb_rec_data *d, int32_t ppid, int32_t pid, uint64_t time_ns,
		   plumb_error *err)
{
	size_t n = d->maps.n;
	for (size_t i = 0; i < n; i++) {
		plumb_rec_map m = d->maps.v[i];
		if (m.pid != ppid || m.end_ns <= time_ns)
			continue;
		m.pid = pid;
		m.time_ns = time_ns;
		if (map_push(d, &m, err))
			return -1;
	}
	return 0;
}

void plumb_rec_exec(plumb_rec_data *d, int32_t pid, uint64_t time_ns)
{
	for (size_t i = 0; i < d->maps.n; i++) {
		plumb_rec_map *m = &d->maps.v[i];
		if (m->pid == pid && m->end_ns > time_ns && m->time_ns < time_ns)
			m->end_ns = time_ns;
	}
}

int plumb_rec_thread_set(plumb_rec_data *d, int32_t pid, int32_t tid, const char *name,
			 uint64_t start_routine, plumb_error *err)
{
	plumb_rec_thread *t = NULL;
	for (size_t i = d->threads.n; i-- > 0;)
		if (d->threads.v[i].tid == tid && d->threads.v[i].pid == pid) {
			t = &d->threads.v[i];
			break;
		}
	if (!t) {
		if (plumb_vec_reserve(d->threads, d->threads.n + 1))
			return plumb_fail_nomem(err);
		t = &d->threads.v[d->threads.n++];
		*t = (plumb_rec_thread){ pid, tid, "", 0 };
	}
	if (name) {
		strncpy(t->name, name, sizeof t->name - 1);
		t->name[sizeof t->name - 1] = 0;
	}
	if (start_routine)
		t->start_routine = start_routine;
	return 0;
}

const plumb_rec_map *plumb_rec_map_find(const plumb_rec_data *d, int32_t pid, uint64_t addr,
					uint64_t t)
{
	const plumb_rec_map *best = NULL;
	for (size_t i = 0; i < d->maps.n; i++) {
		const plumb_rec_map *m = &d->maps.v[i];
		if (m->pid != pid || addr < m->start || addr >= m->end)
			continue;
		if (t >= m->time_ns && t < m->end_ns)
			return m;
		/* a sample that raced its mmap record: the latest candidate */
		if (!best || m->time_ns > best->time_ns)
			best = m;
	}
	return best;
}
