/* Heap tracing in libplumb-sampler.so (plumb record --heap, docs/heap.md).
 *
 * Each thread appends its allocation events to its own buffer (no lock);
 * a process-wide atomic counter gives every event its place in the order of
 * the whole process, so that the reader can replay frees against the
 * allocations of any thread and find the moment the heap peaked. An
 * allocation's sequence number is taken after the allocator returned, a
 * free's before the block goes back: a reused address is always freed
 * before it is allocated again.
 *
 * Sampled mode (PLUMB_SAMPLER_HEAP=sample:BYTES) marks bytes at exponential
 * intervals of mean BYTES, as jemalloc and Go do: a block is recorded when
 * it holds a mark, and its free only then (a small lock-free set of the
 * sampled blocks answers "was this one sampled?").
 *
 * Settings: PLUMB_SAMPLER_HEAP (exact | sample:BYTES), PLUMB_SAMPLER_HEAP_SEED
 * (the sampling's random seed; default from the clock). */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/cfi_walk.h"
#include "preload/heap.h"
#include "preload/sampler.h"

struct heap_state heap;
__thread int heap_guard __attribute__((tls_model("initial-exec")));
__thread struct heap_thread *heap_self __attribute__((tls_model("initial-exec")));
static pthread_key_t heap_key;
atomic_int heap_probe;   /* check_allocator: 1 looking for our wrapper, 2 it ran */

void *heap_raw_map(size_t len)
{
	/* the system call itself: this library's mmap wrapper is not for us */
	long r = syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	return r < 0 && r > -4096 ? NULL : (void *)r;
}

/* ---- writing ----------------------------------------------------------------- */

