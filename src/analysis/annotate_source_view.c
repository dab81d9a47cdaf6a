/* plumb annotate, the view of the sources: which files are annotated, which
 * of their lines are shown with which costs and calls. Files come in name
 * order (callgrind_annotate's is Perl hash order, i.e. random); a function's
 * inlined lines are annotated in the file they were inlined from.
 *
 * The view reads the source files, not the writer: whether a costed line
 * exists (or lies past the end of an edited file) decides what the
 * "events annotated" total holds and which lines are reported as past the
 * end, and that is the view's business. The writer gets the lines' text. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/annotate_view.h"

/* One line key of the line-level metrics, with its file's shown name. */
typedef struct line_ent {
	const char *file;
	uint32_t line;
	uint32_t key;
} line_ent;

/* One callee called from a source line. */
typedef struct call_ent {
	plumb_id callee;
	const char *name;
	uint64_t calls;
	uint64_t *v;          /* cost of the calls from this line */
	uint64_t *z;          /* the zeros written there (zl's callee_attr) */
	uint64_t *order;      /* the whole function's calls to the callee: the sort key */
	bool recursive;       /* some of the calls are recursive */
} call_ent;

typedef struct src_state {
	ann_view *v;
	line_ent *ents;        /* every line key, by file name then line */
	size_t nents;
	uint64_t *printed;     /* the cost of the lines shown, per event */
	uint64_t *printed_zeros; /* and the zeros written there */
	bool did_annotate;
	plumb_ann_file *files;
	const char **unfound;
	size_t nunfound;
} src_state;

static int cmp_ents(const void *a, const void *b)
{
	const line_ent *x = a, *y = b;
	int r = strcmp(x->file, y->file);
	if (r)
		return r;
	return x->line < y->line ? -1 : x->line > y->line ? 1 : (x->key > y->key) - (x->key < y->key);
}

static int cmp_strs(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_calls(const void *a, const void *b, void *ctx)
{
	const call_ent *x = a, *y = b;
	int r = ann_cmp_costs(ctx, x->order, y->order);
	return r ? r : strcmp(x->name, y->name);
}

/* The entries of one file: [*lo, *hi). */
static void file_range(const src_state *s, const char *file, size_t *lo, size_t *hi)
{
	size_t a = 0, b = s->nents;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (strcmp(s->ents[mid].file, file) < 0)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	while (a < s->nents && strcmp(s->ents[a].file, file) == 0)
		a++;
	*hi = a;
}

static bool is_zero(const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i])
			return false;
	return true;
}

/* ---- which files -------------------------------------------------------- */

/* The files to annotate, sorted and without duplicates: the user's, and
 * with --auto those of the listed functions (their own file and every file
 * their code was inlined from), but never "???". Names are borrowed. */
static const char **files_to_annotate(src_state *s, size_t *n)
{
	ann_view *v = s->v;
	size_t cap = v->o->n_user + v->p->functions.n + s->nents + 1;
	const char **names = calloc(cap, sizeof *names);
	*n = 0;
	if (!names)
		return NULL;
	for (size_t i = 0; i < v->o->n_user; i++)
		names[(*n)++] = v->o->user_files[i];
	for (plumb_id f = 0; v->o->auto_annotate && f < v->p->functions.n; f++) {
		const char *name = ann_file_name(v, v->p->functions.v[f].file);
		if (v->listed[f] && strcmp(name, "???"))
			names[(*n)++] = name;
	}
	for (size_t i = 0; v->o->auto_annotate && i < s->nents; i++) {
		const plumb_key *k = &v->lm->keys[s->ents[i].key];
		if (!v->listed[k->function] || !strcmp(s->ents[i].file, "???") ||
		    is_zero(plumb_metrics_excl(v->lm, s->ents[i].key), v->nev))
			continue;
		names[(*n)++] = s->ents[i].file;
	}
	if (*n)
		qsort(names, *n, sizeof *names, cmp_strs);
	size_t out = 0;
	for (size_t i = 0; i < *n; i++)
		if (!out || strcmp(names[out - 1], names[i]))
			names[out++] = names[i];
	*n = out;
	return names;
}

static bool is_user_file(const ann_view *v, const char *name)
{
	for (size_t i = 0; i < v->o->n_user; i++)
		if (strcmp(v->o->user_files[i], name) == 0)
			return true;
	return false;
}

