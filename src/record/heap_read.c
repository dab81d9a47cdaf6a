/* Reading heap tracing records (src/preload/format.h, HEAP_*): per process
 * image, every thread's events are merged in their process-wide order and
 * replayed against a map of the live blocks and mappings. That gives, per
 * allocation stack, exact counts and bytes, the blocks freed before their
 * thread allocated again (temporaries), what was live at the moment the
 * image's heap peaked and what was still live when it ended (leaks).
 *
 * The bytes live at the peak, per stack, are kept lazily: a stack's value is
 * taken when it first changes after a new peak (it had that value at the
 * peak) or at the end, so a new peak costs nothing however many stacks
 * there are.
 *
 * Sampled images (--heap=sample:R): a sampled block of size Z stands for
 * 1 / (1 - exp(-Z/R)) blocks and Z times that many bytes (Horvitz-Thompson,
 * as jemalloc and Go unbias their samples). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/index.h"
#include "preload/format.h"
#include "record/heap.h"

static const char *const event_names[HEAP_EV_COUNT] = {
	"allocs", "alloc-bytes", "peak-bytes", "leaks", "leak-bytes", "temp-allocs", "mmap-bytes",
};

int plumb_heap_events_add(plumb_rec_data *d, plumb_error *err)
{
	int first = -1;
	for (int i = 0; i < HEAP_EV_COUNT; i++) {
		int e = plumb_rec_event_add(d, event_names[i], err);
		if (e < 0)
			return -1;
		if (i == 0)
			first = e;
	}
	return first;
}

const char *plumb_heap_event_unit(const char *name)
{
	size_t n = strlen(name);
	if (n > 6 && strcmp(name + n - 6, "-bytes") == 0)
		return "bytes";
	if (strcmp(name, "allocs") == 0 || strcmp(name, "leaks") == 0 || strcmp(name, "temp-allocs") == 0)
		return "allocations";
	return "samples";
}

/* ---- state of one image ------------------------------------------------------- */

typedef struct site {
	int32_t tid;
	uint32_t id;
	size_t chain;              /* byte offset of its frames in the file */
	uint32_t n, flags;
	uint64_t time_ns;          /* first event */
	uint64_t ver;              /* peak version at_peak belongs to */
	double allocs, bytes, temps, live, at_peak, leaks, leak_bytes, mmap_bytes;
} site;

/* 32 bytes, two to a cache line: the table is the replay's working set
 * (its weight follows from its size) */
typedef struct block {
	uint64_t ptr;              /* 0: empty slot */
	uint64_t size, seq;
	uint32_t site, thr;
} block;

typedef struct mapping {
	uint64_t start, end;
	uint32_t site;
} mapping;

typedef struct thr {
	int32_t tid;
	uint64_t last_alloc;       /* seq of its latest allocation */
} thr;

typedef struct evrec {
	size_t off;                /* of the record in the file */
	uint32_t len;
	uint64_t time0;
} evrec;

typedef struct cursor {
	int32_t tid;
	PLUMB_VEC(evrec) recs;
	size_t ri, pos, end, base;
	uint64_t seq, ptr, now;
	/* the last site this thread's allocations went to, and its sites by
	 * stack number (+ 1; 0 not seen yet): numbers are dense per thread */
	uint64_t last_stack;
	uint32_t last_site;
	PLUMB_VEC(uint32_t) by_id;
	/* the next event */
	bool has;
	unsigned kind;
	uint64_t eseq, eptr, size, stack, old, old_len;
} cursor;

#define HIST 65

typedef struct rd {
	const char *name;
	const unsigned char *b;
	size_t n;
	plumb_rec_data *d;
	uint32_t first;
	plumb_heap_info *info;
	plumb_error *err;
	/* the image */
	bool have_image, heap_on;
	int32_t pid;
	uint64_t t0;
	char exe[512];
	uint32_t mode, flags;
	uint64_t sample_bytes;
	PLUMB_VEC(site) sites;
	plumb_index site_ix;
	PLUMB_VEC(uint64_t) chain;  /* a chain not aligned in the file, copied */
	PLUMB_VEC(cursor) cur;
	PLUMB_VEC(thr) thrs;
	block *blocks;
	size_t bcap, bn;
	PLUMB_VEC(mapping) maps;
	/* replay */
	double live, peak, peak_mmap, live_mmap, hist[HIST];
	uint64_t version, peak_time, now, events;
} rd;

