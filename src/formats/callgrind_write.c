/* Callgrind writer: any plumb profile as a Callgrind file (seed 001) that
 * callgrind_annotate and KCachegrind read with the totals and per-function
 * costs plumb reports. The rules that keep every reader happy are in
 * ../shared/research/callgrind.md, section 1 ("Writer rules").
 *
 * Costs, by the shape the profile holds them in:
 *  - a call graph (cg_self, arcs) is written as it is: self cost at each
 *    frame, and each arc as a call from its call site with its inclusive
 *    cost. An arc without an inclusive cost (gmon.out) keeps its count and
 *    gets cost 0: the writer does not estimate costs;
 *  - a calling context tree becomes self cost at each node's frame and, for
 *    each parent -> child edge, a call from the parent's frame to the child's
 *    function with the inclusive cost of the child's subtree. Contexts that
 *    share the caller frame and the callee become one call line. Its count
 *    is the sum of the activation counts.
 * Call counts: the format has no "unknown" count, and a sampled profile (a
 * CCT without activation counts: folded stacks, plumb record) has none. Its
 * calls are written calls=1, "called", the least a count can claim; the
 * number of contexts, written before, showed in KCachegrind as call counts
 * (main -> helper "3x" for one call). Where some counts are known, their
 * sum is written. A call is never written with calls=0 (callgrind_annotate
 * would add the cost line to the caller's self cost): a recorded 0 becomes
 * 1 too. A header comment says when either applies.
 * Jumps (Callgrind's jump=/jcnd=, kept by the reader) are written at their
 * source position after its self cost and calls, as Callgrind writes them.
 *
 * Layout: each plumb part is one section (part: N, thread: T). The first
 * section alone carries summary:, the total of the whole profile, because
 * callgrind_annotate sums every section's body and takes the last summary:
 * as 100%; each section ends with totals: of its own costs. Derived events
 * are event: lines only; the cost columns are the primary events.
 *
 * Functions are written by object, file and name, and inlined files by
 * path, so the output depends on names only: a written file read back and
 * written again is the same bytes. Names are compressed per section (files,
 * objects and functions, ids from 1). Function ids stand for one plumb
 * function (name, file, object), not for a name: KCachegrind binds an id to
 * the function it was defined with.
 * Positions are relative (+N, -N, *) as Callgrind writes them: only when the
 * last value is above 0 and the difference below 100. The base is the last
 * self cost line; it is forgotten at fn=, fi= and fe=, a call target is
 * always absolute, and a call site is either * or absolute (after which the
 * base is forgotten), so that every reader's reading of relative positions
 * gives the same numbers.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/formats.h"

#ifndef PLUMB_VERSION
#define PLUMB_VERSION "unknown"
#endif

enum { KIND_SELF = 0, KIND_CALL = 1, KIND_JUMP = 2 };

/* Header notes: what a reader of the file should know about calls= lines. */
enum {
	NOTE_UNKNOWN = 1,   /* calls whose count is not known (sampled stacks) */
	NOTE_ZERO = 2,      /* a recorded count of 0 written as 1 */
	NOTE_NO_INCL = 4    /* calls whose inclusive cost is not known, written with 0 */
};

/* Name namespaces; each has its own ids. */
enum { NS_FILE, NS_OBJECT, NS_FUNCTION, NS_COUNT };

/* One self cost, call or jump; runs of equal (part, frame, kind, callee)
 * merge. Small, as there is one per cost line, arc or jump of the profile:
 * the sort keys come from the frame. */
typedef struct item {
	const uint64_t *cost; /* one slot per event, or NULL for zero */
	uint64_t count;       /* known call count, 0 when unknown */
	uint32_t part;
	uint32_t frame;       /* where the cost is, or the call site */
	uint32_t callee;      /* calls: the function called; jumps: the jump id */
	uint8_t kind;
	uint8_t flags;        /* NOTE_* that apply to this call */
} item;

/* A run of items with one key (in writing order): one cost line or call. */
typedef struct run {
	const item *first;
	size_t end;           /* the writing-order index after the run */
	uint64_t count;       /* calls: the count to write (never 0) */
} run;

typedef struct names {
	uint32_t *id;         /* key -> id within the current section */
	uint32_t *stamp;      /* key -> section stamp of that id */
	uint32_t next;
} names;

typedef struct cgw {
	const plumb_profile *p;
	FILE *out;
	size_t nev, nprim;
	uint32_t *prim;       /* primary event indexes */
	char **ev_name;       /* nev: each event's name as one token, unique */
	uint32_t nfn;         /* functions + 1 (a pseudo function for frames without one) */
	uint32_t *rank;       /* function -> order */
	uint32_t *file_rank;  /* file -> order */
	uint32_t *frame_pos;  /* frame -> order of positions (function, file, address, line) */
	uint64_t *tgt_addr;   /* function -> lowest address of its frames */
	uint32_t *tgt_line;   /* function -> its first line */
	uint64_t *cct_incl;   /* CCT node -> inclusive cost of its subtree */
	item *items;          /* in the order they were made */
	size_t nitems;
	uint32_t *order;      /* item indexes in writing order */
	uint64_t *buf;        /* nprim: the summed costs of one run */
	uint64_t *part_total; /* nparts * nprim */
	uint64_t *total;      /* nprim */
	uint64_t *summary;    /* nprim: the first section's summary: */
	size_t nparts;
	unsigned notes;
	bool instr, objects;
	names ns[NS_COUNT];
	uint32_t unknown_key; /* the name key of "???" */
	uint32_t stamp;
	/* state while writing a section */
	uint32_t cur_ob, cur_fl, cur_file;
	uint64_t base_addr, base_line;
} cgw;

static void cgw_free(cgw *w)
{
	free(w->prim);
	for (size_t e = 0; w->ev_name && e < w->nev; e++)
		free(w->ev_name[e]);
	free(w->ev_name);
	free(w->rank);
	free(w->file_rank);
	free(w->frame_pos);
	free(w->tgt_addr);
	free(w->tgt_line);
	free(w->cct_incl);
	free(w->items);
	free(w->order);
	free(w->buf);
	free(w->part_total);
	free(w->total);
	free(w->summary);
	for (int i = 0; i < NS_COUNT; i++) {
		free(w->ns[i].id);
		free(w->ns[i].stamp);
	}
}