static unsigned char *put(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

static uint64_t zigzag(uint64_t cur, uint64_t prev)
{
	int64_t d = (int64_t)(cur - prev);
	return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
}

static void flush_events(struct heap_thread *t)
{
	size_t fixed = sizeof(struct psmp_heap_events);
	if (t->len > fixed) {
		size_t n = t->len - fixed, total = fixed + PSMP_PAD8(n);
		memset(t->buf + t->len, 0, total - t->len);
		struct psmp_heap_events h = { { PSMP_HEAP_EVENTS, (uint32_t)total }, (uint32_t)t->tid,
					      (uint32_t)n, t->time0 };
		memcpy(t->buf, &h, sizeof h);
		smp_write(t->buf, total);
	}
	t->len = 0;
}

void heap_flush_stacks(struct heap_thread *t)
{
	if (t->slen)
		smp_write(t->sbuf, t->slen);
	t->slen = 0;
}

static void flush(struct heap_thread *t)
{
	heap_flush_stacks(t);   /* stacks first: an event's stack is in the file before it */
	flush_events(t);
}

/* Room for one event (at most 1 + 6 * 10 bytes, after a TIME). */
static unsigned char *room(struct heap_thread *t)
{
	if (t->len + 96 > HEAP_BUF - 8)
		flush_events(t);
	if (t->len == 0) {
		t->len = sizeof(struct psmp_heap_events);
		t->time0 = smp_now();
		t->prev_seq = 0;
		t->prev_ptr = 0;
		t->since_time = 0;
	} else if (++t->since_time >= 256) {
		/* a clock reading now and then: when the heap peaked */
		t->since_time = 0;
		unsigned char *p = t->buf + t->len;
		*p++ = PSMP_HEAP_TIME;
		p = put(p, smp_now() - t->time0);
		t->len = (size_t)(p - t->buf);
	}
	return t->buf + t->len;
}

static void emit(struct heap_thread *t, unsigned kind, uint64_t seq, uint64_t ptr, uint64_t size,
		 uint64_t stack, int nargs)
{
	unsigned char *p = room(t);
	*p++ = (unsigned char)kind;
	p = put(p, seq - t->prev_seq);
	p = put(p, zigzag(ptr, t->prev_ptr));
	if (nargs >= 3)
		p = put(p, size);
	if (nargs >= 4)
		p = put(p, stack);
	t->prev_seq = seq;
	t->prev_ptr = ptr;
	t->len = (size_t)(p - t->buf);
}

/* ---- threads ------------------------------------------------------------------ */

static void reset_thread(struct heap_thread *t)
{
	t->len = 0;
	t->slen = 0;
	t->rounds = 0;
	heap_stack_reset(t);
}

static int64_t draw(struct heap_thread *t);

static struct heap_thread *acquire(void)
{
	struct heap_thread *t = NULL;
	for (struct heap_thread *u = atomic_load(&heap.threads); u && !t; u = u->next) {
		int free_ = 0;
		if (atomic_compare_exchange_strong(&u->live, &free_, 1))
			t = u;
	}
	if (!t) {
		t = heap_raw_map(sizeof *t);
		if (!t)
			return NULL;
		atomic_store(&t->live, 1);
		struct heap_thread *head = atomic_load(&heap.threads);
		do
			t->next = head;
		while (!atomic_compare_exchange_weak(&heap.threads, &head, t));
	}
	reset_thread(t);
	t->tid = (pid_t)syscall(SYS_gettid);
	t->rng = heap.seed ^ ((uint64_t)t->tid * 0x9e3779b97f4a7c15u);
	/* Sampled: the first mark is drawn now, not at the first allocation
	 * (which would then always be sampled, and each thread's first block
	 * counted 1/p times over). Exact: 0, which the fast path never takes. */
	atomic_store_explicit(&t->countdown,
			      atomic_load(&heap.mode) == PSMP_HEAP_SAMPLED ? draw(t) : 0,
			      memory_order_relaxed);
	atomic_store(&t->busy, 0);
	heap_self = t;
	if (heap.key_made)
		pthread_setspecific(heap_key, t);
	return t;
}

/* The thread ends. Destructors of keys made later may still free memory,
 * so the first rounds only flush and ask to be called again. */
static void thread_done(void *p)
{
	struct heap_thread *t = p;
	if (!t || t != heap_self)
		return;
	if (atomic_exchange(&t->busy, 1))
		return;
	flush(t);
	if (++t->rounds < 3) {
		atomic_store(&t->busy, 0);
		pthread_setspecific(heap_key, t);
		return;
	}
	heap_self = NULL;
	atomic_store(&t->busy, 0);
	atomic_store(&t->live, 0);
}

/* The calling thread's buffer, taken; NULL when the event is not recorded. */
static struct heap_thread *take(uint64_t ra)
{
	if (heap_guard || (ra >= heap.self_lo && ra < heap.self_hi))
		return NULL;   /* our own allocations */
	struct heap_thread *t = heap_self;
	if (!t) {
		heap_guard = 1;
		t = acquire();
		heap_guard = 0;
		if (!t)
			return NULL;
	}
	if (atomic_exchange_explicit(&t->busy, 1, memory_order_acquire))
		return NULL;   /* being written out at exit */
	return t;
}

static void give(struct heap_thread *t)
{
	atomic_store_explicit(&t->busy, 0, memory_order_release);
}

/* ---- sampling ---------------------------------------------------------------- */

/* ln(x) for x in (0, 1], without libm: x = m 2^e, ln m by the atanh series. */
static double ln(double x)
{
	union { double d; uint64_t u; } v = { x };
	int e = (int)((v.u >> 52) & 0x7ff) - 1023;
	v.u = (v.u & 0x000fffffffffffffu) | 0x3ff0000000000000u;   /* m in [1, 2) */
	double m = v.d;
	if (m > 1.41421356) {
		m /= 2;
		e++;
	}
	double s = (m - 1) / (m + 1), s2 = s * s, sum = 0, pw = s;
	for (int k = 1; k < 24; k += 2) {
		sum += pw / k;
		pw *= s2;
	}
	return 2 * sum + e * 0.69314718055994530942;
}

static uint64_t next_rand(struct heap_thread *t)
{
	uint64_t x = t->rng ? t->rng : 0x2545f4914f6cdd1du;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	t->rng = x;
	return x;
}

/* Bytes to the next mark: exponential with mean sample_bytes. */
static int64_t draw(struct heap_thread *t)
{
	double u = ((double)(next_rand(t) >> 11) + 1.0) / 9007199254740993.0;   /* (0, 1] */
	double b = -ln(u) * (double)heap.sample_bytes;
	return b < 1 ? 1 : b > 1e15 ? (int64_t)1e15 : (int64_t)b;
}

static size_t set_home(uint64_t p)
{
	return (size_t)((p * 0x9e3779b97f4a7c15u) >> (64 - HEAP_SET_BITS));
}

#define SET_PROBES 32

/* A counting filter in front of the set: most frees are of blocks never
 * sampled, and one load from 128 KiB answers that. */

static void set_add(struct heap_thread *t, uint64_t p)
{
	atomic_fetch_add_explicit(&heap.filter[filter_slot(p)], 1, memory_order_relaxed);
	size_t mask = ((size_t)1 << HEAP_SET_BITS) - 1;
	for (size_t i = set_home(p), k = 0; k < SET_PROBES; k++, i = (i + 1) & mask) {
		uint64_t cur = atomic_load_explicit(&heap.set_key[i], memory_order_relaxed);
		if (cur > 1)
			continue;
		heap.set_val[i] = atomic_load_explicit(&t->countdown, memory_order_relaxed);
		heap.set_owner[i] = t;
		if (atomic_compare_exchange_strong(&heap.set_key[i], &cur, p))
			return;
	}
	/* full here: the block's free will not be seen (counted as live) */
	atomic_fetch_sub_explicit(&heap.filter[filter_slot(p)], 1, memory_order_relaxed);
}

/* Was p sampled? Then take it out; *temp: its thread has not allocated since. */
static int set_take(uint64_t p, int *temp)
{
	_Atomic uint16_t *f = &heap.filter[filter_slot(p)];
	if (!atomic_load_explicit(f, memory_order_relaxed))
		return 0;
	size_t mask = ((size_t)1 << HEAP_SET_BITS) - 1;
	for (size_t i = set_home(p), k = 0; k < SET_PROBES; k++, i = (i + 1) & mask) {
		uint64_t cur = atomic_load_explicit(&heap.set_key[i], memory_order_acquire);
		if (cur == 0)
			return 0;
		if (cur != p)
			continue;
		struct heap_thread *o = heap.set_owner[i];
		*temp = o && atomic_load_explicit(&o->countdown, memory_order_relaxed) == heap.set_val[i];
		atomic_store(&heap.set_key[i], 1);
		atomic_fetch_sub_explicit(f, 1, memory_order_relaxed);
		return 1;
	}
	return 0;
}

/* ---- events ------------------------------------------------------------------- */

static uint64_t next_seq(void)
{
	return atomic_fetch_add_explicit(&heap.seq, 1, memory_order_relaxed) + 1;
}

/* Record an allocation at t (taken). */
static void record_alloc(struct heap_thread *t, int mode, void *p, size_t size, uint64_t fn,
			 const struct heap_caller *c)
{
	heap_guard = 1;
	uint32_t id = heap_stack_id(t, fn, c);
	heap_guard = 0;
	if (mode == PSMP_HEAP_SAMPLED)
		set_add(t, (uint64_t)(uintptr_t)p);
	emit(t, PSMP_HEAP_ALLOC, next_seq(), (uint64_t)(uintptr_t)p, size, id, 4);
	give(t);
}

void heap_on_alloc(void *p, size_t size, uint64_t fn, const struct heap_caller *at)
{
	int mode = atomic_load_explicit(&heap.mode, memory_order_relaxed);
	if (!mode) {
		if (atomic_load_explicit(&heap_probe, memory_order_relaxed) == 1)
			atomic_store(&heap_probe, 2);   /* check_allocator's call reached us */
		return;
	}
	if (!p)
		return;
	struct heap_thread *t = heap_self;
	if (mode == PSMP_HEAP_SAMPLED) {
		/* what the wrappers' fast path did not take (heap.h): count down */
		if (!t) {
			if (heap_guard)
				return;
			heap_guard = 1;
			t = acquire();
			heap_guard = 0;
			if (!t)
				return;
		}
		int64_t c = atomic_load_explicit(&t->countdown, memory_order_relaxed) -
			    (int64_t)heap_sample_bytes(size);
		if (c > 0) {
			atomic_store_explicit(&t->countdown, c, memory_order_relaxed);
			return;
		}
		while (c <= 0)
			c += draw(t);
		atomic_store_explicit(&t->countdown, c, memory_order_relaxed);
		/* A mark in our own allocation (or while the buffer is written out
		 * at exit) is dropped: marks fall on all bytes independently, so
		 * the program's bytes keep their rate. */
		if (heap_guard || (at->ra >= heap.self_lo && at->ra < heap.self_hi) ||
		    atomic_exchange_explicit(&t->busy, 1, memory_order_acquire))
			return;
		record_alloc(t, mode, p, size, fn, at);
		return;
	}
	if (!(t = take(at->ra)))
		return;
	record_alloc(t, mode, p, size, fn, at);
}

void heap_on_free(void *p)
{
	int mode = atomic_load_explicit(&heap.mode, memory_order_relaxed);
	if (!mode || !p)
		return;
	int temp = 0;
	if (mode == PSMP_HEAP_SAMPLED && !set_take((uint64_t)(uintptr_t)p, &temp))
		return;
	struct heap_thread *t = take(0);
	if (!t)
		return;
	emit(t, temp ? PSMP_HEAP_FREE_TEMP : PSMP_HEAP_FREE, next_seq(), (uint64_t)(uintptr_t)p, 0, 0, 2);
	give(t);
}

/* Mappings are few and large: always recorded, whatever the mode. */
void heap_on_mmap(void *p, size_t len, uint64_t fn, const struct heap_caller *c)
{
	if (!atomic_load_explicit(&heap.mode, memory_order_relaxed))
		return;
	struct heap_thread *t = take(c->ra);
	if (!t)
		return;
	heap_guard = 1;
	uint32_t id = heap_stack_id(t, fn, c);
	heap_guard = 0;
	emit(t, PSMP_HEAP_MMAP, next_seq(), (uint64_t)(uintptr_t)p, len, id, 4);
	give(t);
}

void heap_on_munmap(void *p, size_t len)
{
	if (!atomic_load_explicit(&heap.mode, memory_order_relaxed))
		return;
	struct heap_thread *t = take(0);
	if (!t)
		return;
	emit(t, PSMP_HEAP_MUNMAP, next_seq(), (uint64_t)(uintptr_t)p, len, 0, 3);
	give(t);
}

void heap_on_mremap(void *old, size_t old_len, void *p, size_t len, uint64_t fn,
		    const struct heap_caller *c)
{
	if (!atomic_load_explicit(&heap.mode, memory_order_relaxed))
		return;
	struct heap_thread *t = take(c->ra);
	if (!t)
		return;
	heap_guard = 1;
	uint32_t id = heap_stack_id(t, fn, c);
	heap_guard = 0;
	emit(t, PSMP_HEAP_MREMAP, next_seq(), (uint64_t)(uintptr_t)p, len, id, 4);
	unsigned char *q = t->buf + t->len;
	q = put(q, (uint64_t)(uintptr_t)old);
	q = put(q, old_len);
	t->len = (size_t)(q - t->buf);
	give(t);
}

/* ---- the process ----------------------------------------------------------------- */

static void write_info(void)
{
	size_t n = strlen(heap.where);
	unsigned char b[sizeof(struct psmp_heap_info) + sizeof heap.where + 8];
	struct psmp_heap_info h = {
		{ PSMP_HEAP_INFO, (uint32_t)(sizeof h + PSMP_PAD8(n)) },
		(uint32_t)atomic_load(&heap.mode), heap.flags, heap.sample_bytes, (uint32_t)n, 0,
	};
	memset(b, 0, sizeof b);
	memcpy(b, &h, sizeof h);
	memcpy(b + sizeof h, heap.where, n);
	smp_write(b, h.h.size);
}

struct self_range {
	uintptr_t base;
	uint64_t lo, hi;
};

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct self_range *r = arg;
	if (info->dlpi_addr != r->base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (!r->lo || lo < r->lo)
			r->lo = lo;
		if (hi > r->hi)
			r->hi = hi;
	}
	return 1;
}

