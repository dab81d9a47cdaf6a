/* plumb diff: compare two profiles function by function (or line by line). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "plumb/output.h"

static const char diff_help[] =
	"usage: plumb diff [options] BASE NEW\n"
	"\n"
	"Compare two profiles (any formats plumb reads): for each function, its\n"
	"exclusive and inclusive cost in BASE and in NEW and the change (NEW - BASE),\n"
	"the largest change first. A function found in one profile only has 0 on\n"
	"the other side; functions are the same when their name, file and module are.\n"
	"\n"
	"Options:\n"
	"  -v, --view VIEW        functions (default; also: flat), lines, or flame: a\n"
	"                         differential flame graph of NEW (--format svg draws\n"
	"                         it), red where a call path grew against BASE, blue\n"
	"                         where it shrank (--invert: of the bottom-up trees)\n"
	"  -m, --metric EVENT     the event to compare (default: BASE's first)\n"
	"      --normalize        compare shares of each profile's total (%) instead of\n"
	"                         counts: what changed once the runs' lengths are set\n"
	"                         aside\n"
	"  -s, --sort KEY         exclusive (default) or inclusive: whose change orders\n"
	"                         rows\n"
	"  -n, --limit N          at most N rows\n"
	"  -F, --focus SYMSPEC    keep only the stacks that pass through SYMSPEC\n"
	"                         (repeatable)\n"
	"  -f, --format FORMAT    text (default), json, csv, or svg (--view flame)\n"
	"  -o, --output FILE      write there (replaced atomically) instead of standard\n"
	"                         output\n"
	"      --exe FILE         the executable gmon.out inputs belong to\n"
	"  -w, --width N          fit text to N columns (default: the terminal's; 0:\n"
	"                         never cut)\n"
	"      --color WHEN       auto (default), always or never\n"
	"      --no-pager         never page (on a terminal: $PLUMB_PAGER, $PAGER or\n"
	"                         'less -FRX')\n"
	"  -q, --quiet            no progress line on stderr (shown on a terminal\n"
	"                         for reads over a second)\n"
	"  -h, --help             this help\n"
	"\n"
	"CSV columns: function,file,module,exclusive_base,exclusive_new,exclusive_delta,\n"
	"inclusive_base,inclusive_new,inclusive_delta (--view lines adds line after\n"
	"file).\n"
	"\n"
	"Examples:\n"
	"  plumb diff before.plumb after.plumb\n"
	"  plumb diff --normalize --format csv -o change.csv old.folded new.folded\n"
	"  plumb diff --view lines --metric Ir callgrind.out.1 callgrind.out.2\n"
	"  plumb diff --view flame --format svg -o change.svg before.plumb after.plumb\n";

enum { OPT_NORMALIZE = 256, OPT_EXE, OPT_COLOR, OPT_INVERT, OPT_NO_PAGER };

typedef struct diff_args {
	plumb_diff_opts d;
	plumb_symspec_list focus;
	const plumb_view_writer *writer;
	const char *output, *color;
	long width;
} diff_args;

static int parse_args(int argc, char **argv, diff_args *a)
{
	static const struct option longopts[] = {
		{ "view", required_argument, NULL, 'v' },
		{ "metric", required_argument, NULL, 'm' },
		{ "normalize", no_argument, NULL, OPT_NORMALIZE },
		{ "invert", no_argument, NULL, OPT_INVERT },
		{ "sort", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'n' },
		{ "focus", required_argument, NULL, 'F' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "exe", required_argument, NULL, OPT_EXE },
		{ "width", required_argument, NULL, 'w' },
		{ "color", required_argument, NULL, OPT_COLOR },
		{ "colour", required_argument, NULL, OPT_COLOR },
		{ "no-pager", no_argument, NULL, OPT_NO_PAGER },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;
	size_t n;
	plumb_error err;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":v:m:s:n:F:f:o:w:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			if (!strcmp(optarg, "functions") || !strcmp(optarg, "flat"))
				a->d.level = PLUMB_LEVEL_FUNCTION;
			else if (!strcmp(optarg, "lines"))
				a->d.level = PLUMB_LEVEL_LINE;
			else if (!strcmp(optarg, "flame"))
				a->d.flame = true;
			else
				return cli_unknown_word("diff", "view", optarg, "functions, lines, flame");
			break;
		case 'm':
			a->d.metric = optarg;
			break;
		case OPT_NORMALIZE:
			a->d.normalize = true;
			break;
		case OPT_INVERT:
			a->d.invert = true;
			break;
		case 's':
			if (strcmp(optarg, "exclusive") && strcmp(optarg, "inclusive"))
				return cli_usage_error("diff", "--sort expects exclusive or inclusive, got '%s'", optarg);
			a->d.sort_inclusive = !strcmp(optarg, "inclusive");
			break;
		case 'n':
			if (cli_parse_size(optarg, &n))
				return cli_usage_error("diff", "--limit expects a number of rows, got '%s'", optarg);
			a->d.limit = n;
			break;
		case 'F':
			if (plumb_symspec_list_add(&a->focus, optarg, &err))
				return cli_usage_error("diff", "%s", err.message);
			break;
		case 'f':
			if (!(a->writer = plumb_view_writer_by_name(optarg)))
				return cli_unknown_word("diff", "format", optarg, "text, json, csv, svg");
			break;
		case 'o':
			a->output = optarg;
			break;
		case OPT_EXE:
			cli_set_executable(optarg);
			break;
		case 'w':
			if (cli_parse_size(optarg, &n) || n > 100000)
				return cli_usage_error("diff", "--width expects a number of columns, got '%s'", optarg);
			a->width = (long)n;
			break;
		case OPT_COLOR:
			if (strcmp(optarg, "auto") && strcmp(optarg, "always") && strcmp(optarg, "never"))
				return cli_usage_error("diff", "--color expects auto, always or never, got '%s'", optarg);
			a->color = optarg;
			break;
		case OPT_NO_PAGER:
			cli_pager_disable();
			break;
		case 'q':
			cli_set_quiet(true);
			break;
		case 'h':
			fputs(diff_help, stdout);
			return -1;
		case ':':
			return cli_usage_error("diff", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_unknown_option("diff", argv[optind - 1], longopts);
		}
	}
	if (argc - optind != 2)
		return cli_usage_error("diff", "expected two profiles, BASE and NEW (got %d)", argc - optind);
	if (!strcmp(a->writer->name, "svg") && !a->d.flame)
		return cli_usage_error("diff", "--format svg draws --view flame only");
	return 0;
}

static int write_table(diff_args *a, const plumb_table *t, const char *base, const char *cur)
{
	plumb_error err;
	plumb_text_opts to;
	plumb_text_opts_init(&to);
	plumb_atomic_file af = { 0 };
	FILE *out = stdout;
	if (a->output) {
		if (plumb_atomic_open(&af, a->output, &err))
			return cli_fail(&err);
		out = af.fp;
	}
	if (a->writer->for_terminal) {
		if (!a->output)
			cli_pager_start();
		to.width = a->width >= 0 ? (unsigned)a->width : a->output ? 0 : cli_terminal_width();
		to.color = !a->output && cli_use_color(a->color);
		fprintf(out, "Base: %s\nNew:  %s\n\n", base, cur);
	}
	int rc = a->writer->write(t, out, &to, &err);
	if (a->output) {
		if (rc) {
			/* the writer's message does not know the file's name */
			char what[sizeof err.message];
			memcpy(what, err.message, sizeof what);
			plumb_fail(&err, err.code, "%s: %s", a->output, what);
			plumb_atomic_abort(&af);
		} else {
			rc = plumb_atomic_commit(&af, &err);
		}
	}
	return rc ? cli_fail(&err) : EXIT_OK;
}

