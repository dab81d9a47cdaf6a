/* Off-CPU time and lock waits from two sources: the kernel's context-switch
 * records (exact per-thread intervals, no stack at paranoid 2) and the
 * preloaded library's timed blocking calls (stacks, objects). Kept raw
 * while recording, then turned into samples by plumb_rec_waits_finish.
 * docs/waits.md says what is seen how. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/index.h"
#include "plumb/record.h"
#include "preload/format.h"
#include "record/signal_read.h"
#include "record/waits_order.h"
#include "record/waits_sched.h"

typedef struct rec_wait {
	int32_t pid, tid;
	int32_t holder;        /* the lock's owner when the wait began; 0: unknown */
	uint8_t kind, flags;
	uint32_t nips;
	uint64_t t0, t1, obj, inv_p;
	size_t ips;            /* into plumb_rec_waits.ips */
} rec_wait;

typedef struct rec_switch {
	int32_t pid, tid;
	uint64_t time;
	bool out, preempted;
} rec_switch;

/* The stack of a thread that was blocked when -p's window opened, read
 * from its registers and stack memory then (waits_perf.c). */
typedef struct rec_held {
	int32_t pid, tid;
	uint64_t time;         /* the window's opening */
	uint32_t nips, flags;
	size_t ips;            /* into plumb_rec_waits.ips */
} rec_held;

/* A schedstat reading (waits_sched.c): PLUMB_SCHED_* kind. */
typedef struct rec_sched {
	int32_t pid, tid;
	uint64_t time, exec, delay;
	unsigned kind;
} rec_sched;

typedef struct rec_period {
	size_t index;
	uint64_t ns;
} rec_period;

struct plumb_rec_waits {
	PLUMB_VEC(rec_wait) waits;
	PLUMB_VEC(uint64_t) ips;
	PLUMB_VEC(rec_switch) switches;
	PLUMB_VEC(rec_held) held;     /* by thread once sorted */
	PLUMB_VEC(rec_period) periods;
	PLUMB_VEC(rec_sched) sched;
	uint64_t sync_threshold_ns, offcpu_mean_ns;
	bool have_config;
};

static struct plumb_rec_waits *waits_of(plumb_rec_data *d)
{
	if (!d->waits)
		d->waits = calloc(1, sizeof *d->waits);
	return d->waits;
}

void plumb_rec_waits_free(struct plumb_rec_waits *w)
{
	if (!w)
		return;
	free(w->waits.v);
	free(w->ips.v);
	free(w->switches.v);
	free(w->held.v);
	free(w->periods.v);
	free(w->sched.v);
	free(w);
}

int plumb_rec_wait_add(plumb_rec_data *d, int32_t pid, int32_t tid, unsigned kind, unsigned flags,
		       uint64_t t0, uint64_t t1, uint64_t obj, uint64_t inv_p, const uint64_t *chain,
		       size_t n, plumb_error *err)
{
	struct plumb_rec_waits *w = waits_of(d);
	if (!w || plumb_vec_reserve(w->waits, w->waits.n + 1) || plumb_vec_reserve(w->ips, w->ips.n + n))
		return plumb_fail_nomem(err);
	w->waits.v[w->waits.n++] = (rec_wait){ pid, tid, 0, (uint8_t)kind, (uint8_t)flags, (uint32_t)n,
					       t0, t1, obj, inv_p, w->ips.n };
	if (n)
		memcpy(w->ips.v + w->ips.n, chain, n * sizeof *chain);
	w->ips.n += n;
	return 0;
}

void plumb_rec_wait_held(plumb_rec_data *d, int32_t pid, int32_t holder)
{
	struct plumb_rec_waits *w = d->waits;
	if (w && w->waits.n && w->waits.v[w->waits.n - 1].pid == pid)
		w->waits.v[w->waits.n - 1].holder = holder;
}

int plumb_rec_switch_add(plumb_rec_data *d, int32_t pid, int32_t tid, uint64_t time_ns, bool out,
			 bool preempted, plumb_error *err)
{
	struct plumb_rec_waits *w = waits_of(d);
	if (!w || plumb_vec_reserve(w->switches, w->switches.n + 1))
		return plumb_fail_nomem(err);
	w->switches.v[w->switches.n++] = (rec_switch){ pid, tid, time_ns, out, preempted };
	return 0;
}

int plumb_rec_sched_add(plumb_rec_data *d, int32_t pid, int32_t tid, uint64_t time_ns,
			uint64_t exec_ns, uint64_t delay_ns, unsigned kind, plumb_error *err)
{
	struct plumb_rec_waits *w = waits_of(d);
	if (!w || plumb_vec_push(w->sched, ((rec_sched){ pid, tid, time_ns, exec_ns, delay_ns, kind })))
		return plumb_fail_nomem(err);
	return 0;
}

