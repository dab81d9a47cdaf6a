/* gprof's symbol table of an executable: the function symbols of
 * plumb/elfsym.h as gprof keeps them, with -l the line symbols too, then
 * sorted and cut to ranges the way gprof finalizes its table. */
#include <stdlib.h>
#include <string.h>

#include "gprof/gp_internal.h"
#include "plumb/symbols.h"

struct plumb_gprof_symtab {
	plumb_exe *exe;
	plumb_symtab *st;
	plumb_gprof_symbol *sym;  /* the table */
	size_t nsym;
	plumb_gprof_symbol *fn;   /* the function symbols (== sym without -l) */
	size_t nfn;
	plumb_line_run *runs;
	gp_lines *lines;
	gp_paths *paths;
	char **owned;             /* demangled names of line symbols */
	size_t nowned;
};

/* ---- finalizing ------------------------------------------------------------ */

/* gprof's order for one address: functions before line symbols, globals
 * before statics. */
static int cmp_addr(const void *pa, const void *pb)
{
	const plumb_gprof_symbol *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->is_func != b->is_func)
		return (int)b->is_func - (int)a->is_func;
	return (int)a->is_static - (int)b->is_static;
}

/* Whether src should replace the kept symbol at the same address. */
static bool better_twin(const plumb_gprof_symbol *src, const plumb_gprof_symbol *kept)
{
	if (!src->is_static && kept->is_static)
		return true;
	if (src->is_static != kept->is_static)
		return false;
	if (src->is_func && !kept->is_func)
		return true;
	if (src->is_func != kept->is_func)
		return false;
	if (src->name[0] != '_' && kept->name[0] == '_')
		return true;
	return src->name[0] == '_' && kept->name[0] == '_' && src->name[1] != '_' && kept->name[1] == '_';
}

