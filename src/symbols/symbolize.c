/* Addresses of a recording -> functions, files, lines and inline chains,
 * with libdwfl (which finds separate debug files). One Dwfl per object
 * file, the object reported at its own ELF addresses (bias 0), so that a
 * file offset maps to an address through the program headers whatever
 * address the object was loaded at. */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "plumb/record.h"
#include "plumb/symbols.h"
#include "symbols/dwfl_open.h"
#include "symbols/symbol_table.h"

/* A subprogram whose inline chain was found once: later addresses in the
 * same ELF symbol start their walk at its DIE instead of the top of the
 * compile unit, which dwarf_getscopes walks (and dwarf_getscopes_die
 * again) for every address: in a recording of g++ that was half of the
 * time after the compiler's exit, for libc's big units. */
typedef struct sub_scope {
	const char *sym;       /* the ELF symbol's name, by address: the key */
	Dwarf_Die cu, die;
	Dwarf_Addr bias;
} sub_scope;

#define SUB_SCOPES 256 /* a direct-mapped cache per object */

typedef struct sym_object {
	char *path;
	Dwfl *dwfl;            /* NULL: the file could not be read */
	Dwfl_Module *mod;
	plumb_symbol_table *syms; /* made at the first lookup */
	sub_scope *subs;       /* SUB_SCOPES of them, made at the first chain */
	char build_id[41];
} sym_object;

struct plumb_symbolizer {
	Dwfl_Callbacks cb;
	char *debuginfo_path;
	PLUMB_VEC(sym_object) objs;
	PLUMB_VEC(char *) strings; /* everything handed out, freed at the end */
};

plumb_symbolizer *plumb_symbolizer_new(const char *debug_path, plumb_error *err)
{
	plumb_symbolizer *s = calloc(1, sizeof *s);
	if (!s) {
		plumb_fail_nomem(err);
		return NULL;
	}
	if (debug_path && asprintf(&s->debuginfo_path, "+:.debug:%s", debug_path) < 0) {
		free(s);
		plumb_fail_nomem(err);
		return NULL;
	}
	return s;
}

void plumb_symbolizer_free(plumb_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->objs.n; i++) {
		plumb_symbol_table_free(s->objs.v[i].syms);
		free(s->objs.v[i].subs);
		if (s->objs.v[i].dwfl)
			dwfl_end(s->objs.v[i].dwfl);
		free(s->objs.v[i].path);
	}
	for (size_t i = 0; i < s->strings.n; i++)
		free(s->strings.v[i]);
	free(s->objs.v);
	free(s->strings.v);
	free(s->debuginfo_path);
	free(s);
}

/* Keep str (malloc'd) until the symbolizer is freed; NULL stays NULL. */
static const char *keep(plumb_symbolizer *s, char *str)
{
	if (!str)
		return NULL;
	if (s->strings.n == s->strings.cap) {
		size_t c = s->strings.cap ? 2 * s->strings.cap : 64;
		char **v = realloc(s->strings.v, c * sizeof *v);
		if (!v) {
			free(str);
			return NULL;
		}
		s->strings.v = v;
		s->strings.cap = c;
	}
	s->strings.v[s->strings.n++] = str;
	return str;
}

static const char *keep_copy(plumb_symbolizer *s, const char *str)
{
	return str ? keep(s, strdup(str)) : NULL;
}

static void build_id_hex(Dwfl_Module *mod, char out[41])
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);
	out[0] = 0;
	for (int i = 0; i < n && i < 20; i++)
		snprintf(out + 2 * i, 3, "%02x", bits[i]);
}

/* The kernel's vDSO as a file: the same image is mapped into every
 * process of this kernel, ours included, so symbols like
 * __vdso_clock_gettime resolve while the recording machine is at hand. */
static int vdso_fd(void)
{
	const unsigned char *img = (const void *)getauxval(AT_SYSINFO_EHDR);
	if (!img || memcmp(img, ELFMAG, SELFMAG) != 0 || img[EI_CLASS] != ELFCLASS64)
		return -1;
	const Elf64_Ehdr *eh = (const void *)img;
	size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size < sizeof *eh || size > (64u << 20))
		return -1;
	int fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, img, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static sym_object *object(plumb_symbolizer *s, const char *path)
{
	for (size_t i = 0; i < s->objs.n; i++)
		if (strcmp(s->objs.v[i].path, path) == 0)
			return &s->objs.v[i];
	if (s->objs.n == s->objs.cap) {
		size_t c = s->objs.cap ? 2 * s->objs.cap : 16;
		sym_object *v = realloc(s->objs.v, c * sizeof *v);
		if (!v)
			return NULL;
		s->objs.v = v;
		s->objs.cap = c;
	}
	sym_object *o = &s->objs.v[s->objs.n];
	memset(o, 0, sizeof *o);
	if (!(o->path = strdup(path)))
		return NULL;
	s->objs.n++;
	int fd = -1;
	if (strcmp(path, "[vdso]") == 0 && (fd = vdso_fd()) < 0)
		return o;
	else if (path[0] != '/' && fd < 0)
		return o; /* [anon], [heap]...: no file to read */
	o->dwfl = plumb_dwfl_open(&s->cb, &s->debuginfo_path); /* NULL inside: /usr/lib/debug */
	if (!o->dwfl && fd >= 0)
		close(fd);
	if (o->dwfl) {
		o->mod = plumb_dwfl_add_object(o->dwfl, path, fd, 0); /* consumes fd */
		if (!o->mod) {
			dwfl_end(o->dwfl);
			o->dwfl = NULL;
		} else {
			build_id_hex(o->mod, o->build_id);
		}
	}
	return o;
}

