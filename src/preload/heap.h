/* libplumb-sampler.so, heap tracing (plumb record --heap, docs/heap.md):
 * internal interface between heap.c (per-thread event buffers), heap_stack.c
 * (allocation stacks, unwound once per call site and stack position) and
 * heap_hooks.c (the allocator wrappers). No global lock on the fast path:
 * each thread appends to its own buffer; a process-wide atomic counter
 * orders the events of all threads. */
#ifndef PLUMB_PRELOAD_HEAP_H
#define PLUMB_PRELOAD_HEAP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "preload/cfi_walk.h"
#include "preload/format.h"

#define HEAP_BUF (64 * 1024)      /* a thread's event record */
#define HEAP_SBUF (32 * 1024)     /* its new stacks */
#define HEAP_CACHE 8192           /* stacks remembered per thread */
#define HEAP_WAYS 64              /* of them per (return address, stack pointer) */
#define HEAP_PAIRS (512 * 1024)   /* return address slots kept for the cache */
#define HEAP_SET_BITS 18          /* sampled mode: live sampled blocks, 2^18 slots */
#define HEAP_FILTER_BITS 16       /* and a counting filter in front of them */

/* A call site seen before: the stack it had, and where each of its return
 * addresses sat on the stack, to check that they are still the same. The
 * first of them is kept here too: the stacks of one call site at one
 * stack pointer mostly differ there already (on cc1plus, 4.97 M of 5.74 M
 * checks that failed), and that check then reads no other memory. */
struct heap_cache_ent {
	uint64_t ra, sp, fn;
	uint64_t slot0, val0;          /* pairs[0], when npairs */
	uint32_t id, npairs;
	uint64_t at;                   /* its pairs: heap_thread.pairs_head when made */
};

struct heap_stack_ent {
	uint64_t hash;
	uint32_t id, n;
	size_t off;                    /* into heap_thread.arena */
};

struct heap_thread {
	struct heap_thread *next;
	atomic_int live;               /* owned by a thread */
	atomic_int busy;               /* taken by whoever writes buf */
	int rounds;                    /* pthread key destructor rounds */
	pid_t tid;
	/* events */
	uint64_t prev_seq, prev_ptr, time0, since_time;
	/* sampled mode: bytes to the next mark (0 in exact mode); read by
	 * other threads' frees (the temporaries), written by this one only */
	_Atomic int64_t countdown;
	uint64_t rng;
	size_t len, slen;
	/* stacks: chain -> id, chains in arena; the last stack walked
	 * (outermost first), which the next walk stops at where they meet */
	struct heap_stack_ent *tab;
	size_t tab_cap, tab_n;
	uint64_t *arena;
	size_t arena_n, arena_cap;
	uint32_t next_id;
	unsigned last_n;
	uint64_t last_ip[PSMP_MAX_FRAMES], last_sp[PSMP_MAX_FRAMES];
	uint64_t last_h[PSMP_MAX_FRAMES];   /* hash of the chain from the root to here */
	uint64_t *ids;                 /* PLUMB_CFI_CHECK: id -> arena offset << 16 | frames */
	size_t ids_cap;
	uint64_t *pairs;               /* (slot address, value) pairs, a ring of HEAP_PAIRS */
	uint64_t pairs_head;           /* pairs ever taken from it */
	struct heap_cache_ent cache[HEAP_CACHE];
	uint16_t cache_tag[HEAP_CACHE];  /* a hash of each entry's ra, sp, fn, up; 0 empty */
	uint8_t cache_order[HEAP_CACHE]; /* per set, its ways, the one used last first */
	struct cfi_near near[1];       /* its recipes (cfi_walk.h) */
	unsigned char sbuf[HEAP_SBUF];
	unsigned char buf[HEAP_BUF];
};

struct heap_state {
	atomic_int mode;               /* 0 off, PSMP_HEAP_EXACT, PSMP_HEAP_SAMPLED */
	uint64_t sample_bytes;
	uint64_t seed;
	uint32_t flags;                /* PSMP_HEAP_MALLOC_ELSEWHERE, ... */
	char where[256];               /* the module that defines the malloc used */
	uint64_t self_lo, self_hi;     /* this library's addresses */
	atomic_uint_fast64_t seq;
	_Atomic(struct heap_thread *) threads;
	/* sampled mode: live sampled blocks (key: address, 0 empty, 1 deleted) */
	_Atomic uint64_t *set_key;
	int64_t *set_val;              /* allocating thread's countdown after the sample */
	struct heap_thread **set_owner;
	_Atomic uint16_t *filter;
	_Atomic(_Atomic uint16_t *) free_filter;  /* = filter once sampling runs */
	int key_made;
	char env_mode[48], env_seed[24];  /* the settings, for an exec's environment */
};

