/* Exclusive, inclusive and attributed metrics (the rules are in analysis.h
 * and DESIGN.md). A level maps each frame to a key; the CCT is then walked
 * once per node that has self cost, from the leaf up, so that the first
 * time a key is met is its innermost occurrence on that stack. Call graphs
 * (no stacks) are gathered in metrics_cg.c. */
#include <stdlib.h>
#include <string.h>

#include "model/index.h"
#include "analysis/metrics_internal.h"

static bool key_eq(const void *ctx, uint32_t id, const void *key)
{
	const builder *b = ctx;
	return memcmp(&b->keys.v[id], key, sizeof(plumb_key)) == 0;
}

static uint32_t key_hash(const plumb_key *k)
{
	return (uint32_t)plumb_hash_mix(plumb_hash_mix(plumb_hash_mix(k->function, k->file),
						       k->module), k->line);
}


uint32_t metrics_key_find(builder *b, const plumb_key *k)
{
	return plumb_index_find(&b->key_ix, key_hash(k), key_eq, b, k);
}

uint32_t metrics_key_intern(builder *b, const plumb_key *k)
{
	uint32_t h = key_hash(k);
	uint32_t id = plumb_index_find(&b->key_ix, h, key_eq, b, k);
	if (id != PLUMB_NONE)
		return id;
	id = (uint32_t)b->keys.n;
	if (plumb_vec_push(b->keys, *k) || GROW(b, b->excl) || GROW(b, b->incl) ||
	    (!b->keys_only && GROW(b, b->root)) || plumb_vec_push(b->calls, 0) ||
	    plumb_vec_push(b->calls_known, 1) || plumb_index_insert(&b->key_ix, h, id))
		return PLUMB_NONE;
	return id;
}

static plumb_key frame_to_key(const plumb_profile *p, plumb_level level, plumb_id frame)
{
	const plumb_frame *fr = &p->frames.v[frame];
	const plumb_function *fn = &p->functions.v[fr->function];
	plumb_key k = { PLUMB_NONE, PLUMB_NONE, PLUMB_NONE, 0 };
	switch (level) {
	case PLUMB_LEVEL_FUNCTION:
		k.function = fr->function;
		k.file = fn->file;
		k.module = fn->module;
		break;
	case PLUMB_LEVEL_LINE:
		k.function = fr->function;
		k.file = fr->file != PLUMB_NONE ? fr->file : fn->file;
		k.module = fn->module;
		k.line = fr->line;
		break;
	case PLUMB_LEVEL_FILE:
		k.file = fr->file != PLUMB_NONE ? fr->file : fn->file;
		k.module = fn->module;
		break;
	case PLUMB_LEVEL_MODULE:
		k.module = fn->module;
		break;
	}
	return k;
}

typedef struct arc_key {
	uint32_t caller, callee;
} arc_key;

static bool arc_eq(const void *ctx, uint32_t id, const void *key)
{
	const builder *b = ctx;
	const arc_key *k = key;
	return b->arcs.v[id].caller == k->caller && b->arcs.v[id].callee == k->callee;
}

/* The arc caller -> callee, created with a zero count if absent. */
uint32_t metrics_arc_get(builder *b, uint32_t caller, uint32_t callee)
{
	arc_key k = { caller, callee };
	uint32_t h = (uint32_t)plumb_hash_mix(caller, callee);
	uint32_t id = plumb_index_find(&b->arc_ix, h, arc_eq, b, &k);
	if (id != PLUMB_NONE)
		return id;
	id = (uint32_t)b->arcs.n;
	plumb_metric_arc a = { caller, callee, 0 };
	/* keys only: a call graph's arcs for its inclusive costs, not attributed */
	if (plumb_vec_push(b->arcs, a) ||
	    (!b->keys_only && (GROW(b, b->callee_attr) || GROW(b, b->caller_attr))) ||
	    GROW(b, b->cg_cost) || plumb_vec_push(b->arc_cg, 0) ||
	    plumb_index_insert(&b->arc_ix, h, id))
		return PLUMB_NONE;
	return id;
}

