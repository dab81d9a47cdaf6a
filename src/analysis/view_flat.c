/* Keyed views: flat (functions, seed 003's fprof columns), lines, files and
 * modules. One row per key: % of total, cumulative %, exclusive and
 * inclusive for each event shown (and the exclusive samples of an event
 * sampled every N events), then what the key is. */
#include <stdlib.h>
#include <string.h>

#include "analysis/view_internal.h"

static plumb_level level_of(plumb_view_kind k)
{
	switch (k) {
	case PLUMB_VIEW_LINES:
		return PLUMB_LEVEL_LINE;
	case PLUMB_VIEW_FILES:
		return PLUMB_LEVEL_FILE;
	case PLUMB_VIEW_MODULES:
		return PLUMB_LEVEL_MODULE;
	default:
		return PLUMB_LEVEL_FUNCTION;
	}
}

static const char *title_of(plumb_view_kind k)
{
	switch (k) {
	case PLUMB_VIEW_LINES:
		return "Source lines";
	case PLUMB_VIEW_FILES:
		return "Source files";
	case PLUMB_VIEW_MODULES:
		return "Load modules";
	default:
		return "Flat profile";
	}
}

enum { ID_CALLS, ID_FUNCTION, ID_CYCLE, ID_FILE, ID_LINE, ID_MODULE };

static int add_columns(plumb_table *t, const plumb_profile *p, const view_events *ve,
		       const plumb_metrics *m, int *idcols)
{
	bool ok = true;
	for (size_t i = 0; i < ve->n; i++) {
		int e = ve->ev[i];
		ok &= view_add_event_column(t, p, "percent", "%", PLUMB_CELL_PCT, e) >= 0;
		if (e == ve->primary)
			ok &= plumb_table_add_column(t, "cumulative", "Cumul %", PLUMB_CELL_PCT, e, false) >= 0;
		ok &= view_add_event_column(t, p, "exclusive", "Excl.", PLUMB_CELL_U64, e) >= 0;
		ok &= view_add_event_column(t, p, "inclusive", "Incl.", PLUMB_CELL_U64, e) >= 0;
		/* Costs of an event sampled every N count events: the samples
		 * behind them too, for how much to trust a row. */
		if (plumb_event_period(p, e))
			ok &= view_add_event_column(t, p, "samples", "Samples", PLUMB_CELL_U64, e) >= 0;
	}
	/* add_column returns -1 on ENOMEM; columns a level lacks stay -2. */
	plumb_level level = m->level;
	for (int i = 0; i <= ID_MODULE; i++)
		idcols[i] = -2;
	if (level == PLUMB_LEVEL_FUNCTION)
		idcols[ID_CALLS] = plumb_table_add_column(t, "calls", "Calls", PLUMB_CELL_U64, -1, false);
	if (level == PLUMB_LEVEL_FUNCTION || level == PLUMB_LEVEL_LINE)
		idcols[ID_FUNCTION] = plumb_table_add_column(t, "function", "Function", PLUMB_CELL_STR, -1, true);
	/* The number alone, for programs; the text shows it in the name. */
	if (m->ncycles)
		idcols[ID_CYCLE] = plumb_table_add_column(t, "cycle", "Cycle", PLUMB_CELL_INT, -1, false);
	if (level == PLUMB_LEVEL_LINE)
		idcols[ID_LINE] = plumb_table_add_column(t, "line", "Line", PLUMB_CELL_INT, -1, false);
	if (level != PLUMB_LEVEL_MODULE)
		idcols[ID_FILE] = plumb_table_add_column(t, "file", "File", PLUMB_CELL_STR, -1,
							 level == PLUMB_LEVEL_FILE);
	idcols[ID_MODULE] = plumb_table_add_column(t, "module", "Load module", PLUMB_CELL_STR, -1,
						   level == PLUMB_LEVEL_MODULE);
	for (int i = 0; i <= ID_MODULE; i++)
		ok &= idcols[i] != -1;
	return ok ? 0 : -1;
}

static const char *or_unknown(const char *s, const char *unknown)
{
	return s ? s : unknown;
}

static void prefetch_row(const plumb_profile *p, const plumb_metrics *m, const uint32_t *keys,
			 size_t n, size_t i);

