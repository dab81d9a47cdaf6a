/* libFuzzer target for the reader of the signal sampler's files
 * (src/record/signal_read.c; format in src/preload/format.h), the input
 * being the whole file, and for the wait records it hands on
 * (plumb_rec_waits_finish: WAIT, WAITHELD, WAITCFG).
 *
 * Besides "never crash, leak or hang", it checks that
 * - the file read from disk, the bytes read from memory and the bytes at an
 *   odd address (chains copied, not used in place) give the same result:
 *   the same error, or the same samples, chains, maps, threads and counts;
 * - the counts the reader returns are those of what it added: samples, and
 *   periods as the sum of their weights;
 * - reading with pc_only gives the same samples, each chain cut to its
 *   first address;
 * - a prefix of the file (as a killed process leaves) reads as a prefix:
 *   its samples are the first ones of the whole file, and if it fails, the
 *   whole file fails with the same message;
 * - a file that reads turns its waits into samples, or fails only where a
 *   time passes 64 bits (a damaged file's waits can);
 * - the heap records of a file that reads (src/record/heap_read.c, which
 *   relies on this reader's framing checks) give the same error, or the
 *   same samples and metadata, from memory and from the mapped file.
 *
 * `make $(BUILD)/fuzz-signal_read` builds it with fuzz/replay.c (make check
 * runs it over tests/fuzz/signal_read); `make fuzz FUZZ_TARGETS=signal_read`
 * fuzzes it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/format.h"
#include "record/heap.h"
#include "record/signal_read.h"
#include "roundtrip.h"

typedef struct result {
	plumb_rec_data *d;
	plumb_sig_info info;
	plumb_heap_info heap;
	int rc;
	plumb_error err;
	unsigned warnings;
} result;

static void count_warning(void *ctx, const char *m)
{
	(void)m;
	((result *)ctx)->warnings++;
}

static void start(result *r)
{
	memset(r, 0, sizeof *r);
	if (!(r->d = plumb_rec_data_new()) || plumb_rec_event_add(r->d, "cpu-clock", &r->err) != 0)
		abort();
}

static void from_buffer(result *r, const uint8_t *p, size_t n, bool pc_only)
{
	start(r);
	r->rc = plumb_sig_read_buffer("f", p, n, r->d, 0, pc_only, &r->info, count_warning, r, &r->err);
}

/* A message that names the file named "f" like the buffers. */
static void rename_file(result *r, const char *path)
{
	size_t l = strlen(path);
	if (r->rc == 0)
		return;
	if (strncmp(r->err.message, path, l) != 0)
		abort();
	memmove(r->err.message + 1, r->err.message + l, strlen(r->err.message + l) + 1);
	r->err.message[0] = 'f';
}

static void from_file(result *r, const uint8_t *p, size_t n)
{
	const char *path = fuzz_put_temp(p, n);
	start(r);
	r->rc = plumb_sig_read_file(path, r->d, 0, false, &r->info, count_warning, r, &r->err);
	rename_file(r, path);
}

/* The heap records (plumb record --heap reads them once the signal reader
 * took the file), from memory or from the file (mapped). */
static void heap_from(result *r, const uint8_t *p, size_t n, bool file)
{
	start(r);
	int first = plumb_heap_events_add(r->d, &r->err);
	if (first < 0)
		abort();
	if (!file) {
		r->rc = plumb_heap_read_buffer("f", p, n, r->d, (uint32_t)first, &r->heap, &r->err);
		return;
	}
	const char *path = fuzz_put_temp(p, n);
	r->rc = plumb_heap_read_file(path, r->d, (uint32_t)first, &r->heap, &r->err);
	rename_file(r, path);
}

static void done(result *r)
{
	plumb_rec_data_free(r->d);
}

/* Sample i of a and of b; with first_only, b's chain is a's first address. */
static bool same_sample(const result *a, const result *b, size_t i, bool first_only)
{
	const plumb_rec_sample *x = &a->d->samples.v[i], *y = &b->d->samples.v[i];
	uint32_t n = first_only && x->nips > 1 ? 1 : x->nips;
	return x->pid == y->pid && x->tid == y->tid && x->time_ns == y->time_ns &&
	       x->event == y->event && x->flags == y->flags && x->weight == y->weight &&
	       n == y->nips && /* no chain at all: ips.v may be NULL */
	       (n == 0 || memcmp(a->d->ips.v + x->ips, b->d->ips.v + y->ips, n * sizeof(uint64_t)) == 0);
}

