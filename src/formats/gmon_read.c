/* gmon.out reader: the GNU tagged format and both BSD formats, decoded
 * with the executable's address size and byte order (or detected for GNU
 * files), and summed over several files with GNU gprof's rules.
 *
 * A file is first decoded into a fresh plumb_gmon (so that an error leaves
 * the caller's one untouched), then merged into it. Every count is checked
 * against the bytes left before anything is allocated from it.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/gmon_internal.h"
#include "plumb/formats.h"
#include "plumb/gmon.h"

#define GNU_HDR 20u
#define TAG_HIST 0
#define TAG_ARC 1
#define TAG_BB 2

/* A position in a file's bytes with its decoding rules. */
typedef struct cursor {
	const char *name;
	const unsigned char *buf;
	size_t len, pos;
	unsigned asz;       /* address size */
	bool big;
	const char *what;   /* the record being read, for messages */
	size_t rec;         /* where that record starts */
} cursor;

static uint64_t decode(const unsigned char *p, unsigned n, bool big)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[big ? i : n - 1 - i] << (8 * (n - 1 - i));
	return v;
}

/* Read an n-byte field called field, or fail naming where it was cut. */
static int field(cursor *c, unsigned n, const char *fieldname, uint64_t *out, plumb_error *err)
{
	size_t left = c->len - c->pos;
	if (left < n)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s: byte %zu: truncated %s record (starting at byte %zu): "
				  "expected %s (%u bytes), found %zu byte%s",
				  c->name, c->pos, c->what, c->rec, fieldname, n, left,
				  left == 1 ? "" : "s");
	*out = decode(c->buf + c->pos, n, c->big);
	c->pos += n;
	return 0;
}

/* A count of items of size each must fit in the bytes left. */
static int fits(const cursor *c, uint64_t count, unsigned size, const char *items,
		plumb_error *err)
{
	size_t left = c->len - c->pos;
	if (count > left / size)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s: byte %zu: %s record (starting at byte %zu) claims %" PRIu64
				  " %s of %u bytes, but only %zu bytes are left in the file",
				  c->name, c->pos, c->what, c->rec, count, items, size, left);
	return 0;
}

/* ---- records -------------------------------------------------------- */

static int read_bins(cursor *c, plumb_gmon_hist *h, plumb_error *err)
{
	if (fits(c, h->nbins, 2, "bins", err))
		return -1;
	h->bins = calloc(h->nbins ? h->nbins : 1, sizeof *h->bins);
	if (!h->bins)
		return plumb_fail_nomem(err);
	for (uint32_t i = 0; i < h->nbins; i++)
		h->bins[i] = decode(c->buf + c->pos + 2 * (size_t)i, 2, c->big);
	c->pos += 2 * (size_t)h->nbins;
	return 0;
}

static int check_range(const cursor *c, const plumb_gmon_hist *h, plumb_error *err)
{
	if (h->low_pc > h->high_pc)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s: byte %zu: histogram low_pc 0x%" PRIx64 " is above high_pc 0x%" PRIx64
				  ": expected low_pc <= high_pc", c->name, c->rec, h->low_pc, h->high_pc);
	return 0;
}

/* Tag 0: the histogram record (c->pos is just past the tag). */
static int gnu_hist(cursor *c, plumb_gmon *g, plumb_error *err)
{
	plumb_gmon_hist h = { .file_offset = c->rec };
	uint64_t v;
	c->what = "histogram";
	if (field(c, c->asz, "low_pc", &h.low_pc, err) || field(c, c->asz, "high_pc", &h.high_pc, err))
		return -1;
	if (field(c, 4, "hist_size (bin count)", &v, err))
		return -1;
	h.nbins = (uint32_t)v;
	if (field(c, 4, "prof_rate", &v, err))
		return -1;
	h.prof_rate = (uint32_t)v;
	if (c->len - c->pos < 16)
		return field(c, 16, "dimension (15 bytes) and abbreviation (1 byte)", &v, err);
	memcpy(h.dimen, c->buf + c->pos, 15);
	h.dimen[15] = '\0';
	h.dimen_abbrev = (char)c->buf[c->pos + 15];
	c->pos += 16;
	if (check_range(c, &h, err) || read_bins(c, &h, err))
		return -1;
	int rc = plumb_gmon_take_hist(g, &h, c->name, err);
	free(h.bins);
	return rc;
}

