/* timeline: per part (thread) and event, what the samples weighed in equal
 * buckets of time, from the recording's timed samples. One row per part,
 * bucket and event with a non-zero value (part, thread, start_s, end_s,
 * event, value), and the lanes that text and SVG draw. Times are seconds
 * from the recording's first sample, also in a --time slice. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/view_internal.h"

enum { DEFAULT_BUCKETS = 50, MAX_BUCKETS = 100000 };

static uint64_t meta_ns(const plumb_profile *p, const char *key, uint64_t dflt)
{
	const char *v = plumb_meta_get(p, key);
	if (!v || !*v)
		return dflt;
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	return *end ? dflt : (uint64_t)n;
}

/* The time buckets: n of width ns each, the first starting at from. */
typedef struct buckets {
	uint64_t from, width;
	size_t n;
} buckets;

/* Sample s's bucket into *b; false when it is not counted (its stack is not
 * selected, or it is before the range). Later ones go to the last bucket. */
static bool bucket_of(const plumb_sample *s, const uint8_t *pass, const buckets *bk, size_t *b)
{
	if (!pass[s->node] || s->time_ns < bk->from)
		return false;
	*b = (size_t)((s->time_ns - bk->from) / bk->width);
	if (*b >= bk->n)
		*b = bk->n - 1;
	return true;
}

/* Each function's exclusive and inclusive cost per bucket, for the events of
 * ve: exclusive on the leaf's function, inclusive once per distinct
 * function of the stack (the metric rules), so that the buckets of a range
 * sum to what plumb report --time of that range shows. Functions with no
 * cost are left out. Kept in t. */
static int function_buckets(const plumb_profile *p, const view_events *ve, const uint8_t *pass,
			    const buckets *bk, plumb_table *t, plumb_timeline *tl)
{
	size_t nf = p->functions.n, nev = p->events.n, nb = bk->n, cells = ve->n * nb;
	if (!nf || !cells)
		return 0;
	uint64_t **ex = calloc(nf, sizeof *ex), **in = calloc(nf, sizeof *in);
	size_t *seen = calloc(nf, sizeof *seen);   /* the sample that counted it last, + 1 */
	int rc = -1;
	if (!ex || !in || !seen)
		goto out;
	for (size_t i = 0; i < p->samples.n; i++) {
		const plumb_sample *s = &p->samples.v[i];
		size_t b;
		if (!bucket_of(s, pass, bk, &b))
			continue;
		const uint64_t *w = &p->sample_weights.v[i * nev];
		bool any = false; /* a sample of no weight gives no function a row */
		for (size_t e = 0; e < ve->n && !any; e++)
			any = w[ve->ev[e]] != 0;
		if (!any)
			continue;
		for (plumb_id n = s->node, leaf = 1; n != PLUMB_NONE; n = p->cct.v[n].parent, leaf = 0) {
			plumb_id fr = p->cct.v[n].frame;
			plumb_id f = fr == PLUMB_NONE ? PLUMB_NONE : p->frames.v[fr].function;
			if (f == PLUMB_NONE)
				continue;
			uint64_t **rows[2] = { leaf ? &ex[f] : NULL, seen[f] != i + 1 ? &in[f] : NULL };
			seen[f] = i + 1;
			for (int k = 0; k < 2; k++) {
				if (!rows[k])
					continue;
				if (!*rows[k] && !(*rows[k] = plumb_table_alloc(t, cells * sizeof **rows[k])))
					goto out;
				for (size_t e = 0; e < ve->n; e++)
					(*rows[k])[e * nb + b] += w[ve->ev[e]];
			}
		}
	}
	size_t used = 0;
	for (size_t f = 0; f < nf; f++)
		used += in[f] != NULL;
	plumb_timeline_fn *fns = plumb_table_alloc(t, (used ? used : 1) * sizeof *fns);
	const char **evs = plumb_table_alloc(t, ve->n * sizeof *evs);
	if (!fns || !evs)
		goto out;
	uint64_t *zero = NULL;
	size_t k = 0;
	for (size_t f = 0; f < nf; f++) {
		if (!in[f])
			continue;
		if (!ex[f] && !zero && !(zero = plumb_table_alloc(t, cells * sizeof *zero)))
			goto out;
		const plumb_function *fn = &p->functions.v[f];
		fns[k++] = (plumb_timeline_fn){ plumb_function_name(p, (plumb_id)f),
						fn->module == PLUMB_NONE ? NULL
									 : plumb_str(p, p->modules.v[fn->module].path),
						ex[f] ? ex[f] : zero, in[f] };
	}
	for (size_t e = 0; e < ve->n; e++)
		evs[e] = plumb_str(p, p->events.v[ve->ev[e]].name);
	tl->nevents = ve->n;
	tl->events = evs;
	tl->nfns = used;
	tl->fns = fns;
	rc = 0;
out:
	free(ex);
	free(in);
	free(seen);
	return rc;
}

