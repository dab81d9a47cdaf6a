/* DWARF lines and function ranges of an executable (libdw): address ->
 * (file, line, function), and the runs of addresses gprof -l turns into
 * line symbols. Everything is loaded once into two sorted arrays. */
#include <stdlib.h>
#include <string.h>

#include "symbols/elfsym_internal.h"
#include "plumb/symbols.h"

typedef struct loader {
	exe_row *rows;
	size_t nrows, caprows;
	exe_func *funcs;
	size_t nfuncs, capfuncs;
	bool nomem;
} loader;

static bool push_row(loader *L, uint64_t addr, const char *file, uint32_t line, bool end)
{
	if (L->nrows == L->caprows) {
		size_t nc = L->caprows ? L->caprows * 2 : 1024;
		exe_row *t = realloc(L->rows, nc * sizeof *t);
		if (!t)
			return false;
		L->rows = t;
		L->caprows = nc;
	}
	L->rows[L->nrows] = (exe_row){ addr, file, line, end, L->nrows };
	L->nrows++;
	return true;
}

static bool push_func(loader *L, uint64_t lo, uint64_t hi, const char *name)
{
	if (L->nfuncs == L->capfuncs) {
		size_t nc = L->capfuncs ? L->capfuncs * 2 : 256;
		exe_func *t = realloc(L->funcs, nc * sizeof *t);
		if (!t)
			return false;
		L->funcs = t;
		L->capfuncs = nc;
	}
	L->funcs[L->nfuncs++] = (exe_func){ lo, hi, name };
	return true;
}

static const char *func_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n && dwarf_attr_integrate(die, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	return n;
}

static int func_cb(Dwarf_Die *die, void *arg)
{
	loader *L = arg;
	const char *name = func_name(die);
	if (!name)
		return DWARF_CB_OK;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (hi > lo && !push_func(L, lo, hi, name)) {
			L->nomem = true;
			return DWARF_CB_ABORT;
		}
	return DWARF_CB_OK;
}

static bool load_cu_lines(loader *L, Dwarf_Die *cu)
{
	Dwarf_Lines *lines;
	size_t n;
	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return true; /* a unit without lines */
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		int lineno = 0;
		bool end = false;
		if (!l || dwarf_lineaddr(l, &addr) != 0)
			continue;
		dwarf_lineno(l, &lineno);
		dwarf_lineendsequence(l, &end);
		const char *file = dwarf_linesrc(l, NULL, NULL);
		if (!push_row(L, addr, file, lineno > 0 ? (uint32_t)lineno : 0, end))
			return false;
	}
	return true;
}

/* At one address: end rows first, then table order, so that the row kept
 * (the last) is the one that starts code there. */
static int row_cmp(const void *pa, const void *pb)
{
	const exe_row *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->end != b->end)
		return a->end ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static int func_cmp(const void *pa, const void *pb)
{
	const exe_func *a = pa, *b = pb;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return (a->hi > b->hi) - (a->hi < b->hi);
}

/* Keep the last row at each address (BFD keeps the last one too). */
static size_t collapse(exe_row *r, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && r[k - 1].addr == r[i].addr)
			r[k - 1] = r[i];
		else
			r[k++] = r[i];
	}
	return k;
}

int plumb_exe_load_dwarf(plumb_exe *e, plumb_error *err)
{
	if (e->dwarf_loaded)
		return 0;
	e->dwarf_loaded = true;
	e->dw = dwarf_begin_elf(e->elf, DWARF_C_READ, NULL);
	if (!e->dw)
		return 0; /* no debug information: every lookup is unknown */
	loader L = { 0 };
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	uint8_t unit_type;
	while (!L.nomem && dwarf_get_units(e->dw, cu, &cu, NULL, &unit_type, &cudie, &subdie) == 0) {
		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
			continue;
		if (!load_cu_lines(&L, &cudie))
			L.nomem = true;
		else
			dwarf_getfuncs(&cudie, func_cb, &L, 0);
	}
	if (L.nomem) {
		free(L.rows);
		free(L.funcs);
		return plumb_fail_nomem(err);
	}
	qsort(L.rows, L.nrows, sizeof *L.rows, row_cmp);
	e->rows = L.rows;
	e->nrows = collapse(L.rows, L.nrows);
	qsort(L.funcs, L.nfuncs, sizeof *L.funcs, func_cmp);
	e->funcs = L.funcs;
	e->nfuncs = L.nfuncs;
	return 0;
}

