/* Raw samples + maps -> a profile: symbolize each distinct address once,
 * build each thread's calling context tree, note which stacks reach a root. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/index.h"
#include "plumb/record.h"
#include "record/heap.h"
#include "symbols/call_site.h"

#define MAX_INLINE 16

/* What a distinct (map, address) resolved to: frames outermost first. */
typedef struct addr_entry {
	int64_t map;           /* map index, or -1 - pid for no map */
	uint64_t addr;
	uint32_t first, n;     /* into conv.frames */
	plumb_id module;
} addr_entry;

enum { FN_ROOT = 1, FN_START_THREAD = 2, FN_MAIN = 4, FN_LIBC_START = 8 };

typedef struct part_key {
	int32_t pid, tid;
	plumb_id part;
	bool start_known;
} part_key;

typedef struct module_count {
	plumb_id module;
	uint64_t rooted, total;
} module_count;

/* A chain already placed in a part's tree: samples share their chains
 * (plumb_rec_data stores equal chains of a process once), and a heap
 * site's events or a hot stack's samples then cost one lookup, not a
 * symbol and a tree lookup per frame. */
typedef struct placed {
	size_t ips;
	uint32_t nips, flags;
	plumb_id part, node, leaf_module;
	bool rooted;
} placed;

/* Per address of the chain placed last, from the root: the path's length
 * after it, whether a root function was on the path so far, and the map
 * the address was found in. A next chain of the process with the same
 * addresses from the root reuses them while each map still holds at its
 * time (a process's maps live at one time do not overlap: the lookup
 * would find the same one). Heap sites come in the order their stacks
 * were first seen, and share most of their callers. */
typedef struct kept {
	uint32_t path_n;
	bool rooted;
	const plumb_rec_map *map;
} kept;

/* What an offset of a module resolved to: processes mapping the same file
 * (four compilers of one make) look each address up once. */
typedef struct file_addr {
	plumb_id module;
	uint64_t off;
	uint32_t first, n;     /* into conv.frames */
} file_addr;

typedef struct conv {
	const plumb_rec_data *d;
	plumb_profile *p;
	plumb_symbolizer *sym;
	plumb_call_sites *calls;   /* where a return address's call starts */
	addr_entry *tab;       /* open addressing; map == INT64_MIN: empty */
	size_t tab_cap, tab_n;
	PLUMB_VEC(plumb_id) frames;
	PLUMB_VEC(uint8_t) fn_flags;   /* per function id */
	PLUMB_VEC(uint8_t) mod_checked; /* per module id: its file compared */
	const plumb_rec_profile_opts *o;
	PLUMB_VEC(part_key) parts;
	PLUMB_VEC(module_count) mods;
	PLUMB_VEC(plumb_id) path;      /* one sample's frames, root first */
	/* the path placed before and its tree nodes: the next one, in the same
	 * part, starts from the node where they part */
	PLUMB_VEC(plumb_id) prev_path, prev_nodes;
	plumb_id prev_part;
	PLUMB_VEC(placed) placed;
	plumb_index placed_ix;
	PLUMB_VEC(kept) kept;
	const uint64_t *kept_chain;
	size_t kept_n, kept_first_ret;
	int32_t kept_pid;
	PLUMB_VEC(file_addr) file_addrs;
	plumb_index file_addr_ix;
	const plumb_rec_map *last_map;  /* the map the last address was in */
	uint64_t rooted, total, nostack;
} conv;

static uint64_t hash2(int64_t a, uint64_t b)
{
	uint64_t h = (uint64_t)a * 0x9e3779b97f4a7c15u ^ b;
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9u;
	return h ^ h >> 29;
}

static int tab_grow(conv *c)
{
	size_t cap = c->tab_cap ? 2 * c->tab_cap : 1024;
	addr_entry *t = malloc(cap * sizeof *t);
	if (!t)
		return -1;
	for (size_t i = 0; i < cap; i++)
		t[i].map = INT64_MIN;
	for (size_t i = 0; i < c->tab_cap; i++) {
		if (c->tab[i].map == INT64_MIN)
			continue;
		size_t j = hash2(c->tab[i].map, c->tab[i].addr) & (cap - 1);
		while (t[j].map != INT64_MIN)
			j = (j + 1) & (cap - 1);
		t[j] = c->tab[i];
	}
	free(c->tab);
	c->tab = t;
	c->tab_cap = cap;
	return 0;
}

