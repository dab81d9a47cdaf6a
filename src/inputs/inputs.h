/* libplumb-inputs.a: the input-sensitive runtime linked into programs built
 * with `plumb cc` (docs/inputs.md). It uses libc only, is never sanitized,
 * and its symbols are hidden except the compiler's hooks. This header is
 * the interface between its files; the algorithm (research/aprof.md §5)
 * lives in rms.c and works on one thread's state, so the unit tests drive it
 * with hand-made events. */
#ifndef PLUMB_INPUTS_INPUTS_H
#define PLUMB_INPUTS_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define INP_HIDDEN __attribute__((visibility("hidden")))
/* The runtime's thread-local variables: plumb cc links it into executables
 * only (shared objects find its hooks in the program), so its own code
 * reaches them at a fixed offset, without the GOT. */
#define INP_TLS __thread __attribute__((tls_model("local-exec")))
#define INP_EXPORT __attribute__((visibility("default")))

/* ---- memory: anonymous mappings only (no malloc: the program may be
 * inside malloc, or in a signal handler, when a hook runs) -------------- */

void *inp_map(size_t bytes);
void inp_unmap(void *p, size_t bytes);
/* Grow an array of *cap elements of size `elem` to at least `need`; the
 * new part is zero. Returns -1 when out of memory (the array is unchanged). */
int inp_grow(void **v, size_t *cap, size_t need, size_t elem);

/* ---- shadow memory: a 32-bit timestamp per granule, per thread -------- */

/* Leaves of 64 KiB of address space each, made on first touch; the two
 * upper levels are reserved (not committed) address space. Addresses past
 * 2^48 are not shadowed. A direct-mapped cache of INP_LEAF_CACHE leaves,
 * by addr >> 16, spares the walk: programs go back and forth between a few
 * arrays. The cache may be the thread's TLS arrays that the gcc plugin's
 * inline code reads (hooks.c), so a slot never names a freed leaf. */
#define INP_LEAF_BITS 16
#define INP_LEAF_CACHE 256
typedef struct inp_shadow {
	uint32_t ***top;          /* [addr >> 32][(addr >> 16) & 0xffff] -> leaf */
	uintptr_t *tags;          /* [INP_LEAF_CACHE]: addr >> 16 of the cached leaf, ~0: none */
	uint32_t **cached;        /* [INP_LEAF_CACHE]: the leaves; `idle` in empty slots */
	uint32_t *idle;
	unsigned shift;           /* log2(memres) */
	uint32_t **leaves;        /* every leaf, for renumbering and freeing */
	size_t nleaves, leaves_cap;
	bool failed;              /* out of memory once: accesses are dropped */
	uintptr_t own_tags[INP_LEAF_CACHE];
	uint32_t *own_cached[INP_LEAF_CACHE];
} inp_shadow;

int inp_shadow_init(inp_shadow *s, unsigned shift);
/* Keep the leaf cache in tags[] and cached[] (INP_LEAF_CACHE each, made
 * empty now and when s is freed), idle in the empty slots' leaves. */
void inp_shadow_use_cache(inp_shadow *s, uintptr_t *tags, uint32_t **cached, uint32_t *idle);
void inp_shadow_free(inp_shadow *s);
uint32_t *inp_shadow_leaf_slow(inp_shadow *s, uintptr_t addr);
static inline uint32_t *inp_shadow_cell(inp_shadow *s, uintptr_t addr)
{
	uintptr_t hi = addr >> INP_LEAF_BITS;
	size_t slot = hi & (INP_LEAF_CACHE - 1);
	uint32_t *leaf = s->tags[slot] == hi ? s->cached[slot] : inp_shadow_leaf_slow(s, addr);
	if (!leaf)
		return NULL;
	return &leaf[(addr & ((1u << INP_LEAF_BITS) - 1)) >> s->shift];
}
size_t inp_shadow_leaf_cells(const inp_shadow *s);

/* ---- one thread: shadow stack, routines, contexts, points ------------- */

