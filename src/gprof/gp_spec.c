/* Symspecs as gprof understands them: parsing ("file:func", "file:line",
 * "from/to"), matching against the symbol table, and the twelve tables of
 * address ranges that the options fill. A spec that matches nothing adds
 * nothing, so it has no effect. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gprof/gp_internal.h"

/* One side of a spec. file_set with file NULL: a file nobody knows, which
 * matches nothing. */
typedef struct pattern {
	bool file_set;
	const char *file;  /* the path of the known source with that basename */
	int line;          /* 0: any */
	const char *name;  /* NULL: any */
} pattern;

/* The recorded path whose basename is base; NULL when none. gprof keeps
 * one record per path, newest first, and takes the first match: the path
 * met last in its symbol-creation order. */
static const char *known_file(const plumb_gprof *g, const char *base)
{
	const char *found = NULL;
	for (size_t k = 0; k < g->nsym; k++) {
		const char *f = g->sym[g->creation[k]].s.file;
		if (!f || strcmp(gp_basename(f), base) != 0 || (found && strcmp(f, found) == 0))
			continue;
		bool seen = false; /* a path met before is not new */
		for (size_t j = 0; j < k && !seen; j++) {
			const char *e = g->sym[g->creation[j]].s.file;
			seen = e && strcmp(e, f) == 0;
		}
		if (!seen)
			found = f;
	}
	return found;
}

static void set_file(const plumb_gprof *g, pattern *p, const char *text)
{
	p->file_set = true;
	p->file = known_file(g, text);
}

/* spec := file ":" [func|line] | file (has a '.') | line (a digit first)
 * | func. The last ':' splits. text is modified. */
static void parse_side(const plumb_gprof *g, char *text, pattern *p)
{
	memset(p, 0, sizeof *p);
	char *colon = strrchr(text, ':');
	if (colon) {
		*colon = '\0';
		if (colon > text)
			set_file(g, p, text);
		text = colon + 1;
		if (!*text)
			return;
		if (isdigit((unsigned char)text[0]))
			p->line = atoi(text);
		else
			p->name = text;
		return;
	}
	if (!*text)
		return;
	if (strchr(text, '.'))
		set_file(g, p, text);
	else if (isdigit((unsigned char)text[0]))
		p->line = atoi(text);
	else
		p->name = text;
}

static bool matches(const pattern *p, const gp_sym *s)
{
	if (p->file_set && (!p->file || !s->s.file || strcmp(p->file, s->s.file) != 0))
		return false;
	if (p->line && (unsigned)p->line != s->s.line)
		return false;
	if (p->name && strcmp(p->name, s->s.name) != 0)
		return false;
	return true;
}

static int grow(gp_range **v, size_t n, size_t *cap, plumb_error *err)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	gp_range *nv = realloc(*v, nc * sizeof *nv);
	if (!nv)
		return plumb_fail_nomem(err);
	*v = nv;
	*cap = nc;
	return 0;
}

/* A parsed spec and the state of its current run of adjacent matches. */
typedef struct spec_state {
	pattern left, right;
	bool has_right;
	size_t left_run, right_run;      /* last symbol matched, or SIZE_MAX */
	size_t left_entry, right_entry;  /* the range that run grows */
	size_t right_first, right_count; /* its right matches in g->right */
	const char **lefts;              /* from/to specs: names of its left ranges */
	size_t nlefts;
	char *buf;
} spec_state;

static gp_range range_of(const gp_sym *s)
{
	return (gp_range){ .addr = s->s.addr, .end_addr = s->s.end_addr, .name = s->s.name,
			   .is_static = s->s.is_static, .is_func = s->s.is_func };
}

/* Adjacent matches of one spec form one range, as gprof's tables hold:
 * *run is the spec's last matched symbol, *entry the range it grows. */
static int extend(gp_range **v, size_t *n, size_t *cap, size_t *run, size_t *entry, size_t i,
		  const gp_sym *s, plumb_error *err)
{
	if (*run != SIZE_MAX && *run + 1 == i) {
		(*v)[*entry].end_addr = s->s.end_addr;
	} else {
		if (grow(v, *n, cap, err))
			return -1;
		*entry = *n;
		(*v)[(*n)++] = range_of(s);
	}
	*run = i;
	return 0;
}

static int cmp_range(const gp_range *a, const gp_range *b)
{
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->is_func != b->is_func)
		return (int)b->is_func - (int)a->is_func;
	return (int)a->is_static - (int)b->is_static;
}