/* ---- finding a source --------------------------------------------------- */

/* A regular file opened for reading, or NULL (fopen opens directories). */
static FILE *open_regular(const char *path)
{
	struct stat st;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return NULL;
	return fopen(path, "r");
}

/* Open name as given, then under each -I dir, then (relative names only)
 * beside the profile. shown gets the name for the header: "DIR/ + name"
 * when a directory was used, as callgrind_annotate writes it. */
static FILE *open_source(const ann_view *v, const char *name, char **path, char **shown)
{
	FILE *f = open_regular(name);
	*path = *shown = NULL;
	if (f) {
		*path = strdup(name);
		*shown = strdup(name);
		if (*path && *shown)
			return f;
		fclose(f);
		free(*path);
		free(*shown);
		*path = *shown = NULL;
		return NULL;
	}
	size_t ndirs = v->o->n_include;
	char *pdir = NULL;
	if (name[0] != '/' && v->o->profile_path && strchr(v->o->profile_path, '/')) {
		pdir = strdup(v->o->profile_path);
		if (pdir)
			*strrchr(pdir, '/') = '\0';
	}
	for (size_t i = 0; i <= ndirs && !f; i++) {
		const char *dir = i < ndirs ? v->o->include_dirs[i] : pdir;
		if (!dir)
			continue;
		size_t len = strlen(dir);
		if (len && dir[len - 1] == '/') /* one '/' off, as in the header */
			len--;
		size_t n = len + strlen(name) + 8;
		char *p = malloc(n), *sh = malloc(n + 4);
		if (!p || !sh) {
			free(p);
			free(sh);
			break;
		}
		snprintf(p, n, "%.*s/%s", (int)len, dir, name);
		snprintf(sh, n + 4, "%.*s/ + %s", (int)len, dir, name);
		if ((f = open_regular(p))) {
			*path = p;
			*shown = sh;
		} else {
			free(p);
			free(sh);
		}
	}
	free(pdir);
	return f;
}

/* ---- one file ----------------------------------------------------------- */

typedef struct file_lines {
	uint32_t *lines;       /* costed lines, ascending, without 0 */
	uint64_t *costs;       /* per line: nev values */
	uint64_t *zeros;       /* per line: the zeros written (zl), or NULL */
	size_t n;
	uint64_t *unknown;     /* line 0, or NULL */
	uint64_t *unknown_zeros;
} file_lines;

static void file_lines_free(file_lines *fl)
{
	free(fl->lines);
	free(fl->costs);
	free(fl->zeros);
	free(fl->unknown);
	free(fl->unknown_zeros);
}

static bool is_zero(const uint64_t *v, size_t n);

/* A line is costed when it has a cost or a zero written. */
static bool costed(const uint64_t *sum, const uint64_t *zsum, size_t n)
{
	return !is_zero(sum, n) || !is_zero(zsum, n);
}

/* Sum the line keys of entries [lo, hi) per line. */
static int collect_lines(const src_state *s, size_t lo, size_t hi, file_lines *fl)
{
	const ann_view *v = s->v;
	size_t nev = v->nev, cap = hi - lo + 1;
	*fl = (file_lines){ 0 };
	fl->lines = calloc(cap, sizeof *fl->lines);
	fl->costs = calloc(cap * nev, sizeof *fl->costs);
	fl->zeros = v->zl ? calloc(cap * nev, sizeof *fl->zeros) : NULL;
	if (!fl->lines || !fl->costs || (v->zl && !fl->zeros))
		return -1;
	for (size_t i = lo; i < hi;) {
		uint32_t line = s->ents[i].line;
		size_t j = i;
		uint64_t sum[nev], zsum[nev];
		memset(sum, 0, sizeof sum);
		memset(zsum, 0, sizeof zsum);
		for (; j < hi && s->ents[j].line == line; j++) {
			const uint64_t *e = plumb_metrics_excl(v->lm, s->ents[j].key);
			const uint64_t *z = ann_zeros(v->zl, ANN_EXCL, s->ents[j].key);
			for (size_t k = 0; k < nev; k++) {
				sum[k] += e[k];
				zsum[k] += z ? z[k] : 0;
			}
		}
		if (!costed(sum, zsum, nev)) {
			i = j;
			continue;
		}
		if (line == 0) {
			if (!(fl->unknown = malloc(sizeof sum)) || !(fl->unknown_zeros = malloc(sizeof zsum)))
				return -1;
			memcpy(fl->unknown, sum, sizeof sum);
			memcpy(fl->unknown_zeros, zsum, sizeof zsum);
		} else {
			fl->lines[fl->n] = line;
			memcpy(fl->costs + fl->n * nev, sum, sizeof sum);
			if (fl->zeros)
				memcpy(fl->zeros + fl->n * nev, zsum, sizeof zsum);
			fl->n++;
		}
		i = j;
	}
	return 0;
}

