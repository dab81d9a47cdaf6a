/* Source paths as gprof shows them. BFD joins a relative path of the
 * line table (DWARF 5 keeps "../../src/x.c" when the compiler was given
 * that) to the compilation unit's directory; libdw leaves it relative.
 * gprof prints the joined path in -C, -A and -L output and opens it for
 * -A, so relative paths are joined here the same way. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
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

plumb_gprof_paths *plumb_gprof_paths_fix(const char *exe, plumb_gprof_symbol *syms, size_t n)
{
	plumb_gprof_paths *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	int fd = open(exe, O_RDONLY);
	if (fd < 0)
		return p;
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
	if (dw) {
		fix_all(p, dw, syms, n);
		dwarf_end(dw);
	}
	close(fd);
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