static int bad(rd *r, size_t off, const char *what)
{
	return plumb_fail(r->err, PLUMB_ERR_FORMAT, "%s: byte offset %zu: %s", r->name, off, what);
}

typedef struct site_key {
	int32_t tid;
	uint32_t id;
} site_key;

static uint32_t site_hash(int32_t tid, uint32_t id)
{
	return (uint32_t)plumb_hash_mix((uint64_t)(uint32_t)tid, id);
}

static bool site_eq(const void *ctx, uint32_t i, const void *key)
{
	const rd *r = ctx;
	const site_key *k = key;
	return r->sites.v[i].tid == k->tid && r->sites.v[i].id == k->id;
}

/* The site of (tid, id), made on first sight; UINT32_MAX on ENOMEM. */
static uint32_t site_of(rd *r, int32_t tid, uint32_t id)
{
	site_key k = { tid, id };
	uint32_t h = site_hash(tid, id);
	uint32_t i = plumb_index_find(&r->site_ix, h, site_eq, r, &k);
	if (i != PLUMB_NONE)
		return i;
	if (plumb_vec_reserve(r->sites, r->sites.n + 1) ||
	    plumb_index_insert(&r->site_ix, h, (uint32_t)r->sites.n)) {
		plumb_fail_nomem(r->err);
		return UINT32_MAX;
	}
	site *s = &r->sites.v[r->sites.n];
	memset(s, 0, sizeof *s);
	s->tid = tid;
	s->id = id;
	s->time_ns = UINT64_MAX;
	s->ver = r->version;
	return (uint32_t)r->sites.n++;
}

static thr *thread_of(rd *r, int32_t tid)
{
	for (size_t i = r->thrs.n; i-- > 0;)
		if (r->thrs.v[i].tid == tid)
			return &r->thrs.v[i];
	if (plumb_vec_push(r->thrs, ((thr){ tid, 0 })))
		return NULL;
	return &r->thrs.v[r->thrs.n - 1];
}

/* ---- live blocks: open addressing, deletion by backward shift ------------------ */

static size_t block_home(const rd *r, uint64_t p)
{
	return (size_t)plumb_hash_mix(p, 0) & (r->bcap - 1);
}

static int blocks_grow(rd *r)
{
	size_t cap = r->bcap ? 2 * r->bcap : 4096;
	block *nb = calloc(cap, sizeof *nb);
	if (!nb)
		return -1;
	block *old = r->blocks;
	size_t ocap = r->bcap;
	r->blocks = nb;
	r->bcap = cap;
	for (size_t i = 0; i < ocap; i++) {
		if (!old[i].ptr)
			continue;
		size_t j = block_home(r, old[i].ptr);
		while (nb[j].ptr)
			j = (j + 1) & (cap - 1);
		nb[j] = old[i];
	}
	free(old);
	return 0;
}

static block *block_find(rd *r, uint64_t p)
{
	if (!r->bcap)
		return NULL;
	for (size_t j = block_home(r, p); r->blocks[j].ptr; j = (j + 1) & (r->bcap - 1))
		if (r->blocks[j].ptr == p)
			return &r->blocks[j];
	return NULL;
}

static void block_remove(rd *r, block *b)
{
	size_t i = (size_t)(b - r->blocks), mask = r->bcap - 1;
	r->blocks[i].ptr = 0;
	r->bn--;
	for (size_t j = (i + 1) & mask; r->blocks[j].ptr; j = (j + 1) & mask) {
		size_t h = block_home(r, r->blocks[j].ptr);
		/* move j back to the hole when its home is not in (i, j] */
		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			r->blocks[i] = r->blocks[j];
			r->blocks[j].ptr = 0;
			i = j;
		}
	}
}

