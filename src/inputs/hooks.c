/* The hooks gcc's -fsanitize=thread and -fsanitize-coverage=trace-pc make
 * every instrumented function call (plumb's runtime stands in for libtsan),
 * and the runtime's life: a state per thread made at its first hook, a
 * report when the thread ends, at exit, and on a fatal or terminating
 * signal whose action was the default. Without PLUMB_APROF_DIR in the
 * environment every hook returns at once and nothing is written. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inputs/inputs.h"
#include "inputs/rms_inline.h"

/* What `plumb record` looks for to know a program was built with plumb cc. */
__attribute__((section(".plumb_inputs"), used)) static const char marker[] = "plumb-inputs 1";

enum { OFF = 1, ON = 2 };
static atomic_int mode;                 /* 0: not yet initialised */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t thread_key;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static inp_report_opts opts;
static char dir_buf[4096];
static uint32_t clock_max = UINT32_MAX;
static bool inline_off;                 /* PLUMB_APROF_INLINE=no */
static atomic_uint next_seq = 1;

/* not static: the other hook files (hooks_clang.c) read it too */
INP_HIDDEN INP_TLS inp_thread *tls_thread;
static INP_TLS bool tls_dead;
static INP_TLS bool tls_off;            /* not measuring: the process runs without plumb */

/* ---- the state the inline fast paths read (src/inputs/gcc_plugin.cc) --
 * Basic blocks executed by the thread (all of them, measuring or not), the
 * top activation's id, and the shadow's leaf cache: a read of a cell of a
 * cached leaf stamped at or after aid, or a write within one, needs no
 * call. The inline code knows 4-byte cells: with another --memres the
 * cache stays empty. Empty slots have a tag no address has and idle_leaf,
 * a leaf of 4-byte cells and its spare cell, as the inline read loads the
 * cell before it knows whether the tag matched. Threads that do not
 * measure cache it for real addresses (off_access) and write 0s to it. */
#define TLS_FAST INP_TLS INP_EXPORT
static uint32_t idle_leaf[(1u << INP_LEAF_BITS) / 4 + 1];
TLS_FAST uint64_t __plumb_inp_cost;
TLS_FAST uintptr_t __plumb_inp_tags[INP_LEAF_CACHE] = { [0 ... INP_LEAF_CACHE - 1] = UINTPTR_MAX };
TLS_FAST uint32_t *__plumb_inp_leaves[INP_LEAF_CACHE] = { [0 ... INP_LEAF_CACHE - 1] = idle_leaf };
TLS_FAST uint32_t __plumb_inp_aid;
TLS_FAST uint64_t __plumb_inp_fast[INP_FAST_N]; /* inp_thread.fast */
_Static_assert(offsetof(inp_frame, aid) == 0 && offsetof(inp_frame, partial) == 48 && sizeof(inp_frame) == 56,
	       "the frame's layout, as src/inputs/gcc_plugin.cc knows it");

/* After the runtime changed the top activation: top. */
static inline void publish_frame(const inp_frame *top)
{
	__plumb_inp_aid = top->aid;
	__plumb_inp_fast[INP_FAST_TOP] = (uintptr_t)top;
}

static inline void publish(const inp_thread *t)
{
	publish_frame(&t->frames[t->depth]);
}

static void report(inp_thread *t, bool in_signal)
{
	t->cost = __plumb_inp_cost;
	inp_unwind_all(t);
	publish(t); /* the root: no read is new to it */
	if (in_signal ? pthread_mutex_trylock(&report_lock) : pthread_mutex_lock(&report_lock))
		return;
	inp_write_report(t, &opts);
	pthread_mutex_unlock(&report_lock);
}

static void thread_end(void *arg)
{
	inp_thread *t = arg;
	tls_thread = NULL;
	tls_dead = true;
	report(t, false);
	if (t->blocks) {
		inp_blocks_free(t->blocks);
		inp_unmap(t->blocks, sizeof *t->blocks);
	}
	inp_thread_free(t);
	inp_unmap(t, sizeof *t);
}

static void on_signal(int sig)
{
	inp_thread *t = tls_thread;
	if (t) {
		tls_thread = NULL;
		tls_dead = true;
		report(t, true);
	}
	/* SA_RESETHAND gave the default action back: take it */
	raise(sig);
}

