/* plumb gprof: GNU gprof's command line and reports, on libplumb's gmon
 * reader, ELF symbol table and gprof core. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "plumb/elfsym.h"
#include "plumb/gmon.h"
#include "plumb/gprof.h"

static const char gprof_help[] =
	"usage: plumb gprof [options] [EXECUTABLE [GMON...]]\n"
	"\n"
	"Read gmon.out files written by a program built with 'gcc -pg' and print GNU\n"
	"gprof's reports: flat profile, call graph, index, annotated source, execution\n"
	"counts. Options are gprof's; with -b the output is GNU gprof 2.40's, byte for\n"
	"byte. Without -b, plumb adds its own short notes on the columns.\n"
	"Defaults: EXECUTABLE a.out, GMON gmon.out. Several GMON files are summed.\n"
	"\n"
	"Reports ([=SPEC]: optional, attached: -pmain, --graph=main):\n"
	"  -p, --flat-profile[=SPEC]      flat profile (of SPEC only)\n"
	"  -P, --no-flat-profile[=SPEC]   no flat profile (or: without SPEC)\n"
	"  -q, --graph[=SPEC]             call graph (SPEC and below; FROM/TO: arcs)\n"
	"  -Q, --no-graph[=SPEC]          no call graph (or: hide SPEC, or those arcs)\n"
	"  -A, --annotated-source[=SPEC]  source with call counts\n"
	"  -J, --no-annotated-source[=SPEC]\n"
	"  -C, --exec-counts[=SPEC]       execution counts per function\n"
	"  -Z, --no-exec-counts[=SPEC]\n"
	"  -i, --file-info                what each gmon file holds\n"
	"  -s, --sum                      write the sum of the GMON files to gmon.sum\n"
	"  -r, --function-ordering        a link order that keeps callers near callees\n"
	"Time and arcs:\n"
	"  -n, --time=SPEC                only SPEC's time goes up the call graph\n"
	"  -N, --no-time=SPEC             SPEC's time does not go up the call graph\n"
	"  -k FROM/TO                     drop the arcs from FROM to TO\n"
	"  -e/-E/-f/-F SPEC               gprof's old forms of -Q/-N/-q/-n\n"
	"  -c, --static-call-graph        add calls found in the code (x86, forward)\n"
	"  -a, --no-static                fold static functions into the one before\n"
	"  -D, --ignore-non-functions     only symbols typed as functions\n"
	"Layout:\n"
	"  -b, --brief                    no explanations\n"
	"  -z, --display-unused-functions also functions never called nor sampled\n"
	"  -l, --line                     one row per source line\n"
	"  -L, --print-path               full source paths\n"
	"  -T, --traditional              BSD layout\n"
	"  -w, --width=N                  width of the index (default 80)\n"
	"  -m, --min-count=N              -A/-C: lines run fewer times show #####\n"
	"  -t, --table-length=N           -A: rows of the top-lines table (10)\n"
	"  -x, --all-lines                -A: count every line of a block\n"
	"  -I, --directory-path=DIRS      -A: where to find sources (DIR:DIR...)\n"
	"  -y, --separate-files           -A: write FILE-ann in this directory\n"
	"      --inline-file-names        names followed by (file:line)\n"
	"      --demangle, --no-demangle  C++ names demangled (default) or raw\n"
	"      --no-pager                 never page (on a terminal: $PLUMB_PAGER, $PAGER\n"
	"                                 or less -FRX)\n"
	"  -O, --file-format=a|m|b|4      GMON format: auto, GNU, old BSD, 4.4BSD\n"
	"  -h, --help                     this help\n"
	"  -v, --version                  plumb's version\n"
	"\n"
	"SPEC (a gprof symspec): main.c (a file), func (a function, raw name),\n"
	"main.c:func, main.c:120 or 120 (a line), :name.with.dots, odd: (a file\n"
	"without a dot). A SPEC that matches nothing changes nothing.\n"
	"\n"
	"Examples:\n"
	"  plumb gprof -b ./prog gmon.out         flat profile and call graph\n"
	"  plumb gprof -b -p -qping ./prog        flat profile; ping and below\n"
	"  plumb gprof -b -k main/ -z ./prog      without main's calls, all functions\n"
	"  plumb gprof -s ./prog gmon.1 gmon.2    sum two runs into gmon.sum\n"
	"\n"
	"The children times are gprof's estimate (a callee's time shared among its\n"
	"callers by call counts); 'plumb report gmon.out' labels them as such.\n";

enum {
	STYLE_FLAT = 1 << 0, STYLE_GRAPH = 1 << 1, STYLE_EXEC = 1 << 2, STYLE_ANNO = 1 << 3,
	STYLE_INFO = 1 << 4, STYLE_SUM = 1 << 5, STYLE_ORDER = 1 << 6
};

enum { OPT_DEMANGLE = 256, OPT_NO_DEMANGLE, OPT_INLINE_NAMES, OPT_NO_PAGER };

typedef struct spec_opt {
	plumb_gprof_table table;
	const char *text;
} spec_opt;

typedef struct gprof_args {
	plumb_gprof_opts o;
	unsigned style, user;
	spec_opt *spec;
	size_t nspec;
	bool no_static, funcs_only, no_demangle, to_files;
	const char *search;       /* -I, colon separated, may repeat */
	char *search_buf;
	plumb_gmon_format format;
} gprof_args;

