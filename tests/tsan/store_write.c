/* The .plumb store's writer, whose kept views (flat metrics, inputs
 * routines), lines table, function summaries and function-level sums are
 * built on the jobs' helper threads while the caller writes (store.c,
 * store_views.c, store_encode.c), under ThreadSanitizer (make
 * tsan; a plain program, as Criterion's runner cannot run under it). Each
 * FILE is read, written to DIR/N.plumb and read back: the totals, the
 * functions and the frames must be the same. Exit 0 when they are, 1
 * otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/formats.h"
#include "plumb/store.h"

/* p's totals per event, or NULL (the message printed). */
static uint64_t *totals(const plumb_profile *p, const char *what)
{
	plumb_error err;
	uint64_t *t = calloc(p->events.n + 1, sizeof *t);
	if (t && plumb_profile_totals(p, t, &err) == 0)
		return t;
	fprintf(stderr, "tsan-store: %s: %s\n", what, t ? err.message : "out of memory");
	free(t);
	return NULL;
}

static int check(const char *in, const char *out)
{
	plumb_profile *p = plumb_profile_new(), *q = plumb_profile_new();
	plumb_error err;
	int bad = 1;
	if (plumb_read_file(p, in, NULL, NULL, &err) != 0 || plumb_store_write(p, out, &err) != 0 ||
	    plumb_store_read(q, out, NULL, &err) != 0) {
		fprintf(stderr, "tsan-store: %s: %s\n", in, err.message);
		goto done;
	}
	uint64_t *a = totals(p, in), *b = totals(q, out);
	if (a && b && p->events.n == q->events.n &&
	    memcmp(a, b, p->events.n * sizeof *a) == 0 && p->functions.n == q->functions.n &&
	    p->frames.n == q->frames.n)
		bad = 0;
	else
		fprintf(stderr, "tsan-store: %s: read back from %s with other totals, functions "
			"or frames\n", in, out);
	free(a);
	free(b);
done:
	plumb_profile_free(p);
	plumb_profile_free(q);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: tsan-store DIR FILE...\n");
		return 2;
	}
	int bad = 0;
	for (int i = 2; i < argc; i++) {
		char out[4096];
		snprintf(out, sizeof out, "%s/%d.plumb", argv[1], i);
		bad |= check(argv[i], out);
		remove(out);
	}
	if (!bad)
		printf("tsan-store: %d files written and read back alike\n", argc - 2);
	return bad;
}
