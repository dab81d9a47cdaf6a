/* plumb: the pprof writer (gzip-wrapped profile.proto; docs/pprof.md).
 *
 * - events become sample types (unit "count" when an event has none), the
 *   first event the default sample type;
 * - every CCT node with a self cost becomes a sample: its path, leaf
 *   first, as locations. Frames that follow each other at one address in
 *   one module (a recording's inlined calls, or a pprof location read in)
 *   are one location with several lines, innermost first; other frames are
 *   a location each, with the frame's address and its module's mapping
 *   (path and build id);
 * - a call graph (Callgrind, gmon.out) has no stacks: each self cost is a
 *   one-frame sample and the arcs are lost (plumb_pprof_losses says so);
 * - thread parts become "thread_id" (number) and "thread" (name) labels,
 *   process parts "pid", dumps "part";
 * - the "pprof.*" metadata that the reader keeps is written back (period,
 *   duration, time, comments, drop/keep frames).
 */
#include "formats/pprof_internal.h"
#include "model/index.h"
#include "model/varint.h"
#include "formats/pprof_profile.pb-c.h"
#include "plumb/formats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;

/* The string table: profile strings by id, the writer's own after them. */
typedef struct wstrings {
	int64_t *of_id;          /* plumb string id -> index, 0 = not yet */
	char **table;
	size_t n, cap;
	char **own;              /* strdup'd strings not in the profile */
	size_t nown;
} wstrings;

/* Locations, found by their frames (innermost first). */
typedef struct wloc {
	uint64_t hash;
	size_t off;              /* frames in keys[off .. off + n) */
	uint32_t n;
} wloc;

typedef struct writer {
	const plumb_profile *p;
	plumb_error *err;
	wstrings s;
	uint64_t *fn_id;         /* plumb function -> pprof function id, 0 = not yet */
	uint64_t *mod_id;        /* plumb module -> pprof mapping id, 0 = not yet */
	PLUMB_VEC(Perftools__Profiles__Function) fns;
	PLUMB_VEC(Perftools__Profiles__Mapping) maps;
	PLUMB_VEC(wloc) locs;
	PLUMB_VEC(uint32_t) keys;
	uint32_t *slots;         /* location index + 1, 0 = empty */
	size_t nslots;
	PLUMB_VEC(pb_line) lines;
} writer;

/* Room for need elements; the check inline (a push per stack frame). */
#define GROW(w, vec, need) \
	((need) <= (vec).cap ? 0 : plumb_vec_reserve_((void **)&(vec).v, &(vec).cap, (need), sizeof *(vec).v))

/* ---- strings -------------------------------------------------------------- */

static int64_t add_table(writer *w, char *s)
{
	if (plumb_vec_reserve_((void **)&w->s.table, &w->s.cap, w->s.n + 1, sizeof *w->s.table) < 0)
		return -1;
	w->s.table[w->s.n] = s;
	return (int64_t)w->s.n++;
}

/* The index of a profile string (0 for PLUMB_NONE); -1 on ENOMEM. */
static int64_t str_id(writer *w, plumb_id id)
{
	if (id == PLUMB_NONE)
		return 0;
	if (!w->s.of_id[id])
		w->s.of_id[id] = add_table(w, (char *)plumb_str(w->p, id));
	return w->s.of_id[id];
}

/* The index of any string: a profile string when it is one. */
static int64_t str_of(writer *w, const char *s)
{
	if (!s || !*s)
		return 0;
	plumb_id id = plumb_string_find(w->p, s);
	if (id != PLUMB_NONE)
		return str_id(w, id);
	for (size_t i = 0; i < w->s.nown; i++)
		if (strcmp(w->s.own[i], s) == 0)
			for (size_t k = 0; k < w->s.n; k++)
				if (w->s.table[k] == w->s.own[i])
					return (int64_t)k;
	char *copy = strdup(s);
	char **own = realloc(w->s.own, (w->s.nown + 1) * sizeof *own);
	if (!copy || !own) {
		free(copy);
		if (own)
			w->s.own = own;
		return -1;
	}
	w->s.own = own;
	own[w->s.nown++] = copy;
	return add_table(w, copy);
}

/* ---- functions, mappings, locations ------------------------------------------ */