static int add_spec(gprof_args *a, plumb_gprof_table t, const char *text)
{
	spec_opt *n = realloc(a->spec, (a->nspec + 1) * sizeof *n);
	if (!n) {
		cli_error("out of memory");
		return EXIT_BAD_INPUT;
	}
	a->spec = n;
	n[a->nspec++] = (spec_opt){ t, text };
	return 0;
}

/* -p/-A/-C (and -P/-J/-Z with a spec) turn a report on; without a spec the
 * negative forms turn it off. */
static int style_opt(gprof_args *a, unsigned style, bool on, plumb_gprof_table t, const char *arg)
{
	a->user |= style;
	if (arg) {
		a->style |= style;
		return add_spec(a, t, arg);
	}
	if (on)
		a->style |= style;
	else
		a->style &= ~style;
	return 0;
}

static int graph_opt(gprof_args *a, bool on, const char *arg)
{
	a->user |= STYLE_GRAPH;
	if (!arg) {
		if (on)
			a->style |= STYLE_GRAPH;
		else
			a->style &= ~STYLE_GRAPH;
		return 0;
	}
	a->style |= STYLE_GRAPH;
	bool arc = strchr(arg, '/') != NULL;
	plumb_gprof_table t = on ? (arc ? PLUMB_GP_INCL_ARCS : PLUMB_GP_INCL_GRAPH)
				 : (arc ? PLUMB_GP_EXCL_ARCS : PLUMB_GP_EXCL_GRAPH);
	return add_spec(a, t, arg);
}

static int add_search(gprof_args *a, const char *dirs)
{
	size_t old = a->search_buf ? strlen(a->search_buf) : 0;
	char *n = realloc(a->search_buf, old + strlen(dirs) + 2);
	if (!n)
		return EXIT_BAD_INPUT;
	if (old)
		n[old++] = ':';
	strcpy(n + old, dirs);
	a->search_buf = n;
	a->search = n;
	return 0;
}

static int parse_number(const char *opt, const char *s, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s || *end)
		return cli_usage_error("gprof", "%s expects a number, got '%s'", opt, s);
	*out = v;
	return 0;
}

static int parse_format(gprof_args *a, const char *s)
{
	switch (s[0]) {
	case 'a': a->format = PLUMB_GMON_AUTO; return 0;
	case 'm': a->format = PLUMB_GMON_GNU; return 0;
	case 'b': a->format = PLUMB_GMON_BSD_OLD; return 0;
	case '4': a->format = PLUMB_GMON_BSD44; return 0;
	case 'p':
		cli_error("gprof: file format 'prof' is not supported (nor by GNU gprof)");
		return EXIT_BAD_INPUT;
	default:
		return cli_usage_error("gprof", "unknown file format '%s' (a, m, b or 4)", s);
	}
}

