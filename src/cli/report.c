/* plumb report: show a profile as a view (flat by default). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "plumb/output.h"

static const char report_help[] =
	"usage: plumb report [options] [FILE...]\n"
	"\n"
	"Show a profile. FILE is a .plumb profile or any format plumb reads (folded\n"
	"stacks, Callgrind, gmon.out, aprof reports); the format is found from the\n"
	"content. Several files are summed.\n"
	"Default FILE: profile.plumb.\n"
	"\n"
	"Views (--view, or the shortcut options):\n"
	"  flat        one row per function: %, cumulative %, exclusive, inclusive, calls\n"
	"              (default)\n"
	"  callers     for each selected function, who calls it and the cost of each call\n"
	"  callees     for each selected function, what it calls and the cost of each\n"
	"              call\n"
	"  butterfly   callers above each function, callees below\n"
	"  tree        top-down call tree with inclusive % (a call graph's: unfolded from\n"
	"              its calls, recursion cut)\n"
	"  bottom-up   inverted tree: functions by exclusive cost, their callers below\n"
	"  lines       one row per source line     files    one row per source file\n"
	"  modules     one row per load module\n"
	"  parts       one row per part: thread, process or dump (also: threads)\n"
	"  inputs      input-sensitive profiles (aprof): one row per routine with how its\n"
	"              cost per call grows with its input size, worst first (their\n"
	"              default); with --select, a chart of cost against input size under\n"
	"              the table\n"
	"  points      input-sensitive profiles: one row per routine (or calling context)\n"
	"              and input size, every field of the report\n"
	"  flame       the call tree as a flame graph (--format svg draws it; text, csv\n"
	"              and json list its boxes); --invert: an icicle of the bottom-up\n"
	"              tree\n"
	"  timeline    recordings: each thread's cost in equal time buckets (a lane per\n"
	"              thread in text and svg; csv:\n"
	"              part,thread,start_s,end_s,event,value)\n"
	"  fprof       HP Caliper's fprof report in one table: one row per thread and\n"
	"              function (IP samples), its source statements below (~ approximate\n"
	"              line, *> out of order) and their instructions (disassembled)\n"
	"  heap        a heap recording (plumb record --heap) summed up: peak and when,\n"
	"              allocations, temporaries, leaks, top sites, size histogram\n"
	"  locks       recordings with --sync-wait: per lock (named by its symbol when it\n"
	"              is a global), its total and mean wait and count, the functions\n"
	"              that waited for it, and who held it (a mutex or write-locked\n"
	"              rwlock)\n"
	"\n"
	"Options:\n"
	"  -v, --view VIEW        the view above\n"
	"      --callers SYMSPEC  = --view callers --select SYMSPEC (also --callees,\n"
	"                         --butterfly)\n"
	"  -m, --metric EVENT     show only this event (default: every event of the\n"
	"                         profile)\n"
	"  -s, --sort KEY         exclusive, inclusive, calls, name, file, module or\n"
	"                         growth\n"
	"  -n, --limit N          at most N rows (N functions for\n"
	"                         callers/callees/butterfly)\n"
	"  -t, --threshold PCT    hide rows whose exclusive and inclusive are both under\n"
	"                         PCT % of the total (trees: rows under PCT % inclusive;\n"
	"                         default 0.5)\n"
	"  -S, --select SYMSPEC   show only what SYMSPEC names (repeatable)\n"
	"  -H, --hide SYMSPEC     hide what SYMSPEC names (repeatable)\n"
	"  -F, --focus SYMSPEC    keep only the stacks that pass through SYMSPEC\n"
	"                         (repeatable)\n"
	"  -p, --part N           only part N (a thread, process or dump; numbered as\n"
	"                         --view parts lists them); default: all parts summed\n"
	"      --cycles=yes|no    call graphs (Callgrind, gmon.out): show functions that\n"
	"                         call each other as <cycle N> rows and tags (default\n"
	"                         yes); no hides them, inclusive costs stay the same\n"
	"      --no-cycles        = --cycles=no\n"
	"      --inline=yes|no    recordings and pprof: inlined functions as frames of\n"
	"                         their own (yes, default), or folded into the function\n"
	"                         they were inlined into (no, as perf report shows them)\n"
	"      --exe FILE         the executable a gmon.out belongs to (default: a.out\n"
	"                         in the gmon file's directory)\n"
	"  -f, --format FORMAT    text (default), json, csv, svg (--view flame, or the\n"
	"                         charts of --view inputs --select ROUTINE) or html (one\n"
	"                         self-contained page: flame graph, sortable table,\n"
	"                         callers and callees, source lines, cost plots, threads)\n"
	"      --time START,END   recordings: only the samples of that time, in seconds\n"
	"                         from the first sample (2.5,4 or ,1.5 or 3,); or A%-B%\n"
	"                         of the run\n"
	"      --buckets N        --view timeline: N time buckets (default 50)\n"
	"      --invert           --view flame: leaf functions at the top, their callers\n"
	"                         below (an icicle of the bottom-up tree)\n"
	"  -o, --output FILE      write there (replaced atomically) instead of standard\n"
	"                         output\n"
	"      --chart NAME       --view inputs: only this chart: cost (cost per call\n"
	"                         against input size), amortized, frequency (calls per\n"
	"                         input size) or total (cost per input size); default:\n"
	"                         all (svg), cost (text)\n"
	"      --event-name EV    folded stacks: what their numbers count (default:\n"
	"                         samples),\n"
	"      --unit UNIT        and in what unit (ns, bytes...); shown in every view\n"
	"  -w, --width N          fit text to N columns, no line longer (default: the\n"
	"                         terminal's; in a pipe or with -o: 0, never cut); narrow\n"
	"                         tables show numbers as 1.2M and give up columns before\n"
	"                         names\n"
	"      --color WHEN       auto (default), always or never; NO_COLOR turns colour\n"
	"                         off\n"
	"      --no-pager         never page; on a terminal, text goes through\n"
	"                         $PLUMB_PAGER, $PAGER or 'less -FRX' (never in a pipe or\n"
	"                         a file)\n"
	"  -q, --quiet            no progress line on stderr (shown on a terminal\n"
	"                         for reads over a second)\n"
	"  -h, --help             this help\n"
	"\n"
	"Symspecs (gprof's): main.c (a file), func (a function), main.c:func, main.c:120\n"
	"(a line), :name.with.dots (a function), odd: (a file without a dot).\n"
	"\n"
	"Examples:\n"
	"  plumb report                            flat profile of profile.plumb\n"
	"  plumb report --view tree stacks.folded  top-down call tree\n"
	"  plumb report --butterfly parse_line     who calls parse_line and what it calls\n"
	"  plumb report --focus main.c:work --view lines\n"
	"  plumb report --format json > report.json\n"
	"  plumb report --view tree callgrind.out.1234      call tree from a call graph\n"
	"  plumb report --butterfly is_even --no-cycles callgrind.out.1234\n"
	"  plumb report --view parts callgrind.out.1234     then --part 2 for one of them\n"
	"  plumb report aprof.report                        routines by growth of cost\n"
	"  plumb report --select parse --format svg -o cost.svg aprof.report\n"
	"  plumb report --view flame --format svg -o flame.svg stacks.folded\n"
	"  plumb report --event-name off-cpu --unit ns offcpu.folded\n"
	"  plumb report --view fprof -n 5                  Caliper's fprof table\n"
	"  plumb report --format html -o report.html profile.plumb\n"
	"  plumb report --view timeline               where each thread spent its time\n"
	"  plumb report --time 50%-100% --view tree   the second half of the run\n";

enum { OPT_CALLERS = 256, OPT_CALLEES, OPT_BUTTERFLY, OPT_COLOR, OPT_CYCLES, OPT_NO_CYCLES, OPT_EXE,
       OPT_CHART, OPT_INVERT, OPT_INLINE, OPT_EVENT_NAME, OPT_UNIT, OPT_TIME, OPT_BUCKETS, OPT_NO_PAGER };

typedef struct report_args {
	plumb_view_opts view;
	plumb_symspec_list select, hide, focus;
	const char *metric, *color;
	const char *output;      /* -o FILE; NULL: standard output */
	bool view_set;           /* --view given: no default by profile kind */
	const plumb_view_writer *writer;
	bool threshold_set;
	long width;              /* -1: the terminal's */
	size_t part;             /* --part N (1-based); 0: all parts */
	bool no_inline;          /* --inline=no: inlined frames folded into their callers */
	const char *time;        /* --time RANGE; NULL: the whole recording */
	const char **select_from; /* the option that gave each --select spec */
} report_args;

