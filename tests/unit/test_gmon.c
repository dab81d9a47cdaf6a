/* gmon.out files built byte by byte: the GNU format (64/32-bit, little and
 * big endian, records in any order), both BSD formats, detection without
 * an executable, summing several files with gprof's rules, every damaged
 * input with its exact message and byte offset, and write-read round trips. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/gmon.h"

/* ---- a byte builder ---------------------------------------------------- */

typedef struct bld {
	unsigned char d[16384];
	size_t n;
	unsigned asz;
	bool big;
} bld;

static void put(bld *b, uint64_t v, unsigned n)
{
	cr_assert(b->n + n <= sizeof b->d);
	for (unsigned i = 0; i < n; i++)
		b->d[b->n + (b->big ? n - 1 - i : i)] = (unsigned char)(v >> (8 * i));
	b->n += n;
}

static void put_addr(bld *b, uint64_t v)
{
	put(b, v, b->asz);
}

static void gnu_header(bld *b, uint32_t version)
{
	memcpy(b->d + b->n, "gmon", 4);
	b->n += 4;
	put(b, version, 4);
	put(b, 0, 4);
	put(b, 0, 4);
	put(b, 0, 4);
}

static void hist_rec(bld *b, uint64_t lo, uint64_t hi, uint32_t nbins, uint32_t rate,
		     const char *dimen, char abbrev, const uint16_t *bins)
{
	put(b, 0, 1);
	put_addr(b, lo);
	put_addr(b, hi);
	put(b, nbins, 4);
	put(b, rate, 4);
	char d[15] = { 0 };
	memcpy(d, dimen, strlen(dimen));
	memcpy(b->d + b->n, d, 15);
	b->n += 15;
	put(b, (unsigned char)abbrev, 1);
	for (uint32_t i = 0; bins && i < nbins; i++)
		put(b, bins[i], 2);
}

static void arc_rec(bld *b, uint64_t from, uint64_t self, uint32_t count)
{
	put(b, 1, 1);
	put_addr(b, from);
	put_addr(b, self);
	put(b, count, 4);
}

static void bb_rec(bld *b, uint32_t n, const uint64_t *pairs)
{
	put(b, 2, 1);
	put(b, n, 4);
	for (uint32_t i = 0; i < 2 * n; i++)
		put_addr(b, pairs[i]);
}

static const uint16_t bins4[] = { 1, 2, 300, 4 };

/* A GNU file: one histogram of 4 bins over 0x1000-0x1010, two arcs (one
 * twice) and one BB record. */
static void sample_file(bld *b)
{
	gnu_header(b, 1);
	hist_rec(b, 0x1000, 0x1010, 4, 100, "seconds", 's', bins4);
	arc_rec(b, 0x1004, 0x1008, 7);
	arc_rec(b, 0x1008, 0x100c, 2);
	arc_rec(b, 0x1004, 0x1008, 5);
	uint64_t pairs[] = { 0x1002, 9, 0x1006, 11 };
	bb_rec(b, 2, pairs);
}

static plumb_gmon_layout layout(unsigned asz, bool big)
{
	plumb_gmon_layout l = { 0 };
	l.addr_size = asz;
	l.order = big ? PLUMB_GMON_BIG : PLUMB_GMON_LITTLE;
	return l;
}

static void check_sample(const plumb_gmon *g, unsigned asz, bool big)
{
	cr_assert_eq(g->format, PLUMB_GMON_GNU);
	cr_assert_eq(g->addr_size, asz);
	cr_assert_eq(g->big_endian, big);
	cr_assert_eq(g->version, 1);
	cr_assert_eq(g->hz, 100);
	cr_assert_eq(g->nhists, 1);
	const plumb_gmon_hist *h = &g->hists[0];
	cr_assert_eq(h->low_pc, 0x1000);
	cr_assert_eq(h->high_pc, 0x1010);
	cr_assert_eq(h->nbins, 4);
	cr_assert_eq(h->prof_rate, 100);
	cr_assert_str_eq(h->dimen, "seconds");
	cr_assert_eq(h->dimen_abbrev, 's');
	for (int i = 0; i < 4; i++)
		cr_assert_eq(h->bins[i], bins4[i]);
	cr_assert_eq(h->file_offset, 20);
	cr_assert_eq(g->narcs, 2, "equal arcs are summed");
	cr_assert_eq(g->arcs[0].from_pc, 0x1004);
	cr_assert_eq(g->arcs[0].self_pc, 0x1008);
	cr_assert_eq(g->arcs[0].count, 12);
	cr_assert_eq(g->arcs[1].count, 2);
	cr_assert_eq(g->nbbs, 2);
	cr_assert_eq(g->bbs[1].addr, 0x1006);
	cr_assert_eq(g->bbs[1].count, 11);
	cr_assert_eq(plumb_gmon_total_samples(g), 307);
}

