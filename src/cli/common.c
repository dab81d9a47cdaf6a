#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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

plumb_profile *cli_load(char *const *paths, int n, plumb_format *fmt_out, plumb_error *err)
{
	plumb_read_opts ro = { print_warning, NULL };
	plumb_profile *all = NULL;
	for (int i = 0; i < n; i++) {
		plumb_profile *p = plumb_profile_new();
		plumb_format fmt;
		if (!p) {
			plumb_fail_nomem(err);
			goto fail;
		}
		if (plumb_read_file(p, paths[i], &ro, &fmt, err)) {
			plumb_profile_free(p);
			goto fail;
		}
		if (i == 0 && fmt_out)
			*fmt_out = fmt;
		if (!all) {
			all = p;
			continue;
		}
		int rc = plumb_profile_merge(all, p, err);
		plumb_profile_free(p);
		if (rc) {
			/* Say which file did not fit with the others. */
			char msg[sizeof err->message];
			memcpy(msg, err->message, sizeof msg);
			plumb_fail(err, PLUMB_ERR_FORMAT, "%s: %.900s", paths[i], msg);
			goto fail;
		}
	}
	return all;
fail:
	plumb_profile_free(all);
	return NULL;
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
	return isatty(STDOUT_FILENO) && !(term && strcmp(term, "dumb") == 0);
}

unsigned cli_terminal_width(void)
{
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
