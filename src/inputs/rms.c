/* The read memory size of every activation (research/aprof.md §5): a
 * timestamp per granule, a partial rms per pending activation, the ancestor
 * decrement, and the renumbering when the 32-bit clock runs out. Each
 * return adds the activation's (cost, rms) to its calling context's point. */
#include <string.h>

#include "inputs/inputs.h"
#include "inputs/rms_inline.h"

/* ---- tables ------------------------------------------------------------ */

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

static uint32_t table_get(const inp_table *tb, uint64_t key)
{
	if (!tb->cap)
		return 0;
	size_t mask = tb->cap - 1;
	for (size_t i = mix(key) & mask;; i = (i + 1) & mask) {
		if (!tb->vals[i])
			return 0;
		if (tb->keys[i] == key)
			return tb->vals[i];
	}
}

static void table_insert(inp_table *tb, uint64_t key, uint32_t val)
{
	size_t mask = tb->cap - 1;
	size_t i = mix(key) & mask;
	while (tb->vals[i])
		i = (i + 1) & mask;
	tb->keys[i] = key;
	tb->vals[i] = val;
	tb->n++;
}

/* val is an index + 1 */
static int table_put(inp_table *tb, uint64_t key, uint32_t val)
{
	if ((tb->n + 1) * 2 > tb->cap) {
		inp_table nt = { .cap = tb->cap ? tb->cap * 2 : 1024 };
		nt.keys = inp_map(nt.cap * sizeof *nt.keys);
		nt.vals = inp_map(nt.cap * sizeof *nt.vals);
		if (!nt.keys || !nt.vals) {
			inp_unmap(nt.keys, nt.cap * sizeof *nt.keys);
			inp_unmap(nt.vals, nt.cap * sizeof *nt.vals);
			return -1;
		}
		for (size_t i = 0; i < tb->cap; i++)
			if (tb->vals[i])
				table_insert(&nt, tb->keys[i], tb->vals[i]);
		inp_unmap(tb->keys, tb->cap * sizeof *tb->keys);
		inp_unmap(tb->vals, tb->cap * sizeof *tb->vals);
		*tb = nt;
	}
	table_insert(tb, key, val);
	return 0;
}

static void table_free(inp_table *tb)
{
	inp_unmap(tb->keys, tb->cap * sizeof *tb->keys);
	inp_unmap(tb->vals, tb->cap * sizeof *tb->vals);
	memset(tb, 0, sizeof *tb);
}

/* ---- thread state ------------------------------------------------------ */

INP_HIDDEN int inp_thread_init(inp_thread *t, unsigned memres_shift)
{
	memset(t, 0, sizeof *t);
	t->clock_max = UINT32_MAX;
	if (inp_shadow_init(&t->shadow, memres_shift) ||
	    inp_grow((void **)&t->frames, &t->frames_cap, 256, sizeof *t->frames) ||
	    inp_grow((void **)&t->routines, &t->routines_cap, 64, sizeof *t->routines) ||
	    inp_grow((void **)&t->nodes, &t->nodes_cap, 64, sizeof *t->nodes)) {
		inp_thread_free(t);
		return -1;
	}
	t->nroutines = 1;
	t->nnodes = 1;
	t->slow = true; /* until the first hook's whole path has seen the options */
	inp_thread_use_fast(t, t->own_fast);
	return 0;
}

#define FREE_ARRAY(v, cap) inp_unmap((v), (((cap) * sizeof *(v)) + 4095) & ~(size_t)4095)

INP_HIDDEN void inp_thread_free(inp_thread *t)
{
	inp_shadow_free(&t->shadow);
	FREE_ARRAY(t->frames, t->frames_cap);
	FREE_ARRAY(t->routines, t->routines_cap);
	FREE_ARRAY(t->nodes, t->nodes_cap);
	FREE_ARRAY(t->points, t->points_cap);
	FREE_ARRAY(t->dframes, t->dframes_cap);
	FREE_ARRAY(t->dpoints, t->dpoints_cap);
	table_free(&t->routine_ix);
	table_free(&t->child_ix);
	table_free(&t->point_ix);
	memset(t, 0, sizeof *t);
}