static int add_spec(plumb_symspec_list *l, const char *text)
{
	plumb_error err;
	if (plumb_symspec_list_add(l, text, &err))
		return cli_usage_error("report", "%s", err.message);
	return 0;
}

/* --select, --callers, --callees and --butterfly all add to the selection;
 * messages name the one the user gave. */
static int add_select(report_args *a, const char *option, const char *text)
{
	const char **v = realloc(a->select_from, (a->select.n + 1) * sizeof *v);
	if (!v) {
		cli_error("out of memory");
		return EXIT_BAD_INPUT;
	}
	a->select_from = v;
	v[a->select.n] = option;
	return add_spec(&a->select, text);
}

/* Every symspec must name something: an empty table would say nothing
 * about a typo. */
static int check_specs(report_args *a, const plumb_profile *p, const char *where)
{
	plumb_symspec_list *lists[] = { &a->select, &a->hide, &a->focus };
	for (size_t i = 0; i < 3; i++) {
		for (size_t j = 0; j < lists[i]->n; j++) {
			plumb_error err;
			plumb_symspec_resolve(&lists[i]->v[j], p);
			if (plumb_symspec_check(&lists[i]->v[j], p, where, &err) == 0)
				continue;
			cli_error("%s %s", i == 0 ? a->select_from[j] : i == 1 ? "--hide" : "--focus", err.message);
			return EXIT_BAD_INPUT;
		}
	}
	return 0;
}