/* The hottest loop of a stack walk, inlined there: added here,
 * plumb_costs_add only to report an overflow. */
static inline int add_costs(builder *b, uint64_t *vec, uint32_t idx, const uint64_t *m,
			    plumb_error *err)
{
	uint64_t *d = vec + (size_t)idx * b->nev;
	if (b->nev == 1) { /* most profiles: one or two events */
		if (d[0] > UINT64_MAX - m[0])
			return plumb_costs_add(d, m, 1, err);
		d[0] += m[0];
		return 0;
	}
	if (b->nev == 2) {
		if (d[0] > UINT64_MAX - m[0] || d[1] > UINT64_MAX - m[1])
			return plumb_costs_add(d, m, 2, err);
		d[0] += m[0];
		d[1] += m[1];
		return 0;
	}
	for (size_t i = 0; i < b->nev; i++)
		if (d[i] > UINT64_MAX - m[i])
			return plumb_costs_add(d, m, b->nev, err);
	for (size_t i = 0; i < b->nev; i++)
		d[i] += m[i];
	return 0;
}

int metrics_add(builder *b, uint64_t *vec, uint32_t idx, const uint64_t *m, plumb_error *err)
{
	return add_costs(b, vec, idx, m, err);
}

static bool all_zero(const uint64_t *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (m[i])
			return false;
	return true;
}

/* Which CCT nodes take part: those of the chosen part, and with --focus
 * those on a stack through a matching frame. pass[n]: the stack ending at n
 * goes through a match; keep[n]: n lies on some passing stack. */
int plumb_cct_select(const plumb_profile *p, plumb_id part, const plumb_symspec_list *focus,
		     uint8_t **pass_out, uint8_t **keep_out)
{
	size_t n = p->cct.n;
	uint8_t *pass = malloc(n ? n : 1), *keep = malloc(n ? n : 1);
	uint8_t *fmatch = NULL;
	if (!pass || !keep)
		goto nomem;
	if (focus && focus->n) {
		fmatch = malloc(p->frames.n ? p->frames.n : 1);
		if (!fmatch)
			goto nomem;
		for (size_t f = 0; f < p->frames.n; f++)
			fmatch[f] = plumb_symspec_list_match_frame(focus, p, (plumb_id)f);
	}
	if (!fmatch && part == PLUMB_NONE) {
		/* every node of every part: no walk over millions of nodes */
		memset(pass, 1, n);
		memset(keep, 1, n);
	}
	for (size_t i = 0; i < n && (fmatch || part != PLUMB_NONE); i++) {
		const plumb_cct_node *c = &p->cct.v[i];
		bool in_part = part == PLUMB_NONE || c->part == part;
		if (c->parent == PLUMB_NONE)
			pass[i] = in_part && !fmatch;
		else
			pass[i] = in_part && (pass[c->parent] || (fmatch && fmatch[c->frame]));
		keep[i] = pass[i];
	}
	for (size_t i = n; i-- > 0 && (fmatch || part != PLUMB_NONE);)
		if (keep[i] && p->cct.v[i].parent != PLUMB_NONE)
			keep[p->cct.v[i].parent] = 1;
	free(fmatch);
	if (pass_out)
		*pass_out = pass;
	else
		free(pass);
	if (keep_out)
		*keep_out = keep;
	else
		free(keep);
	return 0;
nomem:
	free(pass);
	free(keep);
	free(fmatch);
	return -1;
}