void plumb_symbolizer_build_id(plumb_symbolizer *s, const char *path, char out[41])
{
	sym_object *o = object(s, path);
	out[0] = 0;
	if (o)
		memcpy(out, o->build_id, 41);
}

/* The ELF address of file offset off (via the PT_LOAD holding it). */
static bool offset_to_addr(Dwfl_Module *mod, uint64_t off, uint64_t *addr)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t n;
	if (!elf || elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			*addr = off - ph.p_offset + ph.p_vaddr + bias;
			return true;
		}
	}
	return false;
}

static char *demangle(const char *name)
{
	if (!name)
		return NULL;
	if (name[0] == '_' && name[1] == 'Z') {
		char *d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
		if (d)
			return d;
	}
	return strdup(name);
}

static const char *die_string(Dwarf_Die *die, int attr)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, attr, &a) ? dwarf_formstring(&a) : NULL;
}

static const char *die_linkage_name(Dwarf_Die *die)
{
	const char *n = die_string(die, DW_AT_linkage_name);
	return n ? n : die_string(die, DW_AT_MIPS_linkage_name);
}

/* A scope's name: the demangled linkage name, else DW_AT_name. */
static void scope_names(plumb_symbolizer *s, Dwarf_Die *die, plumb_sym_frame *f)
{
	const char *link = die_linkage_name(die);
	f->mangled = link ? keep_copy(s, link) : NULL;
	f->function = link ? keep(s, demangle(link)) : keep_copy(s, die_string(die, DW_AT_name));
	f->decl_file = keep_copy(s, dwarf_decl_file(die));
	int line = 0;
	if (dwarf_decl_line(die, &line) == 0 && line > 0)
		f->decl_line = (uint32_t)line;
}

/* Where an inlined scope was called from: file and line in its caller. */
static void call_site(plumb_symbolizer *s, Dwarf_Die *cu, Dwarf_Die *inl, plumb_sym_frame *caller)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (dwarf_attr(inl, DW_AT_call_line, &a) && dwarf_formudata(&a, &w) == 0)
		caller->line = (uint32_t)w;
	Dwarf_Files *files;
	size_t nfiles;
	if (dwarf_attr(inl, DW_AT_call_file, &a) && dwarf_formudata(&a, &w) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && w < nfiles)
		caller->file = keep_copy(s, dwarf_filesrc(files, w, NULL, NULL));
}

/* The DIEs below sub (a subprogram) whose ranges hold pc, innermost
 * first, down from sub itself: the physical nesting dwarf_getscopes_die
 * gives, up to sub. In *out (malloc'd); their number, or -1. */
