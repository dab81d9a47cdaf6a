/* The perf_event_open sampler: runs the command (or attaches to a process),
 * opens one counter per event with inherit so that every thread and child
 * process is followed, reads the ring buffer until the command exits, and
 * turns each sample into an address chain (unwinding copied user stacks
 * with the binaries' CFI as it goes). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/record_internal.h"
#include "record/signal_read.h"
#include "record/waits_sched.h"

#define MAX_EVENTS 16
/* --off-cpu: how often each thread's schedstat is read */
#define SCHED_POLL_NS 5000000u

/* One ring buffer per CPU, shared (SET_OUTPUT) by every event and task
 * on that CPU: the kernel refuses to map inherited per-task counters that
 * are not bound to a CPU. */
typedef struct ring {
	int fd;                /* -1: no event opened on this CPU yet */
	bool online;
	uint64_t head;         /* data_head when the current drain began */
	uint8_t *base;
	size_t pages;          /* data pages */
	/* the next unread record, while merging the rings by time */
	const uint8_t *cur;
	uint64_t cur_time;
	uint8_t *tmp;          /* a record that wraps around the buffer */
	size_t tmp_cap;
} ring;

typedef struct event_id {
	uint64_t id;
	uint32_t event;
} event_id;

typedef struct recorder {
	const plumb_record_opts *o;
	plumb_rec_data *d;
	plumb_record_result *res;
	unwinder *uw;
	plumb_rec_event_spec def_event;
	const plumb_rec_event_spec *events;
	size_t nevents;
	uint64_t sample_type;
	size_t page;
	ring *rings;           /* one per CPU */
	size_t ncpus;
	PLUMB_VEC(int) extra_fds; /* events other than a ring's own fd */
	PLUMB_VEC(event_id) ids;
	uint64_t chain[MAX_CHAIN];
	bool waits;            /* --off-cpu or --sync-wait: CLOCK_MONOTONIC times */
	plumb_sched_poller *sched; /* --off-cpu without =exact: schedstat polls */
	plumb_error *err;
	int fatal;             /* -1 once a record could not be stored */
} recorder;

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void attr_for(const recorder *r, const plumb_rec_event_spec *e, bool first, bool on_exec,
		     struct perf_event_attr *a)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = e->type;
	a->config = e->config;
	/* the event's own period= or freq= first, then -c or -F */
	if (e->period || (!e->freq && r->o->period)) {
		a->sample_period = e->period ? e->period : r->o->period;
	} else {
		a->freq = 1;
		a->sample_freq = e->freq ? e->freq : r->o->freq ? r->o->freq : 1000;
	}
	a->sample_type = r->sample_type;
	if (r->o->stack == PLUMB_STACK_DWARF) {
		a->sample_regs_user = UNWIND_REGS_MASK;
		a->sample_stack_user = r->o->stack_size ? r->o->stack_size : 16384;
	}
	a->disabled = 1;
	a->enable_on_exec = on_exec;
	a->inherit = 1;
	a->exclude_kernel = e->exclude_kernel;
	a->exclude_user = e->exclude_user;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1;
	a->precise_ip = e->precise;
	a->sample_id_all = 1;
	if (r->waits) {   /* the wait tracer's clock */
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
	}
	a->context_switch = first && r->o->off_cpu && r->o->off_cpu_exact;
	if (first) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->build_id = 1;
	}
	a->watermark = 1;
	a->wakeup_watermark = 64 * 1024;
}

