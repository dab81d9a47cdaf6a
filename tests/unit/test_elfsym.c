/* gprof's symbol table and DWARF lines on a program compiled here: global,
 * static and assembler symbols, aliases at one address, zero-sized labels,
 * the static-name filter, address lookup, line lookup, histogram credit
 * and arcs on symbols. */
#include <criterion/criterion.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/elfsym.h"
#include "plumb/symbols.h"

static char dir[] = "/tmp/plumb-elfsym-XXXXXX";
static char src[sizeof dir + 16], pie[sizeof dir + 16], nopie[sizeof dir + 16];

/* Line numbers below are checked: keep the text as it is. */
static const char program[] =
	"static int helper(int x)\n"                 /* 1 */
	"{\n"                                        /* 2 */
	"\treturn x * 3;\n"                          /* 3 */
	"}\n"                                        /* 4 */
	"int visible(int x)\n"                       /* 5 */
	"{\n"                                        /* 6 */
	"\treturn helper(x) + 1;\n"                  /* 7 */
	"}\n"                                        /* 8 */
	"__asm__(\".text\\n\"\n"
	"\t\".globl asm_entry\\n.type asm_entry,@function\\n\"\n"
	"\t\".globl _asm_entry\\n\"\n"
	"\t\"asm_entry:\\n_asm_entry:\\nlocal_label:\\n\"\n"
	"\t\"nop\\nnop\\nret\\n\"\n"
	"\t\".globl zlabel\\nzlabel:\\nnop\\nnop\\nnop\\nnop\\nret\\n\"\n"
	"\t\"bad.part.0:\\nnop\\nret\\n\"\n"
	"\t\"good.constprop.0:\\nnop\\nret\\n\"\n"
	"\t\"with$dollar:\\nnop\\nret\\n\");\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\t(void)argv;\n"
	"\treturn visible(argc);\n"
	"}\n";

static void compile(const char *out, const char *flags)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "cc -g -O0 %s -o %s %s", flags, out, src);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(src, sizeof src, "%s/p.c", dir);
	snprintf(pie, sizeof pie, "%s/pie", dir);
	snprintf(nopie, sizeof nopie, "%s/nopie", dir);
	FILE *fp = fopen(src, "w");
	cr_assert_not_null(fp);
	fputs(program, fp);
	fclose(fp);
	compile(pie, "-fPIE -pie");
	compile(nopie, "-fno-PIE -no-pie");
}

static void teardown(void)
{
	unlink(src);
	unlink(pie);
	unlink(nopie);
	rmdir(dir);
}

TestSuite(elfsym, .init = setup, .fini = teardown);

static plumb_exe *open_ok(const char *path)
{
	plumb_error err;
	plumb_exe *e = plumb_exe_open(path, &err);
	cr_assert_not_null(e, "%s", err.message);
	return e;
}

static plumb_symtab *symtab_ok(plumb_exe *e, unsigned flags)
{
	plumb_error err;
	plumb_symtab *st;
	cr_assert_eq(plumb_symtab_build(e, flags, &st, &err), 0, "%s", err.message);
	return st;
}

/* Index of the symbol with this raw name, or -1. */
static ptrdiff_t symtab_find(const plumb_symtab *st, const char *name)
{
	for (size_t i = 0; i < st->n; i++)
		if (strcmp(st->syms[i].name, name) == 0)
			return (ptrdiff_t)i;
	return -1;
}

static const plumb_exe_sym *sym(const plumb_symtab *st, const char *name)
{
	ptrdiff_t i = symtab_find(st, name);
	cr_assert(i >= 0, "symbol %s not kept", name);
	return &st->syms[i];
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && strcmp(s + a - b, tail) == 0;
}

Test(elfsym, info)
{
	plumb_exe *e = open_ok(pie);
	const plumb_exe_info *in = plumb_exe_get_info(e);
	cr_assert_eq(in->addr_size, 8);
	cr_assert_not(in->big_endian);
	cr_assert_eq(in->machine, EM_X86_64);
	cr_assert(in->pie);
	cr_assert_eq(in->type, ET_DYN);
	cr_assert(in->text_lo > 0 && in->text_hi > in->text_lo);
	cr_assert(in->has_symtab && in->has_dwarf);
	plumb_gmon_layout l = plumb_exe_gmon_layout(e);
	cr_assert_eq(l.addr_size, 8);
	cr_assert_eq(l.order, PLUMB_GMON_LITTLE);
	plumb_exe_close(e);
	e = open_ok(nopie);
	cr_assert_not(plumb_exe_get_info(e)->pie);
	cr_assert_eq(plumb_exe_get_info(e)->type, ET_EXEC);
	cr_assert(plumb_exe_get_info(e)->text_lo >= 0x400000, "fixed addresses");
	plumb_exe_close(e);
}

