/* An executable's function symbols as GNU gprof builds them (its
 * corefile.c core_sym_class and symtab.c symtab_finalize; the rules are
 * listed in plumb/elfsym.h and docs/gmon.md), read with libelf. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "symbols/elf_file.h"
#include "symbols/elfsym_internal.h"
#include "plumb/symbols.h"

/* ---- opening ---------------------------------------------------------- */

static Elf_Scn *section_named(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
		if (!gelf_getshdr(s, sh))
			continue;
		const char *n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return s;
	}
	return NULL;
}

static void fill_info(plumb_exe *e)
{
	plumb_exe_info *in = &e->info;
	in->path = e->path;
	in->addr_size = gelf_getclass(e->elf) == ELFCLASS32 ? 4 : 8;
	in->big_endian = e->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	in->machine = e->ehdr.e_machine;
	in->type = e->ehdr.e_type;
	in->pie = e->ehdr.e_type == ET_DYN;
	size_t shstrndx;
	if (elf_getshdrstrndx(e->elf, &shstrndx) != 0)
		return;
	GElf_Shdr sh;
	if (section_named(e->elf, shstrndx, ".text", &sh)) {
		in->text_lo = sh.sh_addr;
		in->text_hi = sh.sh_addr + sh.sh_size;
	}
	in->has_symtab = section_named(e->elf, shstrndx, ".symtab", &sh) != NULL;
	in->has_dwarf = section_named(e->elf, shstrndx, ".debug_info", &sh) != NULL &&
			section_named(e->elf, shstrndx, ".debug_line", &sh) != NULL;
}

plumb_exe *plumb_exe_open(const char *path, plumb_error *err)
{
	plumb_exe *e = calloc(1, sizeof *e);
	if (!e || !(e->path = strdup(path))) {
		free(e);
		plumb_fail_nomem(err);
		return NULL;
	}
	if (plumb_elf_file_open(path, "executable", &e->fd, &e->elf, &e->ehdr, err)) {
		plumb_exe_close(e);
		return NULL;
	}
	fill_info(e);
	return e;
}

void plumb_exe_close(plumb_exe *e)
{
	if (!e)
		return;
	plumb_exe_free_dwarf(e);
	plumb_elf_file_close(e->fd, e->elf);
	free(e->path);
	free(e);
}

const plumb_exe_info *plumb_exe_get_info(const plumb_exe *e)
{
	return &e->info;
}

plumb_gmon_layout plumb_exe_gmon_layout(const plumb_exe *e)
{
	plumb_gmon_layout l = { 0 };
	l.addr_size = e->info.addr_size;
	l.order = e->info.big_endian ? PLUMB_GMON_BIG : PLUMB_GMON_LITTLE;
	return l;
}

char *plumb_demangle(const char *mangled)
{
	return cplus_demangle(mangled, DMGL_PARAMS | DMGL_ANSI);
}

/* ---- gprof's choice of symbols ----------------------------------------- */

/* The string table the names live in: gprof's test of a static name can
 * read on into the names after it. */
typedef struct strtab {
	const char *tab;
	size_t size;
} strtab;

/* Skip one '.' suffix at tab[i]: ".clone.", ".constprop." or nothing, then
 * digits. Returns the index where it stopped (a '.' after digits, or the
 * end of the name), or SIZE_MAX if gprof refuses the name. */
static size_t skip_suffix(const strtab *t, size_t i)
{
	static const char clone[] = ".clone.", constprop[] = ".constprop.";
	size_t left = strnlen(t->tab + i, t->size - i);
	if (left > sizeof clone - 1 && strncmp(t->tab + i, clone, sizeof clone - 1) == 0)
		i += sizeof clone - 2;
	else if (left > sizeof constprop - 1 && strncmp(t->tab + i, constprop, sizeof constprop - 1) == 0)
		i += sizeof constprop - 2;
	bool digit = false;
	for (i++; i < t->size && t->tab[i]; i++) {
		if (digit && t->tab[i] == '.')
			break;
		if (t->tab[i] < '0' || t->tab[i] > '9')
			return SIZE_MAX;
		digit = true;
	}
	return i;
}

/* gprof 2.40's test of a static name at tab[pos], as it really runs: every
 * '.' must start digits, ".clone.<d>" or ".constprop.<d>" (GCC clones and
 * nested functions), and a '$' refuses the name. When a name ends inside
 * such a suffix the scan steps over its NUL and goes on through the next
 * names of the table, so "f.constprop.0" is kept only if no later name
 * fails the test (the end of the table stops it). */
