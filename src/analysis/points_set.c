/* The points a view of an input-sensitive profile shows: filtered by part
 * and routine, then merged by (routine, context path, input size) with the
 * model's own rule, so that parts, and a routine's contexts, add up as
 * aprof merges reports. */
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

static int point_cmp(const void *va, const void *vb, void *ctx)
{
	const sort_ctx *c = ctx;
	const plumb_point *a = &c->p->points.v[*(const uint32_t *)va];
	const plumb_point *b = &c->p->points.v[*(const uint32_t *)vb];
	if (a->function != b->function)
		return a->function < b->function ? -1 : 1;
	const char *pa = path_of(c, a), *pb = path_of(c, b);
	if (pa != pb) {
		if (!pa || !pb)
			return pa ? 1 : -1; /* the routine as a whole first */
		int r = strcmp(pa, pb);
		if (r)
			return r;
	}
	return a->input < b->input ? -1 : a->input > b->input;
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
		const plumb_point *pt = &s->pts[i];
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
	uint32_t *ix = malloc(p->points.n * sizeof *ix);
	uint8_t *memo = calloc(p->functions.n ? p->functions.n : 1, 1);
	if (!ix || !memo)
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
		ix[n++] = (uint32_t)i;
	}
	/* shares are of the run's cost (aprof's k) as aprof-plot's Cost %; of
	 * the self sums when one part is shown or k is not known */
	s->total_cost = o->part == PLUMB_NONE && p->points_info.total_cost ? p->points_info.total_cost
									    : s->total_self;
	sort_ctx c = { p, s->paths, by_context };
	qsort_r(ix, n, sizeof *ix, point_cmp, &c);
	if (!(s->pts = malloc((n ? n : 1) * sizeof *s->pts)))
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		const plumb_point *pt = &p->points.v[ix[i]];
		plumb_point *last = s->npts ? &s->pts[s->npts - 1] : NULL;
		if (last && i && point_cmp(&ix[i - 1], &ix[i], &c) == 0) {
			if (plumb_point_combine(last, pt, err))
				goto fail;
			continue;
		}
		s->pts[s->npts++] = *pt;
	}
	if (make_groups(p, s, &c, err))
		goto fail;
	free(ix);
	free(memo);
	return 0;
nomem:
	plumb_fail_nomem(err);
fail:
	free(ix);
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
	free(s->groups);
	memset(s, 0, sizeof *s);
}