Test(elfsym, symbols_as_gprof_keeps_them)
{
	const char *paths[] = { pie, nopie };
	for (int k = 0; k < 2; k++) {
		plumb_exe *e = open_ok(paths[k]);
		plumb_symtab *st = symtab_ok(e, 0);
		for (size_t i = 1; i < st->n; i++) {
			cr_assert(st->syms[i - 1].addr < st->syms[i].addr, "sorted, one per address");
			cr_assert_eq(st->syms[i - 1].end_addr, st->syms[i].addr - 1);
		}
		const plumb_exe_sym *v = sym(st, "visible"), *h = sym(st, "helper");
		cr_assert_not(v->is_static);
		cr_assert(v->is_func);
		cr_assert(h->is_static, "a static function is kept, marked static");
		cr_assert(ends_with(h->file, "/p.c"), "%s", h->file);
		cr_assert_eq(h->line, 2, "the line of the opening brace");
		cr_assert_eq(v->line, 6);
		cr_assert_str_eq(v->demangled, v->name);
		/* aliases: the function symbol wins over the NOTYPE and local ones */
		const plumb_exe_sym *a = sym(st, "asm_entry");
		cr_assert_eq(a->naliases, 2);
		cr_assert(symtab_find(st, "_asm_entry") < 0);
		cr_assert(symtab_find(st, "local_label") < 0);
		/* a zero-sized label owns the bytes up to the next kept symbol:
		 * its own 5 and the 2 of each dropped local after it */
		const plumb_exe_sym *z = sym(st, "zlabel");
		ptrdiff_t zi = symtab_find(st, "zlabel");
		cr_assert_eq(z->size, 0);
		cr_assert_eq(z->end_addr, st->syms[zi + 1].addr - 1);
		cr_assert(z->end_addr >= z->addr + 10, "past bad.part.0, good.constprop.0, with$dollar");
		cr_assert_eq(a->end_addr, z->addr - 1);
		/* static names: a '.' not starting digits or a clone suffix, or a
		 * '$', is refused; gprof 2.40's test of "good.constprop.0" runs
		 * on past its end into the next name, "with$dollar", and refuses
		 * it too (GNU gprof -z lists neither) */
		cr_assert(symtab_find(st, "bad.part.0") < 0);
		cr_assert(symtab_find(st, "with$dollar") < 0);
		cr_assert(symtab_find(st, "good.constprop.0") < 0);
		/* what gprof -a leaves */
		plumb_symtab *ns = symtab_ok(e, PLUMB_SYMTAB_NO_STATIC | PLUMB_SYMTAB_NO_DWARF);
		cr_assert(symtab_find(ns, "helper") < 0);
		cr_assert(symtab_find(ns, "visible") >= 0);
		cr_assert_null(ns->syms[symtab_find(ns, "visible")].file);
		plumb_symtab_free(ns);
		plumb_symtab_free(st);
		plumb_exe_close(e);
	}
}

Test(elfsym, lookup)
{
	plumb_exe *e = open_ok(pie);
	plumb_symtab *st = symtab_ok(e, 0);
	ptrdiff_t v = symtab_find(st, "visible");
	cr_assert_eq(plumb_symtab_lookup(st, st->syms[v].addr), v);
	cr_assert_eq(plumb_symtab_lookup(st, st->syms[v].addr + 3), v);
	cr_assert_eq(plumb_symtab_lookup(st, st->syms[v].end_addr), v);
	cr_assert_eq(plumb_symtab_lookup(st, st->syms[v].end_addr + 1), v + 1);
	cr_assert_eq(plumb_symtab_lookup(st, st->syms[0].addr - 1), -1);
	cr_assert_eq(plumb_symtab_lookup(st, UINT64_MAX), -1);
	plumb_symtab_free(st);
	plumb_exe_close(e);
}