/* Which malloc the program really calls (a call through the global lookup
 * reaches our wrapper, or an allocator defined ahead of us: the address
 * alone cannot tell, a non-PIE executable's PLT stub stands for malloc),
 * and whether the one we wrap is libc's. */
static void check_allocator(void)
{
	Dl_info me, def, next;
	void *(*used)(size_t) = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "malloc");
	void (*used_free)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "free");
	void *after = dlsym(RTLD_NEXT, "malloc");
	if (!dladdr((void *)heap_start, &me))
		return;
	int ours = 1;
	if (used && used_free) {
		atomic_store(&heap_probe, 1);
		void *p = used(1);
		ours = atomic_load(&heap_probe) == 2;
		atomic_store(&heap_probe, 0);
		used_free(p);
	}
	if (!ours && dladdr((void *)used, &def)) {
		heap.flags |= PSMP_HEAP_MALLOC_ELSEWHERE;
		snprintf(heap.where, sizeof heap.where, "%s", def.dli_fname ? def.dli_fname : "?");
	} else if (after && dladdr(after, &next) && next.dli_fname &&
		   !strstr(next.dli_fname, "/libc.so")) {
		heap.flags |= PSMP_HEAP_OTHER_ALLOCATOR;
		snprintf(heap.where, sizeof heap.where, "%s", next.dli_fname);
	}
	struct self_range r = { (uintptr_t)me.dli_fbase, 0, 0 };
	dl_iterate_phdr(find_self, &r);
	heap.self_lo = r.lo;
	heap.self_hi = r.hi;
}