/* A --focus that names nothing in either profile is a typo, not an empty
 * change. */
static int check_focus(plumb_symspec_list *focus, const plumb_profile *base,
		       const plumb_profile *cur, const char *base_name)
{
	for (size_t i = 0; i < focus->n; i++) {
		plumb_error err;
		if (!plumb_symspec_resolve(&focus->v[i], base))
			plumb_symspec_resolve(&focus->v[i], cur);
		if (plumb_symspec_matches_any(&focus->v[i], cur) ||
		    plumb_symspec_check(&focus->v[i], base, base_name, &err) == 0)
			continue;
		cli_error("--focus %s", err.message);
		return EXIT_BAD_INPUT;
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	diff_args a = { .writer = plumb_view_writer_by_name("text"), .color = "auto", .width = -1 };
	plumb_diff_opts_init(&a.d);
	int rc = parse_args(argc, argv, &a);
	if (rc) {
		plumb_symspec_list_free(&a.focus);
		return rc < 0 ? EXIT_OK : rc;
	}
	a.d.focus = a.focus.n ? &a.focus : NULL;
	plumb_error err;
	/* functions and flame graphs need no lines unless a spec names one */
	cli_detail detail = a.d.level == PLUMB_LEVEL_LINE || cli_names_position(&a.focus)
				    ? CLI_LINES : CLI_FUNCTIONS;
	plumb_profile *base = cli_load_ex(&argv[optind], 1, detail, NULL, &err), *cur = NULL;
	plumb_table *t = NULL;
	if (!base || !(cur = cli_load_ex(&argv[optind + 1], 1, detail, NULL, &err)))
		rc = cli_fail(&err);
	else if ((rc = check_focus(&a.focus, base, cur, argv[optind])))
		;
	else if (plumb_diff_build(base, cur, &a.d, &t, &err))
		rc = cli_fail(&err);
	else
		rc = write_table(&a, t, argv[optind], argv[optind + 1]);
	plumb_table_free(t);
	plumb_profile_free(base);
	plumb_profile_free(cur);
	plumb_symspec_list_free(&a.focus);
	return rc;
}