/* The message for an event the kernel refused. */
static int open_error(recorder *r, const plumb_rec_event_spec *e, int errnum)
{
	if (errnum == EACCES || errnum == EPERM || errnum == ENOSYS) {
		r->res->not_permitted = true;
		return plumb_fail(r->err, PLUMB_ERR_UNSUPPORTED, "%s: perf_event_open is not permitted "
				  "here (%s; kernel.perf_event_paranoid or a seccomp filter); "
				  "try --sampler=signal", e->name, strerror(errnum));
	}
	if (e->type == PERF_TYPE_HARDWARE || e->type == PERF_TYPE_RAW) {
		if (errnum == ENOENT || errnum == EOPNOTSUPP || errnum == ENODEV)
			return plumb_fail(r->err, PLUMB_ERR_UNSUPPORTED, "%s: no hardware counters on "
					  "this machine (a virtual machine?); use -e cpu-clock", e->name);
		if (errnum == EINVAL && e->precise)
			return plumb_fail(r->err, PLUMB_ERR_UNSUPPORTED, "%s: precise sampling (:p) is not "
					  "supported for this event here; drop the p modifier", e->name);
	}
	unsigned long max = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	if (f) {
		if (fscanf(f, "%lu", &max) != 1)
			max = 0;
		fclose(f);
	}
	if (errnum == EINVAL && e->freq && max && e->freq > max)
		return plumb_fail(r->err, PLUMB_ERR_USAGE, "%s: freq=%" PRIu64 " is above the kernel's "
				  "limit of %lu Hz (kernel.perf_event_max_sample_rate)", e->name, e->freq, max);
	if (errnum == EINVAL && !e->period && !e->freq && !r->o->period && max && r->o->freq > max)
		return plumb_fail(r->err, PLUMB_ERR_USAGE, "%s: -F %" PRIu64 " is above the kernel's "
				  "limit of %lu Hz (kernel.perf_event_max_sample_rate)", e->name, r->o->freq, max);
	return plumb_fail(r->err, PLUMB_ERR_UNSUPPORTED, "%s: cannot open the event: %s", e->name,
			  strerror(errnum));
}

static int ring_map(recorder *r, ring *g)
{
	/* Big enough for bursts of 16 KiB stack copies; smaller when the
	 * locked-memory limit (perf_event_mlock_kb) says no. */
	for (size_t pages = 512; pages >= 8; pages /= 2) {
		void *m = mmap(NULL, (pages + 1) * r->page, PROT_READ | PROT_WRITE, MAP_SHARED, g->fd, 0);
		if (m != MAP_FAILED) {
			g->base = m;
			g->pages = pages;
			return 0;
		}
	}
	return plumb_fail(r->err, PLUMB_ERR_IO, "cannot map the perf ring buffer: %s "
			  "(raise ulimit -l or kernel.perf_event_mlock_kb)", strerror(errno));
}

static int add_fd(recorder *r, int fd)
{
	if (r->extra_fds.n == r->extra_fds.cap) {
		size_t c = r->extra_fds.cap ? 2 * r->extra_fds.cap : 8;
		int *v = realloc(r->extra_fds.v, c * sizeof *v);
		if (!v) {
			close(fd);
			return plumb_fail_nomem(r->err);
		}
		r->extra_fds.v = v;
		r->extra_fds.cap = c;
	}
	r->extra_fds.v[r->extra_fds.n++] = fd;
	return 0;
}

static int add_id(recorder *r, int fd, uint32_t event)
{
	uint64_t id;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return plumb_fail(r->err, PLUMB_ERR_IO, "PERF_EVENT_IOC_ID: %s", strerror(errno));
	if (r->ids.n == r->ids.cap) {
		size_t c = r->ids.cap ? 2 * r->ids.cap : 16;
		event_id *v = realloc(r->ids.v, c * sizeof *v);
		if (!v)
			return plumb_fail_nomem(r->err);
		r->ids.v = v;
		r->ids.cap = c;
	}
	r->ids.v[r->ids.n++] = (event_id){ id, event };
	return 0;
}

/* Open event i for task pid on one CPU, into that CPU's ring. */
static int open_one(recorder *r, pid_t pid, size_t cpu, size_t i, bool on_exec)
{
	struct perf_event_attr a;
	attr_for(r, &r->events[i], i == 0, on_exec, &a);
	int fd = perf_open(&a, pid, (int)cpu);
	if (fd < 0 && errno == EINVAL && i == 0) {
		a.build_id = 0; /* kernels before 5.12 */
		fd = perf_open(&a, pid, (int)cpu);
	}
	if (fd < 0)
		return open_error(r, &r->events[i], errno);
	ring *g = &r->rings[cpu];
	if (g->fd < 0) {
		g->fd = fd;
		if (ring_map(r, g))
			return -1;
	} else {
		if (add_fd(r, fd))
			return -1;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, g->fd) < 0)
			return plumb_fail(r->err, PLUMB_ERR_IO, "%s: cannot share the ring buffer: %s",
					  r->events[i].name, strerror(errno));
	}
	return add_id(r, fd, (uint32_t)i);
}

/* Open every event for task pid (and, by inherit, its future threads and
 * children) on every CPU. */