/* calloc of a * b bytes that fails on overflow; never asks for 0 bytes. */
static void *alloc_array(size_t a, size_t b)
{
	if (b && a > SIZE_MAX / b)
		return NULL;
	return calloc(a ? a : 1, b ? b : 1);
}

/* ---- output primitives ---------------------------------------------------
 * Errors stick in the stream; callers check ferror after each function. */

static void put(cgw *w, const char *s)
{
	fputs_unlocked(s, w->out);
}

static void put_c(cgw *w, char c)
{
	fputc_unlocked(c, w->out);
}

static void put_u64(cgw *w, uint64_t v)
{
	char buf[24], *e = buf + sizeof buf, *s = e;
	do
		*--s = (char)('0' + v % 10);
	while (v /= 10);
	fwrite_unlocked(s, 1, (size_t)(e - s), w->out);
}

static void put_hex(cgw *w, uint64_t v)
{
	if (v == 0) {
		put_c(w, '0');
		return;
	}
	char buf[24], *e = buf + sizeof buf, *s = e;
	for (; v; v >>= 4)
		*--s = "0123456789abcdef"[v & 15];
	*--s = 'x';
	*--s = '0';
	fwrite_unlocked(s, 1, (size_t)(e - s), w->out);
}

/* A name on one line: a control byte other than a tab would end or break the
 * line, so it becomes '?'. */
static void put_name_text(cgw *w, const char *s)
{
	for (const char *t = s; *t; t++)
		put_c(w, (unsigned char)*t < 0x20 && *t != '\t' ? '?' : *t);
}

/* Callgrind's escapes for cmd: a newline is "\n", a backslash "\\". */
static void put_escaped(cgw *w, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			put(w, "\\n");
		else if (*s == '\\')
			put(w, "\\\\");
		else
			put_c(w, *s);
	}
}

static void put_event_name(cgw *w, plumb_id ev)
{
	put(w, w->ev_name[ev]);
}

/* ---- name compression -------------------------------------------------- */

/* Name keys: string ids for files and objects (paths), function ids for
 * functions; unknown_key for "???". */
static uint32_t file_key(const cgw *w, plumb_id file)
{
	if (file == PLUMB_NONE || file >= w->p->files.n)
		return w->unknown_key;
	plumb_id s = w->p->files.v[file].path;
	const char *t = plumb_str(w->p, s);
	return t && *t ? s : w->unknown_key;
}

static uint32_t module_key(const cgw *w, plumb_id module)
{
	if (module == PLUMB_NONE || module >= w->p->modules.n)
		return w->unknown_key;
	plumb_id s = w->p->modules.v[module].path;
	const char *t = plumb_str(w->p, s);
	return t && *t ? s : w->unknown_key;
}

static const plumb_function *function_of(const cgw *w, uint32_t fn)
{
	return fn < w->p->functions.n ? &w->p->functions.v[fn] : NULL;
}

static uint32_t fn_file_key(const cgw *w, uint32_t fn)
{
	const plumb_function *f = function_of(w, fn);
	return file_key(w, f ? f->file : PLUMB_NONE);
}

static uint32_t fn_module_key(const cgw *w, uint32_t fn)
{
	const plumb_function *f = function_of(w, fn);
	return module_key(w, f ? f->module : PLUMB_NONE);
}

static const char *key_text(const cgw *w, int ns, uint32_t key)
{
	if (ns == NS_FUNCTION) {
		const plumb_function *f = function_of(w, key);
		const char *s = f ? plumb_str(w->p, f->name) : NULL;
		return s && *s ? s : "???";
	}
	return key == w->unknown_key ? "???" : plumb_str(w->p, key);
}

/* "spec=(id) name" the first time in a section, "spec=(id)" afterwards. */
static void put_spec(cgw *w, const char *spec, int ns, uint32_t key)
{
	names *t = &w->ns[ns];
	assert(ns == NS_FUNCTION ? key < w->nfn : key <= w->unknown_key); /* names_init's sizes */
	put(w, spec);
	put(w, "=(");
	if (t->stamp[key] == w->stamp) {
		put_u64(w, t->id[key]);
		put(w, ")\n");
		return;
	}
	t->stamp[key] = w->stamp;
	t->id[key] = ++t->next;
	put_u64(w, t->id[key]);
	put(w, ") ");
	put_name_text(w, key_text(w, ns, key));
	put_c(w, '\n');
}

static int names_init(cgw *w)
{
	size_t nkeys[NS_COUNT] = { w->p->strings.off.n + 1, w->p->strings.off.n + 1, w->nfn };
	for (int i = 0; i < NS_COUNT; i++) {
		w->ns[i].id = alloc_array(nkeys[i], sizeof(uint32_t));
		w->ns[i].stamp = alloc_array(nkeys[i], sizeof(uint32_t));
		if (!w->ns[i].id || !w->ns[i].stamp)
			return -1;
	}
	w->unknown_key = (uint32_t)w->p->strings.off.n;
	return 0;
}

/* ---- preparing: events, functions, positions ----------------------------- */

/* An event name as one token: whitespace would split the events: line,
 * so bytes up to ' ' become '_'; "E<id>" for an empty name. */
static char *event_token(const plumb_profile *p, size_t ev)
{
	const char *s = plumb_str(p, p->events.v[ev].name);
	char *t;
	if (!s || !*s) {
		if (asprintf(&t, "E%zu", ev) < 0)
			return NULL;
		return t;
	}
	if (!(t = strdup(s)))
		return NULL;
	for (char *c = t; *c; c++)
		if ((unsigned char)*c <= ' ')
			*c = '_';
	return t;
}

static bool token_taken(char *const *tokens, size_t n, size_t self, const char *t)
{
	for (size_t i = 0; i < n; i++)
		if (i != self && tokens[i] && strcmp(tokens[i], t) == 0)
			return true;
	return false;
}

/* Each event's token, unique: two names that differ only in the bytes
 * made '_' ("a b", "a_b") would be one event twice, which readers refuse;
 * the later one gets "_2", "_3", ... past every other event's token. */