static uint64_t mapping_of(writer *w, plumb_id mod)
{
	if (mod == PLUMB_NONE || mod >= w->p->modules.n)
		return 0;
	if (w->mod_id[mod])
		return w->mod_id[mod];
	const plumb_module *m = &w->p->modules.v[mod];
	if (GROW(w, w->maps, w->maps.n + 1) < 0)
		return UINT64_MAX;
	Perftools__Profiles__Mapping pm = PERFTOOLS__PROFILES__MAPPING__INIT;
	pm.id = w->maps.n + 1;
	pm.filename = str_id(w, m->path);
	pm.build_id = str_id(w, m->build_id);
	/* symbolized already: pprof must not look for the binaries */
	pm.has_functions = pm.has_filenames = pm.has_line_numbers = pm.has_inline_frames = 1;
	if (pm.filename < 0 || pm.build_id < 0)
		return UINT64_MAX;
	w->maps.v[w->maps.n++] = pm;
	return w->mod_id[mod] = pm.id;
}

static uint64_t function_of(writer *w, plumb_id fn)
{
	if (w->fn_id[fn])
		return w->fn_id[fn];
	const plumb_function *f = &w->p->functions.v[fn];
	if (GROW(w, w->fns, w->fns.n + 1) < 0)
		return UINT64_MAX;
	Perftools__Profiles__Function pf = PERFTOOLS__PROFILES__FUNCTION__INIT;
	pf.id = w->fns.n + 1;
	pf.name = str_of(w, plumb_function_name(w->p, fn));
	pf.system_name = f->mangled != PLUMB_NONE ? str_id(w, f->mangled) : pf.name;
	pf.filename = f->file != PLUMB_NONE ? str_id(w, w->p->files.v[f->file].path) : 0;
	pf.start_line = f->line;
	if (pf.name < 0 || pf.system_name < 0 || pf.filename < 0)
		return UINT64_MAX;
	w->fns.v[w->fns.n++] = pf;
	return w->fn_id[fn] = pf.id;
}

static uint64_t hash_ids(const uint32_t *ids, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ ids[i]) * 0x100000001b3u;
	return h ^ (h >> 29);
}

static int grow_slots(writer *w)
{
	size_t ns = w->nslots ? w->nslots * 2 : 1024;
	uint32_t *slots = calloc(ns, sizeof *slots);
	if (!slots)
		return -1;
	for (size_t k = 0; k < w->locs.n; k++) {
		size_t i = w->locs.v[k].hash & (ns - 1);
		while (slots[i])
			i = (i + 1) & (ns - 1);
		slots[i] = (uint32_t)k + 1;
	}
	free(w->slots);
	w->slots = slots;
	w->nslots = ns;
	return 0;
}

/* The location id (index + 1) of frames (innermost first); 0 on ENOMEM. */
static uint64_t location_of(writer *w, const uint32_t *frames, size_t n)
{
	uint64_t h = hash_ids(frames, n);
	if ((w->locs.n + 1) * 2 > w->nslots && grow_slots(w) < 0)
		return 0;
	size_t i = h & (w->nslots - 1);
	for (; w->slots[i]; i = (i + 1) & (w->nslots - 1)) {
		const wloc *l = &w->locs.v[w->slots[i] - 1];
		if (l->hash == h && l->n == n &&
		    memcmp(w->keys.v + l->off, frames, n * sizeof *frames) == 0)
			return w->slots[i];
	}
	if (GROW(w, w->locs, w->locs.n + 1) < 0 || GROW(w, w->keys, w->keys.n + n) < 0)
		return 0;
	w->locs.v[w->locs.n] = (wloc){ .hash = h, .off = w->keys.n, .n = (uint32_t)n };
	memcpy(w->keys.v + w->keys.n, frames, n * sizeof *frames);
	w->keys.n += n;
	w->slots[i] = (uint32_t)++w->locs.n;
	return w->locs.n;
}

/* Do parent's and child's frames belong to one location (inlined calls
 * at one address)? */
static bool same_location(const plumb_profile *p, plumb_id pf, plumb_id cf)
{
	if (pf == PLUMB_NONE || cf == PLUMB_NONE || pf == cf)
		return false;
	const plumb_frame *a = &p->frames.v[pf], *b = &p->frames.v[cf];
	if (!a->address || a->address != b->address)
		return false;
	plumb_id ma = a->function != PLUMB_NONE ? p->functions.v[a->function].module : PLUMB_NONE;
	plumb_id mb = b->function != PLUMB_NONE ? p->functions.v[b->function].module : PLUMB_NONE;
	return ma == mb;
}