static int open_task(recorder *r, pid_t pid, bool on_exec)
{
	for (size_t cpu = 0; cpu < r->ncpus; cpu++)
		for (size_t i = 0; r->rings[cpu].online && i < r->nevents; i++)
			if (open_one(r, pid, cpu, i, on_exec))
				return -1;
	return 0;
}

/* Mark the CPUs listed in /sys/devices/system/cpu/online ("0-3,6"); all
 * of them when the file cannot be read. */
static void mark_online(recorder *r)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char buf[4096];
	bool any = false;
	if (f && fgets(buf, sizeof buf, f)) {
		for (char *p = buf; *p && *p != '\n';) {
			char *end;
			unsigned long lo = strtoul(p, &end, 10), hi = lo;
			if (end == p)
				break;
			if (*end == '-')
				hi = strtoul(end + 1, &end, 10);
			for (unsigned long c = lo; c <= hi && c < r->ncpus; c++)
				r->rings[c].online = any = true;
			p = *end == ',' ? end + 1 : end;
		}
	}
	if (f)
		fclose(f);
	for (size_t c = 0; !any && c < r->ncpus; c++)
		r->rings[c].online = true;
}

static int rings_new(recorder *r)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	r->ncpus = n > 0 ? (size_t)n : 1;
	if (!(r->rings = calloc(r->ncpus, sizeof *r->rings)))
		return plumb_fail_nomem(r->err);
	for (size_t i = 0; i < r->ncpus; i++)
		r->rings[i].fd = -1;
	mark_online(r);
	return 0;
}

static void close_all(recorder *r)
{
	for (size_t i = 0; i < r->extra_fds.n; i++)
		close(r->extra_fds.v[i]);
	for (size_t i = 0; r->rings && i < r->ncpus; i++) {
		ring *g = &r->rings[i];
		if (g->base)
			munmap(g->base, (g->pages + 1) * r->page);
		if (g->fd >= 0)
			close(g->fd);
		free(g->tmp);
	}
	free(r->extra_fds.v);
	free(r->ids.v);
	free(r->rings);
}

static void enable_all(recorder *r)
{
	for (size_t i = 0; i < r->ncpus; i++)
		if (r->rings[i].fd >= 0)
			ioctl(r->rings[i].fd, PERF_EVENT_IOC_ENABLE, 0);
	for (size_t i = 0; i < r->extra_fds.n; i++)
		ioctl(r->extra_fds.v[i], PERF_EVENT_IOC_ENABLE, 0);
}

/* ---- records ------------------------------------------------------------ */

/* A cursor over one record's body. */
typedef struct cursor {
	const uint8_t *p, *end;
} cursor;

static bool take(cursor *c, void *out, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	if (out)
		memcpy(out, c->p, n);
	c->p += n;
	return true;
}

static uint64_t u64(cursor *c)
{
	uint64_t v = 0;
	take(c, &v, 8);
	return v;
}

/* The time in a non-sample record's sample_id trailer (TID, TIME, IDENTIFIER). */
static uint64_t trailer_time(const uint8_t *rec, size_t size)
{
	uint64_t t = 0;
	if (size >= sizeof(struct perf_event_header) + 16)
		memcpy(&t, rec + size - 16, 8);
	return t;
}

static void note(recorder *r, int rc)
{
	if (rc)
		r->fatal = -1;
}

static int event_index(const recorder *r, uint64_t id)
{
	for (size_t i = 0; i < r->ids.n; i++)
		if (r->ids.v[i].id == id)
			return (int)r->ids.v[i].event;
	return r->nevents == 1 ? 0 : -1;
}

/* The chain of a sample: the kernel's callchain (user part), an unwound
 * stack copy, or the pc alone. */
static size_t sample_chain(recorder *r, cursor *c, uint64_t ip, uint32_t pid, uint32_t tid,
			   uint32_t *flags)
{
	size_t n = 0;
	if (r->sample_type & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = u64(c);
		bool user = false;
		for (uint64_t i = 0; i < nr; i++) {
			uint64_t a = u64(c);
			if (a >= (uint64_t)PERF_CONTEXT_MAX) {
				user = a == (uint64_t)PERF_CONTEXT_USER;
				continue;
			}
			if (user && n < MAX_CHAIN)
				r->chain[n++] = a;
		}
	}
	if (r->sample_type & PERF_SAMPLE_REGS_USER) {
		uint64_t abi = u64(c), regs[UNWIND_NREGS] = { 0 };
		if (abi)
			take(c, regs, sizeof regs);
		uint64_t size = u64(c);
		const uint8_t *stack = c->p;
		take(c, NULL, size);
		uint64_t dyn = size ? u64(c) : 0;
		if (abi && dyn) {
			bool trunc;
			n = unwinder_unwind(r->uw, (int32_t)pid, (int32_t)tid, regs, stack,
					    dyn < size ? dyn : size, r->chain, MAX_CHAIN, &trunc);
			if (trunc)
				*flags |= PLUMB_REC_TRUNCATED;
		}
	}
	if (n == 0) {
		r->chain[0] = ip;
		n = 1;
	}
	return n;
}

