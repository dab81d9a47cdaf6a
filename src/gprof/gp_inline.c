/* The function names of gprof -l's line symbols. gprof asks BFD for the
 * function at every address, and BFD answers with the innermost function
 * whose range holds it, inlined ones included: a loop of spin() inlined
 * into main() is "spin" there. Its name is the DWARF linkage name; in C
 * (whose names are linkage names) the DWARF name; in C++ without one, the
 * ELF function symbol that starts where the DWARF function starts, else
 * the DWARF name. Where no DWARF function holds the address, BFD names the
 * ELF function symbol there (an outlined "ca.part.0" past its DWARF
 * ranges). The line
 * runs of plumb/elfsym.h name the enclosing subprogram, so here the runs
 * are cut where the innermost function changes and renamed after it. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/elfsym.h"
#include "plumb/gprof.h"
#include "plumb/symbols.h"

typedef struct fn_range {
	uint64_t lo, hi; /* [lo, hi) */
	const char *name; /* in the pool */
	uint64_t entry;   /* lowest address of the DIE: where BFD looks for an ELF name */
	bool linkage;     /* named by its linkage name: no ELF name wanted */
} fn_range;

typedef struct elf_fn {
	uint64_t value;
	const char *name; /* in the pool */
} elf_fn;

struct plumb_gprof_lines {
	plumb_gprof_line *v;
	size_t n, cap;
	fn_range *fr;
	size_t nfr, frcap;
	char **pool;
	size_t npool;
	elf_fn *ef;
	size_t nef;
};

static const char *keep(plumb_gprof_lines *L, const char *s)
{
	for (size_t i = L->npool; i-- > 0 && i + 64 >= L->npool;)
		if (strcmp(L->pool[i], s) == 0)
			return L->pool[i]; /* repeats are usually recent */
	char **np = realloc(L->pool, (L->npool + 1) * sizeof *np);
	if (!np)
		return NULL;
	L->pool = np;
	if (!(np[L->npool] = strdup(s)))
		return NULL;
	return np[L->npool++];
}

/* BFD names a function by its linkage name when it has one. */
static const char *die_name(Dwarf_Die *die, bool *linkage)
{
	Dwarf_Attribute at;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &at));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at));
	*linkage = n != NULL;
	return n ? n : dwarf_diename(die);
}

/* Languages whose DWARF names BFD takes as linkage names (no mangling). */
static bool plain_names(int lang)
{
	switch (lang) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case DW_LANG_ObjC_plus_plus:
	case DW_LANG_D:
	case DW_LANG_Rust:
	case DW_LANG_Java:
		return false;
	default:
		return true;
	}
}

static int add_ranges(plumb_gprof_lines *L, Dwarf_Die *die, int lang)
{
	bool linkage;
	const char *name = die_name(die, &linkage);
	linkage |= plain_names(lang);
	if (!name)
		return 0;
	const char *kept = keep(L, name);
	if (!kept)
		return -1;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	size_t first = L->nfr;
	uint64_t entry = UINT64_MAX;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (L->nfr == L->frcap) {
			size_t nc = L->frcap ? L->frcap * 2 : 256;
			fn_range *n = realloc(L->fr, nc * sizeof *n);
			if (!n)
				return -1;
			L->fr = n;
			L->frcap = nc;
		}
		L->fr[L->nfr++] = (fn_range){ lo, hi, kept, 0, linkage };
		if (lo < entry)
			entry = lo;
	}
	for (size_t i = first; i < L->nfr; i++)
		L->fr[i].entry = entry;
	return 0;
}

/* Every subprogram and inlined subroutine with code, at any depth. */
static int walk(plumb_gprof_lines *L, Dwarf_Die *die, int depth, int lang)
{
	if (depth > 64)
		return 0;
	Dwarf_Die child;
	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) && add_ranges(L, &child, lang))
			return -1;
		if (dwarf_haschildren(&child) && walk(L, &child, depth + 1, lang))
			return -1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int collect(plumb_gprof_lines *L, Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hsize, &cu) && walk(L, &cu, 0, dwarf_srclang(&cu)))
			return -1;
		off = next;
	}
	return 0;
}

