/* Callgrind reader on two cores: the file in two pieces, read at once by
 * two copies of the serial reader (callgrind_read.c), then merged.
 *
 * The split. A piece starts at a line that needs nothing of the state the
 * lines before it leave, except what a cheap skim of them gives:
 *  - the line before is a cost line, so no calls= or jump is waiting;
 *  - from the split on come only ob=/fl=/fi=/fe=/fn= lines (at least one
 *    fn=), then a cost line whose every column is absolute ("0x40 12 3",
 *    no "+2", "-1" or "*"), so the base of relative positions is moot.
 * Files without such a line near the middle, compressed files, files under
 * PAR_MIN bytes, reads that are not functions_only, profiles that are not
 * empty, and a machine with no CPU free (plumb_jobs_cpu_free: the skim
 * costs CPU, which only pays on an idle core) are read serially: the
 * serial reader stays the reference.
 *
 * The pieces. The first piece is read on the caller's thread into p, up to
 * the split (cg_reader.stop_at). The second is read as a job (jobs.h) into
 * its own profile: its reader skims the first piece (header lines and the
 * name lines in full, so the events, parts, `(id) name` tables and
 * ob/fl/fi/fn context are exactly the serial reader's; cost, calls= and
 * jump lines only for what they do to names), counting its lines so line
 * numbers are the file's; from the split on (cg_reader.start_at) it reads
 * as the serial reader does.
 *
 * The merge. plumb_profile_merge_piece maps the second profile into p:
 * its first parts are p's, new functions, frames, entries and arcs come
 * after p's in the order the serial reader would have made them. What a
 * piece cannot know alone is settled here: the section split between the
 * pieces checks its totals: with both pieces' sums (cg_totals), jumps add
 * up, the later piece's metadata wins where the serial reader keeps the
 * last value. Warnings are held per piece and given in file order.
 *
 * Errors. An error in the first piece is the file's first: it is returned
 * as is. On any other doubt (an error in the second piece, sums that
 * overflow once added, a new section in the second piece before any cost
 * was known) p is emptied and the file read again serially, so messages
 * and line numbers are always the serial reader's.
 *
 * Tests force a split on small files: PLUMB_CG_SPLIT=N (0 to 100) splits
 * at the first safe line from N% of the file on, whatever its size (for
 * tests and fuzzing only; it is not a user setting). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/callgrind_read.h"
#include "formats/jobs.h"
#include "model/index.h"


#define PAR_MIN ((off_t)16 << 20) /* smaller files: a thread is not worth it */
#define PAR_AT 60                 /* split here (%): the second piece also skims the first */
#define PAR_WINDOW (1 << 20)      /* bytes searched for a safe split */

/* ---- the split -------------------------------------------------------------- */

static bool is_cost_start(char c)
{
	return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*';
}

/* s..e (a line without '\n') has only numbers: "0x1f 12 30". */
static bool all_absolute(const char *s, const char *e)
{
	bool start = true;
	for (; s < e; s++) {
		char c = *s;
		if (c == ' ' || c == '\t') {
			start = true;
			continue;
		}
		bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') ||
			   c == 'x' || c == 'X';
		if (!hex || (start && !(c >= '0' && c <= '9')))
			return false;
		start = false;
	}
	return true;
}

static bool context_line(const char *s, const char *e)
{
	static const char *const keys[] = { "fn=", "fl=", "fi=", "fe=", "ob=" };
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (e - s >= 3 && memcmp(s, keys[i], 3) == 0)
			return true;
	return false;
}

/* Is the line at b[at] a safe split (see the top)? b[0..n) holds it, the
 * line before and the lines up to its first cost line. */
static bool safe_split(const char *b, size_t n, size_t at)
{
	if (at < 2 || b[at - 1] != '\n')
		return false;
	size_t prev = at - 1;
	while (prev > 0 && b[prev - 1] != '\n')
		prev--;
	if (prev == 0 || !is_cost_start(b[prev]))
		return false; /* (the window's first line may be cut: not used) */
	bool fn = false;
	for (size_t s = at; s < n;) {
		const char *nl = memchr(b + s, '\n', n - s);
		if (!nl)
			return false;
		const char *ls = b + s, *le = nl;
		if (ls < le && is_cost_start(*ls))
			return fn && all_absolute(ls, le);
		if (!context_line(ls, le))
			return false;
		fn |= ls[0] == 'f' && ls[1] == 'n';
		s = (size_t)(nl - b) + 1;
	}
	return false;
}