int view_timeline(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err)
{
	view_events ve;
	if (view_events_of(p, o, &ve, err))
		return -1;
	if ((o->select && o->select->n) || (o->hide && o->hide->n))
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "--select and --hide name functions; the timeline view has lanes of "
				  "threads (use --focus to keep the stacks through a function)");
	size_t nb = o->buckets ? o->buckets : DEFAULT_BUCKETS;
	if (nb > MAX_BUCKETS)
		return plumb_fail(err, PLUMB_ERR_USAGE, "--buckets %zu: at most %d", nb, MAX_BUCKETS);
	uint64_t first, last;
	if (plumb_profile_time_span(p, &first, &last, err))
		return -1;
	/* a slice (--time) keeps the recording's origin and its own bounds */
	uint64_t origin = meta_ns(p, "time.origin_ns", first);
	uint64_t from = meta_ns(p, "time.from_ns", first), to = meta_ns(p, "time.to_ns", last + 1);
	if (to <= from)
		to = from + 1;
	uint64_t width = (to - from + nb - 1) / nb;
	buckets bk = { from, width, nb };
	size_t nev = p->events.n, np = p->parts.n, nlanes = np * ve.n;
	uint64_t *vals = calloc(nlanes * nb + 1, sizeof *vals);
	uint64_t *total = calloc(ve.n, sizeof *total);
	uint8_t *pass = NULL;
	plumb_table *t = NULL;
	if (!vals || !total || plumb_cct_select(p, o->part, o->focus, &pass, NULL))
		goto nomem;
	for (size_t i = 0; i < p->samples.n; i++) {
		const plumb_sample *s = &p->samples.v[i];
		size_t b;
		if (!bucket_of(s, pass, &bk, &b))
			continue;
		for (size_t k = 0; k < ve.n; k++) {
			uint64_t w = p->sample_weights.v[i * nev + (size_t)ve.ev[k]];
			uint64_t *cell = &vals[(s->part * ve.n + k) * nb + b];
			if (*cell > UINT64_MAX - w || total[k] > UINT64_MAX - w) {
				plumb_fail(err, PLUMB_ERR_OVERFLOW, "timeline: a bucket's cost passes 2^64");
				goto fail;
			}
			*cell += w;
			total[k] += w;
		}
	}
	t = plumb_table_new("timeline", "Timeline: each thread's cost in equal time buckets");
	plumb_timeline *tl = t ? plumb_table_alloc(t, sizeof *tl) : NULL;
	plumb_timeline_lane *lanes = t ? plumb_table_alloc(t, (nlanes ? nlanes : 1) * sizeof *lanes) : NULL;
	if (!tl || !lanes)
		goto nomem;
	int c_part = plumb_table_add_column(t, "part", "Part", PLUMB_CELL_INT, -1, false);
	int c_thread = plumb_table_add_column(t, "thread", "Thread", PLUMB_CELL_STR, -1, true);
	int c_start = plumb_table_add_column(t, "start_s", "Start (s)", PLUMB_CELL_NUM, -1, false);
	int c_end = plumb_table_add_column(t, "end_s", "End (s)", PLUMB_CELL_NUM, -1, false);
	int c_event = plumb_table_add_column(t, "event", "Event", PLUMB_CELL_STR, -1, false);
	int c_value = plumb_table_add_column(t, "value", "Value", PLUMB_CELL_U64, -1, false);
	if (c_part < 0 || c_thread < 0 || c_start < 0 || c_end < 0 || c_event < 0 || c_value < 0)
		goto nomem;
	tl->start_s = (double)(from - origin) / 1e9;
	tl->bucket_s = (double)width / 1e9;
	tl->nbuckets = nb;
	tl->lanes = lanes;
	size_t nl = 0;
	for (size_t part = 0; part < np; part++) {
		char label[512];
		view_part_label(p, &p->parts.v[part], part, label, sizeof label);
		const char *thread = NULL;
		for (size_t k = 0; k < ve.n; k++) {
			const uint64_t *v = &vals[(part * ve.n + k) * nb];
			plumb_timeline_lane L = { .part = (uint32_t)part + 1 };
			for (size_t b = 0; b < nb; b++) {
				L.total += v[b];
				L.max = v[b] > L.max ? v[b] : L.max;
			}
			if (!L.total || (o->threshold > 0 && view_pct(L.total, total[k]) < o->threshold))
				continue;
			const plumb_event *e = &p->events.v[ve.ev[k]];
			if (!thread && !(thread = plumb_table_strdup(t, label)))
				goto nomem;
			L.thread = thread;
			L.event = plumb_str(p, e->name);
			L.unit = e->unit != PLUMB_NONE ? plumb_str(p, e->unit) : NULL;
			L.values = v;
			lanes[nl++] = L;
		}
	}
	tl->nlanes = nl;
	/* rows: by part, then bucket, then event */
	for (size_t l0 = 0; l0 < nl;) {
		size_t l1 = l0;
		while (l1 < nl && lanes[l1].part == lanes[l0].part)
			l1++;
		for (size_t b = 0; b < nb; b++)
			for (size_t l = l0; l < l1; l++) {
				if (!lanes[l].values[b])
					continue;
				plumb_row *r = plumb_table_add_row(t, PLUMB_ROW_NORMAL, 0);
				if (!r)
					goto nomem;
				plumb_cell_int(&r->cells[c_part], lanes[l].part);
				plumb_cell_str(&r->cells[c_thread], lanes[l].thread);
				plumb_cell_num(&r->cells[c_start], tl->start_s + (double)b * tl->bucket_s);
				plumb_cell_num(&r->cells[c_end], tl->start_s + (double)(b + 1) * tl->bucket_s);
				plumb_cell_str(&r->cells[c_event], lanes[l].event);
				plumb_cell_u64(&r->cells[c_value], lanes[l].values[b]);
			}
		l0 = l1;
	}
	/* the lanes point into vals: the table keeps them */
	uint64_t *kept = plumb_table_alloc(t, (nlanes * nb + 1) * sizeof *kept);
	if (!kept)
		goto nomem;
	memcpy(kept, vals, (nlanes * nb + 1) * sizeof *kept);
	for (size_t l = 0; l < nl; l++)
		lanes[l].values = kept + (lanes[l].values - vals);
	if (o->timeline_functions && function_buckets(p, &ve, pass, &bk, t, tl))
		goto nomem;
	t->timeline = tl;
	free(vals);
	free(total);
	free(pass);
	*out = t;
	return 0;
nomem:
	plumb_fail_nomem(err);
fail:
	free(vals);
	free(total);
	free(pass);
	plumb_table_free(t);
	return -1;
}