typedef struct inp_frame {
	uint32_t aid;             /* activation id: grows with depth */
	uint32_t node;            /* CCT node */
	uint32_t spare;           /* (the layout src/inputs/gcc_plugin.cc knows) */
	uintptr_t sp;             /* frame address at entry, to find frames a longjmp left */
	uintptr_t caller_pc;      /* the activation's return address */
	uint64_t start_cost, children_cost;
	int64_t partial;          /* partial rms: RMS(A) = sum of partials from A up */
} inp_frame;

typedef struct inp_routine {
	uintptr_t pc;             /* an address inside the routine (its entry hook's return) */
} inp_routine;

typedef struct inp_node {
	uint32_t parent, routine;
	uint32_t last_child;      /* cache of the latest child looked up */
	uint32_t last_point;      /* index + 1 of its latest point (activations in
				   * a row often have the same rms) */
	uintptr_t last_child_pc;  /* its routine's pc: one compare at an entry */
	bool outermost;           /* no ancestor has its routine: its activations'
				   * costs go to the real sum (recursion once) */
} inp_node;

typedef struct inp_point {
	uint32_t node;
	uint64_t rms, calls, min, max, sum, real_sum, self_sum, self_min, self_max;
	unsigned __int128 sqr, self_sqr;
} inp_point;

/* drms: induced first reads of values the kernel (sys) or another thread
 * (thr) wrote, summed over calls; cum includes the callees'. Apart from
 * the points (inp_thread.dpoints), which only drms needs. */
typedef struct inp_drms_point {
	uint64_t sys_cum, thr_cum, sys_self, thr_self;
} inp_drms_point;

/* drms counts of a pending activation, beside its frame (drms.c) */
typedef struct inp_drms_frame {
	uint64_t sys_self, thr_self, sys_cum, thr_cum;
} inp_drms_frame;

/* An open-addressing table from a 64-bit key to a 32-bit index + 1 (0: empty). */
typedef struct inp_table {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n;
} inp_table;

/* A direct-mapped cache of child_ix: a routine that calls many others in
 * turn (an interpreter's loop) misses its node's last_child. */
#define INP_CHILD_CACHE 1024
typedef struct inp_child_slot {
	uintptr_t pc;
	uint32_t parent, node;    /* node 0: empty */
} inp_child_slot;
/* Basic-block runs per (calling context, block address): blocks.c */
#define INP_BLOCK_CACHE 512
typedef struct inp_blocks {
	uintptr_t *pc;            /* 0: an empty slot */
	uint32_t *node;
	uint64_t *count;
	size_t cap, n;
	size_t last;              /* the slot of the latest block; SIZE_MAX: none */
	uintptr_t last_pc;
	bool failed;
	/* direct-mapped by pc: the slots of the blocks of the loops running now
	 * (slot + 1; 0: empty), emptied when slots move */
	struct { uintptr_t pc; uint32_t node, slot1; } cache[INP_BLOCK_CACHE];
} inp_blocks;

/* What the gcc plugin's inline reads use besides the leaf cache and the top
 * activation's id (hooks.c keeps it in TLS as __plumb_inp_fast): the top
 * frame (its caller's below it), and the deeper ancestor the runtime found
 * last, as the range of timestamps it takes (HINT_LO <= ts < HINT_LO +
 * HINT_SPAN) and the address of its partial rms. The range stays right
 * while that frame is pending (the frames above it are newer than the
 * range); inp_pop, inp_renumber and a move of the frames empty it. */
/* inp_deep_ancestor's memo of frames by the stamps they were found for */
#define INP_ANCESTOR_MEMO 64
enum { INP_FAST_TOP, INP_FAST_HINT_LO, INP_FAST_HINT_SPAN, INP_FAST_HINT_PARTIAL, INP_FAST_N };