void plumb_exe_free_dwarf(plumb_exe *e)
{
	free(e->rows);
	free(e->funcs);
	if (e->dw)
		dwarf_end(e->dw);
	e->rows = NULL;
	e->funcs = NULL;
	e->dw = NULL;
	e->nrows = e->nfuncs = 0;
	e->dwarf_loaded = false;
}

/* Index of the last row / function starting at or before a, or -1. */
static ptrdiff_t last_row(const plumb_exe *e, uint64_t a)
{
	return PLUMB_ADDR_SEARCH(e->rows, e->nrows, addr, a);
}

static ptrdiff_t last_func(const plumb_exe *e, uint64_t a)
{
	return PLUMB_ADDR_SEARCH(e->funcs, e->nfuncs, lo, a);
}

/* The innermost (shortest) subprogram range holding a. */
static const char *function_at(const plumb_exe *e, uint64_t a)
{
	ptrdiff_t i = last_func(e, a);
	const exe_func *best = NULL;
	/* ranges are few levels deep: look back over the ones that start earlier */
	for (ptrdiff_t k = i; k >= 0 && i - k < 64; k--) {
		const exe_func *f = &e->funcs[k];
		if (a < f->hi && (!best || f->hi - f->lo < best->hi - best->lo))
			best = f;
	}
	return best ? best->name : NULL;
}

int plumb_exe_line_at(plumb_exe *e, uint64_t addr, plumb_line_loc *loc, plumb_error *err)
{
	memset(loc, 0, sizeof *loc);
	if (plumb_exe_load_dwarf(e, err))
		return -1;
	ptrdiff_t i = last_row(e, addr);
	if (i < 0 || e->rows[i].end)
		return 0;
	loc->file = e->rows[i].file;
	loc->line = e->rows[i].line;
	loc->function = function_at(e, addr);
	return 0;
}

static bool same_run(const plumb_line_run *r, uint64_t addr, const exe_row *row, const char *fn)
{
	return r->end == addr && r->line == row->line &&
	       (r->file == row->file || (r->file && row->file && strcmp(r->file, row->file) == 0)) &&
	       (r->function == fn || (r->function && fn && strcmp(r->function, fn) == 0));
}

int plumb_exe_line_runs(plumb_exe *e, plumb_line_run **out, size_t *n, plumb_error *err)
{
	*out = NULL;
	*n = 0;
	if (plumb_exe_load_dwarf(e, err))
		return -1;
	plumb_line_run *runs = malloc((e->nrows ? e->nrows : 1) * sizeof *runs);
	if (!runs)
		return plumb_fail_nomem(err);
	size_t k = 0;
	uint64_t tlo = e->info.text_lo, thi = e->info.text_hi;
	for (size_t i = 0; i + 1 < e->nrows; i++) {
		const exe_row *row = &e->rows[i];
		uint64_t lo = row->addr, hi = e->rows[i + 1].addr;
		if (row->end || row->line == 0 || hi <= tlo || lo >= thi)
			continue;
		lo = lo < tlo ? tlo : lo;
		hi = hi > thi ? thi : hi;
		const char *fn = function_at(e, row->addr);
		if (k && same_run(&runs[k - 1], lo, row, fn)) {
			runs[k - 1].end = hi;
			continue;
		}
		runs[k++] = (plumb_line_run){ lo, hi, row->file, row->line, fn };
	}
	*out = runs;
	*n = k;
	return 0;
}
