/* capstone, loaded the first time something disassembles. Linking it costs
 * every plumb command 3.3 MB of resident memory (its tables are relocated
 * at load), and only annotate --disasm and call-site decoding need it. */
#ifndef PLUMB_CAPSTONE_LIB_H
#define PLUMB_CAPSTONE_LIB_H

#include <capstone/capstone.h>

#include "plumb/error.h"

typedef struct plumb_capstone {
	cs_err (*open)(cs_arch arch, cs_mode mode, csh *handle);
	cs_err (*close)(csh *handle);
	size_t (*disasm)(csh handle, const uint8_t *code, size_t size, uint64_t address, size_t count,
			 cs_insn **insn);
	void (*free)(cs_insn *insn, size_t count);
} plumb_capstone;

/* The library's functions, or NULL with err set (err may be NULL) when it
 * cannot be loaded. Thread-safe; loaded once, never unloaded. */
const plumb_capstone *plumb_capstone_get(plumb_error *err);

#endif
