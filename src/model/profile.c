/* The profile: entities, parts, the calling context tree, the call graph,
 * samples and metadata. See include/plumb/profile.h for the invariants. */
#include <assert.h>
#include <string.h>

#include "model/index.h"

plumb_profile *plumb_profile_new(void)
{
	plumb_profile *p = calloc(1, sizeof(plumb_profile));
	if (p)
		plumb_points_info_init(&p->points_info);
	return p;
}

void plumb_profile_free(plumb_profile *p)
{
	if (!p)
		return;
	free(p->strings.buf);
	free(p->strings.off.v);
	free(p->strings.lens.v);
	plumb_index_free(&p->strings.ix);
	for (size_t i = 0; i < p->events.n; i++)
		free(p->events.v[i].terms);
	free(p->events.v);
	free(p->modules.v);
	free(p->files.v);
	free(p->functions.v);
	free(p->frames.v);
	free(p->parts.v);
	free(p->cct.v);
	free(p->cct_self.v);
	free(p->cct_act.v);
	free(p->cg_self.v);
	free(p->cg_self_cost.v);
	free(p->cg_direct.v);
	free(p->arcs.v);
	free(p->arc_incl.v);
	free(p->cg_self_zero.v);
	free(p->arc_zero.v);
	free(p->samples.v);
	free(p->sample_weights.v);
	free(p->meta.v);
	free(p->points.v);
	free(p->jumps.v);
	plumb_index_free(&p->jump_ix);
	if (p->flat && p->flat_free)
		p->flat_free(p->flat);
	if (p->inputs && p->inputs_free)
		p->inputs_free(p->inputs);
	free(p->kept_totals);
	plumb_index *ixs[] = { &p->module_ix, &p->function_ix, &p->file_ix, &p->frame_ix,
			       &p->cct_ix, &p->cg_self_ix, &p->arc_ix, &p->point_ix };
	for (size_t i = 0; i < sizeof ixs / sizeof *ixs; i++)
		plumb_index_free(ixs[i]);
	free(p);
}

bool plumb_profile_is_empty(const plumb_profile *p)
{
	return p->events.n == 0 && p->parts.n == 0 && p->frames.n == 0 && p->functions.n == 0 &&
	       p->meta.n == 0 && !p->costs_started;
}

int plumb_profile_reset(plumb_profile *p, plumb_error *err)
{
	plumb_profile *fresh = plumb_profile_new();
	if (!fresh)
		return plumb_fail_nomem(err);
	/* the struct holds no pointer into itself: swapped whole, then freed */
	plumb_profile old = *p;
	*p = *fresh;
	*fresh = old;
	plumb_profile_free(fresh);
	return 0;
}

/* ---- costs ------------------------------------------------------------- */

int plumb_costs_add(uint64_t *dst, const uint64_t *src, size_t n, plumb_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (dst[i] > UINT64_MAX - src[i])
			return plumb_fail(err, PLUMB_ERR_OVERFLOW,
					  "cost overflow: %llu + %llu does not fit in 64 bits",
					  (unsigned long long)dst[i], (unsigned long long)src[i]);
	for (size_t i = 0; i < n; i++)
		dst[i] += src[i];
	return 0;
}

#define COSTS_GROW(p, vec) plumb_costs_grow((vec), (p)->events.n)

int plumb_profile_totals(const plumb_profile *p, uint64_t *out, plumb_error *err)
{
	size_t nev = p->events.n;
	if (p->kept_totals) { /* costs not read: the flat view's totals */
		memcpy(out, p->kept_totals, nev * sizeof *out);
		return 0;
	}
	memset(out, 0, nev * sizeof *out);
	/* a flat loop (a big tree has millions of nodes, most with no cost);
	 * plumb_costs_add says what overflowed */
	const uint64_t *arrays[2] = { p->cct_self.v, p->cg_self_cost.v };
	size_t rows[2] = { p->cct.n, p->cg_self.n };
	for (int a = 0; a < 2; a++) {
		const uint64_t *c = arrays[a], *end = c + rows[a] * nev;
		for (; c < end; c += nev)
			for (size_t k = 0; k < nev; k++) {
				if (out[k] > UINT64_MAX - c[k])
					return plumb_costs_add(out, c, nev, err);
				out[k] += c[k];
			}
	}
	return 0;
}