static int set_view(report_args *a, const char *name)
{
	int v = plumb_view_by_name(name);
	if (v < 0)
		return cli_unknown_word("report", "view", name, "flat, callers, callees, butterfly, tree, "
					"bottom-up, lines, files, modules, parts, threads, inputs, points, flame, fprof, timeline, heap, locks");
	a->view.kind = (plumb_view_kind)v;
	a->view_set = true;
	return 0;
}

static int parse_args(int argc, char **argv, report_args *a)
{
	static const struct option longopts[] = {
		{ "view", required_argument, NULL, 'v' },
		{ "callers", required_argument, NULL, OPT_CALLERS },
		{ "callees", required_argument, NULL, OPT_CALLEES },
		{ "butterfly", required_argument, NULL, OPT_BUTTERFLY },
		{ "metric", required_argument, NULL, 'm' },
		{ "sort", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'n' },
		{ "threshold", required_argument, NULL, 't' },
		{ "select", required_argument, NULL, 'S' },
		{ "hide", required_argument, NULL, 'H' },
		{ "focus", required_argument, NULL, 'F' },
		{ "format", required_argument, NULL, 'f' },
		{ "width", required_argument, NULL, 'w' },
		{ "color", required_argument, NULL, OPT_COLOR },
		{ "colour", required_argument, NULL, OPT_COLOR },
		{ "part", required_argument, NULL, 'p' },
		{ "cycles", required_argument, NULL, OPT_CYCLES },
		{ "no-cycles", no_argument, NULL, OPT_NO_CYCLES },
		{ "exe", required_argument, NULL, OPT_EXE },
		{ "output", required_argument, NULL, 'o' },
		{ "chart", required_argument, NULL, OPT_CHART },
		{ "invert", no_argument, NULL, OPT_INVERT },
		{ "inline", required_argument, NULL, OPT_INLINE },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "buckets", required_argument, NULL, OPT_BUCKETS },
		{ "event-name", required_argument, NULL, OPT_EVENT_NAME },
		{ "unit", required_argument, NULL, OPT_UNIT },
		{ "no-pager", no_argument, NULL, OPT_NO_PAGER },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, sort;
	size_t n;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":v:m:s:n:t:S:H:F:f:w:p:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			if (set_view(a, optarg))
				return EXIT_USAGE;
			break;
		case OPT_CALLERS:
		case OPT_CALLEES:
		case OPT_BUTTERFLY:
			a->view.kind = c == OPT_CALLERS ? PLUMB_VIEW_CALLERS
				       : c == OPT_CALLEES ? PLUMB_VIEW_CALLEES : PLUMB_VIEW_BUTTERFLY;
			a->view_set = true;
			if (add_select(a, c == OPT_CALLERS ? "--callers" : c == OPT_CALLEES ? "--callees" : "--butterfly",
				       optarg))
				return EXIT_USAGE;
			break;
		case 'm':
			a->metric = optarg;
			break;
		case 's':
			if ((sort = plumb_sort_by_name(optarg)) < 0)
				return cli_unknown_word("report", "sort key", optarg, "exclusive, inclusive, calls, "
							"name, file, module, growth");
			a->view.sort = (plumb_sort_key)sort;
			break;
		case 'n':
			if (cli_parse_size(optarg, &n))
				return cli_usage_error("report", "--limit expects a number of rows, got '%s'", optarg);
			a->view.limit = n;
			break;
		case 't':
			if (cli_parse_pct(optarg, &a->view.threshold))
				return cli_usage_error("report", "--threshold expects a percentage 0-100, got '%s'", optarg);
			a->threshold_set = true;
			break;
		case 'S':
			if (add_select(a, "--select", optarg))
				return EXIT_USAGE;
			break;
		case 'H':
		case 'F':
			if (add_spec(c == 'H' ? &a->hide : &a->focus, optarg))
				return EXIT_USAGE;
			break;
		case 'f':
			if (!(a->writer = plumb_view_writer_by_name(optarg)))
				return cli_unknown_word("report", "format", optarg, plumb_view_writers_list());
			break;
		case 'w':
			if (cli_parse_size(optarg, &n) || n > 100000)
				return cli_usage_error("report", "--width expects a number of columns, got '%s'", optarg);
			a->width = (long)n;
			break;
		case OPT_COLOR:
			if (strcmp(optarg, "auto") && strcmp(optarg, "always") && strcmp(optarg, "never"))
				return cli_usage_error("report", "--color expects auto, always or never, got '%s'", optarg);
			a->color = optarg;
			break;
		case 'p':
			if (cli_parse_size(optarg, &n) || n == 0)
				return cli_usage_error("report", "--part expects a part number from 1, got '%s'", optarg);
			a->part = n;
			break;
		case OPT_CYCLES:
			if (strcmp(optarg, "yes") && strcmp(optarg, "no"))
				return cli_usage_error("report", "--cycles expects yes or no, got '%s'", optarg);
			a->view.no_cycles = strcmp(optarg, "no") == 0;
			break;
		case OPT_NO_CYCLES:
			a->view.no_cycles = true;
			break;
		case OPT_EXE:
			cli_set_executable(optarg);
			break;
		case 'o':
			a->output = optarg;
			break;
		case OPT_CHART:
			if (!plumb_chart_known(optarg))
				return cli_unknown_word("report", "chart", optarg, plumb_charts_list());
			a->view.chart = optarg;
			break;
		case OPT_INVERT:
			a->view.invert = true;
			break;
		case OPT_EVENT_NAME:
		case OPT_UNIT:
			cli_set_folded_event(c == OPT_EVENT_NAME ? optarg : NULL, c == OPT_UNIT ? optarg : NULL);
			break;
		case OPT_NO_PAGER:
			cli_pager_disable();
			break;
		case OPT_INLINE:
			if (strcmp(optarg, "yes") && strcmp(optarg, "no"))
				return cli_usage_error("report", "--inline expects yes or no, got '%s'", optarg);
			a->no_inline = strcmp(optarg, "no") == 0;
			break;
		case OPT_TIME: {
			plumb_time_range r;
			plumb_error e;
			if (plumb_time_range_parse(optarg, &r, &e))
				return cli_usage_error("report", "%s", e.message);
			a->time = optarg;
			break;
		}
		case OPT_BUCKETS:
			if (cli_parse_size(optarg, &n) || n == 0 || n > 100000)
				return cli_usage_error("report", "--buckets expects a number from 1 to 100000, got '%s'", optarg);
			a->view.buckets = n;
			break;
		case 'q':
			cli_set_quiet(true);
			break;
		case 'h':
			fputs(report_help, stdout);
			return -1;
		case ':':
			return cli_usage_error("report", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_unknown_option("report", argv[optind - 1], longopts);
		}
	}
	return 0;
}