static bool static_name_ok(const strtab *t, size_t pos)
{
	if (pos >= t->size || !t->tab[pos])
		return false;
	for (size_t i = pos; i < t->size && t->tab[i]; i++) {
		if (t->tab[i] == '$')
			return false;
		while (i < t->size && t->tab[i] == '.')
			if ((i = skip_suffix(t, i)) == SIZE_MAX)
				return false;
		if (i >= t->size)
			break;
	}
	return true;
}

typedef struct cand {
	plumb_exe_sym s;
	size_t order;    /* position in the symbol table: the final tie-break */
} cand;

/* gprof's class of a symbol: 'T' global or weak text, 't' static text, 0
 * not kept. exec tells whether its section holds code. */
static int sym_class(const GElf_Sym *sym, const char *name, const strtab *t, bool exec,
		     unsigned flags)
{
	int type = GELF_ST_TYPE(sym->st_info), bind = GELF_ST_BIND(sym->st_info);
	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx == SHN_ABS || sym->st_shndx == SHN_COMMON)
		return 0;
	/* BFD classes IFUNC ('i') and unique ('u') symbols apart: not kept */
	if (type == STT_FILE || type == STT_SECTION || type == STT_GNU_IFUNC || bind == STB_GNU_UNIQUE)
		return 0;
	if (bind == STB_LOCAL && (flags & PLUMB_SYMTAB_NO_STATIC))
		return 0;
	if (bind == STB_WEAK)
		return type == STT_OBJECT || type == STT_TLS ? 0 : 'T';
	if (!exec)
		return 0;
	if (bind == STB_GLOBAL)
		return 'T';
	if (bind != STB_LOCAL || !static_name_ok(t, sym->st_name))
		return 0;
	if (strncmp(name, "__gnu_compiled", 14) == 0)
		return 0;
	if ((flags & PLUMB_SYMTAB_FUNCS_ONLY) && type != STT_FUNC)
		return 0;
	return 't';
}

static Elf_Scn *symbol_section(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *dyn = NULL;
	GElf_Shdr dsh;
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
		GElf_Shdr h;
		if (!gelf_getshdr(s, &h))
			continue;
		if (h.sh_type == SHT_SYMTAB) {
			*sh = h;
			return s;
		}
		if (h.sh_type == SHT_DYNSYM && !dyn) {
			dyn = s;
			dsh = h;
		}
	}
	if (dyn)
		*sh = dsh;
	return dyn;
}

static bool section_is_exec(Elf *elf, size_t ndx)
{
	GElf_Shdr sh;
	Elf_Scn *s = elf_getscn(elf, ndx);
	return s && gelf_getshdr(s, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

static int collect(plumb_exe *e, unsigned flags, cand **out, size_t *n, plumb_error *err)
{
	GElf_Shdr sh;
	Elf_Scn *scn = symbol_section(e->elf, &sh);
	*out = NULL;
	*n = 0;
	if (!scn || sh.sh_entsize == 0)
		return 0;
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t count = sh.sh_size / sh.sh_entsize;
	if (!d)
		return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: unreadable symbol table", e->path);
	Elf_Data *sd = elf_getdata(elf_getscn(e->elf, sh.sh_link), NULL);
	strtab t = { sd ? sd->d_buf : NULL, sd && sd->d_buf ? sd->d_size : 0 };
	cand *c = calloc(count ? count : 1, sizeof *c);
	if (!c)
		return plumb_fail_nomem(err);
	for (size_t i = 1; i < count; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym))
			continue;
		const char *name = elf_strptr(e->elf, sh.sh_link, sym.st_name);
		if (!name)
			continue;
		bool exec = sym.st_shndx < SHN_LORESERVE && section_is_exec(e->elf, sym.st_shndx);
		int cls = sym_class(&sym, name, &t, exec, flags);
		if (!cls)
			continue;
		plumb_exe_sym *s = &c[*n].s;
		s->addr = sym.st_value;
		s->size = sym.st_size;
		s->name = name;
		s->is_static = cls == 't';
		s->is_func = GELF_ST_TYPE(sym.st_info) == STT_FUNC;
		s->is_weak = GELF_ST_BIND(sym.st_info) == STB_WEAK;
		c[*n].order = i;
		(*n)++;
	}
	*out = c;
	return 0;
}

