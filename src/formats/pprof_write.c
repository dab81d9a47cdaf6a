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

/* The samples, encoded by hand (encode_samples): sample i has locations
 * locs[loc_off[i] .. loc_off[i + 1]), values values[i * nev ..] and the
 * labels of part part[i]. */
typedef struct wsamples {
	PLUMB_VEC(plumb_id) part;
	PLUMB_VEC(uint32_t) locs;    /* location ids of all samples, back to back */
	PLUMB_VEC(int64_t) values;
	PLUMB_VEC(size_t) loc_off;   /* per sample, and the end */
} wsamples;

static int add_sample(writer *w, wsamples *ws, plumb_id part, const uint64_t *costs,
		      size_t nloc_before)
{
	size_t nev = w->p->events.n;
	bool any = false;
	for (size_t e = 0; e < nev; e++)
		any |= costs[e] != 0;
	if (!any) {
		ws->locs.n = nloc_before;
		return 0;
	}
	if (GROW(w, ws->part, ws->part.n + 1) < 0 || GROW(w, ws->values, ws->values.n + nev) < 0 ||
	    GROW(w, ws->loc_off, ws->part.n + 2) < 0)
		return plumb_fail_nomem(w->err);
	for (size_t e = 0; e < nev; e++) {
		if (costs[e] > INT64_MAX)
			return plumb_fail(w->err, PLUMB_ERR_OVERFLOW, "pprof output: expected costs of "
					  "at most %" PRId64 " (pprof's values are signed), got %" PRIu64,
					  INT64_MAX, costs[e]);
		ws->values.v[ws->values.n++] = (int64_t)costs[e];
	}
	ws->loc_off.v[ws->part.n] = nloc_before;
	ws->loc_off.v[ws->part.n + 1] = ws->locs.n;
	ws->part.v[ws->part.n++] = part;
	return 0;
}

static int push_loc(writer *w, wsamples *ws, uint64_t id)
{
	if (!id || GROW(w, ws->locs, ws->locs.n + 1) < 0)
		return plumb_fail_nomem(w->err);
	ws->locs.v[ws->locs.n++] = (uint32_t)id;
	return 0;
}

/* ---- the samples' bytes: as protobuf-c packs them, without a Sample
 * struct and a 64-bit id array of their own (a third of the writer's time
 * and memory on 200,000 stacks) ---------------------------------------------- */

static size_t vlen(uint64_t v)
{
	size_t n = 1;
	for (; v >= 0x80; v >>= 7)
		n++;
	return n;
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

/* Sample i (fields 1 to 3) into out, or its size with out NULL. */
static size_t put_sample(const wsamples *ws, size_t i, size_t nev, const part_labels *labels,
			 const size_t *label_len, uint8_t *out)
{
	const uint32_t *loc = ws->locs.v + ws->loc_off.v[i];
	size_t nl = ws->loc_off.v[i + 1] - ws->loc_off.v[i], lb = 0, vb = 0;
	const int64_t *val = ws->values.v + i * nev;
	for (size_t k = 0; k < nl; k++)
		lb += vlen(loc[k]);
	for (size_t k = 0; k < nev; k++)
		vb += vlen((uint64_t)val[k]);
	size_t body = (nl ? 1 + vlen(lb) + lb : 0) + (nev ? 1 + vlen(vb) + vb : 0) +
		      label_len[ws->part.v[i]];
	if (out) {
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
				out = plumb_varint_put(out, (uint64_t)val[k]);
		}
		put_labels(&labels[ws->part.v[i]], out);
	}
	return 1 + vlen(body) + body;
}

/* rest (a packed Profile without samples) with the samples put where
 * protobuf-c puts them, after the sample types (field 1): the bytes it
 * would write. */
