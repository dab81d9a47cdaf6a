/* Private to the writers: C++ names shortened for a column (cxx_name.c). */
#ifndef PLUMB_OUTPUT_CXX_NAME_H
#define PLUMB_OUTPUT_CXX_NAME_H

#include <stddef.h>

/* s (len bytes) in at most budget columns if it can be had by hiding
 * template arguments ("<...>"), innermost first, and then the parameter
 * list ("(...)"): the length written to out (room for len bytes). When even
 * that is too wide, the shortest form is written, for the caller to cut;
 * 0 when nothing can be hidden (no templates or parameters, or non-ASCII
 * text). */
size_t plumb_cxx_shorten(const char *s, size_t len, size_t budget, char *out);

#endif
