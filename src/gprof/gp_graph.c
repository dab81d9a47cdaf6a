/* The call graph as gprof builds it: arcs mapped to symbols, self-recursion
 * set apart, depth-first numbering that collapses cycles ("glomming"),
 * cycles numbered in address order, print flags and propagation fractions
 * top-down, then time shared bottom-up among callers in proportion to
 * call counts (gprof's estimate), then the order of the report. */
#include <stdlib.h>
#include <string.h>

#include "gprof/gp_internal.h"

enum { DFN_NAN = 0, DFN_BUSY = -1 };

/* ---- arcs ---------------------------------------------------------------- */

/* Arcs by (parent, child), so that repeated records find theirs fast. */
typedef struct arc_map {
	uint32_t *slot; /* arc index + 1, 0 empty */
	size_t cap;
} arc_map;

static size_t hash2(uint32_t a, uint32_t b, size_t cap)
{
	uint64_t h = ((uint64_t)a << 32 | b) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 17) & (cap - 1);
}

static uint32_t *map_find(const plumb_gprof *g, arc_map *m, uint32_t p, uint32_t c)
{
	size_t i = hash2(p, c, m->cap);
	while (m->slot[i]) {
		const gp_arc *a = &g->arc[m->slot[i] - 1];
		if (a->parent == p && a->child == c)
			return &m->slot[i];
		i = (i + 1) & (m->cap - 1);
	}
	return &m->slot[i];
}

static int map_grow(plumb_gprof *g, arc_map *m, plumb_error *err)
{
	if (m->cap && g->narc * 2 < m->cap)
		return 0;
	arc_map n = { .cap = m->cap ? m->cap * 2 : 1024 };
	if (!(n.slot = calloc(n.cap, sizeof *n.slot)))
		return plumb_fail_nomem(err);
	for (size_t i = 0; i < g->narc; i++)
		*map_find(g, &n, g->arc[i].parent, g->arc[i].child) = (uint32_t)i + 1;
	free(m->slot);
	*m = n;
	return 0;
}

/* gprof's arc_add: an existing arc just counts more; a new one goes to the
 * front of its parent's child list and its child's parent list. */
static int arc_add(plumb_gprof *g, arc_map *m, uint32_t p, uint32_t c, uint64_t count,
		   plumb_error *err)
{
	if (map_grow(g, m, err))
		return -1;
	uint32_t *slot = map_find(g, m, p, c);
	if (*slot) {
		g->arc[*slot - 1].count += count;
		return 0;
	}
	if (g->narc == g->arc_cap) {
		size_t nc = g->arc_cap ? g->arc_cap * 2 : 256;
		gp_arc *na = realloc(g->arc, nc * sizeof *na);
		if (!na)
			return plumb_fail_nomem(err);
		g->arc = na;
		g->arc_cap = nc;
	}
	uint32_t id = (uint32_t)g->narc++;
	g->arc[id] = (gp_arc){ .parent = p, .child = c, .count = count,
			       .next_child = g->sym[p].children, .next_parent = g->sym[c].parents };
	g->sym[p].children = id;
	g->sym[c].parents = id;
	*slot = id + 1;
	return 0;
}

/* Each record: both ends must hit symbols; with -l the callee moves back
 * to its function's entry symbol; the arc tables may drop it. */
static int tally(plumb_gprof *g, arc_map *m, const gp_rawarc *r, plumb_error *err)
{
	uint32_t p = gp_sym_at(g, r->from_pc), c = gp_sym_at(g, r->self_pc);
	if (p == GP_NONE || c == GP_NONE)
		return 0;
	while (!g->sym[c].s.is_func) {
		if (c == 0)
			return 0;
		c--;
	}
	if (!gp_arc_wanted(g, &g->sym[p], &g->sym[c]))
		return 0;
	g->sym[c].ncalls += r->count;
	return arc_add(g, m, p, c, r->count, err);
}

/* -c: calls found in symbol i's code (given in address order) become
 * arcs with no count, as gprof adds them while preparing symbol i. */
static int static_calls(plumb_gprof *g, arc_map *m, uint32_t i, size_t *next, plumb_error *err)
{
	for (; *next < g->nstatic; (*next)++) {
		const gp_static_call *r = &g->statics[*next];
		uint32_t from = gp_sym_at(g, r->from);
		if (from != GP_NONE && from > i)
			return 0;
		uint32_t to = gp_sym_at(g, r->to);
		if (from != i || !gp_in_hist(g, r->to) || to == GP_NONE || g->sym[to].s.addr != r->to)
			continue;
		if (arc_add(g, m, i, to, 0, err))
			return -1;
	}
	return 0;
}

