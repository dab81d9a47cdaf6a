/* tree (top-down) and bottom-up (inverted) views. The CCT is merged at the
 * function level (two frames of one function under one parent become one
 * node) and printed indented, heaviest child first. In a tree every node is
 * one path, so inclusive is simply the sum of its subtree: recursion shows
 * as nesting, never as double counting. */
#include <stdlib.h>
#include <string.h>

#include "analysis/view_internal.h"
#include "model/index.h"

typedef struct tnode {
	plumb_id fn, parent;
	uint64_t calls;       /* PLUMB_COUNT_UNKNOWN if not known */
} tnode;

typedef struct tree {
	const plumb_profile *p;
	size_t nev;
	PLUMB_VEC(tnode) nodes;
	PLUMB_VEC(uint64_t) self, incl;
	plumb_index ix;
} tree;

typedef struct tkey {
	plumb_id parent, fn;
} tkey;

static bool tkey_eq(const void *ctx, uint32_t id, const void *key)
{
	const tree *t = ctx;
	const tkey *k = key;
	return t->nodes.v[id].parent == k->parent && t->nodes.v[id].fn == k->fn;
}

static int grow(tree *t)
{
	return plumb_costs_grow(t->self, t->nev) || plumb_costs_grow(t->incl, t->nev) ? -1 : 0;
}

static plumb_id tree_child(tree *t, plumb_id parent, plumb_id fn)
{
	tkey k = { parent, fn };
	uint32_t h = (uint32_t)plumb_hash_mix(parent, fn);
	plumb_id id = plumb_index_find(&t->ix, h, tkey_eq, t, &k);
	if (id != PLUMB_NONE)
		return id;
	id = (plumb_id)t->nodes.n;
	tnode n = { fn, parent, 0 };
	if (plumb_vec_push(t->nodes, n) || grow(t) || plumb_index_insert(&t->ix, h, id))
		return PLUMB_NONE;
	return id;
}

static void tree_free(tree *t)
{
	free(t->nodes.v);
	free(t->self.v);
	free(t->incl.v);
	plumb_index_free(&t->ix);
}

static int tree_init(tree *t, const plumb_profile *p)
{
	memset(t, 0, sizeof *t);
	t->p = p;
	t->nev = p->events.n;
	tnode root = { PLUMB_NONE, PLUMB_NONE, PLUMB_COUNT_UNKNOWN };
	return plumb_vec_push(t->nodes, root) || grow(t) ? -1 : 0;
}

static plumb_id fn_of(const plumb_profile *p, plumb_id cct)
{
	return p->functions.n ? p->frames.v[p->cct.v[cct].frame].function : PLUMB_NONE;
}

/* Top-down: every kept CCT node onto its merged node. */
static int build_top_down(tree *t, const uint8_t *pass, const uint8_t *keep, plumb_error *err)
{
	const plumb_profile *p = t->p;
	plumb_id *map = malloc((p->cct.n ? p->cct.n : 1) * sizeof *map);
	if (!map)
		return plumb_fail_nomem(err);
	int rc = 0;
	for (size_t i = 0; i < p->cct.n && rc == 0; i++) {
		const plumb_cct_node *c = &p->cct.v[i];
		if (c->parent == PLUMB_NONE) {
			map[i] = 0;
			continue;
		}
		if (!keep[i])
			continue;
		plumb_id n = tree_child(t, map[c->parent], fn_of(p, (plumb_id)i));
		if (n == PLUMB_NONE) {
			rc = plumb_fail_nomem(err);
			break;
		}
		map[i] = n;
		uint64_t *calls = &t->nodes.v[n].calls;
		uint64_t act = plumb_cct_activations(p, (plumb_id)i);
		if (act == PLUMB_COUNT_UNKNOWN)
			*calls = PLUMB_COUNT_UNKNOWN;
		else if (*calls != PLUMB_COUNT_UNKNOWN)
			*calls = *calls > UINT64_MAX - 1 - act ? PLUMB_COUNT_UNKNOWN : *calls + act;
		if (pass[i])
			rc = plumb_costs_add(t->self.v + (size_t)n * t->nev, plumb_cct_self(p, (plumb_id)i),
					     t->nev, err);
	}
	free(map);
	if (rc)
		return -1;
	memcpy(t->incl.v, t->self.v, t->self.n * sizeof(uint64_t));
	/* Children come after their parents: one backward pass sums subtrees. */
	for (size_t n = t->nodes.n; n-- > 1;)
		if (plumb_costs_add(t->incl.v + (size_t)t->nodes.v[n].parent * t->nev,
				    t->incl.v + n * t->nev, t->nev, err))
			return -1;
	return 0;
}

