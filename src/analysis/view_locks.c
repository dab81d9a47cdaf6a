/* locks: the objects threads waited for (plumb record --sync-wait), one row
 * per lock, condition variable, semaphore, barrier or joined thread, named
 * by its symbol when it is a global ("[mutex big_lock]"), with the total
 * and mean wait and the count; under each, the functions that waited for
 * it and through which call (pthread_mutex_lock, pthread_cond_wait...).
 * The objects are the leaf frames of module "[locks]" that the recorder
 * puts under every sync-wait sample. Who held a mutex or a write-locked
 * rwlock as the waits began comes from the recorder's "locks.held.N"
 * metadata ("NS WAITS TID LABEL"), for the whole recording. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/view_internal.h"
#include "model/index.h"

typedef struct lock_row {
	plumb_id lock, waiter, via;   /* functions; waiter PLUMB_NONE for a lock's total */
	uint64_t ns, count;
} lock_row;

typedef PLUMB_VEC(lock_row) lock_rows;

static int add(lock_rows *v, plumb_id lock, plumb_id waiter, plumb_id via, uint64_t ns, uint64_t n)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].lock == lock && v->v[i].waiter == waiter && v->v[i].via == via) {
			v->v[i].ns += ns;
			v->v[i].count += n;
			return 0;
		}
	if (plumb_vec_reserve(*v, v->n + 1))
		return -1;
	v->v[v->n++] = (lock_row){ lock, waiter, via, ns, n };
	return 0;
}

static const lock_rows *sort_rows;

static uint64_t lock_total(plumb_id lock)
{
	for (size_t i = 0; i < sort_rows->n; i++)
		if (sort_rows->v[i].lock == lock && sort_rows->v[i].waiter == PLUMB_NONE &&
		    sort_rows->v[i].via == PLUMB_NONE)
			return sort_rows->v[i].ns;
	return 0;
}

/* Locks heaviest first, each lock's total row first, then its waiters. */
static int row_cmp(const void *va, const void *vb)
{
	const lock_row *a = va, *b = vb;
	if (a->lock != b->lock) {
		uint64_t x = lock_total(a->lock), y = lock_total(b->lock);
		if (x != y)
			return x < y ? 1 : -1;
		return a->lock < b->lock ? -1 : 1;
	}
	bool ta = a->waiter == PLUMB_NONE && a->via == PLUMB_NONE;
	bool tb = b->waiter == PLUMB_NONE && b->via == PLUMB_NONE;
	if (ta != tb)
		return ta ? -1 : 1;
	if (a->ns != b->ns)
		return a->ns < b->ns ? 1 : -1;
	return a->waiter < b->waiter ? -1 : a->waiter > b->waiter;
}

/* The "held by" rows of the lock named label: from the metadata, a thread
 * by its part's label when the profile has that thread. */
static int add_holders(plumb_table *t, const plumb_profile *p, const char *label, int c_ns, int c_n,
		       int c_avg, int c_name, int c_via)
{
	char key[48];
	for (unsigned i = 0;; i++) {
		snprintf(key, sizeof key, "locks.held.%u", i);
		const char *v = plumb_meta_get(p, key);
		if (!v)
			return 0;
		unsigned long long ns, n;
		int tid, at = 0;
		if (sscanf(v, "%llu %llu %d %n", &ns, &n, &tid, &at) != 3 || !at || strcmp(v + at, label))
			continue;
		char who[600], part[512];
		snprintf(part, sizeof part, "thread %d", tid);
		for (size_t k = 0; k < p->parts.n; k++)
			if (p->parts.v[k].tid == tid)
				view_part_label(p, &p->parts.v[k], k, part, sizeof part);
		snprintf(who, sizeof who, "held by %s", part);
		plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, 1);
		const char *name = r ? plumb_table_strdup(t, who) : NULL;
		if (!name)
			return -1;
		plumb_cell_u64(&r->cells[c_ns], ns);
		plumb_cell_u64(&r->cells[c_n], n);
		if (n)
			plumb_cell_u64(&r->cells[c_avg], ns / n);
		plumb_cell_str(&r->cells[c_name], name);
		plumb_cell_str(&r->cells[c_via], "(when the waits began)");
	}
}