/* The total of one part: its CCT nodes' and call-graph self costs. */
static int part_totals(const plumb_profile *p, plumb_id part, uint64_t *out, plumb_error *err)
{
	size_t nev = p->events.n;
	memset(out, 0, nev * sizeof *out);
	for (size_t i = 0; i < p->cct.n; i++)
		if (p->cct.v[i].part == part && plumb_costs_add(out, plumb_cct_self(p, (plumb_id)i), nev, err))
			return -1;
	for (size_t i = 0; i < p->cg_self.n; i++)
		if (p->cg_self.v[i].part == part && plumb_costs_add(out, p->cg_self_cost.v + i * nev, nev, err))
			return -1;
	return 0;
}

/* Recorded profiles: the share of samples whose stack reaches a root
 * (main, _start, start_thread...), overall and per module of the leaf, so
 * that broken stacks are never silent. */
static void print_stack_completeness(FILE *out, const plumb_profile *p)
{
	unsigned long long r, t;
	const char *all = plumb_meta_get(p, "stacks.rooted");
	if (!all || sscanf(all, "%llu %llu", &r, &t) != 2 || t == 0)
		return;
	fprintf(out, "\nStacks reaching a root: %.1f%% of %llu samples", 100.0 * (double)r / (double)t, t);
	const char *sep = "; by leaf module:";
	for (size_t i = 0; i < p->meta.n; i++) {
		const char *key = plumb_str(p, p->meta.v[i].key);
		if (strncmp(key, "stacks.rooted:", 14) != 0 ||
		    sscanf(plumb_str(p, p->meta.v[i].value), "%llu %llu", &r, &t) != 2 || t == 0)
			continue;
		const char *base = strrchr(key + 14, '/');
		fprintf(out, "%s %s %.1f%%", sep, base ? base + 1 : key + 14, 100.0 * (double)r / (double)t);
		sep = ",";
	}
	const char *lost = plumb_meta_get(p, "record.lost");
	const char *rate = plumb_meta_get(p, "record.rate");
	if (lost && strcmp(lost, "0") != 0)
		fprintf(out, "\nLost samples: %s (the kernel's ring buffer was full; record less often than %s)",
			lost, rate ? rate : "this");
}

