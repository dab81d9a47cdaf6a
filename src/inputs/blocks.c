/* Per-line costs: how many times each basic block ran in each calling
 * context, by the block's address (the return address of its coverage
 * hook, inside the block) and the CCT node on top of the shadow stack.
 * One open-addressing table per thread keyed by (node, pc), with the last
 * slot remembered (a block often runs again at once, in a loop). The
 * report writes them as comment lines plumb record reads
 * (src/record/inputs.c); aprof's own tools skip them. */
#include <string.h>

#include "inputs/inputs.h"

static uint64_t slot_of(uint32_t node, uintptr_t pc)
{
	uint64_t k = ((uint64_t)pc << 20) ^ node;
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

static void place(inp_blocks *b, uintptr_t pc, uint32_t node, uint64_t count)
{
	size_t mask = b->cap - 1;
	size_t i = slot_of(node, pc) & mask;
	while (b->pc[i])
		i = (i + 1) & mask;
	b->pc[i] = pc;
	b->node[i] = node;
	b->count[i] = count;
	b->n++;
}

static int grow(inp_blocks *b)
{
	inp_blocks nb = { .cap = b->cap ? b->cap * 2 : 4096 };
	nb.pc = inp_map(nb.cap * sizeof *nb.pc);
	nb.node = inp_map(nb.cap * sizeof *nb.node);
	nb.count = inp_map(nb.cap * sizeof *nb.count);
	if (!nb.pc || !nb.node || !nb.count) {
		inp_unmap(nb.pc, nb.cap * sizeof *nb.pc);
		inp_unmap(nb.node, nb.cap * sizeof *nb.node);
		inp_unmap(nb.count, nb.cap * sizeof *nb.count);
		return -1;
	}
	for (size_t i = 0; i < b->cap; i++)
		if (b->pc[i])
			place(&nb, b->pc[i], b->node[i], b->count[i]);
	inp_blocks_free(b);
	*b = nb;
	b->last = SIZE_MAX; /* and the cache empty */
	return 0;
}

INP_HIDDEN void inp_blocks_free(inp_blocks *b)
{
	inp_unmap(b->pc, b->cap * sizeof *b->pc);
	inp_unmap(b->node, b->cap * sizeof *b->node);
	inp_unmap(b->count, b->cap * sizeof *b->count);
	memset(b, 0, sizeof *b);
	b->last = SIZE_MAX;
}

INP_HIDDEN void inp_block_add(inp_thread *t, uintptr_t pc, int64_t delta)
{
	inp_blocks *b = t->blocks;
	uint32_t node = t->frames[t->depth].node;
	if ((b->n + 1) * 2 > b->cap && grow(b)) {
		b->failed = true;
		return;
	}
	size_t mask = b->cap - 1;
	size_t i = slot_of(node, pc) & mask;
	for (; b->pc[i]; i = (i + 1) & mask)
		if (b->pc[i] == pc && b->node[i] == node)
			break;
	if (!b->pc[i]) {
		b->pc[i] = pc;
		b->node[i] = node;
		b->n++;
	}
	b->count[i] += (uint64_t)delta;
	b->last = i;
	b->last_pc = pc;
	size_t c = (pc >> 2) & (INP_BLOCK_CACHE - 1);
	b->cache[c].pc = pc;
	b->cache[c].node = node;
	b->cache[c].slot1 = (uint32_t)i + 1;
}

/* clang calls a function's first block hook before its entry hook: that
 * block, counted for the caller, is moved to the callee just entered (its
 * cost too: see hooks_clang.c). The caller's pair stays, maybe at 0 runs
 * (the report leaves those out). */
INP_HIDDEN void inp_block_to_top(inp_thread *t)
{
	inp_blocks *b = t->blocks;
	if (b->last == SIZE_MAX || b->failed || !b->count[b->last])
		return;
	b->count[b->last]--;
	inp_block_add(t, b->pc[b->last], 1);
}