/* Fill the pprof locations from the keys: lines, address, mapping. */
static int build_locations(writer *w, pb_location *locs, pb_location **ptrs, pb_line **lptrs)
{
	const plumb_profile *p = w->p;
	size_t nl = 0;
	for (size_t k = 0; k < w->locs.n; k++)
		nl += w->locs.v[k].n;
	if (GROW(w, w->lines, nl) < 0)
		return -1;
	size_t li = 0;
	for (size_t k = 0; k < w->locs.n; k++) {
		const wloc *l = &w->locs.v[k];
		pb_location loc = PERFTOOLS__PROFILES__LOCATION__INIT;
		loc.id = k + 1;
		loc.line = lptrs + li;
		for (uint32_t j = 0; j < l->n; j++) {
			const plumb_frame *fr = &p->frames.v[w->keys.v[l->off + j]];
			if (j == 0) {
				loc.address = fr->address;
				if (fr->function != PLUMB_NONE &&
				    (loc.mapping_id = mapping_of(w, p->functions.v[fr->function].module)) ==
					    UINT64_MAX)
					return -1;
			}
			if (fr->function == PLUMB_NONE)
				continue;
			pb_line line = PERFTOOLS__PROFILES__LINE__INIT;
			if ((line.function_id = function_of(w, fr->function)) == UINT64_MAX)
				return -1;
			line.line = fr->line;
			w->lines.v[li] = line;
			lptrs[li] = &w->lines.v[li];
			li++;
			loc.n_line++;
		}
		locs[k] = loc;
		ptrs[k] = &locs[k];
	}
	return 0;
}

/* ---- samples --------------------------------------------------------------- */

typedef struct part_labels {
	Perftools__Profiles__Label l[3];
	Perftools__Profiles__Label *ptr[3];
	size_t n;
} part_labels;

static int label_part(writer *w, const plumb_part *pt, part_labels *pl)
{
	Perftools__Profiles__Label init = PERFTOOLS__PROFILES__LABEL__INIT;
	pl->n = 0;
	const char *name = plumb_str(w->p, pt->name);
	if (pt->kind == PLUMB_PART_THREAD) {
		if (pt->tid >= 0) {
			pl->l[pl->n] = init;
			pl->l[pl->n].key = str_of(w, "thread_id");
			pl->l[pl->n++].num = pt->tid;
		}
		if (name) {
			pl->l[pl->n] = init;
			pl->l[pl->n].key = str_of(w, "thread");
			pl->l[pl->n++].str = str_id(w, pt->name);
		}
	} else if (pt->kind == PLUMB_PART_DUMP && name) {
		pl->l[pl->n] = init;
		pl->l[pl->n].key = str_of(w, "part");
		pl->l[pl->n++].str = str_id(w, pt->name);
	}
	if (pt->pid >= 0 && (pt->kind == PLUMB_PART_THREAD || pt->kind == PLUMB_PART_PROCESS)) {
		pl->l[pl->n] = init;
		pl->l[pl->n].key = str_of(w, "pid");
		pl->l[pl->n++].num = pt->pid;
	}
	for (size_t i = 0; i < pl->n; i++) {
		if (pl->l[i].key < 0 || pl->l[i].str < 0)
			return -1;
		pl->ptr[i] = &pl->l[i];
	}
	return 0;
}

/* ---- the samples' bytes: encoded by hand as protobuf-c packs them, each
 * appended to the message when its node is met (no Sample structs, and no
 * arrays of every sample's locations and values to encode afterwards) ---- */

/* The message as it is made: the sample types' bytes, the samples', then
 * (encode) the other fields', handed to the compressor a piece at a time. */
typedef struct wout {
	uint8_t *buf;              /* the piece being filled: n of cap bytes */
	size_t n, cap;
	pprof_gz *gz;
	const part_labels *labels;
	const size_t *label_len;   /* per part: its labels' bytes */
} wout;

/* Room for need more bytes in the piece: a full one goes to the
 * compressor and another begins. */
static int out_room(writer *w, wout *o, size_t need)
{
	if (o->n + need <= o->cap)
		return 0;
	int rc = 0;
	if (o->n)
		rc = pprof_gz_add(o->gz, o->buf, o->n, w->err);
	else
		free(o->buf);
	o->n = 0;
	o->cap = need > pprof_gzip_member ? need : pprof_gzip_member;
	o->buf = rc ? NULL : malloc(o->cap);
	if (o->buf)
		return 0;
	o->cap = 0;
	return rc ? -1 : plumb_fail_nomem(w->err);
}

