/* The points a view of an input-sensitive profile shows: filtered by part
 * and routine, then merged by (routine, context path, input size) with the
 * model's own rule, so that parts, and a routine's contexts, add up as
 * aprof merges reports. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/points_set.h"

int points_none(const plumb_profile *p, const plumb_view_opts *o, plumb_error *err)
{
	(void)p;
	return plumb_fail(err, PLUMB_ERR_USAGE,
			  "--view %s needs performance points (an input-sensitive profile: an aprof "
			  "report); this profile has none", plumb_view_name(o->kind));
}

/* "main;parse;read_item": the frames' functions from the root down to node. */
static char *context_path(const plumb_profile *p, plumb_id node)
{
	size_t len = 0;
	for (plumb_id x = node; x != PLUMB_NONE && p->cct.v[x].parent != PLUMB_NONE; x = p->cct.v[x].parent)
		len += strlen(plumb_function_name(p, p->frames.v[p->cct.v[x].frame].function)) + 1;
	char *s = malloc(len ? len : 1);
	if (!s)
		return NULL;
	s[len ? len - 1 : 0] = '\0';
	size_t end = len ? len - 1 : 0;
	for (plumb_id x = node; x != PLUMB_NONE && p->cct.v[x].parent != PLUMB_NONE; x = p->cct.v[x].parent) {
		const char *name = plumb_function_name(p, p->frames.v[p->cct.v[x].frame].function);
		size_t n = strlen(name);
		end -= n;
		memcpy(s + end, name, n);
		if (end > 0)
			s[--end] = ';';
	}
	return s;
}

typedef struct sort_ctx {
	const plumb_profile *p;
	char *const *paths;
	bool by_context;
} sort_ctx;

static const char *path_of(const sort_ctx *c, const plumb_point *pt)
{
	return c->by_context && pt->context != PLUMB_NONE ? c->paths[pt->context] : NULL;
}

/* The order of the points: (routine, context path, input size), the
 * routine as a whole before its contexts, then the point's index. A radix
 * sort over keys copied out of the points, not qsort_r reading the points:
 * a million points sort in a fifth of the time. */
typedef struct sort_key {
	uint64_t input;
	uint32_t idx;
	uint32_t fn;
	uint32_t rank;  /* of the context path in strcmp order; 0: none */
} sort_key;

enum { BY_INPUT_BYTE, BY_RANK, BY_FUNCTION };

static inline uint32_t digit_of(const sort_key *k, int by, unsigned shift)
{
	switch (by) {
	case BY_INPUT_BYTE: return (uint32_t)(k->input >> shift) & 0xff;
	case BY_RANK: return k->rank;
	default: return k->fn;
	}
}

/* One stable counting-sort pass from *src to *dst (then swapped) by a digit
 * below nb; count has nb + 1 slots. Skipped when every key has the same
 * digit. */
static void sort_pass(sort_key **src, sort_key **dst, size_t n, int by, unsigned shift,
		      size_t nb, size_t *count)
{
	memset(count, 0, (nb + 1) * sizeof *count);
	const sort_key *a = *src;
	for (size_t i = 0; i < n; i++)
		count[digit_of(&a[i], by, shift) + 1]++;
	if (n == 0 || count[digit_of(&a[0], by, shift) + 1] == n)
		return;
	for (size_t d = 1; d <= nb; d++)
		count[d] += count[d - 1];
	sort_key *b = *dst;
	for (size_t i = 0; i < n; i++)
		b[count[digit_of(&a[i], by, shift)]++] = a[i];
	*dst = *src;
	*src = b;
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rank of each context node's path (1 on, equal paths equal ranks);
 * NULL when no path is used. *nranks: the highest rank + 1. */
static int path_ranks(const points_set *s, uint32_t **out, size_t *nranks)
{
	*out = NULL;
	*nranks = 1;
	size_t used = 0;
	for (size_t i = 0; i < s->npaths; i++)
		used += s->paths[i] != NULL;
	if (!used)
		return 0;
	char **sorted = malloc(used * sizeof *sorted);
	uint32_t *rank = calloc(s->npaths, sizeof *rank);
	if (!sorted || !rank) {
		free(sorted);
		free(rank);
		return -1;
	}
	used = 0;
	for (size_t i = 0; i < s->npaths; i++)
		if (s->paths[i])
			sorted[used++] = s->paths[i];
	qsort(sorted, used, sizeof *sorted, path_cmp);
	/* each node finds its path's rank by binary search among the sorted
	 * distinct paths */
	size_t distinct = 0;
	for (size_t i = 0; i < used; i++)
		if (!distinct || strcmp(sorted[distinct - 1], sorted[i]) != 0)
			sorted[distinct++] = sorted[i];
	for (size_t i = 0; i < s->npaths; i++) {
		if (!s->paths[i])
			continue;
		size_t lo = 0, hi = distinct;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (strcmp(sorted[mid], s->paths[i]) <= 0)
				lo = mid;
			else
				hi = mid;
		}
		rank[i] = (uint32_t)lo + 1;
	}
	free(sorted);
	*out = rank;
	*nranks = distinct + 1;
	return 0;
}

