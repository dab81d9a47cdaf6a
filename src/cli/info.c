/* plumb info: what a profile file holds. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "plumb/output.h"

static const char info_help[] =
	"usage: plumb info [options] FILE...\n"
	"\n"
	"Describe a profile: its format, events, parts (threads, processes, dumps),\n"
	"how many functions, frames, contexts, arcs and samples it has, and the total\n"
	"of each event; for an input-sensitive profile (aprof), how many performance\n"
	"points it has and what they were measured with.\n"
	"\n"
	"Options:\n"
	"  -f, --format FORMAT  text (default) or json\n"
	"  -q, --quiet          no progress line on stderr (shown on a terminal\n"
	"                       for reads over a second)\n"
	"  -h, --help           this help\n"
	"      --no-pager       never page (on a terminal: $PLUMB_PAGER, $PAGER or\n"
	"                       less -FRX)\n"
	"\n"
	"Example:\n"
	"  plumb info profile.plumb\n";

/* An input-sensitive profile: performance points, or the header of a
 * report that had none. */
static bool has_points(const plumb_profile *p)
{
	return p->points.n > 0 || p->points_info.version >= 0;
}

typedef struct count {
	const char *key, *title;
	size_t n;
} count;

static void print_text(const plumb_profile *p, const char *file, plumb_format fmt,
		       const uint64_t *tot, const count *counts, size_t ncounts)
{
	char buf[32];
	printf("File:      %s\nFormat:    %s\n", file, plumb_format_name(fmt));
	for (size_t i = 0; i < p->meta.n; i++)
		printf("%-10s %s\n", plumb_str(p, p->meta.v[i].key), plumb_str(p, p->meta.v[i].value));
	printf("Events:    %zu\n", p->events.n);
	for (size_t e = 0; e < p->events.n; e++) {
		const plumb_event *ev = &p->events.v[e];
		printf("  %-14s %20s", plumb_str(p, ev->name), plumb_format_u64(tot[e], buf, sizeof buf));
		if (ev->unit != PLUMB_NONE)
			printf(" %s", plumb_str(p, ev->unit));
		if (ev->long_name != PLUMB_NONE)
			printf("  (%s)", plumb_str(p, ev->long_name));
		if (ev->formula != PLUMB_NONE)
			printf("  = %s", plumb_str(p, ev->formula));
		putchar('\n');
	}
	for (size_t i = 0; i < ncounts; i++)
		printf("%-10s %s\n", counts[i].title, plumb_format_u64(counts[i].n, buf, sizeof buf));
	if (!has_points(p))
		return;
	/* what the points were measured with: aprof's i, t, k and v lines */
	const plumb_points_info *pi = &p->points_info;
	const char *metric = plumb_str(p, pi->input_metric);
	printf("%-10s %s\n", "Points:", plumb_format_u64(p->points.n, buf, sizeof buf));
	printf("  %-18s %s\n", "input metric", metric ? metric : "-");
	if (pi->memres)
		printf("  %-18s %u byte%s\n", "memory resolution", pi->memres, pi->memres == 1 ? "" : "s");
	else
		printf("  %-18s -\n", "memory resolution");
	/* k 0: no k line (the model keeps no other mark of it) */
	printf("  %-18s %s\n", "total cost (k)",
	       pi->total_cost ? plumb_format_u64(pi->total_cost, buf, sizeof buf) : "-");
	if (pi->version >= 0)
		printf("  %-18s %d\n", "report version", pi->version);
	else
		printf("  %-18s -\n", "report version");
}

/* The points part of the JSON: null for a profile without points. */
static void print_json_points(const plumb_profile *p)
{
	fputs(",\n \"points\": ", stdout);
	if (!has_points(p)) {
		fputs("null", stdout);
		return;
	}
	const plumb_points_info *pi = &p->points_info;
	printf("{\"count\": %zu, \"input_metric\": ", p->points.n);
	const char *metric = plumb_str(p, pi->input_metric);
	if (metric)
		plumb_json_write_string(stdout, metric);
	else
		fputs("null", stdout);
	if (pi->memres)
		printf(", \"memory_resolution\": %u", pi->memres);
	else
		fputs(", \"memory_resolution\": null", stdout);
	if (pi->total_cost)
		printf(", \"total_cost\": %" PRIu64, pi->total_cost);
	else
		fputs(", \"total_cost\": null", stdout);
	if (pi->version >= 0)
		printf(", \"version\": %d}", pi->version);
	else
		fputs(", \"version\": null}", stdout);
}

