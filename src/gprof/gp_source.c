/* -A: source files with execution counts in a 16-column gutter, then the
 * busiest lines and a summary per file, as gprof prints them. Without
 * basic-block data (no compiler writes it today) the counts are function
 * entry counts on the lines where functions start. */
#include <stdlib.h>
#include <string.h>

#include "gprof/gp_internal.h"

enum { GUTTER = 16 };

/* One annotated line: the symbol there (or a merged copy when several
 * symbols start on it). */
typedef struct line_stat {
	bool used, is_func;
	unsigned line;
	uint64_t ncalls;
	uint64_t addr;      /* the first symbol's; 0 once a second one joins */
	uint32_t bb_first;  /* the first symbol's basic blocks */
} line_stat;

typedef struct src_file {
	const char *path;
	unsigned num_lines;
	uint64_t ncalls;
	line_stat *lines;
} src_file;

typedef struct anno {
	plumb_gprof *g;
	src_file *files; /* newest first, as gprof lists its source files */
	size_t nfiles;
	long executable, executed;
	uint64_t last_count; /* carried from line to line (and file to file) */
	bool first_file;
} anno;

static src_file *find_file(anno *a, const char *path)
{
	for (size_t i = 0; i < a->nfiles; i++)
		if (strcmp(a->files[i].path, path) == 0)
			return &a->files[i];
	return NULL;
}

static int add_file(anno *a, const char *path)
{
	if (find_file(a, path))
		return 0;
	src_file *n = realloc(a->files, (a->nfiles + 1) * sizeof *n);
	if (!n)
		return -1;
	a->files = n;
	memmove(n + 1, n, a->nfiles * sizeof *n);
	n[0] = (src_file){ .path = path };
	a->nfiles++;
	return 0;
}

/* gprof creates a file record when it first meets a symbol of the file:
 * function symbols in symbol-table order, then the line symbols of -l;
 * its list has the newest first. */
static int collect_files(anno *a)
{
	const plumb_gprof *g = a->g;
	uint32_t *v = malloc((g->nsym ? g->nsym : 1) * sizeof *v);
	if (!v)
		return -1;
	for (uint32_t i = 0; i < g->nsym; i++)
		v[i] = i;
	gp_stable_sort(v, g->nsym, gp_cmp_creation, g);
	int rc = 0;
	for (size_t k = 0; k < g->nsym && !rc; k++)
		if (g->sym[v[k]].s.file)
			rc = add_file(a, g->sym[v[k]].s.file);
	free(v);
	return rc;
}

static bool wanted(const plumb_gprof *g, const gp_sym *s)
{
	return gp_selected(g, PLUMB_GP_INCL_ANNO, s->s.addr);
}

static int count_lines(anno *a)
{
	plumb_gprof *g = a->g;
	for (size_t i = 0; i < g->nsym; i++) {
		const gp_sym *s = &g->sym[i];
		src_file *f = s->s.file ? find_file(a, s->s.file) : NULL;
		if (f && s->s.line > f->num_lines && wanted(g, s))
			f->num_lines = s->s.line;
	}
	for (size_t k = 0; k < a->nfiles; k++)
		if (a->files[k].num_lines &&
		    !(a->files[k].lines = calloc(a->files[k].num_lines, sizeof *a->files[k].lines)))
			return -1;
	for (size_t i = 0; i < g->nsym; i++) {
		const gp_sym *s = &g->sym[i];
		src_file *f = s->s.file ? find_file(a, s->s.file) : NULL;
		if (!f || !f->num_lines || !s->s.line || !wanted(g, s))
			continue;
		f->ncalls += s->ncalls;
		line_stat *l = &f->lines[s->s.line - 1];
		if (!l->used)
			*l = (line_stat){ .used = true, .is_func = s->s.is_func, .line = s->s.line,
					  .addr = s->s.addr, .bb_first = s->bb_first };
		else
			l->addr = 0;
		l->ncalls += s->ncalls;
	}
	return 0;
}

/* Append "%lu" to the gutter text, after a comma when not the first. */
static void put_count(char *tmp, size_t size, uint64_t v, bool comma)
{
	size_t len = strlen(tmp);
	snprintf(tmp + len, size - len, comma ? ",%lu" : "%lu", (unsigned long)v);
}

/* The gutter of one line: its count right-aligned before " -> " (or
 * "#####" when run fewer than -m times), blanks where nothing starts. A
 * function's entry line shows its calls; then each basic block's count
 * (with -x only when it changes, and carried onto lines without blocks). */
