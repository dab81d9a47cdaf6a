/* What an executable holds beyond gprof's symbol table, read from the
 * executable's own ELF handle (plumb_exe): every .symtab entry as it
 * stands, and the bytes of .text. */
#include <stdlib.h>
#include <string.h>

#include "symbols/elfsym_internal.h"

static Elf_Scn *text_section(Elf *elf, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		const char *name;
		if (gelf_getshdr(scn, sh) && (name = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    strcmp(name, ".text") == 0)
			return scn;
	}
	return NULL;
}

int plumb_exe_elf_symbols(plumb_exe *e, plumb_exe_elf_sym **out, size_t *n, plumb_error *err)
{
	*out = NULL;
	*n = 0;
	GElf_Shdr tsh;
	Elf_Scn *text = text_section(e->elf, &tsh);
	size_t text_ndx = text ? elf_ndxscn(text) : 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e->elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t count = sh.sh_size / sh.sh_entsize;
		if (!d)
			return 0;
		plumb_exe_elf_sym *v = malloc((count ? count : 1) * sizeof *v);
		if (!v)
			return plumb_fail_nomem(err);
		size_t k = 0;
		for (size_t i = 1; i < count; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			const char *name = elf_strptr(e->elf, sh.sh_link, sym.st_name);
			v[k++] = (plumb_exe_elf_sym){ .value = sym.st_value, .name = name ? name : "",
						      .index = (uint32_t)i, .shndx = sym.st_shndx,
						      .type = (uint8_t)GELF_ST_TYPE(sym.st_info),
						      .in_text = text_ndx && sym.st_shndx == text_ndx };
		}
		*out = v;
		*n = k;
		return 0;
	}
	return 0;
}

int plumb_exe_text(plumb_exe *e, uint64_t *addr, const unsigned char **bytes, size_t *len, plumb_error *err)
{
	*addr = 0;
	*bytes = NULL;
	*len = 0;
	GElf_Shdr sh;
	Elf_Scn *scn = text_section(e->elf, &sh);
	if (!scn || sh.sh_type != SHT_PROGBITS)
		return 0;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf)
		return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: cannot read .text", e->path);
	*addr = sh.sh_addr;
	*bytes = d->d_buf;
	*len = d->d_size;
	return 0;
}