static int name_events(cgw *w, plumb_error *err)
{
	if (!(w->ev_name = alloc_array(w->nev, sizeof *w->ev_name)))
		return plumb_fail_nomem(err);
	for (size_t e = 0; e < w->nev; e++)
		if (!(w->ev_name[e] = event_token(w->p, e)))
			return plumb_fail_nomem(err);
	for (size_t e = 1; e < w->nev; e++) {
		if (!token_taken(w->ev_name, e, e, w->ev_name[e]))
			continue;
		char *base = w->ev_name[e], *t = NULL;
		for (unsigned k = 2;; k++) {
			free(t);
			if (asprintf(&t, "%s_%u", base, k) < 0) {
				w->ev_name[e] = base;
				return plumb_fail_nomem(err);
			}
			if (!token_taken(w->ev_name, w->nev, e, t))
				break;
		}
		free(base);
		w->ev_name[e] = t;
	}
	return 0;
}

static int prepare_events(cgw *w, plumb_error *err)
{
	const plumb_profile *p = w->p;
	w->nev = p->events.n;
	w->prim = alloc_array(w->nev, sizeof *w->prim);
	if (!w->prim)
		return plumb_fail_nomem(err);
	for (size_t e = 0; e < w->nev; e++)
		if (p->events.v[e].formula == PLUMB_NONE)
			w->prim[w->nprim++] = (uint32_t)e;
	if (w->nprim == 0)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
				  "a profile without events cannot be written as Callgrind");
	return name_events(w, err);
}

/* Names in a fixed order (unknown last), so that the output depends on the
 * names and not on the order a reader met them: reading a written file and
 * writing it again gives the same bytes. */
static int cmp_name(const char *a, const char *b)
{
	if (!a || !b)
		return (a == NULL) - (b == NULL);
	return strcmp(a, b);
}

static const char *known(const cgw *w, uint32_t key)
{
	return key == w->unknown_key ? NULL : plumb_str(w->p, key);
}

typedef struct fn_sort {
	const char *module, *file, *name;
	uint32_t fn;
} fn_sort;

static int cmp_fn_sort(const void *a, const void *b)
{
	const fn_sort *x = a, *y = b;
	int c;
	if ((c = cmp_name(x->module, y->module)) || (c = cmp_name(x->file, y->file)) ||
	    (c = cmp_name(x->name, y->name)))
		return c;
	return x->fn < y->fn ? -1 : x->fn > y->fn;
}

/* Functions in the order they are written: by object, then file, so that
 * ob= and fl= change rarely, then name; the pseudo function (frames
 * without one) last. */
static int rank_functions(cgw *w)
{
	const plumb_profile *p = w->p;
	fn_sort *s = alloc_array(w->nfn, sizeof *s);
	w->rank = alloc_array(w->nfn, sizeof *w->rank);
	if (!s || !w->rank) {
		free(s);
		return -1;
	}
	for (uint32_t f = 0; f < w->nfn; f++) {
		const plumb_function *fn = function_of(w, f);
		s[f] = (fn_sort){ known(w, fn_module_key(w, f)), known(w, fn_file_key(w, f)),
				  fn ? plumb_str(p, fn->name) : NULL, f };
	}
	qsort(s, w->nfn, sizeof *s, cmp_fn_sort);
	for (uint32_t r = 0; r < w->nfn; r++)
		w->rank[s[r].fn] = r;
	free(s);
	return 0;
}

typedef struct file_sort {
	const char *path;
	uint32_t file;
} file_sort;

static int cmp_file_sort(const void *a, const void *b)
{
	const file_sort *x = a, *y = b;
	int c = cmp_name(x->path, y->path);
	return c ? c : (x->file < y->file ? -1 : x->file > y->file);
}

/* Files by path: the order of inlined files within a function. */
static int rank_files(cgw *w)
{
	size_t n = w->p->files.n;
	file_sort *s = alloc_array(n, sizeof *s);
	w->file_rank = alloc_array(n, sizeof *w->file_rank);
	if (!s || !w->file_rank) {
		free(s);
		return -1;
	}
	for (uint32_t f = 0; f < n; f++)
		s[f] = (file_sort){ known(w, file_key(w, f)), f };
	qsort(s, n, sizeof *s, cmp_file_sort);
	for (uint32_t r = 0; r < n; r++)
		w->file_rank[s[r].file] = r;
	free(s);
	return 0;
}

static uint32_t frame_fn(const cgw *w, plumb_id frame)
{
	plumb_id f = w->p->frames.v[frame].function;
	return f < w->p->functions.n ? f : w->nfn - 1;
}

/* Each function's call target: its lowest address, and its first line
 * (the function's own, else the lowest line of its frames). Also decides
 * whether positions carry addresses. */
static int call_targets(cgw *w)
{
	const plumb_profile *p = w->p;
	w->tgt_addr = alloc_array(w->nfn, sizeof *w->tgt_addr);
	w->tgt_line = alloc_array(w->nfn, sizeof *w->tgt_line);
	if (!w->tgt_addr || !w->tgt_line)
		return -1;
	for (size_t i = 0; i < p->frames.n; i++) {
		const plumb_frame *fr = &p->frames.v[i];
		uint32_t f = frame_fn(w, (plumb_id)i);
		if (fr->address) {
			w->instr = true;
			if (!w->tgt_addr[f] || fr->address < w->tgt_addr[f])
				w->tgt_addr[f] = fr->address;
		}
		if (fr->line && (!w->tgt_line[f] || fr->line < w->tgt_line[f]))
			w->tgt_line[f] = fr->line;
	}
	for (uint32_t f = 0; f + 1 < w->nfn; f++)
		if (p->functions.v[f].line)
			w->tgt_line[f] = p->functions.v[f].line;
	for (size_t m = 0; m < p->functions.n && !w->objects; m++)
		w->objects = p->functions.v[m].module != PLUMB_NONE;
	return 0;
}

/* Inclusive cost of every CCT subtree: parents have smaller ids than their
 * children, so one backward pass adds each node into its parent. */