static plumb_gmon *read_ok(const bld *b, const plumb_gmon_layout *l)
{
	plumb_gmon *g = plumb_gmon_new();
	plumb_error err = { 0 };
	int rc = plumb_gmon_read_buffer(g, "t.gmon", b->d, b->n, l, &err);
	cr_assert_eq(rc, 0, "read failed: %s", err.message);
	return g;
}

/* The read fails with exactly this message; g is left untouched. */
static void read_fails(const bld *b, size_t len, const plumb_gmon_layout *l, plumb_status code,
		       const char *msg)
{
	plumb_gmon *g = plumb_gmon_new();
	plumb_error err = { 0 };
	cr_assert_eq(plumb_gmon_read_buffer(g, "t.gmon", b->d, len, l, &err), -1,
		     "expected failure: %s", msg);
	cr_assert_str_eq(err.message, msg);
	cr_assert_eq(err.code, code);
	cr_assert_eq(g->nhists + g->narcs + g->nbbs, 0);
	plumb_gmon_free(g);
}

/* ---- the GNU format ---------------------------------------------------- */

Test(gmon, gnu_64_little_endian)
{
	bld b = { .asz = 8 };
	sample_file(&b);
	plumb_gmon_layout l = layout(8, false);
	plumb_gmon *g = read_ok(&b, &l);
	check_sample(g, 8, false);
	cr_assert_eq(g->nfiles, 1);
	plumb_gmon_free(g);
}

Test(gmon, gnu_32_and_big_endian)
{
	for (int big = 0; big < 2; big++)
		for (unsigned asz = 4; asz <= 8; asz += 4) {
			bld b = { .asz = asz, .big = big };
			sample_file(&b);
			plumb_gmon_layout l = layout(asz, big);
			plumb_gmon *g = read_ok(&b, &l);
			check_sample(g, asz, big);
			plumb_gmon_free(g);
			/* without an executable the same layout is found */
			g = read_ok(&b, NULL);
			check_sample(g, asz, big);
			plumb_gmon_free(g);
		}
}

Test(gmon, records_in_any_order)
{
	bld b = { .asz = 8 };
	uint16_t a[] = { 5, 6 }, c[] = { 1, 1 };
	gnu_header(&b, 1);
	arc_rec(&b, 0x10, 0x20, 1);
	hist_rec(&b, 0x2000, 0x2008, 2, 100, "seconds", 's', a);
	arc_rec(&b, 0x30, 0x40, 3);
	uint64_t pairs[] = { 0x2002, 1 };
	bb_rec(&b, 1, pairs);
	hist_rec(&b, 0x1000, 0x1008, 2, 100, "seconds", 's', c);
	hist_rec(&b, 0x2000, 0x2008, 2, 100, "seconds", 's', a); /* same range: added */
	arc_rec(&b, 0x10, 0x20, 4);
	bb_rec(&b, 1, pairs);
	plumb_gmon_layout l = layout(8, false);
	plumb_gmon *g = read_ok(&b, &l);
	cr_assert_eq(g->nhists, 2);
	cr_assert_eq(g->hists[0].low_pc, 0x2000, "first-seen order kept");
	cr_assert_eq(g->hists[0].bins[0], 10);
	cr_assert_eq(g->hists[0].bins[1], 12);
	cr_assert_eq(g->hists[1].low_pc, 0x1000);
	cr_assert_eq(g->narcs, 2);
	cr_assert_eq(g->arcs[0].count, 5);
	cr_assert_eq(g->arcs[1].from_pc, 0x30);
	cr_assert_eq(g->nbbs, 1);
	cr_assert_eq(g->bbs[0].count, 2);
	plumb_gmon_free(g);
}

/* gprof -i counts records as they stand: equal arcs summed into one are
 * still two records, a block record of any length is one; summing files
 * adds their counts, and a BSD file (untagged) counts none. */