int plumb_rec_held_add(plumb_rec_data *d, int32_t pid, int32_t tid, uint64_t time_ns,
		       const uint64_t *chain, size_t n, uint32_t flags, plumb_error *err)
{
	struct plumb_rec_waits *w = waits_of(d);
	if (!w || plumb_vec_reserve(w->held, w->held.n + 1) || plumb_vec_reserve(w->ips, w->ips.n + n))
		return plumb_fail_nomem(err);
	w->held.v[w->held.n++] = (rec_held){ pid, tid, time_ns, (uint32_t)n, flags, w->ips.n };
	if (n)
		memcpy(w->ips.v + w->ips.n, chain, n * sizeof *chain);
	w->ips.n += n;
	return 0;
}

int plumb_rec_period_note(plumb_rec_data *d, size_t index, uint64_t period_ns, plumb_error *err)
{
	struct plumb_rec_waits *w = waits_of(d);
	if (!w || plumb_vec_reserve(w->periods, w->periods.n + 1))
		return plumb_fail_nomem(err);
	w->periods.v[w->periods.n++] = (rec_period){ index, period_ns };
	return 0;
}

void plumb_rec_waits_config(plumb_rec_data *d, uint64_t sync_threshold_ns, uint64_t offcpu_mean_ns)
{
	struct plumb_rec_waits *w = waits_of(d);
	if (!w)
		return;
	w->sync_threshold_ns = sync_threshold_ns;
	w->offcpu_mean_ns = offcpu_mean_ns;
	w->have_config = true;
}

size_t plumb_rec_waits_count(const plumb_rec_data *d)
{
	return d->waits ? d->waits->waits.n : 0;
}

const char *plumb_rec_event_unit(const char *e)
{
	if (!strcmp(e, "off-cpu") || !strcmp(e, "preempted") || !strcmp(e, "wall") || !strcmp(e, "sync-wait"))
		return "ns";
	return strcmp(e, "sync-waits") == 0 ? "waits" : "samples";
}

/* ---- finishing ----------------------------------------------------------- */

/* Intervals of a thread at one stack closer than this to the first one of a
 * run are summed into one sample at that first one's time: a ping-pong of
 * 150,000 switches a second makes ~1,000 samples a second, not 150,000,
 * and timelines keep a millisecond's resolution. */
#define COALESCE_NS 1000000u

typedef struct fin {
	plumb_rec_data *d;
	struct plumb_rec_waits *w;
	int off, pre, wall;        /* event indexes, -1 if absent */
	size_t last[3];            /* the latest sample charge() made per event, +1 (0: none) */
	PLUMB_VEC(uint64_t) tmp;
	plumb_error *err;
} fin;

/* A CPU sample: (thread, time, index into d->samples). */
typedef struct cpu_ref {
	int32_t pid, tid;
	uint64_t time;
	size_t index;
	uint64_t ns;           /* the CPU time it stands for */
	bool covered;          /* its wall came from a schedstat period */
} cpu_ref;

static int by_thread_time_cpu(const void *a, const void *b)
{
	const cpu_ref *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

static int cmp_thread(int32_t pa, int32_t ta, int32_t pb, int32_t tb)
{
	if (pa != pb)
		return pa < pb ? -1 : 1;
	return ta < tb ? -1 : ta > tb;
}

/* Add off ns of off-CPU time, pre of it preempted, and wall ns of wall
 * time to chain (copied first: d->ips may move). */
static int charge3(fin *f, int32_t pid, int32_t tid, uint64_t t, uint64_t off, uint64_t wall,
		   uint64_t pre, const uint64_t *chain, size_t n, uint32_t flags)
{
	if ((off == 0 && wall == 0) || n == 0)
		return 0;
	if (plumb_vec_reserve(f->tmp, n))
		return plumb_fail_nomem(f->err);
	memcpy(f->tmp.v, chain, n * sizeof *chain);
	int evs[3] = { f->off, f->wall, f->pre };
	uint64_t ws[3] = { off, wall, pre };
	for (int k = 0; k < 3; k++) {
		if (evs[k] < 0 || ws[k] == 0)
			continue;
		plumb_rec_sample *prev = f->last[k] ? &f->d->samples.v[f->last[k] - 1] : NULL;
		if (prev && prev->pid == pid && prev->tid == tid && prev->nips == n &&
		    prev->flags == flags && t - prev->time_ns < COALESCE_NS &&
		    prev->weight <= UINT64_MAX - ws[k] && /* else a sample of its own */
		    memcmp(f->d->ips.v + prev->ips, f->tmp.v, n * sizeof *chain) == 0) {
			prev->weight += ws[k];
			continue;
		}
		if (plumb_rec_sample_add(f->d, pid, tid, t, (uint32_t)evs[k], ws[k], f->tmp.v, n, flags,
					 f->err))
			return -1;
		f->last[k] = f->d->samples.n;
	}
	return 0;
}

/* ns off the CPU, pre of it preempted: off-cpu and wall. */
static int charge(fin *f, int32_t pid, int32_t tid, uint64_t t, uint64_t ns, uint64_t pre,
		  const uint64_t *chain, size_t n, uint32_t flags)
{
	return ns ? charge3(f, pid, tid, t, ns, ns, pre, chain, n, flags) : 0;
}

/* ns of wait wt weighted by its 1/p (x65536) into *out; past 64 bits
 * (only a damaged file's wait can be) is an error. */
static int scaled(fin *f, const rec_wait *wt, uint64_t ns, uint64_t *out)
{
	double v = (double)ns * (double)wt->inv_p / 65536.0 + 0.5;
	if (!(v < 18446744073709551616.0))
		return plumb_fail(f->err, PLUMB_ERR_OVERFLOW,
				  "a wait of thread %d: %llu ns weighted by %llu/65536 passes 2^64 ns",
				  (int)wt->tid, (unsigned long long)ns, (unsigned long long)wt->inv_p);
	*out = (uint64_t)v;
	return 0;
}

/* The thread's CPU sample nearest before t (else the first after). */
static const plumb_rec_sample *stand_in(fin *f, const cpu_ref *c, size_t lo, size_t hi, uint64_t t)
{
	if (lo == hi)
		return NULL;
	size_t a = lo, b = hi;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (c[m].time <= t)
			a = m + 1;
		else
			b = m;
	}
	return &f->d->samples.v[c[a > lo ? a - 1 : lo].index];
}