/* ---- modules, files, functions, frames --------------------------------- */

static bool module_eq(const void *ctx, uint32_t id, const void *key)
{
	const plumb_module *a = &((const plumb_profile *)ctx)->modules.v[id], *b = key;
	return a->path == b->path && a->build_id == b->build_id;
}

plumb_id plumb_module_intern(plumb_profile *p, const char *path, const char *build_id)
{
	plumb_module m = { plumb_intern(p, path), build_id ? plumb_intern(p, build_id) : PLUMB_NONE };
	if (m.path == PLUMB_NONE || (build_id && m.build_id == PLUMB_NONE))
		return PLUMB_NONE;
	uint32_t h = (uint32_t)plumb_hash_mix(m.path, m.build_id);
	plumb_id id = plumb_index_find(&p->module_ix, h, module_eq, p, &m);
	if (id != PLUMB_NONE)
		return id;
	id = (plumb_id)p->modules.n;
	if (plumb_vec_push(p->modules, m) || plumb_index_insert(&p->module_ix, h, id))
		return PLUMB_NONE;
	return id;
}

static bool file_eq(const void *ctx, uint32_t id, const void *key)
{
	return ((const plumb_profile *)ctx)->files.v[id].path == *(const plumb_id *)key;
}

plumb_id plumb_file_intern(plumb_profile *p, const char *path)
{
	plumb_id s = plumb_intern(p, path);
	if (s == PLUMB_NONE)
		return PLUMB_NONE;
	uint32_t h = (uint32_t)plumb_hash_mix(s, 0x66);
	plumb_id id = plumb_index_find(&p->file_ix, h, file_eq, p, &s);
	if (id != PLUMB_NONE)
		return id;
	id = (plumb_id)p->files.n;
	plumb_file f = { s };
	if (plumb_vec_push(p->files, f) || plumb_index_insert(&p->file_ix, h, id))
		return PLUMB_NONE;
	return id;
}

static bool function_eq(const void *ctx, uint32_t id, const void *key)
{
	const plumb_function *a = &((const plumb_profile *)ctx)->functions.v[id], *b = key;
	return a->name == b->name && a->module == b->module && a->file == b->file;
}

plumb_id plumb_function_intern(plumb_profile *p, const char *name, const char *mangled,
			       plumb_id module, plumb_id file, uint32_t line)
{
	plumb_id n = plumb_intern(p, name), m = mangled ? plumb_intern(p, mangled) : PLUMB_NONE;
	if (n == PLUMB_NONE || (mangled && m == PLUMB_NONE))
		return PLUMB_NONE;
	return plumb_function_intern_ids(p, n, m, module, file, line);
}

plumb_id plumb_function_intern_ids(plumb_profile *p, plumb_id name, plumb_id mangled,
				   plumb_id module, plumb_id file, uint32_t line)
{
	if (name >= p->strings.off.n || (mangled != PLUMB_NONE && mangled >= p->strings.off.n))
		return PLUMB_NONE;
	plumb_function f = { name, mangled, module, file, line };
	uint32_t h = (uint32_t)plumb_hash_mix(plumb_hash_mix(f.name, module), file);
	bool added;
	if (p->functions.n >= PLUMB_NONE - 1 || plumb_vec_reserve(p->functions, p->functions.n + 1))
		return PLUMB_NONE;
	plumb_id id = plumb_index_find_or_add(&p->function_ix, h, function_eq, p, &f,
					      (plumb_id)p->functions.n, &added);
	if (added) {
		p->functions.v[p->functions.n++] = f;
	} else if (id != PLUMB_NONE) {
		plumb_function *old = &p->functions.v[id];
		if (!old->line)
			old->line = line;
		if (old->mangled == PLUMB_NONE)
			old->mangled = mangled;
	}
	return id;
}

