/* Routine names for the report: the loaded object holding an address
 * (dl_iterate_phdr), then the function symbol containing it in that
 * object's .symtab (or .dynsym when stripped), read from its file. Only
 * called when a report is written. */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inputs/inputs.h"

typedef struct sym {
	uintptr_t start, size;
	const char *name;
} sym;

typedef struct object {
	uintptr_t base;
	char path[512];
	const unsigned char *map;
	size_t map_size;
	sym *syms;
	size_t nsyms, syms_cap;
} object;

#define MAX_OBJECTS 64
static object objects[MAX_OBJECTS];
static size_t nobjects;

typedef struct find {
	uintptr_t pc, base;
	const char *name;
	bool found;
	uintptr_t seg_lo, seg_hi, seg_offset; /* the PT_LOAD segment holding pc */
} find;

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	find *f = arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && f->pc >= lo && f->pc < lo + ph->p_memsz) {
			f->base = info->dlpi_addr;
			f->name = info->dlpi_name;
			f->found = true;
			f->seg_lo = lo;
			f->seg_hi = lo + ph->p_memsz;
			f->seg_offset = ph->p_offset;
			return 1;
		}
	}
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const sym *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The FUNC symbols of one section of type `type`; false if there is none. */
static bool load_symbols(object *o, unsigned type)
{
	const ElfW(Ehdr) *eh = (const void *)o->map;
	if (eh->e_shoff == 0 || eh->e_shoff + (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) > o->map_size)
		return false;
	const ElfW(Shdr) *sh = (const void *)(o->map + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != type || sh[i].sh_link >= eh->e_shnum)
			continue;
		const ElfW(Shdr) *strs = &sh[sh[i].sh_link];
		if (sh[i].sh_offset + sh[i].sh_size > o->map_size || strs->sh_offset + strs->sh_size > o->map_size)
			return false;
		const ElfW(Sym) *s = (const void *)(o->map + sh[i].sh_offset);
		size_t n = sh[i].sh_size / sizeof *s;
		for (size_t k = 0; k < n; k++) {
			if (ELF64_ST_TYPE(s[k].st_info) != STT_FUNC || s[k].st_shndx == SHN_UNDEF ||
			    s[k].st_name >= strs->sh_size)
				continue;
			if (inp_grow((void **)&o->syms, &o->syms_cap, o->nsyms + 1, sizeof *o->syms))
				break;
			o->syms[o->nsyms++] = (sym){ s[k].st_value, s[k].st_size,
						     (const char *)o->map + strs->sh_offset + s[k].st_name };
		}
		qsort(o->syms, o->nsyms, sizeof *o->syms, by_start);
		return o->nsyms > 0;
	}
	return false;
}

static object *object_at(uintptr_t pc)
{
	find f = { .pc = pc };
	dl_iterate_phdr(find_object, &f);
	if (!f.found)
		return NULL;
	for (size_t i = 0; i < nobjects; i++)
		if (objects[i].base == f.base)
			return &objects[i];
	if (nobjects == MAX_OBJECTS)
		return NULL;
	object *o = &objects[nobjects++];
	memset(o, 0, sizeof *o);
	o->base = f.base;
	if (f.name && *f.name) {
		snprintf(o->path, sizeof o->path, "%s", f.name);
	} else {
		ssize_t n = readlink("/proc/self/exe", o->path, sizeof o->path - 1);
		o->path[n > 0 ? n : 0] = '\0';
	}
	int fd = open(o->path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(ElfW(Ehdr))) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			o->map = m;
			o->map_size = (size_t)st.st_size;
			if (memcmp(o->map, ELFMAG, SELFMAG) != 0 || o->map[EI_CLASS] != ELFCLASS64 ||
			    (!load_symbols(o, SHT_SYMTAB) && !load_symbols(o, SHT_DYNSYM)))
				o->nsyms = 0;
		}
	}
	if (fd >= 0)
		close(fd);
	return o;
}

INP_HIDDEN void inp_symbolize(uintptr_t pc, char *name, size_t name_size, char *obj, size_t obj_size)
{
	object *o = object_at(pc);
	snprintf(obj, obj_size, "%s", o && *o->path ? o->path : "NONE");
	const sym *best = NULL;
	if (o && o->nsyms) {
		uintptr_t a = pc - o->base;
		size_t lo = 0, hi = o->nsyms;
		while (lo < hi) { /* first symbol starting after a */
			size_t mid = lo + (hi - lo) / 2;
			if (o->syms[mid].start <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* among those starting at or before a, one whose extent holds a */
		for (size_t i = lo, steps = 0; i-- > 0 && !best && steps++ < 64;)
			if (a < o->syms[i].start + (o->syms[i].size ? o->syms[i].size : 1) ||
			    (i + 1 == lo && !o->syms[i].size))
				best = &o->syms[i];
	}
	if (best)
		snprintf(name, name_size, "%s", best->name);
	else
		snprintf(name, name_size, "0x%lx", (unsigned long)pc);
}

INP_HIDDEN bool inp_file_offset(uintptr_t pc, uint64_t *offset, uintptr_t *base)
{
	/* the segment of the previous answer first: blocks come routine by routine */
	static find last;
	if (!(last.found && pc >= last.seg_lo && pc < last.seg_hi)) {
		find f = { .pc = pc };
		dl_iterate_phdr(find_object, &f);
		if (!f.found)
			return false;
		last = f;
	}
	*offset = pc - last.seg_lo + last.seg_offset;
	*base = last.base;
	return true;
}