/* Row r of key id; label is its function cell (view_row_label). */
static void fill_row(plumb_row *r, const plumb_profile *p, const plumb_metrics *m,
		     const view_events *ve, const uint64_t *period, uint32_t id, double *cumul,
		     const int *idcols, const char *label)
{
	bool cycle = view_is_cycle(m, id);
	const uint64_t *excl = view_row_excl(m, id), *incl = view_row_incl(m, id);
	size_t c = 0;
	for (size_t i = 0; i < ve->n; i++) {
		int e = ve->ev[i];
		plumb_cell_pct(&r->cells[c++], view_pct(excl[e], m->totals[e]));
		if (e == ve->primary) {
			/* A cycle's own cost is its members' again: not summed twice,
			 * and no running sum on its row. */
			if (!cycle) {
				*cumul += view_pct(excl[e], m->totals[e]);
				plumb_cell_pct(&r->cells[c], *cumul > 100.0 ? 100.0 : *cumul);
			}
			c++;
		}
		plumb_cell_u64(&r->cells[c++], excl[e]);
		plumb_cell_u64(&r->cells[c++], incl[e]);
		if (period[i])
			plumb_cell_u64(&r->cells[c++], excl[e] / period[i]);
	}
	uint64_t calls = view_row_calls(m, id);
	if (idcols[ID_CALLS] >= 0 && calls != PLUMB_COUNT_UNKNOWN)
		plumb_cell_u64(&r->cells[idcols[ID_CALLS]], calls);
	if (idcols[ID_FUNCTION] >= 0)
		plumb_cell_str(&r->cells[idcols[ID_FUNCTION]], label);
	if (idcols[ID_CYCLE] >= 0 && view_cycle_number(m, id))
		plumb_cell_int(&r->cells[idcols[ID_CYCLE]], view_cycle_number(m, id));
	if (cycle)
		return;
	const plumb_key *key = &m->keys[id];
	if (idcols[ID_LINE] >= 0 && key->line)
		plumb_cell_int(&r->cells[idcols[ID_LINE]], key->line);
	if (idcols[ID_FILE] >= 0) {
		const char *f = view_key_file(p, key);
		plumb_cell_str(&r->cells[idcols[ID_FILE]],
			       m->level == PLUMB_LEVEL_FILE ? or_unknown(f, "<unknown file>") : f);
	}
	if (idcols[ID_MODULE] >= 0) {
		const char *mod = view_key_module(p, key);
		plumb_cell_str(&r->cells[idcols[ID_MODULE]],
			       m->level == PLUMB_LEVEL_MODULE ? or_unknown(mod, "<unknown module>") : mod);
	}
}

/* Rows made as the writer reads them (plumb_view_opts.rows_on_demand). */
typedef struct lazy_rows {
	const plumb_profile *p;
	view_rows r;
	uint64_t period[PLUMB_VIEW_MAX_EVENTS];
	int idcols[ID_MODULE + 1];
	double cumul;        /* the cumulative % after row next - 1 */
	size_t next;
	char *label;         /* a cycle member's label */
	size_t label_cap;
} lazy_rows;

static int lazy_make(void *ctx, size_t i, plumb_row *row)
{
	lazy_rows *z = ctx;
	if (i != z->next) { /* the running sum from the first row: rows are read in order */
		z->cumul = 0;
		for (size_t k = 0; k < i; k++) {
			uint32_t id = z->r.keys[k];
			if (!view_is_cycle(z->r.m, id))
				z->cumul += view_pct(view_row_excl(z->r.m, id)[z->r.ve.primary],
						     z->r.m->totals[z->r.ve.primary]);
		}
	}
	prefetch_row(z->p, z->r.m, z->r.keys, z->r.n, i);
	uint32_t id = z->r.keys[i];
	bool nomem = false;
	const char *label = z->idcols[ID_FUNCTION] >= 0
				    ? view_row_label_buf(z->p, z->r.m, id, &z->label, &z->label_cap, &nomem)
				    : NULL;
	if (nomem)
		return -1;
	fill_row(row, z->p, z->r.m, &z->r.ve, z->period, id, &z->cumul, z->idcols, label);
	z->next = i + 1;
	return 0;
}

static void lazy_free(void *ctx)
{
	lazy_rows *z = ctx;
	view_rows_free(&z->r);
	free(z->label);
	free(z);
}

/* The rows of a big view are in cost order, so each row's key, function,
 * string offsets and names are cache misses, one after the other. Fetched
 * a few rows ahead in stages (each stage reads what the one before
 * brought in), they come in parallel instead: a 1.7-million-row lines view
 * filled in about half the time. */