static bool frame_eq(const void *ctx, uint32_t id, const void *key)
{
	const plumb_frame *a = &((const plumb_profile *)ctx)->frames.v[id], *b = key;
	return a->function == b->function && a->file == b->file && a->line == b->line &&
	       a->address == b->address;
}

/* The positions of one function hash to neighbouring slots: readers add
 * them together, and a big profile's lookups then stay in cache. */
static uint32_t frame_hash(const plumb_frame *fr)
{
	return (uint32_t)(plumb_hash_mix(fr->function, fr->file) + (uint64_t)fr->line * 8 + fr->address);
}

/* Mixed in full. (It was frame + part * constant, so that consecutive
 * frames took consecutive slots; but then each part's entries are one run
 * of filled slots, the runs of several parts merge into one cluster as big
 * as the table, and every new entry probed to its end: a 10 MB Callgrind
 * file of four parts took 4 s, a 100 MB one 37. The first part does not
 * hash at all: cg_direct.) */
static uint32_t cg_self_hash(plumb_id part, plumb_id frame)
{
	return (uint32_t)plumb_hash_mix(frame, part);
}

/* A call site's arcs in one group of 8 slots (a cache line), the group
 * mixed from part and call site. (It was caller * 8 + callee % 8 + part *
 * a constant: neighbouring call sites took neighbouring groups, but parts
 * overlapped into long runs: a four-part file spent 13% of its report in
 * plumb_arc_add's probes, 2% now, a one-part file 0.5% more.) */
static uint32_t arc_hash(plumb_id part, plumb_id caller, plumb_id callee)
{
	return (uint32_t)(plumb_hash_mix(part, caller) << 3) | (callee & 7u);
}

static int lookups_ready(plumb_profile *p);

plumb_id plumb_frame_intern(plumb_profile *p, plumb_id function, plumb_id file,
			    uint32_t line, uint64_t address)
{
	if (function >= p->functions.n)
		return PLUMB_NONE;
	if (file == PLUMB_NONE)
		file = p->functions.v[function].file;
	plumb_frame fr = { function, file, line, address };
	if (lookups_ready(p))
		return PLUMB_NONE;
	if (p->frames.n >= PLUMB_NONE - 1 || plumb_vec_reserve(p->frames, p->frames.n + 1))
		return PLUMB_NONE;
	bool added;
	plumb_id id = plumb_index_find_or_add(&p->frame_ix, frame_hash(&fr), frame_eq, p, &fr,
					      (plumb_id)p->frames.n, &added);
	if (added)
		p->frames.v[p->frames.n++] = fr;
	return id;
}

int plumb_profile_reserve(plumb_profile *p, size_t frames, size_t cg_self, plumb_error *err)
{
	if (lookups_ready(p) || plumb_vec_reserve(p->frames, frames) || plumb_index_reserve(&p->frame_ix, frames) ||
	    plumb_vec_reserve(p->cg_self, cg_self) || plumb_vec_reserve(p->cg_direct, frames))
		return plumb_fail_nomem(err);
	return 0;
}

/* ---- parts and the calling context tree -------------------------------- */