static int splice_samples(writer *w, const wsamples *ws, const part_labels *labels,
			  const uint8_t *rest, size_t rest_len, uint8_t **out, size_t *out_len)
{
	const plumb_profile *p = w->p;
	size_t nev = p->events.n, total = 0;
	size_t *label_len = malloc((p->parts.n ? p->parts.n : 1) * sizeof *label_len);
	if (!label_len)
		return plumb_fail_nomem(w->err);
	for (size_t i = 0; i < p->parts.n; i++)
		label_len[i] = put_labels(&labels[i], NULL);
	for (size_t i = 0; i < ws->part.n; i++)
		total += put_sample(ws, i, nev, labels, label_len, NULL);
	plumb_varint_in in = { rest, rest + rest_len, false };
	const uint8_t *at = rest;
	while (in.p < in.end) {
		uint64_t key = plumb_varint_get(&in);
		if (in.bad || key != (1 << 3 | 2))
			break;
		uint64_t len = plumb_varint_get(&in);
		if (in.bad || len > (uint64_t)(in.end - in.p))
			break;
		in.p += len;
		at = in.p;
	}
	size_t head = (size_t)(at - rest);
	uint8_t *buf = malloc(rest_len + total + 1);
	if (!buf) {
		free(label_len);
		return plumb_fail_nomem(w->err);
	}
	memcpy(buf, rest, head);
	uint8_t *o = buf + head;
	for (size_t i = 0; i < ws->part.n; i++)
		o += put_sample(ws, i, nev, labels, label_len, o);
	memcpy(o, rest + head, rest_len - head);
	free(label_len);
	*out = buf;
	*out_len = rest_len + total;
	return 0;
}

/* Every CCT node with a cost: its locations, leaf first. A run of frames
 * ends at a node; its location is found once per node (loc_of[node]). */
static int cct_samples(writer *w, wsamples *ws)
{
	const plumb_profile *p = w->p;
	size_t nn = p->cct.n, nev = p->events.n;
	plumb_id *run = malloc((nn ? nn : 1) * sizeof *run);
	uint32_t *loc_of = calloc(nn ? nn : 1, sizeof *loc_of);
	/* the location of a run of one frame, by frame: most runs, found
	 * without hashing; and the last location of several frames met with
	 * a frame innermost, checked before a lookup (usually the one) */
	uint32_t *frame_loc = calloc(p->frames.n ? p->frames.n : 1, sizeof *frame_loc);
	uint32_t *multi_loc = calloc(p->frames.n ? p->frames.n : 1, sizeof *multi_loc);
	uint32_t *frames = NULL;
	size_t fcap = 0;
	int rc = run && loc_of && frame_loc && multi_loc ? 0 : plumb_fail_nomem(w->err);
	for (size_t i = 0; i < nn && rc == 0; i++) {
		const plumb_cct_node *nd = &p->cct.v[i];
		plumb_id par = nd->parent;
		run[i] = par != PLUMB_NONE && p->cct.v[par].parent != PLUMB_NONE &&
				 same_location(p, p->cct.v[par].frame, nd->frame)
			 ? run[par] : (plumb_id)i;
	}
	for (size_t i = 0; i < nn && rc == 0; i++) {
		const plumb_cct_node *nd = &p->cct.v[i];
		const uint64_t *costs = p->cct_self.v + i * nev;
		bool any = false;
		for (size_t e = 0; e < nev; e++)
			any |= costs[e] != 0;
		if (!any)
			continue;
		size_t before = ws->locs.n;
		if (nd->parent == PLUMB_NONE) {
			/* a cost on the part root itself: a sample without a stack */
			rc = add_sample(w, ws, nd->part, costs, before);
			continue;
		}
		for (plumb_id x = (plumb_id)i; x != PLUMB_NONE && p->cct.v[x].parent != PLUMB_NONE && rc == 0;) {
			if (!loc_of[x] && run[x] == x) {
				plumb_id f = p->cct.v[x].frame;
				if (!frame_loc[f] && !(frame_loc[f] = (uint32_t)location_of(w, &f, 1)))
					rc = plumb_fail_nomem(w->err);
				loc_of[x] = frame_loc[f];
			} else if (!loc_of[x]) {
				size_t n = 0;
				for (plumb_id y = x;; y = p->cct.v[y].parent) {
					if (plumb_vec_reserve_((void **)&frames, &fcap, n + 1, sizeof *frames) < 0) {
						rc = plumb_fail_nomem(w->err);
						break;
					}
					frames[n++] = p->cct.v[y].frame;
					if (y == run[x])
						break;
				}
				uint32_t *last = &multi_loc[frames[0]];
				const wloc *l = *last ? &w->locs.v[*last - 1] : NULL;
				bool same = rc == 0 && l && l->n == n;
				for (size_t k = 0; same && k < n; k++) /* a few ids: no memcmp call */
					same = w->keys.v[l->off + k] == frames[k];
				if (same)
					loc_of[x] = *last;
				else if (rc == 0 && !(loc_of[x] = *last = (uint32_t)location_of(w, frames, n)))
					rc = plumb_fail_nomem(w->err);
			}
			if (rc == 0)
				rc = push_loc(w, ws, loc_of[x]);
			x = p->cct.v[run[x]].parent;
		}
		if (rc == 0)
			rc = add_sample(w, ws, nd->part, costs, before);
	}
	free(run);
	free(loc_of);
	free(frame_loc);
	free(multi_loc);
	free(frames);
	return rc;
}