Test(elfsym, dwarf_lines)
{
	plumb_exe *e = open_ok(pie);
	plumb_symtab *st = symtab_ok(e, PLUMB_SYMTAB_NO_DWARF);
	const plumb_exe_sym *v = sym(st, "visible");
	plumb_line_loc loc;
	plumb_error err;
	cr_assert_eq(plumb_exe_line_at(e, v->addr, &loc, &err), 0);
	cr_assert(ends_with(loc.file, "/p.c"));
	cr_assert_eq(loc.line, 6);
	cr_assert_str_eq(loc.function, "visible");
	/* near the end of visible: line 7 or 8 */
	cr_assert_eq(plumb_exe_line_at(e, v->end_addr - 1, &loc, &err), 0);
	cr_assert(loc.line >= 7 && loc.line <= 8, "line %u", loc.line);
	cr_assert_eq(plumb_exe_line_at(e, 0, &loc, &err), 0);
	cr_assert_eq(loc.line, 0, "no line before the code");
	plumb_line_run *runs;
	size_t n;
	cr_assert_eq(plumb_exe_line_runs(e, &runs, &n, &err), 0);
	cr_assert(n >= 6, "%zu runs", n);
	bool seen7 = false;
	for (size_t i = 0; i < n; i++) {
		cr_assert(runs[i].addr < runs[i].end);
		if (i)
			cr_assert(runs[i - 1].end <= runs[i].addr);
		if (runs[i].line == 7 && runs[i].function && strcmp(runs[i].function, "visible") == 0)
			seen7 = true;
	}
	cr_assert(seen7, "the run of line 7 in visible");
	free(runs);
	plumb_symtab_free(st);
	plumb_exe_close(e);
}

/* A histogram laid over helper and visible, credited as gprof does. */
Test(elfsym, histogram_and_arcs_on_symbols)
{
	plumb_exe *e = open_ok(nopie);
	plumb_symtab *st = symtab_ok(e, PLUMB_SYMTAB_NO_DWARF);
	ptrdiff_t h = symtab_find(st, "helper"), v = symtab_find(st, "visible");
	cr_assert_eq(v, h + 1, "helper comes right before visible");
	plumb_gmon *g = plumb_gmon_new();
	/* one bin of 2 bytes per 2 bytes, over helper..visible */
	uint64_t lo = st->syms[h].addr & ~(uint64_t)1, hi = (st->syms[v].end_addr + 2) & ~(uint64_t)1;
	uint32_t nbins = (uint32_t)((hi - lo) / 2);
	unsigned char buf[4096] = "gmon\1";
	size_t o = 20;
	buf[o++] = 0;
	memcpy(buf + o, &lo, 8);
	memcpy(buf + o + 8, &hi, 8);
	memcpy(buf + o + 16, &nbins, 4);
	uint32_t rate = 100;
	memcpy(buf + o + 20, &rate, 4);
	memcpy(buf + o + 24, "seconds", 7);
	buf[o + 39] = 's';
	o += 40;
	cr_assert(o + 2 * nbins + 2 * 21 < sizeof buf);
	for (uint32_t i = 0; i < nbins; i++) {
		buf[o + 2 * i] = 3; /* 3 samples in every bin */
		buf[o + 2 * i + 1] = 0;
	}
	o += 2 * nbins;
	uint64_t arcs[2][2] = { { st->syms[v].addr + 4, st->syms[h].addr + 1 },
				{ st->syms[v].addr + 6, st->syms[h].addr + 2 } };
	for (int i = 0; i < 2; i++) {
		buf[o++] = 1;
		memcpy(buf + o, &arcs[i][0], 8);
		memcpy(buf + o + 8, &arcs[i][1], 8);
		uint32_t count = 10 + i;
		memcpy(buf + o + 16, &count, 4);
		o += 20;
	}
	plumb_error err;
	plumb_gmon_layout l = plumb_exe_gmon_layout(e);
	cr_assert_eq(plumb_gmon_read_buffer(g, "h.gmon", buf, o, &l, &err), 0, "%s", err.message);
	double *t = calloc(st->n, sizeof *t), total;
	cr_assert_eq(plumb_gmon_hist_assign(g, st, t, &total, &err), 0);
	cr_assert_eq(total, 3.0 * nbins);
	double sum = 0;
	for (size_t i = 0; i < st->n; i++)
		sum += t[i];
	cr_assert(sum > 3.0 * nbins - 1e-6 && sum < 3.0 * nbins + 1e-6, "%f", sum);
	uint64_t hs = (st->syms[v].addr / 2) - (st->syms[h].addr / 2);
	cr_assert(t[h] > 3.0 * hs - 3.0 - 1e-9 && t[h] < 3.0 * hs + 3.0 + 1e-9, "helper %f", t[h]);
	plumb_sym_arc *sa;
	size_t n;
	cr_assert_eq(plumb_gmon_sym_arcs(g, st, &sa, &n, &err), 0);
	cr_assert_eq(n, 1, "two call sites of one pair are one arc");
	cr_assert_eq(sa[0].parent, (size_t)v);
	cr_assert_eq(sa[0].child, (size_t)h);
	cr_assert_eq(sa[0].count, 21);
	free(sa);
	free(t);
	plumb_gmon_free(g);
	plumb_symtab_free(st);
	plumb_exe_close(e);
}

