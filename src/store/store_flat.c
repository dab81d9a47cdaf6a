/* The flat view's metrics in the .plumb store (kind "flat", schema version
 * 8): what every plain `plumb report` of the file computes (each function's
 * exclusive and inclusive costs and calls, the cycles of a call graph),
 * computed once when the file is written (store_views.c) and kept, so that
 * such a report reads names and these instead of every cost. The encoding is in docs/plumb-format.md. */
#include <stdlib.h>
#include <string.h>

#include "plumb/analysis.h"
#include "store/store_flat.h"

/* ---- writing ------------------------------------------------------------- */

static uint8_t *put_costs(uint8_t *w, const uint64_t *c, size_t nev)
{
	for (size_t e = 0; e < nev; e++)
		w = plumb_varint_put(w, c[e]);
	return w;
}

/* Inclusive as a difference from exclusive (most functions' are close). */
static uint8_t *put_pair(uint8_t *w, const uint64_t *excl, const uint64_t *incl, size_t nev)
{
	w = put_costs(w, excl, nev);
	for (size_t e = 0; e < nev; e++)
		w = plumb_varint_put(w, plumb_zigzag(incl[e], excl[e]));
	return w;
}

/* Would the flat view of p be the same computed from p as read back? Only
 * function-level metrics of the whole profile, over its events, without
 * points (whose profiles show the inputs view). */
static bool writable(const plumb_profile *p, const plumb_metrics *m)
{
	return m && m->level == PLUMB_LEVEL_FUNCTION && m->nevents == p->events.n && p->events.n &&
	       !p->points.n && m->nkeys < UINT32_MAX;
}

int store_enc_flat(store_bulk_out *o, const plumb_profile *p, const plumb_metrics *m)
{
	if (!writable(p, m))
		return 0;
	size_t nev = m->nevents, nmembers = 0;
	for (size_t c = 0; c < m->ncycles; c++)
		nmembers += m->cycles[c].n;
	store_bulk_kind(o, "flat");
	uint8_t *w = store_bulk_room(o, (5 + nev) * PLUMB_VARINT_MAX);
	if (!w)
		return -1;
	w = plumb_varint_put(w, m->inclusive_estimated ? 1u : 0u);
	w = plumb_varint_put(w, m->nkeys);
	w = plumb_varint_put(w, m->ncycles);
	w = plumb_varint_put(w, nmembers);
	w = put_costs(w, m->totals, nev);
	if (store_bulk_done(o, w))
		return -1;
	uint64_t fn = 0;
	for (size_t k = 0; k < m->nkeys; k++) {
		const plumb_key *key = &m->keys[k];
		w = store_bulk_room(o, (6 + 2 * nev) * PLUMB_VARINT_MAX);
		if (!w)
			return -1;
		w = plumb_varint_put(w, plumb_zigzag(key->function + 1u, fn)); /* PLUMB_NONE: 0 */
		w = plumb_varint_put(w, key->file + 1u);
		w = plumb_varint_put(w, key->module + 1u);
		w = plumb_varint_put(w, key->line);
		w = plumb_varint_put(w, m->calls[k] + 1); /* 0: unknown */
		w = plumb_varint_put(w, m->ncycles ? m->cycle[k] : 0);
		w = put_pair(w, plumb_metrics_excl(m, k), plumb_metrics_incl(m, k), nev);
		fn = key->function + 1u;
		if (store_bulk_done(o, w))
			return -1;
	}
	for (size_t c = 0; c < m->ncycles; c++) {
		const plumb_metric_cycle *cy = &m->cycles[c];
		w = store_bulk_room(o, (2 + 2 * nev) * PLUMB_VARINT_MAX);
		if (!w)
			return -1;
		w = plumb_varint_put(w, cy->n);
		w = plumb_varint_put(w, cy->calls + 1);
		w = put_pair(w, m->cycle_exclusive + c * nev, m->cycle_inclusive + c * nev, nev);
		if (store_bulk_done(o, w))
			return -1;
		for (uint32_t i = 0; i < cy->n; i++) {
			if (!(w = store_bulk_room(o, PLUMB_VARINT_MAX)))
				return -1;
			w = plumb_varint_put(w, m->cycle_members[cy->first + i]);
			if (store_bulk_done(o, w))
				return -1;
		}
	}
	return store_bulk_flush(o);
}

/* ---- reading ------------------------------------------------------------- */

