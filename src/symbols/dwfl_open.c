/* Opening object files with libdwfl (see symbols/dwfl_open.h). */
#include <gelf.h>
#include <libelf.h>

#include "symbols/dwfl_open.h"

Dwfl *plumb_dwfl_open(Dwfl_Callbacks *cb, char **debuginfo_path)
{
	*cb = (Dwfl_Callbacks){ .find_elf = dwfl_build_id_find_elf,
				.find_debuginfo = dwfl_standard_find_debuginfo,
				.section_address = dwfl_offline_section_address,
				.debuginfo_path = debuginfo_path };
	return dwfl_begin(cb);
}

Dwfl_Module *plumb_dwfl_add_object(Dwfl *dwfl, const char *path, int fd, uint64_t bias)
{
	dwfl_report_begin_add(dwfl);
	Dwfl_Module *mod = dwfl_report_elf(dwfl, path, path, fd, bias, true);
	dwfl_report_end(dwfl, NULL, NULL);
	return mod;
}

bool plumb_elf_map_bias(int fd, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return false;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t n;
	bool ok = false;
	if (elf && elf_getphdrnum(elf, &n) == 0) {
		for (size_t i = 0; i < n && !ok; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			uint64_t lo = ph.p_offset & ~(uint64_t)4095;
			if (pgoff >= lo && pgoff < ph.p_offset + ph.p_filesz) {
				*bias = start - (pgoff - ph.p_offset + ph.p_vaddr);
				ok = true;
			}
		}
	}
	if (elf)
		elf_end(elf);
	return ok;
}