Test(elfsym, demangle_and_errors)
{
	char *d = plumb_demangle("_ZN2ns3fooEi");
	cr_assert_str_eq(d, "ns::foo(int)");
	free(d);
	cr_assert_null(plumb_demangle("main"));
	plumb_error err;
	cr_assert_null(plumb_exe_open("/nonexistent/a.out", &err));
	cr_assert_eq(err.code, PLUMB_ERR_IO);
	cr_assert_str_eq(err.message, "/nonexistent/a.out: cannot open the executable: No such "
				      "file or directory");
	cr_assert_null(plumb_exe_open(src, &err));
	cr_assert_eq(err.code, PLUMB_ERR_FORMAT);
	cr_assert(strstr(err.message, "not an ELF executable") != NULL);
}

Test(elfsym, stripped_and_without_dwarf)
{
	char stripped[sizeof dir + 16], cmd[512];
	snprintf(stripped, sizeof stripped, "%s/stripped", dir);
	snprintf(cmd, sizeof cmd, "strip -o %s %s", stripped, pie);
	cr_assert_eq(system(cmd), 0);
	plumb_exe *e = open_ok(stripped);
	cr_assert_not(plumb_exe_get_info(e)->has_symtab);
	cr_assert_not(plumb_exe_get_info(e)->has_dwarf);
	plumb_error err;
	plumb_symtab *st;
	cr_assert_eq(plumb_symtab_build(e, 0, &st, &err), -1, "only imports are left");
	cr_assert_null(st);
	cr_assert(strstr(err.message, "file has no symbols") != NULL, "%s", err.message);
	plumb_line_loc loc;
	cr_assert_eq(plumb_exe_line_at(e, plumb_exe_get_info(e)->text_lo, &loc, &err), 0);
	cr_assert_eq(loc.line, 0, "no DWARF: no line, no error");
	cr_assert_null(loc.file);
	plumb_line_run *runs;
	size_t n;
	cr_assert_eq(plumb_exe_line_runs(e, &runs, &n, &err), 0);
	cr_assert_eq(n, 0);
	free(runs);
	plumb_exe_close(e);
	unlink(stripped);
}

/* The one address search: the last entry starting at or below the
 * address, whatever the entry's layout; -1 before the first or when empty. */
Test(addr_search, last_start_at_or_below)
{
	struct row {
		char tag;
		uint64_t start;
	} v[] = { { 'a', 0x10 }, { 'b', 0x20 }, { 'c', 0x20 }, { 'd', 0x40 } };
	cr_assert_eq(PLUMB_ADDR_SEARCH(v, 0, start, 0x30), -1);
	cr_assert_eq(PLUMB_ADDR_SEARCH(v, 4, start, 0x0f), -1);
	cr_assert_eq(PLUMB_ADDR_SEARCH(v, 4, start, 0x10), 0);
	cr_assert_eq(PLUMB_ADDR_SEARCH(v, 4, start, 0x1f), 0);
	cr_assert_eq(PLUMB_ADDR_SEARCH(v, 4, start, 0x20), 2, "equal starts: the last");
	cr_assert_eq(PLUMB_ADDR_SEARCH(v, 4, start, 0x3f), 2);
	cr_assert_eq(PLUMB_ADDR_SEARCH(v, 4, start, UINT64_MAX), 3);
	cr_assert_eq(PLUMB_ADDR_SEARCH(v, 3, start, UINT64_MAX), 2, "n bounds the search");
}