static void get_costs(store_bulk_in *b, uint64_t *c, size_t nev)
{
	for (size_t e = 0; e < nev; e++)
		c[e] = plumb_varint_get(&b->in);
}

static void get_pair(store_bulk_in *b, uint64_t *excl, uint64_t *incl, size_t nev)
{
	get_costs(b, excl, nev);
	for (size_t e = 0; e < nev; e++)
		incl[e] = plumb_unzigzag(plumb_varint_get(&b->in), excl[e]);
}

/* The header entity: sizes checked against the entities the blocks hold
 * (total), then the arrays allocated. */
static int flat_header(rd *r, store_bulk_in *b, int64_t total, plumb_metrics *m)
{
	size_t nev = r->p->events.n;
	uint64_t flags = plumb_varint_get(&b->in), nkeys = plumb_varint_get(&b->in),
		 ncycles = plumb_varint_get(&b->in), nmembers = plumb_varint_get(&b->in);
	m->totals = calloc(nev ? nev : 1, sizeof *m->totals);
	if (!m->totals)
		return plumb_fail_nomem(r->err);
	get_costs(b, m->totals, nev);
	if (b->in.bad)
		return store_bulk_end_entity(b);
	if (flags > 1)
		return store_bulk_bad(b, "flags %llu: expected 0 or 1", (unsigned long long)flags);
	/* each count is at most the entities there are, so their sum cannot wrap */
	if (nkeys > (uint64_t)total || ncycles > (uint64_t)total || nmembers > (uint64_t)total ||
	    1 + nkeys + ncycles + nmembers != (uint64_t)total)
		return store_bulk_bad(b, "%llu functions, %llu cycles and %llu cycle members, but "
				      "the blocks hold %lld entities", (unsigned long long)nkeys,
				      (unsigned long long)ncycles, (unsigned long long)nmembers,
				      (long long)total);
	if (nkeys > r->fn.n)
		return store_bulk_bad(b, "%llu functions, but table functions has %zu rows",
				      (unsigned long long)nkeys, r->fn.n);
	m->level = PLUMB_LEVEL_FUNCTION;
	m->nevents = nev;
	m->nkeys = (size_t)nkeys;
	m->ncycles = (size_t)ncycles;
	m->inclusive_estimated = flags & 1;
	size_t nk = m->nkeys ? m->nkeys : 1, nc = m->ncycles ? m->ncycles : 1;
	m->keys = malloc(nk * sizeof *m->keys);
	m->exclusive = malloc(nk * (nev ? nev : 1) * sizeof *m->exclusive);
	m->inclusive = malloc(nk * (nev ? nev : 1) * sizeof *m->inclusive);
	m->calls = malloc(nk * sizeof *m->calls);
	m->cycle = calloc(nk, sizeof *m->cycle);
	m->cycles = malloc(nc * sizeof *m->cycles);
	m->cycle_members = malloc((nmembers ? nmembers : 1) * sizeof *m->cycle_members);
	m->cycle_exclusive = malloc(nc * (nev ? nev : 1) * sizeof *m->cycle_exclusive);
	m->cycle_inclusive = malloc(nc * (nev ? nev : 1) * sizeof *m->cycle_inclusive);
	if (!m->keys || !m->exclusive || !m->inclusive || !m->calls || !m->cycle || !m->cycles ||
	    !m->cycle_members || !m->cycle_exclusive || !m->cycle_inclusive)
		return plumb_fail_nomem(r->err);
	return store_bulk_end_entity(b);
}

static int opt_ref(store_bulk_in *b, uint64_t v, const idmap *map, const char *name, plumb_id *out)
{
	*out = PLUMB_NONE;
	return v ? store_bulk_ref(b, v - 1, map, name, out) : 0;
}