/* ---- replay ------------------------------------------------------------------ */

/* A site's live bytes change by delta (after its value at the last peak is
 * kept); a new peak of the image's total starts a new version. */
static void live_change(rd *r, site *s, double delta)
{
	if (s->ver != r->version) {
		s->at_peak = s->live;
		s->ver = r->version;
	}
	s->live += delta;
	r->live += delta;
	if (delta > 0 && r->live > r->peak) {
		r->peak = r->live;
		r->peak_mmap = r->live_mmap;
		r->peak_time = r->now;
		r->version++;
	}
}

static double weight(const rd *r, uint64_t size)
{
	if (r->mode != PSMP_HEAP_SAMPLED || !r->sample_bytes)
		return 1;
	double p = -expm1(-(double)(size ? size : 1) / (double)r->sample_bytes);
	return p > 0 ? 1 / p : 1;
}

static unsigned hist_bucket(uint64_t size)
{
	return size ? 64u - (unsigned)__builtin_clzll(size) : 0;
}

static void free_block(rd *r, block *b, bool temp_flag)
{
	site *s = &r->sites.v[b->site];
	bool temp = r->mode == PSMP_HEAP_SAMPLED ? temp_flag
						 : r->thrs.v[b->thr].last_alloc == b->seq;
	double w = weight(r, b->size);
	if (temp)
		s->temps += w;
	live_change(r, s, -(double)b->size * w);
	block_remove(r, b);
}

static void touch(rd *r, site *s)
{
	if (s->time_ns == UINT64_MAX)
		s->time_ns = r->now;
}

/* The site of c's allocation: no hashing for a stack number seen before
 * (kept for numbers up to the number of sites, so a stray big number in a
 * file costs no memory). */
static uint32_t cursor_site(rd *r, cursor *c)
{
	uint64_t id = c->stack;
	if (id < c->by_id.n && c->by_id.v[id])
		return c->by_id.v[id] - 1;
	uint32_t si = site_of(r, c->tid, (uint32_t)id);
	if (si == UINT32_MAX || id > r->sites.n + 1024 || plumb_vec_reserve(c->by_id, id + 1))
		return si;
	while (c->by_id.n <= id)
		c->by_id.v[c->by_id.n++] = 0;
	c->by_id.v[id] = si + 1;
	return si;
}

static int on_alloc(rd *r, cursor *c)
{
	uint32_t si = c->last_site != UINT32_MAX && c->last_stack == c->stack ? c->last_site
									       : cursor_site(r, c);
	c->last_stack = c->stack;
	c->last_site = si;
	thr *t = thread_of(r, c->tid);
	if (si == UINT32_MAX || !t)
		return plumb_fail_nomem(r->err);
	block *old = block_find(r, c->eptr);
	if (old)
		free_block(r, old, false);   /* its free was not seen */
	if ((r->bn + 1) * 2 > r->bcap && blocks_grow(r))
		return plumb_fail_nomem(r->err);
	site *s = &r->sites.v[si];
	double w = weight(r, c->size);
	touch(r, s);
	s->allocs += w;
	s->bytes += (double)c->size * w;
	r->hist[hist_bucket(c->size)] += w;
	t->last_alloc = c->eseq;
	size_t j = block_home(r, c->eptr);
	while (r->blocks[j].ptr)
		j = (j + 1) & (r->bcap - 1);
	r->blocks[j] = (block){ c->eptr, c->size, c->eseq, si, (uint32_t)(t - r->thrs.v) };
	r->bn++;
	live_change(r, s, (double)c->size * w);
	return 0;
}