static void check_same(const result *a, const result *b, bool first_only)
{
	if (a->rc != b->rc || a->warnings != b->warnings)
		abort();
	if (a->rc != 0) {
		if (a->err.code != b->err.code || strcmp(a->err.message, b->err.message) != 0)
			abort();
		return;
	}
	const plumb_rec_data *x = a->d, *y = b->d;
	if (memcmp(&a->info, &b->info, sizeof a->info) != 0 ||
	    memcmp(&a->heap, &b->heap, sizeof a->heap) != 0 || x->samples.n != y->samples.n ||
	    x->meta.n != y->meta.n ||
	    x->maps.n != y->maps.n || x->threads.n != y->threads.n ||
	    plumb_rec_waits_count(x) != plumb_rec_waits_count(y))
		abort();
	for (size_t i = 0; i < x->samples.n; i++)
		if (!same_sample(a, b, i, first_only))
			abort();
	for (size_t i = 0; i < x->maps.n; i++) {
		const plumb_rec_map *m = &x->maps.v[i], *k = &y->maps.v[i];
		if (m->pid != k->pid || m->start != k->start || m->end != k->end ||
		    m->pgoff != k->pgoff || m->time_ns != k->time_ns || m->end_ns != k->end_ns ||
		    strcmp(m->path, k->path) != 0)
			abort();
	}
	for (size_t i = 0; i < x->meta.n; i++)
		if (strcmp(x->meta.v[i], y->meta.v[i]) != 0)
			abort();
	for (size_t i = 0; i < x->threads.n; i++) {
		const plumb_rec_thread *t = &x->threads.v[i], *u = &y->threads.v[i];
		if (t->pid != u->pid || t->tid != u->tid || strcmp(t->name, u->name) != 0 ||
		    t->start_routine != u->start_routine)
			abort();
	}
}

/* What the reader says it read is what it added. */
static void check_counts(const result *r)
{
	if (r->rc != 0)
		return;
	uint64_t periods = 0;
	for (size_t i = 0; i < r->d->samples.n; i++)
		periods += r->d->samples.v[i].weight;
	if (r->info.samples != r->d->samples.n || r->info.periods != periods ||
	    r->info.unfinished > r->info.images)
		abort();
}

/* The bytes cut to n: what reads is the start of the whole. */
static void check_prefix(const result *whole, const uint8_t *p, size_t n)
{
	result r;
	from_buffer(&r, p, n, false);
	check_counts(&r);
	uint32_t header_size = 0;
	if (n >= sizeof(struct psmp_file_header))
		memcpy(&header_size, p + offsetof(struct psmp_file_header, header_size),
		       sizeof header_size);
	if (r.rc != 0 && n >= header_size && n >= sizeof(struct psmp_file_header) &&
	    (whole->rc == 0 || strcmp(r.err.message, whole->err.message) != 0))
		abort();
	if (r.rc == 0 && whole->rc == 0) {
		if (r.d->samples.n > whole->d->samples.n || r.info.samples > whole->info.samples)
			abort();
		for (size_t i = 0; i < r.d->samples.n; i++)
			if (!same_sample(whole, &r, i, false))
				abort();
	}
	done(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	result mem, disk, odd, pc;
	from_buffer(&mem, data, size, false);
	check_counts(&mem);
	from_file(&disk, data, size);
	check_same(&mem, &disk, false);
	done(&disk);

	uint8_t *copy = malloc(size + 1);
	if (!copy)
		abort();
	memcpy(copy + 1, data, size);
	from_buffer(&odd, copy + 1, size, false);
	check_same(&mem, &odd, false);
	done(&odd);
	free(copy);

	from_buffer(&pc, data, size, true);
	check_same(&mem, &pc, true);
	done(&pc);

	if (size > 0) {
		check_prefix(&mem, data, size - 1);
		check_prefix(&mem, data, size / 2);
		check_prefix(&mem, data, size * 3 / 4 + 3 < size ? size * 3 / 4 + 3 : size);
	}

	if (mem.rc == 0) {
		result hm, hf;
		heap_from(&hm, data, size, false);
		heap_from(&hf, data, size, true);
		check_same(&hm, &hf, false);
		done(&hm);
		done(&hf);
		plumb_rec_waits_opts o = { true, true, 1000000 };
		if (plumb_rec_waits_finish(mem.d, &o, &mem.err) != 0 && mem.err.code != PLUMB_ERR_OVERFLOW)
			abort();
	}
	done(&mem);
	return 0;
}
