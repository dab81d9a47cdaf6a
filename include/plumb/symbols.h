/* plumb: ELF symbols and disassembly (libelf + capstone), the symbolizer
 * of recorded addresses (libdwfl), and the one search of address-sorted
 * tables.
 *
 * Symbols and disassembly are used by per-instruction annotation: a profile's addresses are run-time
 * addresses; for a position-independent object they are the ELF's
 * addresses plus a load bias, found from a function's symbol and the
 * function's entry address in the profile.
 */
#ifndef PLUMB_SYMBOLS_H
#define PLUMB_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "plumb/error.h"

typedef struct plumb_elf plumb_elf;

/* Open an ELF object (executable or shared library). */
plumb_elf *plumb_elf_open(const char *path, plumb_error *err);
void plumb_elf_close(plumb_elf *e);

typedef struct plumb_elf_function {
	uint64_t value;    /* the symbol's address in the ELF (st_value) */
	uint64_t size;     /* st_size; 0 if the symbol has none */
	uint64_t bias;     /* run-time address - ELF address */
} plumb_elf_function;

/* The function symbol called name (.symtab, then .dynsym) that the profile
 * saw entered at run-time address entry: the bias entry - st_value must be 0
 * for a fixed-address executable and page-aligned otherwise. Fails with
 * PLUMB_ERR_FORMAT when no symbol of that name fits. */
int plumb_elf_find_function(const plumb_elf *e, const char *name, uint64_t entry,
			    plumb_elf_function *out, plumb_error *err);

typedef struct plumb_insn {
	uint64_t address;  /* ELF address, as objdump shows it */
	uint16_t size;
	char text[200];    /* "mov eax, dword ptr [rbp - 4]" (Intel syntax on x86) */
} plumb_insn;

/* Disassemble the ELF bytes at [address, address + size) for the object's
 * machine (x86-64, i386, AArch64, ARM). *out is malloc'd (free it); *n may
 * be short of size when bytes do not decode. */
int plumb_elf_disasm(plumb_elf *e, uint64_t address, uint64_t size, plumb_insn **out, size_t *n,
		     plumb_error *err);

/* ---- recorded addresses (libdwfl) ------------------------------------- */

/* Addresses of a recording -> function, file, line and inline chain: each
 * object file with its separate debug information (build-id, debuglink,
 * /usr/lib/debug), ELF symbols, DWARF lines and inlined frames. */

/* One frame of an address: an inlined call gives several, innermost first;
 * the outer ones carry the line of the inlined call site. */
typedef struct plumb_sym_frame {
	const char *function;      /* demangled; "module+0x1234" when unknown */
	const char *mangled;       /* linkage name or NULL */
	const char *file;          /* source file or NULL */
	uint32_t line;             /* 0 if unknown */
	const char *decl_file;     /* the function's own file and line, or NULL/0 */
	uint32_t decl_line;
	uint64_t address;          /* the ELF address (as objdump shows it) */
} plumb_sym_frame;

typedef struct plumb_symbolizer plumb_symbolizer;

/* debug_path: where separate debug files live (NULL: /usr/lib/debug). */
plumb_symbolizer *plumb_symbolizer_new(const char *debug_path, plumb_error *err);
void plumb_symbolizer_free(plumb_symbolizer *s);
/* The frames of file offset off in the object at path. Up to max frames go
 * to out; the count is returned (at least 1, the fallback name when nothing
 * resolves; -1 with err on a bad argument). Strings live as long as s. */
int plumb_symbolize(plumb_symbolizer *s, const char *path, uint64_t off,
		    plumb_sym_frame *out, size_t max, plumb_error *err);
/* The build-id of the object at path as hex into out[41]; "" if none. */
void plumb_symbolizer_build_id(plumb_symbolizer *s, const char *path, char out[41]);

/* ---- address-sorted tables ---------------------------------------------- */

/* The one "what is at this address" search of libplumb: in n entries
 * sorted by start address, the index of the last one starting at or
 * before addr, or -1 when none does (the caller checks the entry's end).
 * Entries are stride bytes apart from base, each one's start a uint64_t
 * at byte offset start_off (offsetof). PLUMB_ADDR_SEARCH(v, n, field, addr)
 * does it on an array v. */
ptrdiff_t plumb_addr_search(const void *base, size_t n, size_t stride, size_t start_off, uint64_t addr);
#define PLUMB_ADDR_SEARCH(v, n, field, addr) \
	plumb_addr_search((v), (n), sizeof *(v), offsetof(__typeof__(*(v)), field), (addr))

#endif
