/* plumb annotate: annotated source files, in callgrind_annotate 3.19's
 * layout. Files come in name order (callgrind_annotate's is Perl hash order,
 * i.e. random); a function's inlined lines are annotated in the file they
 * were inlined from. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/annotate_internal.h"
#include "plumb/output.h"

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
	uint64_t *order;      /* the whole function's calls to the callee: the sort key */
	bool recursive;       /* some of the calls are recursive */
} call_ent;

typedef struct src_state {
	ann_ctx *c;
	line_ent *ents;        /* every line key, by file name then line */
	size_t nents;
	uint32_t *fn_key;      /* function id -> function-level key (or UINT32_MAX) */
	uint64_t *printed;     /* the cost of the lines shown, per event */
	bool did_annotate;
	char **unfound;
	size_t nunfound, unfound_cap;
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

static int add_name(char ***v, size_t *n, size_t *cap, const char *name)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		char **nv = realloc(*v, nc * sizeof *nv);
		if (!nv)
			return -1;
		*v = nv;
		*cap = nc;
	}
	if (!((*v)[*n] = strdup(name)))
		return -1;
	(*n)++;
	return 0;
}

/* The files to annotate, sorted and without duplicates: the user's, and
 * with --auto those of the listed functions (their own file and every file
 * their code was inlined from), but never "???". */
static char **files_to_annotate(src_state *s, size_t *n)
{
	ann_ctx *c = s->c;
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t i = 0; i < c->o->n_user; i++)
		if (add_name(&v, n, &cap, c->o->user_files[i]))
			goto fail;
	for (plumb_id f = 0; c->o->auto_annotate && f < c->p->functions.n; f++) {
		const char *name = ann_file_name(c, c->p->functions.v[f].file);
		if (c->listed[f] && strcmp(name, "???") && add_name(&v, n, &cap, name))
			goto fail;
	}
	for (size_t i = 0; c->o->auto_annotate && i < s->nents; i++) {
		const plumb_key *k = &c->lm->keys[s->ents[i].key];
		if (!c->listed[k->function] || !strcmp(s->ents[i].file, "???") ||
		    is_zero(plumb_metrics_excl(c->lm, s->ents[i].key), c->nev))
			continue;
		if (add_name(&v, n, &cap, s->ents[i].file))
			goto fail;
	}
	if (*n)
		qsort(v, *n, sizeof *v, cmp_strs);
	size_t out = 0;
	for (size_t i = 0; i < *n; i++) {
		if (out && strcmp(v[out - 1], v[i]) == 0) {
			free(v[i]);
			continue;
		}
		v[out++] = v[i];
	}
	*n = out;
	if (!v)
		v = calloc(1, sizeof *v);
	return v;
fail:
	for (size_t i = 0; i < *n; i++)
		free(v[i]);
	free(v);
	return NULL;
}

