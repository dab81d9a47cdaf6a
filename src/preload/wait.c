/* The wait tracer of libplumb-sampler.so: decides which timed calls become
 * WAIT records and takes their stacks.
 *
 * --sync-wait: every synchronization wait (mutex, condvar, rwlock,
 * semaphore, join, barrier) at or above the threshold gets a record with its
 * stack, as gprofng's synctrace does. The default threshold is calibrated at
 * load, as gprofng does: the longest of 100 uncontended lock/unlock pairs,
 * at least 6 times their mean, rounded up to a microsecond.
 *
 * --off-cpu: every wrapped call of WT_MIN_OFFCPU_NS or more gets a record
 * (48 bytes: the interval in which the kernel's switch records are looked
 * for), but its stack is taken only with probability p = 1 - e^(-t/T) for a
 * call of t ns (T the mean, PLUMB_SAMPLER_WAITS offcpu:T). The recorder
 * weighs what it charges to a taken stack by 1/p, so the sum is unbiased,
 * and long waits (t >> T) are always taken: unwinding, the costly part,
 * happens about once per T of waiting rather than once per wait. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <unwind.h>

#include "preload/cfi_walk.h"
#include "preload/sampler.h"
#include "preload/wait.h"

int wt_modes;
static uint64_t sync_threshold_ns, offcpu_mean_ns = 1000000;
static char settings[96];
static atomic_int cfg_pid;         /* the process whose file has our WAITCFG */

static __thread int wt_depth __attribute__((tls_model("initial-exec")));
static __thread uint64_t wt_rng __attribute__((tls_model("initial-exec")));

const char *wt_settings(void)
{
	return settings;
}

/* e^-x for x >= 0 without libm: x = n ln2 + r, e^-r by its series. */
static double exp_neg(double x)
{
	if (x > 700)
		return 0;
	int n = (int)(x / 0.6931471805599453);
	double r = x - n * 0.6931471805599453, term = 1, sum = 1;
	for (int i = 1; i < 14; i++) {
		term *= -r / i;
		sum += term;
	}
	while (n-- > 0)
		sum *= 0.5;
	return sum;
}

/* xorshift64*, seeded per thread from its id and the clock. */
static double uniform(void)
{
	if (!wt_rng)
		wt_rng = (smp_now() ^ ((uint64_t)(uintptr_t)&wt_rng << 16)) | 1;
	wt_rng ^= wt_rng >> 12;
	wt_rng ^= wt_rng << 25;
	wt_rng ^= wt_rng >> 27;
	return (double)((wt_rng * 0x2545f4914f6cdd1dull) >> 11) * (1.0 / 9007199254740992.0);
}

int wt_begin(struct wt_call *c, int kind)
{
	if (!wt_modes || (kind > PSMP_WAIT_SYNC_LAST && !(wt_modes & PSMP_MODE_OFFCPU)))
		return 0;
	if (!smp_self || wt_depth || !atomic_load_explicit(&smp.active, memory_order_relaxed) ||
	    atomic_load_explicit(&smp.stopping, memory_order_relaxed))
		return 0;
	wt_depth = 1;
	c->kind = kind;
	c->holder = 0;
	c->t0 = smp_now();
	return 1;
}

/* The sampler's thread start wrapper: left out of stacks (sampler_unwind.c). */
extern const char __start_plumb_roots[] __attribute__((weak, visibility("hidden")));
extern const char __stop_plumb_roots[] __attribute__((weak, visibility("hidden")));

struct walk {
	uint64_t ra, *out;
	unsigned n, max;
	int started, truncated;
};

