/* The .plumb reader's blocks: frames, the calling context tree, the call
 * graph and samples, decoded entity by entity from the bulk table
 * (store_encode.c writes them; docs/plumb-format.md has the encoding). Each
 * entity's ids are checked against the tables read before it; a bad one is
 * named by its kind, block and entity. */
#include <stdlib.h>
#include <string.h>

#include "model/append.h"
#include "store/store_bulk.h"
#include "store/store_read.h"

int store_bulk_ref_fail(store_bulk_in *b, uint64_t v, const idmap *m, const char *name)
{
	return store_bulk_bad(b, "%s %llu out of range (table %s has %zu rows)", name,
			      (unsigned long long)v, m->table, m->n);
}

static void bulk_costs(rd *r, store_bulk_in *b, bool *any)
{
	*any = false;
	for (size_t e = 0; e < r->p->events.n; e++) {
		r->vec[e] = plumb_varint_get(&b->in);
		*any |= r->vec[e] != 0;
	}
}

int store_bulk_model_fail(rd *r, store_bulk_in *b)
{
	char what[sizeof r->err->message];
	if (!r->err)
		return -1;
	memcpy(what, r->err->message, sizeof what);
	if (r->err->code == PLUMB_ERR_NOMEM)
		return -1;
	return store_bulk_bad(b, "%s", what);
}

/* One frame: its fields checked and mapped into *f. */
static int frame_entity(rd *r, store_bulk_in *b, uint64_t st[3], plumb_frame *f)
{
	if (b->next == b->first)
		st[0] = st[1] = st[2] = 0;
	uint64_t fn = plumb_unzigzag(plumb_varint_get(&b->in), st[0]);
	uint64_t file = plumb_varint_get(&b->in);
	uint64_t line = plumb_unzigzag(plumb_varint_get(&b->in), st[1]);
	uint64_t addr = plumb_unzigzag(plumb_varint_get(&b->in), st[2]);
	st[0] = fn, st[1] = line, st[2] = addr;
	if (b->in.bad)
		return store_bulk_end_entity(b);
	if (store_bulk_ref(b, fn, &r->fn, "function", &f->function) ||
	    (file && store_bulk_ref(b, file - 1, &r->file, "file", &f->file)))
		return -1;
	if (!file)
		f->file = r->p->functions.v[f->function].file;
	if (line > UINT32_MAX)
		return store_bulk_bad(b, "line %llu out of range", (unsigned long long)line);
	f->line = (uint32_t)line;
	f->address = addr;
	return store_bulk_end_entity(b);
}

/* Into a profile without frames, a block's frames are written in place
 * with the file's ids (they were unique when written); into one that has
 * frames, each is interned. */
/* Room is made for a whole block at once: a count its data cannot hold
 * (each entity takes at least min bytes) is refused first. */
static int block_fits(store_bulk_in *b, size_t min)
{
	size_t size = (size_t)(b->in.end - b->in.p);
	if ((uint64_t)b->count > size / min)
		return store_bulk_bad(b, "%lld entities in %zu bytes: too many (each takes %zu or more)",
				      (long long)b->count, size, min);
	return 0;
}

static int frame_block(rd *r, store_bulk_in *b, bool append, uint64_t st[3])
{
	size_t n = (size_t)b->count;
	if (block_fits(b, 4))
		return -1;
	plumb_frame one, *f = append ? plumb_frames_room(r->p, n) : &one;
	if (!f)
		return plumb_fail_nomem(r->err);
	for (size_t i = 0; i < n; i++) {
		plumb_frame *fr = append ? f + i : f;
		if (frame_entity(r, b, st, fr))
			return -1;
		if (!append && store_map_push(r, &r->frame, plumb_frame_intern(r->p, fr->function, fr->file,
									  fr->line, fr->address)))
			return -1;
	}
	if (!append)
		return 0;
	if (plumb_frames_added(r->p, n, r->err))
		return store_bulk_model_fail(r, b);
	r->frame.n += n; /* the identity map */
	return 0;
}

/* Instead of the frames blocks, for the function-level call graph: one
 * frame per function (line 0, no address), frame i for file function i. */
