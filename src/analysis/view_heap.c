/* heap: the summary of a heap recording (plumb record --heap), as
 * heaptrack_print gives it: per process, the peak and when it happened,
 * allocations, temporaries and leaks in total; then the allocation sites
 * (the function that called the allocator, at the call's line) with the
 * most allocations, the most bytes, the most bytes live at the peak, the
 * most leaked and the most temporaries; then the histogram of requested
 * sizes. Totals come from the recorder's "heap.image.N" metadata, sites
 * from the calling context tree, so --focus and --thread apply to them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/view_internal.h"

#define TOP 10

enum { EV_ALLOCS, EV_BYTES, EV_PEAK, EV_LEAKS, EV_LEAK_BYTES, EV_TEMPS, EV_MMAP, NEV };
static const char *const ev_names[NEV] = { "allocs", "alloc-bytes", "peak-bytes", "leaks",
					   "leak-bytes", "temp-allocs", "mmap-bytes" };

typedef struct site_row {
	plumb_id frame;            /* the call to the allocator */
	uint64_t v[NEV];
} site_row;

typedef struct heap_ctx {
	const plumb_profile *p;
	plumb_table *t;
	int ev[NEV];
	int c_section, c_what, c_count, c_bytes, c_pct, c_where;
	site_row *sites;
	size_t nsites;
	uint64_t total[NEV];
} heap_ctx;

/* One number of a "heap.image.N" value ("key=value ..."). */
static double field(const char *s, const char *key)
{
	size_t n = strlen(key);
	for (const char *q = s; (q = strstr(q, key)) != NULL; q += n)
		if ((q == s || q[-1] == ' ') && q[n] == '=')
			return strtod(q + n + 1, NULL);
	return 0;
}