static bool range_better(const gp_range *src, const gp_range *kept)
{
	plumb_gprof_symbol a = { .name = src->name, .is_static = src->is_static, .is_func = src->is_func };
	plumb_gprof_symbol b = { .name = kept->name, .is_static = kept->is_static, .is_func = kept->is_func };
	if (!a.is_static && b.is_static)
		return true;
	if (a.is_static != b.is_static)
		return false;
	if (a.is_func && !b.is_func)
		return true;
	if (a.is_func != b.is_func)
		return false;
	if (a.name[0] != '_' && b.name[0] == '_')
		return true;
	return a.name[0] == '_' && b.name[0] == '_' && a.name[1] != '_' && b.name[1] == '_';
}

/* Sort (stably) and drop entries at an address already present, keeping
 * the one gprof keeps: its tables go through the same finalization as
 * the symbol table. */
static void finalize(gp_spec_tab *t)
{
	for (size_t i = 1; i < t->n; i++) {
		gp_range x = t->r[i];
		size_t j = i;
		for (; j > 0 && cmp_range(&t->r[j - 1], &x) > 0; j--)
			t->r[j] = t->r[j - 1];
		t->r[j] = x;
	}
	size_t dst = 0;
	for (size_t src = 0; src < t->n; src++) {
		if (dst > 0 && t->r[src].addr == t->r[dst - 1].addr) {
			if (range_better(&t->r[src], &t->r[dst - 1]))
				t->r[dst - 1] = t->r[src];
			continue;
		}
		if (t->r[src].addr <= t->r[src].end_addr)
			t->r[dst++] = t->r[src];
	}
	t->n = dst;
}

static int parse_all(plumb_gprof *g, spec_state *st, plumb_error *err)
{
	for (size_t k = 0; k < g->nspec; k++) {
		spec_state *s = &st[k];
		if (!(s->buf = strdup(g->spec[k].text)))
			return plumb_fail_nomem(err);
		char *slash = strchr(s->buf, '/');
		if (slash) {
			parse_side(g, slash + 1, &s->right);
			*slash = '\0';
			s->has_right = true;
		}
		parse_side(g, s->buf, &s->left);
		s->left_run = s->right_run = SIZE_MAX;
	}
	return 0;
}

/* Right halves first, so that each left range can point at its spec's. */
static int collect_rights(plumb_gprof *g, spec_state *st, plumb_error *err)
{
	size_t cap = 0;
	for (size_t k = g->nspec; k-- > 0;) {
		spec_state *s = &st[k];
		if (!s->has_right)
			continue;
		s->right_first = g->nright;
		for (size_t i = 0; i < g->nsym; i++)
			if (matches(&s->right, &g->sym[i]) &&
			    extend(&g->right, &g->nright, &cap, &s->right_run, &s->right_entry, i, &g->sym[i], err))
				return -1;
		s->right_count = g->nright - s->right_first;
	}
	return 0;
}

static int collect_lefts(plumb_gprof *g, spec_state *st, plumb_error *err)
{
	size_t cap[PLUMB_GP_NTABLES] = { 0 };
	for (size_t i = 0; i < g->nsym; i++) {
		/* gprof keeps its specs newest first */
		for (size_t k = g->nspec; k-- > 0;) {
			spec_state *s = &st[k];
			if (!matches(&s->left, &g->sym[i]))
				continue;
			gp_spec_tab *t = &g->tab[g->spec[k].table];
			size_t before = t->n;
			if (extend(&t->r, &t->n, &cap[g->spec[k].table], &s->left_run, &s->left_entry, i,
				   &g->sym[i], err))
				return -1;
			if (s->has_right && t->n > before) {
				const char **nl = realloc(s->lefts, (s->nlefts + 1) * sizeof *nl);
				if (!nl)
					return plumb_fail_nomem(err);
				s->lefts = nl;
				nl[s->nlefts++] = g->sym[i].s.name;
			}
			t->r[s->left_entry].first_right = (uint32_t)s->right_first;
			t->r[s->left_entry].nright = (uint32_t)s->right_count;
		}
	}
	return 0;
}

static int add_pseudo(plumb_gprof *g, const char *name, uint32_t *id)
{
	const char **n = realloc(g->pseudo, (g->npseudo + 1) * sizeof *n);
	if (!n)
		return -1;
	g->pseudo = n;
	n[g->npseudo] = name;
	*id = (uint32_t)g->npseudo++;
	return 0;
}