static void merge_sort_syms(plumb_gprof_symbol *v, plumb_gprof_symbol *tmp, size_t n)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	merge_sort_syms(v, tmp, h);
	merge_sort_syms(v + h, tmp, n - h);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = cmp_addr(&v[i], &v[j]) <= 0 ? v[i++] : v[j++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

size_t plumb_gprof_finalize_symbols(plumb_gprof_symbol *syms, size_t n, uint64_t text_end)
{
	if (n == 0)
		return 0;
	plumb_gprof_symbol *tmp = malloc(n * sizeof *tmp);
	if (tmp) { /* stable, as glibc's qsort is for this size */
		merge_sort_syms(syms, tmp, n);
		free(tmp);
	} else {
		qsort(syms, n, sizeof *syms, cmp_addr);
	}
	size_t dst = 0;
	uint64_t prev = syms[0].addr - 1;
	for (size_t src = 0; src < n; src++) {
		if (syms[src].addr == prev) {
			if (better_twin(&syms[src], &syms[dst - 1]))
				syms[dst - 1] = syms[src];
			continue;
		}
		if (dst > 0 && syms[dst - 1].end_addr == 0)
			syms[dst - 1].end_addr = syms[src].addr - 1;
		if (!syms[src].end_addr || syms[src].addr <= syms[src].end_addr) {
			syms[dst++] = syms[src];
			prev = syms[src].addr;
		}
	}
	if (dst > 0 && syms[dst - 1].end_addr == 0)
		syms[dst - 1].end_addr = text_end - 1;
	return dst;
}

/* gprof's lookup: the symbol whose [addr, end_addr] holds the address. */
uint32_t gp_sym_at(const plumb_gprof *g, uint64_t addr)
{
	ptrdiff_t i = PLUMB_ADDR_SEARCH(g->sym, g->nsym, s.addr, addr);
	return i >= 0 && addr <= g->sym[i].s.end_addr ? (uint32_t)i : GP_NONE;
}

/* ---- loading --------------------------------------------------------------- */

void plumb_gprof_symtab_free(plumb_gprof_symtab *t)
{
	if (!t)
		return;
	plumb_gprof_symtab_drop_symbols(t);
	gp_paths_free(t->paths);
	gp_lines_free(t->lines);
	for (size_t i = 0; i < t->nowned; i++)
		free(t->owned[i]);
	free(t->owned);
	free(t->runs);
	plumb_symtab_free(t->st);
	plumb_exe_close(t->exe);
	free(t);
}

static plumb_gprof_symbol func_symbol(const plumb_exe_sym *s, bool demangle)
{
	return (plumb_gprof_symbol){ .addr = s->addr, .end_addr = s->end_addr, .name = s->name,
				     .display = demangle ? s->demangled : NULL, .file = s->file,
				     .line = s->line, .is_static = s->is_static, .is_func = s->is_func };
}

/* The function symbol holding addr, or NULL. */
static const plumb_gprof_symbol *fn_at(const plumb_gprof_symtab *t, uint64_t addr)
{
	ptrdiff_t i = PLUMB_ADDR_SEARCH(t->fn, t->nfn, addr, addr);
	return i >= 0 && addr <= t->fn[i].end_addr ? &t->fn[i] : NULL;
}

/* A line symbol's name as printed: its function's demangled name, or the
 * name demangled here (kept until the table is freed). NULL: print it raw. */
static const char *line_display(plumb_gprof_symtab *t, const char *name, const plumb_gprof_symbol *f,
				bool demangle)
{
	if (!demangle)
		return NULL;
	if (f && strcmp(f->name, name) == 0)
		return f->display;
	char *d = plumb_demangle(name);
	if (!d)
		return NULL;
	char **n = realloc(t->owned, (t->nowned + 1) * sizeof *n);
	if (!n) {
		free(d);
		return NULL;
	}
	t->owned = n;
	n[t->nowned++] = d;
	return d;
}

static bool same_run(const plumb_gprof_symbol *prev, const gp_line *r)
{
	return prev && prev->line == r->line && strcmp(prev->name, r->function) == 0 &&
	       strcmp(prev->file, r->file) == 0;
}

/* -l: one symbol per run of (file, line, function), gprof's way: a run
 * equal to the last one made adds nothing; its static flag is that of the
 * function holding it. Function symbols join and win at equal addresses. */
static int line_symbols(plumb_gprof_symtab *t, bool demangle, plumb_error *err)
{
	size_t nruns = 0, npieces = 0;
	if (plumb_exe_line_runs(t->exe, &t->runs, &nruns, err) ||
	    !(t->lines = gp_lines_new(t->exe, t->runs, nruns, err)))
		return -1;
	const gp_line *piece = gp_lines_get(t->lines, &npieces);
	t->sym = calloc(npieces + t->nfn + 1, sizeof *t->sym);
	if (!t->sym)
		return plumb_fail_nomem(err);
	const plumb_gprof_symbol *prev = NULL;
	for (size_t i = 0; i < npieces; i++) {
		const gp_line *r = &piece[i];
		if (!r->file || !r->function || !r->line || same_run(prev, r))
			continue;
		const plumb_gprof_symbol *f = fn_at(t, r->addr);
		bool is_static = prev && strcmp(prev->name, r->function) == 0 && strcmp(prev->file, r->file) == 0
				 ? prev->is_static : f && f->is_static;
		plumb_gprof_symbol *s = &t->sym[t->nsym++];
		*s = (plumb_gprof_symbol){ .addr = r->addr, .name = r->function, .file = r->file,
					   .line = r->line, .is_static = is_static,
					   .display = line_display(t, r->function, f, demangle) };
		prev = s;
	}
	const plumb_exe_info *info = plumb_exe_get_info(t->exe);
	memcpy(t->sym + t->nsym, t->fn, t->nfn * sizeof *t->fn);
	t->nsym += t->nfn;
	/* gprof ended the last function symbol at the end of .text; one that
	 * starts beyond it (a weak data symbol) has an empty range and goes */
	if (t->nfn && info->text_hi)
		t->sym[t->nsym - 1].end_addr = info->text_hi - 1;
	t->nsym = plumb_gprof_finalize_symbols(t->sym, t->nsym, info->text_hi);
	return 0;
}

static int load(plumb_gprof_symtab *t, const char *exe, const plumb_gprof_symtab_opts *o, plumb_error *err)
{
	if (!(t->exe = plumb_exe_open(exe, err)))
		return -1;
	unsigned flags = (o->no_static ? PLUMB_SYMTAB_NO_STATIC : 0) | (o->funcs_only ? PLUMB_SYMTAB_FUNCS_ONLY : 0);
	if (plumb_symtab_build(t->exe, flags, &t->st, err))
		return -1;
	if (!(t->fn = calloc(t->st->n + 1, sizeof *t->fn)))
		return plumb_fail_nomem(err);
	for (size_t i = 0; i < t->st->n; i++)
		t->fn[i] = func_symbol(&t->st->syms[i], !o->no_demangle);
	t->nfn = t->st->n;
	if (o->line) {
		if (line_symbols(t, !o->no_demangle, err))
			return -1;
	} else {
		t->sym = t->fn;
		t->nsym = t->nfn;
	}
	if (!(t->paths = gp_paths_fix(t->exe, t->sym, t->nsym)))
		return plumb_fail_nomem(err);
	return 0;
}

plumb_gprof_symtab *plumb_gprof_symtab_load(const char *exe, const plumb_gprof_symtab_opts *o,
					    plumb_error *err)
{
	plumb_gprof_symtab *t = calloc(1, sizeof *t);
	if (!t) {
		plumb_fail_nomem(err);
		return NULL;
	}
	if (load(t, exe, o, err)) {
		plumb_gprof_symtab_free(t);
		return NULL;
	}
	return t;
}

const plumb_gprof_symbol *plumb_gprof_symtab_symbols(const plumb_gprof_symtab *t, size_t *n)
{
	*n = t->nsym;
	return t->sym;
}

void plumb_gprof_symtab_drop_symbols(plumb_gprof_symtab *t)
{
	if (t->fn != t->sym)
		free(t->fn);
	free(t->sym);
	t->fn = t->sym = NULL;
	t->nfn = t->nsym = 0;
}

plumb_exe *plumb_gprof_symtab_exe(const plumb_gprof_symtab *t)
{
	return t->exe;
}