static int cct_inclusive(cgw *w, plumb_error *err)
{
	const plumb_profile *p = w->p;
	if (!p->cct.n)
		return 0;
	w->cct_incl = alloc_array(p->cct.n, w->nev * sizeof(uint64_t));
	if (!w->cct_incl)
		return plumb_fail_nomem(err);
	memcpy(w->cct_incl, p->cct_self.v, p->cct.n * w->nev * sizeof(uint64_t));
	for (size_t i = p->cct.n; i-- > 0;) {
		plumb_id up = p->cct.v[i].parent;
		assert(up == PLUMB_NONE || up < i); /* the model's order: one pass suffices */
		if (up != PLUMB_NONE &&
		    plumb_costs_add(w->cct_incl + (size_t)up * w->nev, w->cct_incl + i * w->nev, w->nev, err))
			return -1;
	}
	return 0;
}

/* ---- items --------------------------------------------------------------- */

static bool primary_zero(const cgw *w, const uint64_t *c)
{
	for (size_t e = 0; e < w->nprim; e++)
		if (c[w->prim[e]])
			return false;
	return true;
}

/* The file a frame's code is in, as a sort group within its function. */
static uint32_t frame_group(const cgw *w, plumb_id frame, uint32_t fn)
{
	plumb_id file = w->p->frames.v[frame].file;
	const plumb_function *f = function_of(w, fn);
	if (file == PLUMB_NONE || (f && file == f->file) || file_key(w, file) == fn_file_key(w, fn))
		return 0;
	return w->file_rank[file] + 1;
}

static item *item_at(cgw *w, plumb_id part, plumb_id frame, uint8_t kind, const uint64_t *cost)
{
	item *it = &w->items[w->nitems++];
	*it = (item){ .cost = cost, .part = part, .frame = frame, .kind = kind };
	return it;
}

static void call_at(cgw *w, plumb_id part, plumb_id caller, uint32_t callee, uint64_t count,
		    const uint64_t *cost, uint32_t flags)
{
	if (callee >= w->p->functions.n)
		callee = w->nfn - 1;
	item *it = item_at(w, part, caller, KIND_CALL, cost);
	it->callee = callee;
	if (count == PLUMB_COUNT_UNKNOWN)
		flags |= NOTE_UNKNOWN;
	else
		it->count = count;
	it->flags = (uint8_t)flags;
}

static void cct_items(cgw *w)
{
	const plumb_profile *p = w->p;
	for (size_t i = 0; i < p->cct.n; i++) {
		const plumb_cct_node *n = &p->cct.v[i];
		if (n->frame == PLUMB_NONE)
			continue;
		const uint64_t *self = p->cct_self.v + i * w->nev;
		if (!primary_zero(w, self))
			item_at(w, n->part, n->frame, KIND_SELF, self);
		plumb_id up = n->parent;
		if (up != PLUMB_NONE && p->cct.v[up].frame != PLUMB_NONE)
			call_at(w, n->part, p->cct.v[up].frame, p->frames.v[n->frame].function,
				plumb_cct_activations(p, (plumb_id)i), w->cct_incl + i * w->nev, 0);
	}
}

static void cg_items(cgw *w)
{
	const plumb_profile *p = w->p;
	for (size_t i = 0; i < p->cg_self.n; i++) {
		const uint64_t *c = p->cg_self_cost.v + i * w->nev;
		if (!primary_zero(w, c))
			item_at(w, p->cg_self.v[i].part, p->cg_self.v[i].frame, KIND_SELF, c);
	}
	for (size_t i = 0; i < p->arcs.n; i++) {
		const plumb_arc *a = &p->arcs.v[i];
		const uint64_t *c = a->has_inclusive ? p->arc_incl.v + i * w->nev : NULL;
		call_at(w, a->part, a->caller, a->callee, a->calls, c, c ? 0 : NOTE_NO_INCL);
	}
}

