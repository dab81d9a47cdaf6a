/* gmon.out writer: the GNU format (version 1) that GNU gprof reads, used
 * for gprof -s (gmon.sum). Sums that no longer fit the file's fields (16-bit
 * bins, 32-bit arc counts) are written as several records, which gprof and
 * plumb add back together. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "plumb/formats.h"
#include "plumb/gmon.h"

typedef struct writer {
	FILE *out;
	unsigned asz;
	bool big;
	bool failed;
} writer;

static void put(writer *w, uint64_t v, unsigned n)
{
	unsigned char b[8];
	for (unsigned i = 0; i < n; i++)
		b[w->big ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
	if (fwrite(b, 1, n, w->out) != n)
		w->failed = true;
}

static void put_bytes(writer *w, const void *p, size_t n)
{
	if (fwrite(p, 1, n, w->out) != n)
		w->failed = true;
}

static uint64_t max_bin(const plumb_gmon_hist *h)
{
	uint64_t m = 0;
	for (uint32_t i = 0; i < h->nbins; i++)
		if (h->bins[i] > m)
			m = h->bins[i];
	return m;
}

/* Record number `round` of a histogram: each bin gives at most 65535 of
 * what is left after the earlier rounds. */
static void put_hist(writer *w, const plumb_gmon_hist *h, uint64_t round)
{
	put(w, 0, 1);
	put(w, h->low_pc, w->asz);
	put(w, h->high_pc, w->asz);
	put(w, h->nbins, 4);
	put(w, h->prof_rate, 4);
	char dimen[15] = { 0 };
	memcpy(dimen, h->dimen, strnlen(h->dimen, sizeof dimen));
	put_bytes(w, dimen, sizeof dimen);
	put(w, (unsigned char)h->dimen_abbrev, 1);
	for (uint32_t i = 0; i < h->nbins; i++) {
		uint64_t done = round * 0xFFFF, v = h->bins[i];
		uint64_t left = v > done ? v - done : 0;
		put(w, left > 0xFFFF ? 0xFFFF : left, 2);
	}
}

static void put_arc(writer *w, const plumb_gmon_arc *a)
{
	uint64_t left = a->count;
	do {
		uint64_t part = left > UINT32_MAX ? UINT32_MAX : left;
		put(w, 1, 1);
		put(w, a->from_pc, w->asz);
		put(w, a->self_pc, w->asz);
		put(w, part, 4);
		left -= part;
	} while (left);
}

/* Counts are address-sized: in a 32-bit file, what a count has past
 * 2^32 - 1 follows in records of one block each, which readers add back. */
static void put_bbs(writer *w, const plumb_gmon *g)
{
	uint64_t max = w->asz == 4 ? UINT32_MAX : UINT64_MAX;
	size_t i = 0;
	while (i < g->nbbs) {
		size_t n = g->nbbs - i < UINT32_MAX ? g->nbbs - i : UINT32_MAX;
		put(w, 2, 1);
		put(w, n, 4);
		for (size_t k = i; k < i + n; k++) {
			put(w, g->bbs[k].addr, w->asz);
			put(w, g->bbs[k].count > max ? max : g->bbs[k].count, w->asz);
		}
		i += n;
	}
	for (size_t k = 0; k < g->nbbs; k++)
		for (uint64_t left = g->bbs[k].count > max ? g->bbs[k].count - max : 0; left;) {
			uint64_t part = left > max ? max : left;
			put(w, 2, 1);
			put(w, 1, 4);
			put(w, g->bbs[k].addr, w->asz);
			put(w, part, w->asz);
			left -= part;
		}
}

/* Records a count of `count` takes when each holds at most `per`. */
static long double records(uint64_t count, uint64_t per)
{
	return count <= per ? 1.0L : ceill((long double)count / (long double)per);
}

/* More records than this for one count is not a sum of real runs (a bin
 * would hold 268 million samples, an arc 1.7e13 calls) but damage: refused
 * rather than written out at length. */