static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *arg)
{
	struct walk *w = arg;
	int before = 0;
	uint64_t ip = _Unwind_GetIPInfo(ctx, &before);
	if (!w->started) {
		/* our own frames and the wrapper's end at its return address */
		if (ip != w->ra)
			return w->n++ > 16 ? _URC_END_OF_STACK : _URC_NO_REASON;
		w->started = 1;
		w->n = 0;
	} else if (__start_plumb_roots && ip - 1 >= (uint64_t)(uintptr_t)__start_plumb_roots &&
		   ip - 1 < (uint64_t)(uintptr_t)__stop_plumb_roots) {
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

static void write_cfg(void)
{
	int pid = (int)smp.pid, old = atomic_load(&cfg_pid);
	if (old == pid || !atomic_compare_exchange_strong(&cfg_pid, &old, pid))
		return;
	struct psmp_waitcfg c = { { PSMP_WAITCFG, sizeof c }, sync_threshold_ns, offcpu_mean_ns,
				  (uint32_t)wt_modes, 0 };
	smp_write(&c, sizeof c);
}

/* The frames from the wrapper's caller outwards: cached CFI recipes
 * (cfi_walk.c), else libgcc's unwinder; 0 frames when neither works. */
static unsigned walk_stack(uint64_t ra, uint64_t sp, uint64_t *out, unsigned max, int *truncated)
{
	uint64_t sps[PSMP_MAX_FRAMES];
	unsigned n = cfi_walk(ra, sp, out, sps, max < PSMP_MAX_FRAMES ? max : PSMP_MAX_FRAMES,
			      truncated, NULL);
	if (n) {
		/* the sampler's thread start wrapper is left out, as below */
		unsigned k = 0;
		for (unsigned i = 0; i < n; i++)
			if (!(__start_plumb_roots && out[i] - 1 >= (uint64_t)(uintptr_t)__start_plumb_roots &&
			      out[i] - 1 < (uint64_t)(uintptr_t)__stop_plumb_roots))
				out[k++] = out[i];
		return k;
	}
	struct walk k = { .ra = ra, .out = out, .max = max };
	_Unwind_Backtrace(step, &k);
	*truncated = k.truncated;
	return k.started ? k.n : 0;
}

int wt_try_locks(void)
{
	return !(wt_modes & PSMP_MODE_SYNC) || sync_threshold_ns > 0;
}

void wt_cancel(struct wt_call *c)
{
	(void)c;
	wt_depth = 0;
}

void wt_end(struct wt_call *c, uint64_t obj, const void *fn, const void *ra, uint64_t sp)
{
	uint64_t t1 = smp_now(), dur = t1 - c->t0;
	wt_depth = 0;
	int is_sync = (wt_modes & PSMP_MODE_SYNC) && c->kind <= PSMP_WAIT_SYNC_LAST &&
		      dur >= sync_threshold_ns;
	int offcpu = (wt_modes & PSMP_MODE_OFFCPU) && dur >= WT_MIN_OFFCPU_NS;
	if (!is_sync && !offcpu)
		return;
	int saved = errno;
	double p = 1;
	int take = is_sync;
	if (!take && offcpu) {
		p = 1 - exp_neg((double)dur / (double)offcpu_mean_ns);
		take = uniform() < p;
	}
	struct smp_slot *t = smp_self;
	if (atomic_exchange(&t->busy, 1)) {
		errno = saved;
		return;   /* our signal handler holds the buffer (cannot happen from a wrapper) */
	}
	write_cfg();
	const size_t max_rec = sizeof(struct psmp_wait) + PSMP_MAX_FRAMES * sizeof(uint64_t) +
			       sizeof(struct psmp_waitheld);
	if (t->len + max_rec > SMP_BUF)
		smp_flush(t, t1);
	struct psmp_wait *w = (struct psmp_wait *)(t->buf + t->len);
	unsigned n = 0;
	int truncated = 0;
	if (take) {
		uint64_t *out = (uint64_t *)(w + 1);
		/* out[0] is the waiting function; the walk's frames follow */
		n = walk_stack((uint64_t)(uintptr_t)ra, sp, out + 1, PSMP_MAX_FRAMES - 1, &truncated);
		if (!n) {
			out[1] = (uint64_t)(uintptr_t)ra;   /* no CFI for us: the caller at least */
			n = 1;
		}
		out[0] = (uint64_t)(uintptr_t)fn;
		n++;
	}
	w->h.type = PSMP_WAIT;
	w->h.size = (uint32_t)(sizeof *w + n * sizeof(uint64_t));
	w->tid = (uint32_t)t->tid;
	w->nframes = (uint16_t)n;
	w->kind = (uint8_t)c->kind;
	w->flags = (uint8_t)((is_sync ? PSMP_WAIT_IS_SYNC : 0) | (truncated ? PSMP_WAIT_TRUNCATED : 0));
	w->t0 = c->t0;
	w->t1 = t1;
	w->obj = obj;
	w->inv_p = take ? (uint64_t)(65536.0 / p + 0.5) : 0;
	t->len += w->h.size;
	if (is_sync && c->holder && c->holder != (uint32_t)t->tid) {
		struct psmp_waitheld held = { { PSMP_WAITHELD, sizeof held }, c->holder, 0 };
		memcpy(t->buf + t->len, &held, sizeof held);
		t->len += sizeof held;
	}
	if (t->len >= SMP_BUF / 2 || t1 - t->last_flush >= SMP_FLUSH_NS)
		smp_flush(t, t1);
	atomic_store(&t->busy, 0);
	errno = saved;
}

/* gprofng's calibration: uncontended lock/unlock pairs timed as a wait. */
static uint64_t calibrate(int (*lock)(pthread_mutex_t *), int (*unlock)(pthread_mutex_t *))
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	uint64_t max = 0, sum = 0;
	for (int i = 0; i < 100; i++) {
		uint64_t a = smp_now();
		lock(&m);
		unlock(&m);
		uint64_t d = smp_now() - a;
		sum += d;
		max = d > max ? d : max;
	}
	uint64_t thr = max > 6 * (sum / 100) ? max : 6 * (sum / 100);
	return (thr + 999) / 1000 * 1000;
}

/* PLUMB_SAMPLER_WAITS: "offcpu:MEAN_NS" and/or "sync:THRESHOLD_NS" or
 * "sync:auto", comma-separated. */
void wt_setup(int (*lock)(pthread_mutex_t *), int (*unlock)(pthread_mutex_t *))
{
	const char *s = getenv("PLUMB_SAMPLER_WAITS");
	if (!s || !getenv("PLUMB_SAMPLER_DIR"))
		return;
	int modes = 0;
	for (const char *p = s; *p;) {
		if (strncmp(p, "offcpu:", 7) == 0) {
			modes |= PSMP_MODE_OFFCPU;
			uint64_t v = strtoull(p + 7, NULL, 10);
			offcpu_mean_ns = v ? v : 1000000;
		} else if (strncmp(p, "sync:", 5) == 0) {
			modes |= PSMP_MODE_SYNC;
			sync_threshold_ns = strncmp(p + 5, "auto", 4) == 0 ? calibrate(lock, unlock)
									   : strtoull(p + 5, NULL, 10);
		}
		const char *comma = strchr(p, ',');
		p = comma ? comma + 1 : p + strlen(p);
	}
	/* an exec'd image keeps the numbers (no second calibration) */
	int len = 0;
	if (modes & PSMP_MODE_OFFCPU)
		len = snprintf(settings, sizeof settings, "offcpu:%llu", (unsigned long long)offcpu_mean_ns);
	if (modes & PSMP_MODE_SYNC)
		snprintf(settings + len, sizeof settings - (size_t)len, "%ssync:%llu", len ? "," : "",
			 (unsigned long long)sync_threshold_ns);
	if (modes && cfi_walk_init() != 0)
		return;   /* no memory for the recipes: no tracing */
	wt_modes = modes;
}