/* ---- from schedstat readings (--off-cpu's default) ---------------------- */

/* One thread's readings, waits, CPU samples and held stack. */
typedef struct thread_view {
	int32_t pid, tid;
	const rec_wait *waits;
	size_t nwaits;
	cpu_ref *cpu;
	size_t ncpu;
	const rec_held *held;
} thread_view;

/* The time the thread spent in traced calls within [a, b]. */
static uint64_t traced_in(const thread_view *v, size_t *lo, uint64_t a, uint64_t b)
{
	while (*lo < v->nwaits && v->waits[*lo].t1 <= a)
		(*lo)++;
	uint64_t sum = 0;
	for (size_t i = *lo; i < v->nwaits && v->waits[i].t0 < b; i++) {
		uint64_t x = v->waits[i].t0 > a ? v->waits[i].t0 : a;
		uint64_t y = v->waits[i].t1 < b ? v->waits[i].t1 : b;
		if (y > x)
			sum += y - x;
	}
	return sum;
}

/* The CPU samples of the thread in (a, b]: [*first, end), their CPU ns. */
static uint64_t cpu_in(const thread_view *v, size_t *first, size_t *end, uint64_t a, uint64_t b)
{
	size_t i = *first;
	while (i < v->ncpu && v->cpu[i].time <= a)
		i++;
	uint64_t sum = 0;
	size_t j = i;
	for (; j < v->ncpu && v->cpu[j].time <= b; j++)
		sum += v->cpu[j].ns;
	*first = i;
	*end = j;
	return sum;
}

/* ns spread over the CPU samples [c0, c1) of the thread (cpu_ns in all) in
 * proportion to the time each stands for, or at the nearest one before b
 * when there are none: as preempted off-CPU time (preempted) or as the
 * wall time of running. */
static int spread(fin *f, const thread_view *v, size_t c0, size_t c1, uint64_t cpu_ns, uint64_t b,
		  uint64_t ns, bool preempted)
{
	if (!ns)
		return 0;
	if (c0 == c1 || !cpu_ns) {
		const plumb_rec_sample *sm = stand_in(f, v->cpu, 0, v->ncpu, b);
		return sm ? charge3(f, v->pid, v->tid, b, preempted ? ns : 0, ns, preempted ? ns : 0,
				    f->d->ips.v + sm->ips, sm->nips, sm->flags)
			  : 0;
	}
	uint64_t left = ns;
	for (size_t i = c0; i < c1; i++) {
		uint64_t part = i + 1 == c1 ? left
				: (uint64_t)((double)ns * (double)v->cpu[i].ns / (double)cpu_ns + 0.5);
		if (part > left)
			part = left;
		left -= part;
		plumb_rec_sample sm = f->d->samples.v[v->cpu[i].index];
		if (charge3(f, v->pid, v->tid, sm.time_ns, preempted ? part : 0, part, preempted ? part : 0,
			    f->d->ips.v + sm.ips, sm.nips, sm.flags))
			return -1;
	}
	return 0;
}

/* On-CPU time measured (a schedstat period's, or between a switch in and
 * out) as wall time, at the CPU samples in it; so a thread's wall is its
 * elapsed time, whatever the samples missed (user-only cpu-clock samples
 * do not see the time in the kernel). Those samples' own time is not
 * counted again. */
