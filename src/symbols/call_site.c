/* The start of a call instruction, found backwards from its return
 * address. x86-64 instructions have no fixed length, and decoding
 * backwards is ambiguous in general; a call is one of a few forms, each
 * checked at the one place it would have to start:
 *  - e8 rel32, 5 bytes (direct calls, the PLT): the byte at ret - 5 is e8
 *    and the target it names is mapped (the caller checks);
 *  - ff /2, 2 to 8 bytes (calls through a register, memory, the GOT):
 *    capstone decodes a call of exactly that length at the candidate start.
 * Longer forms are tried first: a register call's 2 bytes may also end a
 * longer instruction, while the bytes of a disp32 or rel32 rarely start
 * one. Files are opened once and kept open (a profile has few modules). */
#include <assert.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/call_site.h"
#include "symbols/capstone_lib.h"

#define MAX_CALL 8 /* REX + ff + modrm + sib + disp32 */

typedef struct open_file {
	char *path;
	int fd;           /* -1: could not be opened, not tried again */
} open_file;

struct plumb_call_sites {
	open_file *files;
	size_t n, cap;
	csh cs;
	bool cs_open;
};

plumb_call_sites *plumb_call_sites_new(void)
{
	return calloc(1, sizeof(plumb_call_sites));
}

void plumb_call_sites_free(plumb_call_sites *cs)
{
	if (!cs)
		return;
	for (size_t i = 0; i < cs->n; i++) {
		if (cs->files[i].fd >= 0)
			close(cs->files[i].fd);
		free(cs->files[i].path);
	}
	free(cs->files);
	if (cs->cs_open)
		plumb_capstone_get(NULL)->close(&cs->cs);
	free(cs);
}

static int file_fd(plumb_call_sites *cs, const char *path)
{
	for (size_t i = 0; i < cs->n; i++)
		if (strcmp(cs->files[i].path, path) == 0)
			return cs->files[i].fd;
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? 2 * cs->cap : 16;
		open_file *v = realloc(cs->files, cap * sizeof *v);
		if (!v)
			return -1;
		cs->files = v;
		cs->cap = cap;
	}
	char *copy = strdup(path);
	if (!copy)
		return -1;
	/* "[vdso]" and the like are not files: open fails, and that is kept */
	int fd = path[0] == '/' ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	cs->files[cs->n++] = (open_file){ copy, fd };
	return fd;
}

#if defined(__x86_64__)

static int32_t le32(const unsigned char *b)
{
	uint32_t v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	int32_t s;
	memcpy(&s, &v, sizeof s);
	return s;
}

/* Is code[0 .. len) exactly one call instruction (capstone's reading)? */
static bool is_call(plumb_call_sites *cs, const unsigned char *code, size_t len)
{
	/* without capstone, only the e8 form is found */
	const plumb_capstone *lib = plumb_capstone_get(NULL);
	if (!lib)
		return false;
	if (!cs->cs_open) {
		if (lib->open(CS_ARCH_X86, CS_MODE_64, &cs->cs) != CS_ERR_OK)
			return false;
		cs->cs_open = true;
	}
	cs_insn *insn;
	size_t n = lib->disasm(cs->cs, code, len, 0, 1, &insn);
	bool call = n == 1 && insn->size == len && insn->id == X86_INS_CALL;
	if (n)
		lib->free(insn, n);
	return call;
}

/* How many bytes before the return address the call starts, or 0. b holds
 * the n bytes before it (b[n - 1] is at ret - 1). */
static unsigned call_length(plumb_call_sites *cs, const unsigned char *b, size_t n,
			    plumb_call_target_ok target_ok, void *ctx)
{
	if (n >= 5 && b[n - 5] == 0xe8 && (!target_ok || target_ok(ctx, le32(b + n - 4))))
		return 5;
	for (size_t len = n; len >= 2; len--) {
		const unsigned char *s = b + n - len;
		/* ff /2, after at most one prefix (REX, or a segment override);
		 * never e8, whose target was checked above */
		bool ff2 = (s[0] == 0xff && (s[1] >> 3 & 7) == 2) ||
			   (len >= 3 && s[0] != 0xe8 && s[1] == 0xff && (s[2] >> 3 & 7) == 2);
		if (ff2 && is_call(cs, s, len))
			return (unsigned)len;
	}
	return 0;
}

uint64_t plumb_call_site(plumb_call_sites *cs, const char *path, uint64_t ret,
			 plumb_call_target_ok target_ok, void *ctx)
{
	assert(ret > 0);
	unsigned char b[MAX_CALL];
	size_t want = ret < MAX_CALL ? (size_t)ret : MAX_CALL;
	int fd = file_fd(cs, path);
	if (fd < 0 || pread(fd, b, want, (off_t)(ret - want)) != (ssize_t)want)
		return ret - 1;
	unsigned len = call_length(cs, b, want, target_ok, ctx);
	return len ? ret - len : ret - 1;
}

#elif defined(__aarch64__)

uint64_t plumb_call_site(plumb_call_sites *cs, const char *path, uint64_t ret,
			 plumb_call_target_ok target_ok, void *ctx)
{
	(void)cs, (void)path, (void)target_ok, (void)ctx;
	return ret >= 4 ? ret - 4 : ret - 1; /* bl and blr are 4 bytes */
}

#else

uint64_t plumb_call_site(plumb_call_sites *cs, const char *path, uint64_t ret,
			 plumb_call_target_ok target_ok, void *ctx)
{
	(void)cs, (void)path, (void)target_ok, (void)ctx;
	return ret - 1;
}

#endif