static uint8_t function_flags(const char *name)
{
	static const char *const roots[] = { "_start", "__libc_start_main", "__libc_start_call_main",
					     "clone", "clone3", "__clone", "__clone3",
					     "__clone_internal", "thread_start" };
	if (strcmp(name, "main") == 0)
		return FN_ROOT | FN_MAIN;
	if (strcmp(name, "start_thread") == 0)
		return FN_ROOT | FN_START_THREAD;
	if (strcmp(name, "__libc_start_call_main") == 0)
		return FN_ROOT | FN_LIBC_START;
	for (size_t i = 0; i < sizeof roots / sizeof *roots; i++)
		if (strcmp(name, roots[i]) == 0)
			return FN_ROOT;
	return 0;
}

static int note_function(conv *c, plumb_id fn, const char *name)
{
	if (plumb_vec_reserve(c->fn_flags, (size_t)fn + 1))
		return -1;
	while (c->fn_flags.n <= fn)
		c->fn_flags.v[c->fn_flags.n++] = 0;
	c->fn_flags.v[fn] = function_flags(name);
	return 0;
}

/* Once per module: a file whose build-id is not the one the kernel saw
 * when the program mapped it was rebuilt or replaced since, and the names
 * and lines read from it now may be wrong. Said, not refused: the profile
 * is still the program's, and the functions may not have moved. */
static void check_file(conv *c, plumb_id mod, const plumb_rec_map *m)
{
	if (mod == PLUMB_NONE || plumb_vec_reserve(c->mod_checked, (size_t)mod + 1))
		return;
	while (c->mod_checked.n <= mod)
		c->mod_checked.v[c->mod_checked.n++] = 0;
	if (c->mod_checked.v[mod])
		return;
	c->mod_checked.v[mod] = 1;
	char now[41];
	plumb_symbolizer_build_id(c->sym, m->path, now);
	if (!now[0] || strcmp(now, m->build_id) == 0 || !c->o || !c->o->warn)
		return;
	char msg[PATH_MAX + 200];
	snprintf(msg, sizeof msg, "%s changed since the program ran (build-id %s then, %s now): "
		 "the names and lines read from it may be wrong", m->path, m->build_id, now);
	c->o->warn(c->o->warn_ctx, msg);
}

static plumb_id module_of(conv *c, const plumb_rec_map *m)
{
	char bid[41];
	const char *b = m->build_id;
	if (!b[0] && m->path[0] == '/') {
		plumb_symbolizer_build_id(c->sym, m->path, bid);
		b = bid;
	}
	plumb_id mod = plumb_module_intern(c->p, m->path, b[0] ? b : NULL);
	if (m->build_id[0] && m->path[0] == '/')
		check_file(c, mod, m);
	return mod;
}

/* A direct call's target must be mapped in the process when it ran. */
typedef struct target_check {
	const plumb_rec_data *d;
	int32_t pid;
	uint64_t ret, time_ns;
} target_check;

static bool target_mapped(void *ctx, int64_t rel)
{
	const target_check *k = ctx;
	return plumb_rec_map_find(k->d, k->pid, k->ret + (uint64_t)rel, k->time_ns) != NULL;
}

static bool file_addr_eq(const void *ctx, uint32_t id, const void *key)
{
	const conv *c = ctx;
	const file_addr *k = key;
	return c->file_addrs.v[id].module == k->module && c->file_addrs.v[id].off == k->off;
}

/* Intern the frames of one address into c->frames, outermost first. A
 * return address (ret, looked up as addr = ret - 1) is symbolized at the
 * start of its call instruction, so that the caller's frame has the call's
 * address and line. */