static uint32_t routine_of(inp_thread *t, uintptr_t pc)
{
	uint32_t r = table_get(&t->routine_ix, pc);
	if (r)
		return r;
	if (t->nroutines >= UINT32_MAX - 1 ||
	    inp_grow((void **)&t->routines, &t->routines_cap, t->nroutines + 1, sizeof *t->routines))
		return 0;
	r = (uint32_t)t->nroutines;
	if (table_put(&t->routine_ix, pc, r))
		return 0;
	t->routines[t->nroutines++] = (inp_routine){ .pc = pc };
	return r;
}

/* The child of node `parent` for the routine at pc, past its last_child
 * (rms_inline.h); 0 when out of memory. */
static uint32_t child_lookup(inp_thread *t, uint32_t parent, uintptr_t pc)
{
	uint64_t key = mix(((uint64_t)parent << 32) ^ parent) ^ pc;
	uint32_t n = 0;
	/* keys may collide: check the hit, else probe on with a changed key */
	for (int salt = 0;; salt++) {
		n = table_get(&t->child_ix, key + (uint64_t)salt * 0x9e3779b97f4a7c15ull);
		if (!n)
			break;
		if (t->nodes[n].parent == parent && t->routines[t->nodes[n].routine].pc == pc)
			return n;
	}
	uint32_t r = routine_of(t, pc);
	if (!r || t->nnodes >= UINT32_MAX - 1 ||
	    inp_grow((void **)&t->nodes, &t->nodes_cap, t->nnodes + 1, sizeof *t->nodes))
		return 0;
	n = (uint32_t)t->nnodes;
	int salt = 0;
	while (table_get(&t->child_ix, key + (uint64_t)salt * 0x9e3779b97f4a7c15ull))
		salt++;
	if (table_put(&t->child_ix, key + (uint64_t)salt * 0x9e3779b97f4a7c15ull, n))
		return 0;
	/* the frames are the path to the node: whether an activation is the
	 * outermost of its routine is the node's (once per node; the walk stops
	 * at the routine's nearest activation, the caller in a recursion) */
	bool outermost = true;
	for (uint32_t a = parent; a && outermost; a = t->nodes[a].parent)
		outermost = t->nodes[a].routine != r;
	t->nodes[n] = (inp_node){ .parent = parent, .routine = r, .outermost = outermost };
	t->nnodes++;
	return n;
}

INP_HIDDEN uint32_t inp_child_slow(inp_thread *t, uint32_t parent, uintptr_t pc)
{
	inp_child_slot *slot = &t->child_cache[inp_child_hash(parent, pc)];
	uint32_t n = child_lookup(t, parent, pc);
	if (n) {
		*slot = (inp_child_slot){ .pc = pc, .parent = parent, .node = n };
		t->nodes[parent].last_child = n;
		t->nodes[parent].last_child_pc = pc;
	}
	return n;
}

static inp_point *point_lookup(inp_thread *t, uint32_t node, uint64_t rms)
{
	uint64_t key = mix(((uint64_t)node << 40) ^ node) ^ mix(rms + 1);
	for (int salt = 0;; salt++) {
		uint64_t k = key + (uint64_t)salt * 0x9e3779b97f4a7c15ull;
		uint32_t i = table_get(&t->point_ix, k);
		if (!i)
			break;
		if (t->points[i - 1].node == node && t->points[i - 1].rms == rms)
			return &t->points[i - 1];
	}
	if (inp_grow((void **)&t->points, &t->points_cap, t->npoints + 1, sizeof *t->points))
		return NULL;
	int salt = 0;
	while (table_get(&t->point_ix, key + (uint64_t)salt * 0x9e3779b97f4a7c15ull))
		salt++;
	if (table_put(&t->point_ix, key + (uint64_t)salt * 0x9e3779b97f4a7c15ull, (uint32_t)t->npoints + 1))
		return NULL;
	inp_point *pt = &t->points[t->npoints++];
	memset(pt, 0, sizeof *pt);
	pt->node = node;
	pt->rms = rms;
	pt->min = pt->self_min = UINT64_MAX; /* inp_point_add: no test of calls */
	return pt;
}

INP_HIDDEN inp_point *inp_point_slow(inp_thread *t, uint32_t node, uint64_t rms)
{
	inp_point *pt = point_lookup(t, node, rms);
	if (pt)
		t->nodes[node].last_point = (uint32_t)(pt - t->points) + 1;
	return pt;
}

