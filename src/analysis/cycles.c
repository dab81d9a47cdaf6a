/* Tarjan's strongly connected components, iterative: the depth-first search
 * keeps (vertex, next edge) pairs on a heap stack instead of recursing, as
 * a million-function recursion chain would overflow the C stack (gprof2dot
 * and KCachegrind both die that way on large profiles). */
#include <stdlib.h>

#include "analysis/cycles.h"

#define UNSEEN UINT32_MAX

typedef struct tarjan {
	const uint32_t *start, *adj;
	uint32_t *comp;
	uint32_t *index, *low;    /* discovery order; lowest index reachable */
	uint32_t *stack;          /* Tarjan's stack of open vertices */
	size_t top;
	uint32_t *cs_v, *cs_e;    /* the search path: vertex and its next edge */
	size_t depth;
	uint32_t next_index;
	long ncomp;
} tarjan;

static void open_vertex(tarjan *t, uint32_t v)
{
	t->index[v] = t->low[v] = t->next_index++;
	t->stack[t->top++] = v;
	t->cs_v[t->depth] = v;
	t->cs_e[t->depth] = t->start[v];
	t->depth++;
}

/* v's search is over: if v is the root of a component, pop the component. */
static void close_vertex(tarjan *t, uint32_t v)
{
	if (t->low[v] == t->index[v]) {
		uint32_t w;
		do {
			w = t->stack[--t->top];
			t->comp[w] = (uint32_t)t->ncomp;
		} while (w != v);
		t->ncomp++;
	}
	if (t->depth) {
		uint32_t u = t->cs_v[t->depth - 1];
		if (t->low[v] < t->low[u])
			t->low[u] = t->low[v];
	}
}

static void search(tarjan *t, uint32_t root)
{
	open_vertex(t, root);
	while (t->depth) {
		uint32_t v = t->cs_v[t->depth - 1];
		if (t->cs_e[t->depth - 1] == t->start[v + 1]) {
			t->depth--;
			close_vertex(t, v);
			continue;
		}
		uint32_t w = t->adj[t->cs_e[t->depth - 1]++];
		if (t->index[w] == UNSEEN)
			open_vertex(t, w);
		else if (t->comp[w] == UNSEEN && t->index[w] < t->low[v])
			t->low[v] = t->index[w]; /* w is still open: on the stack */
	}
}

long plumb_scc(size_t n, const uint32_t *start, const uint32_t *adj, uint32_t *comp)
{
	if (n >= UNSEEN)
		return -1;
	size_t sz = (n ? n : 1) * sizeof(uint32_t);
	tarjan t = { start, adj, comp, malloc(sz), malloc(sz), malloc(sz), 0,
		     malloc(sz), malloc(sz), 0, 0, 0 };
	long rc = -1;
	if (!t.index || !t.low || !t.stack || !t.cs_v || !t.cs_e)
		goto out;
	for (size_t v = 0; v < n; v++)
		t.index[v] = comp[v] = UNSEEN;
	for (size_t v = 0; v < n; v++)
		if (t.index[v] == UNSEEN)
			search(&t, (uint32_t)v);
	rc = t.ncomp;
out:
	free(t.index);
	free(t.low);
	free(t.stack);
	free(t.cs_v);
	free(t.cs_e);
	return rc;
}