static int resolve(conv *c, const plumb_rec_map *m, const plumb_rec_sample *s, uint64_t addr,
		   bool ret, addr_entry *e, plumb_error *err)
{
	plumb_sym_frame f[MAX_INLINE];
	int n;
	char name[64];
	if (m) {
		uint64_t off = addr - m->start + m->pgoff;
		if (ret) {
			target_check k = { c->d, s->pid, addr + 1, s->time_ns };
			off = plumb_call_site(c->calls, m->path, off + 1, target_mapped, &k);
		}
		e->module = module_of(c, m);
		if (e->module == PLUMB_NONE)
			return plumb_fail_nomem(err);
		file_addr k = { e->module, off, 0, 0 };
		uint32_t h = (uint32_t)hash2((int64_t)e->module, off);
		uint32_t id = plumb_index_find(&c->file_addr_ix, h, file_addr_eq, c, &k);
		if (id != PLUMB_NONE) {
			e->first = c->file_addrs.v[id].first;
			e->n = c->file_addrs.v[id].n;
			return 0;
		}
		n = plumb_symbolize(c->sym, m->path, off, f, MAX_INLINE, err);
		if (n < 0)
			return -1;
		k.first = (uint32_t)c->frames.n;
		k.n = (uint32_t)n;
		if (plumb_vec_reserve(c->file_addrs, c->file_addrs.n + 1) ||
		    plumb_index_insert(&c->file_addr_ix, h, (uint32_t)c->file_addrs.n))
			return plumb_fail_nomem(err);
		c->file_addrs.v[c->file_addrs.n++] = k;
	} else {
		const char *where = addr >= 0xffff800000000000u ? "[kernel]" : "[unmapped]";
		snprintf(name, sizeof name, "%s+0x%" PRIx64, where, addr);
		memset(f, 0, sizeof *f);
		f[0].function = name;
		f[0].address = addr;
		n = 1;
		e->module = plumb_module_intern(c->p, where, NULL);
	}
	if (e->module == PLUMB_NONE || plumb_vec_reserve(c->frames, c->frames.n + (size_t)n))
		return plumb_fail_nomem(err);
	e->first = (uint32_t)c->frames.n;
	e->n = (uint32_t)n;
	for (int i = n - 1; i >= 0; i--) {
		plumb_id file = f[i].decl_file ? plumb_file_intern(c->p, f[i].decl_file) : PLUMB_NONE;
		plumb_id fn = plumb_function_intern(c->p, f[i].function, f[i].mangled, e->module, file,
						    f[i].decl_line);
		plumb_id lfile = f[i].file ? plumb_file_intern(c->p, f[i].file) : PLUMB_NONE;
		if (fn == PLUMB_NONE || note_function(c, fn, f[i].function))
			return plumb_fail_nomem(err);
		plumb_id fr = plumb_frame_intern(c->p, fn, lfile, f[i].line, f[i].address);
		if (fr == PLUMB_NONE)
			return plumb_fail_nomem(err);
		c->frames.v[c->frames.n++] = fr;
	}
	return 0;
}

/* The entry for address addr of a sample (return addresses already - 1,
 * and ret set). */
static addr_entry *lookup(conv *c, const plumb_rec_sample *s, uint64_t addr, bool ret,
			  plumb_error *err)
{
	/* A process's maps live at one time do not overlap (a new mmap ends
	 * those it covers): the map of the frame before, when it holds addr
	 * then, is the one the search would find. */
	const plumb_rec_map *m = c->last_map;
	if (!m || m->pid != s->pid || addr < m->start || addr >= m->end || s->time_ns < m->time_ns ||
	    s->time_ns >= m->end_ns) {
		m = plumb_rec_map_find(c->d, s->pid, addr, s->time_ns);
		c->last_map = m && s->time_ns >= m->time_ns && s->time_ns < m->end_ns ? m : NULL;
	}
	int64_t key = m ? (int64_t)(m - c->d->maps.v) : -1 - (int64_t)s->pid;
	if ((c->tab_n + 1) * 2 > c->tab_cap && tab_grow(c)) {
		plumb_fail_nomem(err);
		return NULL;
	}
	size_t j = hash2(key, addr) & (c->tab_cap - 1);
	while (c->tab[j].map != INT64_MIN) {
		if (c->tab[j].map == key && c->tab[j].addr == addr)
			return &c->tab[j];
		j = (j + 1) & (c->tab_cap - 1);
	}
	addr_entry e = { key, addr, 0, 0, PLUMB_NONE };
	if (resolve(c, m, s, addr, ret, &e, err))
		return NULL;
	c->tab[j] = e;
	c->tab_n++;
	return &c->tab[j];
}

