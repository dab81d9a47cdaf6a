/* libplumb-sampler.so: a preloaded sampler for `plumb record
 * --sampler=signal`. Each thread has a timer (timer_create with
 * SIGEV_THREAD_ID) that sends it a signal; the handler unwinds the
 * interrupted stack and appends a record to the thread's buffer, written to
 * DIR/plumb-sampler.<pid> (format.h) when half full or every 100 ms.
 *
 * Settings (environment): PLUMB_SAMPLER_DIR (required: without it the
 * library does nothing), PLUMB_SAMPLER_HZ (default 1000),
 * PLUMB_SAMPLER_CLOCK (cpu, the default, or wall), PLUMB_SAMPLER_SIGNAL
 * (a signal number, default SIGPROF). See docs/sampler.md. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/heap.h"
#include "preload/sampler.h"

struct smp_state smp = { .fd = -1 };
__thread struct smp_slot *smp_self __attribute__((tls_model("initial-exec")));

uint64_t smp_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* ---- the file ------------------------------------------------------------ */

/* The descriptor still names our file? A program may close descriptors it
 * did not open, and the number may then be reused for one of its files. */
static int fd_is_ours(int fd)
{
	struct stat st;
	return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == smp.dev && st.st_ino == smp.ino;
}

static int reopen(void)
{
	int fd = open(smp.path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int old = atomic_load(&smp.fd);
	if (!atomic_compare_exchange_strong(&smp.fd, &old, fd)) {
		close(fd);   /* another thread reopened it first */
		return atomic_load(&smp.fd);
	}
	return fd;
}

void smp_write(const void *buf, size_t len)
{
	int fd = atomic_load(&smp.fd);
	if (!fd_is_ours(fd) && (fd = reopen()) < 0)
		return;
	const char *p = buf;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		len -= (size_t)w;
	}
}

void smp_flush(struct smp_slot *t, uint64_t now)
{
	if (t->len)
		smp_write(t->buf, t->len);
	t->len = 0;
	t->last_flush = now;
}

/* Open DIR/plumb-sampler.<pid> for this process (appending after an exec)
 * and write the file header if it is new. */
int smp_open_file(void)
{
	smp.pid = getpid();
	snprintf(smp.path, sizeof smp.path, "%s/plumb-sampler.%d", smp.dir, (int)smp.pid);
	int fd = open(smp.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		atomic_store(&smp.fd, -1);
		return -1;
	}
	smp.dev = st.st_dev;
	smp.ino = st.st_ino;
	atomic_store(&smp.fd, fd);
	if (st.st_size == 0) {
		struct psmp_file_header h = { PSMP_MAGIC, PSMP_VERSION, sizeof h };
		smp_write(&h, sizeof h);
	}
	return 0;
}

/* Buffers come from mmap, not malloc: _exit and execve may be called from
 * a signal handler of the program, which may have interrupted malloc. */
struct mbuf {
	char *p;
	size_t len, cap;
};

static int mbuf_reserve(struct mbuf *b, size_t need)
{
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 65536;
	while (cap < need)
		cap *= 2;
	char *p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	if (b->len)
		memcpy(p, b->p, b->len);
	if (b->p)
		munmap(b->p, b->cap);
	b->p = p;
	b->cap = cap;
	return 0;
}

static void mbuf_free(struct mbuf *b)
{
	if (b->p)
		munmap(b->p, b->cap);
	*b = (struct mbuf){ NULL, 0, 0 };
}

