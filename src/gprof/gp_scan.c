/* -c: gprof's static call graph. The code of every symbol is scanned for
 * x86 direct calls (opcode 0xe8 and a 32-bit displacement); a call that
 * lands exactly on a symbol's start becomes an arc with no count. Like
 * gprof 2.40, the displacement is not sign-extended, so calls to lower
 * addresses are never found: the same arcs as gprof, bug included. */
#include <elf.h>
#include <string.h>

#include "gprof/gp_internal.h"
#include "plumb/elfsym.h"

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

int plumb_gprof_scan_calls_elf(plumb_gprof *g, plumb_exe *exe, plumb_error *err)
{
	const plumb_exe_info *info = plumb_exe_get_info(exe);
	if (info->machine != EM_X86_64 && info->machine != EM_386)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "%s: -c is not supported on this architecture "
				  "(only x86 direct calls are scanned)", info->path);
	uint64_t vma;
	const unsigned char *text;
	size_t len;
	if (plumb_exe_text(exe, &vma, &text, &len, err))
		return -1;
	return len ? plumb_gprof_scan_calls(g, vma, text, len) : 0; /* no .text: nothing to scan */
}