static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
		struct sigaction old, sa;
		if (sigaction(sigs[i], NULL, &old) || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
			continue; /* the program's own, or ignored: leave it */
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		/* the same and the other signals wait while the report is written
		 * (a Ctrl-C reaches the program twice under plumb record); the
		 * raise takes effect when the handler returns */
		sa.sa_flags = SA_RESETHAND;
		sigemptyset(&sa.sa_mask);
		for (size_t k = 0; k < sizeof sigs / sizeof *sigs; k++)
			sigaddset(&sa.sa_mask, sigs[k]);
		sigaction(sigs[i], &sa, NULL);
	}
}

static unsigned log2_of(unsigned v)
{
	unsigned s = 0;
	while ((1u << s) < v)
		s++;
	return s;
}

/* fork: the child's calling thread goes on (fork.c); the others are gone */
static void after_fork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	report_lock = fresh;
	atomic_store(&next_seq, 1);
	inp_thread *t = tls_thread;
	if (t) {
		t->seq = 0;
		inp_after_fork(t);
	}
}

static void init(void)
{
	const char *dir = getenv("PLUMB_APROF_DIR");
	if (!dir || !*dir || strlen(dir) >= sizeof dir_buf || pthread_key_create(&thread_key, thread_end)) {
		atomic_store(&mode, OFF);
		return;
	}
	strcpy(dir_buf, dir);
	opts.dir = dir_buf;
	opts.memres = 4;
	const char *m = getenv("PLUMB_APROF_MEMRES");
	if (m && (!strcmp(m, "1") || !strcmp(m, "2") || !strcmp(m, "8") || !strcmp(m, "16")))
		opts.memres = (unsigned)atoi(m);
	const char *c = getenv("PLUMB_APROF_CONTEXTS");
	opts.contexts = !(c && (!strcmp(c, "no") || !strcmp(c, "0")));
	/* tests: a small clock makes the renumbering happen */
	const char *cm = getenv("PLUMB_APROF_CLOCK_MAX");
	if (cm && atol(cm) >= 64)
		clock_max = (uint32_t)atol(cm);
	/* tests: the gcc plugin's inline paths always miss (the same binary
	 * then measures with the runtime's hooks alone) */
	const char *in = getenv("PLUMB_APROF_INLINE");
	inline_off = in && !strcmp(in, "no");
	const char *d = getenv("PLUMB_APROF_DRMS");
	opts.drms = d && (!strcmp(d, "yes") || !strcmp(d, "1"));
	if (opts.drms && inp_drms_init(log2_of(opts.memres), clock_max)) {
		atomic_store(&mode, OFF);
		return;
	}
	const char *lines = getenv("PLUMB_APROF_LINES");
	opts.lines = lines && (!strcmp(lines, "yes") || !strcmp(lines, "1"));
	const char *cost = getenv("PLUMB_APROF_COST");
	opts.cost_time = cost && !strcmp(cost, "time");
	catch_signals();
	pthread_atfork(NULL, NULL, after_fork_child);
	atomic_store(&mode, ON);
}

__attribute__((noinline)) static inp_thread *thread_start(void)
{
	if (tls_dead)
		return NULL;
	if (!atomic_load_explicit(&mode, memory_order_acquire))
		pthread_once(&once, init);
	if (atomic_load_explicit(&mode, memory_order_relaxed) != ON) {
		tls_off = true;
		return NULL;
	}
	inp_thread *t = inp_map(sizeof *t);
	if (!t || inp_thread_init(t, log2_of(opts.memres))) {
		inp_unmap(t, sizeof *t);
		tls_dead = true;
		return NULL;
	}
	/* drms sees every access (another thread's writes make a counted cell
	 * new input): the gcc plugin's inline paths, which skip the runtime
	 * when a cell was counted already, are kept missing by an empty cache */
	if (!opts.drms && !inline_off && opts.memres == 4)
		inp_shadow_use_cache(&t->shadow, __plumb_inp_tags, __plumb_inp_leaves, idle_leaf);
	inp_thread_use_fast(t, __plumb_inp_fast);
	t->clock_max = clock_max;
	if (opts.drms) {
		t->drms = true;
		t->clock_max = UINT32_MAX; /* the global clock has its own limit */
		if (inp_grow((void **)&t->dframes, &t->dframes_cap, 2, sizeof *t->dframes)) {
			inp_thread_free(t);
			inp_unmap(t, sizeof *t);
			tls_dead = true;
			return NULL;
		}
	}
	if (opts.lines) {
		t->blocks = inp_map(sizeof *t->blocks);
		if (t->blocks)
			inp_blocks_free(t->blocks); /* empty, no last slot */
	}
	if (opts.cost_time) {
		t->cost_time = true;
		t->cost_base = inp_now_us();
	}
	t->seq = gettid() == getpid() ? 0 : atomic_fetch_add(&next_seq, 1);
	tls_thread = t;
	pthread_setspecific(thread_key, t);
	return t;
}