static plumb_id cct_new_node(plumb_profile *p, plumb_id parent, plumb_id frame, plumb_id part)
{
	if (p->cct.n >= PLUMB_NONE - 1)
		return PLUMB_NONE;
	plumb_cct_node n = { frame, parent, part, PLUMB_NONE, PLUMB_NONE };
	plumb_id id = (plumb_id)p->cct.n;
	if (plumb_vec_reserve(p->cct, p->cct.n + 1) || COSTS_GROW(p, p->cct_self))
		return PLUMB_NONE;
	/* parents precede children: one forward pass visits them first */
	assert(parent == PLUMB_NONE || parent < id);
	/* cct_self holds one cost vector per node, grown in step */
	assert(p->cct_self.n == (size_t)(id + 1) * p->events.n);
	if (parent != PLUMB_NONE) {
		n.next_sibling = p->cct.v[parent].first_child;
		p->cct.v[parent].first_child = id;
	}
	p->cct.v[p->cct.n++] = n;
	return id;
}

plumb_id plumb_part_add(plumb_profile *p, plumb_part_kind kind, const char *name,
			int64_t pid, int64_t tid)
{
	plumb_part part = { kind, PLUMB_NONE, pid, tid, PLUMB_NONE, PLUMB_NONE };
	if (name && (part.name = plumb_intern(p, name)) == PLUMB_NONE)
		return PLUMB_NONE;
	plumb_id id = (plumb_id)p->parts.n;
	if (plumb_vec_reserve(p->parts, p->parts.n + 1))
		return PLUMB_NONE;
	part.root = cct_new_node(p, PLUMB_NONE, PLUMB_NONE, id);
	if (part.root == PLUMB_NONE)
		return PLUMB_NONE;
	p->parts.v[p->parts.n++] = part;
	return id;
}

plumb_id plumb_part_default(plumb_profile *p)
{
	if (p->parts.n)
		return 0;
	return plumb_part_add(p, PLUMB_PART_WHOLE, NULL, -1, -1);
}

typedef struct cct_key {
	plumb_id parent, frame;
} cct_key;

static bool cct_eq(const void *ctx, uint32_t id, const void *key)
{
	const plumb_cct_node *a = &((const plumb_profile *)ctx)->cct.v[id];
	const cct_key *b = key;
	return a->parent == b->parent && a->frame == b->frame;
}

/* Nodes made by plumb_cct_new_path are indexed only when a lookup needs
 * them: a reader that builds its tree without lookups (pprof, the store)
 * never pays for the index. */
static int cct_index_catch_up(plumb_profile *p)
{
	if (p->cct_indexed >= p->cct.n)
		return 0;
	if (plumb_index_reserve(&p->cct_ix, p->cct_ix.count + (p->cct.n - p->cct_indexed)))
		return -1;
	for (size_t i = p->cct_indexed; i < p->cct.n; i++) {
		const plumb_cct_node *n = &p->cct.v[i];
		if (n->parent != PLUMB_NONE &&
		    plumb_index_insert(&p->cct_ix, (uint32_t)plumb_hash_mix(n->parent, n->frame),
				       (uint32_t)i))
			return -1;
	}
	p->cct_indexed = p->cct.n;
	return 0;
}

plumb_id plumb_cct_child(plumb_profile *p, plumb_id parent, plumb_id frame)
{
	if (parent >= p->cct.n || frame >= p->frames.n)
		return PLUMB_NONE;
	if (cct_index_catch_up(p))
		return PLUMB_NONE;
	cct_key k = { parent, frame };
	uint32_t h = (uint32_t)plumb_hash_mix(parent, frame);
	plumb_id id = plumb_index_find(&p->cct_ix, h, cct_eq, p, &k);
	if (id != PLUMB_NONE)
		return id;
	id = cct_new_node(p, parent, frame, p->cct.v[parent].part);
	if (id == PLUMB_NONE || plumb_index_insert(&p->cct_ix, h, id))
		return PLUMB_NONE;
	p->cct_indexed = p->cct.n;
	return id;
}

