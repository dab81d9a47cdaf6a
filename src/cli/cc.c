/* plumb cc, plumb c++: compiler wrappers that build a program for input-
 * sensitive profiles (docs/inputs.md). They run gcc with its thread-
 * sanitizer hooks (function entry and exit, every load and store) and
 * basic-block hooks, or clang with its function-instrumentation and
 * sanitizer-coverage hooks, and link plumb's runtime (libplumb-inputs.a),
 * which has both sets (instead of libtsan). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "plumb/inputs.h"

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
	"sizes, exact calls and per-line costs: plumb report --view inputs, tree,\n"
	"lines; plumb record --drms, --cost time), or with\n"
	"PLUMB_APROF_DIR=DIR for aprof reports in DIR. Run alone it behaves as\n"
	"usual and writes nothing.\n"
	"\n"
	"Options (before the compiler's):\n"
	"  --cc=COMPILER   the compiler to run: gcc or clang (14 or later), by name or\n"
	"                  path; a cc that is clang is told by its link or by asking it\n"
	"  --help          this help\n"
	"\n"
	"Example:\n"
	"  plumb cc -O2 -g sort.c -o sort && plumb record ./sort &&\n"
	"      plumb report --view inputs\n";

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

/* The gcc version the plugin at path was built for (its marker, written by
 * src/inputs/gcc_plugin.cc), in out; false when it has none. */
static bool plugin_built_for(const char *path, char *out, size_t cap)
{
	static const char marker[] = "plumb-inputs-gcc-plugin-for=";
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	/* the plugin is small (30 KB): read it whole, up to 4 MB */
	size_t size = 4u << 20;
	char *buf = malloc(size + 1);
	size_t have = buf ? fread(buf, 1, size, f) : 0;
	fclose(f);
	bool found = false;
	if (buf) {
		buf[have] = '\0';
		char *m = memmem(buf, have, marker, sizeof marker - 1);
		if (m && memchr(m, '\0', (size_t)(buf + have - m + 1))) {
			snprintf(out, cap, "%s", m + sizeof marker - 1);
			found = true;
		}
	}
	free(buf);
	return found;
}

/* Whether the gcc plugin fits compiler cc: built for its version (gcc
 * loads a plugin only into the gcc it was built for, and fails obscurely,
 * with an undefined symbol, into another). Says why when not. */
static bool plugin_fits(const char *plugin, const char *cc)
{
	char built[64];
	if (!plugin_built_for(plugin, built, sizeof built))
		return true; /* no marker: gcc's own check will speak */
	char cmd[PATH_MAX + 64];
	if (strchr(cc, '\'') ||
	    (size_t)snprintf(cmd, sizeof cmd, "'%s' -dumpfullversion 2>/dev/null", cc) >= sizeof cmd)
		return true;
	FILE *f = popen(cmd, "r");
	if (!f)
		return true;
	char version[64] = "";
	if (!fgets(version, sizeof version, f))
		version[0] = '\0';
	pclose(f);
	version[strcspn(version, "\r\n")] = '\0';
	if (!*version || !strcmp(version, built))
		return true;
	fprintf(stderr,
		"plumb cc: %s was built for gcc %s, and %s is gcc %s: building without it "
		"(same results, slower; PLUMB_INPUTS_PLUGIN=no silences this, or rebuild plumb with this gcc)\n",
		plugin, built, cc, version);
	return false;
}

/* Whether cc is clang: by its name, else by the file a symbolic link
 * (cc -> /etc/alternatives/cc -> ...) leads to, else by asking it whether
 * it defines __clang__. */