/* Address, then functions first, then globals first, then table order. */
static int cand_cmp(const void *pa, const void *pb)
{
	const cand *a = pa, *b = pb;
	if (a->s.addr != b->s.addr)
		return a->s.addr < b->s.addr ? -1 : 1;
	if (a->s.is_func != b->s.is_func)
		return a->s.is_func ? -1 : 1;
	if (a->s.is_static != b->s.is_static)
		return a->s.is_static ? 1 : -1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Does src replace kept, both at one address? Global beats static; then
 * a name without '_' beats one with it, and "_x" beats "__x". */
static bool replaces(const plumb_exe_sym *src, const plumb_exe_sym *kept)
{
	if (!src->is_static && kept->is_static)
		return true;
	if (src->is_static != kept->is_static)
		return false;
	if (src->name[0] != '_' && kept->name[0] == '_')
		return true;
	return src->name[0] == '_' && kept->name[0] == '_' && src->name[1] != '_' &&
	       kept->name[1] == '_';
}

static int add_alias(plumb_exe_sym *s, const char *name, plumb_error *err)
{
	const char **a = realloc(s->aliases, (s->naliases + 1) * sizeof *a);
	if (!a)
		return plumb_fail_nomem(err);
	a[s->naliases++] = name;
	s->aliases = a;
	return 0;
}

/* Keep one symbol per address (gprof's duplicate removal). */
static int dedup(cand *c, size_t n, plumb_exe_sym *out, size_t *nout, plumb_error *err)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		plumb_exe_sym *s = &c[i].s;
		if (k && out[k - 1].addr == s->addr) {
			plumb_exe_sym *kept = &out[k - 1];
			const char *dropped = s->name;
			if (replaces(s, kept)) {
				dropped = kept->name;
				const char **al = kept->aliases;
				size_t nal = kept->naliases;
				*kept = *s;
				kept->aliases = al;
				kept->naliases = nal;
			}
			if (add_alias(kept, dropped, err))
				return -1;
			continue;
		}
		out[k++] = *s;
	}
	*nout = k;
	return 0;
}

static int finish(plumb_exe *e, plumb_symtab *st, unsigned flags, plumb_error *err)
{
	for (size_t i = 0; i < st->n; i++) {
		plumb_exe_sym *s = &st->syms[i];
		if (i + 1 < st->n)
			s->end_addr = st->syms[i + 1].addr - 1;
		else
			s->end_addr = e->info.text_hi > s->addr ? e->info.text_hi - 1 : s->addr;
		char *dm = plumb_demangle(s->name);
		s->demangled = dm ? dm : s->name;
		if (flags & PLUMB_SYMTAB_NO_DWARF)
			continue;
		plumb_line_loc loc;
		if (plumb_exe_line_at(e, s->addr, &loc, err))
			return -1;
		if (loc.line && loc.file) {
			s->file = loc.file;
			s->line = loc.line;
		}
	}
	return 0;
}

int plumb_symtab_build(plumb_exe *e, unsigned flags, plumb_symtab **out, plumb_error *err)
{
	*out = NULL;
	cand *c;
	size_t n;
	if (collect(e, flags, &c, &n, err))
		return -1;
	if (n == 0) {
		free(c);
		return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: file has no symbols: expected "
				  "function symbols (was it stripped?)", e->path);
	}
	qsort(c, n, sizeof *c, cand_cmp);
	plumb_symtab *st = calloc(1, sizeof *st);
	if (!st || !(st->syms = calloc(n, sizeof *st->syms))) {
		free(st);
		free(c);
		return plumb_fail_nomem(err);
	}
	int rc = dedup(c, n, st->syms, &st->n, err);
	free(c);
	if (rc == 0)
		rc = finish(e, st, flags, err);
	if (rc) {
		plumb_symtab_free(st);
		return -1;
	}
	*out = st;
	return 0;
}

void plumb_symtab_free(plumb_symtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->n; i++) {
		if (st->syms[i].demangled != st->syms[i].name)
			free((char *)st->syms[i].demangled);
		free(st->syms[i].aliases);
	}
	free(st->syms);
	free(st->strings);
	free(st);
}

ptrdiff_t plumb_symtab_lookup(const plumb_symtab *st, uint64_t a)
{
	ptrdiff_t i = PLUMB_ADDR_SEARCH(st->syms, st->n, addr, a);
	return i >= 0 && a <= st->syms[i].end_addr ? i : -1;
}
