/* plumb: an executable's function symbols, as GNU gprof sees them, its
 * DWARF line table and scopes, its raw .symtab and .text (libelf, libdw,
 * libiberty's demangler). The executable is opened once (plumb_exe) and
 * every reading goes through that handle.
 *
 * gprof's symbol table (binutils 2.40, docs/gmon.md):
 *  - kept: defined symbols in a code section (.text, .init, .fini, .plt)
 *    that are global ('T'), weak ('W', whatever their type: a weak data
 *    symbol such as data_start counts as text) or local ('t'); local ones
 *    are dropped when the name is empty or holds '$', or a '.' not
 *    followed by digits, ".clone.<digits>" or ".constprop.<digits>"
 *    ("f.part.0", "f.isra.0" and "f.cold" go), and with
 *    PLUMB_SYMTAB_NO_STATIC; as in gprof 2.40, a name that ends inside an
 *    accepted suffix ("f.constprop.0", "f.5") makes the test run on into
 *    the following names of .strtab, and a refused one there drops it too;
 *    STT_SECTION, STT_FILE, IFUNC and GNU-unique symbols never count,
 *    nor do weak objects; no synthetic PLT symbols ("puts@plt") are made
 *    (gprof 2.40 on x86-64 shows none either);
 *  - addresses are st_value, which for a PIE (ET_DYN) are the same
 *    load-relative addresses that glibc writes into gmon.out;
 *  - sorted by address, then function symbols first, then globals first,
 *    then symbol-table order; of several symbols at one address (aliases)
 *    the first is kept, and each later one replaces it if it is global and
 *    the kept one static, or both are alike and it has no leading '_' where
 *    the kept one has, or "_x" against "__x" (gprof's symtab_finalize);
 *    the others are listed as the kept symbol's aliases;
 *  - each kept symbol covers [addr, end_addr] with end_addr = next kept
 *    symbol's addr - 1 (the last one: the end of .text - 1, or its own
 *    address if it lies beyond .text, where gprof maps nothing); st_size is
 *    not used, so a zero-sized symbol (an assembler label) owns the bytes
 *    up to the next symbol, as in gprof;
 *  - each symbol's file and line come from the DWARF line table at its
 *    address (gprof's bfd_find_nearest_line); gprof prints the file of a
 *    static symbol, so it is kept for every symbol and callers choose.
 */
#ifndef PLUMB_ELFSYM_H
#define PLUMB_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plumb/error.h"
#include "plumb/gmon.h"

typedef struct plumb_exe plumb_exe;

typedef struct plumb_exe_info {
	const char *path;
	unsigned addr_size;   /* 4 (ELFCLASS32) or 8 (ELFCLASS64) */
	bool big_endian;      /* ELFDATA2MSB */
	uint16_t machine;     /* e_machine: EM_X86_64, EM_386, EM_AARCH64, ... */
	uint16_t type;        /* e_type: ET_EXEC, ET_DYN, ... */
	bool pie;             /* ET_DYN: addresses are relative to the load address */
	uint64_t text_lo;     /* .text: [text_lo, text_hi); both 0 if there is none */
	uint64_t text_hi;
	bool has_symtab;      /* a .symtab (not only .dynsym) */
	bool has_dwarf;       /* .debug_info and a line table */
} plumb_exe_info;

/* Open an ELF executable or shared object. Fails with PLUMB_ERR_IO
 * (missing, unreadable) or PLUMB_ERR_FORMAT (not ELF) naming the path. */
plumb_exe *plumb_exe_open(const char *path, plumb_error *err);
void plumb_exe_close(plumb_exe *e);
const plumb_exe_info *plumb_exe_get_info(const plumb_exe *e);

/* The layout gmon files written by this executable have (address size,
 * byte order); format AUTO. */
plumb_gmon_layout plumb_exe_gmon_layout(const plumb_exe *e);

/* ---- gprof's symbol table --------------------------------------------- */

typedef struct plumb_exe_sym {
	uint64_t addr;          /* st_value (section-relative values made absolute) */
	uint64_t end_addr;      /* last address it owns (see above) */
	uint64_t size;          /* st_size; 0 for a zero-sized symbol */
	const char *name;       /* raw (linkage, mangled) name, as gprof matches symspecs */
	const char *demangled;  /* demangled, or == name when it is not mangled */
	const char *file;       /* source file at addr as DWARF records it, or NULL */
	uint32_t line;          /* line at addr, 0 if unknown */
	bool is_static;         /* local binding ('t') */
	bool is_func;           /* STT_FUNC (or synthetic PLT entry) */
	bool is_weak;           /* STB_WEAK */
	const char **aliases;   /* other names at addr that gprof dropped */
	size_t naliases;
} plumb_exe_sym;

enum {
	PLUMB_SYMTAB_NO_STATIC = 1u << 0,   /* gprof -a: drop local symbols */
	PLUMB_SYMTAB_FUNCS_ONLY = 1u << 1,  /* gprof -D: drop non-STT_FUNC symbols */
	PLUMB_SYMTAB_NO_DWARF = 1u << 2     /* skip file/line lookup (faster) */
};

typedef struct plumb_symtab {
	plumb_exe_sym *syms;    /* sorted by addr, addresses distinct */
	size_t n;
	/* private */
	char *strings;
	void *priv;
} plumb_symtab;

