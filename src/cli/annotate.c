/* plumb annotate: callgrind_annotate's report (totals, function table,
 * trees, annotated source) and per-instruction disassembly. */
#include <getopt.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "plumb/annotate.h"

static const char annotate_help[] =
	"usage: plumb annotate [options] [FILE...] [SOURCE...]\n"
	"\n"
	"Print a profile as callgrind_annotate does: the totals, functions by cost\n"
	"(file:function [object]) and the source files annotated line by line. FILE\n"
	"is a Callgrind file (or any profile plumb reads); several are summed. Default:\n"
	"the first callgrind.out* here. The first argument of another format than the\n"
	"first FILE, and every one after it, is a SOURCE, annotated in any case.\n"
	"\n"
	"Options (--opt=VALUE and --opt VALUE both work):\n"
	"      --show=EV,...          events to show (default: every event of the file)\n"
	"      --sort=EV[:PCT],...    sort by these events; a PCT per event replaces\n"
	"                             --threshold (default: the events in file order)\n"
	"      --threshold=PCT        list functions until PCT % of the primary sort\n"
	"                             event is covered; 100 lists all (default 99)\n"
	"      --show-percs=yes|no    a percentage beside each count (default yes)\n"
	"      --auto=yes|no          annotate the sources of the listed functions (yes)\n"
	"      --context=N            lines of context around costed lines (default 8)\n"
	"      --inclusive=yes|no     list and sort by inclusive cost (default no)\n"
	"      --tree=none|caller|calling|both\n"
	"                             callers (<) and/or callees (>) of each function\n"
	"  -I, --include=DIR          also look for sources under DIR (repeatable)\n"
	"      --disasm[=yes|no]      per-instruction costs of the listed functions\n"
	"                             (needs addresses: Callgrind's --dump-instr=yes or a\n"
	"                             recording, and the binaries; default no)\n"
	"      --no-pager             never page (on a terminal: $PLUMB_PAGER, $PAGER or\n"
	"                             less -FRX)\n"
	"  -q, --quiet                no progress line on stderr (shown on a terminal\n"
	"                             for reads over a second)\n"
	"  -h, --help                 this help\n"
	"\n"
	"Sources are looked for as named, under each -I DIR, then beside FILE.\n"
	"\n"
	"Examples:\n"
	"  valgrind --tool=callgrind --dump-instr=yes ./prog\n"
	"  plumb annotate callgrind.out.1234\n"
	"  plumb annotate --inclusive=yes --tree=both callgrind.out.1234\n"
	"  plumb annotate --threshold=100 --auto=no --sort=Dr:90 callgrind.out.1234\n"
	"  plumb annotate -I src callgrind.out.1234 src/main.c\n"
	"  plumb annotate --disasm callgrind.out.1234\n";

enum {
	OPT_SHOW = 256, OPT_SORT, OPT_THRESHOLD, OPT_PERCS, OPT_AUTO, OPT_CONTEXT,
	OPT_INCLUSIVE, OPT_TREE, OPT_DISASM, OPT_NO_PAGER
};

typedef struct annotate_args {
	plumb_annotate_opts o;
	const char **includes;
	size_t nincludes;
	char **inputs;        /* profiles, then sources */
	int ninputs;
	bool help;
} annotate_args;

static int yes_no(const char *opt, const char *v, bool *out)
{
	if (strcmp(v, "yes") == 0)
		*out = true;
	else if (strcmp(v, "no") == 0)
		*out = false;
	else
		return cli_usage_error("annotate", "%s expects yes or no, got '%s'", opt, v);
	return 0;
}

static int parse_tree(const char *v, unsigned *out)
{
	static const char *const names[] = { "none", "caller", "calling", "both" };
	for (unsigned i = 0; i < 4; i++)
		if (strcmp(v, names[i]) == 0) {
			*out = i;
			return 0;
		}
	return cli_usage_error("annotate", "--tree expects none, caller, calling or both, got '%s'", v);
}

/* The header shows the threshold as written, without a trailing '%'. */
static int parse_threshold(char *v, plumb_annotate_opts *o)
{
	if (cli_parse_pct(v, &o->threshold))
		return cli_usage_error("annotate", "--threshold expects a percentage 0-100, got '%s'", v);
	size_t len = strlen(v);
	if (len && v[len - 1] == '%')
		v[len - 1] = '\0';
	o->threshold_text = v;
	return 0;
}

static int parse_context(const char *v, plumb_annotate_opts *o)
{
	size_t n;
	if (cli_parse_size(v, &n) || n > 1000000)
		return cli_usage_error("annotate", "--context expects a number of lines, got '%s'", v);
	o->context = (unsigned)n;
	return 0;
}

static int add_include(annotate_args *a, const char *dir)
{
	if (*dir == '=') /* callgrind_annotate's -I=DIR */
		dir++;
	if (!*dir)
		return cli_usage_error("annotate", "-I expects a directory");
	a->includes[a->nincludes++] = dir;
	return 0;
}

