/* libFuzzer target for gmon.out read with its executable: the input is the
 * gmon file, the executable is fixed ($PLUMB_FUZZ_EXE, a gcc -pg build of
 * tests/programs/gm_main.c that `make fuzz` and tests/e2e/t_fuzz.sh make).
 * It takes both paths a gmon file goes: plumb report's (the profile reader,
 * then the flat view and the call-graph tree) and plumb gprof's (the
 * executable's symbol table, the engine's analysis, flat profile and call
 * graph printed).
 *
 * `make $(BUILD)/fuzz-gmon_exe` builds it with fuzz/replay.c, which runs
 * every file of the directories given once; `make fuzz` builds it for
 * libFuzzer and runs it (fuzz/README.md).
 *
 * Oracle: besides "never crash, leak or hang", what the profile reader
 * accepts, the gmon decoder accepts with the executable's layout, and the
 * other way round (the two paths agree on what is a gmon file).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "plumb/analysis.h"
#include "plumb/elfsym.h"
#include "plumb/formats.h"
#include "plumb/gmon.h"
#include "plumb/gprof.h"
#include "plumb/table.h"

static char in_path[] = "/tmp/plumb-fuzz-gmon-exe-XXXXXX";
static const char *exe;
static plumb_gprof_symtab *symtab; /* loaded once: the executable is fixed */

static void setup(void)
{
	exe = getenv("PLUMB_FUZZ_EXE");
	if (!exe) {
		fprintf(stderr, "fuzz-gmon_exe: set PLUMB_FUZZ_EXE to a gcc -pg executable\n");
		abort();
	}
	plumb_error err;
	plumb_gprof_symtab_opts so = { 0 };
	if (!(symtab = plumb_gprof_symtab_load(exe, &so, &err))) {
		fprintf(stderr, "fuzz-gmon_exe: %s\n", err.message);
		abort();
	}
	int fd = mkstemp(in_path);
	if (fd < 0)
		abort();
	close(fd);
}

/* plumb report's path; 0 if the file was read. */
static int report_path(void)
{
	plumb_profile *p = plumb_profile_new();
	if (!p)
		abort();
	plumb_read_opts ro = { .executable = exe };
	plumb_error err;
	int rc = plumb_gmon_profile_read(p, in_path, &ro, &err);
	if (rc == 0) {
		static const plumb_view_kind kinds[] = { PLUMB_VIEW_FLAT, PLUMB_VIEW_TREE };
		for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
			plumb_view_opts vo;
			plumb_view_opts_init(&vo);
			vo.kind = kinds[i];
			plumb_table *t = NULL;
			if (plumb_view_build(p, &vo, &t, &err) == 0)
				plumb_table_free(t);
		}
	}
	plumb_profile_free(p);
	return rc;
}

/* plumb gprof's path; 0 if the file was read. */
static int gprof_path(void)
{
	plumb_gmon *gm = plumb_gmon_new();
	if (!gm)
		abort();
	plumb_gmon_layout lay = plumb_exe_gmon_layout(plumb_gprof_symtab_exe(symtab));
	plumb_error err;
	int rc = plumb_gmon_read(gm, in_path, &lay, &err);
	bool bins = true; /* plumb gprof refuses a histogram without bins */
	for (size_t h = 0; rc == 0 && h < gm->nhists; h++)
		bins = bins && gm->hists[h].nbins > 0;
	if (rc == 0 && bins) {
		size_t n;
		const plumb_gprof_symbol *syms = plumb_gprof_symtab_symbols(symtab, &n);
		plumb_gprof_opts o;
		plumb_gprof_opts_init(&o);
		o.brief = true;
		plumb_gprof *g = plumb_gprof_new(syms, n, &o, &err);
		if (!g)
			abort();
		FILE *out = fopen("/dev/null", "w");
		if (!out)
			abort();
		if (plumb_gprof_add_gmon(g, gm, &err) == 0 && plumb_gprof_add_default_specs(g, &err) == 0 &&
		    plumb_gprof_analyze(g, &err) == 0) {
			if (plumb_gprof_has_hist(g))
				plumb_gprof_print_flat(g, out);
			plumb_gprof_after_output(g);
			if (plumb_gprof_has_arcs(g))
				plumb_gprof_print_graph(g, out);
		}
		fclose(out);
		plumb_gprof_free(g);
	}
	plumb_gmon_free(gm);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!symtab)
		setup();
	FILE *fp = fopen(in_path, "wb");
	if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp) != 0)
		abort();
	int r = report_path(), g = gprof_path();
	if ((r == 0) != (g == 0))
		abort(); /* one path read a file the other refused */
	return 0;
}
