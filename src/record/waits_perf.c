/* The perf recorder's side of --off-cpu and --sync-wait: the command runs
 * with the preloaded library in waits-only mode (no timer: perf samples the
 * CPU), whose files are read after it ends. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/uio.h>
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

/* ---- the stacks of the threads blocked when the window opens ------------ */

/* The user stack pointer and pc of a thread blocked in (or on its way
 * into) a system call: the last two fields of /proc/PID/task/TID/syscall
 * ("NR ARG1..ARG6 SP PC", or "-1 SP PC"; "running" when it runs). false
 * when it runs, or the file cannot be read (another user's process). */
static bool blocked_at(int32_t pid, int32_t tid, uint64_t *sp, uint64_t *pc)
{
	char path[96], buf[512];
	snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return false;
	size_t n = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	char *tok[10], *save = NULL;
	int nt = 0;
	for (char *t = strtok_r(buf, " \n", &save); t && nt < 10; t = strtok_r(NULL, " \n", &save))
		tok[nt++] = t;
	if (nt < 3 || strcmp(tok[0], "running") == 0)
		return false;
	char *e1, *e2;
	*sp = strtoull(tok[nt - 2], &e1, 16);
	*pc = strtoull(tok[nt - 1], &e2, 16);
	return !*e1 && !*e2 && *pc != 0;
}

typedef struct held {
	plumb_rec_data *d;
	unwinder *u;
	int32_t pid;
	uint64_t at_ns;
	uint8_t *stack;
	size_t stack_size;
	uint64_t chain[MAX_CHAIN];
	plumb_error *err;
} held;

static int held_thread(void *ctx, int32_t tid)
{
	held *h = ctx;
	char st = thread_state(h->pid, tid);
	uint64_t sp, pc;
	if ((st != 'S' && st != 'D') || !blocked_at(h->pid, tid, &sp, &pc))
		return 0;
	/* a page an element: the copy stops at the end of the stack's mapping
	 * (the call moves whole elements only) */
	struct iovec local = { h->stack, h->stack_size }, remote[64];
	size_t nr = 0;
	for (uint64_t a = sp, end = sp + h->stack_size; a < end && nr < 64; nr++) {
		uint64_t next = (a | 4095) + 1 < end ? (a | 4095) + 1 : end;
		remote[nr] = (struct iovec){ (void *)(uintptr_t)a, (size_t)(next - a) };
		a = next;
	}
	ssize_t got = process_vm_readv((pid_t)h->pid, &local, 1, remote, nr, 0);
	uint64_t regs[UNWIND_NREGS] = { 0 };
	regs[7] = sp, regs[8] = pc; /* perf's order: SP, IP; the others are not known */
	bool truncated;
	size_t n = unwinder_unwind(h->u, h->pid, tid, regs, h->stack, got > 0 ? (size_t)got : 0,
				   h->chain, sizeof h->chain / sizeof *h->chain, &truncated);
	return plumb_rec_held_add(h->d, h->pid, tid, h->at_ns, h->chain, n,
				  truncated ? PLUMB_REC_TRUNCATED : 0, h->err);
}

int plumb_rec_waits_held_stacks(plumb_rec_data *d, unwinder *u, int32_t pid, uint64_t at_ns,
				size_t stack_size, plumb_error *err)
{
	held *h = calloc(1, sizeof *h);
	uint8_t *stack = malloc(stack_size ? stack_size : 1);
	if (!h || !stack) {
		free(h);
		free(stack);
		return plumb_fail_nomem(err);
	}
	*h = (held){ .d = d, .u = u, .pid = pid, .at_ns = at_ns, .stack = stack,
		     .stack_size = stack_size > 64 * 4096 ? 64 * 4096 : stack_size, .err = err };
	int rc = plumb_rec_each_thread(pid, held_thread, h);
	free(stack);
	free(h);
	return rc == -2 ? 0 : rc;
}
