/* One thread's aprof report, version 6 (research/aprof.md §1.3): the
 * header, an r line per routine followed by its q lines (one per calling
 * context and rms) or p lines (one per rms, contexts merged), then the x
 * lines of the calling context tree. Sums of squares are exact decimals,
 * past 2^64 when they get there. No stdio: this may run in a signal handler. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inputs/inputs.h"

typedef struct out {
	int fd;
	bool failed;
	size_t len;
	char buf[8192];
} out;

static void flush(out *o)
{
	size_t done = 0;
	while (!o->failed && done < o->len) {
		ssize_t n = write(o->fd, o->buf + done, o->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->failed = true;
		else
			done += (size_t)n;
	}
	o->len = 0;
}

__attribute__((format(printf, 2, 3))) static void put(out *o, const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
	if (o->len + len > sizeof o->buf)
		flush(o);
	memcpy(o->buf + o->len, line, len);
	o->len += len;
}

static const char *u128(char *buf, size_t size, unsigned __int128 v)
{
	char *p = buf + size;
	*--p = '\0';
	do {
		*--p = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	return p;
}

/* ---- the command line, as /proc/self/cmdline has it ------------------- */

static void command_line(char *argv0, size_t a_size, char *all, size_t all_size)
{
	char buf[4096];
	ssize_t n = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
	}
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	snprintf(argv0, a_size, "%s", buf);
	for (ssize_t i = 0; i + 1 < n; i++)
		if (buf[i] == '\0' || buf[i] == '\n')
			buf[i] = ' ';
	snprintf(all, all_size, "%s", buf);
}

/* ---- points, sorted by routine ----------------------------------------- */

static const char *report_dir;
static const inp_thread *sort_thread;
static bool sort_contexts;

