/* plumb convert: read profiles in any format, write one in another. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "plumb/store.h"

static const char convert_head[] =
	"usage: plumb convert [options] IN... -o OUT\n"
	"\n"
	"Read one or more profiles (formats found from their content; several are\n"
	"summed, each kept as its own part) and write them as one file. The output is\n"
	"written to a temporary file and renamed over OUT only when it is complete.\n"
	"\n"
	"Options:\n"
	"  -o, --output OUT   the file to write (required); '-' writes to standard\n"
	"                     output (folded stacks, or any format but plumb with --to)\n"
	"  -t, --to FORMAT    the format to write; default: the one OUT's name belongs\n"
	"                     to (any other name needs --to). The formats and their\n"
	"                     names:\n";

static const char convert_tail[] =
	"      --modules      folded stacks: each frame as 'name [module]' (default: the\n"
	"                     name alone, as perf's stackcollapse and flamegraph.pl)\n"
	"      --exe FILE     the executable a gmon.out belongs to (default: a.out in\n"
	"                     the gmon file's directory)\n"
	"      --event-name EV, --unit UNIT\n"
	"                     what the numbers of folded stacks count (default:\n"
	"                     samples); carried into every format: pprof's sample\n"
	"                     type, speedscope's unit, Callgrind's events\n"
	"  -q, --quiet        no progress line on stderr (shown on a terminal\n"
	"                     for reads and writes over a second)\n"
	"  -h, --help         this help\n"
	"\n"
	"Examples:\n"
	"  plumb convert stacks.folded -o profile.plumb\n"
	"  plumb convert a.plumb b.plumb -o both.plumb\n"
	"  plumb convert profile.plumb --to folded -o stacks.folded\n"
	"  plumb convert profile.plumb --modules -o - | flamegraph.pl > flame.svg\n"
	"  plumb convert profile.plumb -o callgrind.out.1   (open it in KCachegrind)\n"
	"  plumb convert --event-name off-cpu --unit ns offcpu.folded -o offcpu.pb.gz\n"
	"  plumb convert stacks.folded -t callgrind -o - | callgrind_annotate /dev/stdin\n";

/* The help's list of writable formats comes from the registry, one a line. */
static void print_help(void)
{
	fputs(convert_head, stdout);
	size_t n;
	const plumb_format_ops *f = plumb_formats(&n);
	for (size_t i = 0; i < n; i++) {
		if (!f[i].write)
			continue;
		printf("                       %-10s", f[i].name);
		const char *sep = " ";
		for (const char *const *e = f[i].extensions; e && *e; e++, sep = ", ")
			printf("%s%s", sep, *e);
		for (const char *const *q = f[i].prefixes; q && *q; q++, sep = ", ")
			printf("%s%s*", sep, *q);
		putchar('\n');
	}
	fputs(convert_tail, stdout);
}

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

/* Write p to the file out, with a progress line on a terminal: the store
 * reports its blocks; a text format is written through a stream that
 * counts its bytes, into a temporary file renamed at the end. */
static int write_file(plumb_profile *p, const char *out, plumb_format fmt,
		      const plumb_folded_write_opts *fo, plumb_error *err)
{
	plumb_write_progress wp;
	cli_progress_write_setup(&wp);
	if (fmt == PLUMB_FMT_PLUMB)
		return plumb_store_write_progress(p, out, &wp, err);
	if (!wp.fn)
		return fmt == PLUMB_FMT_FOLDED ? plumb_folded_write_with(p, out, fo, err)
					       : plumb_write_file(p, out, fmt, err);
	plumb_atomic_file af;
	if (plumb_atomic_open(&af, out, err))
		return -1;
	FILE *s = plumb_progress_stream(af.fp, out, &wp);
	int rc = !s ? plumb_fail_nomem(err)
	     : fmt == PLUMB_FMT_FOLDED ? plumb_folded_write_stream_with(p, s, fo, err)
				       : plumb_write_stream(p, s, out, fmt, err);
	if (s && fclose(s) != 0 && rc == 0)
		rc = plumb_fail(err, PLUMB_ERR_IO, "%s: cannot write: %s", out, strerror(errno));
	if (rc) {
		plumb_atomic_abort(&af);
		return -1;
	}
	return plumb_atomic_commit(&af, err);
}

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "to", required_argument, NULL, 't' },
		{ "exe", required_argument, NULL, 'E' },
		{ "event-name", required_argument, NULL, 'N' },
		{ "unit", required_argument, NULL, 'U' },
		{ "modules", no_argument, NULL, 'M' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out = NULL, *to = NULL;
	plumb_folded_write_opts fo = { false };
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:t:qh", longopts, NULL)) != -1) {
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
		case 'N':
		case 'U':
			cli_set_folded_event(c == 'N' ? optarg : NULL, c == 'U' ? optarg : NULL);
			break;
		case 'M':
			fo.modules = true;
			break;
		case 'q':
			cli_set_quiet(true);
			break;
		case 'h':
			print_help();
			return EXIT_OK;
		case ':':
			return cli_usage_error("convert", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_unknown_option("convert", argv[optind - 1], longopts);
		}
	}
	if (optind >= argc)
		return cli_usage_error("convert", "no input file");
	if (!out)
		return cli_usage_error("convert", "no output file: give -o OUT");
	bool to_stdout = strcmp(out, "-") == 0;
	plumb_format fmt = to_stdout ? PLUMB_FMT_FOLDED : plumb_format_for_output(out);
	if (to) {
		const plumb_format_ops *ops = plumb_format_by_name(to);
		if (!ops)
			return cli_unknown_word("convert", "format", to, plumb_format_writers_list());
		if (!ops->write)
			return cli_usage_error("convert", "cannot write format '%s' (known: %s)", to,
					       plumb_format_writers_list());
		fmt = ops->id;
	} else if (fmt == PLUMB_FMT_UNKNOWN) {
		return cli_usage_error("convert", "no known format has names like '%s': name the output "
				       "after one (%s) or give --to FORMAT", out,
				       plumb_format_writers_list());
	}
	if (fo.modules && fmt != PLUMB_FMT_FOLDED)
		return cli_usage_error("convert", "--modules is for folded output (--to folded)");
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
	const char *lost = fmt == PLUMB_FMT_PPROF ? plumb_pprof_losses(p) : NULL;
	if (lost)
		fprintf(stderr, "plumb: warning: %s\n", lost);
	int rc;
	if (fmt == PLUMB_FMT_FOLDED && to_stdout) {
		rc = plumb_folded_write_stream_with(p, stdout, &fo, &err) ? cli_fail(&err) : EXIT_OK;
		if (rc == EXIT_OK && (fflush(stdout) || ferror(stdout))) {
			cli_error("cannot write to standard output: %s", strerror(errno));
			rc = EXIT_BAD_INPUT;
		}
	}
	else if (to_stdout)
		rc = plumb_write_stream(p, stdout, "standard output", fmt, &err) ? cli_fail(&err) : EXIT_OK;
	else
		rc = write_file(p, out, fmt, &fo, &err) ? cli_fail(&err) : EXIT_OK;
	plumb_profile_free(p);
	return rc;
}