/* Bottom-up: each stack, leaf first, onto an inverted tree. */
static int build_bottom_up(tree *t, const uint8_t *pass, plumb_error *err)
{
	const plumb_profile *p = t->p;
	for (size_t i = 0; i < p->cct.n; i++) {
		const uint64_t *m = plumb_cct_self(p, (plumb_id)i);
		if (!pass[i] || p->cct.v[i].parent == PLUMB_NONE)
			continue;
		bool zero = true;
		for (size_t e = 0; e < t->nev; e++)
			zero &= m[e] == 0;
		if (zero)
			continue;
		if (plumb_costs_add(t->incl.v, m, t->nev, err))
			return -1;
		plumb_id cur = 0;
		for (plumb_id x = (plumb_id)i; p->cct.v[x].parent != PLUMB_NONE; x = p->cct.v[x].parent) {
			cur = tree_child(t, cur, fn_of(p, x));
			if (cur == PLUMB_NONE)
				return plumb_fail_nomem(err);
			t->nodes.v[cur].calls = PLUMB_COUNT_UNKNOWN;
			if (plumb_costs_add(t->incl.v + (size_t)cur * t->nev, m, t->nev, err))
				return -1;
		}
	}
	return 0;
}

/* ---- rows ---------------------------------------------------------------- */

typedef struct emit {
	tree *t;
	const view_events *ve;
	const plumb_view_opts *o;
	plumb_table *tab;
	bool bottom_up;
	int col_calls, col_name, col_file, col_module;
	uint32_t *first_child, *next_sibling;
	uint8_t *sel, *hide;   /* per function: --select / --hide match (NULL: none) */
} emit;

/* Siblings in --sort order; by default heaviest inclusive first. */
static int child_cmp(const void *va, const void *vb, void *ctx)
{
	const emit *em = ctx;
	const tree *t = em->t;
	uint32_t a = *(const uint32_t *)va, b = *(const uint32_t *)vb;
	size_t ia = (size_t)a * t->nev + em->ve->primary, ib = (size_t)b * t->nev + em->ve->primary;
	plumb_id fa = t->nodes.v[a].fn, fb = t->nodes.v[b].fn;
	int r = 0;
	switch (em->o->sort) {
	case PLUMB_SORT_EXCLUSIVE:
		r = em->bottom_up ? 0 : view_cmp_desc(t->self.v[ia], t->self.v[ib]);
		break;
	case PLUMB_SORT_CALLS:
		r = view_cmp_calls(t->nodes.v[a].calls, t->nodes.v[b].calls);
		break;
	case PLUMB_SORT_NAME:
		r = view_cmp_str(plumb_function_name(t->p, fa), plumb_function_name(t->p, fb));
		break;
	case PLUMB_SORT_FILE:
		r = view_cmp_str(plumb_function_file(t->p, fa), plumb_function_file(t->p, fb));
		break;
	case PLUMB_SORT_MODULE:
		r = view_cmp_str(plumb_function_module(t->p, fa), plumb_function_module(t->p, fb));
		break;
	case PLUMB_SORT_DEFAULT:
	case PLUMB_SORT_INCLUSIVE:
	case PLUMB_SORT_GROWTH: /* the inputs view's only */
		break;
	}
	if (!r)
		r = view_cmp_desc(t->incl.v[ia], t->incl.v[ib]);
	if (!r)
		r = view_cmp_str(plumb_function_name(t->p, fa), plumb_function_name(t->p, fb));
	return r ? r : (a < b ? -1 : a > b);
}

