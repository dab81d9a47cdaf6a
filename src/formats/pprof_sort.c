/* The order a pprof file's samples are added to the tree in (see
 * pprof_internal.h): a multikey quicksort over their parts and frames, on
 * two threads for many samples (jobs.h). */
#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>

#include "formats/jobs.h"
#include "formats/pprof_internal.h"
#include "model/index.h"


/* Symbol d of a sample: its part, then its frames + 1, then 0. The item
 * keeps the next frames beside it: one cache miss for four passes of the
 * sort instead of one a pass. */
static inline uint32_t sym(const plumb_id *fr, sitem *e, size_t d)
{
	if (d == 0)
		return e->part;
	size_t j = d - 1;
	if (j >= e->n)
		return 0;
	if (j - e->base >= 4) {
		e->base = (uint32_t)j;
		for (size_t k = 0; k < 4 && j + k < e->n; k++)
			e->c[k] = fr[e->off + j + k] + 1;
	}
	return e->c[j - e->base];
}

static int cmp_from(const plumb_id *fr, sitem *a, sitem *b, size_t d)
{
	for (;; d++) {
		uint32_t x = sym(fr, a, d), y = sym(fr, b, d);
		if (x != y)
			return x < y ? -1 : 1;
		if (x == 0 && d > 0)
			return a->i < b->i ? -1 : a->i > b->i;
	}
}

static int cmp_item(const void *a, const void *b)
{
	uint32_t x = ((const sitem *)a)->i, y = ((const sitem *)b)->i;
	return x < y ? -1 : x > y;
}

/* Three ways around the median of three of symbol d: [0, *lt) below,
 * [*lt, *gt) equal, [*gt, n) above; *piv is the symbol. n >= 3. */
static void partition(const plumb_id *fr, sitem *a, size_t n, size_t d, size_t *lt_out,
		      size_t *gt_out, uint32_t *piv_out)
{
	uint32_t x = sym(fr, &a[0], d), y = sym(fr, &a[n / 2], d), z = sym(fr, &a[n - 1], d);
	uint32_t piv = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
	size_t lt = 0, i = 0, gt = n;
	while (i < gt) {
		uint32_t v = sym(fr, &a[i], d);
		sitem t = a[i];
		if (v < piv) {
			a[i++] = a[lt];
			a[lt++] = t;
		} else if (v > piv) {
			a[i] = a[--gt];
			a[gt] = t;
		} else {
			i++;
		}
	}
	*lt_out = lt;
	*gt_out = gt;
	*piv_out = piv;
}

void pprof_sort_stacks(const plumb_id *fr, sitem *a, size_t n, size_t d)
{
	while (n > 1) {
		if (n < 12) {
			for (size_t i = 1; i < n; i++)
				for (size_t j = i; j > 0 && cmp_from(fr, &a[j - 1], &a[j], d) > 0; j--) {
					sitem t = a[j];
					a[j] = a[j - 1];
					a[j - 1] = t;
				}
			return;
		}
		size_t lt, gt;
		uint32_t piv;
		partition(fr, a, n, d, &lt, &gt, &piv);
		size_t ne = gt - lt, ng = n - gt;
		bool done = piv == 0 && d > 0; /* the equal ones end here: file order */
		if (done)
			qsort(a + lt, ne, sizeof *a, cmp_item);
		/* the two smaller parts recursively (each at most n / 2: the
		 * depth stays under log2 n), the largest in this loop */
		if (lt >= ne && lt >= ng) {
			if (!done)
				pprof_sort_stacks(fr, a + lt, ne, d + 1);
			pprof_sort_stacks(fr, a + gt, ng, d);
			n = lt;
		} else if (ng >= ne) {
			if (!done)
				pprof_sort_stacks(fr, a + lt, ne, d + 1);
			pprof_sort_stacks(fr, a, lt, d);
			a += gt;
			n = ng;
		} else {
			pprof_sort_stacks(fr, a, lt, d);
			pprof_sort_stacks(fr, a + gt, ng, d);
			if (done)
				return;
			a += lt;
			n = ne;
			d++;
		}
	}
}

/* ---- on two threads ---------------------------------------------------- */

typedef struct sort_job {
	plumb_job job;
	const plumb_id *fr;
	sitem *a;
	size_t n, d;
} sort_job;

static void run_sort(plumb_job *job, unsigned worker)
{
	sort_job *s = (sort_job *)job;
	(void)worker;
	pprof_sort_stacks(s->fr, s->a, s->n, s->d);
}