/* ---- events ------------------------------------------------------------ */

INP_HIDDEN void inp_thread_use_fast(inp_thread *t, uint64_t *fast)
{
	memset(fast, 0, INP_FAST_N * sizeof *fast);
	t->fast = fast;
	inp_fast_no_hint(t);
}

INP_HIDDEN void inp_pop_left(inp_thread *t)
{
	inp_pop(t);
}

/* Deeper frames than this hook's are ones a longjmp left, or the exiting
 * routine itself when its exit hook was a tail call (then ra, the hook's
 * return address, is the routine's). */
INP_HIDDEN void inp_exit_left(inp_thread *t, uintptr_t sp, uintptr_t ra)
{
	while (t->depth && t->frames[t->depth].sp < sp && sp - t->frames[t->depth].sp < (64u << 20)) {
		bool exiting = t->frames[t->depth].caller_pc == ra;
		inp_pop(t);
		if (exiting)
			return;
	}
	if (t->depth)
		inp_pop(t);
}

INP_HIDDEN void inp_enter_whole(inp_thread *t, uintptr_t pc, uintptr_t sp, uintptr_t caller_pc)
{
	inp_enter_inline(t, pc, sp, caller_pc);
	inp_slow_update(t);
}

INP_HIDDEN void inp_exit_whole(inp_thread *t, uintptr_t sp, uintptr_t ra)
{
	inp_exit_inline(t, sp, ra);
	inp_slow_update(t);
}

INP_HIDDEN void inp_enter(inp_thread *t, uintptr_t pc, uintptr_t sp, uintptr_t caller_pc)
{
	if (!inp_enter_fast(t, pc, sp, caller_pc))
		inp_enter_whole(t, pc, sp, caller_pc);
}

INP_HIDDEN void inp_exit(inp_thread *t, uintptr_t sp, uintptr_t ra)
{
	if (!inp_exit_fast(t, sp))
		inp_exit_whole(t, sp, ra);
}

INP_HIDDEN void inp_unwind_all(inp_thread *t)
{
	if (t->failed)
		return;
	if (t->cost_time)
		inp_cost_sync(t);
	while (t->depth)
		inp_pop(t);
}

INP_HIDDEN void inp_read_slow(inp_thread *t, uintptr_t addr, size_t size)
{
	if (!size)
		return;
	unsigned sh = t->shadow.shift;
	for (uintptr_t g = addr >> sh, last = (addr + size - 1) >> sh; g <= last; g++) {
		uint32_t *c = inp_shadow_cell(&t->shadow, g << sh);
		if (c)
			inp_read_cell(t, c);
	}
}

INP_HIDDEN void inp_write_slow(inp_thread *t, uintptr_t addr, size_t size)
{
	if (!size || !t->depth)
		return;
	unsigned sh = t->shadow.shift;
	uint32_t aid = t->frames[t->depth].aid;
	for (uintptr_t g = addr >> sh, last = (addr + size - 1) >> sh; g <= last; g++) {
		uint32_t *c = inp_shadow_cell(&t->shadow, g << sh);
		if (c)
			*c = aid;
	}
}

/* The pending activations become 1..depth; a timestamp becomes the new id
 * of the deepest pending activation whose old id is at most it (0 if
 * none), which keeps every comparison the algorithm makes. */
INP_HIDDEN void inp_renumber(inp_thread *t)
{
	uint32_t depth = t->depth;
	size_t cells = inp_shadow_leaf_cells(&t->shadow);
	for (size_t l = 0; l < t->shadow.nleaves; l++) {
		uint32_t *leaf = t->shadow.leaves[l];
		for (size_t i = 0; i < cells; i++) {
			uint32_t ts = leaf[i];
			if (!ts)
				continue;
			uint32_t lo = 0, hi = depth; /* frames[0].aid is 0 */
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo + 1) / 2;
				if (t->frames[mid].aid <= ts)
					lo = mid;
				else
					hi = mid - 1;
			}
			leaf[i] = lo;
		}
	}
	for (uint32_t d = 1; d <= depth; d++)
		t->frames[d].aid = d;
	inp_fast_no_hint(t);
	t->clock = depth;
	t->renumberings++;
}
