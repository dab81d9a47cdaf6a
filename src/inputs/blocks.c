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
	while (b->count[i])
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
		if (b->count[i])
			place(&nb, b->pc[i], b->node[i], b->count[i]);
	inp_blocks_free(b);
	*b = nb;
	b->last = SIZE_MAX;
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
	if (b->last != SIZE_MAX && b->pc[b->last] == pc && b->node[b->last] == node) {
		b->count[b->last] += (uint64_t)delta;
		return;
	}
	if ((b->n + 1) * 2 > b->cap && grow(b)) {
		b->failed = true;
		return;
	}
	size_t mask = b->cap - 1;
	size_t i = slot_of(node, pc) & mask;
	for (; b->count[i]; i = (i + 1) & mask)
		if (b->pc[i] == pc && b->node[i] == node)
			break;
	if (!b->count[i]) {
		b->pc[i] = pc;
		b->node[i] = node;
		b->n++;
	}
	b->count[i] += (uint64_t)delta;
	b->last = i;
	b->last_pc = pc;
}

/* clang calls a function's first block hook before its entry hook: that
 * block, counted for the caller, is moved to the callee just entered (its
 * cost too: see hooks_clang.c). */
INP_HIDDEN void inp_block_to_top(inp_thread *t)
{
	inp_blocks *b = t->blocks;
	if (b->last == SIZE_MAX || b->failed)
		return;
	uintptr_t pc = b->pc[b->last];
	if (b->count[b->last] > 1) {
		b->count[b->last]--;
	} else {
		/* leave the slot taken (a count of 1 stays 1 for its old node):
		 * rather than delete from the table, keep the pair with 0 runs */
		b->count[b->last] = 0;
		b->n--;
		/* a hole in a probe chain would hide later keys: put it back as
		 * a tombstone with count 0 is not possible (0 means empty), so
		 * re-place the chain after it */
		size_t mask = b->cap - 1;
		for (size_t i = (b->last + 1) & mask; b->count[i]; i = (i + 1) & mask) {
			uintptr_t p = b->pc[i];
			uint32_t nd = b->node[i];
			uint64_t c = b->count[i];
			b->count[i] = 0;
			b->n--;
			place(b, p, nd, c);
		}
	}
	b->last = SIZE_MAX;
	inp_block_add(t, pc, 1);
}
