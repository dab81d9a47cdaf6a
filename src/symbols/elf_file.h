/* Private to src/symbols: opening an ELF file for reading, shared by the
 * symbol table (elfsym.c) and the disassembler (disasm.c). */
#ifndef PLUMB_SYMBOLS_ELF_FILE_H
#define PLUMB_SYMBOLS_ELF_FILE_H

#include <gelf.h>
#include <libelf.h>

#include "plumb/error.h"

/* Open path and read its ELF header into *fd, *elf and *ehdr. what names
 * the file in messages ("executable", "object"). On failure nothing is
 * left open and *fd is -1. */
int plumb_elf_file_open(const char *path, const char *what, int *fd, Elf **elf, GElf_Ehdr *ehdr,
			plumb_error *err);
/* Close what plumb_elf_file_open opened (either may be absent). */
void plumb_elf_file_close(int fd, Elf *elf);

#endif