/* Under a recording's table, one line on what it does not show, so that a
 * short table is never mistaken for the whole program. */
/* How much of a plural noun to print for a count: "1 line", "2 lines". */
static int noun_len(const char *plural, size_t count)
{
	return (int)strlen(plural) - (count == 1);
}

static void print_left_out(FILE *out, const plumb_profile *p, const plumb_view_opts *o,
			   const plumb_view_left_out *lo)
{
	/* Trees cut whole subtrees: their costs are the subtrees' inclusive. */
	static const char *const rows[] = { [PLUMB_VIEW_LINES] = "lines", [PLUMB_VIEW_FILES] = "files",
					    [PLUMB_VIEW_MODULES] = "modules", [PLUMB_VIEW_TREE] = "subtrees",
					    [PLUMB_VIEW_BOTTOM_UP] = "subtrees" };
	bool keyed = o->kind == PLUMB_VIEW_FLAT || o->kind == PLUMB_VIEW_LINES || o->kind == PLUMB_VIEW_FILES ||
		     o->kind == PLUMB_VIEW_MODULES || o->kind == PLUMB_VIEW_CALLERS ||
		     o->kind == PLUMB_VIEW_CALLEES || o->kind == PLUMB_VIEW_BUTTERFLY ||
		     o->kind == PLUMB_VIEW_TREE || o->kind == PLUMB_VIEW_BOTTOM_UP;
	if (!keyed || lo->event < 0 || (size_t)lo->event >= p->events.n ||
	    !(lo->under_threshold || lo->hidden || lo->past_limit))
		return;
	uint64_t *tot = calloc(p->events.n, sizeof *tot);
	plumb_error err;
	if (!tot || plumb_profile_totals(p, tot, &err)) {
		free(tot);
		return;
	}
	const char *what = (size_t)o->kind < sizeof rows / sizeof *rows && rows[o->kind] ? rows[o->kind]
											 : "functions";
	double total = (double)tot[lo->event];
	const char *ev = plumb_str(p, p->events.v[lo->event].name);
	const char *sep = "";
	fputs("\nNot shown:", out);
	if (lo->under_threshold) {
		fprintf(out, " %zu %.*s under the %g%% threshold (%.1f%% of %s; -t 0 shows them)",
			lo->under_threshold, noun_len(what, lo->under_threshold), what, o->threshold, total > 0 ? 100.0 * (double)lo->under_threshold_cost / total : 0.0, ev);
		sep = ",";
	}
	if (lo->hidden) {
		fprintf(out, "%s %zu%s%.*s hidden by --hide (%.1f%%)", sep, lo->hidden, *sep ? "" : " ",
			*sep ? 0 : noun_len(what, lo->hidden), what,
			total > 0 ? 100.0 * (double)lo->hidden_cost / total : 0.0);
		sep = ",";
	}
	if (lo->past_limit)
		fprintf(out, "%s %zu%s%.*s past --limit %zu (%.1f%%)", sep, lo->past_limit, *sep ? "" : " ",
			*sep ? 0 : noun_len(what, lo->past_limit), what, o->limit,
			total > 0 ? 100.0 * (double)lo->past_limit_cost / total : 0.0);
	fputs(".\n", out);
	free(tot);
}

/* One event's total with its unit: "32 samples", "900 Ir", "5,400
 * minor-faults (54 samples, one per 100)", "1,230,000 ns of time (1.23 s)". */
