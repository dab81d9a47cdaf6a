/* The perf recorder's side of --off-cpu and --sync-wait: the command runs
 * with the preloaded library in waits-only mode (no timer: perf samples the
 * CPU), whose files are read after it ends. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/record_internal.h"
#include "record/signal_read.h"

char **plumb_rec_waits_prepare(const plumb_record_opts *o, char *dir, size_t cap, plumb_error *err)
{
	char lib[PATH_MAX], waits[96];
	if (plumb_sampler_find(lib, sizeof lib, false, err))
		return NULL;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, cap, "%s/plumb-waits.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		plumb_fail(err, PLUMB_ERR_IO, "cannot make a temporary directory %s: %s", dir, strerror(errno));
		return NULL;
	}
	plumb_rec_waits_env(o, waits, sizeof waits);
	char **env = plumb_sampler_env(lib, dir, 1000, "none", waits, NULL);
	if (!env) {
		rmdir(dir);
		plumb_fail_nomem(err);
	}
	return env;
}

int plumb_rec_waits_collect(const plumb_record_opts *o, const char *dir, plumb_rec_data *d,
			    plumb_error *err)
{
	size_t n = 0;
	char **files = plumb_sampler_list(dir, &n, err);
	if (!files)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = plumb_sig_read_file(files[i], d, 0, false, NULL, o->warn, o->warn_ctx, err);
	plumb_sampler_list_free(files, n, rc == 0);
	rmdir(dir);
	if (rc == 0 && n == 0 && o->warn)
		o->warn(o->warn_ctx, "the wait tracer wrote nothing (a static or setuid command, or one "
				     "that removed LD_PRELOAD): off-CPU time goes to the nearest CPU "
				     "sample, and no lock waits are seen (docs/waits.md)");
	return rc;
}

/* The state letter of tid of pid (/proc/PID/task/TID/stat: R runnable,
 * S or D blocked, Z ended...), 0 if unknown. */
static char thread_state(int32_t pid, int32_t tid)
{
	char path[96], buf[512];
	snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	const char *paren = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
	return paren && paren[1] == ' ' ? paren[2] : 0;
}

uint64_t plumb_rec_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* the clock the switch records use */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef struct edge {
	plumb_rec_data *d;
	int32_t pid;
	bool start;
	uint64_t at_ns;
	plumb_error *err;
} edge;

static int edge_thread(void *ctx, int32_t tid)
{
	edge *e = ctx;
	char st = thread_state(e->pid, tid);
	if (st == 'Z' || st == 'X')
		return 0; /* a thread that has ended (a leader that left before the others) */
	return plumb_rec_switch_add(e->d, e->pid, tid, e->at_ns, e->start, e->start && st == 'R', e->err);
}

int plumb_rec_waits_window_edge(plumb_rec_data *d, int32_t pid, bool start, uint64_t at_ns,
				plumb_error *err)
{
	edge e = { d, pid, start, at_ns, err };
	int rc = plumb_rec_each_thread(pid, edge_thread, &e);
	return rc == -2 ? 0 : rc; /* -2: the process has ended, no thread left to close */
}