/* Jumps are written at their source frame, after its self cost and calls. */
static void jump_items(cgw *w)
{
	const plumb_profile *p = w->p;
	for (size_t i = 0; i < p->jumps.n; i++) {
		item *it = item_at(w, p->jumps.v[i].part, p->jumps.v[i].from, KIND_JUMP, NULL);
		it->callee = (uint32_t)i;
	}
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

typedef struct frame_order {
	const cgw *w;
	const uint32_t *group;
} frame_order;

/* Frames by function, then file (the function's own first), address, line. */
static int cmp_frames(const void *a, const void *b, void *ctx)
{
	const frame_order *o = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const plumb_frame *fx = &o->w->p->frames.v[x], *fy = &o->w->p->frames.v[y];
	int c;
	if ((c = cmp_u64(o->w->rank[frame_fn(o->w, x)], o->w->rank[frame_fn(o->w, y)])) ||
	    (c = cmp_u64(o->group[x], o->group[y])) || (c = cmp_u64(fx->address, fy->address)) ||
	    (c = cmp_u64(fx->line, fy->line)))
		return c;
	return cmp_u64(x, y);
}

/* Every frame's place in the writing order, sorted once: items then sort
 * by their frame's place alone. The order is cmp_frames'; as function
 * ranks are 0..nfn-1, the frames are first put in their function's bucket
 * (in id order), and a bucket is sorted only when its frames are not in
 * order already: a reader makes a function's frames in the file's order,
 * so most are (4.7 million frames: 1.3 s of sorting before). */
static int rank_frames(cgw *w)
{
	size_t n = w->p->frames.n;
	uint32_t *group = alloc_array(n, sizeof *group), *ids = alloc_array(n, sizeof *ids);
	uint32_t *start = alloc_array((size_t)w->nfn + 1, sizeof *start);
	w->frame_pos = alloc_array(n, sizeof *w->frame_pos);
	int rc = group && ids && start && w->frame_pos ? 0 : -1;
	if (rc == 0) {
		memset(start, 0, ((size_t)w->nfn + 1) * sizeof *start);
		for (uint32_t f = 0; f < n; f++) {
			uint32_t fn = frame_fn(w, f);
			group[f] = frame_group(w, f, fn);
			start[w->rank[fn] + 1]++;
		}
		for (size_t r = 0; r < w->nfn; r++)
			start[r + 1] += start[r];
		for (uint32_t f = 0; f < n; f++)
			ids[start[w->rank[frame_fn(w, f)]]++] = f;
		/* start[r] is now where bucket r + 1 begins */
		frame_order o = { w, group };
		for (size_t r = 0, lo = 0; r < w->nfn; lo = start[r++]) {
			size_t hi = start[r];
			bool sorted = true;
			for (size_t i = lo + 1; i < hi && sorted; i++)
				sorted = cmp_frames(&ids[i - 1], &ids[i], &o) < 0;
			if (!sorted)
				qsort_r(ids + lo, hi - lo, sizeof *ids, cmp_frames, &o);
		}
		for (uint32_t r = 0; r < n; r++)
			w->frame_pos[ids[r]] = r;
	}
	free(group);
	free(ids);
	free(start);
	return rc;
}

/* At one frame: self cost, then calls by callee, then jumps by target
 * (unconditional first): an order by names, not by ids. */
static int cmp_at_frame(const void *a, const void *b, void *ctx)
{
	const cgw *w = ctx;
	const item *x = &w->items[*(const uint32_t *)a], *y = &w->items[*(const uint32_t *)b];
	int c = cmp_u64(x->kind, y->kind);
	if (c || x->kind == KIND_SELF)
		return c;
	if (x->kind == KIND_CALL)
		return cmp_u64(w->rank[x->callee], w->rank[y->callee]);
	const plumb_jump *jx = &w->p->jumps.v[x->callee], *jy = &w->p->jumps.v[y->callee];
	if ((c = cmp_u64(w->frame_pos[jx->to], w->frame_pos[jy->to])))
		return c;
	return cmp_u64(jx->conditional, jy->conditional);
}

static uint32_t sort_key(const cgw *w, const item *it, bool by_part)
{
	return by_part ? it->part : w->frame_pos[it->frame];
}

/* Stable counting sort of item indexes (src, or 0..n-1 when NULL) into dst
 * by the items' part or frame place, which is below nkeys. */
static int counting_sort(const cgw *w, const uint32_t *src, uint32_t *dst, size_t nkeys,
			 bool by_part)
{
	size_t *start = alloc_array(nkeys + 1, sizeof *start);
	if (!start)
		return -1;
	for (size_t i = 0; i < w->nitems; i++)
		start[sort_key(w, &w->items[src ? src[i] : i], by_part) + 1]++;
	for (size_t k = 0; k < nkeys; k++)
		start[k + 1] += start[k];
	for (size_t i = 0; i < w->nitems; i++) {
		uint32_t x = src ? src[i] : (uint32_t)i;
		dst[start[sort_key(w, &w->items[x], by_part)]++] = x;
	}
	free(start);
	return 0;
}

/* The item at index k of the writing order. */
static const item *at(const cgw *w, size_t k)
{
	return &w->items[w->order[k]];
}

/* The writing order: by part, then frame place (two linear passes over the
 * indexes), then the few items at one frame by kind and callee. */
static int sort_items(cgw *w)
{
	uint32_t *tmp = alloc_array(w->nitems, sizeof *tmp);
	w->order = alloc_array(w->nitems, sizeof *w->order);
	size_t nparts = w->nparts;
	for (size_t i = 0; i < w->nitems; i++)
		if (w->items[i].part >= nparts)
			nparts = (size_t)w->items[i].part + 1; /* reported when writing */
	int rc = !tmp || !w->order || counting_sort(w, NULL, tmp, w->p->frames.n, false) ||
		 counting_sort(w, tmp, w->order, nparts, true) ? -1 : 0;
	free(tmp);
	for (size_t i = 0, j; rc == 0 && i < w->nitems; i = j) {
		for (j = i + 1; j < w->nitems && at(w, j)->part == at(w, i)->part &&
				at(w, j)->frame == at(w, i)->frame; j++)
			;
		if (j - i > 1)
			qsort_r(w->order + i, j - i, sizeof *w->order, cmp_at_frame, w);
	}
	return rc;
}

static bool same_key(const item *x, const item *y)
{
	return x->part == y->part && x->frame == y->frame && x->kind == y->kind &&
	       x->callee == y->callee;
}

/* The run that starts at writing-order index k: its costs summed into c
 * (nprim slots; NULL: not summed) and, for a call, the count to write: the
 * known counts' sum, and 1 when that is 0 (see the top comment). Notes what
 * the header must say. */
static int take_run(cgw *w, size_t k, run *r, uint64_t *c, plumb_error *err)
{
	uint64_t sum = 0;
	unsigned flags = 0;
	r->first = at(w, k);
	if (c)
		memset(c, 0, w->nprim * sizeof *c);
	for (r->end = k; r->end < w->nitems && same_key(r->first, at(w, r->end)); r->end++) {
		const item *it = at(w, r->end);
		for (size_t e = 0; c && it->cost && e < w->nprim; e++) {
			if (c[e] > UINT64_MAX - it->cost[w->prim[e]])
				return plumb_fail(err, PLUMB_ERR_OVERFLOW, "cost overflow");
			c[e] += it->cost[w->prim[e]];
		}
		if (sum > UINT64_MAX - it->count)
			return plumb_fail(err, PLUMB_ERR_OVERFLOW, "call count overflow");
		sum += it->count;
		flags |= it->flags;
	}
	r->count = sum;
	/* a jump is one run: equal jumps are one entry of the profile */
	assert(r->end > k && (r->first->kind != KIND_JUMP || r->end - k == 1));
	if (r->first->kind != KIND_CALL)
		return 0;
	if (sum == 0) {
		r->count = 1;
		if (!(flags & NOTE_UNKNOWN))
			flags |= NOTE_ZERO;
	}
	w->notes |= flags;
	return 0;
}

/* Before the header: what it must note, and the totals of the parts and of
 * the whole (the sum of the self costs: no merging needed). */
static int scan_items(cgw *w, plumb_error *err)
{
	if (sort_items(w))
		return plumb_fail_nomem(err);
	w->buf = alloc_array(w->nprim, sizeof(uint64_t));
	w->total = alloc_array(w->nprim, sizeof(uint64_t));
	w->part_total = alloc_array(w->nparts, w->nprim * sizeof(uint64_t));
	if (!w->buf || !w->total || !w->part_total)
		return plumb_fail_nomem(err);
	for (size_t k = 0; k < w->nitems;) {
		run r;
		bool self = at(w, k)->kind == KIND_SELF;
		if (take_run(w, k, &r, self ? w->buf : NULL, err))
			return -1;
		if (self && r.first->part < w->nparts &&
		    (plumb_costs_add(w->part_total + r.first->part * w->nprim, w->buf, w->nprim, err) ||
		     plumb_costs_add(w->total, w->buf, w->nprim, err)))
			return -1;
		k = r.end;
	}
	return 0;
}

/* Parse at most n decimal numbers (missing ones are 0); false on anything
 * else or on overflow. */
static bool parse_numbers(const char *s, uint64_t *v, size_t n)
{
	memset(v, 0, n * sizeof *v);
	for (size_t k = 0;; k++) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return true;
		if (k == n || *s < '0' || *s > '9')
			return false;
		for (; *s >= '0' && *s <= '9'; s++) {
			uint64_t d = (uint64_t)(*s - '0');
			if (v[k] > (UINT64_MAX - d) / 10)
				return false;
			v[k] = v[k] * 10 + d;
		}
		if (*s && *s != ' ' && *s != '\t')
			return false;
	}
}

