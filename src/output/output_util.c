/* Helpers shared by the text, CSV and JSON writers. */
#include <errno.h>
#include <string.h>

#include "output/output_internal.h"

/* Length of the well-formed UTF-8 sequence at s, or 0 if there is none
 * (overlong forms, surrogates and code points past U+10FFFF included). */
size_t plumb_utf8_seq(const unsigned char *s)
{
	unsigned lo = 0x80, hi = 0xBF;
	size_t n;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		n = 3;
		if (s[0] == 0xE0)
			lo = 0xA0;
		if (s[0] == 0xED)
			hi = 0x9F;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		n = 4;
		if (s[0] == 0xF0)
			lo = 0x90;
		if (s[0] == 0xF4)
			hi = 0x8F;
	} else
		return 0;
	/* Checked in order, so the terminating NUL stops the scan. */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

int plumb_output_flush(FILE *out, const char *what, plumb_error *err)
{
	int flushed = fflush(out);
	int e = errno;
	if (flushed == 0 && !ferror(out))
		return 0;
	return plumb_fail(err, PLUMB_ERR_IO, "cannot write the %s: %s", what,
			  e ? strerror(e) : "write error");
}

const char *plumb_row_kind_name(plumb_row_kind kind)
{
	switch (kind) {
	case PLUMB_ROW_CALLER: return "caller";
	case PLUMB_ROW_FOCUS: return "focus";
	case PLUMB_ROW_CALLEE: return "callee";
	case PLUMB_ROW_SEPARATOR: return "separator";
	case PLUMB_ROW_NORMAL: break;
	}
	return "normal";
}
