/* Names of waited-for objects: a lock that is a global of the program or
 * of a library is named by its symbol ("[mutex big_lock]"), others by
 * address ("[mutex 0x7ffc1234]", a lock on the heap or the stack). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "plumb/record.h"
#include "preload/format.h"
#include "symbols/elf_file.h"

static const char *kind_name(unsigned kind)
{
	static const char *const names[] = { "wait", "mutex", "cond", "rwlock", "sem", "thread",
					     "barrier" };
	return kind < sizeof names / sizeof *names ? names[kind] : "wait";
}

/* The object symbol of file `path` holding addr, given one of its
 * executable mappings m (which fixes the load bias). */
static bool symbol_in(const plumb_rec_map *m, uint64_t addr, char *name, size_t cap)
{
	int fd;
	Elf *elf;
	GElf_Ehdr eh;
	plumb_error err;
	if (m->path[0] != '/' || plumb_elf_file_open(m->path, "object", &fd, &elf, &eh, &err))
		return false;
	/* the executable segment holding the mapping's file offset gives the bias */
	bool have_bias = false, inside = false;
	uint64_t bias = 0;
	size_t nph = 0;
	elf_getphdrnum(elf, &nph);
	for (size_t i = 0; i < nph && !have_bias; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    m->pgoff >= (ph.p_offset & ~(uint64_t)0xfff) && m->pgoff < ph.p_offset + ph.p_filesz) {
			bias = m->start - m->pgoff - (ph.p_vaddr - ph.p_offset);
			have_bias = true;
		}
	}
	uint64_t v = addr - bias;
	for (size_t i = 0; i < nph && have_bias && !inside; i++) {
		GElf_Phdr ph;
		inside = gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && v >= ph.p_vaddr &&
			 v < ph.p_vaddr + ph.p_memsz;
	}
	bool found = false;
	for (Elf_Scn *scn = NULL; inside && !found && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; data && i < n && !found; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
			    v < sym.st_value || v >= sym.st_value + (sym.st_size ? sym.st_size : 1))
				continue;
			const char *s = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (s && *s) {
				if (v == sym.st_value)
					snprintf(name, cap, "%s", s);
				else
					snprintf(name, cap, "%s+0x%" PRIx64, s, v - sym.st_value);
				found = true;
			}
		}
	}
	plumb_elf_file_close(fd, elf);
	return found;
}

void plumb_rec_lock_label(const plumb_rec_data *d, int32_t pid, uint64_t t, uint64_t addr,
			  unsigned kind, char *out, size_t cap)
{
	char sym[256];
	const char *k = kind_name(kind);
	if (kind != PSMP_WAIT_JOIN) {
		for (size_t i = 0; i < d->maps.n; i++) {
			const plumb_rec_map *m = &d->maps.v[i];
			if (m->pid != pid || t < m->time_ns || t >= m->end_ns)
				continue;
			bool seen = false;   /* each file once */
			for (size_t j = 0; j < i && !seen; j++)
				seen = d->maps.v[j].pid == pid && strcmp(d->maps.v[j].path, m->path) == 0 &&
				       t >= d->maps.v[j].time_ns && t < d->maps.v[j].end_ns;
			if (!seen && symbol_in(m, addr, sym, sizeof sym)) {
				snprintf(out, cap, "[%s %s]", k, sym);
				return;
			}
		}
	}
	snprintf(out, cap, "[%s 0x%" PRIx64 "]", k, addr);
}
