/* gmon sum helper for the end-to-end tests: gm_sum EXE OUT IN... reads the
 * gmon files with the executable's layout, sums them with plumb_gmon_read
 * and writes the sum with plumb_gmon_write (as gprof -s writes gmon.sum). */
#include <stdio.h>

#include "plumb/elfsym.h"
#include "plumb/gmon.h"

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: gm_sum EXE OUT IN...\n");
		return 2;
	}
	plumb_error err;
	plumb_exe *e = plumb_exe_open(argv[1], &err);
	if (!e) {
		fprintf(stderr, "gm_sum: %s\n", err.message);
		return 1;
	}
	plumb_gmon_layout l = plumb_exe_gmon_layout(e);
	plumb_gmon *g = plumb_gmon_new();
	int rc = 0;
	for (int i = 3; i < argc && rc == 0; i++)
		rc = plumb_gmon_read(g, argv[i], &l, &err);
	if (rc == 0)
		rc = plumb_gmon_write(g, argv[2], &err);
	if (rc)
		fprintf(stderr, "gm_sum: %s\n", err.message);
	plumb_gmon_free(g);
	plumb_exe_close(e);
	return rc ? 1 : 0;
}