static int read_settings(void)
{
	const char *s = getenv("PLUMB_SAMPLER_HEAP");
	if (!s || !*s || strlen(s) >= sizeof heap.env_mode)
		return 0;
	strcpy(heap.env_mode, s);
	if (strcmp(s, "exact") == 0)
		return PSMP_HEAP_EXACT;
	if (strncmp(s, "sample", 6) != 0)
		return 0;
	heap.sample_bytes = s[6] == ':' ? strtoull(s + 7, NULL, 10) : 0;
	if (heap.sample_bytes == 0)
		heap.sample_bytes = 512 * 1024;
	const char *seed = getenv("PLUMB_SAMPLER_HEAP_SEED");
	if (seed && strlen(seed) < sizeof heap.env_seed)
		strcpy(heap.env_seed, seed);
	heap.seed = seed && *seed ? strtoull(seed, NULL, 10) : smp_now() ^ (uint64_t)getpid() << 32;
	return PSMP_HEAP_SAMPLED;
}

void heap_start(void)
{
	int mode = read_settings();
	if (!mode || heap_hooks_resolve() != 0)
		return;
	heap_guard = 1;
	check_allocator();
	const char *chk = getenv("PLUMB_CFI_CHECK");
	heap_cfi_check = chk && *chk == '1';
	if (cfi_walk_init() != 0) {
		heap_guard = 0;
		return;
	}
	if (mode == PSMP_HEAP_SAMPLED) {
		size_t n = (size_t)1 << HEAP_SET_BITS;
		heap.set_key = heap_raw_map(n * sizeof *heap.set_key);
		heap.set_val = heap_raw_map(n * sizeof *heap.set_val);
		heap.set_owner = heap_raw_map(n * sizeof *heap.set_owner);
		heap.filter = heap_raw_map(((size_t)1 << HEAP_FILTER_BITS) * sizeof *heap.filter);
		if (!heap.set_key || !heap.set_val || !heap.set_owner || !heap.filter) {
			heap_guard = 0;
			return;
		}
	}
	heap.key_made = pthread_key_create(&heap_key, thread_done) == 0;
	atomic_store(&heap.mode, mode);
	if (mode == PSMP_HEAP_SAMPLED)
		atomic_store(&heap.free_filter, heap.filter);
	write_info();
	heap_guard = 0;
	pthread_atfork(heap_atfork_prepare, NULL, heap_atfork_child);
}

