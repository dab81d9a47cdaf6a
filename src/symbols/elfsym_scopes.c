/* An executable's DWARF scopes (libdw): the address ranges of every
 * function and inlined instance, and the compilation directory of an
 * address. gprof -l's names and gprof's joined paths are built on these
 * (src/gprof); the DWARF handle is the executable's own (plumb_exe). */
#include <stdlib.h>

#include "symbols/elfsym_internal.h"

/* The linkage name when there is one (what BFD answers), else the name. */
static const char *die_name(Dwarf_Die *die, bool *linkage)
{
	Dwarf_Attribute at;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &at));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at));
	*linkage = n != NULL;
	return n ? n : dwarf_diename(die);
}

/* Languages whose DWARF names are linkage names (no mangling). */
static bool plain_names(int lang)
{
	switch (lang) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case DW_LANG_ObjC_plus_plus:
	case DW_LANG_D:
	case DW_LANG_Rust:
	case DW_LANG_Java:
		return false;
	default:
		return true;
	}
}

typedef struct scopes {
	plumb_exe_scope *v;
	size_t n, cap;
} scopes;

static int add_ranges(scopes *S, Dwarf_Die *die, int lang)
{
	bool linkage;
	const char *name = die_name(die, &linkage);
	linkage |= plain_names(lang);
	if (!name)
		return 0;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	size_t first = S->n;
	uint64_t entry = UINT64_MAX;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (S->n == S->cap) {
			size_t nc = S->cap ? S->cap * 2 : 256;
			plumb_exe_scope *n = realloc(S->v, nc * sizeof *n);
			if (!n)
				return -1;
			S->v = n;
			S->cap = nc;
		}
		S->v[S->n++] = (plumb_exe_scope){ lo, hi, 0, name, linkage };
		if (lo < entry)
			entry = lo;
	}
	for (size_t i = first; i < S->n; i++)
		S->v[i].entry = entry;
	return 0;
}

/* Every subprogram and inlined subroutine with code, at any depth. */
static int walk(scopes *S, Dwarf_Die *die, int depth, int lang)
{
	if (depth > 64)
		return 0;
	Dwarf_Die child;
	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) && add_ranges(S, &child, lang))
			return -1;
		if (dwarf_haschildren(&child) && walk(S, &child, depth + 1, lang))
			return -1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int plumb_exe_scopes(plumb_exe *e, plumb_exe_scope **out, size_t *n, plumb_error *err)
{
	*out = NULL;
	*n = 0;
	if (plumb_exe_load_dwarf(e, err))
		return -1;
	if (!e->dw)
		return 0;
	scopes S = { 0 };
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(e->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(e->dw, off + hsize, &cu) && walk(&S, &cu, 0, dwarf_srclang(&cu))) {
			free(S.v);
			return plumb_fail_nomem(err);
		}
		off = next;
	}
	*out = S.v;
	*n = S.n;
	return 0;
}

const char *plumb_exe_comp_dir_at(plumb_exe *e, uint64_t addr)
{
	Dwarf_Die cu;
	if (plumb_exe_load_dwarf(e, NULL) || !e->dw || !dwarf_addrdie(e->dw, addr, &cu))
		return NULL;
	Dwarf_Attribute at;
	return dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at));
}
