/* plumb: the command line. One file per subcommand (git's shape). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "record", cmd_record, "sample a command with complete call stacks and write profile.plumb" },
	{ "report", cmd_report, "show a profile: flat, call graph, tree, lines, files, threads..." },
	{ "diff", cmd_diff, "compare two profiles: each function's cost in both and the change" },
	{ "annotate", cmd_annotate, "source and instructions with their costs (callgrind_annotate's)" },
	{ "convert", cmd_convert, "convert between .plumb, Callgrind, pprof, aprof, folded, speedscope" },
	{ "gprof", cmd_gprof, "GNU gprof's reports from gmon.out, byte for byte, same options" },
	{ "cc", cmd_cc, "compile like cc, instrumented for input sizes and exact calls" },
	{ "c++", cmd_cxx, "the same for C++: plumb c++ runs c++" },
	{ "info", cmd_info, "describe a profile file: format, events, parts, counts, totals" },
};

static void usage(FILE *out)
{
	fputs("usage: plumb [--version] [--help] [--no-pager] COMMAND [ARGS]\n\n"
	      "plumb is a profiler for native Linux programs. Commands:\n\n", out);
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fputs("\n'plumb COMMAND --help' describes a command; 'man plumb-COMMAND' has the details.\n"
	      "Long text on a terminal goes through $PLUMB_PAGER, $PAGER or 'less -FRX'\n"
	      "(--no-pager: never).\n"
	      "Exit status: 0 on success, 1 on bad input, 2 on bad usage.\n", out);
}

/* Output on standard output is only written when it is flushed: a full
 * disk or a closed pipe shows up here, and must not end in status 0 (as GNU
 * tools' close_stdout). */
static int finish(int rc)
{
	int e = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		e = errno ? errno : EIO;
	if (fclose(stdout) != 0 && !e)
		e = errno ? errno : EIO;
	if (!e || rc)
		return rc; /* a failed command has said why already */
	fprintf(stderr, "plumb: write error: %s\n", strerror(e));
	return EXIT_BAD_INPUT;
}

static int run(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("plumb %s\n", PLUMB_VERSION);
		return EXIT_OK;
	}
	if (strcmp(cmd, "help") == 0) {
		if (argc < 3) {
			usage(stdout);
			return EXIT_OK;
		}
		cmd = argv[2];
		char *help_argv[] = { (char *)cmd, "--help", NULL };
		for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
			if (strcmp(commands[i].name, cmd) == 0)
				return commands[i].run(2, help_argv);
	}
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (strcmp(commands[i].name, cmd) == 0)
			return commands[i].run(argc - 1, argv + 1);
	const char *names[sizeof commands / sizeof *commands + 1];
	size_t n = 0;
	for (; n < sizeof commands / sizeof *commands; n++)
		names[n] = commands[n].name;
	names[n++] = "help";
	cli_unknown_command(cmd, names, n);
	fputs("'plumb --help' lists the commands.\n", stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	/* No mallopt(M_MMAP_THRESHOLD, 32 MiB) here: it saved a tenth of a
	 * pprof convert's page faults but no measurable time, and raised the
	 * peak memory of reading 100 MB of Callgrind from 454 to 512 MB and
	 * of an aprof file from 55 to 76 MB (blocks grown by copying in the
	 * heap instead of moved by mremap). */
	errno = 0;
	/* git's "plumb --no-pager COMMAND" */
	if (argc > 1 && strcmp(argv[1], "--no-pager") == 0) {
		cli_pager_disable();
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	int rc = finish(run(argc, argv));
	cli_pager_finish();
	return rc;
}