/* Exit or exec: write what every thread has. A thread still running at
 * exit loses what it records from now on. */
void heap_finish(void)
{
	int mode = atomic_exchange(&heap.mode, 0);
	if (!mode)
		return;
	for (struct heap_thread *t = atomic_load(&heap.threads); t; t = t->next) {
		if (!atomic_load(&t->live))
			continue;
		int spins = t == heap_self ? 1 : 100000;
		int got = 0;
		for (int i = 0; i < spins && !got; i++)
			if (!(got = !atomic_exchange(&t->busy, 1)))
				sched_yield();
		if (!got)
			continue;
		flush(t);
		atomic_store(&t->busy, 0);
	}
	heap_cfi_check_report();
	/* an exec that fails goes on recording */
	atomic_store(&heap.mode, mode);
}

/* Before fork: what this thread has goes to the parent's file. */
void heap_atfork_prepare(void)
{
	struct heap_thread *t = heap_self;
	if (t && atomic_load(&heap.mode) && !atomic_exchange(&t->busy, 1)) {
		flush(t);
		atomic_store(&t->busy, 0);
	}
}

/* The child is a new process with one thread and its own file: the other
 * threads' buffers hold the parent's events, and every stack is new there. */
void heap_atfork_child(void)
{
	if (!atomic_load(&heap.mode))
		return;
	struct heap_thread *self = heap_self;
	for (struct heap_thread *t = atomic_load(&heap.threads); t; t = t->next) {
		reset_thread(t);
		atomic_store(&t->busy, 0);
		if (t != self)
			atomic_store(&t->live, 0);
	}
	if (self)
		self->tid = (pid_t)syscall(SYS_gettid);
	if (atomic_load(&smp.fd) >= 0)
		write_info();
	else
		atomic_store(&heap.mode, 0);
}
