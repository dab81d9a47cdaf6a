/* CFI recipes for the unwinder (unwind.c): the unwinding rule of one code
 * address of one file, reduced once from the file's .eh_frame by libdw
 * (dwarf_cfi_addrframe, dwarf_frame_cfa, dwarf_frame_register) to the
 * common x86-64 cases -- the CFA is rsp or rbp plus an offset, the return
 * address and rbp are at fixed offsets from it -- and kept per file, keyed
 * by the address's offset in the file. Every process mapping the file
 * shares the table: four cc1plus processes derive each recipe once. A walk
 * then costs a table probe and two loads per frame, where libdwfl's
 * unwinder searches the CFI, runs its program and allocates a frame state
 * at every frame of every sample (1 s of plumb's CPU for four compiles).
 * Anything a recipe cannot say is RECIPE_NONE and libdwfl unwinds that
 * sample, as before.
 *
 * Two levels: a small direct-mapped table of recent addresses (a probe in
 * cache; 87% of cc1plus's frames), then the table of every address
 * derived. The address ranges libdw gives with a rule (dwarf_frame_info)
 * are not used: they can reach past a DW_CFA_restore_state into rows with
 * other rules. */
#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/index.h"
#include "record/unwind_recipe.h"

typedef struct recipe_entry {
	uint64_t off;
	unwind_recipe r;
} recipe_entry;

#define NEAR_BITS 11

struct recipe_file {
	char *path;
	int fd;
	struct stat st;        /* the file as opened, when it has no build-id */
	const void *build_id;  /* in elf */
	ssize_t build_id_len;
	Elf *elf;
	Dwarf_CFI *cfi;        /* the file's .eh_frame; NULL: none */
	plumb_index ix;
	PLUMB_VEC(recipe_entry) ents;
	recipe_entry near[1u << NEAR_BITS];   /* off + 1; 0: empty */
};

recipe_file *recipe_file_open(const char *path)
{
	recipe_file *f = calloc(1, sizeof *f);
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd >= 0 && fstat(f->fd, &f->st) == 0 && elf_version(EV_CURRENT) != EV_NONE &&
	    (f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL))) {
		f->cfi = dwarf_getcfi_elf(f->elf);
		f->build_id_len = dwelf_elf_gnu_build_id(f->elf, &f->build_id);
	}
	return f;
}

void recipe_file_free(recipe_file *f)
{
	if (!f)
		return;
	if (f->cfi)
		dwarf_cfi_end(f->cfi);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	plumb_index_free(&f->ix);
	free(f->ents.v);
	free(f->path);
	free(f);
}

bool recipe_file_is(const recipe_file *f, const char *path, const void *build_id, int len)
{
	if (!f->elf || strcmp(f->path, path) != 0)
		return false;
	if (len > 0 || f->build_id_len > 0)
		return len == f->build_id_len && memcmp(build_id, f->build_id, (size_t)len) == 0;
	struct stat st;
	return stat(path, &st) == 0 && st.st_dev == f->st.st_dev && st.st_ino == f->st.st_ino &&
	       st.st_size == f->st.st_size && st.st_mtim.tv_sec == f->st.st_mtim.tv_sec &&
	       st.st_mtim.tv_nsec == f->st.st_mtim.tv_nsec;
}

const char *recipe_file_path(const recipe_file *f)
{
	return f->path;
}

/* ops is a location CFA + N (DW_OP_call_frame_cfa [DW_OP_plus_uconst N])
 * with N in 16 bits: N into *off. */
static bool cfa_location(const Dwarf_Op *ops, size_t n, int16_t *off)
{
	if (n < 1 || n > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (n == 2 && ops[1].atom != DW_OP_plus_uconst)
		return false;
	int64_t v = n == 2 ? (int64_t)ops[1].number : 0;
	if (v < INT16_MIN || v > INT16_MAX)
		return false;
	*off = (int16_t)v;
	return true;
}

/* The rule at pc (an address in the file's own terms), as libdwfl's
 * handle_cfi would apply it to rip, rsp and rbp. */
static unwind_recipe derive(Dwarf_CFI *cfi, uint64_t pc)
{
	unwind_recipe r = { .kind = RECIPE_NONE };
	Dwarf_Frame *fr;
	if (!cfi || dwarf_cfi_addrframe(cfi, pc, &fr) != 0)
		return r;
	Dwarf_Addr lo, hi;
	bool signal;
	Dwarf_Op mem[3], *ops, *cfa;
	size_t n, ncfa;
	if (dwarf_frame_info(fr, &lo, &hi, &signal) != 16 || signal)
		goto out;  /* the next frame would not be a call's: libdwfl's */
	if (dwarf_frame_register(fr, 16, mem, &ops, &n) != 0)
		goto out;
	if (n == 0 && ops == mem) {
		r.kind = RECIPE_END;  /* the return address is undefined */
		goto out;
	}
	if (!cfa_location(ops, n, &r.ra_off))
		goto out;
	/* the caller's rsp is the CFA */
	if (dwarf_frame_register(fr, 7, mem, &ops, &n) != 0 || n != 2 ||
	    ops[0].atom != DW_OP_call_frame_cfa || ops[1].atom != DW_OP_stack_value)
		goto out;
	if (dwarf_frame_register(fr, 6, mem, &ops, &n) != 0)
		goto out;
	if (n == 0)
		r.rbp = ops == NULL ? RBP_SAME : RBP_UNDEFINED;
	else if (cfa_location(ops, n, &r.rbp_off))
		r.rbp = RBP_SAVED;
	else
		goto out;
	if (dwarf_frame_cfa(fr, &cfa, &ncfa) != 0 || ncfa != 1 || cfa[0].atom != DW_OP_bregx ||
	    (cfa[0].number != 6 && cfa[0].number != 7) ||
	    (int64_t)cfa[0].number2 < INT32_MIN || (int64_t)cfa[0].number2 > INT32_MAX)
		goto out;
	r.cfa_rbp = cfa[0].number == 6;
	r.cfa_off = (int32_t)(int64_t)cfa[0].number2;
	r.kind = RECIPE_STEP;
out:
	free(fr);
	return r;
}

static bool entry_eq(const void *ctx, uint32_t id, const void *key)
{
	const recipe_file *f = ctx;
	return f->ents.v[id].off == *(const uint64_t *)key;
}

unwind_recipe recipe_file_get(recipe_file *f, uint64_t off)
{
	uint64_t hash = plumb_hash_mix(off, 0);
	recipe_entry *near = &f->near[hash >> (64 - NEAR_BITS)];
	if (near->off == off + 1)
		return near->r;
	uint32_t h = (uint32_t)hash;
	uint32_t id = plumb_index_find(&f->ix, h, entry_eq, f, &off);
	if (id != PLUMB_NONE) {
		*near = (recipe_entry){ off + 1, f->ents.v[id].r };
		return near->r;
	}
	unwind_recipe r = derive(f->cfi, off);
	/* not remembered on ENOMEM: derived again next time */
	if (f->ents.n < UINT32_MAX - 1 && !plumb_vec_reserve(f->ents, f->ents.n + 1) &&
	    !plumb_index_insert(&f->ix, h, (uint32_t)f->ents.n))
		f->ents.v[f->ents.n++] = (recipe_entry){ off, r };
	*near = (recipe_entry){ off + 1, r };
	return r;
}