/* The entries [lo, hi) of one file line, for the "=>" lines of any line
 * (costed or not). */
static void line_entries(const src_state *s, size_t flo, size_t fhi, uint32_t line, size_t *lo,
			 size_t *hi)
{
	size_t a = flo, b = fhi;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (s->ents[mid].line < line)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	while (a < fhi && s->ents[a].line == line)
		a++;
	*hi = a;
}

/* The function-level arc caller -> callee, or UINT32_MAX. */
static uint32_t fn_arc(const ann_view *v, plumb_id caller, plumb_id callee)
{
	const plumb_metrics *m = v->fm;
	uint32_t k = v->fn_key[caller], ck = v->fn_key[callee];
	if (k == UINT32_MAX || ck == UINT32_MAX)
		return UINT32_MAX;
	for (uint32_t i = m->out_start[k]; i < m->out_start[k + 1]; i++)
		if (m->arcs[m->out_arcs[i]].callee == ck)
			return m->out_arcs[i];
	return UINT32_MAX;
}

/* Is the function-level arc a recursive call (inside an SCC)? */
static bool arc_recursive(const ann_view *v, uint32_t a)
{
	return a != UINT32_MAX && v->fm->arc_in_scc && v->fm->arc_in_scc[a];
}

/* Add line-level arc a (from a line of function from) to the callee's
 * entry in e[0 .. *n), creating it; each arc is capped on its own, as its
 * function-level arc is. */
static int add_line_arc(src_state *s, plumb_id from, uint32_t a, call_ent *e, size_t *n,
			uint64_t *costs, uint64_t *zeros)
{
	ann_view *v = s->v;
	const plumb_metrics *m = v->lm;
	plumb_id callee = m->keys[m->arcs[a].callee].function;
	size_t x = 0;
	while (x < *n && e[x].callee != callee)
		x++;
	if (x == *n) {
		e[x] = (call_ent){ callee, ann_fn_name(v, callee), 0, costs + 2 * x * v->nev,
				   zeros + x * v->nev, costs + (2 * x + 1) * v->nev, false };
		if (!e[x].name)
			return -1;
		(*n)++;
	}
	uint64_t calls = m->arcs[a].calls;
	e[x].calls = calls == PLUMB_COUNT_UNKNOWN || e[x].calls == PLUMB_COUNT_UNKNOWN
			     ? PLUMB_COUNT_UNKNOWN : e[x].calls + calls;
	uint32_t fa = fn_arc(v, from, callee);
	uint64_t capped[v->nev];
	ann_arc_costs(v, fa, m->callee_attr + (size_t)a * m->nevents, capped);
	const uint64_t *z = ann_zeros(v->zl, ANN_CALLEE_ATTR, a);
	for (size_t i = 0; i < v->nev; i++) {
		e[x].v[i] += capped[i];
		e[x].z[i] += z ? z[i] : 0;
	}
	e[x].recursive |= arc_recursive(v, fa);
	return 0;
}

/* Where recursive calls were summed with others, the sum too stays within
 * the callee's inclusive cost. */
static void cap_recursive(const ann_view *v, call_ent *e)
{
	uint32_t k = v->fn_key[e->callee];
	if (!e->recursive || k == UINT32_MAX)
		return;
	const uint64_t *incl = plumb_metrics_incl(v->fm, k);
	for (size_t i = 0; i < v->nev; i++)
		if (e->v[i] > incl[i])
			e->v[i] = incl[i];
}

/* The "=>" lines of a source line: its calls, summed per callee, in the
 * order of the whole function's calls to each callee. */
