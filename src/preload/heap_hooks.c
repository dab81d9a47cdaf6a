/* The allocator wrappers of heap tracing: malloc, calloc, realloc,
 * reallocarray, free, posix_memalign, aligned_alloc, memalign, valloc,
 * pvalloc (C++'s operator new and delete call these), and anonymous mmap,
 * mremap and munmap. Each calls the next definition in the search order
 * (dlsym RTLD_NEXT: libc's, or a replacement allocator the program links),
 * then records the event. Without tracing they only forward.
 *
 * dlsym may itself call calloc; while the real functions are looked up,
 * allocations come from a small static arena, which free ignores.
 *
 * Built with frame pointers (Makefile): the caller's stack pointer is this
 * frame's base + 16, which with the return address identifies the call,
 * and the caller's rbp is what the prologue saved at the base: a stack
 * walk starts at the caller with the registers it had. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "preload/heap.h"
#include "preload/sampler.h"

typedef void *(*malloc_fn)(size_t);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef void (*free_fn)(void *);
typedef int (*posix_memalign_fn)(void **, size_t, size_t);
typedef void *(*memalign_fn)(size_t, size_t);
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef int (*munmap_fn)(void *, size_t);
typedef void *(*mremap_fn)(void *, size_t, size_t, int, ...);

static struct {
	malloc_fn malloc, valloc, pvalloc;
	calloc_fn calloc;
	realloc_fn realloc;
	free_fn free;
	posix_memalign_fn posix_memalign;
	memalign_fn memalign, aligned_alloc;
	mmap_fn mmap, mmap64;
	munmap_fn munmap;
	mremap_fn mremap;
	int done;
} real;

/* ---- bootstrap ------------------------------------------------------------------- */

static _Alignas(16) unsigned char boot[64 * 1024];
static size_t boot_used;
static int resolving;

static int in_boot(const void *p)
{
	return (uintptr_t)p - (uintptr_t)boot < sizeof boot;
}

/* 16-byte aligned, with the size in front (for realloc). */
static void *boot_alloc(size_t n)
{
	size_t need = 16 + ((n + 15) & ~(size_t)15);
	if (boot_used + need > sizeof boot)
		return NULL;
	unsigned char *p = boot + boot_used;
	boot_used += need;
	memcpy(p, &n, sizeof n);
	return p + 16;
}

#define LOOK(field, name) (real.field = (__typeof__(real.field))dlsym(RTLD_NEXT, name))

int heap_hooks_resolve(void)
{
	if (real.done)
		return 0;
	if (resolving)
		return -1;
	resolving = 1;
	LOOK(malloc, "malloc");
	LOOK(calloc, "calloc");
	LOOK(realloc, "realloc");
	LOOK(free, "free");
	LOOK(posix_memalign, "posix_memalign");
	LOOK(memalign, "memalign");
	LOOK(aligned_alloc, "aligned_alloc");
	LOOK(valloc, "valloc");
	LOOK(pvalloc, "pvalloc");
	LOOK(mmap, "mmap");
	LOOK(mmap64, "mmap64");
	LOOK(munmap, "munmap");
	LOOK(mremap, "mremap");
	resolving = 0;
	if (!real.malloc || !real.calloc || !real.realloc || !real.free || !real.mmap || !real.munmap)
		return -1;
	real.done = 1;
	return 0;
}

#define READY() (real.done || heap_hooks_resolve() == 0)
/* passed down by address: a struct passed by value was copied at each
 * call, and its 16-byte load after 8-byte stores stalled (the malloc loop
 * was 11% slower that way) */
#define CALLER() (&(struct heap_caller){ (uint64_t)(uintptr_t)__builtin_return_address(0),   \
					   (uint64_t)(uintptr_t)__builtin_frame_address(0) + 16, \
					   *(const uint64_t *)__builtin_frame_address(0) })
#define FN(f) ((uint64_t)(uintptr_t)(f))

/* ---- the malloc family -------------------------------------------------------------- */

/* The sampled mode's fast paths come first and end in a jump to the
 * allocator (a tail call): a malloc+free pair that is not sampled costs a
 * countdown, a filter load and two jumps. The rest is in functions of
 * their own, so that the fast paths save no registers. */
SMP_EXPORT void *malloc(size_t n);

static __attribute__((noinline)) void *malloc_slow(size_t n, const struct heap_caller *c)
{
	if (!READY())
		return boot_alloc(n);
	if (!heap_hooked())
		return real.malloc(n);
	void *p = real.malloc(n);
	heap_on_alloc(p, n, FN(malloc), c);
	return p;
}

SMP_EXPORT void *malloc(size_t n)
{
	HEAP_SAMPLED_ALLOC_FAST(n, real.malloc(n));
	return malloc_slow(n, CALLER());
}