static void on_sample(recorder *r, const uint8_t *rec, size_t size)
{
	cursor c = { rec + sizeof(struct perf_event_header), rec + size };
	uint64_t id = u64(&c), ip = u64(&c);
	uint32_t pid_tid[2] = { 0, 0 };
	take(&c, pid_tid, 8);
	uint64_t t = u64(&c);
	uint64_t period = r->sample_type & PERF_SAMPLE_PERIOD ? u64(&c) : r->d->periods[0];
	uint32_t flags = 0;
	int ev = event_index(r, id);
	size_t n = sample_chain(r, &c, ip, pid_tid[0], pid_tid[1], &flags);
	if (ev < 0)
		return;
	r->res->samples++;
	/* With a fixed period a sample stands for that many events; by
	 * frequency, the kernel's periods add up to its count of them. */
	uint64_t weight = r->d->periods[ev] && period ? period : 1;
	if (!r->d->periods[ev] && period <= UINT64_MAX - r->d->counts[ev])
		r->d->counts[ev] += period;
	note(r, plumb_rec_sample_add(r->d, (int32_t)pid_tid[0], (int32_t)pid_tid[1], t, (uint32_t)ev,
				     weight, r->chain, n, flags, r->err));
	if (r->o->off_cpu)   /* wall time: what each cpu-clock sample stands for */
		note(r, plumb_rec_period_note(r->d, r->d->samples.n - 1, period, r->err));
}

/* PERF_RECORD_SWITCH of a task: its sample_id trailer (TID, TIME, IDENTIFIER). */
static void on_switch(recorder *r, const uint8_t *rec, size_t size, uint16_t misc)
{
	uint32_t pid_tid[2];
	if (size < sizeof(struct perf_event_header) + 24)
		return;
	memcpy(pid_tid, rec + size - 24, 8);
	note(r, plumb_rec_switch_add(r->d, (int32_t)pid_tid[0], (int32_t)pid_tid[1],
				     trailer_time(rec, size), misc & PERF_RECORD_MISC_SWITCH_OUT,
				     misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, r->err));
}

static void on_mmap2(recorder *r, const uint8_t *rec, size_t size, uint16_t misc)
{
	const struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		union {
			struct { uint32_t maj, min; uint64_t ino, ino_gen; } f;
			struct { uint8_t size, r1; uint16_t r2; uint8_t id[20]; } b;
		} u;
		uint32_t prot, flags;
		char filename[];
	} *m = (const void *)rec;
	if (size < sizeof *m || !(m->prot & PROT_EXEC))
		return;
	const char *end = memchr(m->filename, 0, size - sizeof *m);
	if (!end)
		return;
	bool has_id = misc & PERF_RECORD_MISC_MMAP_BUILD_ID;
	note(r, plumb_rec_map_add(r->d, (int32_t)m->pid, trailer_time(rec, size), m->addr, m->len,
				  m->pgoff, m->filename, has_id ? m->u.b.id : NULL,
				  has_id ? m->u.b.size : 0, r->err));
}

static void on_comm(recorder *r, const uint8_t *rec, size_t size, uint16_t misc)
{
	const struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[];
	} *m = (const void *)rec;
	if (size < sizeof *m + 1 || !memchr(m->comm, 0, size - sizeof *m))
		return;
	if (misc & PERF_RECORD_MISC_COMM_EXEC) {
		uint64_t t = trailer_time(rec, size);
		plumb_rec_exec(r->d, (int32_t)m->pid, t);
		unwinder_forget(r->uw, (int32_t)m->pid);
	}
	note(r, plumb_rec_thread_set(r->d, (int32_t)m->pid, (int32_t)m->tid, m->comm, 0, r->err));
}

