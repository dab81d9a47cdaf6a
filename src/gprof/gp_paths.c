/* Facts gprof gets from BFD beyond plumb/elfsym.h's symbol table, built
 * from what plumb/elfsym.h reads (comp dirs, raw .symtab entries).
 * Source paths: BFD joins a relative path of the line table (DWARF 5
 * keeps "../../src/x.c" when the compiler was given that) to the
 * compilation unit's directory; libdw leaves it relative. gprof prints the
 * joined path in -C, -A and -L output and opens it for -A.
 * Symbol order: gprof meets source files in ELF symbol-table order, which
 * decides the order of -A's files. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gprof/gp_internal.h"
#include "plumb/elfsym.h"

struct gp_paths {
	char **joined;      /* made here; freed with the object */
	size_t n;
};

/* The joined path for (dir, file), made once. */
static const char *joined(gp_paths *p, const char *dir, const char *file)
{
	size_t len = strlen(dir) + strlen(file) + 2;
	char *s = malloc(len);
	if (!s)
		return NULL;
	snprintf(s, len, "%s/%s", dir, file);
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->joined[i], s) == 0) {
			free(s);
			return p->joined[i];
		}
	char **nj = realloc(p->joined, (p->n + 1) * sizeof *nj);
	if (!nj) {
		free(s);
		return NULL;
	}
	p->joined = nj;
	p->joined[p->n++] = s;
	return s;
}

static void fix_all(gp_paths *p, plumb_exe *exe, plumb_gprof_symbol *syms, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *f = syms[i].file;
		if (!f || f[0] == '/')
			continue;
		const char *dir = plumb_exe_comp_dir_at(exe, syms[i].addr);
		const char *j = dir ? joined(p, dir, f) : NULL;
		if (j)
			syms[i].file = j;
	}
}

typedef struct addr_index {
	uint64_t addr;
	uint32_t index;
} addr_index;

static int cmp_ai(const void *pa, const void *pb)
{
	const addr_index *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Defined symbols of .symtab by address, each with its position. */
static addr_index *symtab_order(plumb_exe *exe, size_t *n)
{
	plumb_exe_elf_sym *all;
	size_t count;
	*n = 0;
	if (plumb_exe_elf_symbols(exe, &all, &count, NULL) || !all)
		return NULL;
	addr_index *v = malloc((count ? count : 1) * sizeof *v);
	for (size_t k = 0; v && k < count; k++)
		if (all[k].shndx != SHN_UNDEF && all[k].shndx != SHN_ABS && all[k].type != STT_SECTION &&
		    all[k].type != STT_FILE)
			v[(*n)++] = (addr_index){ all[k].value, all[k].index };
	free(all);
	if (v)
		qsort(v, *n, sizeof *v, cmp_ai);
	return v;
}

static void set_order(plumb_exe *exe, plumb_gprof_symbol *syms, size_t n)
{
	size_t m = 0;
	addr_index *v = symtab_order(exe, &m);
	for (size_t i = 0; v && i < n; i++) {
		if (!syms[i].is_func)
			continue;
		size_t lo = 0, hi = m;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (v[mid].addr < syms[i].addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < m && v[lo].addr == syms[i].addr)
			syms[i].elf_index = v[lo].index;
	}
	free(v);
}

gp_paths *gp_paths_fix(plumb_exe *exe, plumb_gprof_symbol *syms, size_t n)
{
	gp_paths *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	fix_all(p, exe, syms, n);
	set_order(exe, syms, n);
	return p;
}

void gp_paths_free(gp_paths *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->joined[i]);
	free(p->joined);
	free(p);
}
