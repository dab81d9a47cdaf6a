/* The call graph and the index by function name, in gprof's layout (FSF
 * style, or BSD with -T), column for column. */
#include <stdlib.h>
#include <string.h>

#include "gprof/gp_internal.h"

/* The name and, with -l, " (file:line @ addr)" (--inline-file-names:
 * " (file:line)"). Returns the characters
 * written, which the index uses to place its columns. */
int gp_print_name_only(const plumb_gprof *g, const gp_sym *s, FILE *out)
{
	if (s->is_cycle)
		return 0;
	const char *name = g->o.bsd ? s->s.name : gp_name(s);
	int n = fprintf(out, "%s", name);
	if ((g->o.line || g->o.inline_names) && s->s.file) {
		const char *file = g->o.print_path ? s->s.file : gp_basename(s->s.file);
		if (g->o.line)
			n += fprintf(out, " (%s:%u @ %lx)", file, s->s.line, (unsigned long)s->s.addr);
		else
			n += fprintf(out, " (%s:%u)", file, s->s.line);
	}
	return n;
}

void gp_print_name(const plumb_gprof *g, const gp_sym *s, FILE *out)
{
	gp_print_name_only(g, s, out);
	if (s->cyc_num != 0)
		fprintf(out, " <cycle %d>", s->cyc_num);
	if (s->index != 0)
		fprintf(out, s->print_flag ? " [%d]" : " (%d)", s->index);
}

static void header(plumb_gprof *g, FILE *out)
{
	gp_section_start(g, out);
	if (!g->o.bsd)
		fputs(g->o.brief ? "\t\t\tCall graph\n\n" : "\t\t     Call graph (explanation follows)\n\n", out);
	fprintf(out, "\ngranularity: each sample hit covers %ld byte(s)", (long)g->hist_scale * 2L);
	if (g->print_time > 0.0) {
		fprintf(out, " for %.2f%% of %.2f seconds\n\n", 100.0 / g->print_time, g->print_time / g->hz);
	} else {
		fputs(" no time propagated\n\n", out);
		g->print_time = 1.0; /* every numerator is zero */
	}
	if (g->o.bsd) {
		fprintf(out, "%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n", "", "", "", "", "called",
			"total", "parents");
		fprintf(out, "%-6.6s %5.5s %7.7s %11.11s %7.7s+%-7.7s %-8.8s\t%5.5s\n", "index", "%time",
			"self", "descendants", "called", "self", "name", "index");
		fprintf(out, "%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n", "", "", "", "", "called",
			"total", "children");
		fputc('\n', out);
	} else {
		fputs("index % time    self  children    called     name\n", out);
	}
}

static const char *wide(const plumb_gprof *g)
{
	return g->o.bsd ? "%6.6s %5.5s %7.2f %11.2f %7lu/%-7lu     " : "%6.6s %5.5s %7.2f %7.2f %7lu/%-7lu     ";
}

static const char *narrow(const plumb_gprof *g)
{
	return g->o.bsd ? "%6.6s %5.5s %7.7s %11.11s %7lu %7.7s     " : "%6.6s %5.5s %7.7s %7.7s %7lu %7.7s     ";
}

static void print_cycle(const plumb_gprof *g, const gp_sym *c, FILE *out)
{
	char buf[32];
	snprintf(buf, sizeof buf, "[%d]", c->index);
	fprintf(out, g->o.bsd ? "%-6.6s %5.1f %7.2f %11.2f %7lu" : "%-6.6s %5.1f %7.2f %7.2f %7lu", buf,
		100 * (c->prop_self + c->prop_child) / g->print_time, c->prop_self / g->hz,
		c->prop_child / g->hz, (unsigned long)c->ncalls);
	if (c->self_calls != 0)
		fprintf(out, "+%-7lu", (unsigned long)c->self_calls);
	else
		fprintf(out, " %7.7s", "");
	fprintf(out, " <cycle %d as a whole> [%d]\n", c->cyc_num, c->index);
}

/* Members by total time down, then calls down; gprof's insertion sort
 * puts a member after those it does not beat. */