/* Calls and the arcs of every kept parent -> child edge. */
static int cct_edges(builder *b, const uint8_t *keep, plumb_error *err)
{
	const plumb_profile *p = b->p;
	for (size_t i = 0; i < p->cct.n; i++) {
		const plumb_cct_node *c = &p->cct.v[i];
		if (!keep[i] || c->parent == PLUMB_NONE)
			continue;
		uint32_t k = b->frame_key[c->frame];
		uint64_t act = plumb_cct_activations(p, (plumb_id)i);
		bool known = act != PLUMB_COUNT_UNKNOWN;
		if (!known)
			b->calls_known.v[k] = 0;
		else if (b->calls.v[k] > UINT64_MAX - 1 - act)
			return plumb_fail(err, PLUMB_ERR_OVERFLOW, "call count overflow");
		else
			b->calls.v[k] += act;
		if (b->keys_only) /* before the parent is read: a cache miss a node */
			continue;
		const plumb_cct_node *parent = &p->cct.v[c->parent];
		if (parent->parent == PLUMB_NONE)
			continue;
		uint32_t a = metrics_arc_get(b, b->frame_key[parent->frame], k);
		if (a == PLUMB_NONE)
			return plumb_fail_nomem(err);
		b->node_arc[i] = a;
		if (!metrics_count_add(&b->arcs.v[a].calls, act))
			return plumb_fail(err, PLUMB_ERR_OVERFLOW, "call count overflow");
	}
	return 0;
}

/* One stack: the path from node n up to its part's root, weight m. The arc
 * of each edge was found once per node (node_arc), so the walk does no
 * hashing: the caller arc of x is node_arc[x], the callee arc of x is the
 * arc of the node below it on the path. */
static int walk_stack(builder *b, plumb_id n, const uint64_t *m, uint32_t stamp, plumb_error *err)
{
	const plumb_profile *p = b->p;
	if (add_costs(b, b->excl.v, b->frame_key[p->cct.v[n].frame], m, err))
		return -1;
	uint32_t below_arc = PLUMB_NONE; /* arc x -> f(i+1) */
	for (plumb_id x = n; p->cct.v[x].parent != PLUMB_NONE; x = p->cct.v[x].parent) {
		uint32_t k = b->frame_key[p->cct.v[x].frame];
		bool first = b->seen[k] != stamp;
		if (first) {
			b->seen[k] = stamp;
			if (add_costs(b, b->incl.v, k, m, err))
				return -1;
		}
		if (b->keys_only) /* no arcs: node_arc is not even made */
			continue;
		uint32_t up_arc = b->node_arc[x];
		if (first) {
			if (below_arc != PLUMB_NONE && add_costs(b, b->callee_attr.v, below_arc, m, err))
				return -1;
			if (up_arc == PLUMB_NONE) {
				if (add_costs(b, b->root.v, k, m, err))
					return -1;
			} else if (add_costs(b, b->caller_attr.v, up_arc, m, err)) {
				return -1;
			}
		}
		below_arc = up_arc;
	}
	return 0;
}

static int from_cct(builder *b, const plumb_metrics_opts *o, plumb_error *err)
{
	const plumb_profile *p = b->p;
	uint8_t *pass, *keep;
	if (plumb_cct_select(p, o->part, o->focus, &pass, &keep))
		return plumb_fail_nomem(err);
	if (!b->keys_only) { /* keys only: no arcs, none to find per node */
		b->node_arc = malloc((p->cct.n ? p->cct.n : 1) * sizeof *b->node_arc);
		if (!b->node_arc) {
			free(pass);
			free(keep);
			return plumb_fail_nomem(err);
		}
		memset(b->node_arc, 0xff, p->cct.n * sizeof *b->node_arc);
	}
	int rc = cct_edges(b, keep, err);
	uint32_t stamp = 0;
	for (size_t i = 0; rc == 0 && i < p->cct.n; i++) {
		const uint64_t *m = plumb_cct_self(p, (plumb_id)i);
		if (!pass[i] || p->cct.v[i].parent == PLUMB_NONE || all_zero(m, b->nev))
			continue;
		if (++stamp == 0) { /* wrapped: forget every mark */
			memset(b->seen, 0, b->keys.n * sizeof *b->seen);
			stamp = 1;
		}
		rc = walk_stack(b, (plumb_id)i, m, stamp, err);
		if (rc == 0 && plumb_costs_add(b->m->totals, m, b->nev, err))
			rc = -1;
	}
	free(pass);
	free(keep);
	return rc;
}