int plumb_cct_new_path(plumb_profile *p, plumb_id parent, const plumb_id *frames, size_t n,
		       plumb_id *nodes)
{
	if (parent >= p->cct.n || n > PLUMB_NONE - 2 - p->cct.n)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (frames[i] >= p->frames.n)
			return -1;
	size_t nev = p->events.n;
	if (plumb_cct_reserve(p, n))
		return -1;
	/* no lookup and no index entry (cct_index_catch_up makes those); the
	 * nodes and their zero costs written in one go */
	if (nev) {
		memset(p->cct_self.v + p->cct_self.n, 0, n * nev * sizeof *p->cct_self.v);
		p->cct_self.n += n * nev;
	}
	plumb_id part = p->cct.v[parent].part, up = parent;
	for (size_t i = 0; i < n; i++) {
		plumb_id id = (plumb_id)p->cct.n++;
		p->cct.v[id] = (plumb_cct_node){ frames[i], up, part, PLUMB_NONE,
						 p->cct.v[up].first_child };
		p->cct.v[up].first_child = id;
		nodes[i] = up = id;
	}
	return 0;
}

void plumb_cct_truncate(plumb_profile *p, size_t n)
{
	if (n >= p->cct.n)
		return;
	assert(p->cct_indexed <= n); /* the index holds none of the nodes dropped */
	/* children are linked newest first: a kept node's list starts with
	 * the ones dropped */
	for (size_t i = 0; i < n; i++) {
		plumb_id *c = &p->cct.v[i].first_child;
		while (*c != PLUMB_NONE && *c >= n)
			*c = p->cct.v[*c].next_sibling;
	}
	p->cct.n = n;
	p->cct_self.n = n * p->events.n;
}

int plumb_cct_reserve(plumb_profile *p, size_t n)
{
	if (n > PLUMB_NONE - 2 - p->cct.n)
		return -1;
	size_t had = p->cct.cap, had_self = p->cct_self.cap;
	if (plumb_vec_reserve(p->cct, p->cct.n + n) ||
	    plumb_vec_reserve(p->cct_self, (p->cct.n + n) * p->events.n))
		return -1;
	/* room made for a tree to fill (a reader's, at once) */
	if (p->cct.cap != had)
		plumb_advise_huge(p->cct.v, p->cct.cap * sizeof *p->cct.v);
	if (p->cct_self.cap != had_self)
		plumb_advise_huge(p->cct_self.v, p->cct_self.cap * sizeof *p->cct_self.v);
	return 0;
}

plumb_id plumb_cct_path(plumb_profile *p, plumb_id part, const plumb_id *frames, size_t n)
{
	if (part >= p->parts.n)
		return PLUMB_NONE;
	plumb_id node = p->parts.v[part].root;
	for (size_t i = 0; i < n && node != PLUMB_NONE; i++)
		node = plumb_cct_child(p, node, frames[i]);
	return node;
}

int plumb_cct_add_self(plumb_profile *p, plumb_id node, const uint64_t *costs, plumb_error *err)
{
	if (node >= p->cct.n)
		return plumb_fail(err, PLUMB_ERR_USAGE, "no calling context node %u", node);
	p->costs_started = true;
	return plumb_costs_add(p->cct_self.v + (size_t)node * p->events.n, costs, p->events.n, err);
}

int plumb_cct_add_activations(plumb_profile *p, plumb_id node, uint64_t n, plumb_error *err)
{
	if (node >= p->cct.n)
		return plumb_fail(err, PLUMB_ERR_USAGE, "no calling context node %u", node);
	if (p->cct_act.n <= node) { /* the counts so far, unknown up to node */
		if (plumb_vec_reserve(p->cct_act, p->cct.n))
			return plumb_fail_nomem(err);
		while (p->cct_act.n < p->cct.n)
			p->cct_act.v[p->cct_act.n++] = PLUMB_COUNT_UNKNOWN;
	}
	if (!plumb_count_add(&p->cct_act.v[node], n))
		return plumb_fail(err, PLUMB_ERR_OVERFLOW, "activation count overflow at node %u", node);
	return 0;
}

/* ---- call graph -------------------------------------------------------- */