static int charge_running(fin *f, const thread_view *v, size_t c0, size_t c1, uint64_t cpu_ns,
			  uint64_t b, uint64_t ns)
{
	for (size_t i = c0; i < c1; i++)
		v->cpu[i].covered = true;
	return spread(f, v, c0, c1, cpu_ns, b, ns, false);
}

/* ---- from switch records (--off-cpu=exact) -------------------------------- */

/* Each thread's switch intervals against its waits and CPU samples. */
static int from_switches(fin *f, cpu_ref *cpu, size_t ncpu)
{
	struct plumb_rec_waits *w = f->w;
	size_t wi = 0, ci = 0;
	rec_switch *sw = w->switches.v;
	size_t hi = 0;
	for (size_t i = 0; i < w->switches.n;) {
		size_t j = i;
		while (j < w->switches.n && sw[j].pid == sw[i].pid && sw[j].tid == sw[i].tid)
			j++;
		int32_t pid = sw[i].pid, tid = sw[i].tid;
		while (wi < w->waits.n && cmp_thread(w->waits.v[wi].pid, w->waits.v[wi].tid, pid, tid) < 0)
			wi++;
		while (ci < ncpu && cmp_thread(cpu[ci].pid, cpu[ci].tid, pid, tid) < 0)
			ci++;
		size_t cj = ci;
		while (cj < ncpu && cpu[cj].pid == pid && cpu[cj].tid == tid)
			cj++;
		while (hi < w->held.n && cmp_thread(w->held.v[hi].pid, w->held.v[hi].tid, pid, tid) < 0)
			hi++;
		const rec_held *held = hi < w->held.n && w->held.v[hi].pid == pid &&
				       w->held.v[hi].tid == tid ? &w->held.v[hi] : NULL;
		const rec_switch *out = NULL, *in = NULL;
		thread_view v = { pid, tid, NULL, 0, cpu + ci, cj - ci, NULL };
		size_t clo = 0;
		for (size_t k = i; k < j; k++) {
			if (sw[k].out) {
				if (in) { /* on the CPU from in to here: wall */
					size_t c0 = clo, c1;
					uint64_t cpu_ns = cpu_in(&v, &c0, &c1, in->time, sw[k].time);
					clo = c0;
					if (charge_running(f, &v, c0, c1, cpu_ns, sw[k].time, sw[k].time - in->time))
						return -1;
				}
				out = &sw[k];
				in = NULL;
				continue;
			}
			in = &sw[k];
			if (!out)
				continue;
			uint64_t a = out->time, b = sw[k].time;
			bool pre = out->preempted;
			out = NULL;
			while (wi < w->waits.n && w->waits.v[wi].pid == pid && w->waits.v[wi].tid == tid &&
			       w->waits.v[wi].t1 < a)
				wi++;
			const rec_wait *wt = wi < w->waits.n && w->waits.v[wi].pid == pid &&
						     w->waits.v[wi].tid == tid && w->waits.v[wi].t0 <= a &&
						     b <= w->waits.v[wi].t1
					     ? &w->waits.v[wi]
					     : NULL;
			int rc = 0;
			uint64_t ns = 0;
			if (wt && wt->nips)
				rc = scaled(f, wt, b - a, &ns) ||
				     charge(f, pid, tid, a, ns, pre ? ns : 0, w->ips.v + wt->ips, wt->nips, 0);
			else if (!wt && held && held->time == a) /* blocked when the window opened */
				rc = charge(f, pid, tid, a, b - a, pre ? b - a : 0, w->ips.v + held->ips, held->nips,
					    held->flags);
			else if (!wt) {
				const plumb_rec_sample *s = stand_in(f, cpu, ci, cj, a);
				if (s)
					rc = charge(f, pid, tid, a, b - a, pre ? b - a : 0, f->d->ips.v + s->ips, s->nips,
						    s->flags);
			}
			if (rc)
				return -1;
		}
		ci = cj;
		i = j;
	}
	return 0;
}

/* The signal sampler has no switch records: a taken wait's elapsed time is
 * its off-CPU time. */
static int from_waits(fin *f)
{
	struct plumb_rec_waits *w = f->w;
	for (size_t i = 0; i < w->waits.n; i++) {
		const rec_wait *wt = &w->waits.v[i];
		uint64_t ns = 0;
		if (wt->nips && (scaled(f, wt, wt->t1 - wt->t0, &ns) ||
				 charge(f, wt->pid, wt->tid, wt->t0, ns, 0, w->ips.v + wt->ips, wt->nips, 0)))
			return -1;
	}
	return 0;
}

/* The taken traced waits in [a, b], their share of s->traced (the time
 * in traced calls, scaled to the period's off-CPU time when the calls
 * held on-CPU time too), each weighted by its 1/p. */