static bool is_clang(const char *cc)
{
	const char *base = strrchr(cc, '/');
	base = base ? base + 1 : cc;
	if (strstr(base, "clang"))
		return true;
	if (strstr(base, "gcc") || strstr(base, "g++"))
		return false;
	char *exe = plumb_inputs_which(cc);
	char real[PATH_MAX];
	bool resolved = exe && realpath(exe, real);
	free(exe);
	if (resolved) {
		base = strrchr(real, '/');
		base = base ? base + 1 : real;
		if (strstr(base, "clang"))
			return true;
		if (strstr(base, "gcc") || strstr(base, "g++"))
			return false;
	}
	/* a wrapper script or an unusual name: the compiler knows */
	char cmd[PATH_MAX + 64];
	if ((size_t)snprintf(cmd, sizeof cmd, "'%s' -dM -E -x c /dev/null 2>/dev/null", cc) >= sizeof cmd ||
	    strchr(cc, '\''))
		return false;
	FILE *f = popen(cmd, "r");
	if (!f)
		return false;
	bool found = false;
	char line[512];
	while (fgets(line, sizeof line, f))
		if (strstr(line, "#define __clang__ "))
			found = true;
	pclose(f);
	return found;
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
	char **args = calloc((size_t)argc + 48, sizeof *args);
	if (!args) {
		cli_error("out of memory");
		return EXIT_BAD_INPUT;
	}
	size_t n = 0;
	args[n++] = (char *)cc;
	for (int i = first; i < argc; i++)
		args[n++] = argv[i];
	if (clang) {
		/* clang 14: function hooks after inlining (routines are the
		 * machine-level functions, as with gcc), a guard per basic block
		 * (no-prune: every block, else the count is wrong), and a hook
		 * per load and store (which needs a coverage kind to emit
		 * anything). No sanitizer runtime is involved. */
		args[n++] = "-finstrument-functions-after-inlining";
		args[n++] = "-fsanitize-coverage=bb,no-prune,trace-pc-guard,trace-loads,trace-stores";
		/* the runtime's gcc-built objects bring .debug_aranges, which
		 * libdw then trusts for every address: clang's units must be in
		 * it too, or their lines are not found */
		args[n++] = "-gdwarf-aranges";
	} else {
		/* The sanitizer's hooks, compiled in; its runtime library never
		 * linked in: gcc's driver adds libtsan to links that see
		 * -fsanitize=thread, so a compile-and-link passes it to the
		 * compiler proper only (-Wp). */
		args[n++] = linking ? "-Wp,-fsanitize=thread" : "-fsanitize=thread";
		args[n++] = "-fsanitize-coverage=trace-pc";
	}
	/* gcc: the plugin that puts the hooks' fast paths inline (docs/inputs.md, Costs) */
	char plugin[PATH_MAX + 16];
	if (!clang && find_plugin(plugin, sizeof plugin) == 0 && plugin_fits(plugin + 9, cc))
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
		/* input and output calls, for drms (src/inputs/io.c) */
		args[n++] = "-Wl,--wrap=read,--wrap=pread,--wrap=pread64,--wrap=readv,--wrap=preadv,"
			    "--wrap=preadv64,--wrap=recv,--wrap=recvfrom,--wrap=recvmsg,--wrap=fread,"
			    "--wrap=fread_unlocked,--wrap=fgets,--wrap=mmap,--wrap=mmap64,--wrap=__read_chk,"
			    "--wrap=__pread_chk,--wrap=__pread64_chk,--wrap=__recv_chk,--wrap=__recvfrom_chk,"
			    "--wrap=__fread_chk,--wrap=__fgets_chk,--wrap=write,--wrap=pwrite,--wrap=pwrite64,"
			    "--wrap=writev,--wrap=send,--wrap=sendto,--wrap=sendmsg,--wrap=fwrite";
		/* exec and _exit: the report first (src/inputs/exec.c) */
		args[n++] = "-Wl,--wrap=execve,--wrap=execv,--wrap=execvp,--wrap=execvpe,--wrap=fexecve,"
			    "--wrap=execl,--wrap=execlp,--wrap=execle,--wrap=_exit,--wrap=_Exit";
		/* shared libraries built with plumb cc find the hooks in the program */
		args[n++] = "-Wl,--export-dynamic-symbol=__tsan_*";
		args[n++] = "-Wl,--export-dynamic-symbol=__sanitizer_cov_*";
		args[n++] = "-Wl,--export-dynamic-symbol=__plumb_inp_*";
		args[n++] = "-Wl,--export-dynamic-symbol=__cyg_profile_*";
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
