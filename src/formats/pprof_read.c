/* plumb: the pprof reader (profile.proto, as Go's runtime/pprof, pprof,
 * Pyroscope and Parca write it), gzip-wrapped or raw; docs/pprof.md.
 *
 * - sample types become events with their units; the default sample type
 *   (default_sample_type, else the last type, as pprof picks) is the first
 *   event, the others follow in the file's order;
 * - each sample's locations (leaf first) become a CCT path, root first,
 *   with the sample's values as the leaf's self cost; a location's lines
 *   (inlined calls, innermost first) become one frame each, all at the
 *   location's address;
 * - functions keep name, system name (as the mangled name), file and start
 *   line; mappings become modules with their build ids;
 * - thread labels ("thread", "thread_id", "thread id", "tid",
 *   "thread_name", "thread name") split the samples into thread parts, a
 *   "pid" label sets their process; other label keys are listed in a
 *   warning and in the metadata;
 * - drop_frames / keep_frames are applied as pprof does; they, the period,
 *   duration, time, comments and the default sample type are kept as
 *   "pprof.*" metadata, which the writer writes back.
 */
#include "formats/pprof_internal.h"
#include "formats/pprof_profile.pb-c.h"
#include "model/index.h"
#include "plumb/formats.h"

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef Perftools__Profiles__Profile pb_profile;

/* id -> index, for mappings, locations and functions: ids are usually
 * 1..n, so a dense table when they are, else a sorted one. */
typedef struct id_map {
	uint64_t *ids;        /* sorted (sparse case), with idx beside */
	uint32_t *idx;
	size_t n;
	bool dense;           /* ids[i] == i + 1 */
} id_map;

#define LOC_FRAME ((uint64_t)1 << 63)

typedef struct reader {
	plumb_profile *p;
	const char *path;
	const plumb_read_opts *opts;
	plumb_error *err;
	const pb_profile *pb;     /* every field but the samples */
	pprof_samples smp;        /* the samples' values and labels */
	uint8_t *data;            /* the message, until its samples are decoded */
	size_t len;
	pprof_locations lc;       /* the locations */
	pprof_offsets offs;
	bool gz;
	id_map maps, locs, funcs;
	plumb_id *mod_of_map;     /* mapping index -> module */
	/* location index -> its frames, root first: frames[loc_off[i] ..] */
	plumb_id *frames;
	size_t *loc_off;
	/* location index -> LOC_FRAME | its frame for a location of one frame
	 * (most; none with drop_frames), else the index: one lookup a sample's
	 * location instead of three */
	uint64_t *loc_tag;
	/* frames[k] is of a function drop_frames cuts at; NULL without
	 * drop_frames (then nothing is cut) */
	bool *frame_drop;
	size_t *ev_of_type;       /* sample type index -> event slot */
	regex_t drop, keep;
	bool has_drop, has_keep;
	bool *drop_fn;            /* function index -> matches drop and not keep */
	/* function index -> the plumb function last made of it, in module
	 * fn_mod (PLUMB_NONE: none yet): one lookup a function, not a line */
	plumb_id *fn_of, *fn_mod;
	/* thread parts met so far */
	struct tpart { int64_t tid, pid; const char *name; plumb_id part; } *tparts;
	size_t ntparts, cap_tparts;
	plumb_id unlabeled;       /* the part of samples without thread labels */
	char **other_keys;        /* label keys that are not threads */
	size_t nother;
} reader;