static bool cg_self_eq(const void *ctx, uint32_t id, const void *key)
{
	const plumb_cg_self *a = &((const plumb_profile *)ctx)->cg_self.v[id], *b = key;
	return a->part == b->part && a->frame == b->frame;
}

/* The direct slot of (part, frame), or NULL when the part is not the direct
 * one. *nomem is set when the slot array cannot grow. */
static plumb_id *cg_direct_slot(plumb_profile *p, plumb_id part, plumb_id frame, bool *nomem)
{
	if (!p->cg_direct_part1)
		p->cg_direct_part1 = part + 1;
	if (p->cg_direct_part1 != part + 1)
		return NULL;
	if (frame >= p->cg_direct.n) {
		size_t n = p->frames.n > frame ? p->frames.n : (size_t)frame + 1;
		if (plumb_vec_reserve(p->cg_direct, n)) {
			*nomem = true;
			return NULL;
		}
		memset(p->cg_direct.v + p->cg_direct.n, 0xff, (n - p->cg_direct.n) * sizeof(plumb_id));
		p->cg_direct.n = n;
	}
	return &p->cg_direct.v[frame];
}

/* The cg_self entry of (part, frame), created if new. */
static int cg_self_entry(plumb_profile *p, plumb_id part, plumb_id frame, plumb_id *out,
			 plumb_error *err)
{
	if (part >= p->parts.n || frame >= p->frames.n)
		return plumb_fail(err, PLUMB_ERR_USAGE, "call graph cost for unknown part or frame");
	plumb_cg_self k = { part, frame };
	bool nomem = lookups_ready(p) != 0;
	plumb_id *direct = nomem ? NULL : cg_direct_slot(p, part, frame, &nomem);
	if (nomem)
		return plumb_fail_nomem(err);
	uint32_t h = cg_self_hash(part, frame);
	plumb_id id = direct ? *direct : plumb_index_find(&p->cg_self_ix, h, cg_self_eq, p, &k);
	if (id == PLUMB_NONE) {
		id = (plumb_id)p->cg_self.n;
		if (plumb_vec_reserve(p->cg_self, p->cg_self.n + 1) || COSTS_GROW(p, p->cg_self_cost) ||
		    (!direct && plumb_index_insert(&p->cg_self_ix, h, id)))
			return plumb_fail_nomem(err);
		p->cg_self.v[p->cg_self.n++] = k;
		assert(p->cg_self_cost.n == p->cg_self.n * p->events.n);
		if (direct)
			*direct = id;
	}
	*out = id;
	return 0;
}

int plumb_cg_add_self(plumb_profile *p, plumb_id part, plumb_id frame, const uint64_t *costs,
		      plumb_error *err)
{
	plumb_id id;
	if (cg_self_entry(p, part, frame, &id, err))
		return -1;
	p->costs_started = true;
	return plumb_costs_add(p->cg_self_cost.v + (size_t)id * p->events.n, costs, p->events.n,
			       err);
}

/* OR mask into v[id], v grown (zero-filled) to n entries first. */
static int note_zeros(uint64_t **v, size_t *len, size_t n, plumb_id id, uint64_t mask)
{
	if (*len < n) {
		uint64_t *nv = realloc(*v, n * sizeof *nv);
		if (!nv)
			return -1;
		memset(nv + *len, 0, (n - *len) * sizeof *nv);
		*v = nv;
		*len = n;
	}
	(*v)[id] |= mask;
	return 0;
}

int plumb_cg_note_zeros(plumb_profile *p, plumb_id part, plumb_id frame, uint64_t mask,
			plumb_error *err)
{
	plumb_id id;
	if (cg_self_entry(p, part, frame, &id, err))
		return -1;
	/* grown by half again past what is needed: entries keep coming */
	size_t n = p->cg_self_zero.n > id ? p->cg_self_zero.n : id + 1 + id / 2;
	if (note_zeros(&p->cg_self_zero.v, &p->cg_self_zero.n, n, id, mask))
		return plumb_fail_nomem(err);
	return 0;
}

