/* plumb: ELF symbols and disassembly (libelf + capstone).
 *
 * Used by per-instruction annotation: a profile's addresses are run-time
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
