/* Private to the writers: integers held in long double (sums of squares,
 * which may pass 2^64), printed exactly. */
#ifndef PLUMB_OUTPUT_BIGNUM_H
#define PLUMB_OUTPUT_BIGNUM_H

#include <stddef.h>

/* v rounded to an integer, all digits, no grouping: "340282366920938463463374607431768211456".
 * buf >= 64 (a long double integer has at most 4933 digits: bigger or
 * non-finite values print as "inf"/"nan"). Returns buf. */
const char *plumb_format_integer(long double v, char *buf, size_t size);
/* The same with thousands separators, as plumb_format_u64. */
const char *plumb_format_big(long double v, char *buf, size_t size);

#endif