SMP_EXPORT void *calloc(size_t k, size_t n)
{
	if (!READY()) {
		size_t t;
		if (__builtin_mul_overflow(k, n, &t))
			return NULL;
		return boot_alloc(t);   /* static memory: zero already */
	}
	if (!heap_hooked())
		return real.calloc(k, n);
	void *p = real.calloc(k, n);
	heap_on_alloc(p, k * n, FN(calloc), CALLER());
	return p;
}

static __attribute__((noinline)) void free_slow(void *p)
{
	if (!p || in_boot(p))
		return;
	if (!READY())
		return;   /* cannot happen: p came from somewhere */
	if (heap_hooked())
		heap_on_free(p);
	real.free(p);
}

SMP_EXPORT void free(void *p)
{
	/* free(NULL) too: libc's free ignores it */
	if (!in_boot(p) && heap_sampled_free_skip(p))
		return real.free(p);
	free_slow(p);
}

/* A free of the old block, then an allocation of the new size here. */
static void *realloc_at(void *old, size_t n, uint64_t fn, const struct heap_caller *c)
{
	if (old && in_boot(old)) {
		size_t was;
		memcpy(&was, (unsigned char *)old - 16, sizeof was);
		void *p = malloc(n);
		if (p)
			memcpy(p, old, was < n ? was : n);
		return p;
	}
	if (!READY())
		return old ? NULL : boot_alloc(n);
	if (old)
		heap_on_free(old);
	void *p = real.realloc(old, n);
	heap_on_alloc(p, n, fn, c);
	return p;
}

SMP_EXPORT void *realloc(void *old, size_t n)
{
	return realloc_at(old, n, FN(realloc), CALLER());
}

SMP_EXPORT void *reallocarray(void *old, size_t k, size_t n)
{
	size_t t;
	if (__builtin_mul_overflow(k, n, &t)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc_at(old, t, FN(reallocarray), CALLER());
}

SMP_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (!READY() || !real.posix_memalign)
		return ENOMEM;
	int rc = real.posix_memalign(out, align, n);
	if (rc == 0)
		heap_on_alloc(*out, n, FN(posix_memalign), CALLER());
	return rc;
}

SMP_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	if (!READY() || !real.aligned_alloc)
		return NULL;
	void *p = real.aligned_alloc(align, n);
	heap_on_alloc(p, n, FN(aligned_alloc), CALLER());
	return p;
}

SMP_EXPORT void *memalign(size_t align, size_t n)
{
	if (!READY() || !real.memalign)
		return NULL;
	void *p = real.memalign(align, n);
	heap_on_alloc(p, n, FN(memalign), CALLER());
	return p;
}

SMP_EXPORT void *valloc(size_t n)
{
	if (!READY() || !real.valloc)
		return NULL;
	void *p = real.valloc(n);
	heap_on_alloc(p, n, FN(valloc), CALLER());
	return p;
}

SMP_EXPORT void *pvalloc(size_t n)
{
	if (!READY() || !real.pvalloc)
		return NULL;
	void *p = real.pvalloc(n);
	/* the block is n rounded up to whole pages */
	long page = sysconf(_SC_PAGESIZE);
	size_t sz = page > 0 ? (n + (size_t)page - 1) / (size_t)page * (size_t)page : n;
	heap_on_alloc(p, sz ? sz : (size_t)page, FN(pvalloc), CALLER());
	return p;
}

/* ---- anonymous mappings ---------------------------------------------------------------- */

/* Memory, not a file, a guard or a reservation without access. */
static int counted(int prot, int flags)
{
	return (flags & MAP_ANONYMOUS) && prot != PROT_NONE;
}

static void *mmap_at(mmap_fn f, void *addr, size_t len, int prot, int flags, int fd, off_t off,
		     uint64_t fn, const struct heap_caller *c)
{
	if (!f) {
		errno = ENOSYS;
		return MAP_FAILED;
	}
	if ((flags & MAP_FIXED) && !(flags & MAP_FIXED_NOREPLACE))
		heap_on_munmap(addr, len);   /* what was there is gone */
	void *p = f(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && counted(prot, flags))
		heap_on_mmap(p, len, fn, c);
	return p;
}

SMP_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (!READY())
		return MAP_FAILED;
	return mmap_at(real.mmap, addr, len, prot, flags, fd, off, FN(mmap), CALLER());
}

SMP_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (!READY())
		return MAP_FAILED;
	return mmap_at(real.mmap64 ? real.mmap64 : real.mmap, addr, len, prot, flags, fd, off,
		       FN(mmap64), CALLER());
}

SMP_EXPORT int munmap(void *addr, size_t len)
{
	if (!READY())
		return -1;
	heap_on_munmap(addr, len);
	return real.munmap(addr, len);
}

SMP_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *want = NULL;
	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		want = va_arg(ap, void *);
		va_end(ap);
	}
	if (!READY() || !real.mremap) {
		errno = ENOSYS;
		return MAP_FAILED;
	}
	void *p = real.mremap(old, old_len, new_len, flags, want);
	if (p != MAP_FAILED)
		heap_on_mremap(old, old_len, p, new_len, FN(mremap), CALLER());
	return p;
}