/* Tag 1: one arc. */
static int gnu_arc(cursor *c, plumb_gmon *g, plumb_error *err)
{
	plumb_gmon_arc a;
	c->what = "call-graph arc";
	if (field(c, c->asz, "from_pc", &a.from_pc, err) || field(c, c->asz, "self_pc", &a.self_pc, err) ||
	    field(c, 4, "count", &a.count, err))
		return -1;
	return plumb_gmon_add_arc(g, &a, err);
}

/* Tag 2: basic-block counts (version 1 layout). */
static int gnu_bb(cursor *c, plumb_gmon *g, uint32_t version, plumb_error *err)
{
	c->what = "basic-block";
	if (version == 0)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
				  "%s: byte %zu: basic-block record of a version-0 file: plumb reads "
				  "only the version-1 layout", c->name, c->rec);
	uint64_t nb;
	if (field(c, 4, "block count", &nb, err) || fits(c, nb, 2 * c->asz, "blocks", err))
		return -1;
	for (uint64_t i = 0; i < nb; i++) {
		plumb_gmon_bb b;
		b.addr = decode(c->buf + c->pos, c->asz, c->big);
		b.count = decode(c->buf + c->pos + c->asz, c->asz, c->big);
		c->pos += 2 * c->asz;
		if (plumb_gmon_add_bb(g, &b, err))
			return -1;
	}
	return 0;
}

/* ---- the GNU format ------------------------------------------------- */

static int gnu_version(const char *name, const unsigned char *buf, size_t len,
		       plumb_gmon_order order, bool *big, uint32_t *version, plumb_error *err)
{
	if (len < GNU_HDR)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s: byte 0: truncated header: expected 20 bytes (\"gmon\", version, "
				  "12 spare bytes), found %zu", name, len);
	uint32_t le = (uint32_t)decode(buf + 4, 4, false), be = (uint32_t)decode(buf + 4, 4, true);
	if (order == PLUMB_GMON_ORDER_AUTO)
		*big = le > 1 && be <= 1;
	else
		*big = order == PLUMB_GMON_BIG;
	*version = *big ? be : le;
	if (*version > 1)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
				  "%s: byte 4: unsupported version %" PRIu32 ": expected 0 or 1",
				  name, *version);
	return 0;
}

static int gnu_records(cursor *c, plumb_gmon *g, uint32_t version, plumb_error *err)
{
	c->pos = GNU_HDR;
	while (c->pos < c->len) {
		c->rec = c->pos;
		unsigned tag = c->buf[c->pos++];
		int rc;
		if (tag == TAG_HIST)
			rc = gnu_hist(c, g, err);
		else if (tag == TAG_ARC)
			rc = gnu_arc(c, g, err);
		else if (tag == TAG_BB)
			rc = gnu_bb(c, g, version, err);
		else
			rc = plumb_fail(err, PLUMB_ERR_FORMAT,
					"%s: byte %zu: found bad tag %u (file corrupted?): expected 0 "
					"(histogram), 1 (call-graph arc) or 2 (basic-block counts)",
					c->name, c->rec, tag);
		if (rc)
			return -1;
		g->nrecords[tag]++;
	}
	return 0;
}