int plumb_arc_note_zeros(plumb_profile *p, plumb_id arc, uint64_t mask, plumb_error *err)
{
	if (arc >= p->arcs.n)
		return plumb_fail(err, PLUMB_ERR_USAGE, "zeros noted for an unknown arc");
	size_t n = p->arc_zero.n > arc ? p->arc_zero.n : arc + 1 + arc / 2;
	if (note_zeros(&p->arc_zero.v, &p->arc_zero.n, n, arc, mask))
		return plumb_fail_nomem(err);
	return 0;
}

static bool arc_eq(const void *ctx, uint32_t id, const void *key)
{
	const plumb_arc *a = &((const plumb_profile *)ctx)->arcs.v[id], *b = key;
	return a->part == b->part && a->caller == b->caller && a->callee == b->callee;
}

int plumb_arc_add(plumb_profile *p, plumb_id part, plumb_id caller, plumb_id callee,
		  uint64_t calls, const uint64_t *incl, plumb_error *err)
{
	if (part >= p->parts.n || caller >= p->frames.n || callee >= p->functions.n)
		return plumb_fail(err, PLUMB_ERR_USAGE, "call arc with unknown part, frame or function");
	plumb_arc k = { .part = part, .caller = caller, .callee = callee, .calls = PLUMB_COUNT_UNKNOWN };
	if (lookups_ready(p))
		return plumb_fail_nomem(err);
	uint32_t h = arc_hash(part, caller, callee);
	/* room first, so that a new arc is found and added in one walk of
	 * the index (a find, then an insert, walked its clusters twice) */
	if (plumb_vec_reserve(p->arcs, p->arcs.n + 1) ||
	    plumb_vec_reserve(p->arc_incl, p->arc_incl.n + p->events.n))
		return plumb_fail_nomem(err);
	bool added;
	plumb_id id = plumb_index_find_or_add(&p->arc_ix, h, arc_eq, p, &k, (plumb_id)p->arcs.n, &added);
	if (id == PLUMB_NONE)
		return plumb_fail_nomem(err);
	if (added) {
		if (COSTS_GROW(p, p->arc_incl)) /* reserved: cannot fail */
			return plumb_fail_nomem(err);
		p->arcs.v[p->arcs.n++] = k;
	}
	plumb_arc *a = &p->arcs.v[id];
	if (calls != PLUMB_COUNT_UNKNOWN && !plumb_count_add(&a->calls, calls))
		return plumb_fail(err, PLUMB_ERR_OVERFLOW, "call count overflow");
	if (incl) {
		p->costs_started = true;
		if (plumb_costs_add(p->arc_incl.v + (size_t)id * p->events.n, incl, p->events.n, err))
			return -1;
		a->has_inclusive = true;
	}
	return (int)id;
}

/* ---- samples and metadata ---------------------------------------------- */

int plumb_sample_add(plumb_profile *p, uint64_t time_ns, plumb_id part, plumb_id node,
		     const uint64_t *weights, plumb_error *err)
{
	if (part >= p->parts.n || node >= p->cct.n)
		return plumb_fail(err, PLUMB_ERR_USAGE, "sample with unknown part or node");
	plumb_sample s = { time_ns, part, node };
	if (plumb_vec_push(p->samples, s) || COSTS_GROW(p, p->sample_weights))
		return plumb_fail_nomem(err);
	memcpy(p->sample_weights.v + (p->samples.n - 1) * p->events.n, weights,
	       p->events.n * sizeof *weights);
	p->costs_started = true;
	return 0;
}