static int line_calls(src_state *s, size_t lo, size_t hi, plumb_ann_line *line)
{
	ann_view *v = s->v;
	const plumb_metrics *m = v->lm;
	size_t n = 0, cap = 0;
	for (size_t i = lo; i < hi; i++)
		cap += m->out_start[s->ents[i].key + 1] - m->out_start[s->ents[i].key];
	if (!cap)
		return 0;
	call_ent *e = calloc(cap, sizeof *e);
	uint64_t *costs = calloc(2 * cap * v->nev, sizeof *costs);
	uint64_t *zeros = calloc(cap * v->nev, sizeof *zeros);
	plumb_ann_call *calls = ann_alloc(v->a, cap, sizeof *calls);
	int rc = -1;
	if (!e || !costs || !zeros || !calls)
		goto out;
	for (size_t i = lo; i < hi; i++) {
		uint32_t k = s->ents[i].key;
		for (uint32_t j = m->out_start[k]; j < m->out_start[k + 1]; j++)
			if (add_line_arc(s, m->keys[k].function, m->out_arcs[j], e, &n, costs, zeros))
				goto out;
	}
	const plumb_metrics *fm = v->fm;
	plumb_id caller = m->keys[s->ents[lo].key].function;
	for (size_t x = 0; x < n; x++) {
		uint32_t a = fn_arc(v, caller, e[x].callee);
		const uint64_t *whole = a == UINT32_MAX ? e[x].v : fm->callee_attr + (size_t)a * fm->nevents;
		ann_arc_costs(v, a, whole, e[x].order);
		cap_recursive(v, &e[x]);
	}
	qsort_r(e, n, sizeof *e, cmp_calls, v);
	for (size_t x = 0; x < n; x++) {
		calls[x] = (plumb_ann_call){ e[x].name, NULL, e[x].calls,
					     ann_cost(v, e[x].v, v->zl ? e[x].z : NULL) };
		if (!calls[x].cost)
			goto out;
	}
	line->calls = calls;
	line->ncalls = n;
	rc = 0;
out:
	free(e);
	free(costs);
	free(zeros);
	return rc;
}

static bool newer_than_profile(const ann_view *v, const char *path)
{
	struct stat a, b;
	if (!v->o->profile_path || stat(path, &a) || stat(v->o->profile_path, &b))
		return false;
	return a.st_mtime > b.st_mtime;
}

/* Reads lines the way Perl's <FH> and $. do: lineno counts lines read and
 * stops moving at end of file. */
typedef struct reader {
	FILE *f;
	char *buf;
	size_t cap, len;
	uint64_t lineno;
} reader;

static bool read_line(reader *r)
{
	ssize_t n = getline(&r->buf, &r->cap, r->f);
	if (n < 0)
		return false;
	r->len = (size_t)n;
	r->lineno++;
	return true;
}

/* One source line read, with its cost (when costed) and calls. */
static int add_line(src_state *s, reader *r, const file_lines *fl, size_t *next, size_t flo,
		    size_t fhi, plumb_ann_line *line)
{
	ann_view *v = s->v;
	*line = (plumb_ann_line){ r->lineno, ann_strndup(v->a, r->buf, r->len), r->len };
	if (!line->text)
		return -1;
	if (*next < fl->n && fl->lines[*next] == r->lineno) {
		const uint64_t *c = fl->costs + *next * v->nev;
		const uint64_t *z = fl->zeros ? fl->zeros + *next * v->nev : NULL;
		for (size_t e = 0; e < v->nev; e++) {
			s->printed[e] += c[e];
			s->printed_zeros[e] += z ? z[e] : 0;
		}
		if (!(line->cost = ann_cost(v, c, z)))
			return -1;
		(*next)++;
	}
	size_t lo, hi;
	line_entries(s, flo, fhi, (uint32_t)r->lineno, &lo, &hi);
	if (r->lineno <= UINT32_MAX && lo < hi)
		return line_calls(s, lo, hi, line);
	return 0;
}

static int grow_lines(plumb_ann_line **lines, size_t *cap)
{
	size_t nc = *cap ? *cap * 2 : 64;
	plumb_ann_line *nl = realloc(*lines, nc * sizeof *nl);
	if (!nl)
		return -1;
	*lines = nl;
	*cap = nc;
	return 0;
}

/* The ranges of one file, each source line with its cells and calls.
 * *shown: how many costed lines were read (the rest lie past the end). */