typedef struct inp_thread {
	uint64_t cost;            /* basic blocks executed */
	uint32_t clock;           /* the last activation id given */
	uint32_t clock_max;       /* renumber when the clock reaches it */
	uint32_t depth;           /* frames[1..depth]; frames[0] is the root */
	uint32_t ancestor_hint;   /* the frame inp_read_cell found last, 0: none */
	uint32_t ancestor_memo[INP_ANCESTOR_MEMO]; /* by stamp: frames found last */
	size_t frames_cap;
	inp_frame *frames;
	inp_shadow shadow;
	uint64_t *fast;           /* [INP_FAST_N]: own_fast, or the TLS one */
	uint64_t own_fast[INP_FAST_N];
	int64_t hint_sink;        /* the partial of no hint (added 0) */
	inp_routine *routines;    /* [0] unused: ids start at 1 */
	size_t nroutines, routines_cap;
	inp_node *nodes;          /* [0] is the root */
	size_t nnodes, nodes_cap;
	inp_point *points;
	size_t npoints, points_cap;
	inp_table routine_ix;     /* pc -> routine */
	inp_table child_ix;       /* (parent node, pc) -> node */
	inp_table point_ix;       /* (node, rms) -> point */
	inp_child_slot child_cache[INP_CHILD_CACHE];
	uint32_t seq;             /* the thread's number in its process (main: 0) */
	uint32_t renumberings;
	bool failed;              /* out of memory: stop collecting */
	bool slow;                /* failed, cost_time or drms frames: the hooks take
				   * the whole path (rms_inline.h), which sets it again */
	/* drms (drms.c): activation ids and stamps come from a global clock,
	 * reads compare with the global write shadow */
	bool drms;
	inp_drms_frame *dframes;  /* [depth], beside frames */
	size_t dframes_cap;
	inp_drms_point *dpoints;  /* beside points, as far as drms counted */
	size_t dpoints_cap;
	/* --cost time (cost_time.c): cost is wall-clock microseconds since
	 * cost_base, read at every entry and exit */
	bool cost_time;
	uint64_t cost_base;
	/* per-line costs (blocks.c); NULL when not collected */
	inp_blocks *blocks;
} inp_thread;

int inp_thread_init(inp_thread *t, unsigned memres_shift);
/* Keep the fast path's state in fast[INP_FAST_N] (hooks.c: the TLS one). */
void inp_thread_use_fast(inp_thread *t, uint64_t *fast);
void inp_thread_free(inp_thread *t);
/* Events. sp is the frame address of the hook (stack grows down); exit's
 * ra is the hook's return address (the routine's own return address when
 * the compiler made the exit hook a tail call). */
void inp_enter(inp_thread *t, uintptr_t pc, uintptr_t sp, uintptr_t caller_pc);
void inp_exit(inp_thread *t, uintptr_t sp, uintptr_t ra);
/* The same without trying the common case first (rms_inline.h has it). */
void inp_enter_whole(inp_thread *t, uintptr_t pc, uintptr_t sp, uintptr_t caller_pc);
void inp_exit_whole(inp_thread *t, uintptr_t sp, uintptr_t ra);
void inp_read_slow(inp_thread *t, uintptr_t addr, size_t size);
void inp_write_slow(inp_thread *t, uintptr_t addr, size_t size);
/* Close every pending activation as if it returned now (at exit or a signal). */
void inp_unwind_all(inp_thread *t);
/* Renumber activation ids and timestamps (the clock reached clock_max). */
void inp_renumber(inp_thread *t);

/* ---- drms (drms.c) and --cost time (cost_time.c) --------------------- */

/* The global clock and write shadow; 0 or -1 (out of memory). */
int inp_drms_init(unsigned memres_shift, uint32_t clock_max);
/* At an entry in drms mode (t->dframes made): the new frame's counts
 * zeroed, and the global clock's next id becomes t->clock + 1. */