/* The frame of a waited-for object (chain[0] of a PLUMB_REC_LOCK sample):
 * a function "[mutex name]" in module "[locks]", one per object. */
static addr_entry *lookup_lock(conv *c, const plumb_rec_sample *s, uint64_t addr, plumb_error *err)
{
	int64_t key = -((int64_t)1 << 40) - s->pid;
	if ((c->tab_n + 1) * 2 > c->tab_cap && tab_grow(c)) {
		plumb_fail_nomem(err);
		return NULL;
	}
	size_t j = hash2(key, addr) & (c->tab_cap - 1);
	while (c->tab[j].map != INT64_MIN) {
		if (c->tab[j].map == key && c->tab[j].addr == addr)
			return &c->tab[j];
		j = (j + 1) & (c->tab_cap - 1);
	}
	char name[320];
	plumb_rec_lock_label(c->d, s->pid, s->time_ns, addr, (s->flags >> 8) & 0xff, name, sizeof name);
	addr_entry e = { key, addr, (uint32_t)c->frames.n, 1, plumb_module_intern(c->p, "[locks]", NULL) };
	plumb_id fn = e.module == PLUMB_NONE ? PLUMB_NONE
					     : plumb_function_intern(c->p, name, NULL, e.module, PLUMB_NONE, 0);
	plumb_id fr = fn == PLUMB_NONE || note_function(c, fn, name)
			      ? PLUMB_NONE
			      : plumb_frame_intern(c->p, fn, PLUMB_NONE, 0, addr);
	if (fr == PLUMB_NONE || plumb_vec_reserve(c->frames, c->frames.n + 1)) {
		plumb_fail_nomem(err);
		return NULL;
	}
	c->frames.v[c->frames.n++] = fr;
	c->tab[j] = e;
	c->tab_n++;
	return &c->tab[j];
}

static part_key *part_of(conv *c, int32_t pid, int32_t tid, plumb_error *err)
{
	for (size_t i = c->parts.n; i-- > 0;)
		if (c->parts.v[i].tid == tid && c->parts.v[i].pid == pid)
			return &c->parts.v[i];
	const char *name = NULL;
	for (size_t i = 0; i < c->d->threads.n; i++)
		if (c->d->threads.v[i].tid == tid && c->d->threads.v[i].pid == pid && c->d->threads.v[i].name[0])
			name = c->d->threads.v[i].name;
	plumb_id part = plumb_part_add(c->p, PLUMB_PART_THREAD, name, pid, tid);
	if (part == PLUMB_NONE || plumb_vec_reserve(c->parts, c->parts.n + 1)) {
		plumb_fail_nomem(err);
		return NULL;
	}
	c->parts.v[c->parts.n] = (part_key){ pid, tid, part, false };
	return &c->parts.v[c->parts.n++];
}

static int count_module(conv *c, plumb_id module, bool rooted, plumb_error *err)
{
	module_count *mc = NULL;
	for (size_t i = 0; i < c->mods.n && !mc; i++)
		if (c->mods.v[i].module == module)
			mc = &c->mods.v[i];
	if (!mc) {
		if (plumb_vec_reserve(c->mods, c->mods.n + 1))
			return plumb_fail_nomem(err);
		mc = &c->mods.v[c->mods.n++];
		*mc = (module_count){ module, 0, 0 };
	}
	mc->total++;
	mc->rooted += rooted;
	return 0;
}

/* The thread's start routine from a root-first path: the function that
 * start_thread called, or main, or (when main tail-called on) what libc's
 * start code called. */
static plumb_id start_function(const conv *c, const plumb_id *path, size_t n)
{
	plumb_id main_fn = PLUMB_NONE, after_libc = PLUMB_NONE;
	for (size_t i = 0; i < n; i++) {
		plumb_id fn = c->p->frames.v[path[i]].function;
		uint8_t fl = c->fn_flags.v[fn];
		if ((fl & FN_START_THREAD) && i + 1 < n)
			return c->p->frames.v[path[i + 1]].function;
		if ((fl & FN_MAIN) && main_fn == PLUMB_NONE)
			main_fn = fn;
		if ((fl & FN_LIBC_START) && i + 1 < n && after_libc == PLUMB_NONE)
			after_libc = c->p->frames.v[path[i + 1]].function;
	}
	return main_fn != PLUMB_NONE ? main_fn : after_libc;
}

