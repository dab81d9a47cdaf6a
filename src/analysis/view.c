/* What every view shares: options, names, the events shown, row selection
 * and ordering, and the dispatcher. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/propagate.h"
#include "analysis/view_internal.h"

static const char *const view_names[PLUMB_VIEW_COUNT] = {
	[PLUMB_VIEW_FLAT] = "flat",       [PLUMB_VIEW_CALLERS] = "callers",
	[PLUMB_VIEW_CALLEES] = "callees", [PLUMB_VIEW_BUTTERFLY] = "butterfly",
	[PLUMB_VIEW_TREE] = "tree",       [PLUMB_VIEW_BOTTOM_UP] = "bottom-up",
	[PLUMB_VIEW_LINES] = "lines",     [PLUMB_VIEW_FILES] = "files",
	[PLUMB_VIEW_MODULES] = "modules", [PLUMB_VIEW_THREADS] = "threads",
	[PLUMB_VIEW_POINTS] = "points",   [PLUMB_VIEW_INPUTS] = "inputs",
	[PLUMB_VIEW_FLAME] = "flame",     [PLUMB_VIEW_FPROF] = "fprof",
	[PLUMB_VIEW_TIMELINE] = "timeline",
	[PLUMB_VIEW_HEAP] = "heap",
	[PLUMB_VIEW_LOCKS] = "locks",
};

static const char *const sort_names[] = {
	[PLUMB_SORT_DEFAULT] = "default", [PLUMB_SORT_EXCLUSIVE] = "exclusive",
	[PLUMB_SORT_INCLUSIVE] = "inclusive", [PLUMB_SORT_CALLS] = "calls",
	[PLUMB_SORT_NAME] = "name", [PLUMB_SORT_FILE] = "file", [PLUMB_SORT_MODULE] = "module",
	[PLUMB_SORT_GROWTH] = "growth",
};

void plumb_view_opts_init(plumb_view_opts *o)
{
	memset(o, 0, sizeof *o);
	o->kind = PLUMB_VIEW_FLAT;
	o->metric = -1;
	o->part = PLUMB_NONE;
}

const char *plumb_view_name(plumb_view_kind k)
{
	return k < PLUMB_VIEW_COUNT ? view_names[k] : "?";
}

int plumb_view_by_name(const char *name)
{
	for (int i = 0; i < PLUMB_VIEW_COUNT; i++)
		if (strcmp(view_names[i], name) == 0)
			return i;
	if (strcmp(name, "bottomup") == 0 || strcmp(name, "inverted") == 0)
		return PLUMB_VIEW_BOTTOM_UP;
	if (strcmp(name, "parts") == 0)
		return PLUMB_VIEW_THREADS;
	return -1;
}

int plumb_sort_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof sort_names / sizeof *sort_names; i++)
		if (strcmp(sort_names[i], name) == 0)
			return (int)i;
	if (strcmp(name, "excl") == 0 || strcmp(name, "self") == 0)
		return PLUMB_SORT_EXCLUSIVE;
	if (strcmp(name, "incl") == 0 || strcmp(name, "total") == 0)
		return PLUMB_SORT_INCLUSIVE;
	return -1;
}

int view_events_of(const plumb_profile *p, const plumb_view_opts *o, view_events *ve,
		   plumb_error *err)
{
	memset(ve, 0, sizeof *ve);
	if (p->events.n == 0)
		return plumb_fail(err, PLUMB_ERR_FORMAT, "the profile has no events");
	if (o->metric >= 0) {
		if ((size_t)o->metric >= p->events.n)
			return plumb_fail(err, PLUMB_ERR_USAGE, "no event number %d", o->metric);
		ve->n = 1;
		ve->ev[0] = o->metric;
	} else {
		if (p->events.n > PLUMB_VIEW_MAX_EVENTS)
			return plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
					  "the profile has %zu events, more than a view shows at once (%d): "
					  "choose one with --metric", p->events.n, PLUMB_VIEW_MAX_EVENTS);
		ve->n = p->events.n;
		for (size_t i = 0; i < ve->n; i++)
			ve->ev[i] = (int)i;
	}
	ve->primary = ve->ev[0];
	return 0;
}

double view_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

const char *view_key_name(const plumb_profile *p, const plumb_key *k)
{
	if (k->function != PLUMB_NONE)
		return plumb_function_name(p, k->function);
	return NULL;
}

const char *view_key_file(const plumb_profile *p, const plumb_key *k)
{
	return k->file == PLUMB_NONE ? NULL : plumb_str(p, p->files.v[k->file].path);
}

const char *view_key_module(const plumb_profile *p, const plumb_key *k)
{
	return k->module == PLUMB_NONE ? NULL : plumb_str(p, p->modules.v[k->module].path);
}

int view_add_event_column(plumb_table *t, const plumb_profile *p, const char *what,
			  const char *title, plumb_cell_type type, int e)
{
	const char *ev = plumb_str(p, p->events.v[e].name);
	char key[256], head[256];
	snprintf(key, sizeof key, "%s.%s", what, ev);
	snprintf(head, sizeof head, "%s %s", title, ev);
	int c = plumb_table_add_column(t, key, head, type, e, false);
	if (c >= 0 && !(t->cols[c].short_title = plumb_table_strdup(t, title)))
		return -1;
	return c;
}

int view_metrics(const plumb_profile *p, const plumb_view_opts *o, plumb_level level,
		 bool with_arcs, plumb_metrics **m, plumb_error *err)
{
	if (p->kept_totals)
		return plumb_fail(err, PLUMB_ERR_USAGE, "the profile was read for one view only (the "
				  "one its .plumb store keeps): this view needs its costs");
	plumb_metrics_opts mo;
	plumb_metrics_opts_init(&mo);
	mo.level = level;
	mo.focus = o->focus;
	mo.part = o->part;
	mo.no_cycles = o->no_cycles;
	mo.keys_only = !with_arcs;
	return plumb_metrics_compute(p, &mo, m, err);
}

const uint64_t *view_row_excl(const plumb_metrics *m, uint32_t id)
{
	return view_is_cycle(m, id) ? m->cycle_exclusive + (size_t)(id - m->nkeys) * m->nevents
				    : plumb_metrics_excl(m, id);
}

const uint64_t *view_row_incl(const plumb_metrics *m, uint32_t id)
{
	return view_is_cycle(m, id) ? m->cycle_inclusive + (size_t)(id - m->nkeys) * m->nevents
				    : plumb_metrics_incl(m, id);
}

uint64_t view_row_calls(const plumb_metrics *m, uint32_t id)
{
	return view_is_cycle(m, id) ? m->cycles[id - m->nkeys].calls : m->calls[id];
}

/* "name <cycle n>" by hand into s (room: cycle_label_size): a big call
 * graph has thousands of members, and printf showed in profiles of its
 * report. */
