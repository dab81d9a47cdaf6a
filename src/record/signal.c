/* plumb record --sampler=signal (and the fallback when perf_event_open is
 * not permitted): run the command with libplumb-sampler.so preloaded, wait
 * for it, then read the per-process files the sampler wrote into a private
 * temporary directory. See docs/sampler.md. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "preload/format.h"
#include "record/heap.h"
#include "record/signal_read.h"
#include "record/waits_sched.h"

#ifndef PLUMB_LIBDIR
#define PLUMB_LIBDIR "/usr/local/lib/plumb"
#endif

/* the sampler, and its build with the allocator wrappers (--heap): a
 * recording without heap tracing wraps no malloc, so pays nothing per call */
#define SAMPLER_SO "libplumb-sampler.so"
#define SAMPLER_HEAP_SO "libplumb-sampler-heap.so"

extern char **environ;

static int readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* The sampler next to the running plumb (a build tree), else in
 * ../lib/plumb from it, else where make install put it. */
int plumb_sampler_find(char *out, size_t cap, bool heap, plumb_error *err)
{
	const char *so = heap ? SAMPLER_HEAP_SO : SAMPLER_SO;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = 0;
		const char *bin = dirname(exe);
		snprintf(out, cap, "%s/%s", bin, so);
		if (readable(out))
			return 0;
		/* an installed tree moved elsewhere: PREFIX/bin/../lib/plumb */
		snprintf(out, cap, "%s/../lib/plumb/%s", bin, so);
		if (readable(out))
			return 0;
	}
	snprintf(out, cap, "%s/%s", PLUMB_LIBDIR, so);
	if (readable(out))
		return 0;
	return plumb_fail(err, PLUMB_ERR_IO,
			  "the signal sampler %s is neither next to the plumb binary "
			  "nor in " PLUMB_LIBDIR " (make builds it; make install installs it)", so);
}

/* Which clock the events ask for: cpu-clock and task-clock are the
 * thread's CPU time; nothing else can be sampled by a timer signal. */
static int check_events(const plumb_record_opts *o, plumb_error *err)
{
	for (size_t i = 0; i < o->nevents; i++) {
		const char *e = o->events[i].name;
		if (strcmp(e, "cpu-clock") != 0 && strcmp(e, "task-clock") != 0)
			return plumb_fail(err, PLUMB_ERR_USAGE,
					  "event '%s': the signal sampler measures cpu-clock only; "
					  "other events need perf_event_open (see perf_event_paranoid)",
					  e);
	}
	if (o->nevents > 1)
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "the signal sampler records one event (cpu-clock), not %zu",
				  o->nevents);
	if (o->pid)
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "the signal sampler cannot attach to a running process (-p %d): "
				  "it is loaded into the command it starts",
				  (int)o->pid);
	if (!o->argv || !o->argv[0])
		return plumb_fail(err, PLUMB_ERR_USAGE, "no command to record");
	return 0;
}

/* -F HZ, or -c N as a period in nanoseconds (as perf reads it for
 * cpu-clock). */
static uint64_t rate_hz(const plumb_record_opts *o)
{
	/* one event here: its own period= or freq= first */
	uint64_t period = o->nevents ? o->events[0].period : 0, freq = o->nevents ? o->events[0].freq : 0;
	if (!period && !freq) {
		period = o->period;
		freq = o->freq;
	}
	if (period)
		return period >= 1000000000ull ? 1 : 1000000000ull / period;
	return freq ? freq : 1000;
}

/* Free what plumb_sampler_env added: the entries that are not environ's. */
static void free_env(char **env)
{
	for (size_t i = 0; env[i]; i++) {
		bool ours = true;
		for (size_t j = 0; environ[j] && ours; j++)
			ours = env[i] != environ[j];
		if (ours)
			free(env[i]);
	}
	free(env);
}

/* The environment of the command: ours plus LD_PRELOAD (the sampler
 * appended to any existing list) and the sampler's settings. */
char **plumb_sampler_env(const char *lib, const char *dir, uint64_t hz, const char *clock,
			 const char *waits, const plumb_record_opts *heap)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 8, sizeof *env);
	if (!env)
		return NULL;
	size_t k = 0;
	const char *old = NULL;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(environ[i], "LD_PRELOAD=", 11) == 0)
			old = environ[i] + 11;
		else if (strncmp(environ[i], "PLUMB_SAMPLER_", 14) != 0)
			env[k++] = environ[i];
	}
	int ok = 1;
	if (old && *old)
		ok &= asprintf(&env[k++], "LD_PRELOAD=%s:%s", old, lib) > 0;
	else
		ok &= asprintf(&env[k++], "LD_PRELOAD=%s", lib) > 0;
	ok &= asprintf(&env[k++], "PLUMB_SAMPLER_DIR=%s", dir) > 0;
	ok &= asprintf(&env[k++], "PLUMB_SAMPLER_HZ=%llu", (unsigned long long)hz) > 0;
	ok &= asprintf(&env[k++], "PLUMB_SAMPLER_CLOCK=%s", clock) > 0;
	ok &= asprintf(&env[k++], "PLUMB_SAMPLER_WAITS=%s", waits ? waits : "") > 0;
	/* --heap (docs/heap.md) */
	if (heap && heap->heap && heap->heap_sample)
		ok &= asprintf(&env[k++], "PLUMB_SAMPLER_HEAP=sample:%llu", (unsigned long long)heap->heap_sample) > 0;
	else if (heap && heap->heap)
		ok &= asprintf(&env[k++], "PLUMB_SAMPLER_HEAP=exact") > 0;
	if (heap && heap->heap && heap->heap_seed)
		ok &= asprintf(&env[k++], "PLUMB_SAMPLER_HEAP_SEED=%llu", (unsigned long long)heap->heap_seed) > 0;
	env[k] = NULL;
	if (!ok) {
		free_env(env);
		return NULL;
	}
	return env;
}