static int charge_traced(fin *f, const thread_view *v, size_t lo, uint64_t a, uint64_t b,
			 uint64_t traced, const plumb_sched_split *s)
{
	if (!s->traced)
		return 0;
	double scale = (double)s->traced / (double)traced;
	double pre = (double)s->pre_traced / (double)s->traced;
	for (size_t i = lo; i < v->nwaits && v->waits[i].t0 < b; i++) {
		const rec_wait *wt = &v->waits[i];
		uint64_t x = wt->t0 > a ? wt->t0 : a, y = wt->t1 < b ? wt->t1 : b, ns = 0;
		if (y <= x || !wt->nips)
			continue;
		if (scaled(f, wt, y - x, &ns))
			return -1;
		ns = (uint64_t)((double)ns * scale + 0.5);
		/* at the wait's start, as with switch records: the pieces of a
		 * long wait make one sample, not one per period */
		if (charge(f, v->pid, v->tid, wt->t0, ns, (uint64_t)((double)ns * pre + 0.5),
			   f->w->ips.v + wt->ips, wt->nips, 0))
			return -1;
	}
	return 0;
}

/* Blocked time of consecutive periods at one stack (a CPU sample's, or
 * -p's held stack: index SIZE_MAX), kept as one sample at the first
 * one's start: a thread blocked for an hour in an untraced call makes one
 * sample, not 720,000. */
typedef struct blocked_run {
	size_t at;             /* the stand-in's index into d->samples; 0: none */
	uint64_t t, end, ns;
} blocked_run;

static int blocked_flush(fin *f, const thread_view *v, blocked_run *br)
{
	int rc = 0;
	if (br->at == SIZE_MAX)
		rc = charge(f, v->pid, v->tid, br->t, br->ns, 0, f->w->ips.v + v->held->ips, v->held->nips,
			    v->held->flags);
	else if (br->at) {
		plumb_rec_sample sm = f->d->samples.v[br->at - 1];
		rc = charge(f, v->pid, v->tid, br->t, br->ns, 0, f->d->ips.v + sm.ips, sm.nips, sm.flags);
	}
	br->at = 0;
	return rc;
}

static int blocked_add(fin *f, const thread_view *v, blocked_run *br, size_t at, uint64_t a,
		       uint64_t b, uint64_t ns)
{
	if (br->at == at && br->end == a && br->ns <= UINT64_MAX - ns) {
		br->ns += ns;
		br->end = b;
		return 0;
	}
	if (blocked_flush(f, v, br))
		return -1;
	*br = (blocked_run){ at, a, b, ns };
	return 0;
}

static int sched_thread(fin *f, const thread_view *v, const rec_sched *r, size_t n)
{
	plumb_sched_carry carry = { 0, 0 };
	blocked_run br = { 0, 0, 0, 0 };
	size_t k = 0, wlo = 0, clo = 0;
	while (k < n && r[k].kind == PLUMB_SCHED_END)
		k++; /* an end without a beginning: nothing to measure */
	if (k == n)
		return 0;
	/* the thread's own CPU clock (PLUMB_SCHED_CPU) begins its first period
	 * (when no fork was seen) and closes its last: between schedstat
	 * readings it would cut a runqueue wait out of the period it lies in
	 * (it has no runqueue time) */
	size_t last_read = 0;
	for (size_t z = k; z < n; z++)
		if (r[z].kind == PLUMB_SCHED_READ)
			last_read = z;
	uint64_t a = r[k].time, ea = r[k].exec, da = r[k].delay, exec0 = r[k].exec;
	bool ran = false;
	for (k++; k < n; k++) {
		if (r[k].kind == PLUMB_SCHED_CPU && k < last_read)
			continue;
		uint64_t b = r[k].time, eb = r[k].exec, db = r[k].kind == PLUMB_SCHED_CPU ? da : r[k].delay;
		bool known = r[k].kind != PLUMB_SCHED_END, last = !known;
		for (size_t z = k + 1; !known && z < n; z++)
			if (r[z].kind == PLUMB_SCHED_READ) /* read after its end: a zombie's final figures */
				eb = r[z].exec, db = r[z].delay, known = true;
		if (b < a)
			b = a;
		size_t c0 = clo, c1;
		uint64_t cpu_ns = cpu_in(v, &c0, &c1, a, b);
		clo = c0;
		uint64_t exec = known ? (eb > ea ? eb - ea : 0) : cpu_ns;
		uint64_t delay = known && db > da ? db - da : 0;
		uint64_t traced = traced_in(v, &wlo, a, b);
		plumb_sched_split s;
		plumb_sched_split_period(&carry, b - a, exec, delay, traced, &s);
		ran = ran || (known ? eb > exec0 : exec > 0);
		if (charge_running(f, v, c0, c1, cpu_ns, b, exec) ||
		    charge_traced(f, v, wlo, a, b, traced, &s) ||
		    /* preemption takes a thread while it runs, so each stack's
		     * share of the running is its expected share of the
		     * preemption */
		    spread(f, v, c0, c1, cpu_ns, b, s.pre_untraced, true))
			return -1;
		if (s.blocked && v->held && !ran) { /* -p: blocked where it was when the window opened */
			if (blocked_add(f, v, &br, SIZE_MAX, a, b, s.blocked))
				return -1;
		} else if (s.blocked) {
			const plumb_rec_sample *sm = stand_in(f, v->cpu, 0, v->ncpu, b);
			if (sm && blocked_add(f, v, &br, (size_t)(sm - f->d->samples.v) + 1, a, b, s.blocked))
				return -1;
		}
		if (last)
			break;
		a = b, ea = eb, da = db;
	}
	return blocked_flush(f, v, &br);
}