Test(gmon, records_counted_as_they_stand)
{
	bld b = { .asz = 8 };
	uint16_t a[] = { 5, 6 };
	uint64_t pairs[] = { 0x2002, 1, 0x2004, 2 };
	gnu_header(&b, 1);
	arc_rec(&b, 0x10, 0x20, 1);
	hist_rec(&b, 0x2000, 0x2008, 2, 100, "seconds", 's', a);
	arc_rec(&b, 0x10, 0x20, 4);
	arc_rec(&b, 0x30, 0x40, 3);
	bb_rec(&b, 2, pairs);
	plumb_gmon_layout l = layout(8, false);
	plumb_gmon *g = read_ok(&b, &l);
	cr_assert_eq(g->narcs, 2);
	cr_assert_eq(g->nrecords[0], 1);
	cr_assert_eq(g->nrecords[1], 3);
	cr_assert_eq(g->nrecords[2], 1);
	plumb_error err = { 0 };
	cr_assert_eq(plumb_gmon_read_buffer(g, "again.gmon", b.d, b.n, &l, &err), 0, "%s", err.message);
	cr_assert_eq(g->nrecords[0], 2);
	cr_assert_eq(g->nrecords[1], 6);
	cr_assert_eq(g->nrecords[2], 2);
	plumb_gmon_free(g);
	/* no address size given: the first try (8 bytes) fails on a 4-byte
	 * file, and its counts must not stay */
	bld s = { .asz = 4 };
	gnu_header(&s, 1);
	arc_rec(&s, 0x10, 0x20, 1);
	arc_rec(&s, 0x10, 0x24, 1);
	arc_rec(&s, 0x10, 0x28, 1);
	plumb_gmon_layout none = { 0 };
	g = read_ok(&s, &none);
	cr_assert_eq(g->addr_size, 4);
	cr_assert_eq(g->nrecords[1], 3);
	plumb_gmon_free(g);
}

Test(gmon, empty_histogram_and_arcs_only)
{
	bld b = { .asz = 8 };
	gnu_header(&b, 1);
	hist_rec(&b, 0x1000, 0x1000, 0, 100, "seconds", 's', NULL);
	plumb_gmon *g = read_ok(&b, NULL);
	cr_assert_eq(g->nhists, 1);
	cr_assert_eq(g->hists[0].nbins, 0);
	cr_assert_eq(plumb_gmon_total_samples(g), 0);
	cr_assert_eq(plumb_gmon_hist_scale(&g->hists[0]), 0);
	plumb_gmon_free(g);

	bld a = { .asz = 8 };
	gnu_header(&a, 1);
	arc_rec(&a, 0x1230, 0x11d7, 300);
	g = read_ok(&a, NULL);
	cr_assert_eq(g->nhists, 0);
	cr_assert_eq(g->hz, 0, "no histogram: no clock rate");
	cr_assert_eq(g->narcs, 1);
	cr_assert_eq(g->arcs[0].count, 300);
	plumb_gmon_free(g);

	bld h = { .asz = 8 };
	gnu_header(&h, 0);
	g = read_ok(&h, NULL);
	cr_assert_eq(g->version, 0);
	cr_assert_eq(g->nhists + g->narcs + g->nbbs, 0, "header only: nothing");
	plumb_gmon_free(g);
}

Test(gmon, detect)
{
	bld b = { .asz = 8 };
	sample_file(&b);
	cr_assert(plumb_gmon_detect(b.d, b.n));
	cr_assert_not(plumb_gmon_detect(b.d, 19), "shorter than the header");
	bld be = { .asz = 8, .big = true };
	gnu_header(&be, 1);
	cr_assert(plumb_gmon_detect(be.d, be.n));
	b.d[4] = 9;
	cr_assert_not(plumb_gmon_detect(b.d, b.n), "version 9");
	cr_assert_not(plumb_gmon_detect((const unsigned char *)"main;f 1\n", 9));
}

/* ---- the BSD formats --------------------------------------------------- */

static void bsd_file(bld *b, bool bsd44)
{
	size_t hdr = bsd44 ? 2 * b->asz + 24 : 2 * b->asz + 4;
	put_addr(b, 0x400000);
	put_addr(b, 0x400010);
	put(b, hdr + 2 * 4, 4);
	if (bsd44) {
		put(b, PLUMB_GMON_BSD44_VERSION, 4);
		put(b, 1000, 4);
		put(b, 0, 4);
		put(b, 0, 4);
		put(b, 0, 4);
	}
	for (int i = 0; i < 4; i++)
		put(b, bins4[i], 2);
	put_addr(b, 0x400004); /* untagged arcs, address-sized counts */
	put_addr(b, 0x400008);
	put_addr(b, 70000);
	put_addr(b, 0x400008);
	put_addr(b, 0x40000c);
	put_addr(b, 1);
}