/* Children lists, each sorted heaviest first. */
static int link_children(emit *em)
{
	tree *t = em->t;
	size_t n = t->nodes.n;
	uint32_t *count = calloc(n + 1, sizeof *count), *order = malloc(n * sizeof *order);
	em->first_child = malloc(n * sizeof(uint32_t));
	em->next_sibling = malloc(n * sizeof(uint32_t));
	if (!count || !order || !em->first_child || !em->next_sibling) {
		free(count);
		free(order);
		return -1;
	}
	for (size_t i = 1; i < n; i++)
		count[t->nodes.v[i].parent + 1]++;
	for (size_t i = 0; i < n; i++)
		count[i + 1] += count[i];
	uint32_t *fill = calloc(n, sizeof *fill);
	if (!fill) {
		free(count);
		free(order);
		return -1;
	}
	for (size_t i = 1; i < n; i++) {
		uint32_t par = t->nodes.v[i].parent;
		order[count[par] + fill[par]++] = (uint32_t)i;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t *kids = order + count[i];
		size_t nk = count[i + 1] - count[i];
		qsort_r(kids, nk, sizeof *kids, child_cmp, em);
		em->first_child[i] = nk ? kids[0] : PLUMB_NONE;
		for (size_t j = 0; j < nk; j++)
			em->next_sibling[kids[j]] = j + 1 < nk ? kids[j + 1] : PLUMB_NONE;
	}
	free(fill);
	free(count);
	free(order);
	return 0;
}

static int add_columns(emit *em, const plumb_profile *p)
{
	for (size_t i = 0; i < em->ve->n; i++) {
		int e = em->ve->ev[i];
		if (em->bottom_up) {
			if (view_add_event_column(em->tab, p, "percent", "%", PLUMB_CELL_PCT, e) < 0 ||
			    view_add_event_column(em->tab, p, "exclusive", "Excl.", PLUMB_CELL_U64, e) < 0)
				return -1;
		} else if (view_add_event_column(em->tab, p, "percent", "Incl. %", PLUMB_CELL_PCT, e) < 0 ||
			   view_add_event_column(em->tab, p, "inclusive", "Incl.", PLUMB_CELL_U64, e) < 0 ||
			   view_add_event_column(em->tab, p, "exclusive", "Excl.", PLUMB_CELL_U64, e) < 0) {
			return -1;
		}
	}
	em->col_calls = em->bottom_up ? -1
				      : plumb_table_add_column(em->tab, "calls", "Calls", PLUMB_CELL_U64, -1, false);
	em->col_name = plumb_table_add_column(em->tab, "function", "Function", PLUMB_CELL_STR, -1, true);
	em->col_file = plumb_table_add_column(em->tab, "file", "File", PLUMB_CELL_STR, -1, false);
	em->col_module = plumb_table_add_column(em->tab, "module", "Load module", PLUMB_CELL_STR, -1, false);
	return em->col_name < 0 || em->col_file < 0 || em->col_module < 0 ? -1 : 0;
}