/* Each thread's poll periods against its waits and CPU samples. */
static int from_sched(fin *f, cpu_ref *cpu, size_t ncpu)
{
	struct plumb_rec_waits *w = f->w;
	const rec_sched *r = w->sched.v;
	size_t wi = 0, ci = 0, hi = 0;
	for (size_t i = 0; i < w->sched.n;) {
		size_t j = i;
		while (j < w->sched.n && r[j].pid == r[i].pid && r[j].tid == r[i].tid)
			j++;
		thread_view v = { r[i].pid, r[i].tid, NULL, 0, NULL, 0, NULL };
		while (wi < w->waits.n && cmp_thread(w->waits.v[wi].pid, w->waits.v[wi].tid, v.pid, v.tid) < 0)
			wi++;
		v.waits = w->waits.v + wi;
		while (wi + v.nwaits < w->waits.n && w->waits.v[wi + v.nwaits].pid == v.pid &&
		       w->waits.v[wi + v.nwaits].tid == v.tid)
			v.nwaits++;
		while (ci < ncpu && cmp_thread(cpu[ci].pid, cpu[ci].tid, v.pid, v.tid) < 0)
			ci++;
		v.cpu = cpu + ci;
		while (ci + v.ncpu < ncpu && cpu[ci + v.ncpu].pid == v.pid && cpu[ci + v.ncpu].tid == v.tid)
			v.ncpu++;
		while (hi < w->held.n && cmp_thread(w->held.v[hi].pid, w->held.v[hi].tid, v.pid, v.tid) < 0)
			hi++;
		if (hi < w->held.n && w->held.v[hi].pid == v.pid && w->held.v[hi].tid == v.tid)
			v.held = &w->held.v[hi];
		/* a START begins a thread's life: the id may have been reused */
		for (size_t k = i, e; k < j; k = e) {
			for (e = k + 1; e < j && r[e].kind != PLUMB_SCHED_START;)
				e++;
			if (sched_thread(f, &v, r + k, e - k))
				return -1;
		}
		i = j;
	}
	return 0;
}

static bool is_cpu_event(const char *e)
{
	return strcmp(e, "cpu-clock") == 0 || strcmp(e, "task-clock") == 0;
}

static uint64_t period_of(const fin *f, size_t index, uint64_t dflt, size_t *pi)
{
	const struct plumb_rec_waits *w = f->w;
	while (*pi < w->periods.n && w->periods.v[*pi].index < index)
		(*pi)++;
	if (*pi < w->periods.n && w->periods.v[*pi].index == index)
		return w->periods.v[*pi].ns;
	return dflt;
}

static int off_cpu(fin *f, const plumb_rec_waits_opts *o)
{
	plumb_rec_data *d = f->d;
	size_t nsamples = d->samples.n;
	cpu_ref *cpu = malloc((nsamples ? nsamples : 1) * sizeof *cpu);
	if (!cpu)
		return plumb_fail_nomem(f->err);
	size_t ncpu = 0, pi = 0;
	int rc = 0;
	for (size_t i = 0; i < nsamples && rc == 0; i++) {
		const plumb_rec_sample *s = &d->samples.v[i];
		if (!is_cpu_event(d->events.v[s->event]))
			continue;
		uint64_t ns = period_of(f, i, s->weight * o->cpu_period_ns, &pi);
		cpu[ncpu++] = (cpu_ref){ s->pid, s->tid, s->time_ns, i, ns, false };
		if (o->sched || f->w->switches.n)
			continue; /* wall from the on-CPU time measured (charge_running) */
		plumb_rec_sample c = *s;   /* d->samples may move */
		if (plumb_vec_reserve(f->tmp, c.nips ? c.nips : 1))
			rc = plumb_fail_nomem(f->err);
		else {
			if (c.nips)
				memcpy(f->tmp.v, d->ips.v + c.ips, c.nips * sizeof *f->tmp.v);
			rc = plumb_rec_sample_add(d, c.pid, c.tid, c.time_ns, (uint32_t)f->wall, ns, f->tmp.v,
						  c.nips, c.flags, f->err);
		}
	}
	qsort(cpu, ncpu, sizeof *cpu, by_thread_time_cpu);
	if (rc == 0)
		rc = o->sched ? from_sched(f, cpu, ncpu)
		     : f->w->switches.n ? from_switches(f, cpu, ncpu) : from_waits(f);
	for (size_t i = 0; rc == 0 && (o->sched || f->w->switches.n) && i < ncpu; i++) {
		if (cpu[i].covered) /* else outside every period: its own time */
			continue;
		plumb_rec_sample sm = d->samples.v[cpu[i].index];
		rc = charge3(f, sm.pid, sm.tid, sm.time_ns, 0, cpu[i].ns, 0, d->ips.v + sm.ips, sm.nips,
			     sm.flags);
	}
	free(cpu);
	return rc;
}

