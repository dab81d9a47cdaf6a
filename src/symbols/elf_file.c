/* Opening ELF files with libelf, with the messages both users give. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elf_file.h"

int plumb_elf_file_open(const char *path, const char *what, int *fd, Elf **elf, GElf_Ehdr *ehdr,
			plumb_error *err)
{
	*fd = -1;
	*elf = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "libelf: %s", elf_errmsg(-1));
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return plumb_fail(err, PLUMB_ERR_IO, "%s: cannot open the %s: %s", path, what,
				  strerror(errno));
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF || !gelf_getehdr(*elf, ehdr)) {
		plumb_elf_file_close(*fd, *elf);
		*fd = -1;
		*elf = NULL;
		return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: not an ELF %s", path, what);
	}
	return 0;
}

void plumb_elf_file_close(int fd, Elf *elf)
{
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}