/* The byte offset of a safe split from pct% of the file on, or 0. */
static off_t find_split(int fd, off_t size, int pct)
{
	off_t from = size / 100 * pct + size % 100 * pct / 100;
	from = from > 4096 ? from - 4096 : 0; /* room for the line before */
	size_t want = (size_t)(size - from < PAR_WINDOW ? size - from : PAR_WINDOW);
	char *b = malloc(want ? want : 1);
	if (!b)
		return 0;
	size_t n = 0;
	while (n < want) {
		ssize_t got = pread(fd, b + n, want - n, from + (off_t)n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	off_t split = 0;
	size_t start = from > 0 ? 4096 : 0;
	for (size_t at = start; at + 3 < n && !split;) {
		const char *hit = memchr(b + at, '\n', n - at);
		if (!hit)
			break;
		at = (size_t)(hit - b) + 1;
		if (at + 3 < n && memcmp(b + at, "fn=", 3) == 0) {
			/* the split is before the context lines that precede this fn= */
			size_t s = at;
			while (s > 0) {
				size_t p = s - 1;
				while (p > 0 && b[p - 1] != '\n')
					p--;
				if (!context_line(b + p, b + s - 1))
					break;
				s = p;
			}
			if (s > 0 && safe_split(b, n, s))
				split = from + (off_t)s;
		}
	}
	free(b);
	return split;
}

/* ---- warnings held per piece ------------------------------------------------ */

typedef struct warnbuf {
	char **msg;         /* NULL: the deferred totals check goes here */
	size_t n, cap;
	bool lost;          /* out of memory: some were dropped */
} warnbuf;

static void hold_warning(void *ctx, const char *m)
{
	warnbuf *w = ctx;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		char **v = realloc(w->msg, cap * sizeof *v);
		if (!v) {
			w->lost = true;
			return;
		}
		w->msg = v;
		w->cap = cap;
	}
	char *d = NULL;
	if (m && !(d = strdup(m))) {
		w->lost = true;
		return;
	}
	w->msg[w->n++] = d;
}

static void warnbuf_free(warnbuf *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->msg[i]);
	free(w->msg);
}

/* ---- the pieces -------------------------------------------------------------- */

typedef struct piece {
	plumb_job job;        /* first: the job is the piece */
	cg_reader r;
	plumb_profile *p;
	plumb_error err;
	plumb_read_opts skim_opts, opts;
	warnbuf warns;
	int rc;
} piece;

/* The second piece, on its own thread: to the end of the file, and the end
 * of its last section. */
static void read_second(plumb_job *job, unsigned worker)
{
	(void)worker;
	piece *pc = (piece *)job;
	pc->rc = cg_read_piece(&pc->r) || cg_end_section(&pc->r) ? -1 : 0;
}

static void piece_init(piece *pc, plumb_profile *p, const char *path, const plumb_read_opts *opts)
{
	memset(pc, 0, sizeof *pc);
	pc->p = p;
	pc->opts = *opts;
	pc->opts.warn = hold_warning;
	pc->opts.warn_ctx = &pc->warns;
	pc->opts.progress = NULL;
	pc->skim_opts = pc->opts;
	pc->skim_opts.warn = NULL; /* the first piece gives those */
	cg_reader_init(&pc->r, p, path, &pc->opts, &pc->err);
}

static void piece_free(piece *pc)
{
	cg_reader_free(&pc->r);
	warnbuf_free(&pc->warns);
}

/* Give the held warnings to the caller; the NULL mark is where the split
 * section's totals: check goes (first's reader, with the caller's opts). */
static void give_warnings(const warnbuf *w, const plumb_read_opts *opts, cg_reader *checker,
			  const cg_totals *t)
{
	for (size_t i = 0; i < w->n; i++) {
		if (w->msg[i] && opts->warn)
			opts->warn(opts->warn_ctx, w->msg[i]);
		else if (!w->msg[i] && t && t->totals)
			cg_check_totals(checker, t);
	}
}