/* Group arcs by caller and by callee (counting sort into index arrays). */
static int index_arcs(plumb_metrics *m)
{
	size_t nk = m->nkeys, na = m->narcs;
	m->out_start = calloc(nk + 1, sizeof(uint32_t));
	m->in_start = calloc(nk + 1, sizeof(uint32_t));
	m->out_arcs = malloc((na ? na : 1) * sizeof(uint32_t));
	m->in_arcs = malloc((na ? na : 1) * sizeof(uint32_t));
	if (!m->out_start || !m->in_start || !m->out_arcs || !m->in_arcs)
		return -1;
	for (size_t a = 0; a < na; a++) {
		m->out_start[m->arcs[a].caller + 1]++;
		m->in_start[m->arcs[a].callee + 1]++;
	}
	for (size_t k = 0; k < nk; k++) {
		m->out_start[k + 1] += m->out_start[k];
		m->in_start[k + 1] += m->in_start[k];
	}
	uint32_t *ofill = calloc(nk + 1, sizeof(uint32_t)), *ifill = calloc(nk + 1, sizeof(uint32_t));
	if (!ofill || !ifill) {
		free(ofill);
		free(ifill);
		return -1;
	}
	for (size_t a = 0; a < na; a++) {
		uint32_t c = m->arcs[a].caller, e = m->arcs[a].callee;
		m->out_arcs[m->out_start[c] + ofill[c]++] = (uint32_t)a;
		m->in_arcs[m->in_start[e] + ifill[e]++] = (uint32_t)a;
	}
	free(ofill);
	free(ifill);
	return 0;
}

void plumb_metrics_opts_init(plumb_metrics_opts *o)
{
	memset(o, 0, sizeof *o);
	o->level = PLUMB_LEVEL_FUNCTION;
	o->part = PLUMB_NONE;
}

static void builder_free(builder *b)
{
	free(b->keys.v);
	free(b->excl.v);
	free(b->incl.v);
	free(b->root.v);
	free(b->calls.v);
	free(b->calls_known.v);
	free(b->arcs.v);
	free(b->callee_attr.v);
	free(b->caller_attr.v);
	free(b->cg_cost.v);
	free(b->arc_cg.v);
	plumb_index_free(&b->key_ix);
	plumb_index_free(&b->arc_ix);
	free(b->frame_key);
	free(b->fn_key);
	free(b->seen);
	free(b->node_arc);
	free(b->arc_to);
}

/* frame_key for every frame. At the function and module levels a frame's
 * key depends on its function alone, so it is looked up once per function
 * (a Callgrind file has millions of frames and a few hundred thousand
 * functions). */
static int frame_keys(builder *b, plumb_level level)
{
	const plumb_profile *p = b->p;
	bool by_function = level == PLUMB_LEVEL_FUNCTION || level == PLUMB_LEVEL_MODULE;
	uint32_t *fn_key = NULL;
	if (by_function) {
		fn_key = malloc((p->functions.n ? p->functions.n : 1) * sizeof *fn_key);
		if (!fn_key)
			return -1;
		memset(fn_key, 0xff, p->functions.n * sizeof *fn_key);
	}
	for (size_t f = 0; f < p->frames.n; f++) {
		plumb_id fn = p->frames.v[f].function;
		if (by_function && fn_key[fn] != PLUMB_NONE) {
			b->frame_key[f] = fn_key[fn];
			continue;
		}
		plumb_key k = frame_to_key(p, level, (plumb_id)f);
		if ((b->frame_key[f] = metrics_key_intern(b, &k)) == PLUMB_NONE) {
			free(fn_key);
			return -1;
		}
		if (by_function)
			fn_key[fn] = b->frame_key[f];
	}
	if (level == PLUMB_LEVEL_FUNCTION)
		b->fn_key = fn_key; /* the call-graph arcs' callees use it too */
	else
		free(fn_key);
	return 0;
}