static const struct option longopts[] = {
	{ "annotated-source", optional_argument, NULL, 'A' },
	{ "no-annotated-source", optional_argument, NULL, 'J' },
	{ "flat-profile", optional_argument, NULL, 'p' },
	{ "no-flat-profile", optional_argument, NULL, 'P' },
	{ "graph", optional_argument, NULL, 'q' },
	{ "no-graph", optional_argument, NULL, 'Q' },
	{ "exec-counts", optional_argument, NULL, 'C' },
	{ "no-exec-counts", optional_argument, NULL, 'Z' },
	{ "line", no_argument, NULL, 'l' },
	{ "no-static", no_argument, NULL, 'a' },
	{ "ignore-non-functions", no_argument, NULL, 'D' },
	{ "file-info", no_argument, NULL, 'i' },
	{ "sum", no_argument, NULL, 's' },
	{ "all-lines", no_argument, NULL, 'x' },
	{ "demangle", optional_argument, NULL, OPT_DEMANGLE },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "inline-file-names", no_argument, NULL, OPT_INLINE_NAMES },
	{ "no-pager", no_argument, NULL, OPT_NO_PAGER },
	{ "directory-path", required_argument, NULL, 'I' },
	{ "display-unused-functions", no_argument, NULL, 'z' },
	{ "min-count", required_argument, NULL, 'm' },
	{ "print-path", no_argument, NULL, 'L' },
	{ "separate-files", no_argument, NULL, 'y' },
	{ "static-call-graph", no_argument, NULL, 'c' },
	{ "table-length", required_argument, NULL, 't' },
	{ "time", required_argument, NULL, 'n' },
	{ "no-time", required_argument, NULL, 'N' },
	{ "width", required_argument, NULL, 'w' },
	{ "brief", no_argument, NULL, 'b' },
	{ "help", no_argument, NULL, 'h' },
	{ "file-format", required_argument, NULL, 'O' },
	{ "traditional", no_argument, NULL, 'T' },
	{ "version", no_argument, NULL, 'v' },
	{ "debug", optional_argument, NULL, 'd' },
	{ "function-ordering", no_argument, NULL, 'r' },
	{ 0 },
};