void plumb_sampler_env_free(char **env)
{
	free_env(env);
}

/* fork + exec; a failed exec comes back through a close-on-exec pipe, and
 * *st gets the child's status (exit 127, as a shell's). */
static pid_t start_command(const plumb_record_opts *o, char **env, int *st, plumb_error *err)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return plumb_fail(err, PLUMB_ERR_IO, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return plumb_fail(err, PLUMB_ERR_IO, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(p[0]);
		execvpe(o->argv[0], o->argv, env);
		int e = errno;
		if (write(p[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(p[1]);
	int e = 0;
	ssize_t r;
	while ((r = read(p[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(p[0]);
	if (r == (ssize_t)sizeof e) {
		while (waitpid(pid, st, 0) < 0 && errno == EINTR)
			;
		return plumb_fail(err, PLUMB_ERR_IO, "cannot run '%s': %s", o->argv[0], strerror(e));
	}
	return pid;
}

static int wait_command(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

/* --off-cpu: until pid ends, read the schedstat of its threads and its
 * descendants' every 5 ms (waits_sched.c; the preloaded library's THREAD
 * records give each thread's start and end). The last reading is of the
 * leader as a zombie, before wait_command reaps it. */
static int poll_command(pid_t pid, plumb_rec_data *d, plumb_error *err)
{
	plumb_sched_poller *p = plumb_sched_poller_new();
	if (!p)
		return plumb_fail_nomem(err);
	int rc = 0;
	for (;;) {
		if (rc == 0)
			rc = plumb_sched_scan(p, d, (int32_t)pid, err) || plumb_sched_poll(p, d, 0, true, err);
		siginfo_t si;
		si.si_pid = 0;
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 ? si.si_pid == pid
										     : errno != EINTR)
			break;
		uint64_t ns = plumb_sched_period(p, 5000000);
		struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
		nanosleep(&ts, NULL);
	}
	if (rc == 0)
		rc = plumb_sched_poll(p, d, 0, true, err);
	plumb_sched_poller_free(p);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every plumb-sampler.* file of dir, sorted, each freed by the caller. */
char **plumb_sampler_list(const char *dir, size_t *n, plumb_error *err)
{
	DIR *dh = opendir(dir);
	if (!dh) {
		plumb_fail(err, PLUMB_ERR_IO, "%s: %s", dir, strerror(errno));
		return NULL;
	}
	size_t cap = 16;
	char **v = malloc(cap * sizeof *v);
	*n = 0;
	for (struct dirent *e; v && (e = readdir(dh));) {
		if (strncmp(e->d_name, "plumb-sampler.", 14) != 0)
			continue;
		if (*n == cap) {
			char **nv = realloc(v, (cap *= 2) * sizeof *v);
			if (!nv)
				break;
			v = nv;
		}
		if (asprintf(&v[*n], "%s/%s", dir, e->d_name) > 0)
			(*n)++;
	}
	closedir(dh);
	if (!v) {
		plumb_fail_nomem(err);
		return NULL;
	}
	qsort(v, *n, sizeof *v, by_name);
	return v;
}

void plumb_sampler_list_free(char **v, size_t n, int unlink_them)
{
	for (size_t i = 0; i < n; i++) {
		if (unlink_them)
			unlink(v[i]);
		free(v[i]);
	}
	free(v);
}

/* The tick-rate note: CPU-time timers fire at most once per kernel tick. */
static void rate_note(const plumb_record_opts *o, const plumb_sig_info *in, uint64_t hz,
		      plumb_record_result *res)
{
	char note[256];
	if (in->cpu_ns > 0 && in->samples > 0) {
		double measured = (double)in->samples * 1e9 / (double)in->cpu_ns;
		snprintf(note, sizeof note,
			 "signal sampler: CPU-time timers fire at most once per kernel tick: "
			 "%llu Hz requested, %.0f Hz measured; each sample weighs the timer "
			 "periods it covers",
			 (unsigned long long)hz, measured);
	} else {
		snprintf(note, sizeof note,
			 "signal sampler: CPU-time timers fire at most once per kernel tick "
			 "(often 250 Hz), whatever the %llu Hz requested",
			 (unsigned long long)hz);
	}
	if (res)
		snprintf(res->note, sizeof res->note, "%s", note);
	if (o->warn)
		o->warn(o->warn_ctx, note);
}

static int read_all(const plumb_record_opts *o, const char *dir, plumb_rec_data *d,
		    plumb_sig_info *info, plumb_error *err)
{
	int ev = plumb_rec_event_add(d, "cpu-clock", err);
	if (ev < 0)
		return -1;
	size_t n = 0;
	char **files = plumb_sampler_list(dir, &n, err);
	if (!files)
		return -1;
	int hev = o->heap ? plumb_heap_events_add(d, err) : 0;
	if (hev < 0) {
		plumb_sampler_list_free(files, n, 0);
		return -1;
	}
	plumb_heap_info hinfo = { 0 };
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		size_t len = 0;
		const unsigned char *b = plumb_rec_map_file(files[i], &len, err);
		if (!b) {
			rc = -1;
			break;
		}
		rc = plumb_sig_read_buffer(files[i], b, len, d, (uint32_t)ev, o->stack == PLUMB_STACK_NONE,
					   info, o->warn, o->warn_ctx, err);
		if (rc == 0 && o->heap)
			rc = len ? plumb_heap_read_buffer(files[i], b, len, d, (uint32_t)hev, &hinfo, err)
				 : plumb_fail(err, PLUMB_ERR_FORMAT, "%s: empty", files[i]);
		plumb_rec_unmap_file(b, len);
	}
	if (rc == 0 && n && o->heap)
		rc = plumb_heap_note(o, &hinfo, d, err);
	if (rc == 0 && n == 0)
		rc = plumb_fail(err, PLUMB_ERR_IO,
				"the signal sampler wrote nothing in %s: the command is static, "
				"setuid, or removed LD_PRELOAD (see docs/sampler.md)",
				dir);
	/* A damaged file is kept for a look; the message names it. */
	plumb_sampler_list_free(files, n, rc == 0);
	return rc;
}

/* Is dir's file system (nearly) full? The sampler's write(2) then failed
 * with ENOSPC and cut its files short: samples are missing, not only the
 * last record of a killed process. Asked before the files are removed. */
static bool fs_full(const char *dir)
{
	struct statvfs sv;
	return statvfs(dir, &sv) == 0 && (uint64_t)sv.f_bavail * sv.f_frsize < 64 * 1024;
}

int plumb_record_signal(const plumb_record_opts *o, plumb_rec_data *d, plumb_record_result *res,
			plumb_error *err)
{
	if (res) {
		memset(res, 0, sizeof *res);
		res->wait_status = -1;
	}
	char lib[PATH_MAX];
	if (check_events(o, err) || plumb_sampler_find(lib, sizeof lib, o->heap, err) ||
	    (o->heap && plumb_heap_check_command(o->argv[0], err)))
		return -1;
	if (o->stack == PLUMB_STACK_FP && o->warn)
		o->warn(o->warn_ctx, "signal sampler: -g fp is not used; stacks are unwound with "
				     "the binaries' CFI in the signal handler");
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/plumb-sampler.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return plumb_fail(err, PLUMB_ERR_IO, "cannot make a temporary directory %s: %s", dir,
				  strerror(errno));
	uint64_t hz = rate_hz(o);
	char waits[96];
	plumb_rec_waits_env(o, waits, sizeof waits);
	char **env = plumb_sampler_env(lib, dir, hz, "cpu", waits, o);
	if (!env) {
		rmdir(dir);
		return plumb_fail_nomem(err);
	}
	int failed_st = -1;
	pid_t pid = start_command(o, env, &failed_st, err);
	plumb_sampler_env_free(env);
	if (pid < 0) {
		if (res)
			res->wait_status = failed_st;
		rmdir(dir);
		return -1;
	}
	if (o->started)
		o->started(pid, o->ctx);
	int polled = o->off_cpu ? poll_command(pid, d, err) : 0;
	int st = wait_command(pid);
	if (res)
		res->wait_status = st;
	bool full = fs_full(dir);
	plumb_sig_info info = { 0 };
	int rc = read_all(o, dir, d, &info, err);
	if (rc == 0 && polled)
		rc = -1; /* err says why */
	rmdir(dir);   /* only when empty: a damaged file stays for a look */
	if (rc == 0) {
		if (res) {
			res->samples = info.samples;
			res->lost = info.dropped;
			if (full && info.unfinished)
				snprintf(res->incomplete, sizeof res->incomplete,
					 "%.300s: No space left on device: the signal sampler could not "
					 "write all its samples there (set TMPDIR to a larger file "
					 "system); the profile holds the %" PRIu64 " samples written before",
					 dir, info.samples);
		}
		rate_note(o, &info, hz, res);
		plumb_rec_waits_opts wo = { o->off_cpu, o->sync_wait != NULL, 1000000000ull / hz, o->off_cpu };
		rc = plumb_rec_waits_finish(d, &wo, err);
	}
	return rc;
}
