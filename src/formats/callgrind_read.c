/* Callgrind reader: placeholder until the reader lands. */
#include "plumb/formats.h"

bool plumb_callgrind_detect(const unsigned char *head, size_t len)
{
	(void)head;
	(void)len;
	return false;
}

int plumb_callgrind_read(plumb_profile *p, const char *path, const plumb_read_opts *opts,
			 plumb_error *err)
{
	(void)p;
	(void)opts;
	return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "%s: Callgrind reader not built yet", path);
}
