#include "plumb/error.h"

#include <stdarg.h>
#include <stdio.h>

int plumb_fail(plumb_error *err, plumb_status code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		err->code = code;
		vsnprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int plumb_fail_nomem(plumb_error *err)
{
	return plumb_fail(err, PLUMB_ERR_NOMEM, "out of memory");
}

void plumb_error_clear(plumb_error *err)
{
	if (err) {
		err->code = PLUMB_OK;
		err->message[0] = '\0';
	}
}