static int fail_at(reader *r, size_t off, plumb_status code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail_at(reader *r, size_t off, plumb_status code, const char *fmt, ...)
{
	char msg[900];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return plumb_fail(r->err, code, "%s: byte %zu%s: %s", r->path, off,
			  r->gz ? " (of the decompressed data)" : "", msg);
}

static void warn(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(reader *r, const char *fmt, ...)
{
	if (!r->opts || !r->opts->warn)
		return;
	char msg[900], full[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(full, sizeof full, "%s: %s", r->path, msg);
	r->opts->warn(r->opts->warn_ctx, full);
}

/* The string at index i of the string table; NULL (with the error set)
 * when it is out of range. */
static const char *str_at(reader *r, int64_t i, size_t off, const char *what)
{
	if (i < 0 || (uint64_t)i >= r->pb->n_string_table) {
		fail_at(r, off, PLUMB_ERR_FORMAT, "expected %s to be an index into the string table "
			"of %zu strings, got %" PRId64, what, r->pb->n_string_table, i);
		return NULL;
	}
	return r->pb->string_table[i];
}

/* ---- id maps ------------------------------------------------------------ */

static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* ids[i] is the id of entry i; an id 0 or twice is an error. */
static int id_map_build(reader *r, id_map *m, const uint64_t *ids, size_t n, int kind,
			const char *what)
{
	m->n = n;
	m->dense = true;
	for (size_t i = 0; i < n && m->dense; i++)
		m->dense = ids[i] == i + 1;
	if (m->dense)
		return 0;
	uint64_t *pairs = malloc((n ? n : 1) * 2 * sizeof *pairs);
	m->ids = malloc((n ? n : 1) * sizeof *m->ids);
	m->idx = malloc((n ? n : 1) * sizeof *m->idx);
	if (!pairs || !m->ids || !m->idx) {
		free(pairs);
		return plumb_fail_nomem(r->err);
	}
	for (size_t i = 0; i < n; i++) {
		pairs[2 * i] = ids[i];
		pairs[2 * i + 1] = i;
	}
	qsort(pairs, n, 2 * sizeof *pairs, cmp_pair);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		m->ids[i] = pairs[2 * i];
		m->idx[i] = (uint32_t)pairs[2 * i + 1];
		if (m->ids[i] == 0 || (i > 0 && m->ids[i] == m->ids[i - 1])) {
			size_t at = pprof_offset(&r->offs, kind, m->idx[i]);
			rc = fail_at(r, at, PLUMB_ERR_FORMAT, "expected a %s id that is not 0 and "
				     "unique, got %" PRIu64 "%s", what, m->ids[i],
				     m->ids[i] ? " a second time" : "");
			break;
		}
	}
	free(pairs);
	return rc;
}

/* The index of id, or SIZE_MAX. */
static size_t id_map_find(const id_map *m, uint64_t id)
{
	if (m->dense)
		return id >= 1 && id <= m->n ? (size_t)(id - 1) : SIZE_MAX;
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->ids[lo] == id ? m->idx[lo] : SIZE_MAX;
}

static void id_map_free(id_map *m)
{
	free(m->ids);
	free(m->idx);
}

/* ---- events ------------------------------------------------------------- */

/* The sample type pprof shows by default: default_sample_type, else the last. */
static int default_type(reader *r, size_t *out)
{
	const pb_profile *pb = r->pb;
	*out = pb->n_sample_type - 1;
	if (!pb->default_sample_type)
		return 0;
	const char *want = str_at(r, pb->default_sample_type, 0, "default_sample_type");
	if (!want)
		return -1;
	for (size_t i = 0; i < pb->n_sample_type; i++) {
		const char *t = str_at(r, pb->sample_type[i]->type, 0, "a sample type's type");
		if (!t)
			return -1;
		if (strcmp(t, want) == 0) {
			*out = i;
			return 0;
		}
	}
	warn(r, "default_sample_type \"%s\" is none of the sample types: the last one is the "
	     "first event", want);
	return 0;
}

static int setup_events(reader *r)
{
	const pb_profile *pb = r->pb;
	plumb_profile *p = r->p;
	if (pb->n_sample_type == 0)
		return fail_at(r, 0, PLUMB_ERR_FORMAT, "expected at least one sample_type, got none");
	size_t def;
	if (default_type(r, &def) < 0)
		return -1;
	r->ev_of_type = malloc(pb->n_sample_type * sizeof *r->ev_of_type);
	if (!r->ev_of_type)
		return plumb_fail_nomem(r->err);
	bool had = p->events.n > 0;
	if (had && p->events.n != pb->n_sample_type)
		return fail_at(r, 0, PLUMB_ERR_FORMAT, "expected %zu sample types, as the profiles "
			       "read before, got %zu", p->events.n, pb->n_sample_type);
	for (size_t k = 0; k < pb->n_sample_type; k++) {
		/* event slot k holds type order[k]: the default first */
		size_t i = k == 0 ? def : (k <= def ? k - 1 : k);
		const char *type = str_at(r, pb->sample_type[i]->type, 0, "a sample type's type");
		const char *unit = str_at(r, pb->sample_type[i]->unit, 0, "a sample type's unit");
		if (!type || !unit)
			return -1;
		char name[256];
		snprintf(name, sizeof name, "%s", *type ? type : "value");
		/* two types of one name ("samples" twice) stay two events */
		for (int dup = 2; plumb_event_find(p, name) >= 0 && !had; dup++)
			snprintf(name, sizeof name, "%s#%d", *type ? type : "value", dup);
		if (had) {
			const char *have = plumb_str(p, p->events.v[k].name);
			if (strcmp(have, name) != 0)
				return fail_at(r, 0, PLUMB_ERR_FORMAT, "expected sample type %zu to be "
					       "\"%s\", as in the profiles read before, got \"%s\"",
					       k, have, name);
		} else if (plumb_event_add(p, name, NULL, *unit ? unit : NULL, r->err) < 0) {
			return -1;
		}
		r->ev_of_type[i] = k;
	}
	return 0;
}

/* ---- mappings, functions, locations -------------------------------------- */

static int read_mappings(reader *r)
{
	const pb_profile *pb = r->pb;
	size_t n = pb->n_mapping;
	uint64_t *ids = malloc((n ? n : 1) * sizeof *ids);
	r->mod_of_map = malloc((n ? n : 1) * sizeof *r->mod_of_map);
	if (!ids || !r->mod_of_map) {
		free(ids);
		return plumb_fail_nomem(r->err);
	}
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const Perftools__Profiles__Mapping *m = pb->mapping[i];
		size_t at = pprof_offset(&r->offs, PPROF_OFF_MAPPING, i);
		ids[i] = m->id;
		const char *file = str_at(r, m->filename, at, "a mapping's filename");
		const char *bid = str_at(r, m->build_id, at, "a mapping's build_id");
		if (!file || !bid) {
			rc = -1;
			break;
		}
		char anon[64];
		if (!*file) { /* pprof shows such mappings by id */
			snprintf(anon, sizeof anon, "[mapping %" PRIu64 "]", m->id);
			file = anon;
		}
		r->mod_of_map[i] = plumb_module_intern(r->p, file, *bid ? bid : NULL);
		if (r->mod_of_map[i] == PLUMB_NONE)
			rc = plumb_fail_nomem(r->err);
	}
	if (rc == 0)
		rc = id_map_build(r, &r->maps, ids, n, PPROF_OFF_MAPPING, "mapping");
	free(ids);
	return rc;
}

static int read_function_ids(reader *r)
{
	const pb_profile *pb = r->pb;
	size_t n = pb->n_function;
	uint64_t *ids = malloc((n ? n : 1) * sizeof *ids);
	r->drop_fn = calloc(n ? n : 1, sizeof *r->drop_fn);
	r->fn_of = malloc((n ? n : 1) * sizeof *r->fn_of);
	r->fn_mod = malloc((n ? n : 1) * sizeof *r->fn_mod);
	if (r->fn_of)
		memset(r->fn_of, 0xff, n * sizeof *r->fn_of);
	if (!ids || !r->drop_fn || !r->fn_of || !r->fn_mod) {
		free(ids);
		return plumb_fail_nomem(r->err);
	}
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const Perftools__Profiles__Function *f = pb->function[i];
		size_t at = pprof_offset(&r->offs, PPROF_OFF_FUNCTION, i);
		ids[i] = f->id;
		const char *name = str_at(r, f->name, at, "a function's name");
		if (!name || !str_at(r, f->system_name, at, "a function's system_name") ||
		    !str_at(r, f->filename, at, "a function's filename")) {
			rc = -1;
			break;
		}
		/* pprof matches drop_frames against the whole name */
		if (r->has_drop && regexec(&r->drop, name, 0, NULL, 0) == 0)
			r->drop_fn[i] = !(r->has_keep && regexec(&r->keep, name, 0, NULL, 0) == 0);
	}
	if (rc == 0)
		rc = id_map_build(r, &r->funcs, ids, n, PPROF_OFF_FUNCTION, "function");
	free(ids);
	return rc;
}