/* The bytes of varint v. */
static size_t vlen(uint64_t v)
{
	/* 7 bits a byte: (bits - 1) / 7 + 1, without a loop or a divide */
	return (size_t)((63 - __builtin_clzll(v | 1)) * 9 + 73) / 64;
}

/* A part's labels as fields 3 of a Sample, into out (NULL: the size). */
static size_t put_labels(const part_labels *pl, uint8_t *out)
{
	size_t n = 0;
	for (size_t i = 0; i < pl->n; i++) {
		const Perftools__Profiles__Label *l = &pl->l[i];
		int64_t f[4] = { l->key, l->str, l->num, l->num_unit };
		size_t body = 0;
		for (int k = 0; k < 4; k++) /* proto3: zero is left out */
			body += f[k] ? 1 + vlen((uint64_t)f[k]) : 0;
		n += 1 + vlen(body) + body;
		if (!out)
			continue;
		*out++ = 3 << 3 | 2;
		out = plumb_varint_put(out, body);
		for (int k = 0; k < 4; k++)
			if (f[k]) {
				*out++ = (uint8_t)((k + 1) << 3);
				out = plumb_varint_put(out, (uint64_t)f[k]);
			}
	}
	return n;
}

/* A sample of part's labels, locations loc[0..nl) (leaf first) and costs,
 * appended to the message; none when every cost is 0. */
static int put_sample(writer *w, wout *o, const uint32_t *loc, size_t nl, const uint64_t *costs,
		      plumb_id part)
{
	size_t nev = w->p->events.n, lb = 0, vb = 0;
	bool any = false;
	for (size_t e = 0; e < nev; e++) {
		if (costs[e] > INT64_MAX)
			return plumb_fail(w->err, PLUMB_ERR_OVERFLOW, "pprof output: expected costs of "
					  "at most %" PRId64 " (pprof's values are signed), got %" PRIu64,
					  INT64_MAX, costs[e]);
		any |= costs[e] != 0;
		vb += vlen(costs[e]);
	}
	if (!any)
		return 0;
	for (size_t k = 0; k < nl; k++)
		lb += vlen(loc[k]);
	size_t body = (nl ? 1 + vlen(lb) + lb : 0) + (nev ? 1 + vlen(vb) + vb : 0) +
		      o->label_len[part];
	size_t need = 1 + vlen(body) + body;
	if (out_room(w, o, need) < 0)
		return -1;
	uint8_t *out = o->buf + o->n;
	*out++ = 2 << 3 | 2;
	out = plumb_varint_put(out, body);
	if (nl) {
		*out++ = 1 << 3 | 2;
		out = plumb_varint_put(out, lb);
		for (size_t k = 0; k < nl; k++)
			out = plumb_varint_put(out, loc[k]);
	}
	if (nev) {
		*out++ = 2 << 3 | 2;
		out = plumb_varint_put(out, vb);
		for (size_t k = 0; k < nev; k++)
			out = plumb_varint_put(out, costs[k]);
	}
	put_labels(&o->labels[part], out);
	o->n += need;
	return 0;
}

/* ---- the CCT's samples: the tree walked in node order with the path from
 * the root to the node at hand, level by level. A reader that adds its
 * stacks in sorted order (pprof, folded) numbers the nodes depth first:
 * each node's parent is then on the path, and a sample's locations come
 * from it (no walk up through the parent links, which costs a cache miss a
 * frame). Other trees rebuild the path at each sample. ------------------- */

typedef struct wlevel {
	plumb_id node, frame;
	uint32_t run;    /* the level where the run of frames at one location ending here starts */
	uint32_t loc;    /* that run's location id, 0 = not yet found */
} wlevel;

typedef struct wpath {
	PLUMB_VEC(wlevel) lv;    /* lv.v[0] is the part root; lv.n levels */
	PLUMB_VEC(uint32_t) frames, locs;   /* a run's frames, a sample's locations */
	/* the location of a run of one frame, by frame: most runs, found
	 * without hashing; and the last location of several frames met with
	 * a frame innermost, checked before a lookup (usually the one) */
	uint32_t *frame_loc, *multi_loc;
	bool addresses;   /* some frame has one: runs of inlined frames can be */
} wpath;