static int cmp_member(const gp_sym *l, const gp_sym *r)
{
	double lt = l->prop_self + l->prop_child, rt = r->prop_self + r->prop_child;
	uint64_t lc = l->ncalls + l->self_calls, rc = r->ncalls + r->self_calls;
	if (lt != rt)
		return lt > rt ? 1 : -1;
	if (lc != rc)
		return lc > rc ? 1 : -1;
	return 0;
}

static void sort_members(plumb_gprof *g, gp_sym *c)
{
	uint32_t todo = c->cyc_next;
	c->cyc_next = GP_NONE;
	while (todo != GP_NONE) {
		uint32_t doing = todo;
		todo = g->sym[doing].cyc_next;
		gp_sym *prev = c;
		while (prev->cyc_next != GP_NONE && cmp_member(&g->sym[doing], &g->sym[prev->cyc_next]) <= 0)
			prev = &g->sym[prev->cyc_next];
		g->sym[doing].cyc_next = prev->cyc_next;
		prev->cyc_next = doing;
	}
}

static void print_members(plumb_gprof *g, gp_sym *c, FILE *out)
{
	sort_members(g, c);
	for (uint32_t m = c->cyc_next; m != GP_NONE; m = g->sym[m].cyc_next) {
		const gp_sym *s = &g->sym[m];
		fprintf(out, g->o.bsd ? "%6.6s %5.5s %7.2f %11.2f %7lu" : "%6.6s %5.5s %7.2f %7.2f %7lu", "", "",
			s->prop_self / g->hz, s->prop_child / g->hz, (unsigned long)s->ncalls);
		if (s->self_calls != 0)
			fprintf(out, "+%-7lu", (unsigned long)s->self_calls);
		else
			fprintf(out, " %7.7s", "");
		fputs("     ", out);
		gp_print_name(g, s, out);
		fputc('\n', out);
	}
}

static bool within_cycle(const plumb_gprof *g, const gp_arc *a)
{
	int pn = g->sym[a->parent].cyc_num, cn = g->sym[a->child].cyc_num;
	return pn != 0 && cn != 0 && pn == cn;
}

/* Self arcs least; arcs inside a cycle next, by count; the rest by time
 * plus children time, then count. */
static int cmp_arc(const plumb_gprof *g, const gp_arc *l, const gp_arc *r)
{
	if (l->parent == l->child)
		return -1;
	if (r->parent == r->child)
		return 1;
	bool lc = within_cycle(g, l), rc = within_cycle(g, r);
	if (lc && rc)
		return l->count < r->count ? -1 : l->count > r->count;
	if (lc)
		return -1;
	if (rc)
		return 1;
	double lt = l->time + l->child_time, rt = r->time + r->child_time;
	if (lt != rt)
		return lt < rt ? -1 : 1;
	return l->count < r->count ? -1 : l->count > r->count;
}

/* gprof's insertion sorts, which decide the order of equal arcs. */
static void sort_parents(plumb_gprof *g, gp_sym *child)
{
	uint32_t sorted = GP_NONE;
	for (uint32_t a = child->parents, next; a != GP_NONE; a = next) {
		next = g->arc[a].next_parent;
		uint32_t *link = &sorted;
		while (*link != GP_NONE && cmp_arc(g, &g->arc[a], &g->arc[*link]) > 0)
			link = &g->arc[*link].next_parent;
		g->arc[a].next_parent = *link;
		*link = a;
	}
	child->parents = sorted;
}

static void sort_children(plumb_gprof *g, gp_sym *parent)
{
	uint32_t sorted = GP_NONE;
	for (uint32_t a = parent->children, next; a != GP_NONE; a = next) {
		next = g->arc[a].next_child;
		uint32_t *link = &sorted;
		while (*link != GP_NONE && cmp_arc(g, &g->arc[a], &g->arc[*link]) < 0)
			link = &g->arc[*link].next_child;
		g->arc[a].next_child = *link;
		*link = a;
	}
	parent->children = sorted;
}