/* The split section's sums: the first piece's added to the second's. */
static bool add_sums(cg_totals *t, const uint64_t *first, size_t nev)
{
	for (size_t i = 0; i < nev; i++)
		if (__builtin_add_overflow(t->sum[i], first[i], &t->sum[i]))
			return false;
	return true;
}

/* Everything after both pieces are read: 0, -1 (err set), or 1: read it
 * serially. */
static int combine(piece *a, piece *b, plumb_profile *p, const plumb_read_opts *opts,
		   plumb_error *err)
{
	cg_reader *r1 = &a->r, *r2 = &b->r;
	if (b->rc || r2->skim || b->warns.lost || a->warns.lost)
		return 1;
	/* a new section of the second piece took costs to have started */
	if (r2->nsection > r2->piece_section && !p->costs_started)
		return 1;
	if (r2->deferred && !add_sums(r2->deferred, r1->sum, p->events.n))
		return 1; /* the serial reader stops where the sum overflows */
	if (plumb_profile_merge_piece(p, b->p, err))
		return -1;
	/* header values the serial reader keeps the last of (totals:,
	 * summary:); the first-only ones are the same in both */
	for (size_t i = 0; i < b->p->meta.n; i++)
		if (plumb_meta_set(p, plumb_str(b->p, b->p->meta.v[i].key),
				   plumb_str(b->p, b->p->meta.v[i].value), err))
			return -1;
	r1->opts = opts;
	give_warnings(&a->warns, opts, r1, NULL);
	give_warnings(&b->warns, opts, r1, r2->deferred);
	/* the metadata of the whole file: the second reader has seen it all */
	r2->jumps += r1->jumps;
	r2->opts = opts;
	r2->p = p;
	r2->err = err;
	r2->lineno = 0;
	return cg_finish_meta(r2) || plumb_profile_compute_derived(p, err) ? -1 : 0;
}

static int split_pct(void)
{
	const char *v = getenv("PLUMB_CG_SPLIT");
	if (!v || !*v)
		return -1;
	char *end;
	long n = strtol(v, &end, 10);
	return *end || n < 0 || n > 100 ? -1 : (int)n;
}

int cg_read_parallel(plumb_profile *p, const char *path, const plumb_read_opts *opts,
		     plumb_error *err)
{
	if (!opts->functions_only || !plumb_profile_is_empty(p))
		return 1;
	int forced = split_pct();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1; /* the serial reader says why */
	struct stat st;
	unsigned char head[4];
	off_t split = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (forced >= 0 || (st.st_size >= PAR_MIN && plumb_jobs_cpu_free())) &&
	    pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head &&
	    plumb_compression_of(head, sizeof head) == PLUMB_COMP_NONE)
		split = find_split(fd, st.st_size, forced >= 0 ? forced : PAR_AT);
	close(fd);
	if (split <= 0)
		return 1;

	piece *a = malloc(sizeof *a), *b = malloc(sizeof *b);
	plumb_profile *p2 = plumb_profile_new();
	if (!a || !b || !p2) {
		free(a);
		free(b);
		plumb_profile_free(p2);
		return 1;
	}
	piece_init(a, p, path, opts);
	a->r.stop_at = (uint64_t)split;
	a->opts.progress = opts->progress; /* the caller's thread reports */
	piece_init(b, p2, path, opts);
	b->r.start_at = (uint64_t)split;
	b->r.opts = &b->skim_opts;
	b->r.piece_opts = &b->opts;

	plumb_jobs q;
	plumb_jobs_start(&q);
	b->job.run = read_second;
	plumb_jobs_add(&q, &b->job);
	a->rc = cg_read_piece(&a->r) || cg_flush_self(&a->r) ? -1 : 0;
	plumb_jobs_wait(&q);

	int rc;
	if (a->rc) { /* the file's first error: the serial reader stops there too */
		give_warnings(&a->warns, opts, &a->r, NULL);
		*err = a->err;
		rc = -1;
	} else {
		rc = combine(a, b, p, opts, err);
		if (rc == 0 && opts->progress) /* the second piece's bytes are read too */
			opts->progress(opts->progress_ctx, path, (uint64_t)st.st_size,
				       (uint64_t)st.st_size);
	}
	piece_free(a);
	piece_free(b);
	plumb_profile_free(p2);
	free(a);
	free(b);
	if (rc == 1 && plumb_profile_reset(p, err))
		return -1;
	return rc;
}