/* The frame of one line of a location (function index fi, or SIZE_MAX
 * for a location without lines) in module mod. */
static plumb_id line_frame(reader *r, size_t fi, plumb_id mod, int64_t line, uint64_t addr)
{
	plumb_profile *p = r->p;
	plumb_id fn;
	if (fi == SIZE_MAX) {
		/* unsymbolized: named by module and address, as plumb record does */
		char name[64];
		const char *mpath = mod != PLUMB_NONE ? plumb_str(p, p->modules.v[mod].path) : NULL;
		const char *base = mpath ? strrchr(mpath, '/') : NULL;
		base = base ? base + 1 : mpath;
		if (base)
			snprintf(name, sizeof name, "%.40s+0x%" PRIx64, base, addr);
		else
			snprintf(name, sizeof name, "0x%" PRIx64, addr);
		fn = plumb_function_intern(p, name, NULL, mod, PLUMB_NONE, 0);
	} else if (r->fn_of[fi] != PLUMB_NONE && r->fn_mod[fi] == mod) {
		fn = r->fn_of[fi]; /* this function in this module, met before */
	} else {
		const Perftools__Profiles__Function *f = r->pb->function[fi];
		const char *name = r->pb->string_table[f->name];
		const char *sys = r->pb->string_table[f->system_name];
		const char *file = r->pb->string_table[f->filename];
		plumb_id fid = *file ? plumb_file_intern(p, file) : PLUMB_NONE;
		if (*file && fid == PLUMB_NONE)
			return PLUMB_NONE;
		uint32_t start = f->start_line > 0 && f->start_line <= UINT32_MAX
					 ? (uint32_t)f->start_line : 0;
		fn = plumb_function_intern(p, *name ? name : (*sys ? sys : "[unknown]"),
					   *sys && strcmp(sys, name) != 0 ? sys : NULL, mod, fid, start);
		r->fn_of[fi] = fn;
		r->fn_mod[fi] = mod;
	}
	if (fn == PLUMB_NONE)
		return PLUMB_NONE;
	uint32_t ln = line > 0 && line <= UINT32_MAX ? (uint32_t)line : 0;
	return plumb_frame_intern(p, fn, PLUMB_NONE, ln, addr);
}

/* Every location's frames, root first (its lines reversed); a frame is
 * PLUMB_NONE when drop_frames drops it. */
static int read_locations(reader *r)
{
	const pb_profile *pb = r->pb;
	const pprof_locations *lc = &r->lc;
	size_t n = lc->n, total = 0;
	r->loc_off = malloc((n + 1) * sizeof *r->loc_off);
	if (!r->loc_off)
		return plumb_fail_nomem(r->err);
	for (size_t i = 0; i < n; i++) {
		size_t nl = lc->line_off[i + 1] - lc->line_off[i];
		r->loc_off[i] = total;
		total += nl ? nl : 1;
	}
	r->loc_off[n] = total;
	r->frames = malloc((total ? total : 1) * sizeof *r->frames);
	if (r->has_drop)
		r->frame_drop = calloc(total ? total : 1, sizeof *r->frame_drop);
	int rc = r->frames && (!r->has_drop || r->frame_drop)
			 ? id_map_build(r, &r->locs, lc->id, n, PPROF_OFF_LOCATION, "location")
			 : plumb_fail_nomem(r->err);
	for (size_t i = 0; i < n && rc == 0; i++) {
		size_t at = pprof_offset(&r->offs, PPROF_OFF_LOCATION, i);
		uint64_t id = lc->id[i], map = lc->mapping_id[i], addr = lc->address[i];
		plumb_id mod = PLUMB_NONE;
		if (map) {
			size_t mi = id_map_find(&r->maps, map);
			if (mi == SIZE_MAX)
				return fail_at(r, at, PLUMB_ERR_FORMAT, "expected location %" PRIu64
					       "'s mapping_id to be one of the %zu mappings' ids, got %"
					       PRIu64, id, pb->n_mapping, map);
			mod = r->mod_of_map[mi];
		}
		plumb_id *out = r->frames + r->loc_off[i];
		size_t l0 = lc->line_off[i], nl = lc->line_off[i + 1] - l0;
		if (nl == 0) {
			out[0] = line_frame(r, SIZE_MAX, mod, 0, addr);
			if (out[0] == PLUMB_NONE)
				return plumb_fail_nomem(r->err);
			continue;
		}
		for (size_t k = 0; k < nl; k++) {
			size_t ln = l0 + nl - 1 - k; /* innermost first in the file */
			size_t fi = id_map_find(&r->funcs, lc->fn[ln]);
			if (fi == SIZE_MAX && lc->fn[ln] != 0)
				return fail_at(r, at, PLUMB_ERR_FORMAT, "expected location %" PRIu64
					       "'s function_id to be one of the %zu functions' ids, got %"
					       PRIu64, id, pb->n_function, lc->fn[ln]);
			if (r->frame_drop)
				r->frame_drop[r->loc_off[i] + k] = fi != SIZE_MAX && r->drop_fn[fi];
			out[k] = line_frame(r, fi, mod, lc->line[ln], addr);
			if (out[k] == PLUMB_NONE)
				return plumb_fail_nomem(r->err);
		}
	}
	if (rc == 0 && !(r->loc_tag = malloc((n ? n : 1) * sizeof *r->loc_tag)))
		rc = plumb_fail_nomem(r->err);
	for (size_t i = 0; i < n && rc == 0; i++)
		r->loc_tag[i] = r->loc_off[i + 1] - r->loc_off[i] == 1 && !r->frame_drop
					? LOC_FRAME | r->frames[r->loc_off[i]] : i;
	return rc;
}