static const char *thread_name(const plumb_rec_data *d, uint32_t tid)
{
	for (size_t i = d->threads.n; i-- > 0;)
		if (d->threads.v[i].tid == (int32_t)tid)
			return d->threads.v[i].name;
	return NULL;
}

static void on_fork(recorder *r, const uint8_t *rec, size_t size)
{
	const struct {
		struct perf_event_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
	} *m = (const void *)rec;
	if (size < sizeof *m)
		return;
	if (m->pid != m->ppid) {
		note(r, plumb_rec_fork(r->d, (int32_t)m->ppid, (int32_t)m->pid, m->time, r->err));
		unwinder_forget(r->uw, (int32_t)m->pid);
	}
	const char *name = thread_name(r->d, m->ptid);
	char copy[32] = "";
	if (name)
		snprintf(copy, sizeof copy, "%s", name);
	note(r, plumb_rec_thread_set(r->d, (int32_t)m->pid, (int32_t)m->tid, copy, 0, r->err));
	if (r->sched)
		note(r, plumb_sched_watch(r->sched, r->d, (int32_t)m->pid, (int32_t)m->tid, m->time, true,
					  r->err));
}

/* A process ended: its unwinding state (modules, CFI) can go, which keeps
 * memory flat over a build that runs thousands of processes. */
static void on_exit_record(recorder *r, const uint8_t *rec, size_t size)
{
	const struct {
		struct perf_event_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
	} *m = (const void *)rec;
	if (size < sizeof *m)
		return;
	if (r->sched) /* before the leader is reaped: its last figures */
		note(r, plumb_sched_ended(r->sched, r->d, (int32_t)m->pid, (int32_t)m->tid, m->time, r->err));
	if (m->pid == m->tid)
		unwinder_forget(r->uw, (int32_t)m->pid);
}

static void on_record(recorder *r, const uint8_t *rec)
{
	const struct perf_event_header *h = (const void *)rec;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(r, rec, h->size);
		break;
	case PERF_RECORD_MMAP2:
		on_mmap2(r, rec, h->size, h->misc);
		break;
	case PERF_RECORD_COMM:
		on_comm(r, rec, h->size, h->misc);
		break;
	case PERF_RECORD_FORK:
		on_fork(r, rec, h->size);
		break;
	case PERF_RECORD_EXIT:
		on_exit_record(r, rec, h->size);
		break;
	case PERF_RECORD_SWITCH:
		on_switch(r, rec, h->size, h->misc);
		break;
	case PERF_RECORD_LOST:
		if (h->size >= sizeof *h + 16) {
			uint64_t lost;
			memcpy(&lost, rec + sizeof *h + 8, 8);
			r->d->lost += lost;
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size >= sizeof *h + 8) {
			uint64_t lost;
			memcpy(&lost, rec + sizeof *h, 8);
			r->d->lost += lost;
		}
		break;
	case PERF_RECORD_THROTTLE:
		r->d->throttled++;
		break;
	default:
		break;
	}
}

/* A record's time: a sample's TIME field (after IDENTIFIER, IP, TID), or
 * the sample_id trailer of the others. */
static uint64_t record_time(const uint8_t *rec)
{
	const struct perf_event_header *h = (const void *)rec;
	uint64_t t = 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (h->size >= 40)
			memcpy(&t, rec + 32, 8);
		return t;
	}
	if (h->type == PERF_RECORD_LOST_SAMPLES || h->type < PERF_RECORD_MAX)
		return trailer_time(rec, h->size);
	return 0;
}

/* Make g->cur the next record before head, copied out if it wraps. */
static bool peek(recorder *r, ring *g, uint64_t head)
{
	struct perf_event_mmap_page *pg = (void *)g->base;
	uint8_t *data = g->base + r->page;
	size_t size = g->pages * r->page;
	uint64_t tail = pg->data_tail;
	g->cur = NULL;
	if (tail >= head)
		return false;
	struct perf_event_header h;
	size_t off = tail % size;
	for (size_t i = 0; i < sizeof h; i++)
		((uint8_t *)&h)[i] = data[(off + i) % size];
	if (h.size < sizeof h || tail + h.size > head)
		return false;
	const uint8_t *rec = data + off;
	if (off + h.size > size) {
		if (h.size > g->tmp_cap) {
			uint8_t *t = realloc(g->tmp, h.size);
			if (!t)
				return false;
			g->tmp = t;
			g->tmp_cap = h.size;
		}
		size_t first = size - off;
		memcpy(g->tmp, data + off, first);
		memcpy(g->tmp + first, data, h.size - first);
		rec = g->tmp;
	}
	g->cur = rec;
	g->cur_time = record_time(rec);
	return true;
}