Test(gmon, bsd_formats)
{
	for (int bsd44 = 0; bsd44 < 2; bsd44++)
		for (int big = 0; big < 2; big++)
			for (unsigned asz = 4; asz <= 8; asz += 4) {
				bld b = { .asz = asz, .big = big };
				bsd_file(&b, bsd44);
				plumb_gmon_layout l = layout(asz, big);
				plumb_gmon *g = read_ok(&b, &l);
				cr_assert_eq(g->format, bsd44 ? PLUMB_GMON_BSD44 : PLUMB_GMON_BSD_OLD);
				cr_assert_eq(g->version, bsd44 ? PLUMB_GMON_BSD44_VERSION : 0);
				cr_assert_eq(g->hz, bsd44 ? 1000 : 0);
				cr_assert_eq(g->nhists, 1);
				cr_assert_eq(g->hists[0].low_pc, 0x400000);
				cr_assert_eq(g->hists[0].nbins, 4);
				cr_assert_eq(g->hists[0].bins[2], 300);
				cr_assert_str_eq(g->hists[0].dimen, "seconds");
				cr_assert_eq(g->narcs, 2);
				cr_assert_eq(g->arcs[0].count, 70000);
				cr_assert_eq(g->arcs[1].self_pc, 0x40000c);
				plumb_gmon_free(g);
			}
}

Test(gmon, bsd_needs_layout)
{
	bld b = { .asz = 8 };
	bsd_file(&b, false);
	read_fails(&b, b.n, NULL, PLUMB_ERR_USAGE,
		   "t.gmon: not a GNU gmon file (no \"gmon\" cookie at byte 0); a BSD-format file "
		   "can only be read with its executable, which gives its address size and byte order");
}

Test(gmon, bsd_damaged)
{
	bld b = { .asz = 8 };
	bsd_file(&b, false);
	plumb_gmon_layout l = layout(8, false);
	read_fails(&b, b.n - 3, &l, PLUMB_ERR_FORMAT,
		   "t.gmon: byte 68: truncated BSD call-graph arc record (starting at byte 52): "
		   "expected count (8 bytes), found 5 bytes");
	read_fails(&b, 10, &l, PLUMB_ERR_FORMAT,
		   "t.gmon: byte 8: truncated BSD header record (starting at byte 0): expected "
		   "high_pc (8 bytes), found 2 bytes");
	bld s = { .asz = 8 };
	put_addr(&s, 0x10);
	put_addr(&s, 0x20);
	put(&s, 7, 4);
	read_fails(&s, s.n, &l, PLUMB_ERR_FORMAT,
		   "t.gmon: byte 16: ncnt 7 is smaller than the 20-byte header: expected the "
		   "header size plus 2 bytes per bin");
	l.format = PLUMB_GMON_BSD44;
	read_fails(&s, s.n, &l, PLUMB_ERR_FORMAT,
		   "t.gmon: byte 20: truncated 4.4BSD header record (starting at byte 0): expected "
		   "version (4 bytes), found 0 bytes");
}

/* ---- damaged GNU files -------------------------------------------------- */

