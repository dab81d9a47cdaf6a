/* gprof's symbol table from an ELF executable (stub until the implementation lands). */
#include <stdlib.h>

#include "plumb/elfsym.h"

plumb_exe *plumb_exe_open(const char *path, plumb_error *err)
{
	plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "%s: not implemented yet", path);
	return NULL;
}

void plumb_exe_close(plumb_exe *e) { (void)e; }

const plumb_exe_info *plumb_exe_get_info(const plumb_exe *e) { (void)e; return NULL; }

plumb_gmon_layout plumb_exe_gmon_layout(const plumb_exe *e)
{
	(void)e;
	plumb_gmon_layout l = { 0 };
	return l;
}

int plumb_symtab_build(plumb_exe *e, unsigned flags, plumb_symtab **out, plumb_error *err)
{
	(void)e; (void)flags; *out = NULL;
	return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "symbol tables not implemented yet");
}

void plumb_symtab_free(plumb_symtab *st) { (void)st; }

ptrdiff_t plumb_symtab_lookup(const plumb_symtab *st, uint64_t a) { (void)st; (void)a; return -1; }

ptrdiff_t plumb_symtab_find(const plumb_symtab *st, const char *name) { (void)st; (void)name; return -1; }

char *plumb_demangle(const char *mangled) { (void)mangled; return NULL; }

int plumb_gmon_hist_assign(const plumb_gmon *g, const plumb_symtab *st, double *time,
			   double *total, plumb_error *err)
{
	(void)g; (void)st; (void)time; (void)total;
	return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

int plumb_gmon_sym_arcs(const plumb_gmon *g, const plumb_symtab *st, plumb_sym_arc **out,
			size_t *n, plumb_error *err)
{
	(void)g; (void)st; *out = NULL; *n = 0;
	return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

int plumb_exe_line_at(plumb_exe *e, uint64_t addr, plumb_line_loc *loc, plumb_error *err)
{
	(void)e; (void)addr; (void)loc;
	return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}

int plumb_exe_line_runs(plumb_exe *e, plumb_line_run **out, size_t *n, plumb_error *err)
{
	(void)e; *out = NULL; *n = 0;
	return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "not implemented yet");
}
