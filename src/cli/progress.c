/* The progress line of long reads and writes: "plumb: reading big.out: 45.1 of 100.6
 * MB, 52.3 MB/s, 1 s left" ("writing out.plumb: 12.0 MB, 40.1 MB/s": a
 * write's size is not known ahead) on stderr, rewritten in place. Shown only when
 * stderr is a terminal, once a file has taken a second (short reads stay
 * silent; PLUMB_PROGRESS_AFTER=SECONDS changes that for tests), never when
 * CI is set or TERM is dumb; --quiet silences it. The
 * library reports bytes through plumb_read_opts.progress; this file only
 * prints. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

#define SHOW_AFTER 1.0   /* seconds before a read gets a line */
#define REDRAW_EVERY 0.2 /* seconds between redraws */

static bool quiet;
static double show_after = SHOW_AFTER;

static struct {
	char path[256];  /* the file being read */
	double start, last;
	bool shown;      /* a line is on the terminal */
} st;

void cli_set_quiet(bool q)
{
	quiet = q;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void clear_line(void)
{
	if (st.shown)
		fputs("\r\033[K", stderr);
	st.shown = false;
}

/* ctx: the verb, "writing"; NULL for reads. */
static void progress(void *ctx, const char *path, uint64_t done, uint64_t total)
{
	double t = now();
	if (strncmp(st.path, path, sizeof st.path - 1) != 0) {
		clear_line();
		snprintf(st.path, sizeof st.path, "%s", path);
		st.start = t;
		st.last = 0;
	}
	if (done == total) { /* the end of this file */
		clear_line();
		st.path[0] = '\0';
		return;
	}
	double el = t - st.start;
	if (el < show_after || t - st.last < REDRAW_EVERY)
		return;
	st.last = t;
	double mb = 1e6, rate = (double)done / el;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	fprintf(stderr, "\r\033[Kplumb: %s %.60s: %.1f", ctx ? (const char *)ctx : "reading", base,
		(double)done / mb);
	if (total)
		fprintf(stderr, " of %.1f", (double)total / mb);
	fputs(" MB", stderr);
	if (el > 0)
		fprintf(stderr, ", %.1f MB/s", rate / mb);
	if (el > 0 && total > done && rate > 0)
		fprintf(stderr, ", %.0f s left", (double)(total - done) / rate + 0.5);
	fflush(stderr);
	st.shown = true;
}

static bool wanted(void)
{
	const char *ci = getenv("CI"), *term = getenv("TERM");
	if (quiet || (ci && *ci) || (term && strcmp(term, "dumb") == 0) || !isatty(STDERR_FILENO))
		return false;
	/* the tests show it on small files */
	const char *after = getenv("PLUMB_PROGRESS_AFTER");
	if (after && *after)
		show_after = atof(after);
	return true;
}

void cli_progress_setup(plumb_read_opts *ro)
{
	if (!wanted())
		return;
	ro->progress = progress;
	ro->progress_ctx = NULL;
}

void cli_progress_write_setup(plumb_write_progress *wp)
{
	static char writing[] = "writing";
	*wp = (plumb_write_progress){ NULL, NULL };
	if (wanted())
		*wp = (plumb_write_progress){ progress, writing };
}