/* ---- labels: thread parts ------------------------------------------------- */

static bool key_is(const char *k, const char *const *names)
{
	for (; *names; names++)
		if (strcmp(k, *names) == 0)
			return true;
	return false;
}

static const char *const tid_keys[] = { "thread_id", "thread id", "tid", NULL };
static const char *const tname_keys[] = { "thread_name", "thread name", NULL };
static const char *const pid_keys[] = { "pid", "process_id", "process id", NULL };

static int note_other_key(reader *r, const char *key)
{
	for (size_t i = 0; i < r->nother; i++)
		if (strcmp(r->other_keys[i], key) == 0)
			return 0;
	char **k = realloc(r->other_keys, (r->nother + 1) * sizeof *k);
	if (!k)
		return plumb_fail_nomem(r->err);
	r->other_keys = k;
	if (!(k[r->nother] = strdup(key)))
		return plumb_fail_nomem(r->err);
	r->nother++;
	return 0;
}

/* The part of a sample: a thread part when it has thread labels. */
static int sample_part(reader *r, size_t si, size_t at, plumb_id *out)
{
	int64_t tid = -1, pid = -1;
	const char *name = NULL;
	bool thread = false;
	const pprof_samples *sm = &r->smp;
	for (size_t i = sm->lab_off[si]; i < sm->lab_off[si + 1]; i++) {
		const pprof_label *l = &sm->lab[i];
		const char *key = str_at(r, l->key, at, "a label's key");
		const char *sv = str_at(r, l->str, at, "a label's str");
		if (!key || !sv || !str_at(r, l->num_unit, at, "a label's num_unit"))
			return -1;
		char *end;
		if (strcmp(key, "thread") == 0 || key_is(key, tid_keys)) {
			thread = true;
			if (!*sv)
				tid = l->num;
			else if (strcmp(key, "thread") != 0 &&
				 (errno = 0, tid = strtoll(sv, &end, 10), *end || errno))
				tid = -1, name = sv;
			else if (strcmp(key, "thread") == 0)
				name = sv;
		} else if (key_is(key, tname_keys)) {
			thread = true;
			name = *sv ? sv : name;
		} else if (key_is(key, pid_keys)) {
			pid = *sv ? strtoll(sv, NULL, 10) : l->num;
		} else if (note_other_key(r, key) < 0) {
			return -1;
		}
	}
	if (!thread && pid < 0) {
		/* the whole-run part: the profile's first when it is one, else a
		 * part of its own beside the threads */
		if (r->unlabeled == PLUMB_NONE)
			r->unlabeled = r->p->parts.n == 0 ? plumb_part_default(r->p)
				     : r->p->parts.v[0].kind == PLUMB_PART_WHOLE
					     ? 0 : plumb_part_add(r->p, PLUMB_PART_WHOLE, NULL, -1, -1);
		*out = r->unlabeled;
		return *out == PLUMB_NONE ? plumb_fail_nomem(r->err) : 0;
	}
	for (size_t i = 0; i < r->ntparts; i++) {
		struct tpart *t = &r->tparts[i];
		if (t->tid == tid && t->pid == pid &&
		    (t->name == name || (t->name && name && strcmp(t->name, name) == 0))) {
			*out = t->part;
			return 0;
		}
	}
	if (r->ntparts == r->cap_tparts) {
		size_t cap = r->cap_tparts ? r->cap_tparts * 2 : 16;
		struct tpart *t = realloc(r->tparts, cap * sizeof *t);
		if (!t)
			return plumb_fail_nomem(r->err);
		r->tparts = t;
		r->cap_tparts = cap;
	}
	char label[64];
	if (!name && tid >= 0)
		snprintf(label, sizeof label, "thread %" PRId64, tid);
	*out = plumb_part_add(r->p, thread ? PLUMB_PART_THREAD : PLUMB_PART_PROCESS,
			      name ? name : (tid >= 0 ? label : NULL), pid, tid);
	if (*out == PLUMB_NONE)
		return plumb_fail_nomem(r->err);
	r->tparts[r->ntparts++] = (struct tpart){ tid, pid, name, *out };
	return 0;
}

/* ---- samples -------------------------------------------------------------- */

/* Each sample's frames, root first and cut by drop_frames, side by side:
 * sample i's are fr[off[i] .. off[i + 1]), in part part[i]. */
typedef struct stacks {
	plumb_id *fr, *part;
	size_t *off;
	size_t n, cap, noff, cap_off;
} stacks;

/* The samples' frames as they are decoded, and what read_samples checks
 * after the values, in the order it did before: the first sample with a
 * location id that is no location's, the first with too many frames. */
typedef struct decoding {
	reader *r;
	stacks st;
	uint64_t *tags;           /* a sample's loc_tags, root first */
	size_t cap_tags;
	size_t bad_loc, bad_len;  /* sample index, or SIZE_MAX */
	uint64_t bad_id;
	size_t ns;                /* samples the walk met */
} decoding;

/* After this many samples, the room for all their frames is guessed from
 * theirs: the frames are the read's biggest array, and growing it by
 * doubling copied it and faulted its pages in twice. */
#define FRAMES_GUESS_AT 4096

#define DECODING_NOMEM (-3)   /* ran out of memory, r->err says so */

