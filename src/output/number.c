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

/* Copy src (n bytes) into buf, cut to size - 1 bytes (the caller asked for >= 32). */
static const char *copy_n(const char *src, size_t n, char *buf, size_t size)
{
	if (!buf || size == 0)
		return buf;
	if (n >= size)
		n = size - 1;
	memcpy(buf, src, n);
	buf[n] = '\0';
	return buf;
}

static const char *copy_out(const char *src, char *buf, size_t size)
{
	return copy_n(src, strlen(src), buf, size);
}

const char *plumb_format_u64(uint64_t v, char *buf, size_t size)
{
	/* Built from the right, three digits at a time, so that the commas
	 * fall between groups (a big table formats millions of counts). */
	char tmp[32];
	char *q = tmp + sizeof tmp;
	while (v >= 1000) {
		unsigned g = (unsigned)(v % 1000);
		v /= 1000;
		q -= 4;
		q[0] = ',';
		q[1] = (char)('0' + g / 100);
		q[2] = (char)('0' + g / 10 % 10);
		q[3] = (char)('0' + g % 10);
	}
	do {
		*--q = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return copy_n(q, (size_t)(tmp + sizeof tmp - q), buf, size);
}

/* %.*f for the common case, without printf (a big table has millions of
 * percentages): |v| * 10^d rounded to an integer as printf rounds the exact
 * binary value, to nearest, ties to even. false when v is out of the exact
 * range; printf then does it. */
static bool fixed_round(double v, int decimals, uint64_t *out, bool *neg)
{
	static const double pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	if (decimals > 6)
		return false;
	*neg = signbit(v);
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
	*out = n;
	return true;
}

static bool fixed_fast(double v, int decimals, char *out, size_t cap)
{
	uint64_t n;
	bool neg;
	if (cap < 40 || !fixed_round(v, decimals, &n, &neg))
		return false;
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

size_t plumb_format_fixed_width(double v, int decimals)
{
	if (!isfinite(v))
		return 0;
	uint64_t n;
	bool neg;
	if (decimals >= 0 && fixed_round(v, decimals, &n, &neg)) {
		size_t digits = 1;
		for (; n >= 10; n /= 10)
			digits++;
		if (digits <= (size_t)decimals)
			digits = (size_t)decimals + 1; /* 0.05: a zero before the point */
		return neg + digits + (decimals > 0);
	}
	char buf[64];
	return strlen(plumb_format_fixed(v, decimals, buf, sizeof buf));
}

const char *plumb_format_fixed(double v, int decimals, char *buf, size_t size)
{
	if (!isfinite(v))
		return NULL;
	if (decimals < 0)
		decimals = 0;
	if (decimals > 17)
		decimals = 17;
	/* written in place when buf has room (the usual case), else copied */
	char fast[64];
	bool in_place = buf && size >= 40;
	if (fixed_fast(v, decimals, in_place ? buf : fast, in_place ? size : sizeof fast))
		return in_place ? buf : copy_out(fast, buf, size);
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