int view_locks(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err)
{
	int ev_ns = plumb_event_find(p, "sync-wait"), ev_n = plumb_event_find(p, "sync-waits");
	if (ev_ns < 0 || ev_n < 0)
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "the locks view needs lock waits: record with plumb record --sync-wait");
	if ((o->select && o->select->n) || (o->hide && o->hide->n))
		return plumb_fail(err, PLUMB_ERR_USAGE, "the locks view takes --focus, --part and "
				  "--limit, not --select or --hide");
	plumb_id locks_mod = PLUMB_NONE;
	for (size_t i = 0; i < p->modules.n && locks_mod == PLUMB_NONE; i++) {
		const char *path = plumb_str(p, p->modules.v[i].path);
		if (path && strcmp(path, "[locks]") == 0)
			locks_mod = (plumb_id)i;
	}
	uint8_t *pass = NULL;
	lock_rows rows = { NULL, 0, 0 };
	plumb_table *t = NULL;
	uint64_t total = 0;
	if (plumb_cct_select(p, o->part, o->focus, &pass, NULL))
		goto nomem;
	size_t nev = p->events.n;
	for (size_t i = 0; i < p->cct.n && locks_mod != PLUMB_NONE; i++) {
		const plumb_cct_node *nd = &p->cct.v[i];
		if (!pass[i] || nd->frame == PLUMB_NONE)
			continue;   /* a part's root has no frame */
		plumb_id fn = p->frames.v[nd->frame].function;
		if (fn == PLUMB_NONE || p->functions.v[fn].module != locks_mod)
			continue;
		const uint64_t *c = plumb_cct_self(p, (plumb_id)i);
		uint64_t ns = c[ev_ns], n = c[ev_n];
		if (!ns && !n)
			continue;
		(void)nev;
		plumb_id via = PLUMB_NONE, waiter = PLUMB_NONE;
		plumb_id up = nd->parent;
		if (up != PLUMB_NONE && p->cct.v[up].frame != PLUMB_NONE) {
			via = p->frames.v[p->cct.v[up].frame].function;
			up = p->cct.v[up].parent;
			if (up != PLUMB_NONE && p->cct.v[up].frame != PLUMB_NONE)
				waiter = p->frames.v[p->cct.v[up].frame].function;
		}
		total += ns;
		if (add(&rows, fn, PLUMB_NONE, PLUMB_NONE, ns, n) || add(&rows, fn, waiter, via, ns, n))
			goto nomem;
	}
	sort_rows = &rows;
	qsort(rows.v, rows.n, sizeof *rows.v, row_cmp);
	t = plumb_table_new("locks", "Lock waits: who waited for which object, how long");
	if (!t)
		goto nomem;
	int c_pct = view_add_event_column(t, p, "percent", "%", PLUMB_CELL_PCT, ev_ns);
	int c_ns = view_add_event_column(t, p, "total", "Total", PLUMB_CELL_U64, ev_ns);
	int c_n = view_add_event_column(t, p, "count", "Count", PLUMB_CELL_U64, ev_n);
	int c_avg = plumb_table_add_column(t, "mean_ns", "Mean ns", PLUMB_CELL_U64, -1, false);
	int c_name = plumb_table_add_column(t, "object", "Object / waiting function", PLUMB_CELL_STR, -1, true);
	int c_via = plumb_table_add_column(t, "via", "Through", PLUMB_CELL_STR, -1, false);
	if (c_pct < 0 || c_ns < 0 || c_n < 0 || c_avg < 0 || c_name < 0 || c_via < 0)
		goto nomem;
	size_t nlocks = 0;
	for (size_t i = 0; i < rows.n; i++) {
		const lock_row *lr = &rows.v[i];
		bool head = lr->waiter == PLUMB_NONE && lr->via == PLUMB_NONE;
		if (head && o->limit && nlocks++ >= o->limit)
			break;
		if (head && o->threshold > 0 && view_pct(lr->ns, total) < o->threshold) {
			while (i + 1 < rows.n && rows.v[i + 1].lock == lr->lock)
				i++;
			continue;
		}
		plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, head ? 0 : 1);
		if (!r)
			goto nomem;
		plumb_cell_pct(&r->cells[c_pct], view_pct(lr->ns, total));
		plumb_cell_u64(&r->cells[c_ns], lr->ns);
		plumb_cell_u64(&r->cells[c_n], lr->count);
		if (lr->count)
			plumb_cell_u64(&r->cells[c_avg], lr->ns / lr->count);
		plumb_id name = head ? lr->lock : lr->waiter;
		plumb_cell_str(&r->cells[c_name], name != PLUMB_NONE ? plumb_function_name(p, name)
								     : (head ? NULL : "(no caller)"));
		if (!head && lr->via != PLUMB_NONE)
			plumb_cell_str(&r->cells[c_via], plumb_function_name(p, lr->via));
		/* after the lock's last waiter, who held it */
		if ((i + 1 == rows.n || rows.v[i + 1].lock != lr->lock) &&
		    add_holders(t, p, plumb_function_name(p, lr->lock), c_ns, c_n, c_avg, c_name, c_via))
			goto nomem;
	}
	if (plumb_table_add_note(t, "An object is named by its symbol when it is a global, else by its "
				    "address; a [thread ...] is a pthread_join. Waits shorter than the "
				    "recording's threshold (record.sync_threshold) are not counted. "
				    "\"held by\": the thread that held a mutex or a write-locked rwlock "
				    "as the waits began, over the whole recording."))
		goto nomem;
	free(rows.v);
	free(pass);
	*out = t;
	return 0;
nomem:
	plumb_fail_nomem(err);
	plumb_table_free(t);
	free(rows.v);
	free(pass);
	return -1;
}