/* Sample i's n frames, written after the stacks' others, become its. */
static int stack_done(decoding *dc, size_t i, size_t n)
{
	stacks *st = &dc->st;
	if (n > UINT32_MAX && dc->bad_len == SIZE_MAX)
		dc->bad_len = i;
	st->n += n;
	st->off[i + 1] = st->n;
	return 0;
}

/* Sample i's location ids (leaf first) become its frames, root first and
 * cut by drop_frames, appended to the stacks (pprof_take_samples' fn). */
static int sample_frames(void *ctx, size_t i, const uint64_t *ids, size_t nids)
{
	decoding *dc = ctx;
	reader *r = dc->r;
	stacks *st = &dc->st;
	if (i == 0 && dc->ns < SIZE_MAX / 2)
		(void)plumb_vec_reserve_((void **)&st->off, &st->cap_off, dc->ns + 2, sizeof *st->off);
	if (i == FRAMES_GUESS_AT && dc->ns > i) {
		double want = (double)st->n / (double)i * (double)dc->ns * 1.125;
		if (want < (double)(SIZE_MAX / 2 / sizeof *st->fr) && /* a hint: failure is no error */
		    plumb_vec_reserve_((void **)&st->fr, &st->cap, (size_t)want, sizeof *st->fr) == 0)
			plumb_advise_huge(st->fr, st->cap * sizeof *st->fr);
	}
	if (plumb_vec_reserve_((void **)&st->off, &st->cap_off, i + 2, sizeof *st->off) < 0 ||
	    plumb_vec_reserve_((void **)&dc->tags, &dc->cap_tags, nids, sizeof *dc->tags) < 0)
		return plumb_fail_nomem(r->err), DECODING_NOMEM;
	st->off[i] = st->off[i + 1] = st->n;
	st->noff = i + 2;
	/* the usual stack: dense ids, a frame a location, nothing dropped */
	if (r->locs.dense && !r->frame_drop) {
		if (plumb_vec_reserve_((void **)&st->fr, &st->cap, st->n + nids, sizeof *st->fr) < 0)
			return plumb_fail_nomem(r->err), DECODING_NOMEM;
		plumb_id *out = st->fr + st->n;
		size_t j = 0;
		for (; j < nids; j++) {
			uint64_t li = ids[nids - 1 - j] - 1;
			if (li >= r->locs.n || !(r->loc_tag[li] & LOC_FRAME))
				break; /* the general way below */
			out[j] = (plumb_id)r->loc_tag[li];
		}
		if (j == nids)
			return stack_done(dc, i, nids);
	}
	/* the locations come in no order: their tags fetched all at once */
	for (size_t j = 0; j < nids && r->locs.dense; j++)
		if (ids[j] - 1 < r->locs.n)
			__builtin_prefetch(&r->loc_tag[ids[j] - 1]);
	size_t nfr = 0;
	for (size_t j = 0; j < nids; j++) { /* root first */
		uint64_t id = ids[nids - 1 - j];
		size_t li = id_map_find(&r->locs, id);
		if (li == SIZE_MAX) {
			if (dc->bad_loc == SIZE_MAX)
				dc->bad_loc = i, dc->bad_id = id;
			return 0;
		}
		uint64_t tag = r->loc_tag[li];
		dc->tags[j] = tag;
		nfr += tag & LOC_FRAME ? 1 : r->loc_off[li + 1] - r->loc_off[li];
		if (!(tag & LOC_FRAME)) /* its frames, for the copy below */
			__builtin_prefetch(&r->frames[r->loc_off[li]]);
	}
	if (plumb_vec_reserve_((void **)&st->fr, &st->cap, st->n + nfr, sizeof *st->fr) < 0)
		return plumb_fail_nomem(r->err), DECODING_NOMEM;
	plumb_id *out = st->fr + st->n;
	bool user = false, cut = false;
	for (size_t j = 0; j < nids && !cut; j++) {
		uint64_t tag = dc->tags[j];
		if (tag & LOC_FRAME) {
			*out++ = (plumb_id)tag;
			continue;
		}
		size_t k0 = r->loc_off[tag], k1 = r->loc_off[tag + 1];
		if (!r->frame_drop) {
			for (size_t k = k0; k < k1; k++)
				*out++ = r->frames[k];
			continue;
		}
		for (size_t k = k0; k < k1 && !cut; k++) {
			/* pprof keeps the frames before the first that does not
			 * match, and cuts at the first match after it */
			if (!r->frame_drop[k])
				user = true;
			else if (user)
				cut = true;
			if (!cut)
				*out++ = r->frames[k];
		}
	}
	return stack_done(dc, i, (size_t)(out - st->fr) - st->n);
}

/* Check every sample's values, in the file's order. */
static int check_values(reader *r)
{
	const pprof_samples *sm = &r->smp;
	size_t nev = r->pb->n_sample_type;
	for (size_t i = 0; i < sm->n; i++) {
		size_t nv = sm->val_off[i + 1] - sm->val_off[i];
		if (nv != nev)
			return fail_at(r, pprof_offset(&r->offs, PPROF_OFF_SAMPLE, i), PLUMB_ERR_FORMAT,
				       "expected sample %zu to have %zu values, one per sample type, "
				       "got %zu", i, nev, nv);
		for (size_t k = 0; k < nev; k++) {
			int64_t v = (int64_t)sm->val[sm->val_off[i] + k];
			if (v < 0)
				return fail_at(r, pprof_offset(&r->offs, PPROF_OFF_SAMPLE, i),
					       PLUMB_ERR_UNSUPPORTED, "expected sample %zu's values to be "
					       "0 or more, got %" PRId64 " (a difference of profiles is "
					       "not supported)", i, v);
		}
	}
	return 0;
}

/* Add sample i (frames f[0..n), part's tree root at nodes[0]) to the tree:
 * nodes[1..d] are the nodes of f[0..d) already; fresh: f[d] is no child of
 * nodes[d] yet (else looked up, down to the first node made). */