static int flat_key(rd *r, store_bulk_in *b, plumb_metrics *m, size_t k, uint64_t *fn)
{
	size_t nev = m->nevents;
	uint64_t f = plumb_unzigzag(plumb_varint_get(&b->in), *fn);
	uint64_t file = plumb_varint_get(&b->in), mod = plumb_varint_get(&b->in);
	uint64_t line = plumb_varint_get(&b->in);
	m->calls[k] = plumb_varint_get(&b->in) - 1;
	uint64_t cycle = plumb_varint_get(&b->in);
	get_pair(b, m->exclusive + k * nev, m->inclusive + k * nev, nev);
	*fn = f;
	if (b->in.bad)
		return store_bulk_end_entity(b);
	plumb_key *key = &m->keys[k];
	if (opt_ref(b, f, &r->fn, "function", &key->function) ||
	    opt_ref(b, file, &r->file, "file", &key->file) ||
	    opt_ref(b, mod, &r->mod, "module", &key->module))
		return -1;
	if (line > UINT32_MAX)
		return store_bulk_bad(b, "line %llu out of range", (unsigned long long)line);
	if (cycle > m->ncycles)
		return store_bulk_bad(b, "cycle %llu, of %zu", (unsigned long long)cycle, m->ncycles);
	key->line = (uint32_t)line;
	m->cycle[k] = (uint32_t)cycle;
	return store_bulk_end_entity(b);
}

static int flat_cycle(store_bulk_in *b, plumb_metrics *m, size_t c, uint32_t first, size_t left)
{
	size_t nev = m->nevents;
	plumb_metric_cycle *cy = &m->cycles[c];
	uint64_t n = plumb_varint_get(&b->in);
	cy->calls = plumb_varint_get(&b->in) - 1;
	get_pair(b, m->cycle_exclusive + c * nev, m->cycle_inclusive + c * nev, nev);
	if (b->in.bad)
		return store_bulk_end_entity(b);
	if (n < 2 || n > left)
		return store_bulk_bad(b, "a cycle of %llu functions (2 to the %zu members left)",
				      (unsigned long long)n, left);
	cy->first = first;
	cy->n = (uint32_t)n;
	return store_bulk_end_entity(b);
}

static int flat_member(store_bulk_in *b, plumb_metrics *m, size_t i)
{
	uint64_t k = plumb_varint_get(&b->in);
	if (b->in.bad)
		return store_bulk_end_entity(b);
	if (k >= m->nkeys)
		return store_bulk_bad(b, "cycle member %llu, of %zu functions", (unsigned long long)k,
				      m->nkeys);
	m->cycle_members[i] = (uint32_t)k;
	return store_bulk_end_entity(b);
}

int store_kept_count(rd *r, const char *kind, int64_t *total)
{
	sqlite3_stmt *st;
	*total = 0;
	if (store_rd_prepare(r, "SELECT count(*), sum(count) FROM bulk WHERE kind = ?1", &st))
		return -1;
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
		*total = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : store_rd_fail(r, rc);
}

int store_read_flat(rd *r, int64_t total)
{
	plumb_metrics *m = calloc(1, sizeof *m);
	if (!m)
		return plumb_fail_nomem(r->err);
	store_bulk_in b;
	int more = store_bulk_in_open(&b, r->db, "flat", r->path, r->err);
	b.progress = &r->progress;
	uint64_t fn = 0;
	size_t cycle = 0, member = 0, in_cycle = 0, nmembers = 0;
	while (!more && (more = store_bulk_next(&b)) > 0) {
		int64_t i = b.next;
		if (i == 0) {
			more = flat_header(r, &b, total, m);
			nmembers = (size_t)(total - 1) - m->nkeys - m->ncycles;
		} else if ((uint64_t)i <= m->nkeys) {
			more = flat_key(r, &b, m, (size_t)i - 1, &fn);
		} else if (in_cycle) {
			more = flat_member(&b, m, member++);
			in_cycle--;
		} else if (cycle < m->ncycles) {
			more = flat_cycle(&b, m, cycle, (uint32_t)member, nmembers - member);
			in_cycle = more ? 0 : m->cycles[cycle++].n;
		} else {
			more = store_bulk_bad(&b, "past the flat view's last entity");
		}
	}
	int64_t end = b.next;
	store_bulk_in_close(&b);
	if (!more && (end != total || cycle < m->ncycles || in_cycle))
		more = plumb_fail(r->err, PLUMB_ERR_FORMAT, "%s: table bulk: the flat blocks end at "
				  "entity %lld of %lld", r->path, (long long)end, (long long)total);
	uint64_t *totals = NULL;
	size_t nev = r->p->events.n;
	if (!more && !(totals = malloc((nev ? nev : 1) * sizeof *totals)))
		more = plumb_fail_nomem(r->err);
	if (more) {
		plumb_metrics_free(m); /* what it leaves out is NULL */
		return -1;
	}
	memcpy(totals, m->totals, nev * sizeof *totals);
	r->p->flat = m;
	r->p->flat_free = plumb_metrics_free;
	r->p->kept_totals = totals;
	return 0;
}