/* Take [start, end) out of the recorded mappings. */
static int unmap(rd *r, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < r->maps.n;) {
		mapping *m = &r->maps.v[i];
		if (m->end <= start || m->start >= end) {
			i++;
			continue;
		}
		uint64_t lo = m->start > start ? m->start : start, hi = m->end < end ? m->end : end;
		site *s = &r->sites.v[m->site];
		r->live_mmap -= (double)(hi - lo);
		live_change(r, s, -(double)(hi - lo));
		if (m->start < lo && m->end > hi) {   /* a hole in the middle: two pieces */
			mapping tail = { hi, m->end, m->site };
			m->end = lo;
			if (plumb_vec_push(r->maps, tail))
				return plumb_fail_nomem(r->err);
			i++;
		} else if (m->start < lo) {
			m->end = lo;
			i++;
		} else if (m->end > hi) {
			m->start = hi;
			i++;
		} else {
			r->maps.v[i] = r->maps.v[--r->maps.n];
		}
	}
	return 0;
}

static int on_map(rd *r, cursor *c)
{
	if (c->kind == PSMP_HEAP_MREMAP) {
		double before = r->live_mmap;
		if (unmap(r, c->old, c->old + c->old_len))
			return -1;
		if (before == r->live_mmap)
			return 0;   /* not a mapping we know: not ours to count */
	}
	if (unmap(r, c->eptr, c->eptr + c->size))
		return -1;
	uint32_t si = site_of(r, c->tid, (uint32_t)c->stack);
	if (si == UINT32_MAX || plumb_vec_push(r->maps, ((mapping){ c->eptr, c->eptr + c->size, si })))
		return plumb_fail_nomem(r->err);
	site *s = &r->sites.v[si];
	touch(r, s);
	s->allocs += 1;
	s->bytes += (double)c->size;
	s->mmap_bytes += (double)c->size;
	r->live_mmap += (double)c->size;
	live_change(r, s, (double)c->size);
	return 0;
}

static int replay(rd *r, cursor *c)
{
	r->now = c->now;
	r->events++;
	switch (c->kind) {
	case PSMP_HEAP_ALLOC:
		return on_alloc(r, c);
	case PSMP_HEAP_FREE:
	case PSMP_HEAP_FREE_TEMP: {
		block *b = block_find(r, c->eptr);
		if (b)
			free_block(r, b, c->kind == PSMP_HEAP_FREE_TEMP);
		return 0;   /* else allocated before tracing began */
	}
	case PSMP_HEAP_MMAP:
	case PSMP_HEAP_MREMAP:
		return on_map(r, c);
	case PSMP_HEAP_MUNMAP:
		return unmap(r, c->eptr, c->eptr + c->size);
	}
	return 0;
}

/* ---- decoding ------------------------------------------------------------------- */