static void consume(ring *g)
{
	struct perf_event_mmap_page *pg = (void *)g->base;
	const struct perf_event_header *h = (const void *)g->cur;
	__atomic_store_n(&pg->data_tail, pg->data_tail + h->size, __ATOMIC_RELEASE);
}

/* Read what the rings hold now, oldest record first across CPUs, so that a
 * library's mmap record is seen before the samples in it. */
static void drain_all(recorder *r)
{
	size_t n = r->ncpus;
	for (size_t i = 0; i < n; i++) {
		ring *g = &r->rings[i];
		g->cur = NULL;
		if (!g->base)
			continue;
		g->head = __atomic_load_n(&((struct perf_event_mmap_page *)(void *)g->base)->data_head,
					  __ATOMIC_ACQUIRE);
		peek(r, g, g->head);
	}
	for (;;) {
		ring *best = NULL;
		for (size_t i = 0; i < n; i++)
			if (r->rings[i].cur && (!best || r->rings[i].cur_time < best->cur_time))
				best = &r->rings[i];
		if (!best)
			break;
		on_record(r, best->cur);
		consume(best);
		peek(r, best, best->head);
	}
}

/* ---- the command -------------------------------------------------------- */

/* Fork the command stopped before exec: it says it is ready with a byte on
 * fail, waits for a byte on go; an exec failure comes back as errno on fail. */