static bool is_user_file(const ann_ctx *c, const char *name)
{
	for (size_t i = 0; i < c->o->n_user; i++)
		if (strcmp(c->o->user_files[i], name) == 0)
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
static FILE *open_source(const ann_ctx *c, const char *name, char **path, char **shown)
{
	FILE *f = open_regular(name);
	*path = *shown = NULL;
	if (f) {
		*path = strdup(name);
		*shown = strdup(name);
		return f;
	}
	size_t ndirs = c->o->n_include;
	char *pdir = NULL;
	if (name[0] != '/' && c->o->profile_path && strchr(c->o->profile_path, '/')) {
		pdir = strdup(c->o->profile_path);
		if (pdir)
			*strrchr(pdir, '/') = '\0';
	}
	for (size_t i = 0; i <= ndirs && !f; i++) {
		const char *dir = i < ndirs ? c->o->include_dirs[i] : pdir;
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
	if (f && (!*path || !*shown)) {
		fclose(f);
		free(*path);
		free(*shown);
		*path = *shown = NULL;
		return NULL;
	}
	return f;
}

/* ---- one file ----------------------------------------------------------- */

typedef struct file_lines {
	uint32_t *lines;       /* costed lines, ascending, without 0 */
	uint64_t *costs;       /* per line: nev values */
	size_t n;
	uint64_t *unknown;     /* line 0, or NULL */
	size_t *ent_of;        /* per line: its first entry in s->ents */
	size_t *ent_end;
} file_lines;

static void file_lines_free(file_lines *fl)
{
	free(fl->lines);
	free(fl->costs);
	free(fl->unknown);
	free(fl->ent_of);
	free(fl->ent_end);
}

/* Sum the line keys of entries [lo, hi) per line. */
static int collect_lines(const src_state *s, size_t lo, size_t hi, file_lines *fl)
{
	const ann_ctx *c = s->c;
	size_t nev = c->nev, cap = hi - lo + 1;
	*fl = (file_lines){ 0 };
	fl->lines = calloc(cap, sizeof *fl->lines);
	fl->costs = calloc(cap * nev, sizeof *fl->costs);
	fl->ent_of = calloc(cap, sizeof *fl->ent_of);
	fl->ent_end = calloc(cap, sizeof *fl->ent_end);
	if (!fl->lines || !fl->costs || !fl->ent_of || !fl->ent_end)
		return -1;
	for (size_t i = lo; i < hi;) {
		uint32_t line = s->ents[i].line;
		size_t j = i;
		uint64_t sum[nev];
		memset(sum, 0, sizeof sum);
		for (; j < hi && s->ents[j].line == line; j++) {
			const uint64_t *e = plumb_metrics_excl(c->lm, s->ents[j].key);
			for (size_t k = 0; k < nev; k++)
				sum[k] += e[k];
		}
		if (line == 0) {
			if (!is_zero(sum, nev) && !(fl->unknown = malloc(sizeof sum)))
				return -1;
			if (fl->unknown)
				memcpy(fl->unknown, sum, sizeof sum);
		} else if (!is_zero(sum, nev)) {
			fl->lines[fl->n] = line;
			memcpy(fl->costs + fl->n * nev, sum, sizeof sum);
			fl->ent_of[fl->n] = i;
			fl->ent_end[fl->n] = j;
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
static uint32_t fn_arc(const src_state *s, plumb_id caller, plumb_id callee)
{
	const plumb_metrics *m = s->c->fm;
	uint32_t k = s->fn_key[caller], ck = s->fn_key[callee];
	if (k == UINT32_MAX || ck == UINT32_MAX)
		return UINT32_MAX;
	for (uint32_t i = m->out_start[k]; i < m->out_start[k + 1]; i++)
		if (m->arcs[m->out_arcs[i]].callee == ck)
			return m->out_arcs[i];
	return UINT32_MAX;
}

/* Is the function-level arc a recursive call (inside an SCC)? */
static bool arc_recursive(const ann_ctx *c, uint32_t a)
{
	return a != UINT32_MAX && c->fm->arc_in_scc && c->fm->arc_in_scc[a];
}

/* Add line-level arc a (from a line of function from) to the callee's
 * entry in v[0 .. *n), creating it; each arc is capped on its own, as its
 * function-level arc is. */
static int add_line_arc(src_state *s, plumb_id from, uint32_t a, call_ent *v, size_t *n,
			uint64_t *costs)
{
	ann_ctx *c = s->c;
	const plumb_metrics *m = c->lm;
	plumb_id callee = m->keys[m->arcs[a].callee].function;
	size_t x = 0;
	while (x < *n && v[x].callee != callee)
		x++;
	if (x == *n) {
		v[x] = (call_ent){ callee, ann_fn_name(c, callee), 0, costs + 2 * x * c->nev,
				   costs + (2 * x + 1) * c->nev, false };
		if (!v[x].name)
			return -1;
		(*n)++;
	}
	uint64_t calls = m->arcs[a].calls;
	v[x].calls = calls == PLUMB_COUNT_UNKNOWN || v[x].calls == PLUMB_COUNT_UNKNOWN
			     ? PLUMB_COUNT_UNKNOWN : v[x].calls + calls;
	uint32_t fa = fn_arc(s, from, callee);
	uint64_t capped[c->nev];
	ann_arc_costs(c, fa, m->callee_attr + (size_t)a * m->nevents, capped);
	for (size_t e = 0; e < c->nev; e++)
		v[x].v[e] += capped[e];
	v[x].recursive |= arc_recursive(c, fa);
	return 0;
}

/* Where recursive calls were summed with others, the sum too stays within
 * the callee's inclusive cost. */
static void cap_recursive(const src_state *s, call_ent *e)
{
	uint32_t k = s->fn_key[e->callee];
	if (!e->recursive || k == UINT32_MAX)
		return;
	const uint64_t *incl = plumb_metrics_incl(s->c->fm, k);
	for (size_t i = 0; i < s->c->nev; i++)
		if (e->v[i] > incl[i])
			e->v[i] = incl[i];
}

static void print_call_ent(const ann_ctx *c, const call_ent *e, const size_t *widths)
{
	char buf[32];
	ann_cells(c, e->v, widths);
	if (e->calls == PLUMB_COUNT_UNKNOWN)
		fprintf(c->out, " => %s (?x)\n", e->name);
	else
		fprintf(c->out, " => %s (%sx)\n", e->name, plumb_format_u64(e->calls, buf, sizeof buf));
}

/* The "=>" lines after a source line: its calls, summed per callee, in the
 * order of the whole function's calls to each callee. */
static int print_line_calls(src_state *s, size_t lo, size_t hi, const size_t *widths)
{
	ann_ctx *c = s->c;
	const plumb_metrics *m = c->lm;
	size_t n = 0, cap = 0;
	for (size_t i = lo; i < hi; i++)
		cap += m->out_start[s->ents[i].key + 1] - m->out_start[s->ents[i].key];
	if (!cap)
		return 0;
	call_ent *v = calloc(cap, sizeof *v);
	uint64_t *costs = calloc(2 * cap * c->nev, sizeof *costs);
	int rc = -1;
	if (!v || !costs)
		goto out;
	for (size_t i = lo; i < hi; i++) {
		uint32_t k = s->ents[i].key;
		for (uint32_t j = m->out_start[k]; j < m->out_start[k + 1]; j++)
			if (add_line_arc(s, m->keys[k].function, m->out_arcs[j], v, &n, costs))
				goto out;
	}
	const plumb_metrics *fm = c->fm;
	plumb_id caller = m->keys[s->ents[lo].key].function;
	for (size_t x = 0; x < n; x++) {
		uint32_t a = fn_arc(s, caller, v[x].callee);
		const uint64_t *whole = a == UINT32_MAX ? v[x].v : fm->callee_attr + (size_t)a * fm->nevents;
		ann_arc_costs(c, a, whole, v[x].order);
		cap_recursive(s, &v[x]);
	}
	qsort_r(v, n, sizeof *v, cmp_calls, c);
	for (size_t x = 0; x < n; x++)
		print_call_ent(c, &v[x], widths);
	rc = 0;
out:
	free(v);
	free(costs);
	return rc;
}

static const char warn_rule[] =
	"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n";
static const char warn_banner[] =
	"@@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@\n";

static void warn_newer(const ann_ctx *c, const char *name)
{
	fprintf(c->out, "%s%s%s", warn_rule, warn_banner, warn_rule);
	fprintf(c->out, "@ Source file '%s' is more recent than input file '%s'.\n", name,
		c->o->profile_path ? c->o->profile_path : "-");
	fprintf(c->out, "@ Annotations may not be correct.\n%s\n", warn_rule);
}

static void warn_past_end(const ann_ctx *c, const char *name, bool newer)
{
	FILE *out = c->out;
	fprintf(out, "%s%s%s@@\n@@ Information recorded about lines past the end of '%s'.\n@@\n"
		     "@@ Probable cause and solution:\n", warn_rule, warn_banner, warn_rule, name);
	size_t len = strlen(name);
	if (newer)
		fprintf(out, "@@ cause:    '%s' has changed since information was gathered.\n"
			     "@@           If so, a warning will have already been issued about this.\n"
			     "@@ solution: Recompile program and rerun under \"valgrind --cachesim=yes\" to \n"
			     "@@           gather new information.\n", name);
	else if (len >= 2 && strcmp(name + len - 2, ".h") == 0)
		fputs("@@ cause:    bug in the Valgrind's debug info reader that screws up with .h\n"
		      "@@           files sometimes\n@@ solution: none, sorry\n", out);
	else
		fputs("@@ cause:    not sure, sorry\n", out);
	fprintf(out, "@@\n%s", warn_rule);
}

static bool newer_than_profile(const ann_ctx *c, const char *path)
{
	struct stat a, b;
	if (!c->o->profile_path || stat(path, &a) || stat(c->o->profile_path, &b))
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

/* The ranges of one file, each source line with its cells and calls.
 * *shown: how many costed lines were printed (the rest lie past the end). */
static int print_ranges(src_state *s, reader *r, const file_lines *fl, size_t flo, size_t fhi,
			const size_t *widths, size_t *shown)
{
	ann_ctx *c = s->c;
	uint64_t *pairs = calloc(2 * fl->n + 2, sizeof *pairs);
	if (!pairs)
		return -1;
	size_t np = plumb_ann_ranges(fl->lines, fl->n, c->o->context, pairs);
	size_t next = 0; /* the next costed line to meet */
	for (size_t i = 0; i < np; i++) {
		uint64_t low = pairs[2 * i], high = pairs[2 * i + 1];
		while (r->lineno + 1 < low && read_line(r))
			;
		if (low != 1)
			fprintf(c->out, "-- line %llu ----------------------------------------\n",
				(unsigned long long)low);
		bool got = false;
		while (r->lineno < high && (got = read_line(r))) {
			const uint64_t *v = NULL;
			if (next < fl->n && fl->lines[next] == r->lineno) {
				v = fl->costs + next * c->nev;
				for (size_t e = 0; e < c->nev; e++)
					s->printed[e] += v[e];
				next++;
			}
			ann_cells(c, v, widths);
			fputc(' ', c->out);
			fwrite(r->buf, 1, r->len, c->out); /* as read: NUL bytes, no newline at EOF */
			size_t lo, hi;
			line_entries(s, flo, fhi, (uint32_t)r->lineno, &lo, &hi);
			if (r->lineno <= UINT32_MAX && lo < hi && print_line_calls(s, lo, hi, widths)) {
				free(pairs);
				return -1;
			}
		}
		if (!got)
			break;
		fprintf(c->out, "-- line %llu ----------------------------------------\n",
			(unsigned long long)high);
	}
	free(pairs);
	*shown = next;
	return 0;
}

/* The costs past the end of the file, and the warning that goes with them. */
static void print_bogus(const ann_ctx *c, const file_lines *fl, size_t from, const size_t *widths,
			const char *name, const char *path, bool newer)
{
	for (size_t i = from; i < fl->n; i++) {
		ann_cells(c, fl->costs + i * c->nev, widths);
		fprintf(c->out, " <bogus line %u>\n", fl->lines[i]);
	}
	fputc('\n', c->out);
	warn_past_end(c, name, newer);
	if (c->o->warn) {
		char msg[600];
		snprintf(msg, sizeof msg, "%.500s: costs recorded past the end of the file", path);
		c->o->warn(c->o->warn_ctx, msg);
	}
}

/* The body of one found file with costs: warnings, header, ranges, lines
 * past the end, line 0. -1 on ENOMEM. */
static int print_file(src_state *s, FILE *f, const char *name, const char *path, size_t lo,
		      size_t hi)
{
	ann_ctx *c = s->c;
	file_lines fl = { 0 };
	reader r = { f, NULL, 0, 0, 0 };
	size_t *widths = calloc(c->nev, sizeof *widths), shown = 0;
	int rc = -1;
	if (!widths || collect_lines(s, lo, hi, &fl))
		goto out;
	bool newer = newer_than_profile(c, path);
	if (newer)
		warn_newer(c, name);
	ann_widths(c, fl.costs, fl.n, widths);
	for (size_t e = 0; fl.unknown && e < c->nev; e++) {
		size_t w = plumb_ann_cell_width(fl.unknown[e], c->o->show_percs);
		widths[e] = w > widths[e] ? w : widths[e];
	}
	ann_events_header(c, widths);
	fputs("\n\n", c->out);
	if (print_ranges(s, &r, &fl, lo, hi, widths, &shown))
		goto out;
	if (shown < fl.n)
		print_bogus(c, &fl, shown, widths, name, path, newer);
	fputc('\n', c->out);
	if (fl.unknown) {
		ann_cells(c, fl.unknown, widths);
		fprintf(c->out, " <counts for unidentified lines in %s>\n\n", name);
	}
	rc = 0;
out:
	free(widths);
	file_lines_free(&fl);
	free(r.buf);
	return rc;
}

static int annotate_file(src_state *s, const char *name, plumb_error *err)
{
	ann_ctx *c = s->c;
	char *path, *shown;
	FILE *f = open_source(c, name, &path, &shown);
	bool user = is_user_file(c, name);
	if (!f) {
		if (user)
			return plumb_fail(err, PLUMB_ERR_IO, "%s: source file not found", name);
		return add_name(&s->unfound, &s->nunfound, &s->unfound_cap, name) ? plumb_fail_nomem(err) : 0;
	}
	fprintf(c->out, ANN_FANCY "-- %s-annotated source: %s\n" ANN_FANCY, user ? "User" : "Auto", shown);
	size_t lo, hi;
	int rc = 0;
	file_range(s, name, &lo, &hi);
	if (lo == hi)
		fprintf(c->out, "  No information has been collected for %s\n\n", name);
	else {
		s->did_annotate = true;
		rc = print_file(s, f, name, path, lo, hi) ? plumb_fail_nomem(err) : 0;
	}
	fclose(f);
	free(path);
	free(shown);
	return rc;
}

/* ---- after the files ---------------------------------------------------- */

static void print_unfound(const src_state *s)
{
	if (!s->nunfound)
		return;
	FILE *out = s->c->out;
	fputs(ANN_FANCY "The following files chosen for auto-annotation could not be found:\n" ANN_FANCY,
	      out);
	for (size_t i = 0; i < s->nunfound; i++)
		fprintf(out, "  %s\n", s->unfound[i]);
	fputc('\n', out);
}

/* The share of each event that the shown lines hold. Where the lines hold
 * more than the total (non-additive costs) the lines are the 100%. */
static void print_annotated_total(src_state *s)
{
	ann_ctx *c = s->c;
	if (!s->did_annotate)
		return;
	for (size_t e = 0; e < c->nev; e++)
		if (c->total[e] == 0 || s->printed[e] > c->total[e])
			c->total[e] = s->printed[e];
	size_t widths[c->nev];
	ann_widths(c, s->printed, 1, widths);
	fputs(ANN_FANCY, c->out);
	ann_events_header(c, widths);
	fputs("\n" ANN_FANCY, c->out);
	ann_cells(c, s->printed, widths);
	fputs(" events annotated\n\n", c->out);
}

static int build_index(src_state *s)
{
	ann_ctx *c = s->c;
	const plumb_metrics *lm = c->lm;
	s->ents = calloc(lm->nkeys + 1, sizeof *s->ents);
	s->fn_key = malloc((c->p->functions.n + 1) * sizeof *s->fn_key);
	s->printed = calloc(c->nev, sizeof *s->printed);
	if (!s->ents || !s->fn_key || !s->printed)
		return -1;
	for (size_t k = 0; k < lm->nkeys; k++) {
		const plumb_key *key = &lm->keys[k];
		if (key->function == PLUMB_NONE)
			continue;
		s->ents[s->nents++] = (line_ent){ ann_file_name(c, key->file), key->line, (uint32_t)k };
	}
	qsort(s->ents, s->nents, sizeof *s->ents, cmp_ents);
	memset(s->fn_key, 0xff, (c->p->functions.n + 1) * sizeof *s->fn_key);
	for (size_t k = 0; k < c->fm->nkeys; k++)
		if (c->fm->keys[k].function != PLUMB_NONE)
			s->fn_key[c->fm->keys[k].function] = (uint32_t)k;
	return 0;
}

int ann_check_user_files(const ann_ctx *c, plumb_error *err)
{
	for (size_t i = 0; i < c->o->n_user; i++) {
		char *path, *shown;
		FILE *f = open_source(c, c->o->user_files[i], &path, &shown);
		if (!f)
			return plumb_fail(err, PLUMB_ERR_IO, "%s: source file not found as given%s",
					  c->o->user_files[i], c->o->n_include ? " nor in the -I dirs" : "");
		fclose(f);
		free(path);
		free(shown);
	}
	return 0;
}

int ann_sources(ann_ctx *c, plumb_error *err)
{
	src_state s = { .c = c };
	char **files = NULL;
	size_t nfiles = 0;
	int rc = -1;
	if (build_index(&s) || !(files = files_to_annotate(&s, &nfiles))) {
		plumb_fail_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < nfiles; i++)
		if (annotate_file(&s, files[i], err))
			goto out;
	print_unfound(&s);
	print_annotated_total(&s);
	rc = 0;
out:
	for (size_t i = 0; i < nfiles; i++)
		free(files[i]);
	for (size_t i = 0; i < s.nunfound; i++)
		free(s.unfound[i]);
	free(files);
	free(s.unfound);
	free(s.ents);
	free(s.fn_key);
	free(s.printed);
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