/* Callgrind's summary: counts all the run's cost, which can be a little more
 * than the costs it dumped (the exit system call), and callgrind_annotate
 * shows it as the total. A profile of one part read from a Callgrind file
 * keeps it, when it is decimal numbers, one per primary event or fewer, and
 * none below the costs written (else it belongs to other costs); any other
 * profile's summary is the sum of its costs. */
static int choose_summary(cgw *w)
{
	w->summary = alloc_array(w->nprim, sizeof(uint64_t));
	uint64_t *v = alloc_array(w->nprim, sizeof(uint64_t));
	if (!w->summary || !v) {
		free(v);
		return -1;
	}
	memcpy(w->summary, w->total, w->nprim * sizeof(uint64_t));
	const char *s = plumb_meta_get(w->p, "callgrind.summary");
	bool keep = s && w->p->parts.n <= 1 && parse_numbers(s, v, w->nprim);
	for (size_t e = 0; keep && e < w->nprim; e++)
		keep = v[e] >= w->total[e];
	if (keep)
		memcpy(w->summary, v, w->nprim * sizeof(uint64_t));
	free(v);
	return 0;
}

static int prepare(cgw *w, plumb_error *err)
{
	const plumb_profile *p = w->p;
	if (prepare_events(w, err))
		return -1;
	w->nfn = (uint32_t)p->functions.n + 1;
	if (names_init(w) || rank_functions(w) || rank_files(w) || rank_frames(w) || call_targets(w))
		return plumb_fail_nomem(err);
	if (cct_inclusive(w, err))
		return -1;
	w->nparts = p->parts.n ? p->parts.n : 1;
	size_t max = p->cct.n, total;
	if (max > SIZE_MAX / 2 || (total = 2 * max) > SIZE_MAX - p->cg_self.n ||
	    (total += p->cg_self.n) > SIZE_MAX - p->arcs.n ||
	    (total += p->arcs.n) > SIZE_MAX - p->jumps.n)
		return plumb_fail_nomem(err);
	total += p->jumps.n;
	if (total > UINT32_MAX) /* the writing order holds 32-bit indexes */
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
				  "%zu costs and calls: more than a Callgrind file can be written with", total);
	w->items = alloc_array(total, sizeof *w->items);
	if (!w->items)
		return plumb_fail_nomem(err);
	cct_items(w);
	cg_items(w);
	jump_items(w);
	assert(w->nitems <= total);
	if (scan_items(w, err))
		return -1;
	return choose_summary(w) ? plumb_fail_nomem(err) : 0;
}

/* ---- the header ---------------------------------------------------------- */

static void put_costs(cgw *w, const uint64_t *c, bool all)
{
	size_t n = w->nprim;
	while (!all && n > 0 && c[n - 1] == 0)
		n--; /* trailing zeros may be dropped */
	for (size_t e = 0; e < n; e++) {
		put_c(w, ' ');
		put_u64(w, c[e]);
	}
}

static void put_derived(cgw *w, const plumb_event *ev)
{
	for (size_t t = 0; t < ev->nterms; t++) {
		int64_t k = ev->terms[t].coef;
		uint64_t mag = k < 0 ? (uint64_t)0 - (uint64_t)k : (uint64_t)k;
		if (t > 0)
			put(w, k < 0 ? " - " : " + ");
		else if (k < 0)
			put(w, "-");
		if (mag != 1) {
			/* "2 * Dr": the spec allows "2 Dr" too, but not every reader */
			put_u64(w, mag);
			put(w, " * ");
		}
		put_event_name(w, ev->terms[t].event);
	}
}

/* event: lines: long names of primary events, and derived events (which
 * have no cost column). KCachegrind wants them before events:. */
static void put_event_lines(cgw *w)
{
	const plumb_profile *p = w->p;
	for (size_t e = 0; e < w->nev; e++) {
		const plumb_event *ev = &p->events.v[e];
		bool derived = ev->formula != PLUMB_NONE;
		const char *ln = plumb_str(p, ev->long_name);
		if (!derived && !(ln && *ln))
			continue;
		put(w, "event: ");
		put_event_name(w, (plumb_id)e);
		if (derived) {
			put(w, " = ");
			put_derived(w, ev);
		}
		if (ln && *ln) {
			put(w, " : ");
			put_name_text(w, ln);
		}
		put_c(w, '\n');
	}
}

/* The cost columns. */
static void put_events(cgw *w)
{
	put(w, "events:");
	for (size_t e = 0; e < w->nprim; e++) {
		put_c(w, ' ');
		put_event_name(w, w->prim[e]);
	}
	put_c(w, '\n');
}

static const char *meta(const cgw *w, const char *key)
{
	const char *v = plumb_meta_get(w->p, key);
	return v && *v ? v : NULL;
}

static int64_t part_pid(const cgw *w, size_t part)
{
	return part < w->p->parts.n ? w->p->parts.v[part].pid : -1;
}

/* A part's number: the one a Callgrind file gave it (the reader names such
 * parts "part N": the dump number, which every thread file of a run shares),
 * else its place in the profile. */
static uint64_t part_number(const cgw *w, size_t part)
{
	const char *name = part < w->p->parts.n ? plumb_str(w->p, w->p->parts.v[part].name) : NULL;
	if (name && strncmp(name, "part ", 5) == 0 && name[5] >= '1' && name[5] <= '9' &&
	    strlen(name + 5) <= 9 && strspn(name + 5, "0123456789") == strlen(name + 5))
		return strtoull(name + 5, NULL, 10);
	return part + 1;
}