static int add_row(emit *em, uint32_t n, uint32_t depth)
{
	tree *t = em->t;
	plumb_row *r = plumb_table_add_row(em->tab, PLUMB_ROW_NORMAL, depth);
	if (!r)
		return -1;
	size_t c = 0;
	const uint64_t *incl = t->incl.v + (size_t)n * t->nev, *self = t->self.v + (size_t)n * t->nev;
	for (size_t i = 0; i < em->ve->n; i++) {
		int e = em->ve->ev[i];
		plumb_cell_pct(&r->cells[c++], view_pct(incl[e], t->incl.v[e]));
		plumb_cell_u64(&r->cells[c++], incl[e]);
		if (!em->bottom_up)
			plumb_cell_u64(&r->cells[c++], self[e]);
	}
	const tnode *tn = &t->nodes.v[n];
	if (em->col_calls >= 0 && tn->calls != PLUMB_COUNT_UNKNOWN)
		plumb_cell_u64(&r->cells[em->col_calls], tn->calls);
	plumb_cell_str(&r->cells[em->col_name], plumb_function_name(t->p, tn->fn));
	plumb_cell_str(&r->cells[em->col_file], plumb_function_file(t->p, tn->fn));
	plumb_cell_str(&r->cells[em->col_module], plumb_function_module(t->p, tn->fn));
	return 0;
}

static bool shown(emit *em, uint32_t n)
{
	const tree *t = em->t;
	uint64_t v = t->incl.v[(size_t)n * t->nev + em->ve->primary];
	if (v == 0)
		return false;
	return em->o->threshold <= 0 ||
	       view_pct(v, t->incl.v[em->ve->primary]) >= em->o->threshold;
}

/* Room for need entries in the two parallel stack arrays. */
static int stack_reserve(uint32_t **stack, uint32_t **depth, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap;
	while (n < need)
		n *= 2;
	uint32_t *s2 = realloc(*stack, n * sizeof *s2);
	if (!s2)
		return -1;
	*stack = s2;
	uint32_t *d2 = realloc(*depth, n * sizeof *d2);
	if (!d2)
		return -1;
	*depth = d2;
	*cap = n;
	return 0;
}

/* Depth-first with an explicit stack: deep recursion must not overflow ours. */
static int emit_rows(emit *em)
{
	tree *t = em->t;
	size_t cap = 64, top = 0;
	uint32_t *stack = malloc(cap * sizeof *stack), *depth = malloc(cap * sizeof *depth);
	/* depth's top bit says the node is inside a --select match. */
	const uint32_t INSIDE = 0x80000000u;
	if (!stack || !depth)
		goto nomem;
	for (uint32_t c = em->first_child[0]; c != PLUMB_NONE; c = em->next_sibling[c])
		top++;
	if (stack_reserve(&stack, &depth, &cap, top))
		goto nomem;
	/* Push the roots in reverse so the heaviest pops first. */
	size_t i = top;
	for (uint32_t c = em->first_child[0]; c != PLUMB_NONE; c = em->next_sibling[c]) {
		stack[--i] = c;
		depth[i] = em->sel ? 0 : INSIDE;
	}
	size_t rows = 0;
	plumb_view_left_out *lo = em->o->left_out;
	while (top) {
		uint32_t n = stack[--top], d = depth[top] & ~INSIDE;
		bool inside = depth[top] & INSIDE;
		plumb_id fn = t->nodes.v[n].fn;
		bool hidden = em->hide && fn != PLUMB_NONE && em->hide[fn];
		if (!shown(em, n) || hidden) {
			/* A subtree cut here: its inclusive cost is what goes unseen. */
			uint64_t v = t->incl.v[(size_t)n * t->nev + em->ve->primary];
			if (lo && inside && v && hidden) {
				lo->hidden++;
				lo->hidden_cost += v;
			} else if (lo && inside && v) {
				lo->under_threshold++;
				lo->under_threshold_cost += v;
			}
			continue;
		}
		/* In bottom-up, --select picks the leaf functions (the roots). */
		if (!inside && fn != PLUMB_NONE && em->sel[fn] &&
		    (!em->bottom_up || t->nodes.v[n].parent == 0)) {
			inside = true;
			d = 0;
		}
		if (inside) {
			if (em->o->limit && rows >= em->o->limit) {
				/* This subtree and those still stacked are past the limit. */
				for (size_t k = 0; lo && k <= top; k++) {
					uint32_t m = k == top ? n : stack[k];
					plumb_id mf = t->nodes.v[m].fn;
					bool cut = em->hide && mf != PLUMB_NONE && em->hide[mf];
					if ((k == top || (depth[k] & INSIDE)) && shown(em, m) && !cut) {
						lo->past_limit++;
						lo->past_limit_cost += t->incl.v[(size_t)m * t->nev + em->ve->primary];
					}
				}
				break;
			}
			if (add_row(em, n, d))
				goto nomem;
			rows++;
		}
		uint32_t child_depth = inside ? (d + 1) | INSIDE : 0;
		size_t nk = 0;
		for (uint32_t c = em->first_child[n]; c != PLUMB_NONE; c = em->next_sibling[c])
			nk++;
		if (stack_reserve(&stack, &depth, &cap, top + nk))
			goto nomem;
		size_t j = top + nk;
		for (uint32_t c = em->first_child[n]; c != PLUMB_NONE; c = em->next_sibling[c]) {
			stack[--j] = c;
			depth[j] = child_depth;
		}
		top += nk;
	}
	free(stack);
	free(depth);
	return 0;
nomem:
	free(stack);
	free(depth);
	return -1;
}