static void print_json(const plumb_profile *p, const char *file, plumb_format fmt,
		       const uint64_t *tot, const count *counts, size_t ncounts)
{
	fputs("{\"format\": \"plumb-info\", \"version\": 1, \"file\": ", stdout);
	plumb_json_write_string(stdout, file);
	printf(", \"input_format\": \"%s\",\n \"events\": [", plumb_format_name(fmt));
	for (size_t e = 0; e < p->events.n; e++) {
		const plumb_event *ev = &p->events.v[e];
		fputs(e ? ", {\"name\": " : "{\"name\": ", stdout);
		plumb_json_write_string(stdout, plumb_str(p, ev->name));
		printf(", \"total\": %" PRIu64 "}", tot[e]);
	}
	fputs("],\n \"counts\": {", stdout);
	for (size_t i = 0; i < ncounts; i++)
		printf("%s\"%s\": %zu", i ? ", " : "", counts[i].key, counts[i].n);
	fputs("},\n \"metadata\": {", stdout);
	for (size_t i = 0; i < p->meta.n; i++) {
		fputs(i ? ", " : "", stdout);
		plumb_json_write_string(stdout, plumb_str(p, p->meta.v[i].key));
		fputs(": ", stdout);
		plumb_json_write_string(stdout, plumb_str(p, p->meta.v[i].value));
	}
	fputc('}', stdout);
	print_json_points(p);
	fputc('}', stdout);
}

/* sep is printed before the description, once the file has been read. */
static int info_one(const char *file, bool json, const char *sep)
{
	plumb_error err;
	plumb_format fmt;
	char *files[] = { (char *)file };
	plumb_profile *p = cli_load(files, 1, &fmt, &err);
	if (!p)
		return cli_fail(&err);
	uint64_t *tot = calloc(p->events.n ? p->events.n : 1, sizeof *tot);
	if (!tot || plumb_profile_totals(p, tot, &err)) {
		if (!tot)
			plumb_fail_nomem(&err);
		free(tot);
		plumb_profile_free(p);
		return cli_fail(&err);
	}
	const count counts[] = {
		{ "parts", "Parts:", p->parts.n },
		{ "modules", "Modules:", p->modules.n },
		{ "files", "Files:", p->files.n },
		{ "functions", "Functions:", p->functions.n },
		{ "frames", "Frames:", p->frames.n },
		{ "contexts", "Contexts:", p->cct.n - p->parts.n },
		{ "call_graph_costs", "CG costs:", p->cg_self.n },
		{ "arcs", "Arcs:", p->arcs.n },
		{ "samples", "Samples:", p->samples.n },
	};
	size_t nc = sizeof counts / sizeof *counts;
	fputs(sep, stdout);
	if (json) {
		print_json(p, file, fmt, tot, counts, nc);
		putchar('\n');
	}
	else
		print_text(p, file, fmt, tot, counts, nc);
	free(tot);
	plumb_profile_free(p);
	return EXIT_OK;
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "no-pager", no_argument, NULL, 'P' },
		{ 0 },
	};
	bool json = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "text"))
				return cli_unknown_word("info", "format", optarg, "text, json");
			json = strcmp(optarg, "json") == 0;
			break;
		case 'q':
			cli_set_quiet(true);
			break;
		case 'h':
			fputs(info_help, stdout);
			return EXIT_OK;
		case 'P':
			cli_pager_disable();
			break;
		case ':':
			return cli_usage_error("info", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_unknown_option("info", argv[optind - 1], longopts);
		}
	}
	if (optind >= argc)
		return cli_usage_error("info", "no input file");
	cli_pager_start(); /* a terminal only: a recording's metadata runs long */
	/* Several files: a blank line between texts, a JSON array for json. */
	int rc = EXIT_OK, shown = 0;
	bool array = json && argc - optind > 1;
	if (array)
		fputs("[\n", stdout);
	for (int i = optind; i < argc; i++) {
		const char *sep = !shown ? "" : json ? ",\n" : "\n";
		int r = info_one(argv[i], json, sep);
		if (r > rc)
			rc = r;
		else if (r == EXIT_OK)
			shown++;
	}
	if (array)
		fputs("]\n", stdout);
	return rc;
}