static int by_routine(const void *a, const void *b)
{
	const inp_point *x = &sort_thread->points[*(const uint32_t *)a];
	const inp_point *y = &sort_thread->points[*(const uint32_t *)b];
	uint32_t rx = sort_thread->nodes[x->node].routine, ry = sort_thread->nodes[y->node].routine;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (sort_contexts && x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->rms != y->rms)
		return x->rms < y->rms ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static void combine(inp_point *a, const inp_point *b)
{
	if (b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
	if (b->self_min < a->self_min)
		a->self_min = b->self_min;
	if (b->self_max > a->self_max)
		a->self_max = b->self_max;
	a->calls += b->calls;
	a->sum += b->sum;
	a->real_sum += b->real_sum;
	a->self_sum += b->self_sum;
	a->sqr += b->sqr;
	a->self_sqr += b->self_sqr;
}

static void combine_drms(inp_drms_point *a, const inp_drms_point b)
{
	a->sys_cum += b.sys_cum;
	a->thr_cum += b.thr_cum;
	a->sys_self += b.sys_self;
	a->thr_self += b.thr_self;
}

static void put_point(out *o, char tag, uint64_t id, const inp_point *p, const inp_drms_point *d)
{
	char s1[48], s2[48];
	put(o, "%c %llu %llu %llu %llu %llu %s %llu %llu %llu %llu %llu %s", tag, (unsigned long long)id,
	    (unsigned long long)p->rms, (unsigned long long)p->min, (unsigned long long)p->max,
	    (unsigned long long)p->sum, u128(s1, sizeof s1, p->sqr), (unsigned long long)p->calls,
	    (unsigned long long)p->real_sum, (unsigned long long)p->self_sum,
	    (unsigned long long)p->self_min, (unsigned long long)p->self_max, u128(s2, sizeof s2, p->self_sqr));
	/* drms: the two deprecated rvms fields, then the induced-read counts */
	if (d)
		put(o, " 0 0 %llu %llu %llu %llu", (unsigned long long)d->sys_cum, (unsigned long long)d->thr_cum,
		    (unsigned long long)d->sys_self, (unsigned long long)d->thr_self);
	put(o, "\n");
}

/* The report is written to <name>.tmp and linked to its name when
 * complete (link fails rather than replace a report of the same name: then
 * the next free number is taken), so that a reader never sees half a
 * report. */
static int open_report(char *tmp, size_t tmp_size)
{
	snprintf(tmp, tmp_size, "%s/.%s_%d_%lu.aprof.tmp", report_dir, program_invocation_short_name,
		 (int)getpid(), (unsigned long)gettid());
	return open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

static int publish_report(const char *tmp, const inp_thread *t, const inp_report_opts *opts)
{
	char path[4096];
	for (unsigned attempt = 0; attempt <= 1024; attempt++) {
		unsigned id = attempt ? t->seq + 1024 + attempt : t->seq;
		snprintf(path, sizeof path, "%s/%s_%d_%u_%u.aprof", opts->dir, program_invocation_short_name,
			 (int)getpid(), id, opts->memres);
		if (link(tmp, path) == 0) {
			unlink(tmp);
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	unlink(tmp);
	return -1;
}

static void put_name(out *o, const char *s)
{
	/* aprof's names are quoted without escapes: keep the line parseable */
	char clean[1024];
	size_t i = 0;
	for (; s[i] && i + 1 < sizeof clean; i++)
		clean[i] = s[i] == '"' ? '\'' : s[i] == '\n' ? ' ' : s[i];
	clean[i] = '\0';
	put(o, "\"%s\"", clean);
}

/* gcc's constructor that calls __tsan_init is instrumented too: not the
 * program's */
static bool is_compiler_made(const char *name)
{
	return !strncmp(name, "_sub_I_00099_", 13) || !strncmp(name, "_GLOBAL__sub_I_00099_", 21);
}

/* Whether every context of routine r is left out. */
static bool skip_node_of_routine_only(const inp_thread *t, const uint32_t *skip_node, uint32_t r)
{
	for (size_t n = 1; n < t->nnodes; n++)
		if (t->nodes[n].routine == r && !skip_node[n])
			return false;
	return true;
}

static void put_routine(out *o, const inp_thread *t, uint32_t r, char name[1024], char obj[1024])
{
	inp_symbolize(t->routines[r].pc, name, 1024, obj, 1024);
	put(o, "r ");
	put_name(o, name);
	put(o, " ");
	put_name(o, obj);
	put(o, " %u\n", r);
}

/* Per-line costs, for plumb record: "c plumb-block CONTEXT OFFSET RUNS",
 * OFFSET the block's offset (hex) in the file of its routine's object;
 * blocks outside it (or outside every context) are left out. */
static void put_blocks(out *o, const inp_thread *t, const uint32_t *skip_node)
{
	const inp_blocks *b = t->blocks;
	if (inp_plugin_built()) {
		put(o, "c plumb-blocks unavailable\n");
		return;
	}
	put(o, "c plumb-blocks %s\n", b->failed ? "incomplete" : "complete");
	for (size_t i = 0; i < b->cap; i++) {
		uint32_t n = b->node[i];
		if (!b->count[i] || n == 0 || n >= t->nnodes || skip_node[n])
			continue;
		uint64_t off, routine_off;
		uintptr_t base, routine_base;
		if (!inp_file_offset(b->pc[i], &off, &base) ||
		    !inp_file_offset(t->routines[t->nodes[n].routine].pc, &routine_off, &routine_base) ||
		    base != routine_base)
			continue;
		put(o, "c plumb-block %u %llx %llu\n", n, (unsigned long long)off, (unsigned long long)b->count[i]);
	}
}

INP_HIDDEN int inp_write_report(inp_thread *t, const inp_report_opts *opts)
{
	uint32_t *order = NULL;
	/* the points' order, then per routine: 1 its r line is out, 2 left
	 * out; per node: 1 left out */
	size_t order_bytes = (t->npoints + t->nroutines + t->nnodes) * sizeof *order;
	if (!(order = inp_map(order_bytes)))
		return -1;
	uint32_t *written = order + t->npoints, *skip_node = written + t->nroutines;
	out *o = inp_map(sizeof *o);
	if (!o) {
		inp_unmap(order, order_bytes);
		return -1;
	}
	char tmp[4096];
	report_dir = opts->dir;
	o->fd = open_report(tmp, sizeof tmp);
	if (o->fd < 0) {
		inp_unmap(order, order_bytes);
		inp_unmap(o, sizeof *o);
		return -1;
	}
	char argv0[1024], cmd[4096], name[1024], obj[1024];
	command_line(argv0, sizeof argv0, cmd, sizeof cmd);
	struct stat st;
	long long mtime = stat("/proc/self/exe", &st) == 0 ? (long long)st.st_mtime : 0;
	put(o, "c -------------------------------------\n"
	       "c report generated by plumb cc (libplumb-inputs)\n"
	       "c -------------------------------------\n");
	put(o, "v 6\nk %llu\ne %lld\nm %s\ni %s\nt %u\na %s\nf %s\n", (unsigned long long)t->cost, mtime,
	    opts->cost_time ? "time-usec" : "bb-count", opts->drms ? "drms" : "rms", opts->memres, argv0, cmd);

	for (uint32_t r = 1; r < t->nroutines; r++) {
		inp_symbolize(t->routines[r].pc, name, sizeof name, obj, sizeof obj);
		if (is_compiler_made(name))
			written[r] = 2;
	}
	for (size_t n = 1; n < t->nnodes; n++)
		skip_node[n] = written[t->nodes[n].routine] == 2 || skip_node[t->nodes[n].parent];
	for (size_t i = 0; i < t->npoints; i++)
		order[i] = (uint32_t)i;
	sort_thread = t;
	sort_contexts = opts->contexts;
	qsort(order, t->npoints, sizeof *order, by_routine);
	uint32_t last_routine = 0;
	for (size_t i = 0; i < t->npoints;) {
		inp_point p = t->points[order[i]];
		inp_drms_point d = inp_drms_of(t, order[i]);
		uint32_t r = t->nodes[p.node].routine;
		size_t j = i + 1;
		if (skip_node[p.node]) {
			i++;
			continue;
		}
		if (!opts->contexts)
			for (; j < t->npoints && t->nodes[t->points[order[j]].node].routine == r &&
			       t->points[order[j]].rms == p.rms; j++)
				if (!skip_node[t->points[order[j]].node]) {
					combine(&p, &t->points[order[j]]);
					combine_drms(&d, inp_drms_of(t, order[j]));
				}
		if (r != last_routine) {
			put_routine(o, t, r, name, obj);
			written[r] = 1;
			last_routine = r;
		}
		put_point(o, opts->contexts ? 'q' : 'p', opts->contexts ? p.node : r, &p, opts->drms ? &d : NULL);
		i = j;
	}
	/* routines of contexts without points (a failed run) are declared too */
	for (uint32_t r = 1; opts->contexts && r < t->nroutines; r++)
		if (!written[r] && !skip_node_of_routine_only(t, skip_node, r))
			put_routine(o, t, r, name, obj);
	if (opts->contexts)
		for (size_t n = 1; n < t->nnodes; n++) {
			/* only contexts with points or descendants are needed; all are cheap */
			const inp_node *nd = &t->nodes[n];
			if (skip_node[n])
				continue;
			if (nd->parent)
				put(o, "x %u %zu %u\n", nd->routine, n, nd->parent);
			else
				put(o, "x %u %zu -1\n", nd->routine, n);
		}
	if (opts->contexts && opts->lines && t->blocks)
		put_blocks(o, t, skip_node);
	flush(o);
	bool ok = !o->failed;
	close(o->fd);
	if (ok)
		ok = publish_report(tmp, t, opts) == 0;
	else
		unlink(tmp);
	inp_unmap(order, order_bytes);
	inp_unmap(o, sizeof *o);
	return ok ? 0 : -1;
}