static int read_ranges(src_state *s, reader *r, const file_lines *fl, size_t flo, size_t fhi,
		       plumb_ann_file *file, size_t *shown, plumb_ann_line **lines, size_t *lines_cap)
{
	ann_view *v = s->v;
	uint64_t *pairs = calloc(2 * fl->n + 2, sizeof *pairs);
	plumb_ann_range *ranges = ann_alloc(v->a, fl->n + 1, sizeof *ranges);
	if (!pairs || !ranges) {
		free(pairs);
		return -1;
	}
	size_t np = plumb_ann_ranges(fl->lines, fl->n, v->o->context, pairs);
	size_t next = 0; /* the next costed line to meet */
	file->ranges = ranges;
	for (size_t i = 0; i < np; i++) {
		plumb_ann_range *rg = &ranges[file->nranges++];
		rg->low = pairs[2 * i];
		rg->high = pairs[2 * i + 1];
		while (r->lineno + 1 < rg->low && read_line(r))
			;
		bool got = false;
		size_t n = 0;
		while (r->lineno < rg->high && (got = read_line(r))) {
			/* the lines of a range are few, however wide the context */
			if (n == *lines_cap && grow_lines(lines, lines_cap))
				goto fail;
			if (add_line(s, r, fl, &next, flo, fhi, &(*lines)[n++]))
				goto fail;
		}
		plumb_ann_line *kept = ann_alloc(v->a, n + 1, sizeof *kept);
		if (!kept)
			goto fail;
		memcpy(kept, *lines, n * sizeof *kept);
		rg->lines = kept;
		rg->n = n;
		if (!got) {
			rg->cut = true;
			break;
		}
	}
	free(pairs);
	*shown = next;
	return 0;
fail:
	free(pairs);
	return -1;
}

/* The costs past the end of the file, and the warning that goes with them. */
static int past_end(src_state *s, const file_lines *fl, size_t from, plumb_ann_file *file,
		    const char *path)
{
	ann_view *v = s->v;
	size_t n = fl->n - from;
	uint32_t *lines = ann_alloc(v->a, n, sizeof *lines);
	const uint64_t **costs = ann_alloc(v->a, n, sizeof *costs);
	if (!lines || !costs)
		return -1;
	for (size_t i = 0; i < n; i++) {
		lines[i] = fl->lines[from + i];
		if (!(costs[i] = ann_cost(v, fl->costs + (from + i) * v->nev,
					  fl->zeros ? fl->zeros + (from + i) * v->nev : NULL)))
			return -1;
	}
	file->past_end = lines;
	file->past_end_cost = costs;
	file->npast_end = n;
	if (v->o->warn) {
		char msg[600];
		snprintf(msg, sizeof msg, "%.500s: costs recorded past the end of the file", path);
		v->o->warn(v->o->warn_ctx, msg);
	}
	return 0;
}

/* The lines of one found file with costs: ranges, lines past the end,
 * line 0. -1 on ENOMEM. */
static int read_file(src_state *s, FILE *f, const char *path, size_t lo, size_t hi,
		     plumb_ann_file *file)
{
	ann_view *v = s->v;
	file_lines fl = { 0 };
	reader r = { f, NULL, 0, 0, 0 };
	plumb_ann_line *lines = NULL; /* one range's lines, while it is read */
	size_t shown = 0, lines_cap = 0;
	int rc = -1;
	if (collect_lines(s, lo, hi, &fl))
		goto out;
	file->newer = newer_than_profile(v, path);
	if (read_ranges(s, &r, &fl, lo, hi, file, &shown, &lines, &lines_cap))
		goto out;
	if (shown < fl.n && past_end(s, &fl, shown, file, path))
		goto out;
	if (fl.unknown && !(file->unknown = ann_cost(v, fl.unknown, fl.unknown_zeros)))
		goto out;
	rc = 0;
out:
	file_lines_free(&fl);
	free(lines);
	free(r.buf);
	return rc;
}