/* Sort keys[0..n) by (fn, rank, input, idx): least significant first, each
 * pass stable; tmp has room for n keys. Returns the sorted array (keys or
 * tmp). */
static sort_key *sort_keys(sort_key *keys, sort_key *tmp, size_t n, size_t nfunctions,
			   size_t nranks, size_t *count)
{
	uint64_t all = 0;
	for (size_t i = 0; i < n; i++)
		all |= keys[i].input;
	sort_key *src = keys, *dst = tmp;
	for (unsigned shift = 0; shift < 64 && (all >> shift); shift += 8)
		sort_pass(&src, &dst, n, BY_INPUT_BYTE, shift, 256, count);
	if (nranks > 1)
		sort_pass(&src, &dst, n, BY_RANK, 0, nranks, count);
	sort_pass(&src, &dst, n, BY_FUNCTION, 0, nfunctions, count);
	return src;
}

static bool same_key(const sort_key *a, const sort_key *b)
{
	return a->fn == b->fn && a->rank == b->rank && a->input == b->input;
}

static int saturating_add(uint64_t *dst, uint64_t v)
{
	*dst = *dst > UINT64_MAX - v ? UINT64_MAX : *dst + v;
	return 0;
}

/* Which routines are listed: 1 yes, 2 no, 0 not decided yet. */
static bool listed(const plumb_profile *p, const plumb_view_opts *o, uint8_t *memo, plumb_id fn)
{
	if (!memo[fn]) {
		bool yes = !(o->select && o->select->n) ||
			   plumb_symspec_list_match_function(o->select, p, fn);
		if (yes && o->hide && o->hide->n && plumb_symspec_list_match_function(o->hide, p, fn))
			yes = false;
		memo[fn] = yes ? 1 : 2;
	}
	return memo[fn] == 1;
}

static int make_groups(const plumb_profile *p, points_set *s, const sort_ctx *c, plumb_error *err)
{
	s->groups = malloc((s->npts ? s->npts : 1) * sizeof *s->groups);
	if (!s->groups)
		return plumb_fail_nomem(err);
	(void)p;
	for (size_t i = 0; i < s->npts; i++) {
		const plumb_point *pt = s->pts[i];
		const char *path = path_of(c, pt);
		points_group *g = s->ngroups ? &s->groups[s->ngroups - 1] : NULL;
		if (!g || g->function != pt->function || (g->context != path &&
			  (!g->context || !path || strcmp(g->context, path) != 0))) {
			g = &s->groups[s->ngroups++];
			*g = (points_group){ .function = pt->function, .context = path, .first = i,
					     .has = pt->has };
		}
		g->n++;
		g->has &= pt->has;
		saturating_add(&g->cost, pt->real_sum);
		saturating_add(&g->self, pt->self_sum);
		saturating_add(&g->calls, pt->calls);
	}
	return 0;
}

