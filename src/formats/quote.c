/* The readers' messages: input text quoted, errors and warnings at a line. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "formats/quote.h"

const char *plumb_quote_input(char *dst, size_t cap, const char *s, size_t n)
{
	size_t take = n, o = 0;
	if (take > PLUMB_QUOTE_MAX) {
		take = PLUMB_QUOTE_MAX;
		while (take > 0 && ((unsigned char)s[take] & 0xC0) == 0x80)
			take--;
	}
	dst[o++] = '"';
	for (size_t i = 0; i < take && o + 8 < cap; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			dst[o++] = '\\';
			dst[o++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			o += (size_t)snprintf(dst + o, cap - o, "\\x%02x", c);
		} else {
			dst[o++] = (char)c;
		}
	}
	if (take < n && o + 4 < cap) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o++] = '"';
	dst[o] = '\0';
	return dst;
}

int plumb_vfail_at(plumb_error *err, plumb_status code, const char *path, uint64_t line,
		   const char *fmt, va_list ap)
{
	char msg[900];
	vsnprintf(msg, sizeof msg, fmt, ap);
	return plumb_fail(err, code, "%s:%" PRIu64 ": %s", path, line, msg);
}

void plumb_vwarn_at(const plumb_read_opts *opts, const char *path, uint64_t line,
		    const char *fmt, va_list ap)
{
	if (!opts || !opts->warn)
		return;
	char msg[900], full[1200];
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (line)
		snprintf(full, sizeof full, "%s:%" PRIu64 ": %s", path, line, msg);
	else
		snprintf(full, sizeof full, "%s: %s", path, msg);
	opts->warn(opts->warn_ctx, full);
}
