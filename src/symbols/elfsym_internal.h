/* Private parts of plumb_exe shared by elfsym.c (ELF symbols) and
 * elfsym_dwarf.c (DWARF lines). */
#ifndef PLUMB_ELFSYM_INTERNAL_H
#define PLUMB_ELFSYM_INTERNAL_H

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include "plumb/elfsym.h"

/* One line-table row kept for lookups: the last row at an address of a
 * sequence (as BFD keeps it); end rows close a sequence. */
typedef struct exe_row {
	uint64_t addr;
	const char *file;
	uint32_t line;
	bool end;
	size_t idx;     /* position in the line tables: the last tie-break */
} exe_row;

/* A DWARF subprogram's address range and name. */
typedef struct exe_func {
	uint64_t lo, hi;
	const char *name;
} exe_func;

struct plumb_exe {
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	plumb_exe_info info;
	char *path;
	/* DWARF, loaded on first use */
	bool dwarf_loaded;
	Dwarf *dw;
	exe_row *rows;
	size_t nrows;
	exe_func *funcs;
	size_t nfuncs;
};

/* Load the line table and function ranges once (no DWARF is not an error:
 * lookups then answer "unknown"). */
int plumb_exe_load_dwarf(plumb_exe *e, plumb_error *err);
void plumb_exe_free_dwarf(plumb_exe *e);

#endif