/* A call graph's self costs: one-frame samples. */
static int cg_samples(writer *w, wsamples *ws)
{
	const plumb_profile *p = w->p;
	size_t nev = p->events.n;
	int rc = 0;
	for (size_t i = 0; i < p->cg_self.n && rc == 0; i++) {
		uint32_t f = p->cg_self.v[i].frame;
		size_t before = ws->locs.n;
		uint64_t id = location_of(w, &f, 1);
		rc = push_loc(w, ws, id);
		if (rc == 0)
			rc = add_sample(w, ws, p->cg_self.v[i].part, p->cg_self_cost.v + i * nev, before);
	}
	return rc;
}

/* ---- the message ---------------------------------------------------------------- */

static int64_t meta_int(const plumb_profile *p, const char *key)
{
	const char *v = plumb_meta_get(p, key);
	return v ? strtoll(v, NULL, 10) : 0;
}

static void writer_free(writer *w, wsamples *ws)
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
	free(ws->part.v);
	free(ws->locs.v);
	free(ws->values.v);
	free(ws->loc_off.v);
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

/* The packed (not yet gzipped) message. */
static int encode(const plumb_profile *p, uint8_t **out, size_t *out_len, plumb_error *err)
{
	writer w = { .p = p, .err = err };
	wsamples ws = { 0 };
	size_t nev = p->events.n;
	pb_profile pb = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType *types = calloc(nev ? nev : 1, sizeof *types);
	Perftools__Profiles__ValueType **type_ptrs = calloc(nev ? nev : 1, sizeof *type_ptrs);
	Perftools__Profiles__ValueType period_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	part_labels *labels = calloc(p->parts.n ? p->parts.n : 1, sizeof *labels);
	pb_location *locs = NULL, **loc_ptrs = NULL;
	pb_line **line_ptrs = NULL;
	Perftools__Profiles__Function **fn_ptrs = NULL;
	Perftools__Profiles__Mapping **map_ptrs = NULL;
	int64_t comment = 0, default_type = -1;
	w.s.of_id = calloc(p->strings.off.n + 1, sizeof *w.s.of_id);
	w.fn_id = calloc(p->functions.n + 1, sizeof *w.fn_id);
	w.mod_id = calloc(p->modules.n + 1, sizeof *w.mod_id);
	int rc = types && type_ptrs && labels && w.s.of_id && w.fn_id && w.mod_id &&
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
	if (rc == 0)
		rc = cct_samples(&w, &ws);
	if (rc == 0)
		rc = cg_samples(&w, &ws);
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
		pb.n_string_table = w.s.n;
		pb.string_table = w.s.table;
		size_t len = perftools__profiles__profile__get_packed_size(&pb);
		uint8_t *buf = malloc(len ? len : 1);
		if (!buf)
			rc = plumb_fail_nomem(err);
		else
			rc = splice_samples(&w, &ws, labels, buf,
					    perftools__profiles__profile__pack(&pb, buf), out, out_len);
		free(buf);
	}
	free(types);
	free(type_ptrs);
	free(labels);
	free(locs);
	free(loc_ptrs);
	free(line_ptrs);
	free(fn_ptrs);
	free(map_ptrs);
	writer_free(&w, &ws);
	return rc;
}

int plumb_pprof_write_stream(const plumb_profile *p, FILE *out, plumb_error *err)
{
	uint8_t *raw, *gz;
	size_t raw_len, gz_len;
	if (encode(p, &raw, &raw_len, err))
		return -1;
	int rc = pprof_gzip(raw, raw_len, &gz, &gz_len, err);
	free(raw);
	if (rc)
		return -1;
	if (fwrite(gz, 1, gz_len, out) != gz_len)
		rc = plumb_fail(err, PLUMB_ERR_IO, "writing pprof: %s", strerror(errno ? errno : EIO));
	free(gz);
	return rc;
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