static int cmp_value(const void *pa, const void *pb)
{
	const elf_fn *a = pa, *b = pb;
	return a->value < b->value ? -1 : a->value > b->value;
}

static size_t text_index(Elf *elf)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    strcmp(name, ".text") == 0)
			return elf_ndxscn(scn);
	}
	return 0;
}

/* The function (and untyped) symbols of .text, every one: gprof's own
 * table drops some, BFD's lookup does not. */
static int elf_functions(plumb_gprof_lines *L, Elf *elf)
{
	size_t text = text_index(elf);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t count = sh.sh_size / sh.sh_entsize;
		if (!d || !(L->ef = malloc((count ? count : 1) * sizeof *L->ef)))
			return d ? -1 : 0;
		for (size_t k = 1; k < count; k++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(d, (int)k, &sym) || sym.st_shndx != text ||
			    (GELF_ST_TYPE(sym.st_info) != STT_FUNC && GELF_ST_TYPE(sym.st_info) != STT_NOTYPE) ||
			    !(name = elf_strptr(elf, sh.sh_link, sym.st_name)) || !*name)
				continue;
			const char *kept = keep(L, name);
			if (!kept)
				return -1;
			L->ef[L->nef++] = (elf_fn){ sym.st_value, kept };
		}
		qsort(L->ef, L->nef, sizeof *L->ef, cmp_value);
		return 0;
	}
	return 0;
}

static void elf_names(plumb_gprof_lines *L)
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

static const char *innermost(plumb_gprof_lines *L, active *a, uint64_t addr)
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

static int push(plumb_gprof_lines *L, uint64_t addr, const plumb_line_run *r, const char *fn)
{
	if (L->n == L->cap) {
		size_t nc = L->cap ? L->cap * 2 : 1024;
		plumb_gprof_line *n = realloc(L->v, nc * sizeof *n);
		if (!n)
			return -1;
		L->v = n;
		L->cap = nc;
	}
	L->v[L->n++] = (plumb_gprof_line){ .addr = addr, .file = r->file, .line = r->line, .function = fn };
	return 0;
}

/* The nearest ELF function symbol at or below addr, as BFD's ELF lookup
 * answers (sizes do not bound it: alignment padding counts). */
static const char *elf_at(const plumb_gprof_lines *L, uint64_t addr)
{
	ptrdiff_t i = PLUMB_ADDR_SEARCH(L->ef, L->nef, value, addr);
	return i >= 0 ? L->ef[i].name : NULL;
}

/* Cut each run where a function range starts or ends inside it. */
static int cut_runs(plumb_gprof_lines *L, const plumb_line_run *runs, size_t nruns)
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

plumb_gprof_lines *plumb_gprof_lines_new(const char *exe, const plumb_line_run *runs, size_t nruns,
					 plumb_error *err)
{
	plumb_gprof_lines *L = calloc(1, sizeof *L);
	if (!L) {
		plumb_fail_nomem(err);
		return NULL;
	}
	int fd = open(exe, O_RDONLY);
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	int rc = dw ? collect(L, dw) : 0;
	if (dw)
		dwarf_end(dw);
	Elf *elf = fd >= 0 && !rc && elf_version(EV_CURRENT) != EV_NONE ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (elf) {
		rc = elf_functions(L, elf);
		elf_end(elf);
	}
	if (fd >= 0)
		close(fd);
	if (!rc) {
		elf_names(L);
		qsort(L->fr, L->nfr, sizeof *L->fr, cmp_lo);
		rc = cut_runs(L, runs, nruns);
	}
	if (rc) {
		plumb_gprof_lines_free(L);
		plumb_fail_nomem(err);
		return NULL;
	}
	return L;
}

const plumb_gprof_line *plumb_gprof_lines_get(const plumb_gprof_lines *L, size_t *n)
{
	*n = L->n;
	return L->v;
}

void plumb_gprof_lines_free(plumb_gprof_lines *L)
{
	if (!L)
		return;
	for (size_t i = 0; i < L->npool; i++)
		free(L->pool[i]);
	free(L->pool);
	free(L->fr);
	free(L->ef);
	free(L->v);
	free(L);
}