extern struct heap_state heap;
extern atomic_int heap_probe;
extern __thread int heap_guard __attribute__((tls_model("initial-exec")));
extern __thread struct heap_thread *heap_self __attribute__((tls_model("initial-exec")));

/* The sampled mode's counting filter slot of a block (heap.c): within a
 * megabyte of addresses, in address order (blocks are 16-byte aligned),
 * so that the frees of neighbouring blocks read one line of the filter,
 * as they touch one stretch of the heap; each megabyte starts elsewhere.
 * A hashed slot made every free of a large program a load from anywhere
 * in the 128 KiB filter: most of what sampling cost cc1plus. */
static inline size_t filter_slot(uint64_t p)
{
	return (size_t)((p >> 4) + (p >> 20) * 0x9e3779b9u) & (((size_t)1 << HEAP_FILTER_BITS) - 1);
}

/* Bytes an allocation of n counts down: malloc(0) gives a block too, and
 * counts as 1 byte (the reader weighs it so). */
static inline uint64_t heap_sample_bytes(size_t n)
{
	return (uint64_t)n + (n == 0);
}

/* The sampled mode's allocation fast path, at the start of the wrappers,
 * before the allocator is called: an allocation that holds no mark only
 * counts down, and the wrapper returns `call` (a jump to the allocator);
 * else heap.c must see the call (a mark, the thread's first allocation,
 * exact mode: the countdown stays 0 there). A macro, not
 * an inline function: a stack's leaf is the wrapper's first address, which
 * must name the wrapper alone, with no inlined function in front of it.
 * The countdown doubles as the thread's allocation clock (it falls at
 * every allocation): a sampled block freed while its thread's countdown
 * still has the value it had after that block is a temporary. */
#define HEAP_SAMPLED_ALLOC_FAST(n, call)                                                    \
	do {                                                                                \
		struct heap_thread *t_ = heap_self;                                         \
		int64_t c_ = t_ ? atomic_load_explicit(&t_->countdown, memory_order_relaxed) : 0; \
		uint64_t b_ = (uint64_t)(n) + ((n) == 0);                                   \
		if (c_ > 0 && b_ < (uint64_t)c_) {                                          \
			atomic_store_explicit(&t_->countdown, c_ - (int64_t)b_,             \
					      memory_order_relaxed);                        \
			return call;                                                        \
		}                                                                           \
	} while (0)

/* The sampled mode's free fast path: the block was never sampled when
 * its counting filter slot is 0 (a sampled block keeps its slot above 0
 * until its free is seen), one load. heap.free_filter is set only in
 * sampled mode, after the real functions were found. */
static inline int heap_sampled_free_skip(const void *p)
{
	_Atomic uint16_t *f = atomic_load_explicit(&heap.free_filter, memory_order_relaxed);
	return f && !atomic_load_explicit(&f[filter_slot((uint64_t)(uintptr_t)p)], memory_order_relaxed);
}

/* Must the wrappers tell heap.c? Not when tracing is off (the signal
 * sampler alone): then they only forward, the cheapest they can. */
static inline int heap_hooked(void)
{
	return atomic_load_explicit(&heap.mode, memory_order_relaxed) ||
	       atomic_load_explicit(&heap_probe, memory_order_relaxed);
}

/* heap.c */
void heap_start(void);             /* from the sampler's constructor */
void heap_finish(void);            /* exit and exec: write every buffer */
void heap_atfork_prepare(void);
void heap_atfork_child(void);
/* Where an allocator was called from: the caller's return address, stack
 * pointer and rbp (which the wrapper's frame-pointer prologue saved). */
struct heap_caller {
	uint64_t ra, sp, bp;
};

/* Events: fn is the allocator's entry (the stack's leaf). */
void heap_on_alloc(void *p, size_t size, uint64_t fn, const struct heap_caller *c);
void heap_on_free(void *p);
void heap_on_mmap(void *p, size_t len, uint64_t fn, const struct heap_caller *c);
void heap_on_munmap(void *p, size_t len);
void heap_on_mremap(void *old, size_t old_len, void *p, size_t len, uint64_t fn,
		    const struct heap_caller *c);
void *heap_raw_map(size_t len);    /* memory for the tracer itself */

/* heap_stack.c: the id of the calling stack, writing a HEAP_STACK record
 * the first time; UINT32_MAX if it could not be taken. */
uint32_t heap_stack_id(struct heap_thread *t, uint64_t fn, const struct heap_caller *c);
void heap_stack_reset(struct heap_thread *t);
void heap_flush_stacks(struct heap_thread *t);

/* PLUMB_CFI_CHECK=1: each stack walked both ways and compared;
 * the counts go to stderr at exit (tests). */
extern int heap_cfi_check;
void heap_cfi_check_report(void);

/* heap_hooks.c */
int heap_hooks_resolve(void);

#endif