__attribute__((constructor(101))) static void start(void)
{
	pthread_once(&once, init);
}

/* At exit, the exiting thread's report (the others end with their threads). */
__attribute__((destructor(101))) static void finish(void)
{
	inp_thread *t = tls_thread;
	if (!t)
		return;
	tls_thread = NULL;
	tls_dead = true;
	pthread_setspecific(thread_key, NULL);
	report(t, false);
}

INP_HIDDEN void inp_end_thread(void)
{
	inp_thread *t = tls_thread;
	if (!t)
		return;
	tls_thread = NULL;
	tls_dead = true;
	pthread_setspecific(thread_key, NULL);
	report(t, false);
}

INP_HIDDEN inp_thread *inp_current(void)
{
	return tls_thread;
}

/* The calling thread's state, made at its first event (the entry hooks of
 * hooks_clang.c). */
INP_HIDDEN inp_thread *inp_current_start(void)
{
	inp_thread *t = tls_thread;
	return t ? t : tls_off ? NULL : thread_start();
}

/* ---- the hooks ------------------------------------------------------- */

INP_EXPORT void __tsan_init(void)
{
	(void)*(volatile const char *)marker;
}

/* A frame's stack address, for finding the frames a longjmp left: the
 * routine's CFA (its caller's stack pointer at the call) when the gcc
 * plugin passes it; else the routine's stack pointer at the hook's call
 * + 8 (the hook's frame address + 24), which also orders a routine below
 * its caller and above its callees, the plugin's or not. */
#define HOOK_SP() ((uintptr_t)__builtin_frame_address(0) + 24)

/* The whole paths, and the thread's start: out of line and reached by a
 * tail call, so that the common paths save no registers. */
__attribute__((noinline)) static void enter_whole(uintptr_t pc, uintptr_t sp, uintptr_t caller_pc)
{
	inp_thread *t = tls_thread;
	if (!t && !(t = thread_start()))
		return;
	t->cost = __plumb_inp_cost;
	inp_enter_whole(t, pc, sp, caller_pc);
	publish(t);
}

__attribute__((noinline)) static void leave_whole(uintptr_t sp, uintptr_t ra)
{
	inp_thread *t = tls_thread;
	if (!t)
		return;
	t->cost = __plumb_inp_cost;
	inp_exit_whole(t, sp, ra);
	publish(t);
}

static inline __attribute__((always_inline)) void enter(uintptr_t pc, uintptr_t sp, uintptr_t caller_pc)
{
	inp_thread *t = tls_thread;
	inp_frame *top;
	if (__builtin_expect(!t, 0))
		return tls_off ? (void)0 : enter_whole(pc, sp, caller_pc);
	t->cost = __plumb_inp_cost;
	if (__builtin_expect(!(top = inp_enter_fast(t, pc, sp, caller_pc)), 0))
		return enter_whole(pc, sp, caller_pc);
	publish_frame(top);
}

static inline __attribute__((always_inline)) void leave(uintptr_t sp, uintptr_t ra)
{
	inp_thread *t = tls_thread;
	inp_frame *top;
	if (__builtin_expect(!t, 0))
		return;
	t->cost = __plumb_inp_cost;
	if (__builtin_expect(!(top = inp_exit_fast(t, sp)), 0))
		return leave_whole(sp, ra);
	publish_frame(top);
}

