/* Private to libplumb: strongly connected components of a directed graph,
 * for the call-graph metrics (recursion and cycles, metrics.c). */
#ifndef PLUMB_CYCLES_H
#define PLUMB_CYCLES_H

#include <stddef.h>
#include <stdint.h>

/* The graph has vertices 0 .. n-1; v's successors are adj[start[v] ..
 * start[v+1]) (start has n + 1 entries). Each vertex gets its component in
 * comp[v] (n entries). Components are numbered 0, 1, ... in the order
 * Tarjan's algorithm closes them, which is a reverse topological order: an
 * edge between two components always goes to the smaller number. The search
 * keeps its own stacks on the heap, so a graph of millions of vertices in
 * one chain does not touch the C stack. Returns the number of components,
 * or -1 when memory runs out. */
long plumb_scc(size_t n, const uint32_t *start, const uint32_t *adj, uint32_t *comp);

#endif
