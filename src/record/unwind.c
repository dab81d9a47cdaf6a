/* DWARF CFI unwinding of sampled user stacks, while recording: each process
 * gets a Dwfl holding the modules of its mmap records at their run-time
 * addresses; memory reads are served from the sample's stack copy, then
 * from the mapped files. Only the resulting address chains are kept.
 * A sample is first walked with the per-file recipes of unwind_recipe.c
 * (plain arithmetic, giving the chain libdwfl would give); a frame no
 * recipe describes sends the whole sample to libdwfl's CFI unwinder. The
 * modules are opened through symbols/ like every object file
 * (symbols/dwfl_open.h). */
#include <dwarf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/record_internal.h"
#include "model/index.h"
#include "record/unwind_recipe.h"
#include "symbols/dwfl_open.h"

/* A module of a process: its file's recipes and its load bias. */
typedef struct mod_info {
	recipe_file *f;        /* NULL: libdwfl unwinds through it */
	uint64_t bias;
} mod_info;

typedef struct proc {
	int32_t pid;
	PLUMB_VEC(mod_info) mods;  /* index + 1 in each Dwfl_Module's userdata */
	Dwfl *dwfl;
	bool attached;
	size_t scanned;        /* d->maps entries looked at so far */
	unwinder *u;
	/* the sample being unwound */
	const uint64_t *regs;
	const uint8_t *stack;
	uint64_t sp;
	size_t stack_len;
	int32_t tid;
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
	PLUMB_VEC(recipe_file *) rfiles;
	bool check;
	unwind_stats stats;
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
	p->mods.n = 0;
}

void unwinder_free(unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->procs.n; i++) {
		proc_drop_dwfl(u->procs.v[i]);
		free(u->procs.v[i]->mods.v);
		free(u->procs.v[i]);
	}
	for (size_t i = 0; i < u->rfiles.n; i++)
		recipe_file_free(u->rfiles.v[i]);
	free(u->rfiles.v);
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

/* The recipes and bias of the module holding pc in p, made on first use. */
static const mod_info *module_of(proc *p, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, pc);
	void **ud;
	if (!mod)
		return NULL;
	const char *path = dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	if (*ud)
		return &p->mods.v[(uintptr_t)*ud - 1];
	unwinder *u = p->u;
	mod_info mi = { NULL, 0 };
	Dwarf_Addr bias;
	const unsigned char *bid = NULL;
	GElf_Addr bid_at;
	if (path && dwfl_module_getelf(mod, &bias)) {
		int len = dwfl_module_build_id(mod, &bid, &bid_at);
		mi.bias = bias;
		for (size_t i = 0; i < u->rfiles.n && !mi.f; i++)
			if (recipe_file_is(u->rfiles.v[i], path, bid, len))
				mi.f = u->rfiles.v[i];
		if (!mi.f && !plumb_vec_reserve(u->rfiles, u->rfiles.n + 1) &&
		    (mi.f = recipe_file_open(path))) {
			u->rfiles.v[u->rfiles.n++] = mi.f;
			if (!recipe_file_is(mi.f, path, bid, len))
				mi.f = NULL;  /* the file changed since: libdwfl's */
		}
	}
	if (plumb_vec_push(p->mods, mi))
		return NULL;
	*ud = (void *)(uintptr_t)p->mods.n;
	return &p->mods.v[p->mods.n - 1];
}

/* The sample's chain by recipes, as libdwfl's unwinder would make it
 * (frame_unwind.c's handle_cfi on rip, rsp and rbp): a return address
 * that cannot be read, is 0 or is undefined, or a CFA from an rbp that is
 * not known, ends the stack. 0 when a frame has no recipe: libdwfl's. */
static size_t recipe_walk(proc *p, bool *truncated)
{
	uint64_t pc = p->regs[8], sp = p->regs[7], bp = p->regs[6];
	bool bp_known = true;
	size_t n = 0;
	if (pc == 0)
		return 0;
	for (;;) {
		p->chain[n++] = pc;
		if (n == p->max) {
			*truncated = true;
			return n;
		}
		/* a return address is looked up in its call instruction */
		uint64_t at = n == 1 ? pc : pc - 1;
		const mod_info *mi = module_of(p, at);
		if (!mi || !mi->f)
			return 0;
		unwind_recipe r = recipe_file_get(mi->f, at - mi->bias);
		if (r.kind == RECIPE_NONE)
			return 0;
		*truncated = false;
		if (r.kind == RECIPE_END || (r.cfa_rbp && !bp_known))
			return n;
		uint64_t cfa = (r.cfa_rbp ? bp : sp) + (uint64_t)r.cfa_off;
		Dwarf_Word ra, w;
		if (!memory_read(p->dwfl, cfa + (uint64_t)r.ra_off, &ra, p) || ra == 0)
			return n;
		if (r.rbp == RBP_SAVED) {
			bp_known = memory_read(p->dwfl, cfa + (uint64_t)r.rbp_off, &w, p);
			bp = w;
		} else if (r.rbp == RBP_UNDEFINED) {
			bp_known = false;
		}
		sp = cfa;
		pc = ra;
	}
}

static size_t libdw_walk(proc *p, bool *truncated)
{
	p->n = 0;
	int rc = dwfl_getthread_frames(p->dwfl, p->tid, frame_cb, p);
	*truncated = rc != 0; /* stopped by an error, or by max */
	return p->n;
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
	p->tid = tid;
	size_t n = recipe_walk(p, truncated);
	if (n && u->check) {
		uint64_t *fast = malloc(n * sizeof *fast);
		bool fast_trunc = *truncated;
		if (fast)
			memcpy(fast, chain, n * sizeof *fast);
		size_t m = libdw_walk(p, truncated);
		if (!fast || m != n || fast_trunc != *truncated || memcmp(fast, chain, n * sizeof *fast))
			u->stats.differ++;
		free(fast);
		n = m;
		u->stats.recipe++;
	} else if (n) {
		u->stats.recipe++;
	} else {
		n = libdw_walk(p, truncated);
		u->stats.libdw++;
	}
	if (n == 0) {
		chain[0] = regs[8];
		n = 1;
	}
	return n;
}

void unwinder_check(unwinder *u, bool on)
{
	u->check = on;
}

unwind_stats unwinder_stats(const unwinder *u)
{
	return u->stats;
}