static int add_path(reader *r, const plumb_id *f, size_t n, size_t d, bool fresh, plumb_id *nodes)
{
	for (; d < n && !fresh; d++) {
		size_t had = r->p->cct.n;
		if ((nodes[d + 1] = plumb_cct_child(r->p, nodes[d], f[d])) == PLUMB_NONE)
			return plumb_fail_nomem(r->err);
		fresh = r->p->cct.n > had;
	}
	if (d < n && plumb_cct_new_path(r->p, nodes[d], f + d, n - d, nodes + d + 1))
		return plumb_fail_nomem(r->err);
	return 0;
}

/* Sample i's values added to node (costs: room for one a sample type). */
static int add_costs(reader *r, size_t i, plumb_id node, uint64_t *costs)
{
	size_t nev = r->pb->n_sample_type;
	bool any = false;
	for (size_t k = 0; k < nev; k++) {
		uint64_t v = r->smp.val[i * nev + k]; /* nev each: check_values */
		costs[r->ev_of_type[k]] = v;
		any |= v != 0;
	}
	if (!any || plumb_cct_add_self(r->p, node, costs, r->err) == 0)
		return 0;
	return r->err && r->err->code == PLUMB_ERR_OVERFLOW
		       ? fail_at(r, pprof_offset(&r->offs, PPROF_OFF_SAMPLE, i), PLUMB_ERR_OVERFLOW,
				 "expected the values of a stack to total at most %" PRIu64
				 ", got more", UINT64_MAX)
		       : -1;
}

static int read_samples(reader *r)
{
	const pprof_samples *sm = &r->smp;
	decoding dc = { .r = r, .bad_loc = SIZE_MAX, .bad_len = SIZE_MAX,
			.ns = r->offs.n[PPROF_OFF_SAMPLE] };
	stacks *stp = &dc.st;
	pprof_walk_error we;
	/* as many samples as the walk met, one value a type each (a value
	 * takes a byte at least: no more than the message's bytes) */
	size_t nsk = r->offs.n[PPROF_OFF_SAMPLE], nt = r->pb->n_sample_type;
	size_t nval = nt && nsk > r->len / nt ? r->len : nsk * nt;
	int rc = pprof_take_samples(r->data, r->len, nsk, nval, &r->smp, sample_frames, &dc, &we);
	if (rc == -1) /* a sample is wrong: the whole walk names the byte and what */
		(void)pprof_walk(r->data, r->len, false, false, NULL, NULL, &we);
	if (rc == -1 || rc == -2)
		rc = rc == -2 ? plumb_fail_nomem(r->err)
			      : fail_at(r, we.offset, PLUMB_ERR_FORMAT, "%s", we.what);
	free(r->data); /* its pages for the tree */
	r->data = NULL;
	free(dc.tags);
	if (rc)
		rc = -1;
	size_t nev = r->pb->n_sample_type, ns = sm->n, maxn = 0;
	if (rc == 0)
		rc = check_values(r);
	if (rc) {
		free(stp->fr);
		free(stp->off);
		return rc;
	}
	stacks st = *stp;
	st.part = malloc((ns ? ns : 1) * sizeof *st.part);
	sitem *order = malloc((ns ? ns : 1) * sizeof *order);
	uint64_t *costs = malloc(nev * sizeof *costs);
	plumb_id *nodes = NULL;
	plumb_advise_huge(order, ns * sizeof *order);
	if (!st.part || !order || !costs || (ns && st.noff != ns + 1))
		rc = plumb_fail_nomem(r->err);
	else if (ns > UINT32_MAX)
		rc = fail_at(r, 0, PLUMB_ERR_UNSUPPORTED, "expected at most %u samples, got %zu",
			     UINT32_MAX, ns);
	for (size_t i = 0; i < ns && rc == 0; i++) {
		size_t at = pprof_offset(&r->offs, PPROF_OFF_SAMPLE, i);
		rc = sample_part(r, i, at, &st.part[i]);
		if (rc == 0 && i == dc.bad_loc)
			rc = fail_at(r, at, PLUMB_ERR_FORMAT, "expected sample %zu's location_id to "
				     "be one of the %zu locations' ids, got %" PRIu64, i,
				     r->lc.n, dc.bad_id);
	}
	if (rc == 0 && dc.bad_len != SIZE_MAX)
		rc = fail_at(r, pprof_offset(&r->offs, PPROF_OFF_SAMPLE, dc.bad_len),
			     PLUMB_ERR_UNSUPPORTED, "expected a stack of at most %u frames, got %zu",
			     UINT32_MAX, st.off[dc.bad_len + 1] - st.off[dc.bad_len]);
	/* the tree has at most as many new nodes as the samples have frames */
	if (rc == 0 && plumb_cct_reserve(r->p, st.n))
		rc = plumb_fail_nomem(r->err);
	for (size_t i = 0; i < ns && rc == 0; i++) {
		size_t n = st.off[i + 1] - st.off[i];
		maxn = n > maxn ? n : maxn;
	}
	if (rc == 0 && !(nodes = malloc((maxn + 1) * sizeof *nodes)))
		rc = plumb_fail_nomem(r->err);
	/* in the file's order when it is grouped (no sort), else sorted */
	int grouped = 0;
	if (rc == 0) {
		plumb_id *node_of = (plumb_id *)order; /* room enough: an sitem a sample */
		grouped = pprof_tree_grouped(r->p, st.fr, st.off, st.part, ns, maxn, node_of, nodes);
		if (grouped < 0)
			rc = plumb_fail_nomem(r->err);
		for (size_t i = 0; i < ns && rc == 0 && grouped == 1; i++)
			rc = add_costs(r, i, node_of[i], costs);
	}
	if (rc == 0 && grouped == 0) {
		for (size_t i = 0; i < ns; i++)
			/* base past the end: the cache is filled when first read */
			order[i] = (sitem){ st.off[i], (uint32_t)i, (uint32_t)(st.off[i + 1] - st.off[i]),
					    st.part[i], UINT32_MAX - 4, { 0, 0, 0, 0 } };
		pprof_sort_stacks_2(st.fr, order, ns);
	}
	plumb_id part = PLUMB_NONE;
	bool fresh = false;
	const plumb_id *pf = NULL;
	size_t pn = 0;
	for (size_t oi = 0; oi < ns && rc == 0 && grouped == 0; oi++) {
		uint32_t i = order[oi].i;
		/* the samples come in no order of the file's: their values and
		 * frames are fetched a few ahead */
		if (oi + 8 < ns) {
			__builtin_prefetch(sm->val + (size_t)order[oi + 8].i * nev);
			__builtin_prefetch(st.fr + order[oi + 8].off);
		}
		const plumb_id *f = st.fr + order[oi].off;
		size_t n = order[oi].n, d = 0;
		if (order[oi].part != part) {
			/* a part new to the tree (no child yet) needs no lookups */
			part = order[oi].part;
			nodes[0] = r->p->parts.v[part].root;
			fresh = r->p->cct.v[nodes[0]].first_child == PLUMB_NONE;
		} else {
			while (d < n && d < pn && f[d] == pf[d])
				d++;
		}
		/* a sample whose stack the one before ends with is its node */
		if (d < n && (rc = add_path(r, f, n, d, fresh, nodes)) < 0)
			break;
		pf = f;
		pn = n;
		rc = add_costs(r, i, nodes[n], costs);
	}
	free(st.fr);
	free(st.part);
	free(st.off);
	free(order);
	free(costs);
	free(nodes);
	return rc;
}