INP_EXPORT void __tsan_func_entry(void *caller_pc)
{
	enter((uintptr_t)__builtin_return_address(0), HOOK_SP(), (uintptr_t)caller_pc);
}

INP_EXPORT void __tsan_func_exit(void)
{
	leave(HOOK_SP(), (uintptr_t)__builtin_return_address(0));
}

/* the gcc plugin's hooks ran: blocks are counted inline. Written once: a
 * store at every entry would bounce its cache line between threads. */
static atomic_bool plugin_built;

INP_HIDDEN bool inp_plugin_built(void)
{
	return atomic_load_explicit(&plugin_built, memory_order_relaxed);
}

/* The plugin's entry in a context new to the thread, which the first call
 * of every routine is: its whole path, and the plugin seen. */
__attribute__((noinline)) static void plugin_enter_whole(uintptr_t pc, uintptr_t sp, uintptr_t caller_pc)
{
	if (!atomic_load_explicit(&plugin_built, memory_order_relaxed))
		atomic_store_explicit(&plugin_built, true, memory_order_relaxed);
	enter_whole(pc, sp, caller_pc);
}

/* The plugin's: blocks is what the routine counted since its last flush. */
INP_EXPORT void __plumb_inp_func_entry(void *caller_pc, void *cfa, uint64_t blocks)
{
	uintptr_t pc = (uintptr_t)__builtin_return_address(0);
	inp_thread *t = tls_thread;
	inp_frame *top;
	__plumb_inp_cost += blocks;
	if (__builtin_expect(!t, 0))
		return tls_off ? (void)0 : plugin_enter_whole(pc, (uintptr_t)cfa, (uintptr_t)caller_pc);
	t->cost = __plumb_inp_cost;
	if (__builtin_expect(!(top = inp_enter_fast(t, pc, (uintptr_t)cfa, (uintptr_t)caller_pc)), 0))
		return plugin_enter_whole(pc, (uintptr_t)cfa, (uintptr_t)caller_pc);
	publish_frame(top);
}

INP_EXPORT void __plumb_inp_func_exit(void *cfa, uint64_t blocks)
{
	__plumb_inp_cost += blocks;
	leave((uintptr_t)cfa, (uintptr_t)__builtin_return_address(0));
}

INP_EXPORT void __sanitizer_cov_trace_pc(void)
{
	__plumb_inp_cost++;
	inp_thread *t = tls_thread;
	if (t && t->blocks)
		inp_block_hit(t, (uintptr_t)__builtin_return_address(0));
}

/* Not measuring, a thread's inline reads and writes of the gcc plugin
 * would miss the empty leaf cache and call here every time (an
 * instrumented Lua ran 9x slower than plain without plumb): the leaf of
 * the address is cached as idle_leaf instead. With no activation (aid 0)
 * every cell of it counts as read already, and writes store 0 there, so
 * later accesses to those 64 KiB take no call. */
static inline void off_access(uintptr_t a)
{
	if (__builtin_expect(tls_off, 1)) {
		size_t slot = (a >> INP_LEAF_BITS) & (INP_LEAF_CACHE - 1);
		__plumb_inp_tags[slot] = a >> INP_LEAF_BITS;
		__plumb_inp_leaves[slot] = idle_leaf;
	}
}

/* The whole access: the inline fast path missed, or there is none. */
#define ACCESS(name, size, fn)                        \
	INP_EXPORT void name(void *addr)              \
	{                                             \
		inp_thread *t = tls_thread;           \
		if (t)                                \
			fn(t, (uintptr_t)addr, size); \
		else                                  \
			off_access((uintptr_t)addr);  \
	}
