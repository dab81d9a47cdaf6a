/* Private to the readers: input text quoted for an error message. */
#ifndef PLUMB_FORMATS_QUOTE_H
#define PLUMB_FORMATS_QUOTE_H

#include <stddef.h>

#define PLUMB_QUOTE_MAX 48                          /* bytes of input quoted */
#define PLUMB_QUOTE_SIZE (PLUMB_QUOTE_MAX * 4 + 8)  /* room for all of them escaped */

/* n bytes of s in double quotes: at most PLUMB_QUOTE_MAX of them (then
 * "..."), cut on a UTF-8 character boundary, with quotes, backslashes and
 * control bytes escaped; never more than cap bytes with the NUL. */
const char *plumb_quote_input(char *dst, size_t cap, const char *s, size_t n);

#endif