/* Who held each lock: per (process, object, holder) the waits and their
 * time, kept as "locks.held.N" metadata ("NS WAITS HOLDER_TID LABEL") for
 * plumb report --view locks. */
typedef struct held {
	int32_t pid, holder;
	uint64_t obj, ns, count, t;
	unsigned kind;
} held;

static int holders(fin *f)
{
	struct plumb_rec_waits *w = f->w;
	PLUMB_VEC(held) h = { NULL, 0, 0 };
	int rc = 0;
	for (size_t i = 0; i < w->waits.n && rc == 0; i++) {
		const rec_wait *wt = &w->waits.v[i];
		if (!(wt->flags & PSMP_WAIT_IS_SYNC) || !wt->holder)
			continue;
		size_t k = 0;
		while (k < h.n && !(h.v[k].pid == wt->pid && h.v[k].obj == wt->obj &&
				    h.v[k].holder == wt->holder && h.v[k].kind == wt->kind))
			k++;
		if (k == h.n) {
			if (plumb_vec_reserve(h, h.n + 1)) {
				rc = plumb_fail_nomem(f->err);
				break;
			}
			h.v[h.n++] = (held){ wt->pid, wt->holder, wt->obj, 0, 0, wt->t0, wt->kind };
		}
		if (h.v[k].ns > UINT64_MAX - (wt->t1 - wt->t0)) {
			rc = plumb_fail(f->err, PLUMB_ERR_OVERFLOW,
					"the waits for a lock held by thread %d pass 2^64 ns", (int)wt->holder);
			break;
		}
		h.v[k].ns += wt->t1 - wt->t0;
		h.v[k].count++;
	}
	for (size_t k = 0; k < h.n && rc == 0; k++) {
		char label[300], key[48], val[400];
		plumb_rec_lock_label(f->d, h.v[k].pid, h.v[k].t, h.v[k].obj, h.v[k].kind, label, sizeof label);
		snprintf(key, sizeof key, "locks.held.%zu", k);
		snprintf(val, sizeof val, "%llu %llu %d %s", (unsigned long long)h.v[k].ns,
			 (unsigned long long)h.v[k].count, (int)h.v[k].holder, label);
		rc = plumb_rec_meta_add(f->d, key, val, f->err);
	}
	free(h.v);
	return rc;
}

static int sync_waits(fin *f)
{
	if (holders(f))
		return -1;
	struct plumb_rec_waits *w = f->w;
	int ev_t = plumb_rec_event_add(f->d, "sync-wait", f->err);
	int ev_n = ev_t < 0 ? -1 : plumb_rec_event_add(f->d, "sync-waits", f->err);
	if (ev_n < 0)
		return -1;
	size_t last = 0;   /* after the pair of samples made last */
	for (size_t i = 0; i < w->waits.n; i++) {
		const rec_wait *wt = &w->waits.v[i];
		if (!(wt->flags & PSMP_WAIT_IS_SYNC) || !wt->nips)
			continue;
		if (plumb_vec_reserve(f->tmp, wt->nips + 1))
			return plumb_fail_nomem(f->err);
		f->tmp.v[0] = wt->obj;
		memcpy(f->tmp.v + 1, w->ips.v + wt->ips, wt->nips * sizeof *f->tmp.v);
		uint32_t flags = PLUMB_REC_LOCK | (uint32_t)wt->kind << 8 |
				 (wt->flags & PSMP_WAIT_TRUNCATED ? PLUMB_REC_TRUNCATED : 0);
		size_t n = wt->nips + 1;
		plumb_rec_sample *prev = last ? &f->d->samples.v[last - 2] : NULL;
		if (prev && prev->pid == wt->pid && prev->tid == wt->tid && prev->nips == n &&
		    prev->flags == flags && wt->t0 - prev->time_ns < COALESCE_NS &&
		    prev[0].weight <= UINT64_MAX - (wt->t1 - wt->t0) &&
		    memcmp(f->d->ips.v + prev->ips, f->tmp.v, n * sizeof *f->tmp.v) == 0) {
			prev[0].weight += wt->t1 - wt->t0;   /* sync-wait, then sync-waits */
			prev[1].weight++;
			continue;
		}
		if (plumb_rec_sample_add(f->d, wt->pid, wt->tid, wt->t0, (uint32_t)ev_t, wt->t1 - wt->t0,
					 f->tmp.v, n, flags, f->err) ||
		    plumb_rec_sample_add(f->d, wt->pid, wt->tid, wt->t0, (uint32_t)ev_n, 1, f->tmp.v, n,
					 flags, f->err))
			return -1;
		last = f->d->samples.n;
	}
	return 0;
}

