#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("plumb: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int cli_fail(const plumb_error *err)
{
	cli_error("%s", err->message);
	return err->code == PLUMB_ERR_USAGE ? EXIT_USAGE : EXIT_BAD_INPUT;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "plumb %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry 'plumb %s --help'.\n", cmd);
	va_end(ap);
	return EXIT_USAGE;
}

static void print_warning(void *ctx, const char *message)
{
	(void)ctx;
	fprintf(stderr, "plumb: warning: %s\n", message);
}

/* An empty file that stands for other files (Callgrind's thread files):
 * those of them not named on the command line; NULL when path is not such a
 * file. The registry row of each format says what its own names are. */
static char **part_files(const char *path, char *const *paths, int n, size_t *count,
			 plumb_error *err)
{
	size_t nf;
	const plumb_format_ops *f = plumb_formats(&nf);
	*count = 0;
	for (size_t i = 0; i < nf; i++) {
		char **v = NULL;
		size_t nv = 0;
		if (!f[i].part_files || f[i].part_files(path, &v, &nv, err) || nv == 0)
			continue;
		size_t kept = 0;
		for (size_t k = 0; k < nv; k++) {
			bool given = false;
			for (int j = 0; j < n; j++)
				given |= strcmp(paths[j], v[k]) == 0;
			if (given)
				free(v[k]);
			else
				v[kept++] = v[k];
		}
		if (kept) {
			*count = kept;
			return v;
		}
		free(v);
	}
	return NULL;
}

/* "a, b and c" of the part files, for the warning. */
static void print_part_files(const char *path, char **v, size_t n)
{
	fprintf(stderr, "plumb: warning: %s is empty (callgrind --separate-threads=yes leaves it "
		"so): reading its %zu part file%s instead:", path, n, n > 1 ? "s" : "");
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s %s", i ? (i + 1 == n ? " and" : ",") : "", v[i]);
	fputc('\n', stderr);
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* Messages name the user's input, not the temporary copy of a pipe. */
static void rename_in_message(plumb_error *err, const char *tmp, const char *name)
{
	char *at = strstr(err->message, tmp);
	if (!at)
		return;
	char msg[sizeof err->message];
	snprintf(msg, sizeof msg, "%.*s%s%s", (int)(at - err->message), err->message, name,
		 at + strlen(tmp));
	memcpy(err->message, msg, sizeof msg);
}

/* Read one input, a pipe or standard input ("-") through a temporary copy. */
static int read_input(plumb_profile *p, const char *path, const plumb_read_opts *ro,
		      plumb_format *fmt, plumb_error *err)
{
	char *tmp;
	if (plumb_spool_input(path, &tmp, err))
		return -1;
	if (!tmp)
		return plumb_read_file(p, path, ro, fmt, err);
	int rc = plumb_read_file(p, tmp, ro, fmt, err);
	if (rc)
		rename_in_message(err, tmp, strcmp(path, "-") == 0 ? "standard input" : path);
	unlink(tmp);
	free(tmp);
	return rc;
}

/* Read one file and add it to *all (which it becomes if NULL). */
static int load_one(plumb_profile **all, const char *path, const plumb_read_opts *ro,
		    plumb_format *fmt, plumb_error *err)
{
	plumb_profile *p = plumb_profile_new();
	if (!p)
		return plumb_fail_nomem(err);
	if (read_input(p, path, ro, fmt, err)) {
		plumb_profile_free(p);
		return -1;
	}
	if (!*all) {
		*all = p;
		return 0;
	}
	int rc = plumb_profile_merge(*all, p, err);
	plumb_profile_free(p);
	/* each file fits (plumb_read_file checked it); their sum may not */
	if (rc == 0 && plumb_check_totals(*all, path, err))
		return -1;
	if (rc) {
		/* Say which file did not fit with the others. */
		char msg[sizeof err->message];
		memcpy(msg, err->message, sizeof msg);
		plumb_fail(err, PLUMB_ERR_FORMAT, "%s: %.900s", path, msg);
	}
	return rc;
}

static const char *executable; /* --exe */
static const char *folded_event, *folded_unit; /* --event-name, --unit */

void cli_set_executable(const char *path)
{
	executable = path;
}

void cli_set_folded_event(const char *name, const char *unit)
{
	if (name)
		folded_event = name;
	if (unit)
		folded_unit = unit;
}

bool cli_names_position(const plumb_symspec_list *l)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (l->v[i].file || l->v[i].line)
			return true;
	return false;
}

plumb_profile *cli_load_ex(char *const *paths, int n, cli_detail detail, plumb_format *fmt_out,
			   plumb_error *err)
{
	bool views = n == 1; /* profiles added up need their costs and points */
	plumb_read_opts ro = { .warn = print_warning, .lines_only = detail != CLI_ADDRESSES,
			       .functions_only = detail >= CLI_FUNCTIONS,
			       .flat_only = views && detail >= CLI_FLAT,
			       .inputs_only = views && (detail == CLI_INPUTS || detail == CLI_DEFAULT_VIEW),
			       .executable = executable,
			       .event_name = folded_event, .event_unit = folded_unit };
	cli_progress_setup(&ro);
	plumb_profile *all = NULL;
	for (int i = 0; i < n; i++) {
		plumb_format fmt = PLUMB_FMT_UNKNOWN;
		size_t ns = 0;
		char **sib = part_files(paths[i], paths, n, &ns, err);
		if (sib)
			print_part_files(paths[i], sib, ns);
		int rc = 0;
		if (sib)
			ro.flat_only = ro.inputs_only = false; /* parts added up */
		for (size_t k = 0; rc == 0 && k < ns; k++)
			rc = load_one(&all, sib[k], &ro, &fmt, err);
		free_list(sib, ns);
		if (rc == 0 && !sib)
			rc = load_one(&all, paths[i], &ro, &fmt, err);
		if (rc)
			goto fail;
		if ((folded_event || folded_unit) && fmt != PLUMB_FMT_FOLDED) {
			plumb_fail(err, PLUMB_ERR_USAGE, "%s: --event-name and --unit name the counts of "
				   "folded stacks; this is %s, whose events are named in it", paths[i],
				   plumb_format_name(fmt));
			goto fail;
		}
		if (i == 0 && fmt_out)
			*fmt_out = fmt;
	}
	return all;
fail:
	plumb_profile_free(all);
	return NULL;
}

plumb_profile *cli_load(char *const *paths, int n, plumb_format *fmt_out, plumb_error *err)
{
	return cli_load_ex(paths, n, CLI_ADDRESSES, fmt_out, err);
}

int cli_parse_size(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	if (!*s || *s == '-')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = (size_t)v;
	return 0;
}

int cli_parse_pct(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || (*end && strcmp(end, "%") != 0) || !(v >= 0 && v <= 100))
		return -1;
	*out = v;
	return 0;
}

bool cli_use_color(const char *when)
{
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		return false;
	if (strcmp(when, "always") == 0)
		return true;
	if (strcmp(when, "never") == 0)
		return false;
	const char *term = getenv("TERM");
	return cli_stdout_is_terminal() && !(term && strcmp(term, "dumb") == 0);
}

unsigned cli_terminal_width(void)
{
	if (cli_paged_width())
		return cli_paged_width();
	if (!isatty(STDOUT_FILENO))
		return 0; /* piped: never cut a name */
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	const char *cols = getenv("COLUMNS");
	size_t n;
	if (cols && cli_parse_size(cols, &n) == 0 && n > 0 && n < 100000)
		return (unsigned)n;
	return 80;
}