static void put_part_ids(cgw *w, size_t part)
{
	put(w, "part: ");
	put_u64(w, part_number(w, part));
	put_c(w, '\n');
	if (part < w->p->parts.n && w->p->parts.v[part].kind == PLUMB_PART_THREAD &&
	    w->p->parts.v[part].tid >= 0) {
		put(w, "thread: ");
		put_u64(w, (uint64_t)w->p->parts.v[part].tid);
		put_c(w, '\n');
	}
}

static void put_desc(cgw *w)
{
	const char *d = meta(w, "callgrind.desc");
	while (d && *d) {
		const char *nl = strchr(d, '\n');
		size_t n = nl ? (size_t)(nl - d) : strlen(d);
		if (n) {
			put(w, "desc: ");
			for (size_t i = 0; i < n; i++)
				put_c(w, (unsigned char)d[i] < 0x20 && d[i] != '\t' ? '?' : d[i]);
			put_c(w, '\n');
		}
		d = nl ? nl + 1 : NULL;
	}
}

static void put_notes(cgw *w)
{
	if (w->notes & NOTE_UNKNOWN)
		put(w, "# calls= counts: the profile has no call counts (sampled stacks). A call\n"
		       "# whose count is not known is written calls=1 (or with the sum of the\n"
		       "# counts that are known): it was called, but not necessarily once.\n");
	if (w->notes & NOTE_ZERO)
		put(w, "# calls=1 stands for calls recorded with a count of 0.\n");
	if (w->notes & NOTE_NO_INCL)
		put(w, "# calls with cost 0: the profile has their count but not their inclusive cost.\n");
	if (w->nparts > 1)
		put(w, "# Several parts: summary: (first part) is the whole profile; totals: is each part's.\n");
}

/* The full header of the first section. */
static void put_header(cgw *w)
{
	put(w, "# callgrind format\nversion: 1\ncreator: plumb-" PLUMB_VERSION "\n");
	/* the first part's process, else the one the profile names */
	const char *pid = meta(w, "pid");
	int64_t ppid = part_pid(w, 0);
	if (ppid >= 0) {
		put(w, "pid: ");
		put_u64(w, (uint64_t)ppid);
		put_c(w, '\n');
	} else if (pid && strspn(pid, "0123456789") == strlen(pid)) {
		put(w, "pid: ");
		put(w, pid);
		put_c(w, '\n');
	}
	const char *cmd = meta(w, "cmd");
	if (!cmd)
		cmd = meta(w, "command");
	if (!cmd)
		cmd = meta(w, "source");
	put(w, "cmd: ");
	put_escaped(w, cmd ? cmd : "(unknown)");
	put_c(w, '\n');
	put_part_ids(w, 0);
	put_desc(w);
	put_notes(w);
	put(w, w->instr ? "positions: instr line\n" : "positions: line\n");
	put_event_lines(w);
	put_events(w);
	put(w, "summary:");
	put_costs(w, w->summary, true);
	put(w, "\n\n");
}

/* A later section, as Callgrind writes one: its own ids, positions and
 * events:, and no summary:. No event: lines: KCachegrind keeps them for the
 * whole file and ignores them after the events: of the first section. */
static void put_section_header(cgw *w, size_t part)
{
	int64_t pid = part_pid(w, part);
	if (pid >= 0 && pid != part_pid(w, 0)) {
		put(w, "pid: ");
		put_u64(w, (uint64_t)pid);
		put_c(w, '\n');
	}
	put_part_ids(w, part);
	put(w, w->instr ? "positions: instr line\n" : "positions: line\n");
	put_events(w);
	put_c(w, '\n');
}

/* ---- the body ------------------------------------------------------------ */

static void forget_base(cgw *w)
{
	w->base_addr = w->base_line = 0;
}

/* One subposition of a self cost line, relative when Callgrind would write
 * it so; it becomes the base. */
static void put_rel(cgw *w, uint64_t v, uint64_t *base, bool hex)
{
	uint64_t b = *base;
	if (b > 0 && (v >= b ? v - b : b - v) < 100) {
		if (v == b) {
			put_c(w, '*');
		} else {
			put_c(w, v > b ? '+' : '-');
			put_u64(w, v > b ? v - b : b - v);
		}
	} else if (hex) {
		put_hex(w, v);
	} else {
		put_u64(w, v);
	}
	*base = v;
}

/* One subposition of a call site: '*' when it is the base, else absolute,
 * and then no base (readers differ on whether a call site moves it). */
static void put_site(cgw *w, uint64_t v, uint64_t *base, bool hex)
{
	if (*base > 0 && v == *base) {
		put_c(w, '*');
		return;
	}
	if (hex)
		put_hex(w, v);
	else
		put_u64(w, v);
	*base = 0;
}

static void put_self(cgw *w, const item *it, const uint64_t *c)
{
	const plumb_frame *fr = &w->p->frames.v[it->frame];
	if (w->instr) {
		put_rel(w, fr->address, &w->base_addr, true);
		put_c(w, ' ');
	}
	put_rel(w, fr->line, &w->base_line, false);
	put_costs(w, c, false);
	put_c(w, '\n');
}

static void put_call(cgw *w, const run *r, const uint64_t *c)
{
	const item *it = r->first;
	uint32_t callee = it->callee;
	if (w->objects && fn_module_key(w, callee) != w->cur_ob)
		put_spec(w, "cob", NS_OBJECT, fn_module_key(w, callee));
	if (fn_file_key(w, callee) != w->cur_file)
		put_spec(w, "cfi", NS_FILE, fn_file_key(w, callee));
	put_spec(w, "cfn", NS_FUNCTION, callee);
	assert(r->count > 0); /* calls=0 would be the caller's self cost to callgrind_annotate */
	put(w, "calls=");
	put_u64(w, r->count);
	put_c(w, ' ');
	if (w->instr) {
		put_hex(w, w->tgt_addr[callee]);
		put_c(w, ' ');
	}
	put_u64(w, w->tgt_line[callee]);
	put_c(w, '\n');
	const plumb_frame *fr = &w->p->frames.v[it->frame];
	if (w->instr) {
		put_site(w, fr->address, &w->base_addr, true);
		put_c(w, ' ');
	}
	put_site(w, fr->line, &w->base_line, false);
	put_costs(w, c, false);
	put_c(w, '\n');
}