static void gutter(anno *a, const src_file *f, unsigned line_num, char *buf)
{
	const line_stat *b = line_num <= f->num_lines && f->lines[line_num - 1].used ? &f->lines[line_num - 1] : NULL;
	memset(buf, ' ', GUTTER);
	buf[GUTTER] = '\0';
	if (!b)
		return;
	const plumb_gprof *g = a->g;
	bool all = g->o.all_lines, set = false;
	a->executable++;
	char tmp[512] = "";
	uint64_t ncalls = 0, last_print = UINT64_MAX;
	uint32_t first = b->bb_first;
	if (b->is_func) {
		put_count(tmp, sizeof tmp, b->ncalls, false);
		a->last_count = last_print = ncalls = b->ncalls;
		set = true;
	} else if (all && first != GP_NONE && g->blocks[first].addr > b->addr) {
		put_count(tmp, sizeof tmp, a->last_count, false);
		last_print = ncalls = a->last_count;
		set = true;
	}
	for (uint32_t k = first; k != GP_NONE; k = g->blocks[k].next) {
		a->last_count = g->blocks[k].count;
		if (!set) {
			ncalls = 0;
			set = true;
		}
		ncalls += a->last_count;
		if (all && a->last_count == last_print)
			continue;
		put_count(tmp, sizeof tmp, a->last_count, tmp[0] != '\0');
		last_print = a->last_count;
	}
	if (all && !tmp[0]) {
		put_count(tmp, sizeof tmp, a->last_count, false);
		ncalls = a->last_count;
		set = true;
	}
	if (!set)
		return;
	a->executed++;
	if (ncalls < g->o.min_count)
		strcpy(tmp, "#####");
	strcat(tmp, " -> ");
	size_t len = strlen(tmp);
	if (len >= GUTTER)
		memcpy(buf, tmp, GUTTER);
	else
		memcpy(buf + GUTTER - len, tmp, len);
}

static void copy_annotated(anno *a, const src_file *f, FILE *in, FILE *out)
{
	char buf[8192], ann[GUTTER + 1];
	unsigned line_num = 1;
	bool new_line = true;
	size_t nread;
	while ((nread = fread(buf, 1, sizeof buf, in)) > 0)
		for (size_t i = 0; i < nread; i++) {
			if (new_line) {
				gutter(a, f, line_num++, ann);
				fputs(ann, out);
			}
			new_line = buf[i] == '\n';
			fputc(buf[i], out);
		}
}

/* Busiest lines first; equal counts by line. */
static int cmp_ncalls(const void *ctx, uint32_t x, uint32_t y)
{
	const line_stat *v = ctx, *l = &v[x], *r = &v[y];
	if (!l->used)
		return 1;
	if (!r->used)
		return -1;
	if (l->ncalls != r->ncalls)
		return l->ncalls < r->ncalls ? 1 : -1;
	return (int)l->line - (int)r->line;
}

static int top_lines(anno *a, const src_file *f, FILE *out)
{
	int len = a->g->o.table_length;
	fprintf(out, "\n\nTop %d Lines:\n\n     Line      Count\n\n", len);
	uint32_t *v = malloc(f->num_lines * sizeof *v);
	if (!v)
		return -1;
	for (uint32_t i = 0; i < f->num_lines; i++)
		v[i] = i;
	gp_stable_sort(v, f->num_lines, cmp_ncalls, f->lines);
	if ((unsigned)len > f->num_lines)
		len = (int)f->num_lines;
	for (int i = 0; i < len; i++) {
		const line_stat *l = &f->lines[v[i]];
		if (!l->used || l->ncalls == 0)
			break;
		fprintf(out, "%9u %10lu\n", l->line, (unsigned long)l->ncalls);
	}
	free(v);
	return 0;
}

static void summary(const anno *a, const src_file *f, FILE *out)
{
	fputs("\nExecution Summary:\n\n", out);
	fprintf(out, "%9ld   Executable lines in this file\n", a->executable);
	fprintf(out, "%9ld   Lines executed\n", a->executed);
	fprintf(out, "%9.2f   Percent of the file executed\n",
		a->executable ? 100.0 * a->executed / (double)a->executable : 100.0);
	fprintf(out, "\n%9lu   Total number of line executions\n", (unsigned long)f->ncalls);
	fprintf(out, "%9.2f   Average executions per line\n",
		a->executable ? (double)f->ncalls / (double)a->executable : 0.0);
}

/* -y: "<basename>-ann", a plain name in the current directory. */
static void ann_name(const char *path, char *buf, size_t size)
{
	snprintf(buf, size, "%s-ann", gp_basename(path));
}

static int one_file(anno *a, src_file *f, FILE *out, const plumb_gprof_source_io *io)
{
	FILE *in = io->open_source(io->ctx, f->path);
	if (!in)
		return 0; /* the caller said why */
	FILE *dst = out;
	if (io->open_output) {
		char name[4096];
		ann_name(f->path, name, sizeof name);
		if (!(dst = io->open_output(io->ctx, name))) {
			fclose(in);
			return 0;
		}
	} else {
		if (!a->first_file)
			fputc('\n', out);
		a->first_file = false;
		gp_section_start(a->g, out);
		fprintf(out, "*** File %s:\n", f->path);
	}
	a->executable = a->executed = 0;
	copy_annotated(a, f, in, dst);
	fclose(in);
	int rc = a->g->o.table_length > 0 ? top_lines(a, f, dst) : 0;
	summary(a, f, dst);
	if (dst != out && fclose(dst))
		rc = -1;
	return rc;
}

int plumb_gprof_print_annotated(plumb_gprof *g, FILE *out, const plumb_gprof_source_io *io,
				plumb_error *err)
{
	anno a = { .g = g, .first_file = true };
	int rc = collect_files(&a) || count_lines(&a) ? plumb_fail_nomem(err) : 0;
	for (size_t k = 0; !rc && k < a.nfiles; k++) {
		src_file *f = &a.files[k];
		if (!f->num_lines || (!g->o.zeros && f->ncalls == 0))
			continue;
		if (one_file(&a, f, out, io))
			rc = plumb_fail(err, PLUMB_ERR_IO, "cannot write the annotation of %s", f->path);
	}
	for (size_t k = 0; k < a.nfiles; k++)
		free(a.files[k].lines);
	free(a.files);
	return rc;
}
