/* -i: what a gmon file holds, in gprof's words. The counts are the gmon
 * reader's, which counts GNU records as it decodes them. */
#include "gprof/gp_internal.h"
#include "plumb/gmon.h"

int plumb_gprof_print_file_info(const char *name, const plumb_gmon *g, FILE *out)
{
	bool gnu = g->format == PLUMB_GMON_GNU;
	/* GNU files: the records as they stand (two equal arcs are two) */
	const size_t *c = gnu ? g->nrecords : (const size_t[3]){ g->nhists, g->narcs, g->nbbs };
	fprintf(out, "File `%s' (version %u) contains:\n", name, gnu ? (unsigned)g->version : 0);
	fprintf(out, "\t%zu histogram record%s\n", c[0], c[0] == 1 ? "" : "s");
	fprintf(out, "\t%zu call-graph record%s\n", c[1], c[1] == 1 ? "" : "s");
	fprintf(out, "\t%zu basic-block count record%s\n", c[2], c[2] == 1 ? "" : "s");
	return ferror(out) ? -1 : 0;
}