static bool placed_eq(const void *ctx, uint32_t id, const void *key)
{
	const placed *a = &((const conv *)ctx)->placed.v[id], *b = key;
	return a->ips == b->ips && a->nips == b->nips && a->flags == b->flags && a->part == b->part;
}

static uint32_t placed_hash(const placed *k)
{
	uint64_t h = plumb_hash_mix((uint64_t)k->ips, (uint64_t)k->nips << 32 | k->flags);
	return (uint32_t)plumb_hash_mix(h, k->part);
}

/* The tree node of c->path in part: the frames it shares from the root
 * with the path placed before are not looked up again. */
static plumb_id place_path(conv *c, plumb_id part)
{
	size_t n = c->path.n, same = 0;
	if (c->prev_part == part && c->prev_path.n)
		while (same < n && same < c->prev_path.n && c->path.v[same] == c->prev_path.v[same])
			same++;
	if (plumb_vec_reserve(c->prev_nodes, n) || plumb_vec_reserve(c->prev_path, n))
		return PLUMB_NONE;
	plumb_id node = same ? c->prev_nodes.v[same - 1] : c->p->parts.v[part].root;
	for (size_t i = same; i < n && node != PLUMB_NONE; i++) {
		size_t had = c->p->cct.n;
		node = plumb_cct_child(c->p, node, c->path.v[i]);
		c->prev_nodes.v[i] = node;
		if (node != PLUMB_NONE && node >= had && i + 1 < n) {
			/* a new node: the rest of the path is new below it, made
			 * without looking each node up (and failing) first */
			node = plumb_cct_new_path(c->p, node, c->path.v + i + 1, n - i - 1,
						  c->prev_nodes.v + i + 1)
				       ? PLUMB_NONE
				       : c->prev_nodes.v[n - 1];
			break;
		}
	}
	if (node == PLUMB_NONE || !n) {
		c->prev_path.n = 0;
		return node;
	}
	memcpy(c->prev_path.v + same, c->path.v + same, (n - same) * sizeof *c->path.v);
	c->prev_path.n = c->prev_nodes.n = n;
	c->prev_part = part;
	return node;
}

/* The tree node of sample s's chain in part pk: placed once per chain. */
static const placed *place(conv *c, const plumb_rec_sample *s, part_key *pk, plumb_error *err)
{
	placed k = { s->ips, s->nips, s->flags, pk->part, PLUMB_NONE, PLUMB_NONE, false };
	uint32_t h = placed_hash(&k);
	uint32_t id = plumb_index_find(&c->placed_ix, h, placed_eq, c, &k);
	if (id != PLUMB_NONE)
		return &c->placed.v[id];
	const uint64_t *chain = c->d->ips.v + s->ips;
	bool rooted = false;
	plumb_id leaf_module = PLUMB_NONE;
	/* a lock sample: chain[0] the object, chain[1] the waiting function's pc */
	size_t first_ret = s->flags & PLUMB_REC_LOCK ? 2 : 1;
	/* the addresses it shares with the chain placed last, from the root
	 * (return addresses in both: looked up alike) */
	size_t shared = 0;
	if (c->kept_n && c->kept_pid == s->pid && s->nips > first_ret && c->kept_n > c->kept_first_ret) {
		size_t max = s->nips - first_ret < c->kept_n - c->kept_first_ret ? s->nips - first_ret
										 : c->kept_n - c->kept_first_ret;
		while (shared < max && chain[s->nips - 1 - shared] == c->kept_chain[c->kept_n - 1 - shared]) {
			const plumb_rec_map *m = c->kept.v[shared].map;
			if (!m || s->time_ns < m->time_ns || s->time_ns >= m->end_ns)
				break;
			shared++;
		}
	}
	c->path.n = shared ? c->kept.v[shared - 1].path_n : 0;
	rooted = shared && c->kept.v[shared - 1].rooted;
	if (plumb_vec_reserve(c->kept, s->nips)) {
		plumb_fail_nomem(err);
		return NULL;
	}
	for (size_t i = s->nips - shared; i-- > 0;) {
		uint64_t a = chain[i];
		bool ret = i >= first_ret && a > 0;
		addr_entry *e = i == 0 && first_ret == 2 ? lookup_lock(c, s, a, err)
							 : lookup(c, s, ret ? a - 1 : a, ret, err);
		if (!e || plumb_vec_reserve(c->path, c->path.n + e->n)) {
			if (e)
				plumb_fail_nomem(err);
			c->kept_n = 0;
			return NULL;
		}
		for (uint32_t j = 0; j < e->n; j++) {
			plumb_id fr = c->frames.v[e->first + j];
			rooted |= (c->fn_flags.v[c->p->frames.v[fr].function] & FN_ROOT) != 0;
			c->path.v[c->path.n++] = fr;
		}
		if (i == 0)
			leaf_module = e->module;
		c->kept.v[s->nips - 1 - i] = (kept){ (uint32_t)c->path.n, rooted,
						     e->map >= 0 ? &c->d->maps.v[e->map] : NULL };
	}
	c->kept_chain = chain;
	c->kept_n = s->nips;
	c->kept_first_ret = first_ret;
	c->kept_pid = s->pid;
	if (!pk->start_known) {
		plumb_id fn = start_function(c, c->path.v, c->path.n);
		if (fn != PLUMB_NONE) {
			c->p->parts.v[pk->part].start_function = fn;
			pk->start_known = true;
		}
	}
	k.node = place_path(c, pk->part);
	k.leaf_module = leaf_module;
	k.rooted = rooted;
	if (k.node == PLUMB_NONE || plumb_vec_push(c->placed, k) ||
	    plumb_index_insert(&c->placed_ix, h, (uint32_t)(c->placed.n - 1))) {
		plumb_fail_nomem(err);
		return NULL;
	}
	return &c->placed.v[c->placed.n - 1];
}

