/* -c: gprof's static call graph. The code of every symbol is scanned for
 * x86 direct calls (opcode 0xe8 and a 32-bit displacement); a call that
 * lands exactly on a symbol's start becomes an arc with no count. Like
 * gprof 2.40, the displacement is not sign-extended, so calls to lower
 * addresses are never found: the same arcs as gprof, bug included. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "gprof/gp_internal.h"

/* The part of [lo, hi) inside a histogram record (gprof clips a symbol's
 * range this way); empty when none holds it. */
static void clip(const plumb_gprof *g, uint64_t *lo, uint64_t *hi)
{
	for (size_t i = 0; i < g->nhist; i++) {
		uint64_t a = g->hist[i].low > *lo ? g->hist[i].low : *lo;
		uint64_t b = g->hist[i].high < *hi ? g->hist[i].high : *hi;
		if (a < b) {
			*lo = a;
			*hi = b;
			return;
		}
	}
	*hi = *lo;
}

static void scan_symbol(plumb_gprof *g, size_t i, uint64_t vma, const unsigned char *text, size_t len)
{
	uint64_t lo = g->sym[i].s.addr, hi = i + 1 < g->nsym ? g->sym[i + 1].s.addr : lo;
	clip(g, &lo, &hi);
	if (lo < vma)
		lo = vma;
	if (hi > vma + len)
		hi = vma + len;
	for (uint64_t pc = lo; pc < hi && pc + 5 <= vma + len; pc++) {
		const unsigned char *p = text + (pc - vma);
		if (p[0] != 0xe8)
			continue;
		uint64_t disp = (uint64_t)p[1] | (uint64_t)p[2] << 8 | (uint64_t)p[3] << 16 | (uint64_t)p[4] << 24;
		uint64_t dest = disp + pc + 5;
		if (!gp_in_hist(g, dest))
			continue;
		uint32_t c = gp_sym_at(g, dest);
		if (c == GP_NONE || g->sym[c].s.addr != dest)
			continue;
		plumb_gprof_add_static_call(g, g->sym[i].s.addr, dest);
		pc += 4; /* a call is 5 bytes */
	}
}

int plumb_gprof_scan_calls(plumb_gprof *g, uint64_t vma, const unsigned char *text, size_t len)
{
	for (size_t i = 0; i < g->nsym; i++)
		scan_symbol(g, i, vma, text, len);
	return 0;
}

static int scan_elf(plumb_gprof *g, Elf *elf, const char *path, plumb_error *err)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx))
		return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: not an ELF file", path);
	if (eh.e_machine != EM_X86_64 && eh.e_machine != EM_386)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "%s: -c is not supported on this architecture "
				  "(only x86 direct calls are scanned)", path);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".text") != 0 || sh.sh_type != SHT_PROGBITS)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: cannot read .text", path);
		return plumb_gprof_scan_calls(g, sh.sh_addr, d->d_buf, d->d_size);
	}
	return 0; /* no .text: nothing to scan */
}

int plumb_gprof_scan_calls_elf(plumb_gprof *g, const char *path, plumb_error *err)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "libelf: %s", elf_errmsg(-1));
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return plumb_fail(err, PLUMB_ERR_IO, "%s: cannot open", path);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	int rc = elf ? scan_elf(g, elf, path, err)
		     : plumb_fail(err, PLUMB_ERR_FORMAT, "%s: not an ELF file", path);
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}
