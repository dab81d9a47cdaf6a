/* Private to src/record: per-file CFI recipes for the unwinder (see
 * unwind_recipe.c). */
#ifndef PLUMB_RECORD_UNWIND_RECIPE_H
#define PLUMB_RECORD_UNWIND_RECIPE_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

enum { RECIPE_NONE, RECIPE_END, RECIPE_STEP };
enum { RBP_SAME, RBP_SAVED, RBP_UNDEFINED };

/* How to find a frame's caller from the frame's pc. RECIPE_NONE: not
 * expressible (libdwfl unwinds the sample); RECIPE_END: the return address
 * is undefined (the outermost frame); RECIPE_STEP: CFA = (rbp if cfa_rbp,
 * else rsp) + cfa_off, the return address at CFA + ra_off, the caller's rsp
 * is the CFA and its rbp is the same, saved at CFA + rbp_off, or unknown. */
typedef struct unwind_recipe {
	int32_t cfa_off;
	int16_t ra_off, rbp_off;
	uint8_t kind, rbp;
	bool cfa_rbp;
} unwind_recipe;

typedef struct recipe_file recipe_file;

/* The recipes of the object file path as it is now; NULL on ENOMEM. A
 * file that cannot be read, or has no .eh_frame, only says NONE. */
recipe_file *recipe_file_open(const char *path);
void recipe_file_free(recipe_file *f);
/* f is the file a process mapped from path, whose build-id is build_id
 * (len bytes; len <= 0: none, then path is still the file f opened). A
 * program rebuilt during a recording gets new recipes. */
bool recipe_file_is(const recipe_file *f, const char *path, const void *build_id, int len);
const char *recipe_file_path(const recipe_file *f);
/* The recipe at off, an address in the file's own (ELF) terms: derived on
 * first use, then remembered. */
unwind_recipe recipe_file_get(recipe_file *f, uint64_t off);

#endif