/* Self-recursive calls are counted apart; ncalls keeps the others. */
static int prepare(plumb_gprof *g, arc_map *m, plumb_error *err)
{
	size_t next = 0;
	for (uint32_t i = 0; i < g->nsym; i++) {
		gp_sym *s = &g->sym[i];
		uint32_t *slot = m->cap ? map_find(g, m, i, i) : NULL;
		if (slot && *slot) {
			s->ncalls -= g->arc[*slot - 1].count;
			s->self_calls = g->arc[*slot - 1].count;
		}
		if (g->o.static_calls && static_calls(g, m, i, &next, err))
			return -1;
	}
	return 0;
}

/* ---- depth-first numbering and cycles ------------------------------------ */

typedef struct dfn {
	uint32_t *stack;   /* 1-based like gprof's: stack[1..depth] */
	uint32_t *arcpos;  /* next child arc to visit per level */
	size_t depth, cap;
	int counter;
} dfn;

/* Called when sym is reached while on the stack: glom everything above
 * its position into one cycle. */
static void find_cycle(plumb_gprof *g, dfn *d, uint32_t child)
{
	size_t top;
	uint32_t head = GP_NONE;
	for (top = d->depth; top > 0; top--) {
		head = d->stack[top];
		if (child == head)
			break;
		if (g->sym[child].cyc_head != child && g->sym[child].cyc_head == head)
			break;
	}
	if (top == 0 || top == d->depth)
		return; /* self-recursion: counted apart already */
	uint32_t tail = head;
	while (g->sym[tail].cyc_next != GP_NONE)
		tail = g->sym[tail].cyc_next;
	if (g->sym[head].cyc_head != head)
		head = g->sym[head].cyc_head;
	for (size_t k = top + 1; k <= d->depth; k++) {
		uint32_t c = d->stack[k];
		if (g->sym[c].cyc_head != c)
			continue; /* already glommed (to this head) */
		g->sym[tail].cyc_next = c;
		g->sym[c].cyc_head = head;
		for (tail = c; g->sym[tail].cyc_next != GP_NONE; tail = g->sym[tail].cyc_next)
			g->sym[g->sym[tail].cyc_next].cyc_head = head;
	}
}

static void post_visit(plumb_gprof *g, dfn *d, uint32_t s)
{
	if (g->sym[s].cyc_head == s) {
		d->counter++;
		for (uint32_t m = s; m != GP_NONE; m = g->sym[m].cyc_next)
			g->sym[m].top_order = d->counter;
	}
	d->depth--;
}

/* Visit s: number it, or find a cycle, or push it. 1 when pushed. */
static int enter(plumb_gprof *g, dfn *d, uint32_t s, plumb_error *err)
{
	gp_sym *x = &g->sym[s];
	if (x->top_order != DFN_NAN && x->top_order != DFN_BUSY)
		return 0;
	if (x->top_order == DFN_BUSY) {
		find_cycle(g, d, s);
		return 0;
	}
	if (d->depth + 1 >= d->cap) {
		size_t nc = d->cap ? d->cap * 2 : 128;
		uint32_t *ns = realloc(d->stack, nc * sizeof *ns);
		if (!ns)
			return plumb_fail_nomem(err);
		d->stack = ns;
		uint32_t *na = realloc(d->arcpos, nc * sizeof *na);
		if (!na)
			return plumb_fail_nomem(err);
		d->arcpos = na;
		d->cap = nc;
	}
	d->depth++;
	d->stack[d->depth] = s;
	d->arcpos[d->depth] = x->children;
	x->top_order = DFN_BUSY;
	return 1;
}

/* gprof's recursive cg_dfn, with an explicit stack for deep graphs. */
static int number_from(plumb_gprof *g, dfn *d, uint32_t root, plumb_error *err)
{
	int rc = enter(g, d, root, err);
	if (rc <= 0)
		return rc;
	size_t base = d->depth - 1;
	while (d->depth > base) {
		uint32_t a = d->arcpos[d->depth];
		if (a == GP_NONE) {
			post_visit(g, d, d->stack[d->depth]);
			continue;
		}
		d->arcpos[d->depth] = g->arc[a].next_child;
		if (enter(g, d, g->arc[a].child, err) < 0)
			return -1;
	}
	return 0;
}

static int number_all(plumb_gprof *g, plumb_error *err)
{
	dfn d = { 0 };
	int rc = 0;
	for (uint32_t i = 0; i < g->nsym && !rc; i++)
		if (g->sym[i].top_order == DFN_NAN)
			rc = number_from(g, &d, i, err);
	free(d.stack);
	free(d.arcpos);
	return rc;
}

/* Cycles get numbers 1, 2, ... in address order of their heads and a
 * pseudo-symbol each, stored after the symbols. */
