/* The order the off-CPU finish walks its records in: by thread, then by
 * time. qsort of 300,000 switch records took 80 ms of a 150,000-switch
 * recording (a callback per comparison, n log n of them). The records are
 * nearly in order already: each perf ring, and each thread's buffer of the
 * wait tracer, is in time order; only the threads are interleaved. So the
 * threads are told apart with the model's hash index, the records are
 * dealt to their thread stably (a counting sort), and each thread's slice
 * is merged from the ascending runs it holds: a few passes, comparisons
 * inlined. */
#include <stdlib.h>
#include <string.h>

#include "model/index.h"
#include "record/waits_order.h"

typedef struct thread_key {
	int32_t pid, tid;
	size_t count, start;
} thread_key;

typedef struct threads {
	PLUMB_VEC(thread_key) v;
	plumb_index ix;
} threads;

static bool thread_eq(const void *ctx, uint32_t id, const void *key)
{
	const thread_key *t = &((const threads *)ctx)->v.v[id], *k = key;
	return t->pid == k->pid && t->tid == k->tid;
}

static uint32_t thread_hash(int32_t pid, int32_t tid)
{
	return (uint32_t)plumb_hash_mix((uint64_t)(uint32_t)pid, (uint64_t)(uint32_t)tid);
}

/* The id of (pid, tid), added if new; UINT32_MAX on ENOMEM. */
static uint32_t thread_id(threads *th, int32_t pid, int32_t tid)
{
	thread_key k = { pid, tid, 0, 0 };
	uint32_t h = thread_hash(pid, tid);
	uint32_t id = plumb_index_find(&th->ix, h, thread_eq, th, &k);
	if (id != PLUMB_NONE)
		return id;
	id = (uint32_t)th->v.n;
	if (plumb_vec_push(th->v, k) || plumb_index_insert(&th->ix, h, id))
		return UINT32_MAX;
	return id;
}

static int by_pid_tid(const void *a, const void *b)
{
	const thread_key *x = *(thread_key *const *)a, *y = *(thread_key *const *)b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Stable merge sort of k[0..n) by time that merges the ascending runs
 * already there: log2(runs) passes. tmp has room for n. */
static void merge_runs(plumb_order_key *k, plumb_order_key *tmp, size_t n)
{
	plumb_order_key *src = k, *dst = tmp;
	for (;;) {
		size_t runs = 0;
		for (size_t i = 0; i < n; runs++) {
			size_t m = i + 1;
			while (m < n && src[m].time >= src[m - 1].time)
				m++;
			size_t e = m;
			if (m < n)
				for (e = m + 1; e < n && src[e].time >= src[e - 1].time; e++)
					;
			size_t a = i, b = m, o = i;
			while (a < m && b < e)
				dst[o++] = src[b].time < src[a].time ? src[b++] : src[a++];
			while (a < m)
				dst[o++] = src[a++];
			while (b < e)
				dst[o++] = src[b++];
			i = e;
		}
		plumb_order_key *t = src;
		src = dst;
		dst = t;
		if (runs <= 1)
			break;
	}
	if (src != k)
		memcpy(k, src, n * sizeof *k);
}

int plumb_order_by_thread_time(plumb_order_key *k, size_t n)
{
	if (n < 2)
		return 0;
	threads th = { { NULL, 0, 0 }, { NULL, 0, 0 } };
	plumb_order_key *tmp = malloc(n * sizeof *tmp);
	uint32_t *ids = malloc(n * sizeof *ids);
	thread_key **sorted = NULL;
	int rc = -1;
	if (!tmp || !ids)
		goto out;
	uint32_t last = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		/* a run of one thread's records skips the lookup */
		if (last == UINT32_MAX || th.v.v[last].pid != k[i].pid || th.v.v[last].tid != k[i].tid)
			if ((last = thread_id(&th, k[i].pid, k[i].tid)) == UINT32_MAX)
				goto out;
		ids[i] = last;
		th.v.v[last].count++;
	}
	if (!(sorted = malloc(th.v.n * sizeof *sorted)))
		goto out;
	for (size_t t = 0; t < th.v.n; t++)
		sorted[t] = &th.v.v[t];
	qsort(sorted, th.v.n, sizeof *sorted, by_pid_tid);
	size_t at = 0;
	for (size_t t = 0; t < th.v.n; t++) {
		sorted[t]->start = at;
		at += sorted[t]->count;
	}
	for (size_t i = 0; i < n; i++)
		tmp[th.v.v[ids[i]].start++] = k[i];
	memcpy(k, tmp, n * sizeof *k);
	at = 0;
	for (size_t t = 0; t < th.v.n; t++) {
		merge_runs(k + at, tmp, sorted[t]->count);
		at += sorted[t]->count;
	}
	rc = 0;
out:
	free(sorted);
	free(ids);
	free(tmp);
	free(th.v.v);
	plumb_index_free(&th.ix);
	return rc;
}

int plumb_order_apply(void *v, size_t n, size_t size, const plumb_order_key *k)
{
	if (n < 2)
		return 0;
	char *out = malloc(n * size);
	if (!out)
		return -1;
	for (size_t i = 0; i < n; i++)
		memcpy(out + i * size, (const char *)v + (size_t)k[i].index * size, size);
	memcpy(v, out, n * size);
	free(out);
	return 0;
}
