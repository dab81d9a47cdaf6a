/* --off-cpu's default mode: each thread's /proc/PID/task/TID/schedstat
 * ("EXEC_NS RUN_DELAY_NS TIMESLICES", CONFIG_SCHED_INFO) read by plumb
 * record every few milliseconds through a file kept open (pread at 0):
 * nothing runs in the target, unlike the kernel's switch records, which
 * cost it ~0.8 us a switch (docs/waits.md, Cost). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "model/hash.h"
#include "model/index.h"
#include "record/record_internal.h"
#include "record/waits_sched.h"

void plumb_sched_split_period(plumb_sched_carry *c, uint64_t wall, uint64_t exec, uint64_t delay,
			      uint64_t traced, plumb_sched_split *s)
{
	memset(s, 0, sizeof *s);
	uint64_t off = 0;
	if (exec > wall)
		c->debt = c->debt > UINT64_MAX - (exec - wall) ? UINT64_MAX : c->debt + (exec - wall);
	else
		off = wall - exec;
	uint64_t paid = off < c->debt ? off : c->debt;
	off -= paid;
	c->debt -= paid;
	delay = delay > UINT64_MAX - c->delay ? UINT64_MAX : delay + c->delay;
	s->off = off;
	s->traced = traced < off ? traced : off;
	s->preempted = delay < off ? delay : off;
	c->delay = delay - s->preempted;
	uint64_t untraced = off - s->traced;
	s->pre_untraced = s->preempted < untraced ? s->preempted : untraced;
	s->pre_traced = s->preempted - s->pre_untraced;
	s->blocked = untraced - s->pre_untraced;
}

/* ---- the poller -------------------------------------------------------- */

typedef struct watched {
	int32_t pid, tid;
	int fd;                /* -1: opened at each reading (no descriptor was left) */
	bool gone;             /* ended or unreadable: dropped at the next poll */
} watched;

struct plumb_sched_poller {
	PLUMB_VEC(watched) w;
	plumb_index ix;        /* (pid, tid) -> index into w, of the live ones */
	uint64_t last_poll;
};

static uint32_t key_hash(int32_t pid, int32_t tid)
{
	return (uint32_t)plumb_hash_mix((uint64_t)(uint32_t)pid, (uint64_t)(uint32_t)tid);
}

static bool same_thread(const void *ctx, uint32_t id, const void *key)
{
	const watched *w = &((const plumb_sched_poller *)ctx)->w.v[id], *k = key;
	return w->pid == k->pid && w->tid == k->tid;
}

static watched *find(plumb_sched_poller *p, int32_t pid, int32_t tid)
{
	watched k = { pid, tid, -1, false };
	uint32_t id = plumb_index_find(&p->ix, key_hash(pid, tid), same_thread, p, &k);
	return id == PLUMB_NONE ? NULL : &p->w.v[id];
}

plumb_sched_poller *plumb_sched_poller_new(void)
{
	/* a descriptor per live thread: take the hard limit of them */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	return calloc(1, sizeof(plumb_sched_poller));
}

void plumb_sched_poller_free(plumb_sched_poller *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->w.n; i++)
		if (p->w.v[i].fd >= 0)
			close(p->w.v[i].fd);
	free(p->w.v);
	plumb_index_free(&p->ix);
	free(p);
}

