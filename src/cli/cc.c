/* plumb cc, plumb c++: compiler wrappers that build a program for input-
 * sensitive profiles (docs/inputs.md). They run the compiler with gcc's
 * thread-sanitizer hooks (function entry and exit, every load and store)
 * and basic-block hooks, and link plumb's runtime (libplumb-inputs.a)
 * instead of libtsan. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

#ifndef PLUMB_LIBDIR
#define PLUMB_LIBDIR "/usr/local/lib/plumb"
#endif
#define RUNTIME "libplumb-inputs.a"
#define PLUGIN "plumb-inputs-gcc.so"

static const char cc_help[] =
	"usage: plumb cc [--cc=COMPILER] [COMPILER OPTIONS] FILES...\n"
	"       plumb c++ [--cc=COMPILER] [COMPILER OPTIONS] FILES...\n"
	"\n"
	"Compile and link like the compiler (the cc or c++ on PATH, or COMPILER;\n"
	"$PLUMB_CC and $PLUMB_CXX also choose it), with instrumentation for\n"
	"input-sensitive profiles: every function's entry and exit, loads and stores,\n"
	"and basic blocks; executables are linked with plumb's runtime. Use it as\n"
	"CC=\"plumb cc\" CXX=\"plumb c++\" for make and configure.\n"
	"\n"
	"Run the program with 'plumb record ./prog' to get profile.plumb (input\n"
	"sizes and exact calls: plumb report --view inputs), or with\n"
	"PLUMB_APROF_DIR=DIR for aprof reports in DIR. Run alone it behaves as\n"
	"usual and writes nothing.\n"
	"\n"
	"Options (before the compiler's):\n"
	"  --cc=COMPILER   the compiler to run (gcc or clang)\n"
	"  --help          this help\n"
	"\n"
	"Example:\n"
	"  plumb cc -O2 -g sort.c -o sort && plumb record ./sort && plumb report --view inputs\n";

/* The runtime: $PLUMB_INPUTS_LIB, next to plumb (a build tree), or where
 * make install puts it. */
static int find_runtime(char *out, size_t cap)
{
	const char *env = getenv("PLUMB_INPUTS_LIB");
	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return access(out, R_OK);
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if ((size_t)snprintf(out, cap, "%s/" RUNTIME, exe) < cap &&
			    access(out, R_OK) == 0)
				return 0;
		}
	}
	snprintf(out, cap, "%s/" RUNTIME, PLUMB_LIBDIR);
	return access(out, R_OK);
}

/* -fplugin=<the gcc plugin>, found like the runtime; not with
 * PLUMB_INPUTS_PLUGIN=no (or when missing: the hooks work without it). */
static int find_plugin(char *out, size_t cap)
{
	const char *env = getenv("PLUMB_INPUTS_PLUGIN");
	if (env && !strcmp(env, "no"))
		return -1;
	char lib[PATH_MAX];
	if (find_runtime(lib, sizeof lib))
		return -1;
	char *slash = strrchr(lib, '/');
	if (slash)
		slash[1] = '\0';
	else
		lib[0] = '\0';
	if ((size_t)snprintf(out, cap, "-fplugin=%s" PLUGIN, lib) >= cap)
		return -1;
	return access(out + 9, R_OK);
}

static bool is_clang(const char *cc)
{
	const char *base = strrchr(cc, '/');
	return strstr(base ? base + 1 : cc, "clang") != NULL;
}

static int wrap(int argc, char **argv, bool cxx)
{
	const char *cc = getenv(cxx ? "PLUMB_CXX" : "PLUMB_CC");
	if (!cc || !*cc)
		cc = cxx ? "c++" : "cc";
	int first = 1;
	for (; first < argc; first++) {
		if (strncmp(argv[first], "--cc=", 5) == 0)
			cc = argv[first] + 5;
		else if (strcmp(argv[first], "--help") == 0 && argc == 2) {
			fputs(cc_help, stdout);
			return EXIT_OK;
		} else
			break;
	}
	if (!*cc)
		return cli_usage_error(cxx ? "c++" : "cc", "--cc expects a compiler");
	bool linking = true, shared = false, clang = is_clang(cc);
	for (int i = first; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E") || !strcmp(a, "-M") ||
		    !strcmp(a, "-MM"))
			linking = false;
		else if (!strcmp(a, "-shared"))
			shared = true;
	}
	char runtime[PATH_MAX];
	if (linking && !shared && find_runtime(runtime, sizeof runtime)) {
		cli_error("cannot find %s (looked in $PLUMB_INPUTS_LIB, next to plumb, and in %s)", RUNTIME,
			  PLUMB_LIBDIR);
		return EXIT_BAD_INPUT;
	}
	char **args = calloc((size_t)argc + 32, sizeof *args);
	if (!args) {
		cli_error("out of memory");
		return EXIT_BAD_INPUT;
	}
	size_t n = 0;
	args[n++] = (char *)cc;
	for (int i = first; i < argc; i++)
		args[n++] = argv[i];
	/* The sanitizer's hooks, compiled in; its runtime library never linked
	 * in: gcc's driver adds libtsan to links that see -fsanitize=thread, so
	 * a compile-and-link passes it to the compiler proper only (-Wp). */
	if (clang) {
		args[n++] = "-fsanitize=thread";
		args[n++] = "-fno-sanitize-link-runtime";
	} else {
		args[n++] = linking ? "-Wp,-fsanitize=thread" : "-fsanitize=thread";
	}
	args[n++] = "-fsanitize-coverage=trace-pc";
	/* gcc: the plugin that puts the hooks' fast paths inline (docs/inputs.md, Costs) */
	char plugin[PATH_MAX + 16];
	if (!clang && find_plugin(plugin, sizeof plugin) == 0)
		args[n++] = plugin;
	/* calls, not inline code the hooks never see, for the wrapped libc
	 * functions (src/inputs/wrap.c) */
	static char *const no_builtin[] = { "-fno-builtin-memcpy", "-fno-builtin-memmove",
		"-fno-builtin-memset", "-fno-builtin-memcmp", "-fno-builtin-strlen", "-fno-builtin-strcmp",
		"-fno-builtin-strncmp", "-fno-builtin-strcpy" };
	for (size_t i = 0; i < sizeof no_builtin / sizeof *no_builtin; i++)
		args[n++] = no_builtin[i];
	if (linking && !shared) {
		args[n++] = runtime;
		/* the libc calls whose reads and writes matter most (src/inputs/wrap.c) */
		args[n++] = "-Wl,--wrap=memcpy,--wrap=memmove,--wrap=memset,--wrap=memcmp,"
			    "--wrap=strlen,--wrap=strcmp,--wrap=strncmp,--wrap=strcpy";
		/* shared libraries built with plumb cc find the hooks in the program */
		args[n++] = "-Wl,--export-dynamic-symbol=__tsan_*";
		args[n++] = "-Wl,--export-dynamic-symbol=__sanitizer_cov_*";
		args[n++] = "-Wl,--export-dynamic-symbol=__plumb_inp_*";
	}
	args[n] = NULL;
	fflush(NULL);
	execvp(cc, args);
	cli_error("cannot run %s: %s", cc, strerror(errno));
	free(args);
	return 127;
}

int cmd_cc(int argc, char **argv)
{
	return wrap(argc, argv, false);
}

int cmd_cxx(int argc, char **argv)
{
	return wrap(argc, argv, true);
}