/* ---- the rest: drop/keep, metadata ------------------------------------------ */

static int compile_frames_rx(reader *r, int64_t idx, regex_t *rx, bool *has, const char *what)
{
	const char *s = str_at(r, idx, 0, what);
	if (!s)
		return -1;
	if (!*s)
		return 0;
	/* pprof anchors the expression: the whole name must match */
	size_t len = strlen(s) + 8;
	char *full = malloc(len);
	if (!full)
		return plumb_fail_nomem(r->err);
	snprintf(full, len, "^(%s)$", s);
	if (regcomp(rx, full, REG_EXTENDED | REG_NOSUB) != 0)
		warn(r, "%s \"%s\" is not a regular expression plumb understands: not applied",
		     what, s);
	else
		*has = true;
	free(full);
	return 0;
}

static int meta_i64(reader *r, const char *key, int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRId64, v);
	return plumb_meta_set(r->p, key, buf, r->err);
}

static int read_meta(reader *r)
{
	const pb_profile *pb = r->pb;
	plumb_profile *p = r->p;
	if ((pb->time_nanos && meta_i64(r, "pprof.time_ns", pb->time_nanos)) ||
	    (pb->duration_nanos && meta_i64(r, "pprof.duration_ns", pb->duration_nanos)) ||
	    (pb->period && meta_i64(r, "pprof.period", pb->period)))
		return -1;
	if (pb->period_type) {
		const char *t = str_at(r, pb->period_type->type, 0, "period_type's type");
		const char *u = str_at(r, pb->period_type->unit, 0, "period_type's unit");
		if (!t || !u)
			return -1;
		char buf[512];
		snprintf(buf, sizeof buf, "%s/%s", t, u);
		if ((*t || *u) && plumb_meta_set(p, "pprof.period_type", buf, r->err))
			return -1;
	}
	const char *keys[] = { "pprof.drop_frames", "pprof.keep_frames", "pprof.default_sample_type" };
	int64_t idx[] = { pb->drop_frames, pb->keep_frames, pb->default_sample_type };
	for (int i = 0; i < 3; i++) {
		const char *s = str_at(r, idx[i], 0, keys[i] + 6);
		if (!s || (*s && plumb_meta_set(p, keys[i], s, r->err)))
			return -1;
	}
	if (pb->n_comment) {
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);
		if (!fp)
			return plumb_fail_nomem(r->err);
		int rc = 0;
		for (size_t i = 0; i < pb->n_comment && rc == 0; i++) {
			const char *c = str_at(r, pb->comment[i], 0, "a comment");
			if (!c)
				rc = -1;
			else
				fprintf(fp, "%s%s", i ? "\n" : "", c);
		}
		fclose(fp);
		if (rc == 0)
			rc = plumb_meta_set(p, "pprof.comments", buf, r->err);
		free(buf);
		if (rc)
			return -1;
	}
	if (r->nother) {
		char buf[512] = "";
		size_t len = 0;
		for (size_t i = 0; i < r->nother && len < sizeof buf; i++)
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? ", " : "",
						r->other_keys[i]);
		warn(r, "labels %s are not kept (only thread and pid labels split the samples)", buf);
		if (plumb_meta_set(p, "pprof.other_labels", buf, r->err))
			return -1;
	}
	return plumb_meta_get(p, "creator") ? 0 : plumb_meta_set(p, "creator", "pprof", r->err);
}

/* ---- the file --------------------------------------------------------------- */

static int read_all(const char *path, uint8_t **out, size_t *len, plumb_error *err)
{
	FILE *fp = plumb_open_input(path, err);
	if (!fp)
		return -1;
	/* a regular file's size known: one buffer, not a doubling one */
	struct stat st;
	size_t cap = 1 << 16, n = 0, got;
	if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX / 2)
		cap = (size_t)st.st_size + 1;
	uint8_t *buf = malloc(cap);
	int rc = buf ? 0 : plumb_fail_nomem(err);
	while (rc == 0 && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
		n += got;
		if (n == cap) {
			uint8_t *b = realloc(buf, cap * 2);
			if (!b)
				rc = plumb_fail_nomem(err);
			else
				buf = b, cap *= 2;
		}
	}
	if (rc == 0 && ferror(fp))
		rc = plumb_fail(err, PLUMB_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
	fclose(fp);
	if (rc) {
		free(buf);
		return -1;
	}
	*out = buf;
	*len = n;
	return 0;
}