/* Level d holds node (level d - 1 holds its parent). */
static void set_level(const plumb_profile *p, wpath *pa, size_t d, plumb_id node)
{
	wlevel *l = &pa->lv.v[d];
	l->node = node;
	l->frame = p->cct.v[node].frame;
	l->loc = 0;
	/* below the root, a frame at its parent's location continues its run */
	l->run = d >= 2 && pa->addresses && same_location(p, l[-1].frame, l->frame) ? l[-1].run
										   : (uint32_t)d;
	pa->lv.n = d + 1;
}

/* Room for d + 1 levels, and for a sample's locations and a run's frames. */
static inline int path_room(writer *w, wpath *pa, size_t d)
{
	return GROW(w, pa->lv, d + 1) < 0 || GROW(w, pa->locs, d + 1) < 0 ||
	       GROW(w, pa->frames, d + 1) < 0 ? plumb_fail_nomem(w->err) : 0;
}

/* The path to node, from its parent links. */
static int path_rebuild(writer *w, wpath *pa, plumb_id node)
{
	const plumb_profile *p = w->p;
	size_t depth = 0;
	for (plumb_id x = p->cct.v[node].parent; x != PLUMB_NONE; x = p->cct.v[x].parent)
		depth++;
	if (path_room(w, pa, depth) < 0)
		return -1;
	plumb_id x = node;
	for (size_t d = depth + 1; d-- > 0; x = p->cct.v[x].parent)
		pa->lv.v[d].node = x;
	for (size_t d = 0; d <= depth; d++)
		set_level(p, pa, d, pa->lv.v[d].node);
	return 0;
}

/* The location of the run of frames ending at level d; 0 on ENOMEM. */
static uint32_t run_location(writer *w, wpath *pa, size_t d)
{
	wlevel *l = &pa->lv.v[d];
	if (l->loc)
		return l->loc;
	if (l->run == d) {
		uint32_t *fl = &pa->frame_loc[l->frame];
		if (!*fl)
			*fl = (uint32_t)location_of(w, &l->frame, 1);
		return l->loc = *fl;
	}
	size_t n = d - l->run + 1;
	uint32_t *frames = pa->frames.v;
	for (size_t k = 0; k < n; k++) /* innermost first */
		frames[k] = l[-(ptrdiff_t)k].frame;
	uint32_t *last = &pa->multi_loc[frames[0]];
	const wloc *had = *last ? &w->locs.v[*last - 1] : NULL;
	bool same = had && had->n == n;
	for (size_t k = 0; same && k < n; k++) /* a few ids: no memcmp call */
		same = w->keys.v[had->off + k] == frames[k];
	if (!same)
		*last = (uint32_t)location_of(w, frames, n);
	return l->loc = *last;
}