static int row(heap_ctx *c, const char *section, const char *what, double count, double bytes,
	       double pct, const char *where)
{
	const char *s = plumb_table_strdup(c->t, section), *w = plumb_table_strdup(c->t, what);
	const char *at = where ? plumb_table_strdup(c->t, where) : NULL;
	plumb_row *r = plumb_table_add_row(c->t, PLUMB_ROW_NORMAL, 0);
	if (!r || !s || !w || (where && !at))
		return -1;
	plumb_cell_str(&r->cells[c->c_section], s);
	plumb_cell_str(&r->cells[c->c_what], w);
	if (count >= 0)
		plumb_cell_u64(&r->cells[c->c_count], (uint64_t)(count + 0.5));
	if (bytes >= 0)
		plumb_cell_u64(&r->cells[c->c_bytes], (uint64_t)(bytes + 0.5));
	if (pct >= 0)
		plumb_cell_pct(&r->cells[c->c_pct], pct);
	plumb_cell_str(&r->cells[c->c_where], at);
	return 0;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

static int image_rows(heap_ctx *c, const char *v)
{
	char section[96], what[160];
	const char *exe = strstr(v, " exe=");
	snprintf(section, sizeof section, "process %.0f", field(v, "pid"));
	double allocs = field(v, "allocs"), temps = field(v, "temp_allocs");
	snprintf(what, sizeof what, "peak heap (at %.3f s)", field(v, "peak_s"));
	if (row(c, section, "program", -1, -1, -1, exe ? exe + 5 : NULL) ||
	    row(c, section, what, -1, field(v, "peak_bytes"), -1, NULL) ||
	    row(c, section, "  of which anonymous mmap", -1, field(v, "peak_mmap_bytes"),
		pct(field(v, "peak_mmap_bytes"), field(v, "peak_bytes")), NULL) ||
	    row(c, section, "allocations", allocs, field(v, "alloc_bytes"), -1, NULL) ||
	    row(c, section, "temporary allocations", temps, -1, pct(temps, allocs), NULL) ||
	    row(c, section, "leaked (live at exit)", field(v, "leaks"), field(v, "leak_bytes"), -1, NULL) ||
	    row(c, section, "anonymous mmap", -1, field(v, "mmap_bytes"), -1, NULL))
		return -1;
	return 0;
}

/* Sizes requested: bucket b holds [2^(b-1), 2^b). */
static int histogram_rows(heap_ctx *c, const char *v)
{
	const char *h = strstr(v, " hist=");
	if (!h)
		return 0;
	double total = field(v, "allocs") - 0;
	char what[64];
	for (const char *q = h + 6; *q && *q != ' ';) {
		char *end;
		unsigned long b = strtoul(q, &end, 10);
		if (*end != ':' || b > 64)
			break;
		double n = strtod(end + 1, &end);
		if (b == 0)
			snprintf(what, sizeof what, "0 B");
		else if (b == 1)
			snprintf(what, sizeof what, "1 B");
		else
			snprintf(what, sizeof what, "%" PRIu64 "-%" PRIu64 " B", (uint64_t)1 << (b - 1),
				 b == 64 ? UINT64_MAX : ((uint64_t)1 << b) - 1);
		if (row(c, "size histogram", what, n, -1, pct(n, total), NULL))
			return -1;
		q = *end == ',' ? end + 1 : end;
	}
	return 0;
}

/* Allocation sites: the parent frame of each allocator leaf, summed. */
static int collect_sites(heap_ctx *c, const plumb_view_opts *o, plumb_error *err)
{
	const plumb_profile *p = c->p;
	uint8_t *pass = NULL;
	if (plumb_cct_select(p, o->part, o->focus, &pass, NULL))
		return plumb_fail_nomem(err);
	c->sites = calloc(p->frames.n ? p->frames.n : 1, sizeof *c->sites);
	if (!c->sites) {
		free(pass);
		return plumb_fail_nomem(err);
	}
	for (size_t i = 0; i < p->frames.n; i++)
		c->sites[i].frame = (plumb_id)i;
	for (size_t i = 0; i < p->cct.n; i++) {
		if (!pass[i])
			continue;
		const uint64_t *self = plumb_cct_self(p, (plumb_id)i);
		plumb_id parent = p->cct.v[i].parent;
		plumb_id at = parent != PLUMB_NONE ? p->cct.v[parent].frame : PLUMB_NONE;
		if (at == PLUMB_NONE)
			at = p->cct.v[i].frame;   /* the allocator's caller is unknown */
		if (at == PLUMB_NONE)
			continue;                 /* a part's root */
		for (int e = 0; e < NEV; e++) {
			if (c->ev[e] < 0)
				continue;
			c->sites[at].v[e] += self[c->ev[e]];
			c->total[e] += self[c->ev[e]];
		}
	}
	free(pass);
	c->nsites = p->frames.n;
	return 0;
}

static int by_event;

static int site_cmp(const void *a, const void *b)
{
	const site_row *x = a, *y = b;
	if (x->v[by_event] != y->v[by_event])
		return x->v[by_event] < y->v[by_event] ? 1 : -1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static void site_name(const plumb_profile *p, plumb_id frame, char *name, size_t nn, char *where,
		      size_t nw)
{
	const plumb_frame *f = &p->frames.v[frame];
	const plumb_function *fn = &p->functions.v[f->function];
	const char *s = plumb_str(p, fn->name);
	snprintf(name, nn, "%s", s ? s : "?");
	const char *file = f->file != PLUMB_NONE ? plumb_str(p, p->files.v[f->file].path) : NULL;
	if (file && f->line)
		snprintf(where, nw, "%s:%u", file, f->line);
	else if (fn->module != PLUMB_NONE)
		snprintf(where, nw, "%s", plumb_str(p, p->modules.v[fn->module].path));
	else
		where[0] = 0;
}

/* The TOP sites by event e, with count event ce and byte event be shown. */
static int top_rows(heap_ctx *c, const char *section, int e, int ce, int be)
{
	if (c->ev[e] < 0 || !c->total[e])
		return 0;
	by_event = e;
	qsort(c->sites, c->nsites, sizeof *c->sites, site_cmp);
	char name[512], where[1024];
	for (size_t i = 0; i < c->nsites && i < TOP && c->sites[i].v[e]; i++) {
		site_name(c->p, c->sites[i].frame, name, sizeof name, where, sizeof where);
		const site_row *s = &c->sites[i];
		if (row(c, section, name, ce >= 0 ? (double)s->v[ce] : -1, be >= 0 ? (double)s->v[be] : -1,
			pct((double)s->v[e], (double)c->total[e]), where[0] ? where : NULL))
			return -1;
	}
	return 0;
}

int view_heap(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err)
{
	heap_ctx c = { .p = p };
	bool any = false;
	for (int e = 0; e < NEV; e++)
		any |= (c.ev[e] = plumb_event_find(p, ev_names[e])) >= 0;
	if (!any || !plumb_meta_get(p, "heap.image.0"))
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "the heap view needs a heap recording (plumb record --heap); this "
				  "profile has no allocation events");
	if ((o->select && o->select->n) || (o->hide && o->hide->n))
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "--select and --hide do not apply to the heap view (use --focus to "
				  "keep the stacks through a function)");
	c.t = plumb_table_new("heap", "Heap: peak, allocations, temporaries, leaks, sizes");
	if (!c.t)
		return plumb_fail_nomem(err);
	c.c_section = plumb_table_add_column(c.t, "section", "Section", PLUMB_CELL_STR, -1, false);
	c.c_what = plumb_table_add_column(c.t, "what", "What", PLUMB_CELL_STR, -1, true);
	c.c_count = plumb_table_add_column(c.t, "allocations", "Allocations", PLUMB_CELL_U64, -1, false);
	c.c_bytes = plumb_table_add_column(c.t, "bytes", "Bytes", PLUMB_CELL_U64, -1, false);
	c.c_pct = plumb_table_add_column(c.t, "percent", "%", PLUMB_CELL_PCT, -1, false);
	c.c_where = plumb_table_add_column(c.t, "where", "Where", PLUMB_CELL_STR, -1, false);
	int rc = c.c_section < 0 || c.c_what < 0 || c.c_count < 0 || c.c_bytes < 0 || c.c_pct < 0 ||
			 c.c_where < 0
		 ? plumb_fail_nomem(err)
		 : 0;
	char key[40];
	const char *v = NULL;
	for (unsigned i = 0; rc == 0; i++) {
		snprintf(key, sizeof key, "heap.image.%u", i);
		if (!(v = plumb_meta_get(p, key)))
			break;
		if (image_rows(&c, v))
			rc = plumb_fail_nomem(err);
	}
	if (rc == 0)
		rc = collect_sites(&c, o, err);
	if (rc == 0 &&
	    (top_rows(&c, "most allocations", EV_ALLOCS, EV_ALLOCS, EV_BYTES) ||
	     top_rows(&c, "most bytes allocated", EV_BYTES, EV_ALLOCS, EV_BYTES) ||
	     top_rows(&c, "peak consumers", EV_PEAK, -1, EV_PEAK) ||
	     top_rows(&c, "leaks", EV_LEAK_BYTES, EV_LEAKS, EV_LEAK_BYTES) ||
	     top_rows(&c, "most temporary", EV_TEMPS, EV_TEMPS, -1)))
		rc = plumb_fail_nomem(err);
	for (unsigned i = 0; rc == 0; i++) {
		snprintf(key, sizeof key, "heap.image.%u", i);
		if (!(v = plumb_meta_get(p, key)))
			break;
		if (histogram_rows(&c, v))
			rc = plumb_fail_nomem(err);
	}
	const char *mode = plumb_meta_get(p, "heap.mode"), *note = plumb_meta_get(p, "heap.note");
	if (rc == 0 && mode && strncmp(mode, "sample", 6) == 0 &&
	    plumb_table_add_note(c.t, "Sampled by bytes (--heap=sample): counts and bytes are "
				      "unbiased estimates; small sites may be missed."))
		rc = plumb_fail_nomem(err);
	if (rc == 0 && note && plumb_table_add_note(c.t, note))
		rc = plumb_fail_nomem(err);
	if (rc == 0 && plumb_table_add_note(c.t, "A site is the function that called the allocator, at "
						 "the call's line. Temporary: freed before its thread "
						 "allocated again. Peak: live when the process's heap "
						 "(malloc and anonymous mmap) was largest."))
		rc = plumb_fail_nomem(err);
	free(c.sites);
	if (rc) {
		plumb_table_free(c.t);
		return -1;
	}
	*out = c.t;
	return 0;
}
