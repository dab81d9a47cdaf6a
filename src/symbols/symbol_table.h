/* An object's ELF symbols sorted by address (symbol_table.c): the name
 * dwfl_module_addrinfo would give, without its walk over every symbol. */
#ifndef PLUMB_SYMBOL_TABLE_H
#define PLUMB_SYMBOL_TABLE_H

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdint.h>

typedef struct plumb_symbol_table plumb_symbol_table;

/* The module's symbols, read once; NULL when out of memory. */
plumb_symbol_table *plumb_symbol_table_new(Dwfl_Module *mod);
void plumb_symbol_table_free(plumb_symbol_table *t);
/* The symbol naming addr (a module address, as dwfl_module_addrinfo takes
 * it), or NULL. The name lives as long as the module. */
const char *plumb_symbol_table_find(const plumb_symbol_table *t, uint64_t addr);

#endif
