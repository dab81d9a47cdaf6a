/* plumb convert: read profiles in any format, write one in another. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char convert_help[] =
	"usage: plumb convert [options] IN... -o OUT\n"
	"\n"
	"Read one or more profiles (formats found from their content; several are\n"
	"summed, each kept as its own part) and write them as one file. The output is\n"
	"written to a temporary file and renamed over OUT only when it is complete.\n"
	"\n"
	"Options:\n"
	"  -o, --output OUT   the file to write (required); '-' writes to standard\n"
	"                     output (folded stacks, or Callgrind with --to callgrind)\n"
	"  -t, --to FORMAT    plumb (the .plumb store), callgrind or folded; default:\n"
	"                     from OUT's name (.folded or .txt: folded; .callgrind or\n"
	"                     callgrind.out*: callgrind), else plumb\n"
	"      --exe FILE     the executable a gmon.out belongs to (default: a.out in\n"
	"                     the gmon file's directory)\n"
	"  -h, --help         this help\n"
	"\n"
	"Examples:\n"
	"  plumb convert stacks.folded -o profile.plumb\n"
	"  plumb convert a.plumb b.plumb -o both.plumb\n"
	"  plumb convert profile.plumb --to folded -o stacks.folded\n"
	"  plumb convert profile.plumb -o callgrind.out.1   (open it in KCachegrind)\n"
	"  plumb convert stacks.folded -t callgrind -o - | callgrind_annotate /dev/stdin\n";

/* Callgrind files name the profiled command (cmd:). When no input recorded
 * one, the input files say where the profile came from: the writer falls
 * back on the "source" item. */
static int note_source(plumb_profile *p, char *const *paths, int n, plumb_error *err)
{
	if (plumb_meta_get(p, "cmd") || plumb_meta_get(p, "source"))
		return 0;
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(paths[i]) + 1;
	char *s = malloc(len), *o = s;
	if (!s)
		return plumb_fail_nomem(err);
	for (int i = 0; i < n; i++) {
		size_t k = strlen(paths[i]);
		if (i)
			*o++ = ' ';
		memcpy(o, paths[i], k);
		o += k;
	}
	*o = '\0';
	int rc = plumb_meta_set(p, "source", s, err);
	free(s);
	return rc;
}

static plumb_format format_for_output(const char *path)
{
	const char *dot = strrchr(path, '.');
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (dot && (strcmp(dot, ".folded") == 0 || strcmp(dot, ".txt") == 0))
		return PLUMB_FMT_FOLDED;
	if ((dot && strcmp(dot, ".callgrind") == 0) || strncmp(base, "callgrind.out", 13) == 0)
		return PLUMB_FMT_CALLGRIND;
	return PLUMB_FMT_PLUMB;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "to", required_argument, NULL, 't' },
		{ "exe", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out = NULL, *to = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 't':
			to = optarg;
			break;
		case 'E':
			cli_set_executable(optarg);
			break;
		case 'h':
			fputs(convert_help, stdout);
			return EXIT_OK;
		case ':':
			return cli_usage_error("convert", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("convert", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("convert", "no input file");
	if (!out)
		return cli_usage_error("convert", "no output file: give -o OUT");
	plumb_format fmt = strcmp(out, "-") == 0 ? PLUMB_FMT_FOLDED : format_for_output(out);
	if (to) {
		const plumb_format_ops *ops = plumb_format_by_name(to);
		if (!ops || !ops->write)
			return cli_usage_error("convert", "cannot write format '%s' (plumb, callgrind, folded)", to);
		fmt = ops->id;
	}
	plumb_error err;
	plumb_profile *p = cli_load(argv + optind, argc - optind, NULL, &err);
	if (!p)
		return cli_fail(&err);
	if (fmt == PLUMB_FMT_CALLGRIND && note_source(p, argv + optind, argc - optind, &err)) {
		plumb_profile_free(p);
		return cli_fail(&err);
	}
	if (fmt == PLUMB_FMT_FOLDED && p->events.n > 1)
		fprintf(stderr, "plumb: warning: folded stacks hold one event: writing '%s' only, "
			"of %zu\n", plumb_str(p, p->events.v[0].name), p->events.n);
	int rc;
	if (strcmp(out, "-") == 0 && (fmt == PLUMB_FMT_FOLDED || fmt == PLUMB_FMT_CALLGRIND))
		rc = (fmt == PLUMB_FMT_FOLDED ? plumb_folded_write_stream(p, stdout, &err)
					      : plumb_callgrind_write_stream(p, stdout, &err))
			     ? cli_fail(&err)
			     : fflush(stdout) || ferror(stdout) ? (cli_error("cannot write to standard output"), EXIT_BAD_INPUT)
								 : EXIT_OK;
	else if (strcmp(out, "-") == 0)
		rc = cli_usage_error("convert", "a .plumb store cannot go to standard output: give a file");
	else
		rc = plumb_write_file(p, out, fmt, &err) ? cli_fail(&err) : EXIT_OK;
	plumb_profile_free(p);
	return rc;
}