int plumb_metrics_compute(const plumb_profile *p, const plumb_metrics_opts *o,
			  plumb_metrics **out, plumb_error *err)
{
	plumb_metrics_opts defaults;
	if (!o) {
		plumb_metrics_opts_init(&defaults);
		o = &defaults;
	}
	if (o->focus && o->focus->n && p->cg_self.n)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
				  "--focus needs call stacks; this profile has a call graph only");
	builder b = { .p = p, .nev = p->events.n, .keys_only = o->keys_only };
	plumb_metrics *m = calloc(1, sizeof *m);
	b.m = m;
	if (!m)
		return plumb_fail_nomem(err);
	m->level = o->level;
	m->nevents = b.nev;
	m->totals = calloc(b.nev ? b.nev : 1, sizeof(uint64_t));
	b.frame_key = malloc((p->frames.n ? p->frames.n : 1) * sizeof *b.frame_key);
	if (!m->totals || !b.frame_key)
		goto nomem;
	if (frame_keys(&b, o->level))
		goto nomem;
	if (!(b.seen = calloc(b.keys.n ? b.keys.n : 1, sizeof *b.seen)))
		goto nomem;
	if (from_cct(&b, o, err) || metrics_from_call_graph(&b, o, err) ||
	    metrics_points_keys(&b, o, err) || metrics_scc_stage(&b, o, err) ||
	    metrics_from_points(&b, o, err))
		goto fail;
	for (size_t k = 0; k < b.keys.n; k++)
		if (!b.calls_known.v[k])
			b.calls.v[k] = PLUMB_COUNT_UNKNOWN;
	m->nkeys = b.keys.n;
	m->keys = b.keys.v;
	m->exclusive = b.excl.v;
	m->inclusive = b.incl.v;
	m->root = b.root.v;
	m->calls = b.calls.v;
	m->narcs = b.arcs.n;
	m->arcs = b.arcs.v;
	m->callee_attr = b.callee_attr.v;
	m->caller_attr = b.caller_attr.v;
	memset(&b.keys, 0, sizeof b.keys);
	memset(&b.excl, 0, sizeof b.excl);
	memset(&b.incl, 0, sizeof b.incl);
	memset(&b.root, 0, sizeof b.root);
	memset(&b.calls, 0, sizeof b.calls);
	memset(&b.arcs, 0, sizeof b.arcs);
	memset(&b.callee_attr, 0, sizeof b.callee_attr);
	memset(&b.caller_attr, 0, sizeof b.caller_attr);
	builder_free(&b);
	if (index_arcs(m)) {
		plumb_metrics_free(m);
		return plumb_fail_nomem(err);
	}
	*out = m;
	return 0;
nomem:
	plumb_fail_nomem(err);
fail:
	builder_free(&b);
	plumb_metrics_free(m);
	return -1;
}

void plumb_metrics_free(plumb_metrics *m)
{
	if (!m)
		return;
	free(m->keys);
	free(m->exclusive);
	free(m->inclusive);
	free(m->calls);
	free(m->arcs);
	free(m->callee_attr);
	free(m->caller_attr);
	free(m->root);
	free(m->totals);
	free(m->out_start);
	free(m->out_arcs);
	free(m->in_start);
	free(m->in_arcs);
	free(m->arc_in_scc);
	free(m->cycle);
	free(m->cycles);
	free(m->cycle_members);
	free(m->cycle_exclusive);
	free(m->cycle_inclusive);
	free(m);
}

int plumb_focus_totals(const plumb_profile *p, const plumb_symspec_list *focus, uint64_t *out,
		       plumb_error *err)
{
	uint8_t *pass;
	if (plumb_cct_select(p, PLUMB_NONE, focus, &pass, NULL))
		return plumb_fail_nomem(err);
	size_t nev = p->events.n;
	memset(out, 0, nev * sizeof *out);
	int rc = 0;
	for (size_t i = 0; i < p->cct.n && rc == 0; i++)
		if (pass[i])
			rc = plumb_costs_add(out, plumb_cct_self(p, (plumb_id)i), nev, err);
	free(pass);
	return rc;
}