/* Every CCT node with a cost, in node order: its locations, leaf first. */
static int cct_samples(writer *w, wout *o)
{
	const plumb_profile *p = w->p;
	size_t nn = p->cct.n, nev = p->events.n, nf = p->frames.n ? p->frames.n : 1;
	wpath pa = { 0 };
	pa.frame_loc = calloc(nf, sizeof *pa.frame_loc);
	pa.multi_loc = calloc(nf, sizeof *pa.multi_loc);
	int rc = pa.frame_loc && pa.multi_loc ? path_room(w, &pa, 64) : plumb_fail_nomem(w->err);
	for (size_t f = 0; f < p->frames.n && !pa.addresses; f++)
		pa.addresses = p->frames.v[f].address != 0;
	for (size_t i = 0; i < nn && rc == 0; i++) {
		const plumb_cct_node *nd = &p->cct.v[i];
		const uint64_t *costs = p->cct_self.v + i * nev;
		/* the frames come in no order: fetched a few nodes ahead */
		/* (a part's root has no frame: PLUMB_NONE) */
		if (i + 16 < nn && p->cct.v[i + 16].frame != PLUMB_NONE) {
			plumb_id f = p->cct.v[i + 16].frame;
			__builtin_prefetch(&p->frames.v[f]);
			__builtin_prefetch(&pa.frame_loc[f]);
			__builtin_prefetch(&pa.multi_loc[f]);
		}
		/* and a run's last location of several frames, and its frames,
		 * in two steps: each needs the one before (runs of several
		 * frames need addresses) */
		plumb_id f8 = pa.addresses && i + 8 < nn ? p->cct.v[i + 8].frame : PLUMB_NONE;
		uint32_t m8 = f8 != PLUMB_NONE ? pa.multi_loc[f8] : 0;
		if (m8)
			__builtin_prefetch(&w->locs.v[m8 - 1]);
		plumb_id f4 = pa.addresses && i + 4 < nn ? p->cct.v[i + 4].frame : PLUMB_NONE;
		uint32_t m4 = f4 != PLUMB_NONE ? pa.multi_loc[f4] : 0;
		if (m4)
			__builtin_prefetch(&w->keys.v[w->locs.v[m4 - 1].off]);
		bool any = false;
		for (size_t e = 0; e < nev; e++)
			any |= costs[e] != 0;
		if (nd->parent == PLUMB_NONE) {
			set_level(p, &pa, 0, (plumb_id)i);
			/* a cost on the part root itself: a sample without a stack */
			rc = any ? put_sample(w, o, NULL, 0, costs, nd->part) : 0;
			continue;
		}
		while (pa.lv.n && pa.lv.v[pa.lv.n - 1].node != nd->parent)
			pa.lv.n--;
		if (pa.lv.n) {
			if ((rc = path_room(w, &pa, pa.lv.n)) == 0)
				set_level(p, &pa, pa.lv.n, (plumb_id)i);
		} else if (any) {
			rc = path_rebuild(w, &pa, (plumb_id)i);
		}
		if (!any || rc)
			continue;
		size_t nl = 0;
		for (size_t d = pa.lv.n - 1; d >= 1 && rc == 0; d = pa.lv.v[d].run - 1)
			if (!(pa.locs.v[nl++] = run_location(w, &pa, d)))
				rc = plumb_fail_nomem(w->err);
		if (rc == 0)
			rc = put_sample(w, o, pa.locs.v, nl, costs, nd->part);
	}
	free(pa.lv.v);
	free(pa.frames.v);
	free(pa.locs.v);
	free(pa.frame_loc);
	free(pa.multi_loc);
	return rc;
}

/* A call graph's self costs: one-frame samples. */
static int cg_samples(writer *w, wout *o)
{
	const plumb_profile *p = w->p;
	size_t nev = p->events.n;
	int rc = 0;
	for (size_t i = 0; i < p->cg_self.n && rc == 0; i++) {
		uint32_t f = p->cg_self.v[i].frame;
		uint32_t id = (uint32_t)location_of(w, &f, 1);
		rc = !id ? plumb_fail_nomem(w->err)
			 : put_sample(w, o, &id, 1, p->cg_self_cost.v + i * nev, p->cg_self.v[i].part);
	}
	return rc;
}

/* ---- the message ---------------------------------------------------------------- */

static int64_t meta_int(const plumb_profile *p, const char *key)
{
	const char *v = plumb_meta_get(p, key);
	return v ? strtoll(v, NULL, 10) : 0;
}

static void writer_free(writer *w)
{
	free(w->s.of_id);
	free(w->s.table);
	for (size_t i = 0; i < w->s.nown; i++)
		free(w->s.own[i]);
	free(w->s.own);
	free(w->fn_id);
	free(w->mod_id);
	free(w->fns.v);
	free(w->maps.v);
	free(w->locs.v);
	free(w->keys.v);
	free(w->slots);
	free(w->lines.v);
}

/* A heap recording's events under Go's heap profile names (runtime/pprof),
 * so that go tool pprof -sample_index=alloc_space and profile servers read
 * them: live at exit is what Go calls in use. NULL for other events. */