#define ACCESSES(size)                                               \
	ACCESS(__tsan_read##size, size, inp_read)                    \
	ACCESS(__tsan_write##size, size, inp_write)                  \
	ACCESS(__tsan_unaligned_read##size, size, inp_read)          \
	ACCESS(__tsan_unaligned_write##size, size, inp_write)        \
	ACCESS(__tsan_volatile_read##size, size, inp_read)           \
	ACCESS(__tsan_volatile_write##size, size, inp_write)
ACCESS(__tsan_read1, 1, inp_read)
ACCESS(__tsan_write1, 1, inp_write)
ACCESS(__tsan_volatile_read1, 1, inp_read)
ACCESS(__tsan_volatile_write1, 1, inp_write)
ACCESSES(2)
ACCESSES(4)
ACCESSES(8)
ACCESSES(16)

INP_EXPORT void __tsan_read_range(void *addr, size_t size)
{
	inp_thread *t = tls_thread;
	if (t)
		inp_read(t, (uintptr_t)addr, size);
}

INP_EXPORT void __tsan_write_range(void *addr, size_t size)
{
	inp_thread *t = tls_thread;
	if (t)
		inp_write(t, (uintptr_t)addr, size);
}

INP_EXPORT void __tsan_vptr_update(void **vptr, void *value)
{
	(void)value;
	__tsan_write8(vptr);
}

INP_EXPORT void __tsan_vptr_read(void **vptr)
{
	__tsan_read8(vptr);
}

/* ---- atomics: done for real (sequentially consistent, whatever order was
 * asked), seen as a read, and a write when they store ------------------- */

INP_EXPORT void __tsan_atomic_thread_fence(int mo)
{
	(void)mo;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

INP_EXPORT void __tsan_atomic_signal_fence(int mo)
{
	(void)mo;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

#define SEEN_READ(a) __tsan_read_range((void *)(a), sizeof *(a))
#define SEEN_RMW(a) (__tsan_read_range((void *)(a), sizeof *(a)), __tsan_write_range((void *)(a), sizeof *(a)))

#define RMW(bits, T, op, builtin)                                                         \
	INP_EXPORT T __tsan_atomic##bits##_##op(volatile T *a, T v, int mo)               \
	{                                                                                 \
		(void)mo;                                                                 \
		SEEN_RMW(a);                                                              \
		return builtin(a, v, __ATOMIC_SEQ_CST);                                   \
	}
#define ATOMICS(bits, T)                                                                        \
	INP_EXPORT T __tsan_atomic##bits##_load(const volatile T *a, int mo)                    \
	{                                                                                       \
		(void)mo;                                                                       \
		SEEN_READ(a);                                                                   \
		return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                    \
	}                                                                                       \
	INP_EXPORT void __tsan_atomic##bits##_store(volatile T *a, T v, int mo)                 \
	{                                                                                       \
		(void)mo;                                                                       \
		__tsan_write_range((void *)a, sizeof *a);                                       \
		__atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                       \
	}                                                                                       \
	RMW(bits, T, exchange, __atomic_exchange_n)                                             \
	RMW(bits, T, fetch_add, __atomic_fetch_add)                                             \
	RMW(bits, T, fetch_sub, __atomic_fetch_sub)                                             \
	RMW(bits, T, fetch_and, __atomic_fetch_and)                                             \
	RMW(bits, T, fetch_or, __atomic_fetch_or)                                               \
	RMW(bits, T, fetch_xor, __atomic_fetch_xor)                                             \
	RMW(bits, T, fetch_nand, __atomic_fetch_nand)                                           \
	INP_EXPORT int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *e, T v,  \
								     int mo, int fmo)           \
	{                                                                                       \
		(void)mo, (void)fmo;                                                            \
		SEEN_RMW(a);                                                                    \
		return __atomic_compare_exchange_n(a, e, v, 0, __ATOMIC_SEQ_CST,                \
						   __ATOMIC_SEQ_CST);                           \
	}                                                                                       \
	INP_EXPORT int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *e, T v,    \
								   int mo, int fmo)             \
	{                                                                                       \
		(void)mo, (void)fmo;                                                            \
		SEEN_RMW(a);                                                                    \
		return __atomic_compare_exchange_n(a, e, v, 1, __ATOMIC_SEQ_CST,                \
						   __ATOMIC_SEQ_CST);                           \
	}                                                                                       \
	INP_EXPORT T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T e, T v, int mo, \
								int fmo)                        \
	{                                                                                       \
		(void)mo, (void)fmo;                                                            \
		SEEN_RMW(a);                                                                    \
		__atomic_compare_exchange_n(a, &e, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);   \
		return e;                                                                       \
	}
ATOMICS(8, uint8_t)
ATOMICS(16, uint16_t)
ATOMICS(32, uint32_t)
ATOMICS(64, uint64_t)