static int add_sample(conv *c, const plumb_rec_sample *s, uint64_t *costs, bool keep,
		      plumb_error *err)
{
	if (s->nips == 0) {
		c->nostack++;
		return 0;
	}
	part_key *pk = part_of(c, s->pid, s->tid, err);
	if (!pk)
		return -1;
	const placed *pl = place(c, s, pk, err);
	if (!pl)
		return -1;
	plumb_id node = pl->node, leaf_module = pl->leaf_module;
	bool rooted = pl->rooted;
	costs[s->event] = s->weight;
	int rc = plumb_cct_add_self(c->p, node, costs, err);
	if (rc == 0 && keep)
		rc = plumb_sample_add(c->p, s->time_ns, pk->part, node, costs, err);
	costs[s->event] = 0;
	c->total++;
	c->rooted += rooted;
	return rc ? rc : count_module(c, leaf_module, rooted, err);
}

/* Start routines the sampler knew (the signal sampler sees pthread_create). */
static int known_start_routines(conv *c, plumb_error *err)
{
	for (size_t i = 0; i < c->d->threads.n; i++) {
		const plumb_rec_thread *t = &c->d->threads.v[i];
		if (!t->start_routine)
			continue;
		part_key *pk = NULL;
		for (size_t j = 0; j < c->parts.n && !pk; j++)
			if (c->parts.v[j].tid == t->tid && c->parts.v[j].pid == t->pid)
				pk = &c->parts.v[j];
		if (!pk)
			continue; /* a thread without samples gets no part */
		plumb_rec_sample s = { t->pid, t->tid, UINT64_MAX - 1, 0, 0, 0, 0, 0 };
		addr_entry *e = lookup(c, &s, t->start_routine, false, err);
		if (!e)
			return -1;
		c->p->parts.v[pk->part].start_function =
			c->p->frames.v[c->frames.v[e->first]].function;
	}
	return 0;
}

static int set_meta_u64(plumb_profile *p, const char *key, uint64_t v, plumb_error *err)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRIu64, v);
	return plumb_meta_set(p, key, buf, err);
}

