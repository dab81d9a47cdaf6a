/* DWARF CFI unwinding of sampled user stacks with libdwfl, while recording:
 * each process gets a Dwfl holding the modules of its mmap records at their
 * run-time addresses; memory reads are served from the sample's stack copy,
 * then from the mapped files. Only the resulting address chains are kept.
 * libdwfl is needed here for its CFI unwinder over a process's modules at
 * their run-time addresses; the modules are opened through symbols/ like
 * every object file (symbols/dwfl_open.h). */
#include <dwarf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/record_internal.h"
#include "symbols/dwfl_open.h"

typedef struct proc {
	int32_t pid;
	Dwfl *dwfl;
	bool attached;
	size_t scanned;        /* d->maps entries looked at so far */
	unwinder *u;
	/* the sample being unwound */
	const uint64_t *regs;
	const uint8_t *stack;
	uint64_t sp;
	size_t stack_len;
	uint64_t *chain;
	size_t max, n;
} proc;

typedef struct open_file {
	char *path;
	int fd;
} open_file;

struct unwinder {
	const plumb_rec_data *d;
	Dwfl_Callbacks cb;
	PLUMB_VEC(proc *) procs;
	PLUMB_VEC(open_file) files;
};

unwinder *unwinder_new(const plumb_rec_data *d, plumb_error *err)
{
	unwinder *u = calloc(1, sizeof *u);
	if (!u) {
		plumb_fail_nomem(err);
		return NULL;
	}
	u->d = d;
	return u;
}

static void proc_drop_dwfl(proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->attached = false;
	p->scanned = 0;
}

void unwinder_free(unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->procs.n; i++) {
		proc_drop_dwfl(u->procs.v[i]);
		free(u->procs.v[i]);
	}
	for (size_t i = 0; i < u->files.n; i++) {
		close(u->files.v[i].fd);
		free(u->files.v[i].path);
	}
	free(u->procs.v);
	free(u->files.v);
	free(u);
}

static proc *proc_get(unwinder *u, int32_t pid)
{
	for (size_t i = 0; i < u->procs.n; i++)
		if (u->procs.v[i]->pid == pid)
			return u->procs.v[i];
	if (u->procs.n == u->procs.cap) {
		size_t c = u->procs.cap ? 2 * u->procs.cap : 8;
		proc **v = realloc(u->procs.v, c * sizeof *v);
		if (!v)
			return NULL;
		u->procs.v = v;
		u->procs.cap = c;
	}
	proc *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->pid = pid;
	p->u = u;
	u->procs.v[u->procs.n++] = p;
	return p;
}

void unwinder_forget(unwinder *u, int32_t pid)
{
	for (size_t i = 0; i < u->procs.n; i++)
		if (u->procs.v[i]->pid == pid)
			proc_drop_dwfl(u->procs.v[i]);
}

static int file_fd(unwinder *u, const char *path)
{
	for (size_t i = 0; i < u->files.n; i++)
		if (strcmp(u->files.v[i].path, path) == 0)
			return u->files.v[i].fd;
	if (u->files.n == u->files.cap) {
		size_t c = u->files.cap ? 2 * u->files.cap : 16;
		open_file *v = realloc(u->files.v, c * sizeof *v);
		if (!v)
			return -1;
		u->files.v = v;
		u->files.cap = c;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *copy = strdup(path);
	if (!copy) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	u->files.v[u->files.n++] = (open_file){ copy, fd };
	return fd;
}

/* The load bias of the object mapped by m: run-time minus ELF address. */
static bool map_bias(unwinder *u, const plumb_rec_map *m, uint64_t *bias)
{
	int fd = file_fd(u, m->path);
	return fd >= 0 && plumb_elf_map_bias(fd, m->start, m->pgoff, bias);
}

/* Report pid's live maps that appeared since the last look. */
static void proc_sync(proc *p)
{
	const plumb_rec_data *d = p->u->d;
	if (p->scanned == d->maps.n && p->dwfl)
		return;
	if (!p->dwfl && !(p->dwfl = plumb_dwfl_open(&p->u->cb, NULL)))
		return;
	for (size_t i = p->scanned; i < d->maps.n; i++) {
		const plumb_rec_map *m = &d->maps.v[i];
		uint64_t bias;
		if (m->pid != p->pid || m->end_ns != UINT64_MAX || m->path[0] != '/')
			continue;
		if (dwfl_addrmodule(p->dwfl, m->start))
			continue; /* this object's other segment */
		if (map_bias(p->u, m, &bias))
			plumb_dwfl_add_object(p->dwfl, m->path, -1, bias);
	}
	p->scanned = d->maps.n;
}

static bool read_file_word(proc *p, uint64_t addr, Dwarf_Word *out)
{
	const plumb_rec_map *m = plumb_rec_map_find(p->u->d, p->pid, addr, UINT64_MAX - 1);
	if (!m || m->path[0] != '/' || addr + 8 > m->end)
		return false;
	int fd = file_fd(p->u, m->path);
	return fd >= 0 && pread(fd, out, 8, (off_t)(addr - m->start + m->pgoff)) == 8;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	proc *p = arg;
	if (addr >= p->sp && addr - p->sp + 8 <= p->stack_len) {
		memcpy(result, p->stack + (addr - p->sp), 8);
		return true;
	}
	return read_file_word(p, addr, result);
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	(void)thread_argp;
	return 0; /* threads are named one at a time, by get_thread */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const proc *p = arg;
	const uint64_t *r = p->regs;
	/* perf order AX BX CX DX SI DI BP SP IP, then R8..R15 (after the
	 * skipped FLAGS and segment registers) -> DWARF numbering */
	Dwarf_Word w[UNWIND_NREGS] = {
		r[0], r[3], r[2], r[1], r[4], r[5], r[6], r[7],
		r[9], r[10], r[11], r[12], r[13], r[14], r[15], r[16], r[8],
	};
	return dwfl_thread_state_registers(thread, 0, UNWIND_NREGS, w);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	proc *p = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(state, &pc, &activation) || pc == 0)
		return DWARF_CB_ABORT;
	p->chain[p->n++] = pc;
	return p->n < p->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

size_t unwinder_unwind(unwinder *u, int32_t pid, int32_t tid, const uint64_t *regs,
		       const uint8_t *stack, size_t stack_len, uint64_t *chain, size_t max,
		       bool *truncated)
{
	*truncated = true;
	proc *p = proc_get(u, pid);
	if (!p || max == 0)
		return 0;
	proc_sync(p);
	if (p->dwfl && !p->attached)
		p->attached = dwfl_attach_state(p->dwfl, NULL, pid, &thread_callbacks, p);
	if (!p->attached) {
		chain[0] = regs[8];
		return 1;
	}
	p->regs = regs;
	p->stack = stack;
	p->stack_len = stack_len;
	p->sp = regs[7];
	p->chain = chain;
	p->max = max;
	p->n = 0;
	int rc = dwfl_getthread_frames(p->dwfl, tid, frame_cb, p);
	*truncated = rc != 0; /* stopped by an error, or by max */
	if (p->n == 0) {
		chain[0] = regs[8];
		p->n = 1;
	}
	return p->n;
}