int points_gather(const plumb_profile *p, const plumb_view_opts *o, bool by_context,
		  points_set *s, plumb_error *err)
{
	memset(s, 0, sizeof *s);
	if (p->points.n == 0)
		return points_none(p, o, err);
	sort_key *keys = malloc(p->points.n * sizeof *keys), *tmp = NULL;
	uint32_t *ranks = NULL;
	size_t *count = NULL;
	uint8_t *memo = calloc(p->functions.n ? p->functions.n : 1, 1);
	if (!keys || !memo)
		goto nomem;
	if (by_context) {
		s->npaths = p->cct.n;
		if (!(s->paths = calloc(p->cct.n ? p->cct.n : 1, sizeof *s->paths)))
			goto nomem;
	}
	size_t n = 0;
	for (size_t i = 0; i < p->points.n; i++) {
		const plumb_point *pt = &p->points.v[i];
		if (o->part != PLUMB_NONE && pt->part != o->part)
			continue;
		saturating_add(&s->total_self, pt->self_sum);
		if (!listed(p, o, memo, pt->function))
			continue;
		if (by_context && pt->context != PLUMB_NONE && !s->paths[pt->context] &&
		    !(s->paths[pt->context] = context_path(p, pt->context)))
			goto nomem;
		keys[n++] = (sort_key){ .input = pt->input, .idx = (uint32_t)i, .fn = pt->function,
					.rank = 0 };
	}
	/* shares are of the run's cost (aprof's k) as aprof-plot's Cost %; of
	 * the self sums when one part is shown or k is not known */
	s->total_cost = o->part == PLUMB_NONE && p->points_info.total_cost ? p->points_info.total_cost
									    : s->total_self;
	size_t nranks;
	if (path_ranks(s, &ranks, &nranks))
		goto nomem;
	if (ranks)
		for (size_t i = 0; i < n; i++) {
			plumb_id ctx = p->points.v[keys[i].idx].context;
			keys[i].rank = ctx != PLUMB_NONE ? ranks[ctx] : 0;
		}
	size_t nb = p->functions.n > nranks ? p->functions.n : nranks;
	if (nb < 256)
		nb = 256;
	if (!(tmp = malloc((n ? n : 1) * sizeof *tmp)) || !(count = malloc((nb + 1) * sizeof *count)))
		goto nomem;
	const sort_key *sorted = sort_keys(keys, tmp, n, p->functions.n, nranks, count);
	/* the profile's points where they stand alone (no copy of a million
	 * of them), a merged copy where equal ones meet */
	size_t nmerged = 0;
	for (size_t i = 1; i < n; i++)
		nmerged += same_key(&sorted[i - 1], &sorted[i]) &&
			   (i < 2 || !same_key(&sorted[i - 2], &sorted[i - 1]));
	if (!(s->pts = malloc((n ? n : 1) * sizeof *s->pts)) ||
	    !(s->merged = malloc((nmerged ? nmerged : 1) * sizeof *s->merged)))
		goto nomem;
	size_t used = 0;
	for (size_t i = 0; i < n; i++) {
		const plumb_point *pt = &p->points.v[sorted[i].idx];
		if (i && same_key(&sorted[i - 1], &sorted[i])) {
			if (i < 2 || !same_key(&sorted[i - 2], &sorted[i - 1])) {
				s->merged[used] = *s->pts[s->npts - 1];
				s->pts[s->npts - 1] = &s->merged[used++];
			}
			if (plumb_point_combine(&s->merged[used - 1], pt, err))
				goto fail;
			continue;
		}
		s->pts[s->npts++] = pt;
	}
	assert(used == nmerged);
	sort_ctx c = { p, s->paths, by_context };
	if (make_groups(p, s, &c, err))
		goto fail;
	free(keys);
	free(tmp);
	free(ranks);
	free(count);
	free(memo);
	return 0;
nomem:
	plumb_fail_nomem(err);
fail:
	free(keys);
	free(tmp);
	free(ranks);
	free(count);
	free(memo);
	points_set_free(s);
	return -1;
}

void points_set_free(points_set *s)
{
	for (size_t i = 0; s->paths && i < s->npaths; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s->pts);
	free(s->merged);
	free(s->groups);
	memset(s, 0, sizeof *s);
}
