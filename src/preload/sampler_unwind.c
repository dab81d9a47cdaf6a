/* The SIGPROF handler: one sample of the interrupted thread, unwound with
 * libgcc's DWARF unwinder (the binaries' .eh_frame CFI). On glibc >= 2.35
 * libgcc finds FDEs through _dl_find_object, which takes no lock, so
 * _Unwind_Backtrace may run in a signal handler. */
#include <errno.h>
#include <string.h>
#include <ucontext.h>
#include <unwind.h>

#include "preload/sampler.h"

/* The thread start wrapper lives in this section: its frame is dropped so
 * that thread stacks read clone3 -> start_thread -> the program's routine. */
extern const char __start_plumb_roots[] __attribute__((weak, visibility("hidden")));
extern const char __stop_plumb_roots[] __attribute__((weak, visibility("hidden")));

struct walk {
	uint64_t pc;        /* the interrupted pc: frames before it are the handler's */
	uint64_t *out;
	unsigned n, max, skipped;
	int started, truncated;
};

static int in_wrapper(uint64_t ra)
{
	return __start_plumb_roots && ra - 1 >= (uint64_t)(uintptr_t)__start_plumb_roots &&
	       ra - 1 < (uint64_t)(uintptr_t)__stop_plumb_roots;
}

static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *arg)
{
	struct walk *w = arg;
	int before = 0;
	uint64_t ip = _Unwind_GetIPInfo(ctx, &before);
	if (!w->started) {
		/* Skip the handler and the sigreturn trampoline: the frame
		 * after the trampoline has exactly the interrupted pc. */
		if (ip != w->pc)
			return ++w->skipped > 32 ? _URC_END_OF_STACK : _URC_NO_REASON;
		w->started = 1;
	} else if (in_wrapper(ip)) {
		return _URC_NO_REASON;
	}
	if (ip == 0)
		return _URC_END_OF_STACK;
	if (w->n == w->max) {
		w->truncated = 1;
		return _URC_END_OF_STACK;
	}
	w->out[w->n++] = ip;
	return _URC_NO_REASON;
}

static _Unwind_Reason_Code stop_at_once(struct _Unwind_Context *ctx, void *arg)
{
	(void)ctx;
	(void)arg;
	return _URC_END_OF_STACK;
}

/* libgcc initialises some tables on first use (with pthread_once): do it
 * now, outside any signal handler. */
void smp_unwind_warm_up(void)
{
	_Unwind_Backtrace(stop_at_once, NULL);
	uint64_t pcs[4];
	struct walk w = { .pc = 1, .out = pcs, .max = 4 };
	_Unwind_Backtrace(step, &w);
}

/* Append one SAMPLE record to t's buffer; flush when it is half full or
 * SMP_FLUSH_NS have passed. */
static void take_sample(struct smp_slot *t, const siginfo_t *si, const ucontext_t *uc)
{
	const size_t max_rec = sizeof(struct psmp_sample) + PSMP_MAX_FRAMES * sizeof(uint64_t);
	uint64_t now = smp_now();
	if (t->len + max_rec > SMP_BUF)
		smp_flush(t, now);
	struct psmp_sample *s = (struct psmp_sample *)(t->buf + t->len);
	struct walk w = {
		.pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP],
		.out = (uint64_t *)(s + 1),
		.max = PSMP_MAX_FRAMES,
	};
	_Unwind_Backtrace(step, &w);
	uint16_t flags = w.truncated ? PSMP_SAMPLE_TRUNCATED : 0;
	if (!w.started) {
		w.out[0] = w.pc;   /* at least the pc */
		w.n = 1;
		flags |= PSMP_SAMPLE_NO_UNWIND;
	}
	s->h.type = PSMP_SAMPLE;
	s->h.size = (uint32_t)(sizeof *s + w.n * sizeof(uint64_t));
	s->tid = (uint32_t)t->tid;
	s->nframes = (uint16_t)w.n;
	s->flags = flags;
	s->overrun = si->si_overrun > 0 ? (uint32_t)si->si_overrun : 0;
	s->pad = 0;
	s->time_ns = now;
	t->len += s->h.size;
	atomic_fetch_add_explicit(&smp.samples, 1, memory_order_relaxed);
	if (t->len >= SMP_BUF / 2 || now - t->last_flush >= SMP_FLUSH_NS)
		smp_flush(t, now);
	atomic_fetch_add_explicit(&smp.handler_ns, smp_now() - now, memory_order_relaxed);
}

void smp_on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	int saved = errno;
	struct smp_slot *t = smp_self;
	if (t && si->si_code == SI_TIMER) {
		if (!atomic_load(&smp.stopping) && !atomic_exchange(&t->busy, 1)) {
			take_sample(t, si, uc);
			atomic_store(&t->busy, 0);
		} else {
			atomic_fetch_add_explicit(&smp.dropped, 1, memory_order_relaxed);
		}
	}
	errno = saved;
}