static void prefetch_row(const plumb_profile *p, const plumb_metrics *m, const uint32_t *keys,
			 size_t n, size_t i)
{
	enum { KEY = 24, ENTITY = 16, OFFSET = 8, TEXT = 4 };
	if (i + KEY < n && keys[i + KEY] < m->nkeys)
		__builtin_prefetch(&m->keys[keys[i + KEY]]);
	if (i + ENTITY < n && keys[i + ENTITY] < m->nkeys) {
		uint32_t id = keys[i + ENTITY];
		const plumb_key *k = &m->keys[id];
		__builtin_prefetch(&m->exclusive[(size_t)id * m->nevents]);
		__builtin_prefetch(&m->inclusive[(size_t)id * m->nevents]);
		__builtin_prefetch(&m->calls[id]);
		if (k->function < p->functions.n)
			__builtin_prefetch(&p->functions.v[k->function]);
		if (k->file < p->files.n)
			__builtin_prefetch(&p->files.v[k->file]);
	}
	if (i + OFFSET < n && keys[i + OFFSET] < m->nkeys) {
		const plumb_key *k = &m->keys[keys[i + OFFSET]];
		if (k->function < p->functions.n && p->functions.v[k->function].name < p->strings.off.n)
			__builtin_prefetch(&p->strings.off.v[p->functions.v[k->function].name]);
		if (k->file < p->files.n && p->files.v[k->file].path < p->strings.off.n)
			__builtin_prefetch(&p->strings.off.v[p->files.v[k->file].path]);
	}
	if (i + TEXT < n && keys[i + TEXT] < m->nkeys) {
		const plumb_key *k = &m->keys[keys[i + TEXT]];
		const char *name = view_key_name(p, k), *file = view_key_file(p, k);
		if (name)
			__builtin_prefetch(name);
		if (file)
			__builtin_prefetch(file);
	}
}

int view_keyed(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err)
{
	plumb_level level = level_of(o->kind);
	view_rows r;
	if (view_rows_prepare(p, o, level, true, false, &r, err))
		return -1;
	int idcols[ID_MODULE + 1];
	plumb_table *t = plumb_table_new(plumb_view_name(o->kind), title_of(o->kind));
	if (!t || add_columns(t, p, &r.ve, r.m, idcols))
		goto nomem;
	/* Each event's sampling period, looked up once (a metadata lookup,
	 * too slow for every row of a big profile). */
	uint64_t period[PLUMB_VIEW_MAX_EVENTS];
	for (size_t i = 0; i < r.ve.n; i++)
		period[i] = plumb_event_period(p, r.ve.ev[i]);
	double cumul = 0;
	bool tagged = false;
	for (size_t i = 0; i < r.n; i++) {
		uint32_t id = r.keys[i];
		tagged |= view_cycle_number(r.m, id) != 0;
		if (o->rows_on_demand)
			continue;
		prefetch_row(p, r.m, r.keys, r.n, i);
		plumb_row *row = plumb_table_add_row(t, PLUMB_ROW_NORMAL, 0);
		bool nomem = false;
		const char *label = idcols[ID_FUNCTION] >= 0 ? view_row_label(t, p, r.m, id, &nomem) : NULL;
		if (!row || nomem)
			goto nomem;
		fill_row(row, p, r.m, &r.ve, period, id, &cumul, idcols, label);
	}
	if (r.m->inclusive_estimated &&
	    plumb_table_add_note(t, view_estimate_note(p)))
		goto nomem;
	if (tagged && plumb_table_add_note(t, VIEW_CYCLE_NOTE))
		goto nomem;
	if (o->rows_on_demand) {
		lazy_rows *z = calloc(1, sizeof *z);
		if (!z)
			goto nomem;
		*z = (lazy_rows){ .p = p, .r = r };
		memcpy(z->period, period, sizeof period);
		memcpy(z->idcols, idcols, sizeof idcols);
		if (plumb_table_set_source(t, r.n, lazy_make, lazy_free, z)) {
			plumb_table_free(t);
			return plumb_fail_nomem(err);
		}
		*out = t;
		return 0;
	}
	view_rows_free(&r);
	*out = t;
	return 0;
nomem:
	plumb_fail_nomem(err);
	plumb_table_free(t);
	view_rows_free(&r);
	return -1;
}
