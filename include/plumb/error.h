/* plumb: error values. The library never prints and never exits; every
 * fallible call fills a plumb_error and returns -1 (or NULL). */
#ifndef PLUMB_ERROR_H
#define PLUMB_ERROR_H

#include <stddef.h>

typedef enum plumb_status {
	PLUMB_OK = 0,
	PLUMB_ERR_IO,          /* missing, unreadable, a directory, write failure */
	PLUMB_ERR_FORMAT,      /* the input is not what it claims or is damaged */
	PLUMB_ERR_NOMEM,
	PLUMB_ERR_OVERFLOW,    /* a 64-bit cost would wrap */
	PLUMB_ERR_USAGE,       /* a bad argument from the caller (symspec, event) */
	PLUMB_ERR_UNSUPPORTED  /* valid input that plumb cannot handle yet */
} plumb_status;

typedef struct plumb_error {
	plumb_status code;
	char message[1024];
} plumb_error;

/* Fill err (which may be NULL) and return -1, so that callers can write
 * `return plumb_fail(err, PLUMB_ERR_FORMAT, "%s:%lu: expected ...", ...);` */
int plumb_fail(plumb_error *err, plumb_status code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Same, for the out-of-memory case, which needs no formatting. */
int plumb_fail_nomem(plumb_error *err);

void plumb_error_clear(plumb_error *err);

/* A sink for warnings that do not stop a reader (unknown keys, totals that do
 * not match). The library calls it; the caller decides whether to print. */
typedef void (*plumb_warn_fn)(void *ctx, const char *message);

#endif
