/* The symbolizer's sorted symbol table names every address as libdwfl's
 * dwfl_module_addrinfo does: checked address by address on a program made
 * of the awkward cases (aliases at one address with different bindings,
 * statics, sizeless assembly labels, a sized symbol nested in another, a
 * label inside a function), on libc (dynamic symbols only) and on cc1plus
 * (100,000+ symbols) when installed. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/dwfl_open.h"
#include "symbols/symbol_table.h"

static const char program[] =
	"static int helper(int x) { return x * 3; }\n"
	"int visible(int x) { return helper(x) + 1; }\n"
	"__attribute__((weak)) int weakling(int x) { return x - 1; }\n"
	"__asm__(\".text\\n\"\n"
	"\t\".globl outer\\n.type outer,@function\\n\"\n"
	"\t\".weak outer_alias\\n.type outer_alias,@function\\n\"\n"
	"\t\"outer:\\nouter_alias:\\n\\tnop\\n\\tnop\\n\"\n"
	"\t\".type inner,@function\\ninner:\\n\\tnop\\n\\tnop\\n\"\n"
	"\t\".size inner, .-inner\\n\"\n"
	"\t\"label_in_outer:\\n\\tnop\\n\\tret\\n\"\n"
	"\t\".size outer, .-outer\\n.size outer_alias, .-outer_alias\\n\"\n"
	"\t\"bare_label:\\n\\tnop\\n\\tnop\\n\\tret\\n\"\n"
	"\t\".globl after_label\\n.type after_label,@function\\nafter_label:\\n\\tret\\n\"\n"
	"\t\".size after_label, .-after_label\\n\");\n"
	"int main(int argc, char **argv) { (void)argv; return visible(argc) + weakling(argc); }\n";

/* Compare the table with dwfl_module_addrinfo at addresses spread over the
 * module's code (every byte when step is 1, at most max_checks if given). */
static void compare(const char *path, uint64_t step, size_t max_checks)
{
	Dwfl_Callbacks cb;
	char *dbg = NULL;
	Dwfl *dwfl = plumb_dwfl_open(&cb, &dbg);
	cr_assert_not_null(dwfl);
	Dwfl_Module *mod = plumb_dwfl_add_object(dwfl, path, -1, 0);
	cr_assert_not_null(mod, "%s: cannot be read", path);
	plumb_symbol_table *t = plumb_symbol_table_new(mod);
	cr_assert_not_null(t);
	/* the range: the lowest and highest defined symbol */
	uint64_t lo = UINT64_MAX, hi = 0;
	int n = dwfl_module_getsymtab(mod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &value, &shndx, NULL, NULL);
		if (!name || shndx == SHN_UNDEF || GELF_ST_TYPE(sym.st_info) == STT_TLS ||
		    GELF_ST_TYPE(sym.st_info) == STT_SECTION || GELF_ST_TYPE(sym.st_info) == STT_FILE)
			continue;
		lo = value < lo ? value : lo;
		hi = value + sym.st_size + 16 > hi ? value + sym.st_size + 16 : hi;
	}
	cr_assert_lt(lo, hi, "%s: no symbols", path);
	if (max_checks && (hi - lo) / step > max_checks)
		step = (hi - lo) / max_checks + 1;
	/* the addresses a recording holds: code, in executable sections (and
	 * the gaps between them) */
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	cr_assert_not_null(elf);
	uint64_t code_lo = UINT64_MAX, code_hi = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size) {
			code_lo = sh.sh_addr < code_lo ? sh.sh_addr : code_lo;
			code_hi = sh.sh_addr + sh.sh_size > code_hi ? sh.sh_addr + sh.sh_size : code_hi;
		}
	}
	lo = lo > code_lo ? lo : code_lo;
	hi = hi < code_hi + 8 ? hi : code_hi + 8;
	size_t checked = 0, named = 0;
	for (uint64_t a = lo > 4 ? lo - 4 : 0; a < hi; a += step, checked++) {
		GElf_Sym sym;
		GElf_Off off;
		const char *want = dwfl_module_addrinfo(mod, a, &off, &sym, NULL, NULL, NULL);
		const char *got = plumb_symbol_table_find(t, a);
		named += want != NULL;
		cr_assert((want == NULL) == (got == NULL) && (!want || strcmp(want, got) == 0),
			  "%s at 0x%llx: libdwfl says %s, the table %s", path, (unsigned long long)a,
			  want ? want : "(none)", got ? got : "(none)");
	}
	cr_expect_gt(named, checked / 4, "%s: only %zu of %zu addresses named", path, named, checked);
	plumb_symbol_table_free(t);
	dwfl_end(dwfl);
}

Test(symbol_table, names_every_byte_of_a_program_as_libdwfl)
{
	char dir[] = "/tmp/plumb-symtab-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char src[64], exe[64], cmd[256];
	snprintf(src, sizeof src, "%s/p.c", dir);
	snprintf(exe, sizeof exe, "%s/p", dir);
	FILE *f = fopen(src, "w");
	cr_assert_not_null(f);
	fputs(program, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "cc -O1 -o %s %s", exe, src);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);
	compare(exe, 1, 0);
	unlink(src);
	unlink(exe);
	rmdir(dir);
}

Test(symbol_table, libc_and_cc1plus_as_libdwfl)
{
	static const char *const objs[] = { "/lib/x86_64-linux-gnu/libc.so.6",
					    "/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus",
					    "/usr/lib/gcc/x86_64-linux-gnu/12/cc1" };
	for (size_t i = 0; i < sizeof objs / sizeof *objs; i++)
		if (access(objs[i], R_OK) == 0)
			compare(objs[i], 1, i == 0 ? 5000 : 400);
}