static void print_total(FILE *out, const plumb_profile *p, int e, uint64_t v)
{
	char buf[32];
	const char *name = plumb_str(p, p->events.v[e].name);
	const char *unit = p->events.v[e].unit != PLUMB_NONE ? plumb_str(p, p->events.v[e].unit) : NULL;
	uint64_t period = plumb_event_period(p, e);
	plumb_format_u64(v, buf, sizeof buf);
	if (period) {
		char sb[32], pb[32];
		fprintf(out, " %s %s (%s samples, one per %s%s%s)", buf, name,
			plumb_format_u64(v / period, sb, sizeof sb), plumb_format_u64(period, pb, sizeof pb),
			unit && strcmp(unit, "events") ? " " : "", unit && strcmp(unit, "events") ? unit : "");
	} else if (unit && *unit && strcmp(unit, name) != 0) {
		fprintf(out, " %s %s of %s", buf, unit, name);
		const char *cunit;
		uint64_t count = plumb_event_count(p, e, &cunit);
		if (count) {
			char cb[32];
			fprintf(out, " (the kernel counted %s%s%s)", plumb_format_u64(count, cb, sizeof cb),
				cunit ? " " : "", cunit ? cunit : "");
		}
	} else {
		fprintf(out, " %s %s", buf, name);
	}
	static const struct { const char *unit; double per_s; } times[] = {
		{ "ns", 1e9 }, { "us", 1e6 }, { "usec", 1e6 }, { "ms", 1e3 },
	};
	for (size_t i = 0; unit && i < sizeof times / sizeof *times; i++)
		if (strcmp(unit, times[i].unit) == 0 && (double)v >= times[i].per_s / 1000)
			fprintf(out, " (%.3g s)", (double)v / times[i].per_s);
}

/* Every total 0: the table below will be empty, so say why rather than
 * print an empty answer without a word. */
static void print_nothing_measured(FILE *out, const plumb_profile *p, const uint64_t *tot)
{
	for (size_t e = 0; e < p->events.n; e++)
		if (tot[e])
			return;
	fputs("\nNothing was measured: every total is 0.", out);
	const char *samples = plumb_meta_get(p, "record.samples");
	if (samples && strcmp(samples, "0") == 0)
		fputs(" The recording took no samples:\nthe program ran for less than one sampling"
		      " period (-F, -c), or with -p\nthe process did not run while it was recorded.",
		      out);
}

/* A line above the table: what was read and the totals. */
static void print_header(FILE *out, const plumb_profile *p, char *const *files, int nfiles, plumb_format fmt,
			 const plumb_view_opts *o)
{
	uint64_t *tot = calloc(p->events.n ? p->events.n : 1, sizeof *tot);
	plumb_error err;
	if (!tot || (o->part == PLUMB_NONE ? plumb_profile_totals(p, tot, &err)
					   : part_totals(p, o->part, tot, &err))) {
		free(tot);
		return;
	}
	/* With --focus, percentages are of the stacks that pass: say both totals. */
	uint64_t *focused = NULL;
	if (o->focus && o->focus->n) {
		focused = calloc(p->events.n ? p->events.n : 1, sizeof *focused);
		if (focused && plumb_focus_totals(p, o->focus, focused, &err)) {
			free(focused);
			focused = NULL;
		}
	}
	fprintf(out, "%s%s (%s)", files[0], nfiles > 1 ? " and others" : "", plumb_format_name(fmt));
	const char *cmd = plumb_meta_get(p, "cmd");
	if (cmd)
		fprintf(out, ", command: %s", cmd);
	if (o->part != PLUMB_NONE)
		fprintf(out, "\nPart %" PRIu32 " of %zu", o->part + 1, p->parts.n);
	fputs("\nTotal:", out);
	for (size_t e = 0; e < p->events.n; e++) {
		if (o->metric >= 0 && (size_t)o->metric != e)
			continue;
		char fbuf[32];
		print_total(out, p, (int)e, tot[e]);
		if (focused)
			fprintf(out, " (%s through --focus)", plumb_format_u64(focused[e], fbuf, sizeof fbuf));
		if (e + 1 < p->events.n && o->metric < 0)
			fputc(',', out);
	}
	if (focused)
		fputs("\nPercentages are of the stacks through --focus.", out);
	print_nothing_measured(out, p, tot);
	print_stack_completeness(out, p);
	fputs("\n\n", out);
	free(focused);
	free(tot);
}

/* The inputs view of the whole profile without charts (which need the
 * points): a store may have its routines kept. */
