/* plumb record --heap on a command that cannot be traced: a static
 * executable has no dynamic loader, so nothing preloads the tracer and no
 * allocation would be seen. Said before it runs, never a silent empty
 * profile. */
#include <elf.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/inputs.h"
#include "preload/format.h"
#include "record/heap.h"

/* 1: ELF with a program interpreter, 0: ELF without one, -1: not a 64-bit
 * ELF file we can read (a script, a 32-bit program: left to run). */
static int has_interp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Elf64_Ehdr eh;
	int rc = -1;
	if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
		rc = 0;
		for (unsigned i = 0; i < eh.e_phnum && rc == 0; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph)) != (ssize_t)sizeof ph) {
				rc = -1;
				break;
			}
			if (ph.p_type == PT_INTERP)
				rc = 1;
		}
	}
	close(fd);
	return rc;
}

int plumb_heap_check_command(const char *argv0, plumb_error *err)
{
	char *path = plumb_inputs_which(argv0);
	if (!path)
		return 0;   /* not found: running it says so */
	int r = has_interp(path);
	int rc = 0;
	if (r == 0)
		rc = plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
				"--heap: %s is statically linked: no library can be preloaded into it, so "
				"its allocations cannot be seen (link it dynamically, or use a tool that "
				"instruments the binary)",
				path);
	free(path);
	return rc;
}

/* After the run: whether the tracer saw the allocator the program used. */
int plumb_heap_note(const plumb_record_opts *o, const plumb_heap_info *h, plumb_rec_data *d,
		    plumb_error *err)
{
	char mode[64], note[600];
	if (o->heap_sample)
		snprintf(mode, sizeof mode, "sample:%llu", (unsigned long long)o->heap_sample);
	else
		snprintf(mode, sizeof mode, "exact");
	if (plumb_rec_meta_add(d, "heap.mode", mode, err))
		return -1;
	if (h->images == 0)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
				  "--heap: the heap tracer did not start in %s (its allocator functions "
				  "could not be found): no allocation was seen",
				  o->argv[0]);
	note[0] = 0;
	if (h->flags & PSMP_HEAP_MALLOC_ELSEWHERE)
		snprintf(note, sizeof note,
			 "--heap: malloc is defined by %s, ahead of the preloaded tracer: its allocations "
			 "are not seen%s; anonymous mmap is",
			 h->where, h->events ? " (what was seen came through other objects)" : "");
	else if (h->flags & PSMP_HEAP_OTHER_ALLOCATOR)
		snprintf(note, sizeof note,
			 "--heap: the program's allocator is %s, not libc's: traced at its malloc and "
			 "free, which it may bypass for its own pools",
			 h->where);
	if (!note[0])
		return 0;
	if (o->warn)
		o->warn(o->warn_ctx, note);
	return plumb_rec_meta_add(d, "heap.note", note, err);
}
