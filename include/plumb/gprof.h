/* plumb: GNU gprof's analysis and reports as a library.
 *
 * A plumb_gprof holds what gprof works from: the executable's symbol table
 * (as gprof builds it), the histogram records and the call arcs of one or
 * more gmon.out files, and the symspec options. plumb_gprof_analyze() then
 * does what gprof 2.40 does, with the same arithmetic: samples credited to
 * symbols by bin overlap, arcs mapped to symbols and filtered, cycles found
 * and numbered, time propagated from callees to callers in proportion to
 * call counts. The printers write gprof's reports to a FILE* given by the
 * caller; nothing here prints elsewhere or exits. Files are touched only
 * by the functions that say so: the executable by plumb_gprof_symtab_load
 * (through plumb/elfsym.h: src/gprof opens no ELF or DWARF itself),
 * gmon.sum by plumb_gprof_write_sum, sources for -A through the caller's
 * callbacks. The gmon files are read by plumb/gmon.h.
 *
 * gprof's inclusive ("children") times are an estimate: a callee's time is
 * shared among its callers in proportion to the calls each made. plumb
 * report computes its own (src/analysis/propagate.c); this engine serves
 * the gprof front end only.
 */
#ifndef PLUMB_GPROF_H
#define PLUMB_GPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plumb/error.h"

typedef struct plumb_gprof plumb_gprof;
struct plumb_exe;
struct plumb_gmon;
struct plumb_symtab;

/* One entry of gprof's symbol table. */
typedef struct plumb_gprof_symbol {
	uint64_t addr;       /* first byte */
	uint64_t end_addr;   /* last byte, inclusive; 0: up to the next symbol */
	const char *name;    /* raw (mangled) name: what symspecs match */
	const char *display; /* demangled name to print, or NULL for name */
	const char *file;    /* source path as recorded in debug info, or NULL */
	unsigned line;       /* line of the address, 0 when unknown */
	bool is_static;      /* local symbol: the index shows "(file)" */
	bool is_func;        /* STT_FUNC; false for untyped labels and -l's line symbols */
	uint32_t elf_index;  /* position in the ELF symbol table, 0 unknown: gprof
			      * meets source files in this order (-A's order) */
} plumb_gprof_symbol;

/* gprof's twelve symspec tables. */
typedef enum plumb_gprof_table {
	PLUMB_GP_INCL_GRAPH, PLUMB_GP_EXCL_GRAPH,
	PLUMB_GP_INCL_ARCS, PLUMB_GP_EXCL_ARCS,
	PLUMB_GP_INCL_FLAT, PLUMB_GP_EXCL_FLAT,
	PLUMB_GP_INCL_TIME, PLUMB_GP_EXCL_TIME,
	PLUMB_GP_INCL_ANNO, PLUMB_GP_EXCL_ANNO,
	PLUMB_GP_INCL_EXEC, PLUMB_GP_EXCL_EXEC,
	PLUMB_GP_NTABLES
} plumb_gprof_table;

/* Options that change the analysis or the layout (gprof's letters). */
typedef struct plumb_gprof_opts {
	bool brief;          /* -b: no explanations */
	bool zeros;          /* -z: also symbols never called and without time */
	bool bsd;            /* -T: traditional BSD layout */
	bool line;           /* -l: the table holds line symbols too */
	bool print_path;     /* -L: full source paths */
	bool inline_names;   /* --inline-file-names: "name (file:line)" */
	bool static_calls;   /* -c: arcs found in the code (see plumb_gprof_add_static_call) */
	bool all_lines;      /* -x: annotate every line of a basic block */
	int width;           /* -w: index width (default 80) */
	unsigned long min_count; /* -m: lines run fewer times show "#####" (default 1) */
	int table_length;    /* -t: rows of "Top N Lines" (default 10) */
} plumb_gprof_opts;

void plumb_gprof_opts_init(plumb_gprof_opts *o);

/* Sort symbols by address and drop duplicates at one address the way gprof
 * does (global over static, function over line, fewer leading '_'), then
 * give every symbol without one an end: the next symbol's start - 1, or
 * text_end - 1 for the last. Returns the new count. */