static int link_cycles(plumb_gprof *g, plumb_error *err)
{
	size_t n = 0;
	for (uint32_t i = 0; i < g->nsym; i++)
		n += g->sym[i].cyc_head == i && g->sym[i].cyc_next != GP_NONE;
	gp_sym *ns = realloc(g->sym, (g->nsym + 1 + n) * sizeof *ns);
	if (!ns)
		return plumb_fail_nomem(err);
	g->sym = ns;
	g->ncycles = n;
	int num = 0;
	for (uint32_t i = 0; i < g->nsym; i++) {
		if (!(g->sym[i].cyc_head == i && g->sym[i].cyc_next != GP_NONE))
			continue;
		num++;
		uint32_t h = (uint32_t)(g->nsym + num);
		gp_sym *c = &g->sym[h];
		memset(c, 0, sizeof *c);
		c->is_cycle = true;
		c->print_flag = true;
		c->cyc_num = num;
		c->cyc_head = h;
		c->cyc_next = i;
		c->parents = c->children = GP_NONE;
		for (uint32_t m = i; m != GP_NONE; m = g->sym[m].cyc_next) {
			g->sym[m].cyc_num = num;
			g->sym[m].cyc_head = h;
		}
		for (uint32_t m = i; m != GP_NONE; m = g->sym[m].cyc_next)
			for (uint32_t a = g->sym[m].parents; a != GP_NONE; a = g->arc[a].next_parent) {
				const gp_arc *arc = &g->arc[a];
				if (arc->parent == m)
					continue;
				if (g->sym[arc->parent].cyc_num == num)
					c->self_calls += arc->count;
				else
					c->ncalls += arc->count;
			}
	}
	return 0;
}

/* ---- propagation ---------------------------------------------------------- */

static void inherit(plumb_gprof *g, uint32_t child)
{
	gp_sym *c = &g->sym[child];
	uint32_t head = c->cyc_head;
	if (head == child) {
		c->print_flag = false;
		c->fract = 0.0;
		for (uint32_t a = c->parents; a != GP_NONE; a = g->arc[a].next_parent) {
			const gp_sym *p = &g->sym[g->arc[a].parent];
			if (g->arc[a].parent == child)
				continue;
			c->print_flag |= p->print_flag;
			if (c->ncalls != 0)
				c->fract += p->fract * ((double)g->arc[a].count / (double)c->ncalls);
		}
		return;
	}
	gp_sym *h = &g->sym[head];
	h->print_flag = false;
	h->fract = 0.0;
	for (uint32_t m = h->cyc_next; m != GP_NONE; m = g->sym[m].cyc_next)
		for (uint32_t a = g->sym[m].parents; a != GP_NONE; a = g->arc[a].next_parent) {
			const gp_sym *p = &g->sym[g->arc[a].parent];
			if (p->cyc_head == head)
				continue;
			h->print_flag |= p->print_flag;
			if (h->ncalls != 0)
				h->fract += p->fract * ((double)g->arc[a].count / (double)h->ncalls);
		}
	for (uint32_t m = head; m != GP_NONE; m = g->sym[m].cyc_next) {
		g->sym[m].print_flag = h->print_flag;
		g->sym[m].fract = h->fract;
	}
}

static bool in_tab(const plumb_gprof *g, plumb_gprof_table t, uint64_t addr)
{
	return gp_tab_lookup(&g->tab[t], addr) != NULL;
}

/* -q/-Q/-f/-e and -n/-N/-F/-E adjust what was inherited. */
static void adjust(plumb_gprof *g, gp_sym *c)
{
	uint64_t a = c->s.addr;
	if (!c->print_flag) {
		if (gp_selected(g, PLUMB_GP_INCL_GRAPH, a))
			c->print_flag = true;
	} else if (!in_tab(g, PLUMB_GP_INCL_GRAPH, a) && in_tab(g, PLUMB_GP_EXCL_GRAPH, a)) {
		c->print_flag = false;
	}
	if (c->fract == 0.0) {
		if (gp_selected(g, PLUMB_GP_INCL_TIME, a))
			c->fract = 1.0;
	} else if (!in_tab(g, PLUMB_GP_INCL_TIME, a) && in_tab(g, PLUMB_GP_EXCL_TIME, a)) {
		c->fract = 0.0;
	}
	c->prop_self = c->time * c->fract;
	g->print_time += c->prop_self;
}

static void propagate_flags(plumb_gprof *g, const uint32_t *top)
{
	uint32_t old_head = GP_NONE;
	for (size_t k = g->nsym; k-- > 0;) {
		gp_sym *c = &g->sym[top[k]];
		if (c->cyc_head != old_head) {
			old_head = c->cyc_head;
			inherit(g, top[k]);
		}
		adjust(g, c);
	}
}