static const struct option longopts[] = {
	{ "show", required_argument, NULL, OPT_SHOW },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "show-percs", required_argument, NULL, OPT_PERCS },
	{ "auto", required_argument, NULL, OPT_AUTO },
	{ "context", required_argument, NULL, OPT_CONTEXT },
	{ "inclusive", required_argument, NULL, OPT_INCLUSIVE },
	{ "tree", required_argument, NULL, OPT_TREE },
	{ "include", required_argument, NULL, 'I' },
	{ "disasm", optional_argument, NULL, OPT_DISASM },
	{ "no-pager", no_argument, NULL, OPT_NO_PAGER },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static int parse_option(annotate_args *a, int c)
{
	plumb_annotate_opts *o = &a->o;
	switch (c) {
	case OPT_SHOW: o->show = optarg; return 0;
	case OPT_SORT: o->sort = optarg; return 0;
	case OPT_THRESHOLD: return parse_threshold(optarg, o);
	case OPT_PERCS: return yes_no("--show-percs", optarg, &o->show_percs);
	case OPT_AUTO: return yes_no("--auto", optarg, &o->auto_annotate);
	case OPT_CONTEXT: return parse_context(optarg, o);
	case OPT_INCLUSIVE: return yes_no("--inclusive", optarg, &o->inclusive);
	case OPT_TREE: return parse_tree(optarg, &o->tree);
	case OPT_DISASM:
		o->disasm = true;
		return optarg ? yes_no("--disasm", optarg, &o->disasm) : 0;
	case OPT_NO_PAGER: cli_pager_disable(); return 0;
	case 'I': return add_include(a, optarg);
	case 'q': cli_set_quiet(true); return 0;
	case 'h': a->help = true; return 0;
	case ':': return cli_usage_error("annotate", "option '%s' needs a value", a->inputs[0]);
	default: return cli_unknown_option("annotate", a->inputs[0], longopts);
	}
}

static int parse_args(int argc, char **argv, annotate_args *a)
{
	a->includes = calloc((size_t)argc + 1, sizeof *a->includes);
	if (!a->includes) {
		cli_error("out of memory");
		return EXIT_BAD_INPUT;
	}
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":I:qh", longopts, NULL)) != -1) {
		a->inputs = &argv[optind - 1]; /* the option, for messages */
		if (parse_option(a, c))
			return EXIT_USAGE;
	}
	a->inputs = &argv[optind];
	a->ninputs = argc - optind;
	a->o.include_dirs = a->includes;
	a->o.n_include = a->nincludes;
	return 0;
}

/* The profiles come first: the first argument, then those of the same
 * format (a Callgrind file and its .1, -01 dumps). The first argument of
 * another format (a C file can pass for folded stacks) and every one after
 * it are sources, as in callgrind_annotate's "PROFILE SOURCE...". */
static int count_profiles(char **inputs, int n)
{
	plumb_format first, fmt;
	plumb_error err;
	if (n == 0)
		return 0;
	if (plumb_detect_file(inputs[0], &first, &err))
		return 1; /* loading it says what is wrong */
	int i = 1;
	while (i < n && plumb_detect_file(inputs[i], &fmt, &err) == 0 && fmt == first)
		i++;
	return i;
}

/* "a b c" for the header. */
static char *join_paths(char **v, int n)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	char *s = calloc(len, 1);
	for (int i = 0; s && i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, v[i]);
	}
	return s;
}

/* The cwd with a '/' after it: stripped from file names, as
 * callgrind_annotate does ("//" from the root, so nothing is stripped). */
static char *cwd_prefix(void)
{
	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		return NULL;
	size_t n = strlen(cwd);
	char *s = malloc(n + 2);
	if (s)
		snprintf(s, n + 2, "%s/", cwd);
	free(cwd);
	return s;
}

static void print_warning(void *ctx, const char *message)
{
	(void)ctx;
	fprintf(stderr, "plumb: warning: %s\n", message);
}

static int run(annotate_args *a, char **profiles, int nprof)
{
	plumb_error err;
	plumb_profile *p = cli_load(profiles, nprof, NULL, &err);
	if (!p)
		return cli_fail(&err);
	char *shown = join_paths(profiles, nprof);
	char *prefix = cwd_prefix();
	a->o.profile_path = nprof == 1 ? profiles[0] : shown;
	a->o.strip_prefix = prefix;
	a->o.warn = print_warning;
	plumb_annotation *ann = NULL;
	int rc = plumb_annotate(p, &a->o, &ann, &err) ? cli_fail(&err) : EXIT_OK;
	if (rc == EXIT_OK) {
		cli_pager_start();
		if (plumb_annotation_write(ann, stdout, &err))
			rc = cli_fail(&err);
	}
	plumb_annotation_free(ann);
	free(shown);
	free(prefix);
	plumb_profile_free(p);
	return rc;
}

int cmd_annotate(int argc, char **argv)
{
	annotate_args a = { 0 };
	plumb_annotate_opts_init(&a.o);
	int rc = parse_args(argc, argv, &a);
	if (rc || a.help) {
		if (!rc)
			fputs(annotate_help, stdout);
		free(a.includes);
		return rc;
	}
	glob_t g = { 0 };
	char **inputs = a.inputs;
	int n = a.ninputs;
	if (n == 0) {
		if (glob("callgrind.out*", 0, NULL, &g) != 0 || g.gl_pathc == 0) {
			globfree(&g);
			free(a.includes);
			return cli_usage_error("annotate", "no FILE given and no callgrind.out* here");
		}
		inputs = g.gl_pathv;
		n = 1;
		printf("Reading data from '%s'...\n", inputs[0]);
	}
	int nprof = count_profiles(inputs, n);
	a.o.user_files = (const char *const *)&inputs[nprof];
	a.o.n_user = (size_t)(n - nprof);
	rc = run(&a, inputs, nprof);
	globfree(&g);
	free(a.includes);
	return rc;
}
