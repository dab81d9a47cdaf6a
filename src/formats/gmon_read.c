/* gmon.out reader (stub until the implementation lands). */
#include <stdlib.h>

#include "plumb/gmon.h"

plumb_gmon *plumb_gmon_new(void) { return calloc(1, sizeof(plumb_gmon)); }

void plumb_gmon_free(plumb_gmon *g) { free(g); }

int plumb_gmon_read(plumb_gmon *g, const char *path, const plumb_gmon_layout *layout,
		    plumb_error *err)
{
	(void)g; (void)layout;
	return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "%s: gmon reading not implemented yet", path);
}

int plumb_gmon_read_buffer(plumb_gmon *g, const char *name, const unsigned char *buf,
			   size_t len, const plumb_gmon_layout *layout, plumb_error *err)
{
	(void)g; (void)buf; (void)len; (void)layout;
	return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "%s: gmon reading not implemented yet", name);
}

int plumb_gmon_merge(plumb_gmon *dst, const plumb_gmon *src, const char *src_name,
		     plumb_error *err)
{
	(void)dst; (void)src;
	return plumb_fail(err, PLUMB_ERR_UNSUPPORTED, "%s: gmon merging not implemented yet", src_name);
}

double plumb_gmon_hist_scale(const plumb_gmon_hist *h) { (void)h; return 0; }

uint64_t plumb_gmon_total_samples(const plumb_gmon *g) { (void)g; return 0; }

bool plumb_gmon_detect(const unsigned char *head, size_t len) { (void)head; (void)len; return false; }
