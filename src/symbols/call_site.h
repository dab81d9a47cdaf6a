/* Private to libplumb: where the call instruction before a return address
 * starts. A sampled stack holds return addresses; a caller's cost belongs to
 * its call instruction, whose start is what objdump, perf annotate and
 * KCachegrind's machine-code view show. The recorder asks here once per
 * distinct return address. */
#ifndef PLUMB_SYMBOLS_CALL_SITE_H
#define PLUMB_SYMBOLS_CALL_SITE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct plumb_call_sites plumb_call_sites;

/* Does a direct call that returns to the return address reach a mapped
 * target, rel bytes away from the return address? */
typedef bool (*plumb_call_target_ok)(void *ctx, int64_t rel);

/* NULL on ENOMEM. */
plumb_call_sites *plumb_call_sites_new(void);
void plumb_call_sites_free(plumb_call_sites *cs);

/* The file offset of the call instruction that returns to file offset ret
 * of the object at path, read from the file's bytes: x86-64 `call rel32`
 * (e8, whose target target_ok must accept) or `call r/m64` (ff /2, any
 * operand form, decoded by capstone); on aarch64, ret - 4. ret - 1 (inside
 * the call, as before) when no call instruction ends at ret or the bytes
 * cannot be read. target_ok may be NULL (no check). */
uint64_t plumb_call_site(plumb_call_sites *cs, const char *path, uint64_t ret,
			 plumb_call_target_ok target_ok, void *ctx);

#endif