static int read_gnu(plumb_gmon *g, cursor *c, const plumb_gmon_layout *l, plumb_error *err)
{
	uint32_t version = 0;
	if (gnu_version(c->name, c->buf, c->len, l->order, &c->big, &version, err))
		return -1;
	g->format = PLUMB_GMON_GNU;
	g->version = version;
	g->big_endian = c->big;
	if (l->addr_size) {
		c->asz = l->addr_size;
		g->addr_size = c->asz;
		return gnu_records(c, g, version, err);
	}
	/* No executable: the address size under which the file parses. */
	plumb_error first;
	c->asz = g->addr_size = 8;
	if (gnu_records(c, g, version, &first) == 0)
		return 0;
	plumb_gmon_clear(g);
	g->format = PLUMB_GMON_GNU;
	g->version = version;
	g->big_endian = c->big;
	c->asz = g->addr_size = 4;
	if (gnu_records(c, g, version, err) == 0)
		return 0;
	if (err)
		*err = first;
	return -1;
}

/* ---- the BSD formats ------------------------------------------------ */

static int bsd_header(cursor *c, plumb_gmon *g, plumb_gmon_format fmt, plumb_gmon_hist *h,
		      plumb_error *err)
{
	uint64_t ncnt, v;
	c->rec = 0;
	c->what = "BSD header";
	if (field(c, c->asz, "low_pc", &h->low_pc, err) || field(c, c->asz, "high_pc", &h->high_pc, err) ||
	    field(c, 4, "ncnt (header and bin bytes)", &ncnt, err))
		return -1;
	size_t hdr = 2 * c->asz + 4;
	bool is44 = fmt == PLUMB_GMON_BSD44;
	if (fmt == PLUMB_GMON_AUTO)
		is44 = c->len - c->pos >= 4 &&
		       decode(c->buf + c->pos, 4, c->big) == PLUMB_GMON_BSD44_VERSION;
	g->format = is44 ? PLUMB_GMON_BSD44 : PLUMB_GMON_BSD_OLD;
	if (is44) {
		c->what = "4.4BSD header";
		if (field(c, 4, "version", &v, err))
			return -1;
		if (v != PLUMB_GMON_BSD44_VERSION)
			return plumb_fail(err, PLUMB_ERR_FORMAT,
					  "%s: byte %zu: 4.4BSD version 0x%" PRIx64 ": expected 0x%08x",
					  c->name, c->pos - 4, v, PLUMB_GMON_BSD44_VERSION);
		uint64_t rate;
		if (field(c, 4, "profrate", &rate, err) || field(c, 4, "spare word 1", &v, err) ||
		    field(c, 4, "spare word 2", &v, err) || field(c, 4, "spare word 3", &v, err))
			return -1;
		hdr = 2 * c->asz + 24;
		g->version = PLUMB_GMON_BSD44_VERSION;
		h->prof_rate = (uint32_t)rate;
	}
	if (ncnt < hdr)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s: byte %u: ncnt %" PRIu64 " is smaller than the %zu-byte header: "
				  "expected the header size plus 2 bytes per bin",
				  c->name, 2 * c->asz, ncnt, hdr);
	h->nbins = (uint32_t)((ncnt - hdr) / 2);
	strcpy(h->dimen, "seconds");
	h->dimen_abbrev = 's';
	return 0;
}

static int read_bsd(plumb_gmon *g, cursor *c, const plumb_gmon_layout *l, plumb_error *err)
{
	if (!l->addr_size || l->order == PLUMB_GMON_ORDER_AUTO)
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "%s: not a GNU gmon file (no \"gmon\" cookie at byte 0); a BSD-format "
				  "file can only be read with its executable, which gives its address "
				  "size and byte order", c->name);
	c->asz = l->addr_size;
	c->big = l->order == PLUMB_GMON_BIG;
	g->addr_size = c->asz;
	g->big_endian = c->big;
	g->version = 0;
	plumb_gmon_hist h = { .file_offset = 0 };
	if (bsd_header(c, g, l->format, &h, err))
		return -1;
	c->what = "BSD histogram";
	if (check_range(c, &h, err) || read_bins(c, &h, err))
		return -1;
	int rc = plumb_gmon_take_hist(g, &h, c->name, err);
	free(h.bins);
	if (rc)
		return -1;
	g->hz = h.prof_rate; /* old BSD: 0, the host's clock rate applies */
	c->what = "BSD call-graph arc";
	while (c->pos < c->len) {
		plumb_gmon_arc a;
		c->rec = c->pos;
		if (field(c, c->asz, "from_pc", &a.from_pc, err) ||
		    field(c, c->asz, "self_pc", &a.self_pc, err) || field(c, c->asz, "count", &a.count, err) ||
		    plumb_gmon_add_arc(g, &a, err))
			return -1;
	}
	return 0;
}