static const char *go_heap_name(const char *name, const char **unit)
{
	static const char *const map[][3] = {
		{ "allocs", "alloc_objects", "count" },   { "alloc-bytes", "alloc_space", "bytes" },
		{ "leaks", "inuse_objects", "count" },    { "leak-bytes", "inuse_space", "bytes" },
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (strcmp(name, map[i][0]) == 0) {
			*unit = map[i][2];
			return map[i][1];
		}
	return NULL;
}

/* The packed message, handed to gz. */
static int encode(const plumb_profile *p, pprof_gz *gz, plumb_error *err)
{
	writer w = { .p = p, .err = err };
	wout o = { .gz = gz };
	size_t nev = p->events.n;
	pb_profile pb = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType *types = calloc(nev ? nev : 1, sizeof *types);
	Perftools__Profiles__ValueType **type_ptrs = calloc(nev ? nev : 1, sizeof *type_ptrs);
	Perftools__Profiles__ValueType period_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	part_labels *labels = calloc(p->parts.n ? p->parts.n : 1, sizeof *labels);
	size_t *label_len = calloc(p->parts.n ? p->parts.n : 1, sizeof *label_len);
	pb_location *locs = NULL, **loc_ptrs = NULL;
	pb_line **line_ptrs = NULL;
	Perftools__Profiles__Function **fn_ptrs = NULL;
	Perftools__Profiles__Mapping **map_ptrs = NULL;
	int64_t comment = 0, default_type = -1;
	w.s.of_id = calloc(p->strings.off.n + 1, sizeof *w.s.of_id);
	w.fn_id = calloc(p->functions.n + 1, sizeof *w.fn_id);
	w.mod_id = calloc(p->modules.n + 1, sizeof *w.mod_id);
	int rc = types && type_ptrs && labels && label_len && w.s.of_id && w.fn_id && w.mod_id &&
			 add_table(&w, "") == 0 ? 0 : plumb_fail_nomem(err);
	if (rc == 0 && nev == 0)
		rc = plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "pprof output: expected a profile with "
				"at least one event, got none");
	for (size_t e = 0; e < nev && rc == 0; e++) {
		const plumb_event *ev = &p->events.v[e];
		Perftools__Profiles__ValueType vt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
		const char *go_unit = NULL, *go = go_heap_name(plumb_str(p, ev->name), &go_unit);
		vt.type = go ? str_of(&w, go) : str_id(&w, ev->name);
		vt.unit = go ? str_of(&w, go_unit)
			     : ev->unit != PLUMB_NONE ? str_id(&w, ev->unit) : str_of(&w, "count");
		if (go && strcmp(go, "inuse_space") == 0)
			default_type = vt.type;   /* Go's heap profiles show this first */
		if (vt.type < 0 || vt.unit < 0)
			rc = plumb_fail_nomem(err);
		types[e] = vt;
		type_ptrs[e] = &types[e];
	}
	for (size_t i = 0; i < p->parts.n && rc == 0; i++)
		if (label_part(&w, &p->parts.v[i], &labels[i]) < 0)
			rc = plumb_fail_nomem(err);
		else
			label_len[i] = put_labels(&labels[i], NULL);
	o.labels = labels;
	o.label_len = label_len;
	if (rc == 0) {
		/* the sample types (field 1) first: the samples (field 2) follow */
		Perftools__Profiles__Profile head = PERFTOOLS__PROFILES__PROFILE__INIT;
		head.n_sample_type = nev;
		head.sample_type = type_ptrs;
		size_t len = perftools__profiles__profile__get_packed_size(&head);
		if ((rc = out_room(&w, &o, len)) == 0)
			o.n = perftools__profiles__profile__pack(&head, o.buf);
	}
	if (rc == 0)
		rc = cct_samples(&w, &o);
	if (rc == 0)
		rc = cg_samples(&w, &o);
	if (rc == 0) {
		locs = calloc(w.locs.n + 1, sizeof *locs);
		loc_ptrs = calloc(w.locs.n + 1, sizeof *loc_ptrs);
		size_t nl = w.keys.n;
		line_ptrs = calloc(nl + 1, sizeof *line_ptrs);
		if (!locs || !loc_ptrs || !line_ptrs ||
		    build_locations(&w, locs, loc_ptrs, line_ptrs) < 0)
			rc = plumb_fail_nomem(err);
	}
	if (rc == 0) {
		fn_ptrs = calloc(w.fns.n + 1, sizeof *fn_ptrs);
		map_ptrs = calloc(w.maps.n + 1, sizeof *map_ptrs);
		if (!fn_ptrs || !map_ptrs)
			rc = plumb_fail_nomem(err);
	}
	if (rc == 0) {
		for (size_t i = 0; i < w.fns.n; i++)
			fn_ptrs[i] = &w.fns.v[i];
		for (size_t i = 0; i < w.maps.n; i++)
			map_ptrs[i] = &w.maps.v[i];
		pb.n_sample_type = nev;
		pb.sample_type = type_ptrs;
		pb.n_mapping = w.maps.n;
		pb.mapping = map_ptrs;
		pb.n_location = w.locs.n;
		pb.location = loc_ptrs;
		pb.n_function = w.fns.n;
		pb.function = fn_ptrs;
		pb.default_sample_type = default_type >= 0 ? default_type : types[0].type;
		pb.time_nanos = meta_int(p, "pprof.time_ns");
		pb.duration_nanos = meta_int(p, "pprof.duration_ns");
		pb.period = meta_int(p, "pprof.period");
		const char *pt = plumb_meta_get(p, "pprof.period_type");
		const char *slash = pt ? strchr(pt, '/') : NULL;
		if (slash) {
			char *t = strndup(pt, (size_t)(slash - pt));
			period_type.type = t ? str_of(&w, t) : -1;
			period_type.unit = str_of(&w, slash + 1);
			free(t);
			pb.period_type = &period_type;
		}
		pb.drop_frames = str_of(&w, plumb_meta_get(p, "pprof.drop_frames"));
		pb.keep_frames = str_of(&w, plumb_meta_get(p, "pprof.keep_frames"));
		/* comments were joined by newlines: one comment string is enough */
		comment = str_of(&w, plumb_meta_get(p, "pprof.comments"));
		if (comment > 0) {
			pb.n_comment = 1;
			pb.comment = &comment;
		}
		if (pb.drop_frames < 0 || pb.keep_frames < 0 || comment < 0 ||
		    period_type.type < 0 || period_type.unit < 0)
			rc = plumb_fail_nomem(err);
	}
	if (rc == 0) {
		/* the other fields after the samples, as protobuf-c orders them */
		pb.n_sample_type = 0;
		pb.n_string_table = w.s.n;
		pb.string_table = w.s.table;
		size_t len = perftools__profiles__profile__get_packed_size(&pb);
		uint8_t *tail = o.n + len <= o.cap ? NULL : malloc(len ? len : 1);
		if (o.n + len <= o.cap) { /* a small profile: one member */
			o.n += perftools__profiles__profile__pack(&pb, o.buf + o.n);
			rc = pprof_gz_add(gz, o.buf, o.n, err);
			o.buf = NULL;
		} else if (!tail) {
			rc = plumb_fail_nomem(err);
		} else {
			(void)perftools__profiles__profile__pack(&pb, tail);
			rc = o.n ? pprof_gz_add(gz, o.buf, o.n, err) : 0;
			if (o.n)
				o.buf = NULL;
			rc = rc ? (free(tail), -1) : pprof_gz_add_split(gz, tail, len, err);
		}
	}
	free(o.buf);
	free(types);
	free(type_ptrs);
	free(labels);
	free(label_len);
	free(locs);
	free(loc_ptrs);
	free(line_ptrs);
	free(fn_ptrs);
	free(map_ptrs);
	writer_free(&w);
	return rc;
}