static size_t cycle_label_size(const char *name, uint32_t n)
{
	size_t dl = 1;
	for (; n >= 10; n /= 10)
		dl++;
	return (name ? strlen(name) + 1 : 0) + 7 + dl + 2;
}

static void cycle_label(char *s, const char *name, uint32_t n)
{
	char num[16], *q = num + sizeof num;
	do {
		*--q = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	size_t nl = name ? strlen(name) : 0, dl = (size_t)(num + sizeof num - q);
	char *w = s;
	if (name) {
		memcpy(w, name, nl);
		w += nl;
		*w++ = ' ';
	}
	memcpy(w, "<cycle ", 7);
	memcpy(w + 7, q, dl);
	memcpy(w + 7 + dl, ">", 2);
}

const char *view_row_label(plumb_table *t, const plumb_profile *p, const plumb_metrics *m,
			   uint32_t id, bool *nomem)
{
	uint32_t n = view_cycle_number(m, id);
	const char *name = view_is_cycle(m, id) ? NULL : view_key_name(p, &m->keys[id]);
	if (!n)
		return name;
	char *s = plumb_table_alloc(t, cycle_label_size(name, n)); /* in the table's arena */
	if (!s) {
		*nomem = true;
		return NULL;
	}
	cycle_label(s, name, n);
	return s;
}

const char *view_row_label_buf(const plumb_profile *p, const plumb_metrics *m, uint32_t id,
			       char **buf, size_t *cap, bool *nomem)
{
	uint32_t n = view_cycle_number(m, id);
	const char *name = view_is_cycle(m, id) ? NULL : view_key_name(p, &m->keys[id]);
	if (!n)
		return name;
	size_t need = cycle_label_size(name, n);
	if (need > *cap) {
		char *b = realloc(*buf, need * 2);
		if (!b) {
			*nomem = true;
			return NULL;
		}
		*buf = b;
		*cap = need * 2;
	}
	cycle_label(*buf, name, n);
	return *buf;
}

static bool key_is_empty(const plumb_metrics *m, size_t k)
{
	for (size_t e = 0; e < m->nevents; e++)
		if (m->exclusive[k * m->nevents + e] || m->inclusive[k * m->nevents + e])
			return false;
	return m->calls[k] == 0 || m->calls[k] == PLUMB_COUNT_UNKNOWN;
}

/* Does a symspec list name cycle n itself ("<cycle 2>")? */
static bool names_cycle(const plumb_symspec_list *l, size_t n)
{
	char buf[32];
	snprintf(buf, sizeof buf, "<cycle %zu>", n);
	for (size_t i = 0; l && i < l->n; i++)
		if (l->v[i].func && !l->v[i].file && !l->v[i].line && strcmp(l->v[i].func, buf) == 0)
			return true;
	return false;
}

/* A cycle row follows its members: listed when --select names one of
 * them (or the cycle), hidden when --hide names all of them (or the cycle). */
static bool cycle_listed(const plumb_profile *p, const plumb_metrics *m, const plumb_view_opts *o,
			 const plumb_metric_cycle *c)
{
	size_t n = (size_t)(c - m->cycles) + 1;
	if (names_cycle(o->hide, n))
		return false;
	if (names_cycle(o->select, n))
		return true;
	bool any_selected = !(o->select && o->select->n), all_hidden = o->hide && o->hide->n;
	for (uint32_t i = 0; i < c->n; i++) {
		const plumb_key *k = &m->keys[m->cycle_members[c->first + i]];
		if (!any_selected && plumb_symspec_list_match_key(o->select, p, m->level, k))
			any_selected = true;
		if (all_hidden && !plumb_symspec_list_match_key(o->hide, p, m->level, k))
			all_hidden = false;
	}
	return any_selected && !all_hidden;
}

static bool below_threshold(const plumb_metrics *m, const plumb_view_opts *o, const view_events *ve,
			    bool by_incl, uint32_t id)
{
	if (o->threshold <= 0)
		return false;
	uint64_t v = (by_incl ? view_row_incl(m, id) : view_row_excl(m, id))[ve->primary];
	uint64_t vi = view_row_incl(m, id)[ve->primary];
	/* A row stays if either its sort metric or its inclusive clears the bar. */
	return view_pct(v, m->totals[ve->primary]) < o->threshold &&
	       view_pct(vi, m->totals[ve->primary]) < o->threshold;
}

int view_ordered_keys(const plumb_profile *p, const plumb_metrics *m, const plumb_view_opts *o,
		      const view_events *ve, bool with_cycles, uint32_t **keys_out, size_t *n_out,
		      plumb_error *err)
{
	size_t nc = with_cycles ? m->ncycles : 0;
	uint32_t *keys = malloc((m->nkeys + nc ? m->nkeys + nc : 1) * sizeof *keys);
	if (!keys)
		return plumb_fail_nomem(err);
	/* Call views list functions by what flows through them: inclusive. */
	bool call_view = o->kind == PLUMB_VIEW_CALLERS || o->kind == PLUMB_VIEW_CALLEES ||
			 o->kind == PLUMB_VIEW_BUTTERFLY;
	bool by_incl = o->sort == PLUMB_SORT_INCLUSIVE || (o->sort == PLUMB_SORT_DEFAULT && call_view);
	size_t n = 0;
	plumb_view_left_out *lo = o->left_out;
	if (lo) {
		memset(lo, 0, sizeof *lo);
		lo->event = ve->primary;
	}
	for (size_t k = 0; k < m->nkeys; k++) {
		const plumb_key *key = &m->keys[k];
		if (key_is_empty(m, k))
			continue;
		if (o->select && o->select->n &&
		    !plumb_symspec_list_match_key(o->select, p, m->level, key))
			continue;
		uint64_t cost = view_row_excl(m, (uint32_t)k)[ve->primary];
		if (o->hide && o->hide->n && plumb_symspec_list_match_key(o->hide, p, m->level, key)) {
			if (lo) {
				lo->hidden++;
				lo->hidden_cost += cost;
			}
			continue;
		}
		if (!below_threshold(m, o, ve, by_incl, (uint32_t)k)) {
			keys[n++] = (uint32_t)k;
		} else if (lo) {
			lo->under_threshold++;
			lo->under_threshold_cost += cost;
		}
	}
	for (size_t c = 0; c < nc; c++) {
		uint32_t id = (uint32_t)(m->nkeys + c);
		if (cycle_listed(p, m, o, &m->cycles[c]) && !below_threshold(m, o, ve, by_incl, id))
			keys[n++] = id;
	}
	plumb_sort_key by = o->sort == PLUMB_SORT_DEFAULT && by_incl ? PLUMB_SORT_INCLUSIVE : o->sort;
	if (view_sort_keys(keys, n, p, m, by, ve->primary))
		return free(keys), plumb_fail_nomem(err);
	if (o->limit && n > o->limit) {
		for (size_t i = o->limit; lo && i < n; i++) {
			if (keys[i] >= m->nkeys)
				continue; /* a cycle's cost is its members' */
			lo->past_limit++;
			lo->past_limit_cost += view_row_excl(m, keys[i])[ve->primary];
		}
		n = o->limit;
	}
	*keys_out = keys;
	*n_out = n;
	return 0;
}

int view_rows_prepare(const plumb_profile *p, const plumb_view_opts *o, plumb_level level,
		      bool with_cycles, bool with_arcs, view_rows *r, plumb_error *err)
{
	memset(r, 0, sizeof *r);
	if (view_events_of(p, o, &r->ve, err))
		return -1;
	/* The flat view of the whole profile, kept by a .plumb store: the
	 * same metrics plumb_metrics_compute gives with these options. */
	r->m_kept = p->flat && level == PLUMB_LEVEL_FUNCTION && !with_arcs && !o->no_cycles &&
		    !(o->focus && o->focus->n) && o->part == PLUMB_NONE &&
		    p->flat->nevents == p->events.n;
	if (r->m_kept)
		r->m = p->flat;
	else if (view_metrics(p, o, level, with_arcs, &r->m, err))
		return -1;
	if (view_ordered_keys(p, r->m, o, &r->ve, with_cycles, &r->keys, &r->n, err)) {
		view_rows_free(r);
		return -1;
	}
	return 0;
}

void view_rows_free(view_rows *r)
{
	free(r->keys);
	if (!r->m_kept)
		plumb_metrics_free(r->m);
	r->keys = NULL;
	r->m = NULL;
}

void view_part_label(const plumb_profile *p, const plumb_part *part, size_t i, char *buf, size_t n)
{
	const char *name = plumb_str(p, part->name);
	if (part->tid >= 0)
		snprintf(buf, n, "%" PRId64 "%s%s", part->tid, name ? " " : "", name ? name : "");
	else if (part->pid >= 0)
		snprintf(buf, n, "pid %" PRId64 "%s%s", part->pid, name ? " " : "", name ? name : "");
	else if (name)
		snprintf(buf, n, "%s", name);
	else if (part->kind == PLUMB_PART_WHOLE)
		snprintf(buf, n, "all threads");
	else
		snprintf(buf, n, "part %zu", i + 1);
}

/* ---- dispatch ------------------------------------------------------------ */

static int build_rows(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out,
		      plumb_error *err)
{
	switch (o->kind) {
	case PLUMB_VIEW_FLAT:
	case PLUMB_VIEW_LINES:
	case PLUMB_VIEW_FILES:
	case PLUMB_VIEW_MODULES:
		return view_keyed(p, o, out, err);
	case PLUMB_VIEW_CALLERS:
	case PLUMB_VIEW_CALLEES:
	case PLUMB_VIEW_BUTTERFLY:
		return view_calls(p, o, out, err);
	case PLUMB_VIEW_TREE:
	case PLUMB_VIEW_BOTTOM_UP:
		return view_tree(p, o, out, err);
	case PLUMB_VIEW_THREADS:
		return view_threads(p, o, out, err);
	case PLUMB_VIEW_POINTS:
		return view_points(p, o, out, err);
	case PLUMB_VIEW_INPUTS:
		return view_inputs(p, o, out, err);
	case PLUMB_VIEW_FLAME:
		return view_flame(p, o, out, err);
	case PLUMB_VIEW_FPROF:
		return view_fprof(p, o, out, err);
	case PLUMB_VIEW_TIMELINE:
		return view_timeline(p, o, out, err);
	case PLUMB_VIEW_HEAP:
		return view_heap(p, o, out, err);
	case PLUMB_VIEW_LOCKS:
		return view_locks(p, o, out, err);
	case PLUMB_VIEW_COUNT:
		break;
	}
	return plumb_fail(err, PLUMB_ERR_USAGE, "unknown view");
}

/* The flame graph, the parts and the lines of the same selection of the
 * profile, for one with performance points its inputs view with the
 * charts of its worst-scaling routines (when not the table itself), and
 * for a recording with timed samples its timeline with each function's
 * cost per bucket. */
static int add_report_views(const plumb_profile *p, const plumb_view_opts *o, plumb_table *t,
			    plumb_error *err)
{
	static const plumb_view_kind kinds[] = { PLUMB_VIEW_FLAME, PLUMB_VIEW_THREADS,
						 PLUMB_VIEW_LINES, PLUMB_VIEW_INPUTS, PLUMB_VIEW_TIMELINE };
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
		if (kinds[i] == o->kind || (kinds[i] == PLUMB_VIEW_INPUTS && !p->points.n) ||
		    (kinds[i] == PLUMB_VIEW_TIMELINE && !p->samples.n))
			continue;
		plumb_view_opts vo;
		plumb_view_opts_init(&vo);
		vo.kind = kinds[i];
		vo.metric = o->metric;
		vo.focus = o->focus;
		vo.part = kinds[i] == PLUMB_VIEW_THREADS ? PLUMB_NONE : o->part;
		vo.no_cycles = o->no_cycles;
		vo.invert = o->invert;
		if (kinds[i] == PLUMB_VIEW_FLAME) /* drawn: boxes under 0.1 pixel are not */
			vo.threshold = o->threshold > PLUMB_FLAME_PICTURE_THRESHOLD ? o->threshold
										  : PLUMB_FLAME_PICTURE_THRESHOLD;
		vo.report_views = kinds[i] == PLUMB_VIEW_INPUTS; /* its charts */
		/* the timeline's range selection recomputes the table from these */
		vo.timeline_functions = kinds[i] == PLUMB_VIEW_TIMELINE;
		vo.buckets = kinds[i] == PLUMB_VIEW_TIMELINE ? 100 : 0;
		plumb_table *v = NULL;
		if (build_rows(p, &vo, &v, err))
			return -1;
		if (plumb_table_attach(t, v))
			return plumb_fail_nomem(err);
	}
	return 0;
}

int plumb_view_build(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out,
		     plumb_error *err)
{
	*out = NULL;
	if (build_rows(p, o, out, err))
		return -1;
	if ((o->summary && view_add_summary(p, o, *out, err)) ||
	    (o->report_views && add_report_views(p, o, *out, err))) {
		plumb_table_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

const char *view_estimate_note(const plumb_profile *p)
{
	if (propagate_wanted(p))
		return "Inclusive costs are gprof's estimates: a callee's time is shared among its "
		       "callers in proportion to their calls. Exclusive costs are exact.";
	if (p->points.n)
		return "Inclusive costs are estimates: a point without a real sum (reports before "
		       "version 2) gives its sum, which counts a recursive routine's nested calls "
		       "again; a file's or module's inclusive cost is the largest of its routines'.";
	return "Inclusive costs are estimates: the call graph has no inclusive cost for some calls.";
}
