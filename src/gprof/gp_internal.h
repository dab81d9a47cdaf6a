/* Private to src/gprof: the analysis state shared by its files. Field
 * names follow the quantities of gprof's algorithms (research gprof.md §2). */
#ifndef PLUMB_GP_INTERNAL_H
#define PLUMB_GP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "plumb/elfsym.h"
#include "plumb/gmon.h"
#include "plumb/gprof.h"

#define GP_NONE UINT32_MAX

typedef struct gp_arc {
	uint32_t parent, child;          /* symbols (cycle headers never appear) */
	uint32_t next_parent, next_child; /* links of the child's / parent's list */
	uint64_t count;
	double time, child_time;         /* propagated shares, scaled by the parent's fract */
} gp_arc;

typedef struct gp_sym {
	plumb_gprof_symbol s;
	uint64_t ncalls, self_calls;
	uint32_t bb_first, bb_last;      /* its basic blocks (-l), GP_NONE when none */
	uint32_t nbb;
	double time;                     /* histogram credit, in samples */
	double child_time;               /* children time, unscaled (flat total/call) */
	double fract, prop_self, prop_child;
	uint32_t parents, children;      /* arc list heads */
	uint32_t cyc_head, cyc_next;     /* cycle membership (head is self when none) */
	int top_order;
	int cyc_num;
	int index;                       /* call-graph index number */
	bool print_flag;
	bool is_cycle;                   /* a <cycle N as a whole> pseudo-symbol */
} gp_sym;

/* A resolved symspec table: address ranges, sorted, as gprof's Sym_Table. */
typedef struct gp_range {
	uint64_t addr, end_addr;
	const char *name;
	bool is_static, is_func;
	uint32_t first_right, nright;    /* arc specs: indexes into gp_spec_tab.right */
} gp_range;

typedef struct gp_spec_tab {
	gp_range *r;
	size_t n;
} gp_spec_tab;

typedef struct gp_hist {
	uint64_t low, high;
	uint32_t nbins;
	uint32_t *bins;                  /* 32 bits as gprof's int; saturating */
} gp_hist;

/* An arc record as read: from_pc in the caller, self_pc in the callee; the
 * gmon reader's own type, so that its array can move into the engine. */
typedef plumb_gmon_arc gp_rawarc;

/* A basic-block count record as read (-l places it on its symbol). */
typedef struct gp_bb_count {
	uint64_t addr, count;
} gp_bb_count;

/* -c: a direct call found in the code, from an address in the caller to
 * the callee's first byte. */
typedef struct gp_static_call {
	uint64_t from, to;
} gp_static_call;

/* A basic block counted in a gmon file, kept on its symbol (-l only). */
typedef struct gp_bb {
	uint64_t addr, count;
	uint32_t next;
} gp_bb;

enum { GP_NBBS = 10 }; /* gprof keeps at most 10 blocks per symbol */

typedef struct gp_spec_text {
	plumb_gprof_table table;
	char *text;
} gp_spec_text;

struct plumb_gprof {
	plumb_gprof_opts o;
	gp_sym *sym;                     /* nsym symbols then ncycles headers (1-based: sym[nsym + k - 1]) */
	size_t nsym, ncycles;
	gp_arc *arc;
	size_t narc, arc_cap;
	size_t narc_read;                /* arcs from the gmon files; later ones are -c's */
	gp_hist *hist;
	size_t nhist;
	double hist_scale;
	uint32_t hz;
	char dimen[16];
	char abbrev;
	gp_rawarc *raw;
	size_t nraw, raw_cap;
	gp_bb_count *bb;
	size_t nbb, bb_cap;
	gp_bb *blocks;                   /* bb records on their symbols */
	size_t nblocks;
	gp_static_call *statics;
	size_t nstatic, static_cap;
	gp_spec_text *spec;
	size_t nspec;
	gp_spec_tab tab[PLUMB_GP_NTABLES];
	uint32_t *creation;              /* symbols in gprof's creation order (specs) */
	/* gprof also links the ranges of from/to specs by arcs of count 0,
	 * which only -r sees: pseudo symbols (names) and arcs between them,
	 * in gprof's creation order */
	const char **pseudo;
	size_t npseudo;
	uint32_t (*pseudo_arc)[2];
	size_t npseudo_arc;
	gp_range *right;                 /* right halves of arc specs */
	size_t nright;
	double total_time;               /* flat profile's total, in samples */
	double print_time;               /* call graph's total */
	uint32_t *by_total;              /* call-graph order (symbols and cycles) */
	bool analyzed;
	bool lost;                       /* an input was dropped for want of memory */
	bool printed;                    /* a section was written: next ones start with \f */
};