static int parse_one(gprof_args *a, int c, const char *arg, char **argv)
{
	long v = 0;
	switch (c) {
	case 'a': a->no_static = true; return 0;
	case 'b': a->o.brief = true; return 0;
	case 'c': a->o.static_calls = true; return 0;
	case 'D': a->funcs_only = true; return 0;
	case 'd':
		cli_error("gprof: warning: -d (gprof's debugging traces) is not supported; ignored");
		return 0;
	case 'i': a->style |= STYLE_INFO; a->user |= STYLE_INFO; return 0;
	case 'l': a->o.line = true; return 0;
	case 'L': a->o.print_path = true; return 0;
	case 's': a->style |= STYLE_SUM; a->user |= STYLE_SUM; return 0;
	case 'r': a->style |= STYLE_ORDER; a->user |= STYLE_ORDER; return 0;
	case 'T': a->o.bsd = true; return 0;
	case 'x': a->o.all_lines = true; return 0;
	case 'y': a->to_files = true; return 0;
	case 'z': a->o.zeros = true; return 0;
	case OPT_DEMANGLE: a->no_demangle = false; return 0;
	case OPT_NO_DEMANGLE: a->no_demangle = true; return 0;
	case OPT_INLINE_NAMES: a->o.inline_names = true; return 0;
	case OPT_NO_PAGER: cli_pager_disable(); return 0;
	case 'p': return style_opt(a, STYLE_FLAT, true, PLUMB_GP_INCL_FLAT, arg);
	case 'P': return style_opt(a, STYLE_FLAT, false, PLUMB_GP_EXCL_FLAT, arg);
	case 'A': return style_opt(a, STYLE_ANNO, true, PLUMB_GP_INCL_ANNO, arg);
	case 'J': return style_opt(a, STYLE_ANNO, false, PLUMB_GP_EXCL_ANNO, arg);
	case 'C': return style_opt(a, STYLE_EXEC, true, PLUMB_GP_INCL_EXEC, arg);
	case 'Z': return style_opt(a, STYLE_EXEC, false, PLUMB_GP_EXCL_EXEC, arg);
	case 'q': return graph_opt(a, true, arg);
	case 'Q': return graph_opt(a, false, arg);
	case 'n': return add_spec(a, PLUMB_GP_INCL_TIME, arg);
	case 'N': return add_spec(a, PLUMB_GP_EXCL_TIME, arg);
	case 'k': return add_spec(a, PLUMB_GP_EXCL_ARCS, arg);
	case 'E': return add_spec(a, PLUMB_GP_EXCL_TIME, arg) || add_spec(a, PLUMB_GP_EXCL_GRAPH, arg);
	case 'e': return add_spec(a, PLUMB_GP_EXCL_GRAPH, arg);
	case 'F': return add_spec(a, PLUMB_GP_INCL_TIME, arg) || add_spec(a, PLUMB_GP_INCL_GRAPH, arg);
	case 'f': return add_spec(a, PLUMB_GP_INCL_GRAPH, arg);
	case 'I': return add_search(a, arg);
	case 'O': return parse_format(a, arg);
	case 'm':
		if (parse_number("--min-count", arg, &v))
			return EXIT_USAGE;
		a->o.min_count = (unsigned long)v;
		return 0;
	case 't':
		if (parse_number("--table-length", arg, &v))
			return EXIT_USAGE;
		a->o.table_length = v < 0 ? 0 : (int)v;
		return 0;
	case 'w':
		if (parse_number("--width", arg, &v))
			return EXIT_USAGE;
		a->o.width = v < 1 ? 1 : (int)v;
		return 0;
	case 'h':
		fputs(gprof_help, stdout);
		return -1;
	case 'v':
		printf("plumb %s (gprof front end, GNU gprof 2.40's reports)\n", PLUMB_VERSION);
		return -1;
	case ':':
		return cli_usage_error("gprof", "option '%s' needs a value", argv[optind - 1]);
	default:
		return cli_unknown_option("gprof", argv[optind - 1], longopts);
	}
}