static void print_parents(plumb_gprof *g, gp_sym *child, FILE *out)
{
	const gp_sym *head = &g->sym[child->cyc_head];
	if (child->parents == GP_NONE) {
		fprintf(out, g->o.bsd ? "%6.6s %5.5s %7.7s %11.11s %7.7s %7.7s     <spontaneous>\n"
				      : "%6.6s %5.5s %7.7s %7.7s %7.7s %7.7s     <spontaneous>\n",
			"", "", "", "", "", "");
		return;
	}
	sort_parents(g, child);
	for (uint32_t a = child->parents; a != GP_NONE; a = g->arc[a].next_parent) {
		const gp_arc *arc = &g->arc[a];
		const gp_sym *p = &g->sym[arc->parent];
		if (p == child || (child->cyc_num != 0 && p->cyc_num == child->cyc_num))
			fprintf(out, narrow(g), "", "", "", "", (unsigned long)arc->count, "");
		else
			fprintf(out, wide(g), "", "", arc->time / g->hz, arc->child_time / g->hz,
				(unsigned long)arc->count, (unsigned long)head->ncalls);
		gp_print_name(g, p, out);
		fputc('\n', out);
	}
}

static void print_children(plumb_gprof *g, gp_sym *parent, FILE *out)
{
	sort_children(g, parent);
	for (uint32_t a = parent->children; a != GP_NONE; a = g->arc[a].next_child) {
		const gp_arc *arc = &g->arc[a];
		const gp_sym *c = &g->sym[arc->child];
		if (c == parent || (c->cyc_num != 0 && c->cyc_num == parent->cyc_num))
			fprintf(out, narrow(g), "", "", "", "", (unsigned long)arc->count, "");
		else
			fprintf(out, wide(g), "", "", arc->time / g->hz, arc->child_time / g->hz,
				(unsigned long)arc->count, (unsigned long)g->sym[c->cyc_head].ncalls);
		gp_print_name(g, c, out);
		fputc('\n', out);
	}
}

static void print_line(const plumb_gprof *g, const gp_sym *s, FILE *out)
{
	char buf[32];
	snprintf(buf, sizeof buf, "[%d]", s->index);
	fprintf(out, g->o.bsd ? "%-6.6s %5.1f %7.2f %11.2f" : "%-6.6s %5.1f %7.2f %7.2f", buf,
		100 * (s->prop_self + s->prop_child) / g->print_time, s->prop_self / g->hz,
		s->prop_child / g->hz);
	if (s->ncalls + s->self_calls != 0) {
		fprintf(out, " %7lu", (unsigned long)s->ncalls);
		if (s->self_calls != 0)
			fprintf(out, "+%-7lu ", (unsigned long)s->self_calls);
		else
			fprintf(out, " %7.7s ", "");
	} else {
		fprintf(out, " %7.7s %7.7s ", "", "");
	}
	gp_print_name(g, s, out);
	fputc('\n', out);
}

static bool entry_shown(const plumb_gprof *g, const gp_sym *s)
{
	if (!g->o.zeros && s->ncalls == 0 && s->self_calls == 0 && s->prop_self == 0 && s->prop_child == 0)
		return false;
	return s->print_flag && !(g->o.line && !s->s.is_func);
}

static const char graph_notes[] =
	"\n"
	"Reading the call graph (plumb's notes; gprof -b leaves them out):\n"
	"  Each entry is a function, between dashed lines. The line that starts with\n"
	"  [N] is the function itself; the lines above it are its callers, the lines\n"
	"  below are the functions it calls.\n"
	"  On the function's line:\n"
	"    index     its number; names in the report carry it as [N], or (N) when\n"
	"              options hide its entry.\n"
	"    % time    self plus children time as a share of the time shown.\n"
	"    self      time sampled in the function itself.\n"
	"    children  (descendants with -T) time of its callees credited to it: an\n"
	"              ESTIMATE, since gmon.out has no stacks; a callee's time is\n"
	"              shared among its callers in proportion to the calls each\n"
	"              made.\n"
	"    called    calls from other functions, then +calls from itself.\n"
	"  On a caller's line: the part of the function's self and children time\n"
	"  credited to that caller, and its calls / all calls of the function.\n"
	"  On a callee's line: the part of the callee's time credited to this\n"
	"  function, and its calls / all calls of the callee.\n"
	"  Functions that call each other form a cycle, shown as <cycle N as a\n"
	"  whole> with its members; time is not passed around inside a cycle.\n"
	"  <spontaneous> means no recorded caller (main, signal handlers, code\n"
	"  not built with -pg).\n";

