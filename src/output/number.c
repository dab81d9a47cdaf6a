/* plumb: number formatting shared by the writers. Nothing here depends on
 * the C locale, so JSON and CSV stay parseable after setlocale(). */
#include "plumb/output.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void plumb_text_opts_init(plumb_text_opts *o)
{
	if (o)
		*o = (plumb_text_opts){ .width = 0, .color = false, .header = true };
}

/* Copy src into buf, cut to size - 1 bytes (the caller asked for >= 32). */
static const char *copy_out(const char *src, char *buf, size_t size)
{
	if (!buf || size == 0)
		return buf;
	size_t n = strlen(src);
	if (n >= size)
		n = size - 1;
	memcpy(buf, src, n);
	buf[n] = '\0';
	return buf;
}

const char *plumb_format_u64(uint64_t v, char *buf, size_t size)
{
	char tmp[32];
	size_t i = sizeof tmp - 1;
	int digits = 0;
	tmp[i] = '\0';
	/* Build from the right so the commas fall every three digits. */
	do {
		if (digits && digits % 3 == 0)
			tmp[--i] = ',';
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
		digits++;
	} while (v);
	return copy_out(&tmp[i], buf, size);
}

/* %.*f for the common case, without printf (a big table has millions of
 * percentages). v * 10^d is split exactly into s + e (fma), so the digit
 * rounds as printf rounds the exact binary value: to nearest, ties to even.
 * Returns false when v is out of the exact range; printf then does it. */
static bool fixed_fast(double v, int decimals, char *out, size_t cap)
{
	static const double pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	if (decimals > 6 || cap < 40)
		return false;
	bool neg = signbit(v);
	double a = fabs(v), m = pow10[decimals];
	double s = a * m;
	if (!(s < 4503599627370496.0)) /* 2^52: floor and frac below are exact */
		return false;
	double f = floor(s), frac = s - f;
	uint64_t n = (uint64_t)f;
	/* s is the product rounded to nearest, and f + 0.5 is a double: the
	 * exact product is on the same side of it as s, unless s is on it;
	 * only then does the product's rounding error (fma, a library call
	 * without -mfma) tell */
	if (frac > 0.5)
		n++;
	else if (frac == 0.5) {
		double e = fma(a, m, -s);
		if (e > 0 || (e == 0 && (n & 1)))
			n++;
	}
	char digits[32];
	int len = 0;
	do {
		digits[len++] = (char)('0' + n % 10);
		n /= 10;
	} while (n || len <= decimals);
	size_t o = 0;
	if (neg)
		out[o++] = '-';
	for (int i = len - 1; i >= 0; i--) {
		out[o++] = digits[i];
		if (i == decimals && decimals > 0)
			out[o++] = '.';
	}
	out[o] = '\0';
	return true;
}

const char *plumb_format_fixed(double v, int decimals, char *buf, size_t size)
{
	if (!isfinite(v))
		return NULL;
	if (decimals < 0)
		decimals = 0;
	if (decimals > 17)
		decimals = 17;
	char fast[64];
	if (fixed_fast(v, decimals, fast, sizeof fast))
		return copy_out(fast, buf, size);
	char tmp[64];
	/* %f of a huge value would be hundreds of digits; exponent form is
	 * still a valid JSON number. */
	snprintf(tmp, sizeof tmp, fabs(v) < 1e18 ? "%.*f" : "%.*e", decimals, v);
	/* Replace the locale's decimal point (possibly multi-byte) with '.':
	 * it is the first run of non-digits after the leading digits. */
	char out[64];
	size_t i = 0, o = 0;
	if (tmp[i] == '-')
		out[o++] = tmp[i++];
	while (tmp[i] >= '0' && tmp[i] <= '9')
		out[o++] = tmp[i++];
	if (decimals > 0 && tmp[i]) {
		out[o++] = '.';
		while (tmp[i] && !(tmp[i] >= '0' && tmp[i] <= '9'))
			i++;
	}
	while (tmp[i] && o < sizeof out - 1)
		out[o++] = tmp[i++];
	out[o] = '\0';
	return copy_out(out, buf, size);
}

const char *plumb_format_compact(uint64_t v, char *buf, size_t size)
{
	if (v < 10000)
		return plumb_format_u64(v, buf, size);
	/* Three significant digits at most: 12.3k, 123k, 1.2M, 18E. */
	static const char suffix[] = "kMGTPE";
	double x = (double)v;
	int s = -1;
	while (x >= 999.5 && s < 5) {
		x /= 1000.0;
		s++;
	}
	char tmp[32];
	if (x < 99.95)
		snprintf(tmp, sizeof tmp, "%.1f%c", x, suffix[s]);
	else
		snprintf(tmp, sizeof tmp, "%.0f%c", x, suffix[s]);
	/* The locale's decimal point may not be '.'. */
	for (char *q = tmp; *q; q++)
		if (*q == ',')
			*q = '.';
	return copy_out(tmp, buf, size);
}