size_t plumb_gprof_finalize_symbols(plumb_gprof_symbol *syms, size_t n, uint64_t text_end);

/* gprof's symbol table of an executable, as its options make it: the
 * function symbols of plumb/elfsym.h (demangled for printing unless
 * no_demangle), with -l the line symbols too, finalized, source paths
 * joined as BFD joins them and ELF order set (what -A's order follows).
 * The executable stays open with the table (the gmon layout and -c read
 * it); symbols and their strings live until plumb_gprof_symtab_free. */
typedef struct plumb_gprof_symtab_opts {
	bool no_static;      /* -a: drop local symbols */
	bool funcs_only;     /* -D: only symbols typed as functions */
	bool no_demangle;    /* --no-demangle */
	bool line;           /* -l: line symbols too */
} plumb_gprof_symtab_opts;
typedef struct plumb_gprof_symtab plumb_gprof_symtab;
plumb_gprof_symtab *plumb_gprof_symtab_load(const char *exe, const plumb_gprof_symtab_opts *o,
					    plumb_error *err);
const plumb_gprof_symbol *plumb_gprof_symtab_symbols(const plumb_gprof_symtab *t, size_t *n);
/* Give back the symbol array once the engine has its copy (plumb_gprof_new):
 * gprof's peak memory comes next, when the gmon.out data joins. The names,
 * files and the executable stay; plumb_gprof_symtab_symbols then has none. */
void plumb_gprof_symtab_drop_symbols(plumb_gprof_symtab *t);
struct plumb_exe *plumb_gprof_symtab_exe(const plumb_gprof_symtab *t);
void plumb_gprof_symtab_free(plumb_gprof_symtab *t);

/* A new analysis over a finalized symbol table (copied; the strings must
 * outlive the object). NULL after filling err. */
plumb_gprof *plumb_gprof_new(const plumb_gprof_symbol *syms, size_t n, const plumb_gprof_opts *o,
			     plumb_error *err);
void plumb_gprof_free(plumb_gprof *g);

/* Inputs, in the order gprof reads them. A histogram whose range equals
 * an earlier one's is added bin by bin; the first one sets hz, the unit
 * ("seconds") and its abbreviation ('s'); a different unit, abbreviation
 * or scale, or a partial overlap, is an error. Bins are kept in 32 bits
 * (gprof keeps an int), saturating. */
int plumb_gprof_add_hist(plumb_gprof *g, uint64_t low_pc, uint64_t high_pc, uint32_t nbins,
			 const uint64_t *bins, uint32_t hz, const char *dimen, char abbrev,
			 plumb_error *err);
/* The same, taking *bins (malloc'd) when the range is new: the engine
 * narrows them in place and *bins becomes NULL; else they are only read. */
int plumb_gprof_take_hist(plumb_gprof *g, uint64_t low_pc, uint64_t high_pc, uint32_t nbins,
			  uint64_t **bins, uint32_t hz, const char *dimen, char abbrev, plumb_error *err);
/* One arc record (from_pc in the caller, self_pc in the callee). Records
 * that hit no symbol are dropped, as the INCL_ARCS/EXCL_ARCS tables say. */
void plumb_gprof_add_arc(plumb_gprof *g, uint64_t from_pc, uint64_t self_pc, uint64_t count);
/* A basic-block count. As in gprof, used only with -l: kept on the symbol
 * holding it (ten per symbol at most) for -C, -A and -s. */
void plumb_gprof_add_bb(plumb_gprof *g, uint64_t addr, uint64_t count);
/* -c: a direct call found in the code from the symbol at 'from' to the one
 * starting at 'to' (an arc with count 0 when none exists). */
void plumb_gprof_add_static_call(plumb_gprof *g, uint64_t from, uint64_t to);

/* -c: scan code for x86 direct calls, gprof's way (see src/gprof/gp_scan.c:
 * calls to lower addresses are not found, as in gprof 2.40), adding each
 * hit with plumb_gprof_add_static_call. text holds the bytes at vma. The
 * histograms must have been added. _elf reads .text of the executable;
 * other machines than x86 fail with PLUMB_ERR_UNSUPPORTED. */