void pprof_sort_stacks_2(const plumb_id *fr, sitem *a, size_t n)
{
	if (n < PPROF_SORT_PAR) {
		pprof_sort_stacks(fr, a, n, 0);
		return;
	}
	plumb_jobs q;
	plumb_jobs_start(&q);
	sort_job sj = { .job.run = run_sort, .fr = fr };
	size_t d = 0;
	/* split the way the sort does until a part holds at most three
	 * quarters of what is left: that part is the helper's */
	while (!sj.a && n >= 12) {
		size_t lt, gt;
		uint32_t piv;
		partition(fr, a, n, d, &lt, &gt, &piv);
		bool done = piv == 0 && d > 0;
		if (done)
			qsort(a + lt, gt - lt, sizeof *a, cmp_item);
		/* the parts: below, equal (one symbol further on), above */
		sitem *pa[3] = { a, a + lt, a + gt };
		size_t pn[3] = { lt, done ? 0 : gt - lt, n - gt }, pd[3] = { d, d + 1, d };
		int big = pn[0] >= pn[1] && pn[0] >= pn[2] ? 0 : pn[1] >= pn[2] ? 1 : 2;
		if (pn[big] <= n / 4 * 3) {
			sj.a = pa[big], sj.n = pn[big], sj.d = pd[big];
			plumb_jobs_add(&q, &sj.job);
		}
		for (int k = 0; k < 3; k++)
			if (k != big)
				pprof_sort_stacks(fr, pa[k], pn[k], pd[k]);
		a = pa[big], n = pn[big], d = pd[big];
	}
	if (!sj.a)
		pprof_sort_stacks(fr, a, n, d);
	plumb_jobs_wait(&q);
}

/* ---- no sort: the file's order, when it is grouped -------------------- */

/* Only the nodes on the current path can take children, one a depth, and
 * a node that leaves the path never comes back: so "node has a child at
 * frame" is exactly taken[depth][frame] == node + 1, with no entry ever
 * cleared. The table is depth x frames, its pages zeroed as first touched;
 * past TAKEN_MOST entries the samples are sorted instead. */
#define TAKEN_MOST ((size_t)1 << 25)

/* May frame become a new child of node, which has children? row is the
 * table's row of node's depth. true: no, it has one at frame (the samples
 * are not grouped). */
static bool child_taken(const plumb_profile *p, uint32_t *row, plumb_id node, plumb_id frame)
{
	plumb_id c = p->cct.v[node].first_child;
	if (p->cct.v[c].next_sibling == PLUMB_NONE) { /* its first branch: note the one before */
		if (p->cct.v[c].frame == frame)
			return true;
		row[p->cct.v[c].frame] = node + 1;
	}
	if (row[frame] == node + 1)
		return true;
	row[frame] = node + 1;
	return false;
}

int pprof_tree_grouped(plumb_profile *p, const plumb_id *fr, const size_t *off,
		       const plumb_id *part, size_t ns, size_t maxn, plumb_id *node_of,
		       plumb_id *nodes)
{
	for (size_t k = 0; k < p->parts.n; k++)
		if (p->cct.v[p->parts.v[k].root].first_child != PLUMB_NONE)
			return 0;
	size_t nf = p->frames.n ? p->frames.n : 1;
	if (maxn >= TAKEN_MOST / nf)
		return 0;
	size_t had_n = p->cct.n;
	uint32_t *taken = calloc((maxn + 1) * nf, sizeof *taken);
	/* the parts one after the other: a part's root stays open while
	 * another's samples come, and the table cannot tell two roots apart */
	bool *done = calloc(p->parts.n ? p->parts.n : 1, sizeof *done);
	int rc = taken && done ? 1 : -1;
	plumb_id cur = PLUMB_NONE;
	const plumb_id *pf = NULL;
	size_t pn = 0;
	for (size_t i = 0; i < ns && rc == 1; i++) {
		const plumb_id *f = fr + off[i];
		size_t n = off[i + 1] - off[i], d = 0;
		assert(n <= maxn);
		if (part[i] != cur) {
			if (cur != PLUMB_NONE)
				done[cur] = true;
			cur = part[i];
			if (done[cur]) {
				rc = 0;
				break;
			}
			nodes[0] = p->parts.v[cur].root;
			pn = 0;
		}
		while (d < n && d < pn && f[d] == pf[d])
			d++;
		/* nodes[0 .. d] are the path the two samples share, all still
		 * open; a child of nodes[d] it has already is one left before */
		if (d < n) {
			if (p->cct.v[nodes[d]].first_child != PLUMB_NONE &&
			    child_taken(p, taken + d * nf, nodes[d], f[d]))
				rc = 0;
			else if (plumb_cct_new_path(p, nodes[d], f + d, n - d, nodes + d + 1))
				rc = -1;
		}
		node_of[i] = nodes[n];
		pf = f;
		pn = n;
	}
	free(taken);
	free(done);
	if (rc == 1)
		return 1;
	plumb_cct_truncate(p, had_n); /* not grouped: the tree as it was */
	return rc;
}