/* Build gprof's table of function symbols. Fails (PLUMB_ERR_FORMAT) when no
 * symbol is kept, as gprof does ("file has no symbols"). */
int plumb_symtab_build(plumb_exe *e, unsigned flags, plumb_symtab **out, plumb_error *err);
void plumb_symtab_free(plumb_symtab *st);

/* Index of the symbol with addr <= a <= end_addr, or -1. O(log n). */
ptrdiff_t plumb_symtab_lookup(const plumb_symtab *st, uint64_t a);

/* Demangle a C++ (or other libiberty-known) linkage name with gprof's
 * options (DMGL_PARAMS | DMGL_ANSI); NULL if it is not mangled. malloc'd. */
char *plumb_demangle(const char *mangled);

/* ---- gmon data on the symbols (gprof's hist.c and cg_arcs.c rules) ------ */

/* Credit every histogram bin to the symbols it overlaps, as gprof does:
 * in 2-byte units with truncated bin edges, credit = overlap * count /
 * hist_scale. time[i] (st->n doubles, zeroed here) receives symbol i's
 * samples; *total the raw sum of all bins. Bins outside every symbol are
 * counted in *total only. */
int plumb_gmon_hist_assign(const plumb_gmon *g, const plumb_symtab *st, double *time,
			   double *total, plumb_error *err);

/* One arc between two symbols: several gmon arcs whose from_pc and self_pc
 * land in the same pair of symbols are one (counts summed), in the order
 * the pairs first appear. Arcs whose ends hit no symbol are dropped. */
typedef struct plumb_sym_arc {
	size_t parent;          /* symbol index of the caller */
	size_t child;           /* symbol index of the callee */
	uint64_t count;
} plumb_sym_arc;

/* *out is malloc'd (free it), *n arcs. */
int plumb_gmon_sym_arcs(const plumb_gmon *g, const plumb_symtab *st, plumb_sym_arc **out,
			size_t *n, plumb_error *err);

/* ---- DWARF lines (libdw) ---------------------------------------------- */

typedef struct plumb_line_loc {
	const char *file;       /* as the line table records it (often absolute) */
	uint32_t line;          /* 0 if unknown */
	const char *function;   /* DWARF subprogram name at the address, or NULL */
} plumb_line_loc;

/* The line of an address: the line-table row with the greatest address
 * <= addr within its sequence (what bfd_find_nearest_line answers); 0 with
 * loc->line 0 and NULL names when no row covers it. Strings live as long
 * as e. */
int plumb_exe_line_at(plumb_exe *e, uint64_t addr, plumb_line_loc *loc, plumb_error *err);

/* One run of addresses with the same (file, line, function): gprof -l's
 * line symbols are these runs, found by gprof with one lookup per byte of
 * .text; here from the line table directly. */
typedef struct plumb_line_run {
	uint64_t addr;          /* first address of the run */
	uint64_t end;           /* one past its last address */
	const char *file;
	uint32_t line;
	const char *function;   /* DWARF subprogram name, or NULL */
} plumb_line_run;

/* The runs covering .text, sorted by address (gaps where no row applies).
 * *out is malloc'd (free it); strings live as long as e. */
int plumb_exe_line_runs(plumb_exe *e, plumb_line_run **out, size_t *n, plumb_error *err);

/* ---- what BFD answers beyond gprof's table ---------------------------- */

/* Every .symtab entry as it stands (none without a .symtab), in table
 * order, entry 0 left out. *out is malloc'd; names live as long as e. */
typedef struct plumb_exe_elf_sym {
	uint64_t value;         /* st_value */
	const char *name;       /* "" when it has none */
	uint32_t index;         /* position in .symtab */
	uint32_t shndx;         /* st_shndx: SHN_UNDEF, SHN_ABS, a section index */
	uint8_t type;           /* STT_FUNC, STT_NOTYPE, ... */
	bool in_text;           /* defined in .text */
} plumb_exe_elf_sym;
int plumb_exe_elf_symbols(plumb_exe *e, plumb_exe_elf_sym **out, size_t *n, plumb_error *err);

/* The bytes of .text at its address; *len 0 when there is none. They live
 * as long as e. */
int plumb_exe_text(plumb_exe *e, uint64_t *addr, const unsigned char **bytes, size_t *len,
		   plumb_error *err);

/* One address range of a DWARF function or inlined instance. A scope with
 * several ranges gives one entry each; the innermost scope at an address
 * is the shortest range holding it. */
typedef struct plumb_exe_scope {
	uint64_t lo, hi;        /* [lo, hi) */
	uint64_t entry;         /* lowest address of the scope (all its ranges) */
	const char *name;       /* linkage name, else the DWARF name; lives as long as e */
	bool linkage;           /* a linkage name, or a language that does not mangle */
} plumb_exe_scope;
/* Every function and inlined instance with code, in DWARF order (units,
 * then depth first). *out is malloc'd; none without DWARF. */
int plumb_exe_scopes(plumb_exe *e, plumb_exe_scope **out, size_t *n, plumb_error *err);

/* DW_AT_comp_dir of the compilation unit holding addr, or NULL. */
const char *plumb_exe_comp_dir_at(plumb_exe *e, uint64_t addr);

#endif