static int parse_args(int argc, char **argv, gprof_args *a)
{
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":aA::bcC::d::De:E:f:F:hiI:J::k:lLm:n:N:O:p::P::q::Q::rst:Tvw:xyzZ::",
				longopts, NULL)) != -1) {
		int rc = parse_one(a, c, optarg, argv);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- inputs ------------------------------------------------------------- */

typedef struct inputs {
	plumb_gprof_symtab *symtab;
	plumb_gmon *gmon;
} inputs;

static void inputs_free(inputs *in)
{
	plumb_gprof_symtab_free(in->symtab);
	plumb_gmon_free(in->gmon);
}

static int load_symbols(inputs *in, const char *exe, const gprof_args *a, plumb_error *err)
{
	plumb_gprof_symtab_opts o = { .no_static = a->no_static, .funcs_only = a->funcs_only,
				      .no_demangle = a->no_demangle, .line = a->o.line };
	return (in->symtab = plumb_gprof_symtab_load(exe, &o, err)) ? 0 : -1;
}

static int load_gmon(inputs *in, char **files, int nfiles, const gprof_args *a, plumb_error *err)
{
	if (!(in->gmon = plumb_gmon_new()))
		return plumb_fail_nomem(err);
	plumb_gmon_layout lay = plumb_exe_gmon_layout(plumb_gprof_symtab_exe(in->symtab));
	lay.format = a->format;
	for (int i = 0; i < nfiles; i++) {
		if (plumb_gmon_read(in->gmon, files[i], &lay, err))
			return -1;
		/* the reader takes them (report --exe credits nothing); gprof's
		 * bin width would divide by zero: refuse here, where the file is known */
		for (size_t h = 0; h < in->gmon->nhists; h++)
			if (in->gmon->hists[h].nbins == 0)
				return plumb_fail(err, PLUMB_ERR_FORMAT,
						  "%s: histogram record (at byte %" PRIu64 ") with no bins",
						  files[i], in->gmon->hists[h].file_offset);
	}
	return 0;
}

/* -i: what each file holds, read on its own. */
static int file_info(plumb_exe *exe, char **files, int nfiles, const gprof_args *a, plumb_error *err)
{
	plumb_gmon_layout lay = plumb_exe_gmon_layout(exe);
	lay.format = a->format;
	for (int i = 0; i < nfiles; i++) {
		plumb_gmon *g = plumb_gmon_new();
		if (!g)
			return plumb_fail_nomem(err);
		if (plumb_gmon_read(g, files[i], &lay, err)) {
			plumb_gmon_free(g);
			return -1;
		}
		plumb_gprof_print_file_info(files[i], g, stdout);
		plumb_gmon_free(g);
	}
	return 0;
}

static int add_specs(plumb_gprof *g, const gprof_args *a, plumb_error *err)
{
	for (size_t i = 0; i < a->nspec; i++)
		if (plumb_gprof_add_spec(g, a->spec[i].table, a->spec[i].text, err))
			return -1;
	return plumb_gprof_add_default_specs(g, err);
}

/* ---- -A sources ----------------------------------------------------------- */

typedef struct source_ctx {
	const char *search;
} source_ctx;

static FILE *open_in(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	if (!p)
		return NULL;
	snprintf(p, n, "%s/%s", dir, name);
	FILE *f = fopen(p, "r");
	free(p);
	return f;
}

/* The recorded path first, then its basename in each -I directory and
 * $GPROF_PATH, as gprof searches. */
static FILE *open_source(void *vctx, const char *path)
{
	const source_ctx *ctx = vctx;
	FILE *f = fopen(path, "r");
	if (f || !ctx->search)
		return f;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	char *dirs = strdup(ctx->search);
	for (char *save = NULL, *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && !f;
	     d = strtok_r(NULL, ":", &save))
		f = open_in(d, base);
	free(dirs);
	return f;
}

/* -y: name is a bare file name made by the library ("x.c-ann"); never
 * anything with a directory in it. */
static FILE *open_output(void *ctx, const char *name)
{
	(void)ctx;
	if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return NULL;
	return fopen(name, "w");
}

/* ---- run ------------------------------------------------------------------ */

static int check_inputs(const plumb_gprof *g, unsigned style)
{
	if ((style & STYLE_FLAT) && !plumb_gprof_has_hist(g)) {
		cli_error("gprof: gmon.out file is missing histogram");
		return EXIT_BAD_INPUT;
	}
	if ((style & STYLE_GRAPH) && !plumb_gprof_has_arcs(g)) {
		cli_error("gprof: gmon.out file is missing call-graph data");
		return EXIT_BAD_INPUT;
	}
	return 0;
}

static int report(plumb_gprof *g, const gprof_args *a, unsigned style, plumb_error *err)
{
	bool graph = (style & STYLE_GRAPH) && plumb_gprof_has_arcs(g);
	if (graph && a->o.bsd && plumb_gprof_print_graph(g, stdout))
		return -1;
	if ((style & STYLE_FLAT) && plumb_gprof_print_flat(g, stdout))
		return -1;
	if (graph && !a->o.bsd && plumb_gprof_print_graph(g, stdout))
		return -1;
	if (graph && plumb_gprof_print_index(g, stdout))
		return -1;
	if ((style & STYLE_EXEC) && plumb_gprof_print_exec_counts(g, stdout))
		return -1;
	if (style & STYLE_ANNO) {
		source_ctx ctx = { a->search };
		plumb_gprof_source_io io = { open_source, a->to_files ? open_output : NULL, &ctx };
		if (plumb_gprof_print_annotated(g, stdout, &io, err))
			return -1;
	}
	if ((style & STYLE_ORDER) && plumb_gprof_has_arcs(g) && plumb_gprof_print_function_order(g, stdout))
		return -1;
	return 0;
}

static int run(gprof_args *a, const char *exe, char **files, int nfiles)
{
	plumb_error err = { 0 };
	inputs in = { 0 };
	plumb_gprof *g = NULL;
	int rc = EXIT_BAD_INPUT;
	if (a->style & STYLE_SUM)
		a->o.line = true; /* gprof: --sum implies --line, to keep block counts */
	if (load_symbols(&in, exe, a, &err))
		goto fail;
	if (a->style & STYLE_INFO && file_info(plumb_gprof_symtab_exe(in.symtab), files, nfiles, a, &err))
		goto fail;
	/* the engine's copy of the symbols made and the symbol table's given
	 * back before the gmon.out data comes: gprof's peak memory */
	size_t nsym;
	const plumb_gprof_symbol *sym = plumb_gprof_symtab_symbols(in.symtab, &nsym);
	if (!(g = plumb_gprof_new(sym, nsym, &a->o, &err)))
		goto fail;
	plumb_gprof_symtab_drop_symbols(in.symtab);
	if (load_gmon(&in, files, nfiles, a, &err))
		goto fail;
	unsigned style = a->style;
	if (style == 0) /* what the files hold, as gprof guesses */
		style = ((in.gmon->nhists ? STYLE_FLAT : 0) | (in.gmon->narcs ? STYLE_GRAPH : 0)) & ~a->user;
	if (style == 0 && !in.gmon->nhists && !in.gmon->narcs)
		style = STYLE_EXEC;
	if (add_specs(g, a, &err) ||
	    ((style & STYLE_SUM) ? plumb_gprof_add_gmon(g, in.gmon, &err) : plumb_gprof_take_gmon(g, in.gmon, &err)))
		goto fail;
	if (in.gmon->nbbs && !a->o.line)
		cli_error("gprof: warning: ignoring basic-block exec counts (use -l or --line)");
	/* the engine has its own copy: give the reader's back before the graph
	 * is built (gprof's peak memory), unless gmon.sum is written from it */
	if (!(style & STYLE_SUM)) {
		plumb_gmon_free(in.gmon);
		in.gmon = NULL;
	}
	if ((a->o.static_calls && plumb_gprof_scan_calls_elf(g, plumb_gprof_symtab_exe(in.symtab), &err)) ||
	    plumb_gprof_analyze(g, &err))
		goto fail;
	if (style & STYLE_INFO)
		plumb_gprof_after_output(g);
	if ((style & STYLE_SUM) && plumb_gprof_write_sum(g, in.gmon, "gmon.sum", &err))
		goto fail;
	if ((rc = check_inputs(g, style)))
		goto out;
	cli_pager_start(); /* a terminal only; the report is long */
	if (report(g, a, style, &err)) {
		if (!err.message[0]) /* the printers fail only on memory or writing */
			plumb_fail(&err, PLUMB_ERR_IO, "cannot write the report: out of memory or a write error");
		goto fail;
	}
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("gprof: cannot write to standard output");
		rc = EXIT_BAD_INPUT;
	} else {
		rc = EXIT_OK;
	}
	goto out;
fail:
	rc = cli_fail(&err);
out:
	plumb_gprof_free(g);
	inputs_free(&in);
	return rc;
}

int cmd_gprof(int argc, char **argv)
{
	gprof_args a = { 0 };
	plumb_gprof_opts_init(&a.o);
	const char *env = getenv("GPROF_PATH");
	int rc = parse_args(argc, argv, &a);
	if (!rc && env && *env)
		rc = add_search(&a, env);
	if (rc) {
		free(a.spec);
		free(a.search_buf);
		return rc < 0 ? EXIT_OK : rc;
	}
	const char *exe = optind < argc ? argv[optind++] : "a.out";
	static char *def[] = { "gmon.out" };
	char **files = optind < argc ? argv + optind : def;
	int nfiles = optind < argc ? argc - optind : 1;
	rc = run(&a, exe, files, nfiles);
	free(a.spec);
	free(a.search_buf);
	return rc;
}
