/* ELF function symbols, load bias and disassembly: libelf reads the
 * symbols and bytes, capstone decodes them. */
#include <stdbool.h>
#include <stdio.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/symbols.h"
#include "symbols/capstone_lib.h"
#include "symbols/elf_file.h"

#define PAGE 4096u

struct plumb_elf {
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	char *path;
};

plumb_elf *plumb_elf_open(const char *path, plumb_error *err)
{
	plumb_elf *e = calloc(1, sizeof *e);
	if (!e || !(e->path = strdup(path))) {
		free(e);
		plumb_fail_nomem(err);
		return NULL;
	}
	if (plumb_elf_file_open(path, "object", &e->fd, &e->elf, &e->ehdr, err)) {
		plumb_elf_close(e);
		return NULL;
	}
	return e;
}

void plumb_elf_close(plumb_elf *e)
{
	if (!e)
		return;
	plumb_elf_file_close(e->fd, e->elf);
	free(e->path);
	free(e);
}

/* Does a symbol explain an entry at this run-time address? */
static bool bias_fits(const plumb_elf *e, uint64_t value, uint64_t entry, uint64_t *bias)
{
	*bias = entry - value;
	if (e->ehdr.e_type == ET_EXEC)
		return *bias == 0;
	return *bias % PAGE == 0;
}

/* Search one symbol table (SHT_SYMTAB or SHT_DYNSYM). 1 found, 0 not. */
static int search_table(const plumb_elf *e, Elf_Scn *scn, const GElf_Shdr *sh, const char *name,
			uint64_t entry, plumb_elf_function *out)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !sh->sh_entsize)
		return 0;
	size_t n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym))
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF)
			continue;
		const char *s = elf_strptr(e->elf, sh->sh_link, sym.st_name);
		uint64_t bias;
		if (!s || strcmp(s, name) != 0 || !bias_fits(e, sym.st_value, entry, &bias))
			continue;
		*out = (plumb_elf_function){ sym.st_value, sym.st_size, bias };
		return 1;
	}
	return 0;
}

int plumb_elf_find_function(const plumb_elf *e, const char *name, uint64_t entry,
			    plumb_elf_function *out, plumb_error *err)
{
	const Elf64_Word kinds[] = { SHT_SYMTAB, SHT_DYNSYM };
	for (size_t k = 0; k < 2; k++) {
		for (Elf_Scn *scn = elf_nextscn(e->elf, NULL); scn; scn = elf_nextscn(e->elf, scn)) {
			GElf_Shdr sh;
			if (gelf_getshdr(scn, &sh) && sh.sh_type == kinds[k] &&
			    search_table(e, scn, &sh, name, entry, out))
				return 0;
		}
	}
	return plumb_fail(err, PLUMB_ERR_FORMAT,
			  "%s: no symbol '%s' that could start at 0x%llx (page-aligned load bias)",
			  e->path, name, (unsigned long long)entry);
}

/* The loaded bytes at [address, address + *size); *size is cut to the end
 * of the section that holds address. */
static const uint8_t *section_bytes(const plumb_elf *e, uint64_t address, uint64_t *size)
{
	for (Elf_Scn *scn = elf_nextscn(e->elf, NULL); scn; scn = elf_nextscn(e->elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (address < sh.sh_addr || address - sh.sh_addr >= sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			return NULL;
		uint64_t off = address - sh.sh_addr;
		if (*size > sh.sh_size - off)
			*size = sh.sh_size - off;
		return (const uint8_t *)d->d_buf + off;
	}
	return NULL;
}

static int capstone_mode(const plumb_elf *e, cs_arch *arch, cs_mode *mode)
{
	switch (e->ehdr.e_machine) {
	case EM_X86_64: *arch = CS_ARCH_X86; *mode = CS_MODE_64; return 0;
	case EM_386: *arch = CS_ARCH_X86; *mode = CS_MODE_32; return 0;
	case EM_AARCH64: *arch = CS_ARCH_ARM64; *mode = CS_MODE_ARM; return 0;
	case EM_ARM: *arch = CS_ARCH_ARM; *mode = CS_MODE_ARM; return 0;
	default: return -1;
	}
}

int plumb_elf_disasm(plumb_elf *e, uint64_t address, uint64_t size, plumb_insn **out, size_t *n,
		     plumb_error *err)
{
	*out = NULL;
	*n = 0;
	cs_arch arch;
	cs_mode mode;
	if (capstone_mode(e, &arch, &mode))
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "%s: no disassembler for ELF machine %u",
				  e->path, (unsigned)e->ehdr.e_machine);
	const uint8_t *bytes = section_bytes(e, address, &size);
	if (!bytes)
		return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: no loaded bytes at 0x%llx", e->path,
				  (unsigned long long)address);
	const plumb_capstone *cs = plumb_capstone_get(err);
	if (!cs)
		return -1;
	csh h;
	if (cs->open(arch, mode, &h) != CS_ERR_OK)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "capstone cannot open this machine");
	cs_insn *insn = NULL;
	size_t count = cs->disasm(h, bytes, size, address, 0, &insn);
	int rc = 0;
	if (count && !(*out = calloc(count, sizeof **out)))
		rc = plumb_fail_nomem(err);
	for (size_t i = 0; !rc && i < count; i++) {
		plumb_insn *o = &(*out)[i];
		o->address = insn[i].address;
		o->size = insn[i].size;
		snprintf(o->text, sizeof o->text, "%s%s%s", insn[i].mnemonic, insn[i].op_str[0] ? " " : "",
			 insn[i].op_str);
	}
	if (!rc)
		*n = count;
	if (count)
		cs->free(insn, count);
	cs->close(&h);
	return rc;
}