Test(gmon, truncated_at_every_field)
{
	bld b = { .asz = 8 };
	gnu_header(&b, 1);
	hist_rec(&b, 0x1000, 0x1010, 4, 100, "seconds", 's', bins4);
	arc_rec(&b, 0x1004, 0x1008, 7);
	uint64_t pairs[] = { 0x1002, 9 };
	bb_rec(&b, 1, pairs);
	plumb_gmon_layout l = layout(8, false);
	/* hist: tag at 20, low 21, high 29, size 37, rate 41, dimen 45, bins 61;
	 * arc: tag 69, from 70, self 78, count 86; bb: tag 90, n 91, pairs 95 */
	struct {
		size_t len;
		const char *msg;
	} cases[] = {
		{ 10, "t.gmon: byte 0: truncated header: expected 20 bytes (\"gmon\", version, 12 "
		      "spare bytes), found 10" },
		{ 24, "t.gmon: byte 21: truncated histogram record (starting at byte 20): expected "
		      "low_pc (8 bytes), found 3 bytes" },
		{ 29, "t.gmon: byte 29: truncated histogram record (starting at byte 20): expected "
		      "high_pc (8 bytes), found 0 bytes" },
		{ 38, "t.gmon: byte 37: truncated histogram record (starting at byte 20): expected "
		      "hist_size (bin count) (4 bytes), found 1 byte" },
		{ 41, "t.gmon: byte 41: truncated histogram record (starting at byte 20): expected "
		      "prof_rate (4 bytes), found 0 bytes" },
		{ 50, "t.gmon: byte 45: truncated histogram record (starting at byte 20): expected "
		      "dimension (15 bytes) and abbreviation (1 byte) (16 bytes), found 5 bytes" },
		{ 66, "t.gmon: byte 61: histogram record (starting at byte 20) claims 4 bins of 2 "
		      "bytes, but only 5 bytes are left in the file" },
		{ 75, "t.gmon: byte 70: truncated call-graph arc record (starting at byte 69): "
		      "expected from_pc (8 bytes), found 5 bytes" },
		{ 80, "t.gmon: byte 78: truncated call-graph arc record (starting at byte 69): "
		      "expected self_pc (8 bytes), found 2 bytes" },
		{ 89, "t.gmon: byte 86: truncated call-graph arc record (starting at byte 69): "
		      "expected count (4 bytes), found 3 bytes" },
		{ 93, "t.gmon: byte 91: truncated basic-block record (starting at byte 90): "
		      "expected block count (4 bytes), found 2 bytes" },
		{ 105, "t.gmon: byte 95: basic-block record (starting at byte 90) claims 1 blocks of "
		       "16 bytes, but only 10 bytes are left in the file" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		read_fails(&b, cases[i].len, &l, PLUMB_ERR_FORMAT, cases[i].msg);
	/* every cut inside the records fails, never a crash */
	for (size_t len = 21; len < b.n; len++) {
		plumb_gmon *g = plumb_gmon_new();
		plumb_error err;
		bool boundary = len == 69 || len == 90;
		cr_assert_eq(plumb_gmon_read_buffer(g, "t.gmon", b.d, len, &l, &err),
			     boundary ? 0 : -1, "cut at %zu", len);
		plumb_gmon_free(g);
	}
}

Test(gmon, bad_tag_and_version)
{
	bld b = { .asz = 8 };
	gnu_header(&b, 1);
	arc_rec(&b, 1, 2, 3);
	put(&b, 7, 1);
	put(&b, 0, 8);
	plumb_gmon_layout l = layout(8, false);
	read_fails(&b, b.n, &l, PLUMB_ERR_FORMAT,
		   "t.gmon: byte 41: found bad tag 7 (file corrupted?): expected 0 (histogram), "
		   "1 (call-graph arc) or 2 (basic-block counts)");
	bld v = { .asz = 8 };
	gnu_header(&v, 3);
	read_fails(&v, v.n, &l, PLUMB_ERR_UNSUPPORTED,
		   "t.gmon: byte 4: unsupported version 3: expected 0 or 1");
	bld v0 = { .asz = 8 };
	gnu_header(&v0, 0);
	uint64_t pairs[] = { 1, 1 };
	bb_rec(&v0, 1, pairs);
	read_fails(&v0, v0.n, &l, PLUMB_ERR_UNSUPPORTED,
		   "t.gmon: byte 20: basic-block record of a version-0 file: plumb reads only the "
		   "version-1 layout");
	bld c = { .asz = 8 };
	memcpy(c.d, "gmoX", 4);
	c.n = 20;
	l.format = PLUMB_GMON_GNU;
	read_fails(&c, c.n, &l, PLUMB_ERR_FORMAT,
		   "t.gmon: byte 0: expected the cookie \"gmon\" of a GNU gmon file");
}

Test(gmon, bin_count_overflowing_the_file)
{
	bld b = { .asz = 8 };
	gnu_header(&b, 1);
	hist_rec(&b, 0x1000, 0x2000, 0xFFFFFFFFu, 100, "seconds", 's', NULL);
	put(&b, 0, 6);
	plumb_gmon_layout l = layout(8, false);
	read_fails(&b, b.n, &l, PLUMB_ERR_FORMAT,
		   "t.gmon: byte 61: histogram record (starting at byte 20) claims 4294967295 bins "
		   "of 2 bytes, but only 6 bytes are left in the file");
	bld c = { .asz = 8 };
	gnu_header(&c, 1);
	put(&c, 2, 1);
	put(&c, 0xFFFFFFFFu, 4);
	read_fails(&c, c.n, &l, PLUMB_ERR_FORMAT,
		   "t.gmon: byte 25: basic-block record (starting at byte 20) claims 4294967295 "
		   "blocks of 16 bytes, but only 0 bytes are left in the file");
}

Test(gmon, histogram_conflicts)
{
	plumb_gmon_layout l = layout(8, false);
	uint16_t z[8] = { 0 };
	bld o = { .asz = 8 };
	gnu_header(&o, 1);
	hist_rec(&o, 0x1000, 0x1010, 4, 100, "seconds", 's', bins4);
	hist_rec(&o, 0x1008, 0x1018, 4, 100, "seconds", 's', bins4);
	read_fails(&o, o.n, &l, PLUMB_ERR_FORMAT,
		   "t.gmon: byte 69: overlapping histogram records: 0x1008-0x1018 overlaps "
		   "0x1000-0x1010 read before (expected the same range or a disjoint one)");
	bld d = { .asz = 8 };
	gnu_header(&d, 1);
	hist_rec(&d, 0x1000, 0x1010, 4, 100, "seconds", 's', bins4);
	hist_rec(&d, 0x2000, 0x2010, 4, 100, "cycles", 'c', bins4);
	read_fails(&d, d.n, &l, PLUMB_ERR_FORMAT,
		   "t.gmon: byte 69: histogram dimension \"cycles\" differs from the first "
		   "histogram's \"seconds\"");
	bld a = { .asz = 8 };
	gnu_header(&a, 1);
	hist_rec(&a, 0x1000, 0x1010, 4, 100, "seconds", 's', bins4);
	hist_rec(&a, 0x2000, 0x2010, 4, 100, "seconds", 'x', bins4);
	read_fails(&a, a.n, &l, PLUMB_ERR_FORMAT,
		   "t.gmon: byte 69: histogram dimension abbreviation 'x' differs from the first "
		   "histogram's 's'");
	bld s = { .asz = 8 };
	gnu_header(&s, 1);
	hist_rec(&s, 0x1000, 0x1010, 4, 100, "seconds", 's', bins4);
	hist_rec(&s, 0x2000, 0x2020, 8, 100, "seconds", 's', z);
	hist_rec(&s, 0x3000, 0x3020, 4, 100, "seconds", 's', bins4);
	read_fails(&s, s.n, &l, PLUMB_ERR_FORMAT,
		   "t.gmon: byte 126: histogram bins cover 4 units of 2 bytes, the first "
		   "histogram's 2: expected the same bin width");
	bld r = { .asz = 8 };
	gnu_header(&r, 1);
	hist_rec(&r, 0x2000, 0x1000, 0, 100, "seconds", 's', NULL);
	read_fails(&r, r.n, &l, PLUMB_ERR_FORMAT,
		   "t.gmon: byte 20: histogram low_pc 0x2000 is above high_pc 0x1000: expected "
		   "low_pc <= high_pc");
}

/* ---- several files ------------------------------------------------------ */

Test(gmon, merging_two_files)
{
	bld b = { .asz = 8 };
	sample_file(&b);
	bld c = { .asz = 8 };
	gnu_header(&c, 1);
	arc_rec(&c, 0x1008, 0x100c, 40);
	arc_rec(&c, 0x2000, 0x1000, 1);
	hist_rec(&c, 0x1000, 0x1010, 4, 100, "seconds", 's', bins4);
	plumb_gmon_layout l = layout(8, false);
	plumb_gmon *g = read_ok(&b, &l);
	plumb_error err;
	cr_assert_eq(plumb_gmon_read_buffer(g, "u.gmon", c.d, c.n, &l, &err), 0, "%s", err.message);
	cr_assert_eq(g->nfiles, 2);
	cr_assert_eq(g->nhists, 1);
	cr_assert_eq(g->hists[0].bins[2], 600);
	cr_assert_eq(g->narcs, 3);
	cr_assert_eq(g->arcs[1].count, 42);
	cr_assert_eq(g->arcs[2].from_pc, 0x2000);
	cr_assert_eq(plumb_gmon_total_samples(g), 614);

	/* a conflicting third file names itself and changes nothing */
	bld x = { .asz = 8 };
	gnu_header(&x, 1);
	arc_rec(&x, 0x1004, 0x1008, 1000);
	hist_rec(&x, 0x1004, 0x1014, 4, 100, "seconds", 's', bins4);
	cr_assert_eq(plumb_gmon_read_buffer(g, "x.gmon", x.d, x.n, &l, &err), -1);
	cr_assert_str_eq(err.message,
			 "x.gmon: byte 41: overlapping histogram records: 0x1004-0x1014 overlaps "
			 "0x1000-0x1010 read before (expected the same range or a disjoint one)");
	cr_assert_eq(g->arcs[0].count, 12);
	cr_assert_eq(g->nfiles, 2);

	/* a file of another address size does not mix */
	bld y = { .asz = 4 };
	gnu_header(&y, 1);
	arc_rec(&y, 1, 2, 3);
	cr_assert_eq(plumb_gmon_read_buffer(g, "y.gmon", y.d, y.n, NULL, &err), -1);
	cr_assert_str_eq(err.message, "y.gmon: 4-byte little-endian addresses, but the files read "
				      "before have 8-byte little-endian ones");
	plumb_gmon_free(g);
}

Test(gmon, merge_function)
{
	bld b = { .asz = 8 };
	sample_file(&b);
	plumb_gmon_layout l = layout(8, false);
	plumb_gmon *g1 = read_ok(&b, &l), *g2 = read_ok(&b, &l), *sum = plumb_gmon_new();
	plumb_error err;
	cr_assert_eq(plumb_gmon_merge(sum, g1, "a", &err), 0, "%s", err.message);
	cr_assert_eq(plumb_gmon_merge(sum, g2, "b", &err), 0, "%s", err.message);
	cr_assert_eq(sum->nfiles, 2);
	cr_assert_eq(sum->hz, 100);
	cr_assert_eq(sum->hists[0].bins[2], 600);
	cr_assert_eq(sum->arcs[0].count, 24);
	cr_assert_eq(sum->bbs[0].count, 18);
	plumb_gmon_free(g1);
	plumb_gmon_free(g2);
	plumb_gmon_free(sum);
}

/* ---- writing ------------------------------------------------------------ */

static plumb_gmon *round_trip(const plumb_gmon *g, const plumb_gmon_layout *l)
{
	char path[] = "/tmp/plumb-gmon-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	close(fd);
	plumb_error err;
	cr_assert_eq(plumb_gmon_write(g, path, &err), 0, "%s", err.message);
	plumb_gmon *back = plumb_gmon_new();
	cr_assert_eq(plumb_gmon_read(back, path, l, &err), 0, "%s", err.message);
	unlink(path);
	return back;
}

Test(gmon, write_read_round_trip)
{
	for (int big = 0; big < 2; big++)
		for (unsigned asz = 4; asz <= 8; asz += 4) {
			bld b = { .asz = asz, .big = big };
			sample_file(&b);
			plumb_gmon_layout l = layout(asz, big);
			plumb_gmon *g = read_ok(&b, &l);
			plumb_gmon *back = round_trip(g, &l);
			check_sample(back, asz, big);
			plumb_gmon_free(back);
			plumb_gmon_free(g);
		}
}

Test(gmon, write_splits_big_counts)
{
	bld b = { .asz = 8 };
	sample_file(&b);
	plumb_gmon_layout l = layout(8, false);
	plumb_gmon *g = read_ok(&b, &l);
	g->hists[0].bins[1] = 200000;          /* more than 16 bits */
	g->arcs[1].count = 10000000000ull;     /* more than 32 bits */
	plumb_gmon *back = round_trip(g, &l);
	cr_assert_eq(back->nhists, 1);
	cr_assert_eq(back->hists[0].bins[1], 200000);
	cr_assert_eq(back->hists[0].bins[2], 300);
	cr_assert_eq(back->arcs[1].count, 10000000000ull);
	cr_assert_eq(back->narcs, 2);
	plumb_gmon_free(back);
	plumb_gmon_free(g);
}

Test(gmon, write_from_bsd_is_gnu)
{
	bld b = { .asz = 8 };
	bsd_file(&b, true);
	plumb_gmon_layout l = layout(8, false);
	plumb_gmon *g = read_ok(&b, &l);
	plumb_gmon *back = round_trip(g, NULL);
	cr_assert_eq(back->format, PLUMB_GMON_GNU);
	cr_assert_eq(back->hz, 1000);
	cr_assert_eq(back->hists[0].bins[2], 300);
	cr_assert_eq(back->arcs[0].count, 70000);
	plumb_gmon_free(back);
	plumb_gmon_free(g);
}

Test(gmon, missing_file)
{
	plumb_gmon *g = plumb_gmon_new();
	plumb_error err;
	cr_assert_eq(plumb_gmon_read(g, "/nonexistent/gmon.out", NULL, &err), -1);
	cr_assert_eq(err.code, PLUMB_ERR_IO);
	cr_assert(strstr(err.message, "/nonexistent/gmon.out") != NULL);
	plumb_gmon_free(g);
}

/* ---- gprof's credit of bins to ranges ------------------------------------ */

typedef struct credits {
	double v[4];
	size_t calls, last; /* calls, and the range of the last call */
} credits;

static void take_credit(void *ctx, size_t range, double samples)
{
	credits *c = ctx;
	cr_assert_lt(range, 4);
	c->v[range] += samples;
	c->calls++;
	c->last = range;
}

/* 4 bins of 8 bytes (4 units of 2) over 0x1000-0x1020 and the ranges
 * [0x1000, 0x100c) and [0x100c, 0x1020): bin 1 (0x1008-0x1010) straddles
 * both, 2 units each. */
Test(gmon, credit_splits_a_straddling_bin)
{
	uint64_t bins[4] = { 8, 10, 0, 4 };
	plumb_gmon_hist h = { .low_pc = 0x1000, .high_pc = 0x1020, .nbins = 4, .bins = bins };
	uint64_t start[3] = { 0x1000, 0x100c, 0x1020 };
	credits got = { 0 };
	plumb_gmon_credit c = { .start = start, .stride = sizeof *start, .n = 2,
				.scale = plumb_gmon_hist_scale(&h), .add = take_credit, .ctx = &got };
	cr_assert_float_eq(c.scale, 4.0, 1e-12);
	plumb_gmon_credit_hist(&c, &h);
	cr_expect_float_eq(got.v[0], 8 + 10 * 2 / 4.0, 1e-12);
	cr_expect_float_eq(got.v[1], 10 * 2 / 4.0 + 4, 1e-12);
	cr_expect_eq(got.calls, 4, "bin 0 once, bin 1 twice, bin 2 (empty) never, bin 3 once");
}

/* Edges are truncated to 2-byte units: a range starting at 0x100b starts at
 * unit 0x805 (byte 0x100a), so bin 1 gives it 3 of its 4 units. */
Test(gmon, credit_truncates_edges_to_units)
{
	uint64_t bins[4] = { 0, 8, 0, 0 };
	plumb_gmon_hist h = { .low_pc = 0x1000, .high_pc = 0x1020, .nbins = 4, .bins = bins };
	uint64_t start[3] = { 0x1000, 0x100b, 0x1020 };
	credits got = { 0 };
	plumb_gmon_credit c = { .start = start, .stride = sizeof *start, .n = 2, .scale = 4.0,
				.add = take_credit, .ctx = &got };
	plumb_gmon_credit_hist(&c, &h);
	cr_expect_float_eq(got.v[0], 8 * 1 / 4.0, 1e-12);
	cr_expect_float_eq(got.v[1], 8 * 3 / 4.0, 1e-12);
}

/* Samples outside every range go nowhere; starts read through a stride
 * (a field of a struct array); bins out of order still find their ranges. */
typedef struct sym_like {
	const char *name;
	uint64_t addr;
} sym_like;

Test(gmon, credit_outside_ranges_strided_and_unordered)
{
	sym_like syms[3] = { { "a", 0x1008 }, { "b", 0x1010 }, { "end", 0x1018 } };
	credits got = { 0 };
	plumb_gmon_credit c = { .start = &syms[0].addr, .stride = sizeof *syms, .n = 2,
				.scale = 4.0, .low_pc = 0x1000, .add = take_credit, .ctx = &got };
	plumb_gmon_credit_bin(&c, 3, 5); /* 0x1018-0x1020: past "end" */
	cr_expect_eq(got.calls, 0);
	plumb_gmon_credit_bin(&c, 2, 6); /* b */
	plumb_gmon_credit_bin(&c, 0, 7); /* before a */
	plumb_gmon_credit_bin(&c, 1, 3); /* a */
	cr_expect_float_eq(got.v[0], 3, 1e-12);
	cr_expect_float_eq(got.v[1], 6, 1e-12);
	cr_expect_eq(got.calls, 2);
	cr_expect_eq(got.last, 0);
}