/* The file of a frame of function fn, as a name key. */
static uint32_t frame_file_key(const cgw *w, plumb_id frame, uint32_t fn)
{
	plumb_id file = w->p->frames.v[frame].file;
	return file == PLUMB_NONE ? fn_file_key(w, fn) : file_key(w, file);
}

/* The file of an item's frame, as a name key. */
static uint32_t item_file_key(const cgw *w, const item *it, uint32_t fn)
{
	return frame_file_key(w, it->frame, fn);
}

/* jump=COUNT TARGET or jcnd=FOLLOWED/EXECUTED TARGET (Callgrind's form,
 * which KCachegrind reads), after jfi=/jfn= when the target is in another
 * file or function than the code around it; then the source position
 * alone. The target is absolute, as a call's is. */
static void put_jump(cgw *w, const item *it, uint32_t fn)
{
	const plumb_jump *j = &w->p->jumps.v[it->callee];
	const plumb_frame *to = &w->p->frames.v[j->to];
	uint32_t tfn = frame_fn(w, j->to), tfile = frame_file_key(w, j->to, tfn);
	if (tfile != w->cur_file)
		put_spec(w, "jfi", NS_FILE, tfile);
	if (tfn != fn)
		put_spec(w, "jfn", NS_FUNCTION, tfn);
	if (j->conditional) {
		put(w, "jcnd=");
		put_u64(w, j->followed);
		put_c(w, '/');
		put_u64(w, j->executed);
	} else {
		put(w, "jump=");
		put_u64(w, j->executed);
	}
	put_c(w, ' ');
	if (w->instr) {
		put_hex(w, to->address);
		put_c(w, ' ');
	}
	put_u64(w, to->line);
	put_c(w, '\n');
	const plumb_frame *from = &w->p->frames.v[it->frame];
	if (w->instr) {
		put_site(w, from->address, &w->base_addr, true);
		put_c(w, ' ');
	}
	put_site(w, from->line, &w->base_line, false);
	put_c(w, '\n');
}

/* One function of a section: writing order [k, end) shares its rank. */
static int put_function(cgw *w, size_t k, size_t end, plumb_error *err)
{
	uint32_t fn = frame_fn(w, at(w, k)->frame);
	if (w->objects && fn_module_key(w, fn) != w->cur_ob) {
		w->cur_ob = fn_module_key(w, fn);
		put_spec(w, "ob", NS_OBJECT, w->cur_ob);
	}
	if (fn_file_key(w, fn) != w->cur_fl) {
		w->cur_fl = fn_file_key(w, fn);
		put_spec(w, "fl", NS_FILE, w->cur_fl);
	}
	w->cur_file = w->cur_fl;
	put_spec(w, "fn", NS_FUNCTION, fn);
	forget_base(w);
	while (k < end) {
		run r;
		if (take_run(w, k, &r, w->buf, err))
			return -1;
		uint32_t file = item_file_key(w, r.first, fn);
		if (file != w->cur_file) {
			/* inlined code: fi= into its file, fe= back to the function's */
			put_spec(w, file == w->cur_fl ? "fe" : "fi", NS_FILE, file);
			w->cur_file = file;
			forget_base(w);
		}
		if (r.first->kind == KIND_SELF)
			put_self(w, r.first, w->buf);
		else if (r.first->kind == KIND_CALL)
			put_call(w, &r, w->buf);
		else
			put_jump(w, r.first, fn);
		k = r.end;
	}
	if (w->cur_file != w->cur_fl) {
		put_spec(w, "fe", NS_FILE, w->cur_fl);
		w->cur_file = w->cur_fl;
	}
	put_c(w, '\n');
	return 0;
}

static int write_error(plumb_error *err)
{
	return plumb_fail(err, PLUMB_ERR_IO, "write error: %s", strerror(errno ? errno : EIO));
}

/* One section: writing order [*k, ...) holds its items; then totals:. */
static int put_section(cgw *w, size_t part, size_t *k, plumb_error *err)
{
	w->stamp++;
	for (int i = 0; i < NS_COUNT; i++)
		w->ns[i].next = 0;
	w->cur_ob = w->cur_fl = w->cur_file = UINT32_MAX;
	if (part == 0)
		put_header(w);
	else
		put_section_header(w, part);
	while (*k < w->nitems && at(w, *k)->part == part) {
		size_t end = *k + 1;
		uint32_t fn = frame_fn(w, at(w, *k)->frame);
		while (end < w->nitems && at(w, end)->part == part && frame_fn(w, at(w, end)->frame) == fn)
			end++;
		if (put_function(w, *k, end, err))
			return -1;
		*k = end;
		if (ferror(w->out))
			return write_error(err);
	}
	put(w, "totals:");
	put_costs(w, w->part_total + part * w->nprim, true);
	put(w, "\n\n");
	return ferror(w->out) ? write_error(err) : 0;
}

int plumb_callgrind_write_stream(const plumb_profile *p, FILE *out, plumb_error *err)
{
	cgw w = { .p = p, .out = out };
	errno = 0;
	int rc = prepare(&w, err);
	size_t k = 0;
	for (size_t part = 0; rc == 0 && part < w.nparts; part++)
		rc = put_section(&w, part, &k, err);
	if (rc == 0 && k < w.nitems)
		rc = plumb_fail(err, PLUMB_ERR_FORMAT, "a cost names part %" PRIu32 ", which does not exist",
				at(&w, k)->part);
	if (rc == 0 && (fflush(out) != 0 || ferror(out)))
		rc = write_error(err);
	cgw_free(&w);
	return rc;
}

int plumb_callgrind_write(const plumb_profile *p, const char *path, plumb_error *err)
{
	plumb_atomic_file af;
	if (plumb_atomic_open(&af, path, err) < 0)
		return -1;
	if (plumb_callgrind_write_stream(p, af.fp, err) < 0) {
		if (err && err->code == PLUMB_ERR_IO) {
			char msg[sizeof err->message];
			memcpy(msg, err->message, sizeof msg);
			plumb_fail(err, PLUMB_ERR_IO, "%s: %s", path, msg);
		}
		plumb_atomic_abort(&af);
		return -1;
	}
	return plumb_atomic_commit(&af, err);
}