/* ---- entry points --------------------------------------------------- */

static int check_layout(const char *name, const plumb_gmon_layout *l, plumb_error *err)
{
	if (l->addr_size != 0 && l->addr_size != 4 && l->addr_size != 8)
		return plumb_fail(err, PLUMB_ERR_USAGE, "%s: address size %u: expected 4 or 8 bytes",
				  name, l->addr_size);
	return 0;
}

int plumb_gmon_read_buffer(plumb_gmon *g, const char *name, const unsigned char *buf,
			   size_t len, const plumb_gmon_layout *layout, plumb_error *err)
{
	plumb_gmon_layout none = { 0 };
	const plumb_gmon_layout *l = layout ? layout : &none;
	if (check_layout(name, l, err))
		return -1;
	plumb_gmon *tmp = plumb_gmon_new();
	if (!tmp)
		return plumb_fail_nomem(err);
	cursor c = { .name = name, .buf = buf, .len = len };
	bool cookie = len >= 4 && memcmp(buf, "gmon", 4) == 0;
	int rc;
	if (l->format == PLUMB_GMON_GNU || (l->format == PLUMB_GMON_AUTO && cookie)) {
		if (!cookie)
			rc = plumb_fail(err, PLUMB_ERR_FORMAT,
					"%s: byte 0: expected the cookie \"gmon\" of a GNU gmon file",
					name);
		else
			rc = read_gnu(tmp, &c, l, err);
	} else {
		rc = read_bsd(tmp, &c, l, err);
	}
	tmp->nfiles = 1;
	if (rc == 0 && g->nfiles == 0 && !g->nhists && !g->narcs && !g->nbbs) {
		/* the first file: hand its records over instead of copying them */
		plumb_gmon_clear(g);
		*g = *tmp;
		free(tmp);
		return 0;
	}
	if (rc == 0)
		rc = plumb_gmon_merge(g, tmp, name, err);
	plumb_gmon_free(tmp);
	return rc;
}

int plumb_gmon_read(plumb_gmon *g, const char *path, const plumb_gmon_layout *layout,
		    plumb_error *err)
{
	FILE *fp = plumb_open_input(path, err);
	if (!fp)
		return -1;
	struct stat st;
	if (fstat(fileno(fp), &st) != 0 || st.st_size < 0) {
		fclose(fp);
		return plumb_fail(err, PLUMB_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
	}
	size_t len = (size_t)st.st_size;
	unsigned char *buf = malloc(len ? len : 1);
	if (!buf) {
		fclose(fp);
		return plumb_fail_nomem(err);
	}
	size_t got = fread(buf, 1, len, fp);
	bool bad = ferror(fp);
	fclose(fp);
	int rc;
	if (bad || got != len)
		rc = plumb_fail(err, PLUMB_ERR_IO, "%s: read error after %zu of %zu bytes", path, got, len);
	else
		rc = plumb_gmon_read_buffer(g, path, buf, len, layout, err);
	free(buf);
	return rc;
}

bool plumb_gmon_detect(const unsigned char *head, size_t len)
{
	if (len < GNU_HDR || memcmp(head, "gmon", 4) != 0)
		return false;
	return decode(head + 4, 4, false) <= 1 || decode(head + 4, 4, true) <= 1;
}
