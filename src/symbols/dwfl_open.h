/* Private to libplumb: the one way it opens object files with libdwfl.
 * libelf (symbols/elf_file.h) opens an executable by its path; libdwfl is
 * used where a file's separate debug information must be found (by
 * build-id or debuglink, under /usr/lib/debug) and where modules sit at
 * run-time addresses: the symbolizer of recordings (symbols/symbolize.c)
 * and the recorder's unwinder, which needs libdwfl's CFI unwinding over a
 * process's modules (record/unwind.c). */
#ifndef PLUMB_SYMBOLS_DWFL_OPEN_H
#define PLUMB_SYMBOLS_DWFL_OPEN_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

/* A new Dwfl that finds an object's ELF by build-id and its debug files
 * under *debuginfo_path (debuginfo_path or *debuginfo_path NULL: the
 * standard places). cb is filled here; libdwfl keeps pointers to it and to
 * debuginfo_path, which must outlive the Dwfl. NULL when out of memory. */
Dwfl *plumb_dwfl_open(Dwfl_Callbacks *cb, char **debuginfo_path);

/* Add the object file at path to dwfl, its ELF addresses moved by bias
 * (run-time address - ELF address; 0 for the file's own addresses). fd is
 * an open descriptor of it, consumed, or -1 to open path. NULL when it
 * cannot be read as an object file. */
Dwfl_Module *plumb_dwfl_add_object(Dwfl *dwfl, const char *path, int fd, uint64_t bias);

/* The load bias of a mapping of the object open at fd: mapped at start
 * from file offset pgoff, through the PT_LOAD segment holding pgoff. */
bool plumb_elf_map_bias(int fd, uint64_t start, uint64_t pgoff, uint64_t *bias);

#endif