static int annotate_file(src_state *s, const char *name, plumb_error *err)
{
	ann_view *v = s->v;
	plumb_annotation *a = v->a;
	char *path, *shown;
	FILE *f = open_source(v, name, &path, &shown);
	bool user = is_user_file(v, name);
	if (!f) {
		if (user)
			return plumb_fail(err, PLUMB_ERR_IO, "%s: source file not found", name);
		if (!(s->unfound[s->nunfound++] = ann_strdup(a, name)))
			return plumb_fail_nomem(err);
		return 0;
	}
	plumb_ann_file *file = &s->files[a->nfiles++];
	*file = (plumb_ann_file){ ann_strdup(a, name), ann_strdup(a, shown), user };
	size_t lo, hi;
	int rc = !file->name || !file->shown ? -1 : 0;
	file_range(s, name, &lo, &hi);
	if (!rc && lo < hi) {
		file->has_costs = true;
		s->did_annotate = true;
		rc = read_file(s, f, path, lo, hi, file);
	}
	fclose(f);
	free(path);
	free(shown);
	return rc ? plumb_fail_nomem(err) : 0;
}

/* ---- after the files ---------------------------------------------------- */

/* The share of each event that the shown lines hold. Where the lines hold
 * more than the total (non-additive costs) the lines are the 100% of that
 * line and of the disassembly. */
static int annotated_total(src_state *s)
{
	ann_view *v = s->v;
	uint64_t late[v->nev];
	memcpy(late, v->total, sizeof late);
	if (s->did_annotate) {
		for (size_t e = 0; e < v->nev; e++)
			if (late[e] == 0 || s->printed[e] > late[e])
				late[e] = s->printed[e];
		if (!(v->a->annotated = ann_cost(v, s->printed, s->printed_zeros)))
			return -1;
	}
	return (v->a->late_total = ann_cost(v, late, NULL)) ? 0 : -1;
}

static int build_index(src_state *s)
{
	ann_view *v = s->v;
	const plumb_metrics *lm = v->lm;
	s->ents = calloc(lm->nkeys + 1, sizeof *s->ents);
	s->printed = calloc(v->nev, sizeof *s->printed);
	s->printed_zeros = calloc(v->nev, sizeof *s->printed_zeros);
	if (!s->ents || !s->printed || !s->printed_zeros)
		return -1;
	for (size_t k = 0; k < lm->nkeys; k++) {
		const plumb_key *key = &lm->keys[k];
		if (key->function == PLUMB_NONE)
			continue;
		s->ents[s->nents++] = (line_ent){ ann_file_name(v, key->file), key->line, (uint32_t)k };
	}
	qsort(s->ents, s->nents, sizeof *s->ents, cmp_ents);
	return 0;
}

int ann_check_user_files(const ann_view *v, plumb_error *err)
{
	for (size_t i = 0; i < v->o->n_user; i++) {
		char *path, *shown;
		FILE *f = open_source(v, v->o->user_files[i], &path, &shown);
		if (!f)
			return plumb_fail(err, PLUMB_ERR_IO, "%s: source file not found as given%s",
					  v->o->user_files[i], v->o->n_include ? " nor in the -I dirs" : "");
		fclose(f);
		free(path);
		free(shown);
	}
	return 0;
}

int ann_view_sources(ann_view *v, plumb_error *err)
{
	plumb_annotation *a = v->a;
	src_state s = { .v = v };
	const char **files = NULL;
	size_t nfiles = 0;
	int rc = -1;
	if (build_index(&s) || !(files = files_to_annotate(&s, &nfiles)) ||
	    !(s.files = ann_alloc(a, nfiles + 1, sizeof *s.files)) ||
	    !(s.unfound = ann_alloc(a, nfiles + 1, sizeof *s.unfound))) {
		plumb_fail_nomem(err);
		goto out;
	}
	a->files = s.files;
	a->unfound = s.unfound;
	for (size_t i = 0; i < nfiles; i++)
		if (annotate_file(&s, files[i], err))
			goto out;
	a->nunfound = s.nunfound;
	if (annotated_total(&s)) {
		plumb_fail_nomem(err);
		goto out;
	}
	rc = 0;
out:
	free(files);
	free(s.ents);
	free(s.printed);
	free(s.printed_zeros);
	return rc;
}

size_t plumb_ann_ranges(const uint32_t *lines, size_t n, uint32_t context, uint64_t *out)
{
	size_t np = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t low = (int64_t)lines[i] - context;
		while (i + 1 < n && (uint64_t)lines[i] + 2 * (uint64_t)context >= lines[i + 1])
			i++;
		out[2 * np] = low < 1 ? 1 : (uint64_t)low;
		out[2 * np + 1] = (uint64_t)lines[i] + context;
		np++;
	}
	return np;
}