static int by_thread_held(const void *a, const void *b)
{
	const rec_held *x = a, *y = b;
	return cmp_thread(x->pid, x->tid, y->pid, y->tid);
}

/* Switches, schedstat readings and waits by thread, then time (waits_order.c); the held
 * stacks (one a thread) by thread. */
static int sort_records(struct plumb_rec_waits *w)
{
	size_t n = w->switches.n > w->waits.n ? w->switches.n : w->waits.n;
	if (w->sched.n > n)
		n = w->sched.n;
	plumb_order_key *k = malloc((n ? n : 1) * sizeof *k);
	if (!k)
		return -1;
	for (size_t i = 0; i < w->switches.n; i++)
		k[i] = (plumb_order_key){ w->switches.v[i].time, w->switches.v[i].pid,
					  w->switches.v[i].tid, i };
	int rc = plumb_order_by_thread_time(k, w->switches.n) ||
		 plumb_order_apply(w->switches.v, w->switches.n, sizeof *w->switches.v, k);
	for (size_t i = 0; rc == 0 && i < w->waits.n; i++)
		k[i] = (plumb_order_key){ w->waits.v[i].t0, w->waits.v[i].pid, w->waits.v[i].tid, i };
	if (rc == 0)
		rc = plumb_order_by_thread_time(k, w->waits.n) ||
		     plumb_order_apply(w->waits.v, w->waits.n, sizeof *w->waits.v, k);
	for (size_t i = 0; rc == 0 && i < w->sched.n; i++)
		k[i] = (plumb_order_key){ w->sched.v[i].time, w->sched.v[i].pid, w->sched.v[i].tid, i };
	if (rc == 0)
		rc = plumb_order_by_thread_time(k, w->sched.n) ||
		     plumb_order_apply(w->sched.v, w->sched.n, sizeof *w->sched.v, k);
	free(k);
	if (rc == 0 && w->held.n > 1)
		qsort(w->held.v, w->held.n, sizeof *w->held.v, by_thread_held);
	return rc ? -1 : 0;
}

int plumb_rec_waits_finish(plumb_rec_data *d, const plumb_rec_waits_opts *o, plumb_error *err)
{
	if (!o->off_cpu && !o->sync_wait)
		return 0;
	struct plumb_rec_waits *w = waits_of(d);
	if (!w)
		return plumb_fail_nomem(err);
	fin f = { d, w, -1, -1, -1, { 0, 0, 0 }, { NULL, 0, 0 }, err };
	if (sort_records(w))
		return plumb_fail_nomem(err);
	int rc = 0;
	if (o->off_cpu) {
		f.off = plumb_rec_event_add(d, "off-cpu", err);
		f.pre = f.off < 0 ? -1 : plumb_rec_event_add(d, "preempted", err);
		f.wall = f.pre < 0 ? -1 : plumb_rec_event_add(d, "wall", err);
		rc = f.wall < 0 ? -1 : off_cpu(&f, o);
	}
	if (rc == 0 && o->sync_wait)
		rc = sync_waits(&f);
	free(f.tmp.v);
	return rc;
}

void plumb_rec_waits_env(const plumb_record_opts *o, char *out, size_t cap)
{
	int n = 0;
	out[0] = 0;
	if (o->off_cpu)
		n = snprintf(out, cap, "offcpu:%llu",
			     (unsigned long long)(o->offcpu_mean_ns ? o->offcpu_mean_ns : 1000000));
	if (o->sync_wait && n >= 0 && (size_t)n < cap)
		snprintf(out + n, cap - (size_t)n, "%ssync:%s", n ? "," : "", o->sync_wait);
}

bool plumb_rec_waits_settings(const plumb_rec_data *d, uint64_t *sync_threshold_ns,
			      uint64_t *offcpu_mean_ns)
{
	if (!d->waits || !d->waits->have_config)
		return false;
	*sync_threshold_ns = d->waits->sync_threshold_ns;
	*offcpu_mean_ns = d->waits->offcpu_mean_ns;
	return true;
}