int plumb_gprof_scan_calls(plumb_gprof *g, uint64_t vma, const unsigned char *text, size_t len);
int plumb_gprof_scan_calls_elf(plumb_gprof *g, struct plumb_exe *exe, plumb_error *err);

/* A symspec ("file.c", "func", "12", "file.c:func", "from/to") for a table.
 * Specs are resolved against the table when analyzing; one that matches
 * nothing has no effect. Errors only for memory. */
int plumb_gprof_add_spec(plumb_gprof *g, plumb_gprof_table t, const char *spec, plumb_error *err);

/* Resolve specs, assign samples, build the call graph, find cycles,
 * propagate time. Arcs and histograms must all be added before. */
int plumb_gprof_analyze(plumb_gprof *g, plumb_error *err);

bool plumb_gprof_has_hist(const plumb_gprof *g);
bool plumb_gprof_has_arcs(const plumb_gprof *g);

/* Reports (after analyze). Each begins with a form feed line unless it is
 * the first thing written by this object, as gprof separates sections. */
int plumb_gprof_print_flat(plumb_gprof *g, FILE *out);
/* Something was printed before the first report (gprof -i's file
 * information): the first report then starts with a form feed too. */
void plumb_gprof_after_output(plumb_gprof *g);
int plumb_gprof_print_graph(plumb_gprof *g, FILE *out);
int plumb_gprof_print_index(plumb_gprof *g, FILE *out);
int plumb_gprof_print_exec_counts(plumb_gprof *g, FILE *out);
/* -r: gprof's suggested link order of the functions, one name a line. */
int plumb_gprof_print_function_order(plumb_gprof *g, FILE *out);

/* -A: annotated source. Files are opened through open_source (searching
 * -I directories is the caller's business); with -y (to_files) each file
 * goes to out_for(ctx, name) instead of out, where name is the source's
 * basename followed by "-ann" with every '/' removed: never a path. */
typedef struct plumb_gprof_source_io {
	FILE *(*open_source)(void *ctx, const char *path);
	FILE *(*open_output)(void *ctx, const char *name); /* -y; NULL: write to out */
	void *ctx;
} plumb_gprof_source_io;
int plumb_gprof_print_annotated(plumb_gprof *g, FILE *out, const plumb_gprof_source_io *io,
				plumb_error *err);

/* -i: what the gmon file name holds (g, read from it alone): its version
 * and its histogram, arc and block records as they stand in the file. */
int plumb_gprof_print_file_info(const char *name, const struct plumb_gmon *g, FILE *out);

/* Every histogram, arc and block count of a gmon reading (plumb/gmon.h)
 * with plumb_gprof_add_hist/_arc/_bb. Old BSD files carry no clock rate:
 * 100 Hz is taken, as gprof takes the host's. */
int plumb_gprof_add_gmon(plumb_gprof *g, const struct plumb_gmon *gm, plumb_error *err);
/* The same, moving the histograms' bins and the arcs into the engine (their
 * copies would double gprof's peak memory); gm is left with NULL bins and
 * no arcs, only fit to be freed. */
int plumb_gprof_take_gmon(plumb_gprof *g, struct plumb_gmon *gm, plumb_error *err);

/* gprof's default specs: the mcount family (mcount, _mcount, __mcleanup,
 * __mcount_internal, ...) kept out of time propagation, the call graph and
 * the flat profile (their samples leave the total). No effect on
 * executables without them. */
int plumb_gprof_add_default_specs(plumb_gprof *g, plumb_error *err);

/* -s: write gm (the files read, as plumb/gmon.h sums them) to path in the
 * GNU format, version 1, with the arcs and block counts as gprof writes
 * them into gmon.sum: one arc per symbol pair (from the caller's symbol
 * address to the callee's; symbols in address order, each one's callees
 * newest first; arcs from -c left out) and, with -l, the block counts kept
 * on the symbols. After analyze and before any printing. */
int plumb_gprof_write_sum(const plumb_gprof *g, const struct plumb_gmon *gm, const char *path,
			  plumb_error *err);

#endif