static pid_t spawn(char *const *argv, char **env, int *go_w, int *fail_r, plumb_error *err)
{
	int go[2], fail[2];
	if (pipe2(go, O_CLOEXEC) || pipe2(fail, O_CLOEXEC)) {
		plumb_fail(err, PLUMB_ERR_IO, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		plumb_fail(err, PLUMB_ERR_IO, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char c;
		close(go[1]);
		close(fail[0]);
		/* A process that changed its uid (setpriv, su) is not dumpable
		 * until exec, and perf_event_open would refuse to watch it. */
		prctl(PR_SET_DUMPABLE, 1);
		if (write(fail[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(127);
		/* plumb ignores nothing the command should see */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (env)
			execvpe(argv[0], argv, env);
		else
			execvp(argv[0], argv);
		int e = errno;
		if (write(fail[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(fail[1]);
	char ready;
	if (read(fail[0], &ready, 1) != 1) { /* the child is ready to be watched */
		plumb_fail(err, PLUMB_ERR_IO, "the command's process ended before it started");
		close(go[1]);
		close(fail[0]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	*go_w = go[1];
	*fail_r = fail[0];
	return pid;
}

static void add_proc_maps(recorder *r, pid_t pid)
{
	char path[64], line[4352], file[4097];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		unsigned long long lo, hi, off;
		char perms[8];
		file[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4096[^\n]", &lo, &hi, perms, &off, file) < 4)
			continue;
		if (perms[2] != 'x' || !file[0])
			continue;
		note(r, plumb_rec_map_add(r->d, (int32_t)pid, 0, lo, hi - lo, off, file, NULL, 0, r->err));
	}
	fclose(f);
}

static void add_thread_name(recorder *r, pid_t pid, pid_t tid)
{
	char path[96], name[64] = "";
	snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	FILE *f = fopen(path, "re");
	if (f) {
		if (fgets(name, sizeof name, f))
			name[strcspn(name, "\n")] = 0;
		fclose(f);
	}
	note(r, plumb_rec_thread_set(r->d, (int32_t)pid, (int32_t)tid, name, 0, r->err));
}

int plumb_rec_each_thread(int32_t pid, int (*fn)(void *ctx, int32_t tid), void *ctx)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *dir = opendir(path);
	if (!dir)
		return -2;
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(dir)))
		if (de->d_name[0] != '.')
			rc = fn(ctx, (int32_t)atoi(de->d_name));
	closedir(dir);
	return rc;
}

static int attach_thread(void *ctx, int32_t tid)
{
	recorder *r = ctx;
	add_thread_name(r, r->o->pid, tid);
	int rc = open_task(r, tid, false);
	return rc && errno == ESRCH ? 0 : rc; /* ESRCH: the thread ended meanwhile */
}

/* -p PID: every existing thread (threads created later are inherited). */
static int attach(recorder *r, pid_t pid)
{
	int rc = plumb_rec_each_thread((int32_t)pid, attach_thread, r);
	if (rc == -2)
		return plumb_fail(r->err, PLUMB_ERR_USAGE, "no process %d: %s", (int)pid, strerror(errno));
	if (rc == 0) {
		add_proc_maps(r, pid); /* the events are still disabled: nothing is missed */
		enable_all(r);
	}
	return rc;
}

static bool stopped(const recorder *r)
{
	return r->o->stop && *r->o->stop;
}

/* Read records until the command ends (or the process, or a stop). */
static void loop(recorder *r, pid_t child)
{
	struct pollfd *pf = calloc(r->ncpus, sizeof *pf);
	for (;;) {
		drain_all(r);
		if (r->sched)
			note(r, plumb_sched_poll(r->sched, r->d, SCHED_POLL_NS, false, r->err));
		if (child > 0) {
			/* ended: its last records (exits) are read while the
			 * leader is a zombie, whose schedstat still reads */
			siginfo_t si;
			si.si_pid = 0;
			if (waitid(P_PID, (id_t)child, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
			    si.si_pid == child) {
				drain_all(r);
				if (r->sched)
					note(r, plumb_sched_poll(r->sched, r->d, 0, true, r->err));
				int st;
				pid_t w;
				while ((w = waitpid(child, &st, 0)) < 0 && errno == EINTR)
					;
				if (w == child)
					r->res->wait_status = st;
				break;
			}
		} else if (stopped(r) || kill(r->o->pid, 0) != 0) {
			break;
		}
		size_t np = 0;
		for (size_t i = 0; pf && i < r->ncpus; i++)
			if (r->rings[i].fd >= 0)
				pf[np++] = (struct pollfd){ r->rings[i].fd, POLLIN, 0 };
		poll(pf, np, r->sched ? (int)(SCHED_POLL_NS / 1000000) : 20);
	}
	drain_all(r);
	if (r->sched)
		note(r, plumb_sched_poll(r->sched, r->d, 0, true, r->err));
	free(pf);
}

static int run_command(recorder *r)
{
	int go = -1, fail = -1;
	char dir[PATH_MAX] = "", **env = NULL;
	if (r->waits && !(env = plumb_rec_waits_prepare(r->o, dir, sizeof dir, r->err)))
		return -1;
	pid_t child = spawn(r->o->argv, env, &go, &fail, r->err);
	if (env)
		plumb_sampler_env_free(env);
	if (child < 0) {
		if (dir[0])
			rmdir(dir);
		return -1;
	}
	int rc = open_task(r, child, true);
	if (rc == 0 && r->sched) /* its counters before it runs the command */
		rc = plumb_sched_watch(r->sched, r->d, (int32_t)child, (int32_t)child, 0, false, r->err);
	if (rc == 0 && r->sched && !plumb_sched_watching(r->sched) && r->o->warn)
		r->o->warn(r->o->warn_ctx, "cannot read /proc/PID/task/TID/schedstat (a kernel without "
					   "CONFIG_SCHED_INFO?): off-CPU time only from the traced calls and "
					   "each thread's start and end; --off-cpu=exact reads switch records");
	if (rc) {
		kill(child, SIGKILL);
		close(go);
		close(fail);
		waitpid(child, NULL, 0);
		if (dir[0])
			rmdir(dir);
		return -1;
	}
	if (r->o->started)
		r->o->started(child, r->o->ctx);
	if (write(go, "g", 1) != 1)
		rc = plumb_fail(r->err, PLUMB_ERR_IO, "cannot start the command: %s", strerror(errno));
	close(go);
	int e;
	if (read(fail, &e, sizeof e) == (ssize_t)sizeof e)
		rc = plumb_fail(r->err, PLUMB_ERR_USAGE, "cannot run '%s': %s", r->o->argv[0], strerror(e));
	close(fail);
	if (rc) {
		waitpid(child, &r->res->wait_status, 0);
		if (dir[0])
			rmdir(dir);
		return -1;
	}
	loop(r, child);
	return dir[0] ? plumb_rec_waits_collect(r->o, dir, r->d, r->err) : 0;
}

int plumb_record_perf(const plumb_record_opts *o, plumb_rec_data *d, plumb_record_result *res,
		      plumb_error *err)
{
	memset(res, 0, sizeof *res);
	res->wait_status = -1;
	recorder r = { .o = o, .d = d, .res = res, .err = err, .page = (size_t)sysconf(_SC_PAGESIZE) };
	r.events = o->events;
	r.waits = o->off_cpu || o->sync_wait;
	if (o->pid && o->sync_wait)
		return plumb_fail(err, PLUMB_ERR_USAGE, "--sync-wait needs a command to start "
				  "(the wait tracer is loaded into it), not -p");
	r.nevents = o->nevents;
	if (!r.events || !r.nevents) {
		snprintf(r.def_event.name, sizeof r.def_event.name, "cpu-clock");
		r.def_event.type = PERF_TYPE_SOFTWARE;
		r.def_event.config = PERF_COUNT_SW_CPU_CLOCK;
		r.def_event.exclude_kernel = true;
		r.events = &r.def_event;
		r.nevents = 1;
	}
	if (r.nevents > MAX_EVENTS)
		return plumb_fail(err, PLUMB_ERR_USAGE, "at most %d events in one run", MAX_EVENTS);
	if (!o->pid && (!o->argv || !o->argv[0]))
		return plumb_fail(err, PLUMB_ERR_USAGE, "no command to record");
	/* Not PERF_SAMPLE_PERIOD with a fixed period: the kernel then samples
	 * every software event (page faults...) whatever -c says, as perf
	 * record -c knows (it asks for the period with -P only). */
	r.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	if (!o->period)
		r.sample_type |= PERF_SAMPLE_PERIOD;
	if (o->stack == PLUMB_STACK_FP)
		r.sample_type |= PERF_SAMPLE_CALLCHAIN;
	else if (o->stack == PLUMB_STACK_DWARF)
		r.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	for (size_t i = 0; i < r.nevents; i++) {
		int ev = plumb_rec_event_add(d, r.events[i].name, err);
		if (ev < 0)
			return -1;
		d->periods[ev] = o->period;
	}
	if (o->off_cpu && !o->off_cpu_exact && !(r.sched = plumb_sched_poller_new()))
		return plumb_fail_nomem(err);
	if (rings_new(&r) || !(r.uw = unwinder_new(d, err))) {
		close_all(&r);
		plumb_sched_poller_free(r.sched);
		return -1;
	}
	unwinder_check(r.uw, o->unwind_check);
	uint64_t opened = plumb_rec_now_ns();
	int rc = o->pid ? attach(&r, o->pid) : run_command(&r);
	if (rc == 0 && o->pid && o->off_cpu && o->off_cpu_exact)
		rc = plumb_rec_waits_window_edge(d, (int32_t)o->pid, true, opened, err);
	if (rc == 0 && o->pid && r.sched)
		rc = plumb_sched_watch_all(r.sched, d, (int32_t)o->pid, err);
	if (rc == 0 && o->pid && o->off_cpu)
		rc = plumb_rec_waits_held_stacks(d, r.uw, (int32_t)o->pid, opened,
						 o->stack_size ? o->stack_size : 16384, err);
	if (rc == 0 && o->pid) {
		loop(&r, 0);
		if (o->off_cpu && o->off_cpu_exact)
			rc = plumb_rec_waits_window_edge(d, (int32_t)o->pid, false, plumb_rec_now_ns(), err);
	}
	plumb_rec_waits_opts wo = { o->off_cpu, o->sync_wait != NULL, 0, r.sched != NULL };
	if (rc == 0 && !r.fatal)
		rc = plumb_rec_waits_finish(d, &wo, err);
	close_all(&r);
	plumb_sched_poller_free(r.sched);
	unwind_stats us = unwinder_stats(r.uw);
	res->unwound_recipe = us.recipe;
	res->unwound_libdw = us.libdw;
	res->unwind_differ = us.differ;
	unwinder_free(r.uw);
	res->lost = d->lost;
	res->throttled = d->throttled;
	if (d->throttled && o->warn) {
		char msg[160];
		snprintf(msg, sizeof msg, "the kernel throttled sampling %" PRIu64 " times (too high a "
			 "rate for kernel.perf_cpu_time_max_percent): fewer samples than asked for",
			 d->throttled);
		o->warn(o->warn_ctx, msg);
	}
	if (rc == 0 && r.fatal)
		rc = -1;
	return rc;
}