static int open_stat(int32_t pid, int32_t tid)
{
	char path[96];
	snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* Read w's counters into exec and delay; false when it cannot be read
 * (it has ended and been reaped). */
static bool read_stat(watched *w, uint64_t *exec, uint64_t *delay)
{
	char buf[96];
	int fd = w->fd >= 0 ? w->fd : open_stat(w->pid, w->tid);
	if (fd < 0)
		return false;
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	if (w->fd < 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	unsigned long long e, dl;
	if (sscanf(buf, "%llu %llu", &e, &dl) != 2)
		return false;
	*exec = e;
	*delay = dl;
	return true;
}

static int reading(plumb_rec_data *d, watched *w, plumb_error *err)
{
	uint64_t exec, delay, t = plumb_rec_now_ns();
	if (!read_stat(w, &exec, &delay)) {
		w->gone = true;
		return 0;
	}
	return plumb_rec_sched_add(d, w->pid, w->tid, t, exec, delay, PLUMB_SCHED_READ, err);
}

int plumb_sched_watch(plumb_sched_poller *p, plumb_rec_data *d, int32_t pid, int32_t tid,
		      uint64_t time_ns, bool start, plumb_error *err)
{
	watched *known = find(p, pid, tid);
	if (known && !known->gone)
		return 0;
	if (start && plumb_rec_sched_add(d, pid, tid, time_ns, 0, 0, PLUMB_SCHED_START, err))
		return -1;
	int fd = open_stat(pid, tid);
	if (fd < 0 && errno != EMFILE && errno != ENFILE)
		return 0; /* gone already: its start and end records say enough */
	if (known) { /* its id again, before the poll that drops the old one */
		if (known->fd >= 0)
			close(known->fd);
		*known = (watched){ pid, tid, fd, false };
		return start ? 0 : reading(d, known, err);
	}
	if (plumb_vec_push(p->w, ((watched){ pid, tid, fd, false })) ||
	    plumb_index_insert(&p->ix, key_hash(pid, tid), (uint32_t)(p->w.n - 1))) {
		if (fd >= 0)
			close(fd);
		return plumb_fail_nomem(err);
	}
	return start ? 0 : reading(d, &p->w.v[p->w.n - 1], err);
}

size_t plumb_sched_watching(const plumb_sched_poller *p)
{
	return p->w.n;
}

typedef struct watch_ctx {
	plumb_sched_poller *p;
	plumb_rec_data *d;
	int32_t pid;
	plumb_error *err;
} watch_ctx;

static int watch_one(void *ctx, int32_t tid)
{
	watch_ctx *c = ctx;
	return plumb_sched_watch(c->p, c->d, c->pid, tid, 0, false, c->err);
}

int plumb_sched_watch_all(plumb_sched_poller *p, plumb_rec_data *d, int32_t pid, plumb_error *err)
{
	watch_ctx c = { p, d, pid, err };
	int rc = plumb_rec_each_thread(pid, watch_one, &c);
	return rc == -2 ? 0 : rc;
}

static int scan(plumb_sched_poller *p, plumb_rec_data *d, int32_t pid, int depth, plumb_error *err)
{
	char path[96];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *dir = opendir(path);
	if (!dir)
		return 0; /* ended meanwhile */
	PLUMB_VEC(int32_t) tids = { NULL, 0, 0 };
	int rc = 0;
	for (struct dirent *e; rc == 0 && (e = readdir(dir));)
		if (e->d_name[0] != '.' && plumb_vec_push(tids, (int32_t)atoi(e->d_name)))
			rc = plumb_fail_nomem(err);
	closedir(dir);
	for (size_t i = 0; rc == 0 && i < tids.n; i++) {
		rc = plumb_sched_watch(p, d, pid, tids.v[i], 0, false, err);
		char buf[4096];
		snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)tids.v[i]);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? 0 : read(fd, buf, sizeof buf - 1);
		if (fd >= 0)
			close(fd);
		buf[n > 0 ? n : 0] = '\0';
		char *save = NULL;
		for (char *t = strtok_r(buf, " \n", &save); rc == 0 && t && depth < 64;
		     t = strtok_r(NULL, " \n", &save))
			rc = scan(p, d, (int32_t)atoi(t), depth + 1, err);
	}
	free(tids.v);
	return rc;
}

int plumb_sched_scan(plumb_sched_poller *p, plumb_rec_data *d, int32_t root, plumb_error *err)
{
	return scan(p, d, root, 0, err);
}

int plumb_sched_ended(plumb_sched_poller *p, plumb_rec_data *d, int32_t pid, int32_t tid,
		      uint64_t time_ns, plumb_error *err)
{
	watched *w = find(p, pid, tid);
	if (w && !w->gone) {
		if (reading(d, w, err))
			return -1;
		w->gone = true;
	}
	return plumb_rec_sched_add(d, pid, tid, time_ns, 0, 0, PLUMB_SCHED_END, err);
}

uint64_t plumb_sched_period(const plumb_sched_poller *p, uint64_t period_ns)
{
	uint64_t many = (uint64_t)p->w.n * 100000u; /* a read is 3-7 us here */
	return many > period_ns ? many : period_ns;
}

int plumb_sched_poll(plumb_sched_poller *p, plumb_rec_data *d, uint64_t period_ns, bool force,
		     plumb_error *err)
{
	uint64_t now = plumb_rec_now_ns();
	if (!force && now - p->last_poll < plumb_sched_period(p, period_ns))
		return 0;
	p->last_poll = now;
	size_t k = 0;
	for (size_t i = 0; i < p->w.n; i++) {
		watched *w = &p->w.v[i];
		if (!w->gone && reading(d, w, err))
			return -1;
		if (w->gone) {
			if (w->fd >= 0)
				close(w->fd);
			continue;
		}
		p->w.v[k++] = *w;
	}
	if (k == p->w.n)
		return 0;
	p->w.n = k; /* some ended: index the rest again */
	plumb_index_free(&p->ix);
	for (size_t i = 0; i < p->w.n; i++)
		if (plumb_index_insert(&p->ix, key_hash(p->w.v[i].pid, p->w.v[i].tid), (uint32_t)i))
			return plumb_fail_nomem(err);
	return 0;
}