#define MAX_RECORDS_PER_COUNT 4096.0L

/* The bytes the file will take. Counts past what one record holds go on in
 * more records, so a histogram bin or an arc near 2^64 would take petabytes:
 * the size is known, and checked, before anything is written. */
static int check_size(const plumb_gmon *g, plumb_error *err)
{
	unsigned asz = g->addr_size;
	long double bytes = 20, most = 0;
	const char *what = NULL;
	for (size_t i = 0; i < g->nhists; i++) {
		long double r = records(max_bin(&g->hists[i]), 0xFFFF);
		if (r > most)
			most = r, what = "a histogram bin (65,535 samples a record)";
		bytes += r * (1 + 2 * asz + 4 + 4 + 16 + 2.0L * g->hists[i].nbins);
	}
	for (size_t i = 0; i < g->narcs; i++) {
		long double r = records(g->arcs[i].count, UINT32_MAX);
		if (r > most)
			most = r, what = "an arc's count (2^32 - 1 calls a record)";
		bytes += r * (1 + 2 * asz + 4);
	}
	uint64_t max = asz == 4 ? UINT32_MAX : UINT64_MAX;
	bytes += (long double)g->nbbs * 2 * asz + 5;
	for (size_t i = 0; i < g->nbbs; i++)
		if (g->bbs[i].count > max) {
			long double r = records(g->bbs[i].count - max, max) + 1;
			if (r > most)
				most = r, what = "a block count (2^32 - 1 a record)";
			bytes += (r - 1) * (1 + 4 + 2 * asz);
		}
	if (most > MAX_RECORDS_PER_COUNT)
		return plumb_fail(err, PLUMB_ERR_OVERFLOW,
				  "gmon writer: %s would need %.0Lf records in gmon.out, more than the %.0Lf "
				  "written for one count", what, most, MAX_RECORDS_PER_COUNT);
	if (bytes > (long double)PLUMB_GMON_MAX_WRITE)
		return plumb_fail(err, PLUMB_ERR_OVERFLOW,
				  "gmon writer: the counts need a %.3Lg-byte gmon.out, more than the %llu "
				  "bytes written at most", bytes, (unsigned long long)PLUMB_GMON_MAX_WRITE);
	return 0;
}

int plumb_gmon_write_stream(const plumb_gmon *g, FILE *out, plumb_error *err)
{
	if (g->addr_size != 4 && g->addr_size != 8)
		return plumb_fail(err, PLUMB_ERR_USAGE, "gmon writer: address size %u: expected 4 or 8",
				  g->addr_size);
	if (check_size(g, err))
		return -1;
	writer w = { .out = out, .asz = g->addr_size, .big = g->big_endian };
	unsigned char hdr[20] = { 'g', 'm', 'o', 'n' };
	put_bytes(&w, hdr, 4);
	put(&w, 1, 4);
	put_bytes(&w, hdr + 8, 12);
	for (size_t i = 0; i < g->nhists; i++) {
		uint64_t m = max_bin(&g->hists[i]);
		uint64_t rounds = m ? (m + 0xFFFE) / 0xFFFF : 1;
		for (uint64_t r = 0; r < rounds; r++)
			put_hist(&w, &g->hists[i], r);
	}
	for (size_t i = 0; i < g->narcs; i++)
		put_arc(&w, &g->arcs[i]);
	put_bbs(&w, g);
	if (w.failed || fflush(out) != 0)
		return plumb_fail(err, PLUMB_ERR_IO, "gmon writer: write failed (disk full?)");
	return 0;
}

int plumb_gmon_write(const plumb_gmon *g, const char *path, plumb_error *err)
{
	plumb_atomic_file af;
	if (plumb_atomic_open(&af, path, err))
		return -1;
	if (plumb_gmon_write_stream(g, af.fp, err)) {
		plumb_atomic_abort(&af);
		return -1;
	}
	return plumb_atomic_commit(&af, err);
}