static void reader_free(reader *r)
{
	pprof_offsets_free(&r->offs);
	pprof_samples_free(&r->smp);
	pprof_locations_free(&r->lc);
	id_map_free(&r->maps);
	id_map_free(&r->locs);
	id_map_free(&r->funcs);
	free(r->mod_of_map);
	free(r->frames);
	free(r->loc_off);
	free(r->loc_tag);
	free(r->ev_of_type);
	free(r->drop_fn);
	free(r->fn_of);
	free(r->fn_mod);
	free(r->frame_drop);
	free(r->tparts);
	free(r->data);
	for (size_t i = 0; i < r->nother; i++)
		free(r->other_keys[i]);
	free(r->other_keys);
	if (r->has_drop)
		regfree(&r->drop);
	if (r->has_keep)
		regfree(&r->keep);
}

int plumb_pprof_read(plumb_profile *p, const char *path, const plumb_read_opts *opts,
		     plumb_error *err)
{
	uint8_t *raw, *data;
	size_t raw_len, len;
	if (read_all(path, &raw, &raw_len, err))
		return -1;
	reader r = { .p = p, .path = path, .opts = opts, .err = err, .unlabeled = PLUMB_NONE };
	static const uint8_t zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	if (raw_len >= 4 && memcmp(raw, zstd_magic, 4) == 0) {
		free(raw);
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "%s: zstd-compressed pprof is not read "
				  "(pprof files are gzip-wrapped or raw): decompress it first", path);
	}
	r.gz = pprof_is_gzip(raw, raw_len);
	if (r.gz) {
		int rc = pprof_gunzip(path, raw, raw_len, &data, &len, err);
		free(raw);
		if (rc)
			return -1;
	} else {
		data = raw;
		len = raw_len;
	}
	pprof_walk_error we;
	int rc = 0;
	if (len == 0)
		rc = fail_at(&r, 0, PLUMB_ERR_FORMAT, "expected a pprof Profile message, got no data");
	else if (pprof_walk_skim(data, len, &r.offs, &we) < 0) {
		/* the first fault in the file's order, samples included */
		(void)pprof_walk(data, len, false, false, NULL, NULL, &we);
		rc = fail_at(&r, we.offset, PLUMB_ERR_FORMAT, "%s", we.what);
	}
	uint8_t *rest = NULL;
	size_t rest_len = 0;
	if (rc == 0) {
		int t = pprof_take_rest(data, len, &rest, &rest_len, &r.lc, &we);
		/* a location is wrong: the whole walk names the byte and what */
		if (t == -1)
			(void)pprof_walk(data, len, false, false, NULL, NULL, &we);
		if (t < 0)
			rc = t == -2 ? plumb_fail_nomem(err)
				     : fail_at(&r, we.offset, PLUMB_ERR_FORMAT, "%s", we.what);
	}
	/* the samples are decoded last, once their locations are known */
	r.data = data;
	r.len = len;
	pb_profile *pb = rc ? NULL : perftools__profiles__profile__unpack(NULL, rest_len, rest);
	free(rest);
	if (rc == 0 && !pb) /* the walk found nothing wrong: protobuf-c ran out of memory */
		rc = plumb_fail(err, PLUMB_ERR_NOMEM, "%s: cannot decode the pprof message (out of "
				"memory?)", path);
	r.pb = pb;
	if (rc == 0 && (pb->n_string_table == 0 || pb->string_table[0][0] != '\0'))
		rc = fail_at(&r, 0, PLUMB_ERR_FORMAT, "expected the string table to start with \"\", "
			     "got %s", pb->n_string_table ? "another string" : "no strings");
	if (rc == 0)
		rc = compile_frames_rx(&r, pb->drop_frames, &r.drop, &r.has_drop, "drop_frames");
	if (rc == 0)
		rc = compile_frames_rx(&r, pb->keep_frames, &r.keep, &r.has_keep, "keep_frames");
	if (rc == 0)
		rc = setup_events(&r);
	if (rc == 0)
		rc = read_mappings(&r);
	if (rc == 0)
		rc = read_function_ids(&r);
	if (rc == 0)
		rc = read_locations(&r);
	/* a sample damaged on the wire comes first, as when the samples were
	 * decoded before the rest */
	if (rc && r.data && pprof_walk(r.data, r.len, false, false, NULL, NULL, &we) < 0)
		rc = fail_at(&r, we.offset, PLUMB_ERR_FORMAT, "%s", we.what);
	if (rc == 0)
		rc = read_samples(&r);
	if (rc == 0)
		rc = read_meta(&r);
	if (pb)
		perftools__profiles__profile__free_unpacked(pb, NULL);
	reader_free(&r);
	return rc;
}

bool plumb_pprof_detect(const unsigned char *head, size_t len)
{
	if (!head || len < 2)
		return false;
	if (pprof_is_gzip(head, len)) {
		/* a head not yet decompressed (the registry decompresses it) */
		static const size_t cap = 64 * 1024;
		uint8_t *buf = malloc(cap);
		if (!buf)
			return false;
		size_t n = pprof_gunzip_head(head, len, buf, cap);
		bool yes = n >= 2 && !pprof_is_gzip(buf, n) && plumb_pprof_detect(buf, n);
		free(buf);
		return yes;
	}
	/* the fields in the head are ones profile.proto has, nested messages
	 * included (the head may end inside a field), and a sample_type and
	 * another field are among them: Go writes time_nanos first, other
	 * writers sample_type. A file damaged further on is still pprof, for
	 * the reader to name the byte at fault. */
	uint32_t seen = 0;
	(void)pprof_walk(head, len, true, true, NULL, &seen, NULL);
	return (seen & 2u) && (seen & ~2u);
}