/* gp_paths.c: what BFD gives gprof beyond plumb/elfsym.h's table: relative source paths
 * of syms (DWARF 5 line tables keep "../src/x.c") joined to their
 * compilation unit's directory, as gprof shows them, and each function
 * symbol's elf_index (the first ELF symbol at its address). The new
 * strings belong to the returned object: free it after the analysis.
 * Never fails on bad input: what it cannot find stays as it was (NULL
 * only when out of memory). */
typedef struct gp_paths gp_paths;
gp_paths *gp_paths_fix(plumb_exe *exe, plumb_gprof_symbol *syms, size_t n);
void gp_paths_free(gp_paths *p);

/* gp_inline.c: -l's line symbols as gprof makes them: the line runs of plumb/elfsym.h
 * cut and named after the innermost function at each address, inlined
 * ones included, by its linkage name (what BFD answers gprof). Each piece
 * starts at addr and lasts until the next; a caller makes one symbol per
 * piece whose (file, line, function) differs from the last one made.
 * Names live as long as exe. */
typedef struct gp_line {
	uint64_t addr;
	const char *file;
	uint32_t line;
	const char *function;
} gp_line;
typedef struct gp_lines gp_lines;
gp_lines *gp_lines_new(plumb_exe *exe, const plumb_line_run *runs, size_t nruns,
					 plumb_error *err);
const gp_line *gp_lines_get(const gp_lines *l, size_t *n);
void gp_lines_free(gp_lines *l);

/* gp_inputs.c */
bool gp_in_hist(const plumb_gprof *g, uint64_t pc);     /* inside a histogram record */

/* gp_symtab.c */
uint32_t gp_sym_at(const plumb_gprof *g, uint64_t addr); /* symbol holding addr or GP_NONE */

/* gp_sort.c */
void gp_stable_sort(uint32_t *v, size_t n, int (*cmp)(const void *ctx, uint32_t a, uint32_t b),
		    const void *ctx);
int gp_cmp_creation(const void *ctx, uint32_t x, uint32_t y);

/* gp_spec.c */
int gp_specs_resolve(plumb_gprof *g, plumb_error *err);
const gp_range *gp_tab_lookup(const gp_spec_tab *t, uint64_t addr);
bool gp_selected(const plumb_gprof *g, plumb_gprof_table incl, uint64_t addr);
bool gp_arc_wanted(const plumb_gprof *g, const gp_sym *parent, const gp_sym *child);

/* gp_hist.c */
void gp_hist_assign(plumb_gprof *g);
int gp_si_prefix(double top_time);   /* index into the SI table for per-call units */
char gp_si_char(int i);
double gp_si_scale(int i);

/* gp_graph.c */
int gp_graph_build(plumb_gprof *g, plumb_error *err);

/* gp_print.c */
const char *gp_name(const gp_sym *s);             /* name to print */
const char *gp_basename(const char *path);
void gp_section_start(plumb_gprof *g, FILE *out);
void gp_print_name(const plumb_gprof *g, const gp_sym *s, FILE *out);
int gp_print_name_only(const plumb_gprof *g, const gp_sym *s, FILE *out);

/* For the unit tests, which check the engine's arithmetic: gprof's symbols
 * from st and the histograms and arcs of gm, with the default options
 * (-b, the mcount family left out), analyzed; then each arc's shares. */
struct plumb_symtab;
plumb_gprof *plumb_gprof_from_gmon(const struct plumb_symtab *st, const struct plumb_gmon *gm,
				   plumb_error *err);
typedef struct plumb_gprof_arc_estimate {
	size_t parent, child; /* symbol indexes */
	uint64_t count;
	double time;          /* callee self time credited to this call site: estimate */
	double child_time;    /* callee children time credited to it: estimate */
} plumb_gprof_arc_estimate;
/* Iterate i from 0 while it returns 0. */
int plumb_gprof_arc_estimate_at(const plumb_gprof *g, size_t i, plumb_gprof_arc_estimate *out);

#endif
