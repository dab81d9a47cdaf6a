/* The function names of gprof -l's line symbols. gprof asks BFD for the
 * function at every address, and BFD answers with the innermost function
 * whose range holds it, inlined ones included: a loop of spin() inlined
 * into main() is "spin" there. Its name is the DWARF linkage name; in C
 * (whose names are linkage names) the DWARF name; in C++ without one, the
 * ELF function symbol that starts where the DWARF function starts, else
 * the DWARF name. Where no DWARF function holds the address, BFD names the
 * ELF function symbol there (an outlined "ca.part.0" past its DWARF
 * ranges). The line runs of plumb/elfsym.h name the enclosing subprogram,
 * so here the runs are cut where the innermost scope (plumb_exe_scopes)
 * changes and renamed after it. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "gprof/gp_internal.h"
#include "plumb/elfsym.h"
#include "plumb/symbols.h"

/* A DWARF scope's range; entry is where BFD looks for an ELF name, which
 * a scope named by its linkage name does not want. */
typedef plumb_exe_scope fn_range;

typedef struct elf_fn {
	uint64_t value;
	const char *name;
} elf_fn;

/* Names point into the executable's ELF and DWARF data. */
struct gp_lines {
	gp_line *v;
	size_t n, cap;
	fn_range *fr;
	size_t nfr;
	elf_fn *ef;
	size_t nef;
};

static int cmp_value(const void *pa, const void *pb)
{
	const elf_fn *a = pa, *b = pb;
	return a->value < b->value ? -1 : a->value > b->value;
}

/* The function (and untyped) symbols of .text, every one: gprof's own
 * table drops some, BFD's lookup does not. */
static int elf_functions(gp_lines *L, plumb_exe *exe, plumb_error *err)
{
	plumb_exe_elf_sym *all;
	size_t n;
	if (plumb_exe_elf_symbols(exe, &all, &n, err))
		return -1;
	if (!(L->ef = malloc((n ? n : 1) * sizeof *L->ef))) {
		free(all);
		return plumb_fail_nomem(err);
	}
	for (size_t k = 0; k < n; k++)
		if (all[k].in_text && (all[k].type == STT_FUNC || all[k].type == STT_NOTYPE) && *all[k].name)
			L->ef[L->nef++] = (elf_fn){ all[k].value, all[k].name };
	free(all);
	qsort(L->ef, L->nef, sizeof *L->ef, cmp_value);
	return 0;
}

static void elf_names(gp_lines *L)
{
	for (size_t i = 0; i < L->nfr; i++) {
		fn_range *f = &L->fr[i];
		if (f->linkage)
			continue;
		size_t lo = 0, hi = L->nef;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (L->ef[mid].value < f->entry)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < L->nef && L->ef[lo].value == f->entry)
			f->name = L->ef[lo].name;
	}
}

static int cmp_lo(const void *pa, const void *pb)
{
	const fn_range *a = pa, *b = pb;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The innermost (smallest) range holding addr; active holds the ranges
 * started so far that have not ended. */
typedef struct active {
	const fn_range **v;
	size_t n, cap;
	size_t next; /* first range not yet started */
} active;

static const char *innermost(gp_lines *L, active *a, uint64_t addr)
{
	while (a->next < L->nfr && L->fr[a->next].lo <= addr) {
		if (a->n == a->cap) {
			size_t nc = a->cap ? a->cap * 2 : 32;
			const fn_range **nv = realloc(a->v, nc * sizeof *nv);
			if (!nv)
				return NULL;
			a->v = nv;
			a->cap = nc;
		}
		a->v[a->n++] = &L->fr[a->next++];
	}
	const fn_range *best = NULL;
	size_t k = 0;
	for (size_t i = 0; i < a->n; i++) {
		if (a->v[i]->hi <= addr)
			continue; /* ended: dropped */
		a->v[k++] = a->v[i];
		if (!best || a->v[i]->hi - a->v[i]->lo <= best->hi - best->lo)
			best = a->v[i];
	}
	a->n = k;
	return best ? best->name : NULL;
}

static int push(gp_lines *L, uint64_t addr, const plumb_line_run *r, const char *fn)
{
	if (L->n == L->cap) {
		size_t nc = L->cap ? L->cap * 2 : 1024;
		gp_line *n = realloc(L->v, nc * sizeof *n);
		if (!n)
			return -1;
		L->v = n;
		L->cap = nc;
	}
	L->v[L->n++] = (gp_line){ .addr = addr, .file = r->file, .line = r->line, .function = fn };
	return 0;
}

/* The nearest ELF function symbol at or below addr, as BFD's ELF lookup
 * answers (sizes do not bound it: alignment padding counts). */
static const char *elf_at(const gp_lines *L, uint64_t addr)
{
	ptrdiff_t i = PLUMB_ADDR_SEARCH(L->ef, L->nef, value, addr);
	return i >= 0 ? L->ef[i].name : NULL;
}

/* Cut each run where a function range starts or ends inside it. */
static int cut_runs(gp_lines *L, const plumb_line_run *runs, size_t nruns)
{
	active a = { 0 };
	int rc = 0;
	size_t starts = 0;
	for (size_t i = 0; i < nruns && !rc; i++) {
		const plumb_line_run *r = &runs[i];
		uint64_t at = r->addr;
		while (at < r->end && !rc) {
			const char *fn = innermost(L, &a, at);
			/* the piece ends where some range starts or ends */
			uint64_t stop = r->end;
			while (starts < L->nfr && L->fr[starts].lo <= at)
				starts++;
			if (starts < L->nfr && L->fr[starts].lo < stop)
				stop = L->fr[starts].lo;
			for (size_t k = 0; k < a.n; k++)
				if (a.v[k]->hi > at && a.v[k]->hi < stop)
					stop = a.v[k]->hi;
			rc = push(L, at, r, fn ? fn : elf_at(L, at));
			at = stop;
		}
	}
	free(a.v);
	return rc;
}

gp_lines *gp_lines_new(plumb_exe *exe, const plumb_line_run *runs, size_t nruns,
					 plumb_error *err)
{
	gp_lines *L = calloc(1, sizeof *L);
	if (!L) {
		plumb_fail_nomem(err);
		return NULL;
	}
	if (plumb_exe_scopes(exe, &L->fr, &L->nfr, err) || elf_functions(L, exe, err)) {
		gp_lines_free(L);
		return NULL;
	}
	elf_names(L);
	qsort(L->fr, L->nfr, sizeof *L->fr, cmp_lo);
	if (cut_runs(L, runs, nruns)) {
		gp_lines_free(L);
		plumb_fail_nomem(err);
		return NULL;
	}
	return L;
}

const gp_line *gp_lines_get(const gp_lines *L, size_t *n)
{
	*n = L->n;
	return L->v;
}

void gp_lines_free(gp_lines *L)
{
	if (!L)
		return;
	free(L->fr);
	free(L->ef);
	free(L->v);
	free(L);
}