int plumb_meta_set(plumb_profile *p, const char *key, const char *value, plumb_error *err)
{
	plumb_meta m = { plumb_intern(p, key), plumb_intern(p, value) };
	if (m.key == PLUMB_NONE || m.value == PLUMB_NONE)
		return plumb_fail_nomem(err);
	for (size_t i = 0; i < p->meta.n; i++)
		if (p->meta.v[i].key == m.key) {
			p->meta.v[i].value = m.value;
			return 0;
		}
	return plumb_vec_push(p->meta, m) ? plumb_fail_nomem(err) : 0;
}

const char *plumb_meta_get(const plumb_profile *p, const char *key)
{
	plumb_id k = plumb_string_find(p, key);
	if (k == PLUMB_NONE)
		return NULL;
	for (size_t i = 0; i < p->meta.n; i++)
		if (p->meta.v[i].key == k)
			return plumb_str(p, p->meta.v[i].value);
	return NULL;
}

/* ---- display ------------------------------------------------------------ */

const char *plumb_function_name(const plumb_profile *p, plumb_id fn)
{
	return fn < p->functions.n ? plumb_str(p, p->functions.v[fn].name) : NULL;
}

const char *plumb_function_file(const plumb_profile *p, plumb_id fn)
{
	if (fn >= p->functions.n || p->functions.v[fn].file == PLUMB_NONE)
		return NULL;
	return plumb_str(p, p->files.v[p->functions.v[fn].file].path);
}

const char *plumb_function_module(const plumb_profile *p, plumb_id fn)
{
	if (fn >= p->functions.n || p->functions.v[fn].module == PLUMB_NONE)
		return NULL;
	return plumb_str(p, p->modules.v[p->functions.v[fn].module].path);
}

/* ---- lookup tables of big profiles --------------------------------------- */

/* The tables that find frames, call-graph entries and arcs serve only to
 * add more. A caller done adding (a report, once its files are read) may
 * free them: on a 100 MB Callgrind file that is 40 MB. The next add
 * rebuilds them. */
void plumb_profile_drop_lookups(plumb_profile *p)
{
	plumb_index_free(&p->frame_ix);
	plumb_index_free(&p->cg_self_ix);
	plumb_index_free(&p->arc_ix);
	free(p->cg_direct.v);
	memset(&p->cg_direct, 0, sizeof p->cg_direct);
	p->lookups_dropped = true;
}

static int rebuild_lookups(plumb_profile *p)
{
	if (plumb_index_reserve(&p->frame_ix, p->frames.n) ||
	    plumb_index_reserve(&p->arc_ix, p->arcs.n) ||
	    plumb_vec_reserve(p->cg_direct, p->frames.n))
		return -1;
	for (size_t i = 0; i < p->frames.n; i++)
		if (plumb_index_insert(&p->frame_ix, frame_hash(&p->frames.v[i]), (uint32_t)i))
			return -1;
	memset(p->cg_direct.v, 0xff, p->frames.n * sizeof(plumb_id));
	p->cg_direct.n = p->frames.n;
	for (size_t i = 0; i < p->cg_self.n; i++) {
		const plumb_cg_self *c = &p->cg_self.v[i];
		if (c->part + 1 == p->cg_direct_part1)
			p->cg_direct.v[c->frame] = (plumb_id)i;
		else if (plumb_index_insert(&p->cg_self_ix, cg_self_hash(c->part, c->frame), (uint32_t)i))
			return -1;
	}
	for (size_t i = 0; i < p->arcs.n; i++) {
		const plumb_arc *a = &p->arcs.v[i];
		if (plumb_index_insert(&p->arc_ix, arc_hash(a->part, a->caller, a->callee), (uint32_t)i))
			return -1;
	}
	return 0;
}

/* 0 when the lookup tables can be used (rebuilt if they were dropped). */
static int lookups_ready(plumb_profile *p)
{
	if (!p->lookups_dropped)
		return 0;
	if (rebuild_lookups(p)) {
		plumb_profile_drop_lookups(p); /* try again next time, from scratch */
		return -1;
	}
	p->lookups_dropped = false;
	return 0;
}
