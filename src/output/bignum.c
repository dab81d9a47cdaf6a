/* Exact integers from long double: glibc's printf prints the exact decimal
 * value of a binary floating-point number, so "%.0Lf" of an integer-valued
 * long double is its exact digits, past 2^64 too. */
#include "output/bignum.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "plumb/output.h"

const char *plumb_format_integer(long double v, char *buf, size_t size)
{
	if (!isfinite(v) || fabsl(v) >= 1e60L)
		snprintf(buf, size, "%.6Le", v);
	else
		snprintf(buf, size, "%.0Lf", v);
	return buf;
}

const char *plumb_format_big(long double v, char *buf, size_t size)
{
	if (v >= 0 && v < 18446744073709551615.0L)
		return plumb_format_u64((uint64_t)(v + 0.5L), buf, size);
	char digits[80];
	plumb_format_integer(v, digits, sizeof digits);
	if (!strchr("0123456789", digits[0]) || strchr(digits, 'e'))
		return strncpy(buf, digits, size - 1), buf[size - 1] = '\0', buf; /* inf, nan */
	size_t n = strlen(digits), o = 0;
	for (size_t i = 0; i < n && o + 2 < size; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}