static __attribute__((noinline)) int get_slow(rd *r, cursor *c, uint64_t *v)
{
	uint64_t x = 0;
	for (unsigned sh = 0; sh < 64; sh += 7) {
		if (c->pos >= c->end)
			return bad(r, c->pos, "HEAP_EVENTS record: an event runs past the record's end");
		unsigned char b = r->b[c->pos++];
		x |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return bad(r, c->pos, "HEAP_EVENTS record: a number longer than 64 bits");
}

static inline __attribute__((always_inline)) int get(rd *r, cursor *c, uint64_t *v)
{
	/* most numbers are deltas under 128: one byte */
	if (c->pos < c->end && r->b[c->pos] < 0x80) {
		*v = r->b[c->pos++];
		return 0;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Pointer deltas take 2 to 8 bytes (1.4 a event on cc1plus, and the
	 * byte loop was a fifth of the replay's instructions): with 8 bytes to
	 * read, find the last one and gather the 7-bit groups in three steps. */
	if (c->end - c->pos >= 8) {
		uint64_t u;
		memcpy(&u, r->b + c->pos, 8);
		uint64_t stop = ~u & 0x8080808080808080u;
		if (stop) {
			unsigned len = (unsigned)__builtin_ctzll(stop) / 8 + 1;
			if (len < 8)
				u &= ((uint64_t)1 << (8 * len)) - 1;
			u = ((u & 0x7f007f007f007f00u) >> 1) | (u & 0x007f007f007f007fu);
			u = ((u & 0x3fff00003fff0000u) >> 2) | (u & 0x00003fff00003fffu);
			u = ((u & 0x0fffffff00000000u) >> 4) | (u & 0x000000000fffffffu);
			*v = u;
			c->pos += len;
			return 0;
		}
	}
#endif
	return get_slow(r, c, v);
}

static uint64_t unzig(uint64_t prev, uint64_t z)
{
	int64_t d = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
	return prev + (uint64_t)d;
}

/* Decode c's next event into c (c->has false at its end). */
static int next_event(rd *r, cursor *c)
{
	for (;;) {
		while (c->pos >= c->end) {
			if (c->ri == c->recs.n) {
				c->has = false;
				return 0;
			}
			const evrec *e = &c->recs.v[c->ri++];
			c->pos = e->off + sizeof(struct psmp_heap_events);
			c->end = c->pos + e->len;
			c->seq = c->ptr = 0;
			c->now = c->base = e->time0;
		}
		size_t at = c->pos;
		unsigned kind = r->b[c->pos++];
		uint64_t v = 0, dseq = 0, dptr = 0;
		if (kind == PSMP_HEAP_TIME) {
			if (get(r, c, &v))
				return -1;
			c->now = c->base + v;
			continue;
		}
		if (kind < PSMP_HEAP_ALLOC || kind > PSMP_HEAP_MREMAP)
			return bad(r, at, "HEAP_EVENTS record: unknown event kind");
		if (get(r, c, &dseq) || get(r, c, &dptr))
			return -1;
		if (dseq == 0 && c->seq)
			return bad(r, at, "HEAP_EVENTS record: events out of order");
		c->seq += dseq;
		c->ptr = unzig(c->ptr, dptr);
		c->kind = kind;
		c->eseq = c->seq;
		c->eptr = c->ptr;
		c->size = c->stack = c->old = c->old_len = 0;
		if (kind == PSMP_HEAP_ALLOC || kind == PSMP_HEAP_MMAP || kind == PSMP_HEAP_MUNMAP ||
		    kind == PSMP_HEAP_MREMAP)
			if (get(r, c, &c->size))
				return -1;
		if (kind == PSMP_HEAP_ALLOC || kind == PSMP_HEAP_MMAP || kind == PSMP_HEAP_MREMAP)
			if (get(r, c, &c->stack))
				return -1;
		if (kind == PSMP_HEAP_MREMAP && (get(r, c, &c->old) || get(r, c, &c->old_len)))
			return -1;
		c->has = true;
		return 0;
	}
}

/* ---- one image: merge the threads' events by sequence number ------------------ */

static bool before(const rd *r, size_t a, size_t b)
{
	return r->cur.v[a].eseq < r->cur.v[b].eseq;
}

static void sift_down(rd *r, size_t *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && before(r, h[l], h[m]))
			m = l;
		if (l + 1 < n && before(r, h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		size_t t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static int merge(rd *r)
{
	size_t n = 0, *h = malloc((r->cur.n ? r->cur.n : 1) * sizeof *h);
	if (!h)
		return plumb_fail_nomem(r->err);
	int rc = 0;
	for (size_t i = 0; i < r->cur.n && rc == 0; i++) {
		rc = next_event(r, &r->cur.v[i]);
		if (rc == 0 && r->cur.v[i].has)
			h[n++] = i;
	}
	for (size_t i = n / 2; i-- > 0;)
		sift_down(r, h, n, i);
	while (rc == 0 && n) {
		cursor *c = &r->cur.v[h[0]];
		rc = replay(r, c);
		if (rc == 0)
			rc = next_event(r, c);
		if (rc == 0 && !c->has)
			h[0] = h[--n];
		sift_down(r, h, n, 0);
	}
	free(h);
	return rc;
}

static int add_meta(rd *r, double totals[HEAP_EV_COUNT])
{
	char key[64], val[8192];
	int len = snprintf(val, sizeof val,
			   "pid=%d mode=%s sample_bytes=%" PRIu64 " peak_bytes=%.0f peak_mmap_bytes=%.0f "
			   "peak_s=%.6f allocs=%.0f alloc_bytes=%.0f temp_allocs=%.0f leaks=%.0f "
			   "leak_bytes=%.0f mmap_bytes=%.0f hist=",
			   (int)r->pid, r->mode == PSMP_HEAP_SAMPLED ? "sampled" : "exact",
			   r->sample_bytes, r->peak, r->peak_mmap,
			   r->peak_time > r->t0 ? (double)(r->peak_time - r->t0) / 1e9 : 0.0,
			   totals[HEAP_EV_ALLOCS], totals[HEAP_EV_ALLOC_BYTES], totals[HEAP_EV_TEMP_ALLOCS],
			   totals[HEAP_EV_LEAKS], totals[HEAP_EV_LEAK_BYTES], totals[HEAP_EV_MMAP_BYTES]);
	const char *sep = "";
	for (unsigned i = 0; i < HIST && len > 0 && (size_t)len < sizeof val - 64; i++) {
		if (r->hist[i] < 0.5)
			continue;
		len += snprintf(val + len, sizeof val - (size_t)len, "%s%u:%.0f", sep, i, r->hist[i]);
		sep = ",";
	}
	if (len > 0 && (size_t)len < sizeof val - 32)
		snprintf(val + len, sizeof val - (size_t)len, " exe=%s", r->exe);
	snprintf(key, sizeof key, "heap.image.%u", r->info->next_image++);
	return plumb_rec_meta_add(r->d, key, val, r->err);
}

static int emit_sites(rd *r)
{
	double totals[HEAP_EV_COUNT] = { 0 };
	uint64_t unknown = 0;
	for (size_t i = 0; i < r->sites.n; i++) {
		site *s = &r->sites.v[i];
		if (s->ver != r->version)
			s->at_peak = s->live;
		double v[HEAP_EV_COUNT] = { s->allocs, s->bytes, s->at_peak, s->leaks, s->leak_bytes,
					    s->temps, s->mmap_bytes };
		/* the frames where the file has them (read in place: not copied
		 * once more before plumb_rec_sample_add keeps them) */
		const uint64_t *chain = &unknown;
		size_t n = s->n ? s->n : 1;
		if (s->n && (uintptr_t)(r->b + s->chain) % _Alignof(uint64_t) == 0) {
			chain = (const uint64_t *)(const void *)(r->b + s->chain);
		} else if (s->n) {
			if (plumb_vec_reserve(r->chain, n))
				return plumb_fail_nomem(r->err);
			memcpy(r->chain.v, r->b + s->chain, n * sizeof *r->chain.v);
			chain = r->chain.v;
		}
		for (int e = 0; e < HEAP_EV_COUNT; e++) {
			uint64_t w = (uint64_t)llround(v[e]);
			totals[e] += (double)w;
			if (w && plumb_rec_sample_add(r->d, r->pid, s->tid,
						      s->time_ns == UINT64_MAX ? r->t0 : s->time_ns,
						      r->first + (uint32_t)e, w, chain, n,
						      (s->flags & PSMP_SAMPLE_TRUNCATED) ? PLUMB_REC_TRUNCATED : 0,
						      r->err))
				return -1;
		}
	}
	return add_meta(r, totals);
}

static void reset_image(rd *r)
{
	r->sites.n = 0;
	plumb_index_free(&r->site_ix);
	memset(&r->site_ix, 0, sizeof r->site_ix);
	for (size_t i = 0; i < r->cur.n; i++) {
		free(r->cur.v[i].recs.v);
		free(r->cur.v[i].by_id.v);
	}
	r->cur.n = 0;
	r->thrs.n = 0;
	free(r->blocks);
	r->blocks = NULL;
	r->bcap = r->bn = 0;
	r->maps.n = 0;
	r->live = r->peak = r->peak_mmap = r->live_mmap = 0;
	memset(r->hist, 0, sizeof r->hist);
	r->version = r->peak_time = r->now = r->events = 0;
	r->heap_on = false;
	r->mode = r->flags = 0;
	r->sample_bytes = 0;
}

/* The image's records are all read: replay them, and what is still live
 * is leaked. */
static int finish_image(rd *r)
{
	int rc = 0;
	if (r->have_image && r->heap_on) {
		rc = merge(r);
		for (size_t i = 0; rc == 0 && i < r->bcap; i++) {
			const block *b = &r->blocks[i];
			if (!b->ptr)
				continue;
			double w = weight(r, b->size);
			r->sites.v[b->site].leaks += w;
			r->sites.v[b->site].leak_bytes += (double)b->size * w;
		}
		for (size_t i = 0; rc == 0 && i < r->maps.n; i++) {
			const mapping *m = &r->maps.v[i];
			r->sites.v[m->site].leaks += 1;
			r->sites.v[m->site].leak_bytes += (double)(m->end - m->start);
		}
		if (rc == 0)
			rc = emit_sites(r);
		r->info->events += r->events;
	}
	reset_image(r);
	return rc;
}

/* ---- records --------------------------------------------------------------------- */

static int read_image(rd *r, size_t off, uint32_t size)
{
	struct psmp_image im;
	if (size < sizeof im)
		return bad(r, off, "IMAGE record shorter than its fixed part (64 bytes)");
	memcpy(&im, r->b + off, sizeof im);
	if (im.exe_len > size - sizeof im)
		return bad(r, off, "IMAGE record: executable longer than the record");
	if (finish_image(r))
		return -1;
	r->have_image = true;
	r->pid = (int32_t)im.pid;
	r->t0 = im.time_ns;
	size_t n = im.exe_len < sizeof r->exe - 1 ? im.exe_len : sizeof r->exe - 1;
	memcpy(r->exe, r->b + off + sizeof im, n);
	r->exe[n] = 0;
	return 0;
}

static int read_info(rd *r, size_t off, uint32_t size)
{
	struct psmp_heap_info h;
	if (size < sizeof h)
		return bad(r, off, "HEAP_INFO record shorter than its fixed part (32 bytes)");
	if (!r->have_image)
		return bad(r, off, "HEAP_INFO record before any IMAGE record");
	memcpy(&h, r->b + off, sizeof h);
	if (h.text_len > size - sizeof h)
		return bad(r, off, "HEAP_INFO record: text longer than the record");
	if (h.mode != PSMP_HEAP_EXACT && h.mode != PSMP_HEAP_SAMPLED)
		return bad(r, off, "HEAP_INFO record: unknown mode");
	r->heap_on = true;
	r->mode = h.mode;
	r->flags = h.flags;
	r->sample_bytes = h.sample_bytes;
	r->info->images++;
	r->info->flags |= h.flags;
	if (h.flags) {
		size_t n = h.text_len < sizeof r->info->where - 1 ? h.text_len : sizeof r->info->where - 1;
		memcpy(r->info->where, r->b + off + sizeof h, n);
		r->info->where[n] = 0;
	}
	return 0;
}

static int read_stack(rd *r, size_t off, uint32_t size)
{
	struct psmp_heap_stack h;
	if (size < sizeof h)
		return bad(r, off, "HEAP_STACK record shorter than its fixed part (24 bytes)");
	memcpy(&h, r->b + off, sizeof h);
	if (size != sizeof h + (uint64_t)h.nframes * 8 || h.nframes == 0)
		return bad(r, off, "HEAP_STACK record: its size does not match its frames");
	if (!r->heap_on)
		return bad(r, off, "HEAP_STACK record before the image's HEAP_INFO record");
	uint32_t si = site_of(r, (int32_t)h.tid, h.id);
	if (si == UINT32_MAX)
		return plumb_fail_nomem(r->err);
	site *s = &r->sites.v[si];
	s->chain = off + sizeof h;
	s->n = h.nframes;
	s->flags = h.flags;
	return 0;
}

static int read_events(rd *r, size_t off, uint32_t size)
{
	struct psmp_heap_events h;
	if (size < sizeof h)
		return bad(r, off, "HEAP_EVENTS record shorter than its fixed part (24 bytes)");
	memcpy(&h, r->b + off, sizeof h);
	if (h.len > size - sizeof h)
		return bad(r, off, "HEAP_EVENTS record: events longer than the record");
	if (!r->heap_on)
		return bad(r, off, "HEAP_EVENTS record before the image's HEAP_INFO record");
	cursor *c = NULL;
	for (size_t i = 0; i < r->cur.n && !c; i++)
		if (r->cur.v[i].tid == (int32_t)h.tid)
			c = &r->cur.v[i];
	if (!c) {
		if (plumb_vec_reserve(r->cur, r->cur.n + 1))
			return plumb_fail_nomem(r->err);
		c = &r->cur.v[r->cur.n++];
		memset(c, 0, sizeof *c);
		c->tid = (int32_t)h.tid;
		c->last_site = UINT32_MAX;
	}
	return plumb_vec_push(c->recs, ((evrec){ off, h.len, h.time_ns })) ? plumb_fail_nomem(r->err) : 0;
}

int plumb_heap_read_buffer(const char *name, const unsigned char *buf, size_t len,
			   plumb_rec_data *d, uint32_t first, plumb_heap_info *info,
			   plumb_error *err)
{
	plumb_heap_info scratch = { 0 };
	rd r = { .name = name, .b = buf, .n = len, .d = d, .first = first,
		 .info = info ? info : &scratch, .err = err };
	struct psmp_file_header fh;
	if (len < sizeof fh || memcmp(buf, PSMP_MAGIC, 8) != 0)
		return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: not a plumb sampler file (no PLUMBSMP header)",
				  name);
	memcpy(&fh, buf, sizeof fh);
	int rc = 0;
	/* the signal sampler's reader has checked the framing; a last record cut
	 * short is left out there and here */
	for (size_t off = fh.header_size; rc == 0 && off + sizeof(struct psmp_rec) <= len;) {
		struct psmp_rec h;
		memcpy(&h, buf + off, sizeof h);
		if (h.size < sizeof h || h.size % 8)
			return bad(&r, off, "record size not a multiple of 8");
		if (h.size > len - off)
			break;
		switch (h.type) {
		case PSMP_IMAGE: rc = read_image(&r, off, h.size); break;
		case PSMP_HEAP_INFO: rc = read_info(&r, off, h.size); break;
		case PSMP_HEAP_STACK: rc = read_stack(&r, off, h.size); break;
		case PSMP_HEAP_EVENTS: rc = read_events(&r, off, h.size); break;
		default: break;
		}
		off += h.size;
	}
	if (rc == 0)
		rc = finish_image(&r);
	else
		reset_image(&r);
	free(r.sites.v);
	plumb_index_free(&r.site_ix);
	free(r.chain.v);
	free(r.cur.v);
	free(r.thrs.v);
	free(r.maps.v);
	return rc;
}

/* A sampler file, mapped once for both its readers and its pages put in
 * at once: a heap recording's file is tens of MB, and taking its pages one
 * fault at a time, twice, was a fifth of plumb's system time after a
 * traced cc1plus. *len 0 (and a pointer to nothing) for an empty file. */
const unsigned char *plumb_rec_map_file(const char *path, size_t *len, plumb_error *err)
{
	static const unsigned char none[1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		plumb_fail(err, PLUMB_ERR_IO, "%s: %s", path, strerror(e));
		return NULL;
	}
	*len = (size_t)st.st_size;
	if (!*len) {
		close(fd);
		return none;
	}
	void *m = mmap(NULL, *len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		plumb_fail(err, PLUMB_ERR_IO, "%s: %s", path, strerror(errno));
		return NULL;
	}
	return m;
}

void plumb_rec_unmap_file(const unsigned char *m, size_t len)
{
	if (len)
		munmap((void *)(uintptr_t)m, len);
}

int plumb_heap_read_file(const char *path, plumb_rec_data *d, uint32_t first,
			 plumb_heap_info *info, plumb_error *err)
{
	size_t len;
	const unsigned char *m = plumb_rec_map_file(path, &len, err);
	if (!m)
		return -1;
	int rc = len ? plumb_heap_read_buffer(path, m, len, d, first, info, err)
		     : plumb_fail(err, PLUMB_ERR_FORMAT, "%s: empty", path);
	plumb_rec_unmap_file(m, len);
	return rc;
}