static bool plain_inputs(const report_args *a)
{
	return !a->select.n && !a->focus.n && !a->part && !a->time && !a->no_inline &&
	       !a->writer->needs_summary && !a->writer->needs_report_views;
}

/* What the report shows: fprof shows instruction addresses; these views,
 * without a spec naming a file or line, functions only; the rest lines. */
static cli_detail report_detail(const report_args *a)
{
	switch (a->view.kind) {
	case PLUMB_VIEW_FPROF:
		return CLI_ADDRESSES;
	case PLUMB_VIEW_FLAT: case PLUMB_VIEW_CALLERS: case PLUMB_VIEW_CALLEES:
	case PLUMB_VIEW_BUTTERFLY: case PLUMB_VIEW_TREE: case PLUMB_VIEW_BOTTOM_UP:
	case PLUMB_VIEW_MODULES: case PLUMB_VIEW_THREADS: case PLUMB_VIEW_FLAME:
		if (a->writer->needs_report_views || a->no_inline || a->time ||
		    cli_names_position(&a->select) || cli_names_position(&a->hide) ||
		    cli_names_position(&a->focus))
			return CLI_LINES;
		/* the flat view of the whole profile: a store may have it kept */
		if (a->view.kind == PLUMB_VIEW_FLAT && !a->writer->needs_summary && !a->focus.n &&
		    !a->part && !a->view.no_cycles)
			return a->view_set || !plain_inputs(a) ? CLI_FLAT : CLI_DEFAULT_VIEW;
		return CLI_FUNCTIONS;
	case PLUMB_VIEW_INPUTS:
		return plain_inputs(a) ? CLI_INPUTS : CLI_LINES;
	default:
		return CLI_LINES;
	}
}

static int run(report_args *a, char *const *files, int nfiles)
{
	plumb_error err;
	plumb_format fmt = PLUMB_FMT_UNKNOWN;
	plumb_profile *p = cli_load_ex(files, nfiles, report_detail(a), &fmt, &err);
	if (!p)
		return cli_fail(&err);
	if (a->no_inline) {
		plumb_profile *folded = NULL;
		if (plumb_profile_fold_inlined(p, &folded, NULL, &err)) {
			plumb_profile_free(p);
			return cli_fail(&err);
		}
		plumb_profile_free(p);
		p = folded;
	}
	char time_note[200] = "";
	if (a->time) {
		plumb_time_range r;
		plumb_profile *slice = NULL;
		uint64_t first = 0, last = 0;
		size_t kept = 0, all = p->samples.n;
		if (plumb_time_range_parse(a->time, &r, &err) || plumb_profile_time_span(p, &first, &last, &err) ||
		    plumb_profile_time_slice(p, &r, &slice, &kept, &err)) {
			cli_error("--time %s: %s: %s", a->time, files[0], err.message);
			plumb_profile_free(p);
			return err.code == PLUMB_ERR_USAGE ? EXIT_USAGE : EXIT_BAD_INPUT;
		}
		plumb_profile_free(p);
		p = slice;
		snprintf(time_note, sizeof time_note, "Time: --time %s, %zu of %zu samples (the recording spans %.3f s)\n",
			 a->time, kept, all, (double)(last - first) / 1e9);
	}
	plumb_profile_drop_lookups(p); /* nothing more is added: tens of MB back */
	int rc = check_specs(a, p, nfiles > 1 ? "the profiles" : files[0]);
	if (rc) {
		plumb_profile_free(p);
		return rc;
	}
	if (a->metric && (a->view.metric = plumb_event_find(p, a->metric)) < 0) {
		char list[512] = "";
		size_t len = 0;
		for (size_t e = 0; e < p->events.n && len < sizeof list - 1; e++)
			len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", e ? ", " : "",
						plumb_str(p, p->events.v[e].name));
		cli_error("no event '%s' in %s (the profile has: %s)", a->metric, files[0],
			  p->events.n ? list : "none");
		plumb_profile_free(p);
		return EXIT_USAGE;
	}
	if (a->part) {
		if (a->part > p->parts.n) {
			cli_error("no part %zu in %s (it has %zu; --view parts lists them)", a->part, files[0],
				  p->parts.n);
			plumb_profile_free(p);
			return EXIT_USAGE;
		}
		a->view.part = (plumb_id)(a->part - 1);
	}
	/* An input-sensitive profile is about growth: its own view by default. */
	if (!a->view_set && (p->points.n > 0 || p->inputs))
		a->view.kind = PLUMB_VIEW_INPUTS;
	a->view.summary = a->writer->needs_summary;
	/* the table is freed before the profile it then points into */
	a->view.rows_on_demand = a->writer->rows_on_demand;
	a->view.report_views = a->writer->needs_report_views;
	plumb_view_left_out left_out = { .event = -1 };
	a->view.left_out = &left_out;
	plumb_table *t = NULL;
	if (plumb_view_build(p, &a->view, &t, &err)) {
		plumb_profile_free(p);
		return cli_fail(&err);
	}
	plumb_text_opts to;
	plumb_text_opts_init(&to);
	plumb_atomic_file af = { 0 };
	FILE *out = stdout;
	if (a->output) {
		if (plumb_atomic_open(&af, a->output, &err)) {
			plumb_table_free(t);
			plumb_profile_free(p);
			return cli_fail(&err);
		}
		out = af.fp;
	}
	if (a->writer->for_terminal) {
		if (!a->output)
			cli_pager_start();
		to.width = a->width >= 0 ? (unsigned)a->width : a->output ? 0 : cli_terminal_width();
		to.color = !a->output && cli_use_color(a->color);
		/* The header wraps to the table's width like the table's notes. */
		char *hb = NULL;
		size_t hn = 0;
		FILE *hf = open_memstream(&hb, &hn);
		if (hf) {
			print_header(hf, p, files, nfiles, fmt, &a->view);
			fputs(time_note, hf);
			fclose(hf);
			plumb_text_write_wrapped(out, hb, to.width, 2);
		}
		free(hb);
	}
	rc = a->writer->write(t, out, &to, &err);
	if (rc == 0 && a->writer->for_terminal && plumb_meta_get(p, "record.sampler")) {
		/* wrapped to the table's width too */
		char *nb = NULL;
		size_t nn = 0;
		FILE *nf = open_memstream(&nb, &nn);
		if (nf) {
			print_left_out(nf, p, &a->view, &left_out);
			fclose(nf);
			plumb_text_write_wrapped(out, nb, to.width, 2);
		}
		free(nb);
	}
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
	if (rc)
		rc = cli_fail(&err);
	plumb_table_free(t);
	plumb_profile_free(p);
	return rc;
}