int plumb_gprof_print_graph(plumb_gprof *g, FILE *out)
{
	if (!g->by_total)
		return 0;
	if (!g->o.brief && g->o.bsd)
		fputs(graph_notes, out); /* BSD style explains before the graph */
	header(g, out);
	size_t n = g->nsym + g->ncycles;
	for (size_t k = 0; k < n; k++) {
		gp_sym *s = &g->sym[g->by_total[k]];
		if (!entry_shown(g, s))
			continue;
		if (s->is_cycle) {
			print_cycle(g, s, out);
			print_members(g, s, out);
		} else {
			print_parents(g, s, out);
			print_line(g, s, out);
			print_children(g, s, out);
		}
		if (g->o.bsd)
			fputc('\n', out);
		fputs("-----------------------------------------------\n", out);
		if (g->o.bsd)
			fputc('\n', out);
	}
	if (!g->o.brief && !g->o.bsd)
		fputs(graph_notes, out);
	return ferror(out) ? -1 : 0;
}

static int cmp_name(const void *ctx, uint32_t a, uint32_t b)
{
	const plumb_gprof *g = ctx;
	return strcmp(g->sym[a].s.name, g->sym[b].s.name);
}

static void index_cell(const plumb_gprof *g, const gp_sym *s, bool is_sym, int *col, int start, FILE *out)
{
	char buf[32];
	snprintf(buf, sizeof buf, s->print_flag ? "[%d]" : "(%d)", s->index);
	if (!is_sym) {
		char cyc[32];
		snprintf(cyc, sizeof cyc, "<cycle %d>", s->cyc_num);
		if (g->o.bsd) {
			fprintf(out, "%6.6s %-19.19s", buf, cyc);
			return;
		}
		*col += (int)strlen(buf);
		for (; *col < start + 5; ++*col)
			fputc(' ', out);
		fprintf(out, " %s %s", buf, cyc);
		*col += (int)strlen(cyc);
		return;
	}
	if (g->o.bsd) {
		fprintf(out, "%6.6s %-19.19s", buf, s->s.name);
		return;
	}
	*col += (int)strlen(buf);
	for (; *col < start + 5; ++*col)
		fputc(' ', out);
	fprintf(out, " %s ", buf);
	*col += gp_print_name_only(g, s, out);
	if (!g->o.line && s->s.is_static && s->s.file) {
		const char *f = g->o.print_path ? s->s.file : gp_basename(s->s.file);
		fprintf(out, " (%s)", f);
		*col += (int)strlen(f) + 3;
	}
}

int plumb_gprof_print_index(plumb_gprof *g, FILE *out)
{
	if (!g->by_total)
		return 0;
	uint32_t *v = malloc((g->nsym + g->ncycles + 1) * sizeof *v);
	if (!v)
		return -1;
	size_t nnames = 0;
	for (uint32_t i = 0; i < g->nsym; i++)
		if (g->o.zeros || g->sym[i].ncalls != 0 || g->sym[i].time != 0)
			v[nnames++] = i;
	gp_stable_sort(v, nnames, cmp_name, g);
	size_t todo = nnames;
	for (size_t k = 1; k <= g->ncycles; k++)
		v[todo++] = (uint32_t)(g->nsym + k);
	gp_section_start(g, out);
	fputs("Index by function name\n\n", out);
	int colw = (g->o.width - 1) / 3;
	size_t rows = (todo + 2) / 3;
	for (size_t i = 0; i < rows; i++) {
		int col = 0, start = 0;
		for (size_t j = i; j < todo; j += rows) {
			index_cell(g, &g->sym[v[j]], j < nnames, &col, start, out);
			start += colw;
		}
		fputc('\n', out);
	}
	free(v);
	return ferror(out) ? -1 : 0;
}

const char *gp_name(const gp_sym *s)
{
	return s->s.display ? s->s.display : s->s.name;
}

const char *gp_basename(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

void plumb_gprof_after_output(plumb_gprof *g)
{
	g->printed = true;
}

void gp_section_start(plumb_gprof *g, FILE *out)
{
	if (g->printed)
		fputs("\f\n", out);
	g->printed = true;
}
