/* Callgrind writer: placeholder until the writer lands. */
#include "plumb/formats.h"

int plumb_callgrind_write_stream(const plumb_profile *p, FILE *out, plumb_error *err)
{
	(void)p;
	(void)out;
	return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "Callgrind writer not built yet");
}

int plumb_callgrind_write(const plumb_profile *p, const char *path, plumb_error *err)
{
	(void)p;
	return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "%s: Callgrind writer not built yet", path);
}