void inp_drms_enter(inp_thread *t);
void inp_drms_read(inp_thread *t, uintptr_t addr, size_t size);
void inp_drms_write(inp_thread *t, uintptr_t addr, size_t size);
/* The kernel (or libc on its behalf) wrote [addr, addr + size). */
void inp_drms_kernel_wrote(uintptr_t addr, size_t size);
/* At a return in drms mode: the frame's counts to its point and parent. */
void inp_drms_pop(inp_thread *t, inp_point *pt);
/* The drms counts of points[i] (zero where drms counted none). */
static inline inp_drms_point inp_drms_of(const inp_thread *t, size_t i)
{
	return i < t->dpoints_cap ? t->dpoints[i] : (inp_drms_point){ 0, 0, 0, 0 };
}
/* A run of the block at pc in the top frame's context (blocks.c). */
void inp_block_add(inp_thread *t, uintptr_t pc, int64_t delta);
void inp_block_to_top(inp_thread *t);
void inp_blocks_free(inp_blocks *b);
static inline void inp_block_hit(inp_thread *t, uintptr_t pc)
{
	inp_blocks *b = t->blocks;
	uint32_t node = t->frames[t->depth].node;
	size_t i = (pc >> 2) & (INP_BLOCK_CACHE - 1);
	if (b->cache[i].pc == pc && b->cache[i].node == node && b->cache[i].slot1) {
		b->last = b->cache[i].slot1 - 1; /* for inp_block_to_top */
		b->count[b->last]++;
	} else
		inp_block_add(t, pc, 1);
}

/* In a forked child: no points yet, costs from now (fork.c). */
void inp_after_fork(inp_thread *t);
/* Write the calling thread's report now and measure it no more (before
 * exec and _exit: hooks.c). */
void inp_end_thread(void);
/* Set t->cost to the microseconds since t->cost_base. */
void inp_cost_sync(inp_thread *t);
uint64_t inp_now_us(void);

static inline void inp_fast_no_hint(inp_thread *t)
{
	t->ancestor_hint = 0;
	t->fast[INP_FAST_HINT_LO] = 0;
	t->fast[INP_FAST_HINT_SPAN] = 0;
	t->fast[INP_FAST_HINT_PARTIAL] = (uintptr_t)&t->hint_sink;
}

/* Whether frames[lo] is the deepest pending activation at or below
 * frames[depth - 2] with an id at most old. */
static inline bool inp_is_ancestor_of(const inp_thread *t, uint32_t lo, uint32_t old)
{
	return lo >= 1 && lo + 1 < t->depth && t->frames[lo].aid <= old && t->frames[lo + 1].aid > old;
}

/* The deepest pending ancestor below the caller that counted a cell
 * stamped old (frames[1].aid <= old < the caller's aid): often the one
 * found last (siblings read what their caller did), or the one found last
 * for a stamp like old (a routine reads cells of a few ancestors in
 * turn), else a binary search. Published for the gcc plugin's inline reads. */
static inline inp_frame *inp_deep_ancestor(inp_thread *t, uint32_t old)
{
	uint32_t lo = t->ancestor_hint;
	if (!inp_is_ancestor_of(t, lo, old)) {
		uint32_t *memo = &t->ancestor_memo[old & (INP_ANCESTOR_MEMO - 1)];
		lo = *memo;
		if (!inp_is_ancestor_of(t, lo, old)) {
			uint32_t hi = t->depth - 2;
			lo = 1;
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo + 1) / 2;
				if (t->frames[mid].aid <= old)
					lo = mid;
				else
					hi = mid - 1;
			}
			*memo = lo;
		}
		t->ancestor_hint = lo;
	}
	/* published again: frames[lo + 1] may be newer than when it was found,
	 * and the range of stamps wider */
	t->fast[INP_FAST_HINT_LO] = t->frames[lo].aid;
	t->fast[INP_FAST_HINT_SPAN] = t->frames[lo + 1].aid - t->frames[lo].aid;
	t->fast[INP_FAST_HINT_PARTIAL] = (uintptr_t)&t->frames[lo].partial;
	return &t->frames[lo];
}

/* n first reads by the top activation of cells stamped old (below its
 * id): counted for it, and taken off the deepest pending ancestor A with
 * A.aid <= old, which counted them already: often the caller (a leaf reads
 * what its caller did). At depth 1 the "caller" is the root, frames[0]
 * (aid 0), whose partial nobody reads. */
static inline void inp_count_first(inp_thread *t, inp_frame *top, uint32_t old, int64_t n)
{
	top->partial += n;
	if (old >= top[-1].aid)
		top[-1].partial -= n;
	else if (old >= t->frames[1].aid)
		inp_deep_ancestor(t, old)->partial -= n;
}