static int write_meta(conv *c, plumb_error *err)
{
	char key[4200], val[64];
	if (set_meta_u64(c->p, "record.samples", c->d->samples.n, err) ||
	    set_meta_u64(c->p, "record.lost", c->d->lost, err) ||
	    set_meta_u64(c->p, "record.throttled", c->d->throttled, err) ||
	    (c->nostack && set_meta_u64(c->p, "record.no_stack", c->nostack, err)))
		return -1;
	for (size_t i = 0; i < c->d->meta.n; i++) {
		const char *kv = c->d->meta.v[i], *tab = strchr(kv, '\t');
		snprintf(key, sizeof key, "%.*s", (int)(tab - kv), kv);
		if (plumb_meta_set(c->p, key, tab + 1, err))
			return -1;
	}
	snprintf(val, sizeof val, "%" PRIu64 " %" PRIu64, c->rooted, c->total);
	if (plumb_meta_set(c->p, "stacks.rooted", val, err))
		return -1;
	for (size_t i = 0; i < c->mods.n; i++) {
		const module_count *mc = &c->mods.v[i];
		snprintf(key, sizeof key, "stacks.rooted:%s",
			 plumb_str(c->p, c->p->modules.v[mc->module].path));
		snprintf(val, sizeof val, "%" PRIu64 " %" PRIu64, mc->rooted, mc->total);
		if (plumb_meta_set(c->p, key, val, err))
			return -1;
	}
	return 0;
}

static int convert(conv *c, const plumb_rec_profile_opts *o, plumb_error *err)
{
	for (size_t i = 0; i < c->d->events.n; i++) {
		/* Sampled every Nth event: costs count events, and the period
		 * gives the samples back (report shows both). */
		uint64_t period = c->d->periods ? c->d->periods[i] : 0;
		const char *name = c->d->events.v[i];
		/* heap and wait events have units of their own (bytes, allocations, ns) */
		const char *heap_unit = plumb_heap_event_unit(name), *wait_unit = plumb_rec_event_unit(name);
		const char *unit = strcmp(heap_unit, "samples") != 0 ? heap_unit
				   : strcmp(wait_unit, "samples") != 0 ? wait_unit
				   : !period ? "samples"
				   : strcmp(name, "cpu-clock") == 0 || strcmp(name, "task-clock") == 0 ? "ns"
				   : "events";
		uint64_t count = !period && c->d->counts ? c->d->counts[i] : 0;
		char key[4200], val[32];
		snprintf(key, sizeof key, "count.%s", name);
		snprintf(val, sizeof val, "%" PRIu64 " %s", count,
			 strcmp(name, "cpu-clock") == 0 || strcmp(name, "task-clock") == 0 ? "ns" : "events");
		if (plumb_event_add(c->p, name, NULL, unit, err) < 0 ||
		    (period && plumb_event_set_period(c->p, (int)i, period, err)) ||
		    (count && plumb_meta_set(c->p, key, val, err)))
			return -1;
	}
	uint64_t *costs = calloc(c->d->events.n ? c->d->events.n : 1, sizeof *costs);
	if (!costs)
		return plumb_fail_nomem(err);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < c->d->samples.n; i++)
		rc = add_sample(c, &c->d->samples.v[i], costs, o && o->keep_samples, err);
	free(costs);
	if (rc == 0)
		rc = known_start_routines(c, err);
	return rc ? rc : write_meta(c, err);
}

int plumb_rec_to_profile(const plumb_rec_data *d, const plumb_rec_profile_opts *o,
			 plumb_profile *p, plumb_error *err)
{
	if (p->events.n)
		return plumb_fail(err, PLUMB_ERR_USAGE, "plumb_rec_to_profile: the profile has events already");
	conv c = { .d = d, .p = p, .o = o };
	c.sym = plumb_symbolizer_new(o ? o->debug_path : NULL, err);
	if (!c.sym)
		return -1;
	c.calls = plumb_call_sites_new();
	int rc = c.calls ? convert(&c, o, err) : plumb_fail_nomem(err);
	plumb_call_sites_free(c.calls);
	plumb_symbolizer_free(c.sym);
	free(c.tab);
	free(c.frames.v);
	free(c.fn_flags.v);
	free(c.mod_checked.v);
	free(c.parts.v);
	free(c.mods.v);
	free(c.path.v);
	free(c.prev_path.v);
	free(c.prev_nodes.v);
	free(c.placed.v);
	free(c.kept.v);
	plumb_index_free(&c.placed_ix);
	plumb_index_free(&c.file_addr_ix);
	free(c.file_addrs.v);
	return rc;
}