int store_function_frames(rd *r)
{
	size_t n = r->fn.n;
	bool append = r->p->frames.n == 0;
	plumb_frame *f = append ? plumb_frames_room(r->p, n) : NULL;
	if (append && !f)
		return plumb_fail_nomem(r->err);
	for (size_t i = 0; i < n; i++) {
		plumb_id fn = r->fn.v ? r->fn.v[i] : (plumb_id)i;
		plumb_frame one = { .function = fn, .file = r->p->functions.v[fn].file };
		if (append)
			f[i] = one;
		else if (store_map_push(r, &r->frame, plumb_frame_intern(r->p, fn, one.file, 0, 0)))
			return -1;
	}
	if (!append)
		return 0;
	if (plumb_frames_added(r->p, n, r->err))
		return -1;
	r->frame.n += n;
	return 0;
}

/* What the blocks say they expand to, before any is expanded: a small file
 * that would expand to gigabytes is refused (each block's size is checked
 * against its data when it is read). */
int store_check_bulk_size(rd *r)
{
	sqlite3_stmt *st;
	if (store_rd_prepare(r, "SELECT sum(size) FROM bulk", &st))
		return -1;
	int rc = sqlite3_step(st);
	double total = rc == SQLITE_ROW ? sqlite3_column_double(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return store_rd_fail(r, rc);
	double limit = (double)r->file_size * STORE_BULK_RATIO;
	if (limit < STORE_BULK_MAX_SIZE)
		limit = STORE_BULK_MAX_SIZE;
	if (total > limit)
		return plumb_fail(r->err, PLUMB_ERR_FORMAT,
				  "%s: table bulk: the blocks say they expand to %.0f bytes, more than "
				  "64 MiB and %d times the file: refused as damaged", r->path, total,
				  STORE_BULK_RATIO);
	return 0;
}

int store_read_frames(rd *r)
{
	store_bulk_in b;
	uint64_t st[3] = { 0 };
	bool append = r->p->frames.n == 0;
	int more = store_bulk_in_open(&b, r->db, "frames", r->path, r->err);
	b.progress = &r->progress;
	while (!more && (more = store_bulk_next(&b)) > 0)
		more = frame_block(r, &b, append, st);
	store_bulk_in_close(&b);
	return more;
}

/* A root (distance 0 to its parent): the root of the next part. */
static int cct_root(rd *r, store_bulk_in *b)
{
	size_t next = r->part.n;
	if (next >= r->nparts)
		return store_bulk_bad(b, "a root node, but every part has its root");
	const file_part *fp = &r->parts[next];
	if (fp->root != b->next)
		return store_bulk_bad(b, "a root node, but part %zu's root is node %lld", next,
				      (long long)fp->root);
	plumb_id id = plumb_part_add(r->p, fp->kind, plumb_str(r->p, fp->name), fp->pid, fp->tid);
	if (store_map_push(r, &r->part, id))
		return -1;
	r->p->parts.v[id].start_function = fp->start_function;
	r->p->parts.v[id].arc_costs = fp->arc_costs;
	return store_map_push(r, &r->node, r->p->parts.v[id].root);
}

/* Nodes whose parent is the node before them (a stack's path, as most of a
 * tree's nodes are) are made together: plumb_cct_new_path fetches their
 * index slots at once. The file's nodes were unique children of their
 * parents when written, so none is looked for (a damaged file's duplicate
 * is a second node of the same path, whose costs add). */
enum { CHAIN = 64 };

typedef struct chain {
	int64_t first;        /* the file id of its first node; n = 0: empty */
	size_t n;
	plumb_id parent;      /* the profile id of the first node's parent */
	plumb_id frames[CHAIN], nodes[CHAIN];
	uint64_t activations[CHAIN];
	uint64_t *costs;      /* CHAIN * events */
} chain;

static int chain_flush(rd *r, chain *c)
{
	size_t nev = r->p->events.n;
	if (!c->n)
		return 0;
	if (plumb_cct_new_path(r->p, c->parent, c->frames, c->n, c->nodes))
		return plumb_fail_nomem(r->err);
	for (size_t i = 0; i < c->n; i++) {
		const uint64_t *cost = c->costs + i * nev;
		bool any = false;
		for (size_t e = 0; e < nev; e++)
			any |= cost[e] != 0;
		if (store_map_push(r, &r->node, c->nodes[i]) ||
		    (c->activations[i] != PLUMB_COUNT_UNKNOWN &&
		     plumb_cct_add_activations(r->p, c->nodes[i], c->activations[i], r->err)) ||
		    (any && plumb_cct_add_self(r->p, c->nodes[i], cost, r->err)))
			return -1;
	}
	c->n = 0;
	return 0;
}

/* A node's tag (version 8, store_encode.c): the distance to its parent
 * and which fields follow; versions 5 to 7 wrote every field. */
typedef struct cct_tag {
	uint64_t up;
	bool act, costs;
} cct_tag;

static cct_tag cct_tag_get(rd *r, store_bulk_in *b)
{
	uint64_t v = plumb_varint_get(&b->in);
	if (r->version < 8)
		return (cct_tag){ v, true, true };
	return (cct_tag){ v >> 2, v & 2, v & 1 };
}

/* Activations (PLUMB_COUNT_UNKNOWN when not known). */
static uint64_t cct_act_get(store_bulk_in *b, const cct_tag *t, int version)
{
	if (version < 8)
		return plumb_varint_get(&b->in) - 1; /* 0: unknown */
	return t->act ? plumb_varint_get(&b->in) : PLUMB_COUNT_UNKNOWN;
}

static void cct_costs_get(store_bulk_in *b, const cct_tag *t, uint64_t *cost, size_t nev)
{
	for (size_t e = 0; e < nev; e++)
		cost[e] = t->costs ? plumb_varint_get(&b->in) : 0;
}

static int cct_entity(rd *r, store_bulk_in *b, uint64_t *frame, chain *c)
{
	if (b->next == b->first)
		*frame = 0;
	size_t nev = r->p->events.n;
	cct_tag tag = cct_tag_get(r, b);
	uint64_t up = tag.up;
	if (up == 0) { /* a root: made at once, as its part */
		uint64_t activations = cct_act_get(b, &tag, r->version);
		bool any = false;
		cct_costs_get(b, &tag, r->vec, nev);
		for (size_t e = 0; e < nev; e++)
			any |= r->vec[e] != 0;
		if (b->in.bad)
			return store_bulk_end_entity(b);
		if (chain_flush(r, c) || cct_root(r, b))
			return -1;
		plumb_id node = r->node.v[r->node.n - 1];
		if ((activations != PLUMB_COUNT_UNKNOWN &&
		     plumb_cct_add_activations(r->p, node, activations, r->err)) ||
		    (any && plumb_cct_add_self(r->p, node, r->vec, r->err)))
			return store_bulk_model_fail(r, b);
		return store_bulk_end_entity(b);
	}
	*frame = plumb_unzigzag(plumb_varint_get(&b->in), *frame);
	uint64_t activations = cct_act_get(b, &tag, r->version);
	size_t k = c->n < CHAIN && c->n && b->next - (int64_t)up == c->first + (int64_t)c->n - 1
			   ? c->n : 0; /* its place in the chain: 0 starts a new one */
	/* a new chain's costs wait in r->vec while the pending one is made */
	uint64_t *cost = k ? c->costs + k * nev : r->vec;
	cct_costs_get(b, &tag, cost, nev);
	if (b->in.bad)
		return store_bulk_end_entity(b);
	if (up > (uint64_t)b->next)
		return store_bulk_bad(b, "parent %lld nodes back, before the first node",
				      (long long)up);
	plumb_id mframe;
	if (store_bulk_ref(b, *frame, &r->frame, "frame", &mframe))
		return -1;
	if (k == 0) {
		if (chain_flush(r, c))
			return -1;
		memcpy(c->costs, r->vec, nev * sizeof *cost);
		c->first = b->next;
		c->parent = r->node.v[b->next - (int64_t)up];
	}
	c->frames[k] = mframe;
	c->activations[k] = activations;
	c->n = k + 1;
	return store_bulk_end_entity(b);
}

/* Room for the nodes the cct blocks hold, made at once: growing the tree
 * and the node map by doubling copied them over and over (a tenth of
 * loading a 3-million-node pprof store). Only as many as the blocks' data
 * can hold (a node takes 2 bytes or more, 3 + events before version 8; a
 * part's root one less), so that a damaged count reserves little it does
 * not fill. */
static int cct_room(rd *r)
{
	sqlite3_stmt *st;
	if (store_rd_prepare(r, "SELECT sum(count), sum(size) FROM bulk WHERE kind = 'cct'", &st))
		return -1;
	int rc = sqlite3_step(st);
	int64_t count = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	int64_t size = rc == SQLITE_ROW ? sqlite3_column_int64(st, 1) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return store_rd_fail(r, rc);
	int64_t most = size / (r->version < 8 ? (int64_t)(2 + r->p->events.n) : 2);
	size_t n = (size_t)(count < 0 ? 0 : count < most ? count : most);
	if (n == 0)
		return 0;
	if (r->node.cap < r->node.n + n) {
		plumb_id *v = realloc(r->node.v, (r->node.n + n) * sizeof *v);
		if (!v)
			return plumb_fail_nomem(r->err);
		r->node.v = v;
		r->node.cap = r->node.n + n;
	}
	return plumb_cct_reserve(r->p, n) ? plumb_fail_nomem(r->err) : 0;
}

int store_read_cct(rd *r)
{
	store_bulk_in b;
	uint64_t frame = 0;
	if (cct_room(r))
		return -1;
	chain c = { .costs = calloc(CHAIN * r->p->events.n + 1, sizeof(uint64_t)) };
	if (!c.costs)
		return plumb_fail_nomem(r->err);
	int more = store_bulk_in_open(&b, r->db, "cct", r->path, r->err);
	b.progress = &r->progress;
	while (!more && (more = store_bulk_next(&b)) > 0)
		more = cct_entity(r, &b, &frame, &c);
	store_bulk_in_close(&b);
	if (!more)
		more = chain_flush(r, &c);
	free(c.costs);
	if (!more && r->part.n < r->nparts)
		more = plumb_fail(r->err, PLUMB_ERR_FORMAT,
				  "%s: table parts, row %zu: root %lld is not a root node of the cct "
				  "blocks", r->path, r->part.n, (long long)r->parts[r->part.n].root);
	return more;
}

/* The file's parts are new parts of the profile, so its call-graph entries
 * and arcs cannot be there already: a block of entries is written in place. */
static int cg_entity(rd *r, store_bulk_in *b, uint64_t st[2], plumb_cg_self *k, uint64_t *costs)
{
	if (b->next == b->first)
		st[0] = st[1] = 0;
	uint64_t part = plumb_unzigzag(plumb_varint_get(&b->in), st[0]);
	uint64_t frame = plumb_unzigzag(plumb_varint_get(&b->in), st[1]);
	uint64_t zeros = plumb_varint_get(&b->in);
	for (size_t e = 0; e < r->p->events.n; e++)
		costs[e] = plumb_varint_get(&b->in);
	st[0] = part, st[1] = frame + 1;
	if (b->in.bad)
		return store_bulk_end_entity(b);
	if (store_bulk_ref(b, part, &r->part, "part", &k->part) ||
	    store_bulk_ref(b, frame, &r->frame, "frame", &k->frame))
		return -1;
	if (zeros && plumb_cg_self_zeros(r->p, r->p->cg_self.n + (size_t)(b->next - b->first), zeros,
					 r->err))
		return -1;
	return store_bulk_end_entity(b);
}

static int cg_block(rd *r, store_bulk_in *b, uint64_t st[2])
{
	size_t n = (size_t)b->count, nev = r->p->events.n;
	if (block_fits(b, 3 + nev))
		return -1;
	plumb_cg_self *keys;
	uint64_t *costs = plumb_cg_self_room(r->p, n, &keys);
	if (!costs)
		return plumb_fail_nomem(r->err);
	for (size_t i = 0; i < n; i++)
		if (cg_entity(r, b, st, keys + i, costs + i * nev))
			return -1;
	return plumb_cg_self_added(r->p, n, r->err) ? store_bulk_model_fail(r, b) : 0;
}

int store_read_cg_self(rd *r, const char *kind)
{
	store_bulk_in b;
	uint64_t st[2] = { 0 };
	int more = store_bulk_in_open(&b, r->db, kind, r->path, r->err);
	b.progress = &r->progress;
	while (!more && (more = store_bulk_next(&b)) > 0)
		more = cg_block(r, &b, st);
	store_bulk_in_close(&b);
	return more;
}

static int arc_entity(rd *r, store_bulk_in *b, uint64_t st[3])
{
	if (b->next == b->first)
		st[0] = st[1] = st[2] = 0;
	uint64_t part = plumb_unzigzag(plumb_varint_get(&b->in), st[0]);
	uint64_t caller = plumb_unzigzag(plumb_varint_get(&b->in), st[1]);
	uint64_t callee = plumb_unzigzag(plumb_varint_get(&b->in), st[2]);
	uint64_t calls = plumb_varint_get(&b->in) - 1; /* 0: unknown */
	uint64_t flags = plumb_varint_get(&b->in);
	uint64_t zeros = flags & 2 ? plumb_varint_get(&b->in) : 0;
	st[0] = part, st[1] = caller, st[2] = callee;
	plumb_id mpart, mcaller, mcallee;
	if (b->in.bad)
		return store_bulk_end_entity(b);
	if (flags > 3)
		return store_bulk_bad(b, "flags %llu: expected 0 to 3", (unsigned long long)flags);
	if (store_bulk_ref(b, part, &r->part, "part", &mpart) ||
	    store_bulk_ref(b, caller, &r->frame, "caller frame", &mcaller) ||
	    store_bulk_ref(b, callee, &r->fn, "callee function", &mcallee))
		return -1;
	uint64_t *incl = plumb_arc_append(r->p, mpart, mcaller, mcallee, calls, flags & 1, zeros,
					  r->err);
	if (!incl)
		return store_bulk_model_fail(r, b);
	for (size_t e = 0; flags & 1 && e < r->p->events.n; e++)
		incl[e] = plumb_varint_get(&b->in);
	return store_bulk_end_entity(b);
}

int store_read_arcs(rd *r, const char *kind)
{
	store_bulk_in b;
	uint64_t st[3] = { 0 };
	int more = store_bulk_in_open(&b, r->db, kind, r->path, r->err);
	b.progress = &r->progress;
	while (!more && (more = store_bulk_next(&b)) > 0)
		more = arc_entity(r, &b, st);
	store_bulk_in_close(&b);
	return more;
}

static int sample_entity(rd *r, store_bulk_in *b, uint64_t st[3])
{
	if (b->next == b->first)
		st[0] = st[1] = st[2] = 0;
	uint64_t time = plumb_unzigzag(plumb_varint_get(&b->in), st[0]);
	uint64_t part = plumb_unzigzag(plumb_varint_get(&b->in), st[1]);
	uint64_t node = plumb_unzigzag(plumb_varint_get(&b->in), st[2]);
	bool any;
	bulk_costs(r, b, &any);
	st[0] = time, st[1] = part, st[2] = node;
	plumb_id mpart, mnode;
	if (b->in.bad)
		return store_bulk_end_entity(b);
	if (store_bulk_ref(b, part, &r->part, "part", &mpart) ||
	    store_bulk_ref(b, node, &r->node, "node", &mnode))
		return -1;
	if (plumb_sample_add(r->p, time, mpart, mnode, r->vec, r->err))
		return store_bulk_model_fail(r, b);
	return store_bulk_end_entity(b);
}

int store_read_samples(rd *r)
{
	store_bulk_in b;
	uint64_t st[3] = { 0 };
	int more = store_bulk_in_open(&b, r->db, "samples", r->path, r->err);
	b.progress = &r->progress;
	while (!more && (more = store_bulk_next(&b)) > 0)
		more = sample_entity(r, &b, st);
	store_bulk_in_close(&b);
	return more;
}