static uint8_t *match_functions(const plumb_profile *p, const plumb_symspec_list *l)
{
	uint8_t *v = malloc(p->functions.n ? p->functions.n : 1);
	for (size_t f = 0; v && f < p->functions.n; f++)
		v[f] = plumb_symspec_list_match_function(l, p, (plumb_id)f);
	return v;
}

/* Has the profile any call stack (a CCT node below a part's root)? */
static bool has_stacks(const plumb_profile *p)
{
	for (size_t i = 0; i < p->cct.n; i++)
		if (p->cct.v[i].parent != PLUMB_NONE)
			return true;
	return false;
}

int view_tree(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err)
{
	view_events ve;
	if (view_events_of(p, o, &ve, err))
		return -1;
	bool bottom_up = o->kind == PLUMB_VIEW_BOTTOM_UP;
	if ((p->cg_self.n || p->arcs.n) && !has_stacks(p))
		return view_cg_tree(p, o, out, err);
	if (o->left_out) {
		memset(o->left_out, 0, sizeof *o->left_out);
		o->left_out->event = ve.primary;
	}
	uint8_t *pass = NULL, *keep = NULL;
	tree t;
	emit em = { &t, &ve, o, NULL, bottom_up, -1, -1, -1, -1, NULL, NULL, NULL, NULL };
	if (tree_init(&t, p))
		return plumb_fail_nomem(err);
	if (plumb_cct_select(p, o->part, o->focus, &pass, &keep)) {
		plumb_fail_nomem(err);
		goto fail;
	}
	if (bottom_up ? build_bottom_up(&t, pass, err) : build_top_down(&t, pass, keep, err))
		goto fail;
	if ((o->select && o->select->n && !(em.sel = match_functions(p, o->select))) ||
	    (o->hide && o->hide->n && !(em.hide = match_functions(p, o->hide)))) {
		plumb_fail_nomem(err);
		goto fail;
	}
	em.tab = plumb_table_new(plumb_view_name(o->kind),
				 bottom_up ? "Bottom-up: functions by exclusive cost, callers below"
					   : "Call tree: top-down, callees below their callers");
	if (!em.tab || add_columns(&em, p) || link_children(&em) || emit_rows(&em)) {
		plumb_fail_nomem(err);
		goto fail;
	}
	free(em.first_child);
	free(em.next_sibling);
	free(em.sel);
	free(em.hide);
	free(pass);
	free(keep);
	tree_free(&t);
	*out = em.tab;
	return 0;
fail:
	plumb_table_free(em.tab);
	free(em.first_child);
	free(em.next_sibling);
	free(em.sel);
	free(em.hide);
	free(pass);
	free(keep);
	tree_free(&t);
	return -1;
}