/* Append the whole of a (/proc) file to b. */
static int mbuf_read_file(struct mbuf *b, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (;;) {
		if (mbuf_reserve(b, b->len + 4096) != 0)
			break;
		ssize_t r = read(fd, b->p + b->len, b->cap - b->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		b->len += (size_t)r;
	}
	close(fd);
	return 0;
}

/* A record: its fixed part, then text padded to 8 bytes, in one write(2)
 * so that records of several threads never interleave. */
static void write_with_text(struct mbuf *b, void *fixed, size_t fixed_len, size_t text_at,
			    size_t n)
{
	size_t total = fixed_len + PSMP_PAD8(n);
	if (mbuf_reserve(b, text_at + total) != 0)
		return;
	memset(b->p + text_at + n, 0, PSMP_PAD8(n) - n);
	((struct psmp_rec *)fixed)->size = (uint32_t)total;
	memmove(b->p + text_at + fixed_len, b->p + text_at, n);
	memcpy(b->p + text_at, fixed, fixed_len);
	smp_write(b->p + text_at, total);
}

void smp_write_image(uint32_t origin, pid_t ppid)
{
	struct mbuf b = { NULL, 0, 0 };
	if (mbuf_reserve(&b, PATH_MAX) != 0)
		return;
	ssize_t el = readlink("/proc/self/exe", b.p, PATH_MAX - 1);
	b.len = el > 0 ? (size_t)el : 0;
	mbuf_read_file(&b, "/proc/self/cmdline");
	size_t cl = b.len - (size_t)(el > 0 ? el : 0);
	if (cl > 4096)
		cl = 4096;
	struct psmp_image im = {
		.h.type = PSMP_IMAGE, .pid = (uint32_t)smp.pid, .ppid = (uint32_t)ppid,
		.origin = origin, .clock = (uint32_t)smp.clock, .signo = (uint32_t)smp.signo,
		.period_ns = smp.period_ns, .requested_hz = smp.hz, .time_ns = smp_now(),
		.exe_len = (uint32_t)(el > 0 ? el : 0), .cmdline_len = (uint32_t)cl,
	};
	write_with_text(&b, &im, sizeof im, 0, im.exe_len + cl);
	mbuf_free(&b);
}

void smp_write_maps(void)
{
	atomic_store(&smp.maps_dirty, 0);
	struct mbuf b = { NULL, 0, 0 };
	if (mbuf_read_file(&b, "/proc/self/maps") == 0) {
		struct psmp_maps m = { .h.type = PSMP_MAPS, .time_ns = smp_now(), .len = (uint32_t)b.len };
		write_with_text(&b, &m, sizeof m, 0, b.len);
	}
	mbuf_free(&b);
}

void smp_write_end(uint32_t reason)
{
	struct timespec ts = { 0, 0 };
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	struct psmp_end e = {
		.h = { PSMP_END, sizeof e }, .time_ns = smp_now(),
		.cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec,
		.samples = atomic_load(&smp.samples), .dropped = atomic_load(&smp.dropped),
		.handler_ns = atomic_load(&smp.handler_ns),
		.reason = reason,
	};
	smp_write(&e, sizeof e);
}

/* ---- threads ------------------------------------------------------------- */

/* A free slot, or a new one (mmap: no malloc state involved). */
struct smp_slot *smp_slot_acquire(void)
{
	for (struct smp_slot *t = atomic_load(&smp.slots); t; t = t->next) {
		int free_ = 0;
		if (atomic_compare_exchange_strong(&t->live, &free_, 1))
			return t;
	}
	struct smp_slot *t = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return NULL;
	atomic_store(&t->live, 1);
	struct smp_slot *head = atomic_load(&smp.slots);
	do
		t->next = head;
	while (!atomic_compare_exchange_weak(&smp.slots, &head, t));
	return t;
}

int smp_arm(struct smp_slot *t)
{
	if (smp.clock == PSMP_CLOCK_NONE)
		return 0;   /* waits only: perf_event_open samples the CPU */
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = smp.signo;
	sev._sigev_un._tid = t->tid;
	clockid_t c = smp.clock == PSMP_CLOCK_WALL ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID;
	if (timer_create(c, &sev, &t->timer) != 0)
		return -1;
	t->has_timer = 1;
	struct timespec p = { (time_t)(smp.period_ns / 1000000000ull),
			      (long)(smp.period_ns % 1000000000ull) };
	struct itimerspec its = { p, p };
	return timer_settime(t->timer, 0, &its, NULL);
}

void smp_disarm(struct smp_slot *t)
{
	if (!t->has_timer)
		return;
	struct itimerspec zero;
	memset(&zero, 0, sizeof zero);
	timer_settime(t->timer, 0, &zero, NULL);
}

/* The calling thread's name, or tid's from /proc. */
static void thread_name(pid_t tid, char name[16])
{
	memset(name, 0, 16);
	if (tid == my_tid()) {
		prctl(PR_GET_NAME, name);
		return;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, name, 15);
	close(fd);
	if (n > 0 && name[n - 1] == '\n')
		name[n - 1] = 0;
}

static uint64_t thread_cpu_ns(pid_t tid)
{
	/* the kernel's clock id of a thread's CPU clock (CPUCLOCK_PERTHREAD | SCHED) */
	clockid_t c = tid == my_tid() ? CLOCK_THREAD_CPUTIME_ID : (clockid_t)((~(unsigned)tid << 3) | 6);
	struct timespec ts;
	if (clock_gettime(c, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void smp_thread_record(struct smp_slot *t, uint32_t flags)
{
	struct psmp_thread r = {
		.h = { PSMP_THREAD, sizeof r }, .tid = (uint32_t)t->tid,
		.flags = flags | (t->is_main ? PSMP_THREAD_MAIN : 0),
		.start_routine = t->start_routine, .time_ns = smp_now(), .cpu_ns = thread_cpu_ns(t->tid),
	};
	thread_name(t->tid, r.name);
	smp_write(&r, sizeof r);
}

/* Called in the new thread itself: label it, then start its timer. */
void smp_thread_begin(struct smp_slot *t, uint64_t start_routine, int is_main)
{
	t->tid = my_tid();
	t->is_main = is_main;
	t->start_routine = start_routine;
	t->len = 0;
	t->has_timer = 0;
	t->last_flush = smp_now();
	atomic_store(&t->busy, 0);
	smp_self = t;
	pthread_setspecific(smp.key, t);
	smp_thread_record(t, 0);
	smp_arm(t);
}

/* Take t's buffer from its handler: spin while a handler holds it. The
 * bound only matters if that thread was stopped inside its handler. */
static int take(struct smp_slot *t)
{
	/* Our own handler holds it: we interrupted it (an _exit from a signal
	 * handler of the program); waiting would never end. */
	int spins = t == smp_self ? 1 : 100000;
	for (int i = 0; i < spins; i++) {
		if (!atomic_exchange(&t->busy, 1))
			return 1;
		sched_yield();
	}
	return 0;
}

/* pthread key destructor: the thread ends (return or pthread_exit). */
void smp_thread_key_done(void *p)
{
	struct smp_slot *t = p;
	if (!t || t->tid != my_tid())
		return;
	smp_disarm(t);
	if (t->has_timer)
		timer_delete(t->timer);
	t->has_timer = 0;
	if (take(t)) {
		smp_flush(t, smp_now());
		smp_thread_record(t, PSMP_THREAD_ENDED);
	}
	smp_self = NULL;
	atomic_store(&t->busy, 0);
	atomic_store(&t->live, 0);
}

/* ---- whole process --------------------------------------------------------- */

/* Stop sampling and write everything: at exit (reason EXIT) and before an
 * exec (reason EXEC, after which the timers may be re-armed). */
void smp_finish(uint32_t reason)
{
	if (!atomic_load(&smp.active) || getpid() != smp.pid)
		return;   /* not set up, or a vfork child sharing our memory */
	atomic_store(&smp.stopping, 1);
	for (struct smp_slot *t = atomic_load(&smp.slots); t; t = t->next)
		if (atomic_load(&t->live))
			smp_disarm(t);
	uint64_t now = smp_now();
	for (struct smp_slot *t = atomic_load(&smp.slots); t; t = t->next) {
		if (!atomic_load(&t->live) || !take(t))
			continue;
		smp_flush(t, now);
		smp_thread_record(t, 0);
		atomic_store(&t->busy, 0);
	}
	heap_finish();
	smp_write_maps();
	smp_write_end(reason);
	if (reason == PSMP_END_EXIT)
		atomic_store(&smp.active, 0);
}

void smp_resume_after_exec_failure(void)
{
	atomic_store(&smp.stopping, 0);
	struct timespec p = { (time_t)(smp.period_ns / 1000000000ull),
			      (long)(smp.period_ns % 1000000000ull) };
	struct itimerspec its = { p, p };
	for (struct smp_slot *t = atomic_load(&smp.slots); t; t = t->next)
		if (atomic_load(&t->live) && t->has_timer)
			timer_settime(t->timer, 0, &its, NULL);
}

/* ---- load and unload ------------------------------------------------------- */

static int read_settings(void)
{
	const char *dir = getenv("PLUMB_SAMPLER_DIR");
	if (!dir || !*dir || strlen(dir) >= sizeof smp.dir)
		return -1;
	strcpy(smp.dir, dir);
	const char *hz = getenv("PLUMB_SAMPLER_HZ");
	smp.hz = hz && *hz ? strtoull(hz, NULL, 10) : 1000;
	if (smp.hz == 0 || smp.hz > 1000000)
		smp.hz = 1000;
	smp.period_ns = 1000000000ull / smp.hz;
	const char *clk = getenv("PLUMB_SAMPLER_CLOCK");
	smp.clock = clk && strcmp(clk, "wall") == 0 ? PSMP_CLOCK_WALL
		    : clk && strcmp(clk, "none") == 0 ? PSMP_CLOCK_NONE : PSMP_CLOCK_CPU;
	const char *sig = getenv("PLUMB_SAMPLER_SIGNAL");
	smp.signo = sig && *sig ? atoi(sig) : SIGPROF;
	if (smp.signo <= 0 || smp.signo >= NSIG || smp.signo == SIGKILL || smp.signo == SIGSTOP)
		smp.signo = SIGPROF;
	Dl_info info;
	if (dladdr((void *)read_settings, &info) && info.dli_fname)
		snprintf(smp.lib, sizeof smp.lib, "%s", info.dli_fname);
	return 0;
}

static int install_handler(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = smp_on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	return sigaction(smp.signo, &sa, NULL);
}

__attribute__((constructor)) static void smp_load(void)
{
	if (smp_hooks_resolve() != 0 || read_settings() != 0)
		return;
	smp_unwind_warm_up();
	if (pthread_key_create(&smp.key, smp_thread_key_done) != 0 || install_handler() != 0)
		return;
	if (smp_open_file() != 0)
		return;
	struct stat st;
	int after_exec = fstat(atomic_load(&smp.fd), &st) == 0 &&
			 st.st_size > (off_t)sizeof(struct psmp_file_header);
	smp_write_image(after_exec ? PSMP_ORIGIN_EXEC : PSMP_ORIGIN_START, getppid());
	smp_write_maps();
	struct smp_slot *t = smp_slot_acquire();
	if (!t)
		return;
	pthread_atfork(smp_atfork_prepare, smp_atfork_parent, smp_atfork_child);
	atomic_store(&smp.active, 1);
	smp_thread_begin(t, 0, 1);
	heap_start();   /* plumb record --heap */
	/* A blocked signal (inherited through exec) would mean no samples. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, smp.signo);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

__attribute__((destructor)) static void smp_unload(void)
{
	smp_finish(PSMP_END_EXIT);
}