int plumb_pprof_write_stream(const plumb_profile *p, FILE *out, plumb_error *err)
{
	pprof_gz *gz = pprof_gz_start(err);
	if (!gz)
		return -1;
	int rc = encode(p, gz, err);
	return pprof_gz_finish(gz, rc ? NULL : out, err) || rc ? -1 : 0;
}

int plumb_pprof_write(const plumb_profile *p, const char *path, plumb_error *err)
{
	plumb_atomic_file af;
	if (plumb_atomic_open(&af, path, err) < 0)
		return -1;
	if (plumb_pprof_write_stream(p, af.fp, err) < 0) {
		plumb_atomic_abort(&af);
		return -1;
	}
	return plumb_atomic_commit(&af, err);
}

const char *plumb_pprof_losses(const plumb_profile *p)
{
	static char buf[512];
	size_t len = 0;
	buf[0] = '\0';
	if (p->cg_self.n || p->arcs.n)
		len += (size_t)snprintf(buf + len, sizeof buf - len,
					"pprof holds call stacks, not call graphs: each function's "
					"self cost is written as a one-frame sample and the %zu call "
					"arcs are not written (exclusive costs are kept, inclusive costs "
					"and callers are lost)", p->arcs.n);
	if (p->jumps.n && len < sizeof buf)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%spprof has no jumps: the %zu "
					"jumps are not written", len ? "; " : "", p->jumps.n);
	if (p->points.n && len < sizeof buf)
		snprintf(buf + len, sizeof buf - len, "%spprof has no input sizes: the %zu "
			 "performance points are not written", len ? "; " : "", p->points.n);
	return buf[0] ? buf : NULL;
}