/* A first "plumb report" in a fresh directory: say how to get a profile. */
static int no_profile_here(void)
{
	cli_error("no profile.plumb here. Record one first:\n"
		  "    plumb record ./myprog [ARGS...]    (then: plumb report)\n"
		  "or name a profile: plumb report FILE (a .plumb, Callgrind, gmon.out, pprof, "
		  "folded stacks or aprof file)");
	return EXIT_BAD_INPUT;
}

int cmd_report(int argc, char **argv)
{
	/* A big table into a file or pipe: 4 KB writes were 12,000 system calls
	 * for a 100 MB Callgrind file's. Before any output, as setvbuf wants;
	 * glibc ignores the size without a buffer. */
	static char outbuf[256 << 10];
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
	report_args a = { .writer = plumb_view_writer_by_name("text"), .color = "auto", .width = -1 };
	plumb_view_opts_init(&a.view);
	int rc = parse_args(argc, argv, &a);
	if (rc == 0) {
		a.view.select = &a.select;
		a.view.hide = &a.hide;
		a.view.focus = &a.focus;
		/* A whole call tree is rarely wanted: trees hide rows under 0.5%. */
		if (!a.threshold_set && (a.view.kind == PLUMB_VIEW_TREE || a.view.kind == PLUMB_VIEW_BOTTOM_UP))
			a.view.threshold = 0.5;
		/* A picture leaves out boxes under 0.1 pixel (0.0085% of its width):
		 * not building them keeps 200,000 stacks at a few hundred MB. */
		if (!a.threshold_set && a.view.kind == PLUMB_VIEW_FLAME && a.writer &&
		    (strcmp(a.writer->name, "svg") == 0 || strcmp(a.writer->name, "html") == 0))
			a.view.threshold = PLUMB_FLAME_PICTURE_THRESHOLD;
		static char *def[] = { "profile.plumb" };
		if (optind < argc)
			rc = run(&a, argv + optind, argc - optind);
		else if (access(def[0], F_OK) != 0 && errno == ENOENT)
			rc = no_profile_here();
		else
			rc = run(&a, def, 1);
	} else if (rc < 0) {
		rc = EXIT_OK; /* --help */
	}
	plumb_symspec_list_free(&a.select);
	plumb_symspec_list_free(&a.hide);
	plumb_symspec_list_free(&a.focus);
	free(a.select_from);
	return rc;
}
