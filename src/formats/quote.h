/* Private to the readers: their messages. Input text quoted for an error,
 * and errors and warnings that name the file and line. */
#ifndef PLUMB_FORMATS_QUOTE_H
#define PLUMB_FORMATS_QUOTE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "plumb/formats.h"

#define PLUMB_QUOTE_MAX 48                          /* bytes of input quoted */
#define PLUMB_QUOTE_SIZE (PLUMB_QUOTE_MAX * 4 + 8)  /* room for all of them escaped */

/* n bytes of s in double quotes: at most PLUMB_QUOTE_MAX of them (then
 * "..."), cut on a UTF-8 character boundary, with quotes, backslashes and
 * control bytes escaped; never more than cap bytes with the NUL. */
const char *plumb_quote_input(char *dst, size_t cap, const char *s, size_t n);

/* "PATH:LINE: message" as err (PLUMB_ERR_* code); returns -1. */
int plumb_vfail_at(plumb_error *err, plumb_status code, const char *path, uint64_t line,
		   const char *fmt, va_list ap);
/* "PATH:LINE: message" ("PATH: message" for line 0) to opts->warn, if any. */
void plumb_vwarn_at(const plumb_read_opts *opts, const char *path, uint64_t line,
		    const char *fmt, va_list ap);

#endif
