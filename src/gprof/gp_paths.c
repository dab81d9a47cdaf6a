/* Facts gprof gets from BFD that plumb/elfsym.h does not give.
 * Source paths: BFD joins a relative path of the line table (DWARF 5
 * keeps "../../src/x.c" when the compiler was given that) to the
 * compilation unit's directory; libdw leaves it relative. gprof prints the
 * joined path in -C, -A and -L output and opens it for -A.
 * Symbol order: gprof meets source files in ELF symbol-table order, which
 * decides the order of -A's files. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/gprof.h"

struct plumb_gprof_paths {
	char **joined;      /* made here; freed with the object */
	size_t n;
};

static const char *comp_dir_at(Dwarf *dw, uint64_t addr)
{
	Dwarf_Die cu;
	if (!dwarf_addrdie(dw, addr, &cu))
		return NULL;
	Dwarf_Attribute at;
	return dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at));
}

/* The joined path for (dir, file), made once. */
static const char *joined(plumb_gprof_paths *p, const char *dir, const char *file)
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

static void fix_all(plumb_gprof_paths *p, Dwarf *dw, plumb_gprof_symbol *syms, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *f = syms[i].file;
		if (!f || f[0] == '/')
			continue;
		const char *dir = comp_dir_at(dw, syms[i].addr);
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
static addr_index *symtab_order(Elf *elf, size_t *n)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t count = sh.sh_size / sh.sh_entsize;
		addr_index *v = malloc((count ? count : 1) * sizeof *v);
		if (!d || !v) {
			free(v);
			return NULL;
		}
		*n = 0;
		for (size_t k = 1; k < count; k++) {
			GElf_Sym sym;
			if (gelf_getsym(d, (int)k, &sym) && sym.st_shndx != SHN_UNDEF && sym.st_shndx != SHN_ABS &&
			    GELF_ST_TYPE(sym.st_info) != STT_SECTION && GELF_ST_TYPE(sym.st_info) != STT_FILE)
				v[(*n)++] = (addr_index){ sym.st_value, (uint32_t)k };
		}
		qsort(v, *n, sizeof *v, cmp_ai);
		return v;
	}
	return NULL;
}

static void set_order(const char *exe, plumb_gprof_symbol *syms, size_t n)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	int fd = open(exe, O_RDONLY);
	if (fd < 0)
		return;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t m = 0;
	addr_index *v = elf ? symtab_order(elf, &m) : NULL;
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
	if (elf)
		elf_end(elf);
	close(fd);
}

plumb_gprof_paths *plumb_gprof_paths_fix(const char *exe, plumb_gprof_symbol *syms, size_t n)
{
	plumb_gprof_paths *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	bool relative = false; /* DWARF is read only when some path needs it */
	for (size_t i = 0; i < n && !relative; i++)
		relative = syms[i].file && syms[i].file[0] != '/';
	int fd = relative ? open(exe, O_RDONLY) : -1;
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	if (dw) {
		fix_all(p, dw, syms, n);
		dwarf_end(dw);
	}
	if (fd >= 0)
		close(fd);
	set_order(exe, syms, n);
	return p;
}

void plumb_gprof_paths_free(plumb_gprof_paths *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->joined[i]);
	free(p->joined);
	free(p);
}
