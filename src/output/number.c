/* plumb: number formatting shared by the writers. Nothing here depends on
 * the C locale, so JSON and CSV stay parseable after setlocale(). */
#include "plumb/table.h"

#include <math.h>
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

const char *plumb_format_fixed(double v, int decimals, char *buf, size_t size)
{
	if (!isfinite(v))
		return NULL;
	if (decimals < 0)
		decimals = 0;
	if (decimals > 17)
		decimals = 17;
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