/* The count-0 arcs gprof adds between every left and right range of a
 * from/to spec: newest spec first, newest range first on each side. */
static int pseudo_arcs(plumb_gprof *g, spec_state *st, plumb_error *err)
{
	for (size_t k = g->nspec; k-- > 0;) {
		spec_state *s = &st[k];
		if (!s->has_right || !s->nlefts || !s->right_count)
			continue;
		uint32_t base = (uint32_t)g->npseudo, id;
		for (size_t r = s->right_count; r-- > 0;)
			if (add_pseudo(g, g->right[s->right_first + r].name, &id))
				return plumb_fail_nomem(err);
		for (size_t l = s->nlefts; l-- > 0;) {
			uint32_t left;
			if (add_pseudo(g, s->lefts[l], &left))
				return plumb_fail_nomem(err);
			for (size_t r = 0; r < s->right_count; r++) {
				uint32_t (*n)[2] = realloc(g->pseudo_arc, (g->npseudo_arc + 1) * sizeof *n);
				if (!n)
					return plumb_fail_nomem(err);
				g->pseudo_arc = n;
				n[g->npseudo_arc][0] = left;
				n[g->npseudo_arc++][1] = base + (uint32_t)r;
			}
		}
	}
	return 0;
}

int gp_specs_resolve(plumb_gprof *g, plumb_error *err)
{
	if (g->nspec == 0)
		return 0;
	spec_state *st = calloc(g->nspec, sizeof *st);
	g->creation = malloc((g->nsym ? g->nsym : 1) * sizeof *g->creation);
	if (!st || !g->creation) {
		free(st);
		return plumb_fail_nomem(err);
	}
	for (uint32_t i = 0; i < g->nsym; i++)
		g->creation[i] = i;
	gp_stable_sort(g->creation, g->nsym, gp_cmp_creation, g);
	int rc = parse_all(g, st, err);
	if (!rc)
		rc = collect_rights(g, st, err);
	if (!rc)
		rc = collect_lefts(g, st, err);
	if (!rc)
		rc = pseudo_arcs(g, st, err);
	for (size_t k = 0; k < g->nspec; k++) {
		free(st[k].buf);
		free(st[k].lefts);
	}
	free(st);
	for (int t = 0; !rc && t < PLUMB_GP_NTABLES; t++)
		finalize(&g->tab[t]);
	return rc;
}

/* gprof's binary search, kept with its exact probing so that overlapping
 * ranges from different specs resolve the same way. */
const gp_range *gp_tab_lookup(const gp_spec_tab *t, uint64_t addr)
{
	if (t->n == 0)
		return NULL;
	const gp_range *r = t->r;
	long low = 0, high = (long)t->n - 1, mid = -1;
	while (low != high) {
		mid = (low + high) / 2;
		if (r[mid].addr <= addr && r[mid + 1].addr > addr)
			return addr > r[mid].end_addr ? NULL : &r[mid];
		if (r[mid].addr > addr)
			high = mid;
		else
			low = mid + 1;
	}
	if (r[mid + 1].addr <= addr)
		return addr > r[mid + 1].end_addr ? NULL : &r[mid + 1];
	return NULL;
}

bool gp_selected(const plumb_gprof *g, plumb_gprof_table incl, uint64_t addr)
{
	const gp_spec_tab *in = &g->tab[incl], *ex = &g->tab[incl + 1];
	return gp_tab_lookup(in, addr) || (in->n == 0 && !gp_tab_lookup(ex, addr));
}

/* Whether some range of table t holds the parent and has a right half
 * covering the child. */
static bool arc_in(const plumb_gprof *g, const gp_spec_tab *t, const gp_sym *parent,
		   const gp_sym *child)
{
	for (size_t i = 0; i < t->n; i++) {
		const gp_range *r = &t->r[i];
		if (parent->s.addr < r->addr || parent->s.addr > r->end_addr)
			continue;
		for (uint32_t k = 0; k < r->nright; k++) {
			const gp_range *c = &g->right[r->first_right + k];
			if (child->s.addr >= c->addr && child->s.end_addr <= c->end_addr)
				return true;
		}
	}
	return false;
}

bool gp_arc_wanted(const plumb_gprof *g, const gp_sym *parent, const gp_sym *child)
{
	const gp_spec_tab *in = &g->tab[PLUMB_GP_INCL_ARCS], *ex = &g->tab[PLUMB_GP_EXCL_ARCS];
	return arc_in(g, in, parent, child) || (in->n == 0 && !arc_in(g, ex, parent, child));
}
