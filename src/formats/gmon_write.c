/* gmon.out writer, GNU format (stub until the implementation lands). */
#include "plumb/gmon.h"

int plumb_gmon_write(const plumb_gmon *g, const char *path, plumb_error *err)
{
	(void)g;
	return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "%s: gmon writing not implemented yet", path);
}

int plumb_gmon_write_stream(const plumb_gmon *g, FILE *out, plumb_error *err)
{
	(void)g; (void)out;
	return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "gmon writing not implemented yet");
}