/* The fast path of a read of one granule-aligned cell by the top activation. */
static inline void inp_read_cell(inp_thread *t, uint32_t *c)
{
	inp_frame *top = &t->frames[t->depth];
	uint32_t old = *c;
	if (old >= top->aid)
		return; /* this activation or a finished child of it has counted the cell */
	*c = top->aid;
	inp_count_first(t, top, old, 1);
}

static inline void inp_read(inp_thread *t, uintptr_t addr, size_t size)
{
	if (t->depth == 0)
		return;
	if (__builtin_expect(t->drms, 0)) {
		inp_drms_read(t, addr, size);
		return;
	}
	/* one or two cells of one leaf (an 8-byte read at --memres 4) */
	unsigned sh = t->shadow.shift;
	uintptr_t last = addr + size - 1, more = (last >> sh) - (addr >> sh);
	if (size && more <= 1 && ((addr ^ last) >> INP_LEAF_BITS) == 0) {
		uint32_t *c = inp_shadow_cell(&t->shadow, addr);
		if (!c)
			return;
		inp_frame *top = &t->frames[t->depth];
		if (more && c[0] == c[1] && c[0] < top->aid) {
			/* two cells of one stamp (an 8-byte value): one search */
			uint32_t old = c[0];
			c[0] = c[1] = top->aid;
			inp_count_first(t, top, old, 2);
			return;
		}
		inp_read_cell(t, c);
		if (more)
			inp_read_cell(t, c + 1);
		return;
	}
	inp_read_slow(t, addr, size);
}

static inline void inp_write(inp_thread *t, uintptr_t addr, size_t size)
{
	if (t->depth == 0)
		return;
	if (__builtin_expect(t->drms, 0)) {
		inp_drms_write(t, addr, size);
		return;
	}
	unsigned sh = t->shadow.shift;
	uintptr_t last = addr + size - 1, more = (last >> sh) - (addr >> sh);
	if (size && more <= 1 && ((addr ^ last) >> INP_LEAF_BITS) == 0) {
		uint32_t *c = inp_shadow_cell(&t->shadow, addr);
		if (c) {
			uint32_t aid = t->frames[t->depth].aid;
			c[0] = aid;
			c[more] = aid;
		}
		return;
	}
	inp_write_slow(t, addr, size);
}

/* The calling thread's state (hooks.c); NULL when not measuring. */
inp_thread *inp_current(void);
/* The same, made at the thread's first event; NULL when not measuring. */
inp_thread *inp_current_start(void);
extern INP_TLS inp_thread *tls_thread;
/* Basic blocks the thread executed (hooks.c): the gcc plugin's inline code
 * and the block hooks count here; t->cost is set from it at every entry,
 * exit and report. */
extern INP_TLS uint64_t __plumb_inp_cost;
/* Whether the program was built with plumb cc's gcc plugin, which counts
 * basic blocks inline: then there are no block hooks, and no per-line costs. */
bool inp_plugin_built(void);

/* ---- the report (report.c) and routine names (names.c) ---------------- */

typedef struct inp_report_opts {
	const char *dir;          /* PLUMB_APROF_DIR */
	unsigned memres;
	bool contexts;            /* q and x lines; else p lines per routine */
	bool drms;                /* i drms, 18 fields per point */
	bool lines;               /* c plumb-block lines: per-line costs */
	bool cost_time;           /* m time-usec */
} inp_report_opts;

/* Write t as an aprof version-6 report <exe>_<pid>_<seq>_<memres>.aprof in
 * opts->dir. Returns 0 or -1. */
int inp_write_report(inp_thread *t, const inp_report_opts *opts);

/* The function containing pc: its name and its object's path. */
/* pc's offset in the file of the object holding it, and that object's load
 * base (to tell objects apart); false when no object holds it. */
bool inp_file_offset(uintptr_t pc, uint64_t *offset, uintptr_t *base);
void inp_symbolize(uintptr_t pc, char *name, size_t name_size, char *obj, size_t obj_size);

#endif