static int scopes_below(Dwarf_Die *sub, Dwarf_Addr pc, Dwarf_Die **out)
{
	enum { DEEPEST = 256 };
	Dwarf_Die path[DEEPEST], child;
	int n = 0;
	path[n++] = *sub;
	while (n < DEEPEST && dwarf_child(&path[n - 1], &child) == 0) {
		bool found = false;
		do {
			if (dwarf_haspc(&child, pc) > 0) {
				found = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
		if (!found)
			break;
		path[n++] = child;
	}
	Dwarf_Die *v = malloc((size_t)n * sizeof *v);
	if (!v)
		return -1;
	for (int i = 0; i < n; i++)
		v[i] = path[n - 1 - i];
	*out = v;
	return n;
}

static sub_scope *sub_slot(sym_object *o, const char *sym)
{
	if (!sym)
		return NULL;
	if (!o->subs && !(o->subs = calloc(SUB_SCOPES, sizeof *o->subs)))
		return NULL;
	uintptr_t h = (uintptr_t)sym;
	return &o->subs[(h ^ h >> 9 ^ h >> 17) % SUB_SCOPES];
}

/* The inline chain at addr (in the ELF symbol sym, or NULL): frames
 * innermost first, up to the subprogram. Returns how many were filled (0
 * without DWARF). */
static size_t inline_chain(plumb_symbolizer *s, sym_object *o, const char *sym, uint64_t addr,
			   plumb_sym_frame *out, size_t max)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu, *scopes = NULL;
	int n;
	sub_scope *slot = sub_slot(o, sym);
	if (slot && slot->sym == sym && dwarf_haspc(&slot->die, addr - slot->bias) > 0) {
		cu = &slot->cu;
		n = scopes_below(&slot->die, addr - slot->bias, &scopes);
	} else {
		if (!(cu = dwfl_module_addrdie(o->mod, addr, &bias)))
			return 0;
		/* dwarf_getscopes finds the innermost scope but continues into an
		 * inlined function's abstract definition; the chain of callers is
		 * the DIE's physical nesting, which dwarf_getscopes_die gives. */
		Dwarf_Die *found = NULL;
		int nf = dwarf_getscopes(cu, addr - bias, &found);
		int first = 0;
		while (first < nf && dwarf_tag(&found[first]) != DW_TAG_subprogram &&
		       dwarf_tag(&found[first]) != DW_TAG_inlined_subroutine)
			first++;
		n = first < nf ? dwarf_getscopes_die(&found[first], &scopes) : 0;
		free(found);
		for (int i = 0; slot && i < n; i++)
			if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
				*slot = (sub_scope){ sym, *cu, scopes[i], bias };
				break;
			}
	}
	size_t k = 0;
	memset(out, 0, sizeof *out);
	for (int i = 0; i < n && k < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		/* out[k] is zeroed, or holds its call site from the inner scope */
		out[k].address = addr;
		scope_names(s, &scopes[i], &out[k]);
		if (tag == DW_TAG_inlined_subroutine && k + 1 < max) {
			memset(&out[k + 1], 0, sizeof out[k + 1]);
			call_site(s, cu, &scopes[i], &out[k + 1]);
		}
		k++;
		if (tag == DW_TAG_subprogram)
			break;
	}
	free(scopes);
	return k;
}

/* "memcpy@@GLIBC_2.14" -> "memcpy": the version is not part of the name. */
static const char *unversioned(const char *name, char *buf, size_t size)
{
	const char *at = name ? strchr(name, '@') : NULL;
	if (!at || at == name || (size_t)(at - name) >= size)
		return name;
	memcpy(buf, name, (size_t)(at - name));
	buf[at - name] = 0;
	return buf;
}

static void fallback_name(plumb_symbolizer *s, const char *path, uint64_t addr, plumb_sym_frame *f)
{
	const char *base = strrchr(path, '/');
	char *name = NULL;
	if (asprintf(&name, "%s+0x%" PRIx64, base ? base + 1 : path, addr) < 0)
		name = NULL;
	f->function = keep(s, name);
	if (!f->function)
		f->function = "?";
}

int plumb_symbolize(plumb_symbolizer *s, const char *path, uint64_t off, plumb_sym_frame *out,
		    size_t max, plumb_error *err)
{
	if (max == 0)
		return plumb_fail(err, PLUMB_ERR_USAGE, "plumb_symbolize: no room for a frame");
	sym_object *o = object(s, path);
	if (!o)
		return plumb_fail_nomem(err);
	memset(out, 0, sizeof *out);
	uint64_t addr = off;
	if (!o->mod || !offset_to_addr(o->mod, off, &addr)) {
		out->address = off;
		fallback_name(s, path, off, out);
		return 1;
	}
	out->address = addr;
	/* The outermost function: the ELF symbol names it (statics, aliases,
	 * functions without DWARF) as perf and gprof do. */
	if (!o->syms && !(o->syms = plumb_symbol_table_new(o->mod)))
		return plumb_fail_nomem(err);
	const char *sym = plumb_symbol_table_find(o->syms, addr);
	size_t k = inline_chain(s, o, sym, addr, out, max);
	char plain[512];
	const char *symname = unversioned(sym, plain, sizeof plain);
	if (k == 0) {
		k = 1;
		if (symname) {
			out->mangled = symname[0] == '_' && symname[1] == 'Z' ? keep_copy(s, symname) : NULL;
			out->function = keep(s, demangle(symname));
		}
	} else if (symname) {
		plumb_sym_frame *outer = &out[k - 1];
		outer->function = keep(s, demangle(symname));
		outer->mangled = symname[0] == '_' && symname[1] == 'Z' ? keep_copy(s, symname) : NULL;
	}
	if (!out[k - 1].function)
		fallback_name(s, path, addr, &out[k - 1]);
	for (size_t i = 0; i < k; i++)
		if (!out[i].function)
			fallback_name(s, path, addr, &out[i]);
	/* The innermost frame's line is the line table's. */
	Dwfl_Line *l = dwfl_module_getsrc(o->mod, addr);
	int line = 0;
	const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
	if (file) {
		out[0].file = keep_copy(s, file);
		out[0].line = line > 0 ? (uint32_t)line : 0;
	}
	return (int)k;
}