static void cycle_time(plumb_gprof *g)
{
	for (size_t k = 1; k <= g->ncycles; k++) {
		gp_sym *c = &g->sym[g->nsym + k];
		for (uint32_t m = c->cyc_next; m != GP_NONE; m = g->sym[m].cyc_next)
			if (g->sym[m].fract != 0.0)
				c->time += g->sym[m].time;
		c->prop_self = c->fract * c->time;
	}
}

/* Each arc's share of the callee (or the callee's whole cycle): its time
 * and children time times count/calls. */
static void propagate_time(plumb_gprof *g, uint32_t parent)
{
	gp_sym *p = &g->sym[parent];
	if (p->fract == 0.0)
		return;
	for (uint32_t a = p->children; a != GP_NONE; a = g->arc[a].next_child) {
		gp_arc *arc = &g->arc[a];
		uint32_t child = arc->child;
		gp_sym *c = &g->sym[child];
		if (arc->count == 0 || child == parent || c->fract == 0)
			continue;
		if (c->cyc_head != child) {
			if (p->cyc_num == c->cyc_num)
				continue;
			c = &g->sym[c->cyc_head];
		} else if (p->top_order <= c->top_order) {
			continue; /* gprof: "toporder botches" */
		}
		if (c->ncalls == 0)
			continue;
		double f = (double)arc->count / (double)c->ncalls;
		arc->time = c->time * f;
		arc->child_time = c->child_time * f;
		double share = arc->time + arc->child_time;
		p->child_time += share;
		double prop_share = p->fract * share;
		p->prop_child += prop_share;
		arc->time *= p->fract;
		arc->child_time *= p->fract;
		if (p->cyc_head != parent) {
			g->sym[p->cyc_head].child_time += share;
			g->sym[p->cyc_head].prop_child += prop_share;
		}
	}
}

static int cmp_topo(const void *ctx, uint32_t a, uint32_t b)
{
	const plumb_gprof *g = ctx;
	int x = g->sym[a].top_order, y = g->sym[b].top_order;
	return (x > y) - (x < y);
}

/* Report order: total time down; cycles first; names without a leading
 * '_' first; calls down; raw name. */
static int cmp_total(const void *ctx, uint32_t a, uint32_t b)
{
	const plumb_gprof *g = ctx;
	const gp_sym *l = &g->sym[a], *r = &g->sym[b];
	double d = (l->prop_self + l->prop_child) - (r->prop_self + r->prop_child);
	if (d < 0.0)
		return 1;
	if (d > 0.0)
		return -1;
	if (l->is_cycle)
		return -1;
	if (r->is_cycle)
		return 1;
	if (l->s.name[0] != '_' && r->s.name[0] == '_')
		return -1;
	if (l->s.name[0] == '_' && r->s.name[0] != '_')
		return 1;
	if (l->ncalls != r->ncalls)
		return l->ncalls > r->ncalls ? -1 : 1;
	return strcmp(l->s.name, r->s.name);
}

static int order_and_number(plumb_gprof *g, plumb_error *err)
{
	size_t n = g->nsym + g->ncycles;
	uint32_t *top = malloc((g->nsym ? g->nsym : 1) * sizeof *top);
	g->by_total = malloc((n ? n : 1) * sizeof *g->by_total);
	if (!top || !g->by_total) {
		free(top);
		return plumb_fail_nomem(err);
	}
	for (uint32_t i = 0; i < g->nsym; i++)
		top[i] = i;
	gp_stable_sort(top, g->nsym, cmp_topo, g);
	propagate_flags(g, top);
	cycle_time(g);
	for (size_t k = 0; k < g->nsym; k++)
		propagate_time(g, top[k]);
	free(top);
	for (uint32_t i = 0; i < g->nsym; i++)
		g->by_total[i] = i;
	for (size_t k = 1; k <= g->ncycles; k++)
		g->by_total[g->nsym + k - 1] = (uint32_t)(g->nsym + k);
	gp_stable_sort(g->by_total, n, cmp_total, g);
	for (size_t k = 0; k < n; k++)
		g->sym[g->by_total[k]].index = (int)k + 1;
	return 0;
}

int gp_graph_build(plumb_gprof *g, plumb_error *err)
{
	arc_map m = { 0 };
	int rc = 0;
	for (size_t i = 0; i < g->nraw && !rc; i++)
		rc = tally(g, &m, &g->raw[i], err);
	/* the records are arcs now (nraw still says there were some) */
	free(g->raw);
	g->raw = NULL;
	g->raw_cap = 0;
	g->narc_read = g->narc;
	if (!rc)
		rc = prepare(g, &m, err);
	free(m.slot);
	if (!rc)
		rc = number_all(g, err);
	if (!rc)
		rc = link_cycles(g, err);
	if (!rc)
		rc = order_and_number(g, err);
	return rc;
}
