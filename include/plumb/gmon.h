/* plumb: gmon.out, the profile that programs built with `gcc -pg` write.
 *
 * This header gives the raw content of one or more gmon files, read and
 * summed exactly as GNU gprof 2.40 sums them, and the writer of the GNU
 * format (gprof -s, gmon.sum). Turning addresses into functions is the
 * job of plumb/elfsym.h; gprof's numbers (self time per symbol, arcs per
 * symbol pair, propagation) are computed by its users.
 *
 * Formats (docs/gmon.md has the byte layouts):
 *  - GNU: 20-byte header "gmon" + u32 version + 12 spare bytes, then tagged
 *    records until the end of the file: 0 histogram, 1 call arc, 2
 *    basic-block counts, any number of each in any order;
 *  - 4.4BSD: low_pc, high_pc, u32 ncnt, u32 version 0x00051879, u32
 *    profrate, 12 spare bytes, then u16 bins, then untagged arcs;
 *  - old BSD: low_pc, high_pc, u32 ncnt, then u16 bins, then untagged arcs
 *    (BSD arc counts are address-sized).
 *
 * Address size (4 or 8 bytes) and byte order are those of the executable
 * that wrote the file: gprof never guesses them, and callers that have the
 * executable should pass them (plumb_exe_info has both). When they are not
 * given (0 / PLUMB_GMON_ORDER_AUTO), a GNU file is decoded as follows:
 *  - byte order: the version field read both ways; the order in which it
 *    is 0 or 1 wins (version 0 is the same both ways: the host's order);
 *  - address size: 8 and 4 are both tried on the whole file; the size
 *    under which every record is well-formed and the records end exactly at
 *    the end of the file wins; if both do, 8 (the size of every 64-bit
 *    Linux target). If neither does, the error is the one for size 8.
 * BSD files have no cookie and no tags, so nothing in them can be checked:
 * they are read only when the address size and byte order are given.
 *
 * Addresses are kept as the file holds them. glibc subtracts the load
 * address of a position-independent executable before writing, so for PIE
 * and non-PIE alike they compare directly with the ELF's symbol values
 * (st_value), which is what gprof does.
 */
#ifndef PLUMB_GMON_H
#define PLUMB_GMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plumb/error.h"

#define PLUMB_GMON_BSD44_VERSION 0x00051879u /* 4.4BSD header's version word */

typedef enum plumb_gmon_format {
	PLUMB_GMON_AUTO = 0,  /* read: GNU if the cookie is there, else BSD (gprof -O a) */
	PLUMB_GMON_GNU,       /* "gmon" cookie, tagged records (gprof -O m) */
	PLUMB_GMON_BSD_OLD,   /* old BSD, no version word (gprof -O b) */
	PLUMB_GMON_BSD44      /* 4.4BSD (gprof -O 4) */
} plumb_gmon_format;

typedef enum plumb_gmon_order {
	PLUMB_GMON_ORDER_AUTO = 0, /* detect (GNU files only, see above) */
	PLUMB_GMON_LITTLE,
	PLUMB_GMON_BIG
} plumb_gmon_order;

/* One histogram record. Bin i covers the addresses
 * [low_pc + i * w, low_pc + (i + 1) * w) with w = (high_pc - low_pc) / nbins
 * (gprof's exact integer arithmetic is in plumb_gmon_hist_scale's users).
 * Records with the same range are added bin by bin, so a bin may exceed
 * the 16 bits of the file. */
typedef struct plumb_gmon_hist {
	uint64_t low_pc;      /* first address sampled */
	uint64_t high_pc;     /* one past the last */
	uint32_t nbins;       /* number of bins (GNU hist_size, which is a count) */
	uint32_t prof_rate;   /* samples per second of the profiling clock (hz) */
	char dimen[16];       /* unit, NUL-terminated (15 bytes in the file): "seconds" */
	char dimen_abbrev;    /* 's' */
	uint64_t *bins;       /* nbins counts (u16 each in the file) */
	uint64_t file_offset; /* where the record starts in the first file read */
} plumb_gmon_hist;

/* One call-graph arc: from_pc is inside the caller (glibc: the call's
 * return address rounded down to 16 bytes), self_pc inside the callee
 * (glibc: a few bytes after its entry). Records with the same pair are
 * summed. */
typedef struct plumb_gmon_arc {
	uint64_t from_pc;
	uint64_t self_pc;
	uint64_t count;       /* traversals: u32 in GNU files, address-sized in BSD */
} plumb_gmon_arc;

/* Basic-block execution count (GNU version-1 tag 2; nothing writes these
 * today). Equal addresses are summed. */
typedef struct plumb_gmon_bb {
	uint64_t addr;
	uint64_t count;
} plumb_gmon_bb;

/* The content of one gmon file, or the sum of several. Arrays keep the
 * order in which records first appeared (gprof builds its arc lists in
 * this order); a record that adds to an earlier one stays at the earlier
 * one's place. */
typedef struct plumb_gmon {
	plumb_gmon_format format; /* of the first file read */
	unsigned addr_size;       /* 4 or 8 */
	bool big_endian;
	uint32_t version;         /* GNU: header version (0 or 1); 4.4BSD: 0x51879; old BSD: 0 */
	uint32_t hz;              /* prof_rate of the first histogram (4.4BSD: profrate;
				   * old BSD: 0, the caller uses the host's clock); 0 if none */
	plumb_gmon_hist *hists;
	size_t nhists;
	plumb_gmon_arc *arcs;
	size_t narcs;
	plumb_gmon_bb *bbs;
	size_t nbbs;
	size_t nfiles;            /* files summed into this */
	size_t nrecords[3];       /* GNU files: records by tag (0 histogram, 1 arc, 2 block
				   * counts) as they stand in the files, before any summing
				   * (gprof -i's counts); BSD files add nothing */
	/* private: hash indexes for summing arcs and bb records */
	uint32_t *arc_ix, *bb_ix;
	size_t arc_ix_cap, bb_ix_cap, arcs_cap, bbs_cap;
} plumb_gmon;

/* How to decode a file. A zeroed struct is "detect everything". */
typedef struct plumb_gmon_layout {
	unsigned addr_size;       /* 4 or 8; 0 = detect (GNU only) */
	plumb_gmon_order order;   /* byte order; AUTO = detect (GNU only) */
	plumb_gmon_format format; /* AUTO as gprof -O a; or force one */
	plumb_warn_fn warn;       /* may be NULL; e.g. a version-0 BB record skipped */
	void *warn_ctx;
} plumb_gmon_layout;

plumb_gmon *plumb_gmon_new(void);
void plumb_gmon_free(plumb_gmon *g);

/* Read the file at path and add its records to g (which may be empty or
 * hold earlier files: that is how several files are summed, gprof a.out
 * gmon.1 gmon.2). On an error g is left as it was before the call.
 *
 * Errors (PLUMB_ERR_FORMAT unless said) name the file, the byte offset and
 * what was expected, e.g.
 *   "g.out: byte 29: truncated histogram record (starting at byte 20): expected
 *    high_pc (8 bytes), found 1 byte"
 *   "g.out: byte 41: found bad tag 7 (file corrupted?): expected 0 (histogram),
 *    1 (call-graph arc) or 2 (basic-block counts)"
 *   "g.out: byte 4: unsupported version 3: expected 0 or 1"
 *   "g.out: byte 61: histogram record (starting at byte 20) claims 4294967295 bins of 2
 *    bytes, but only 6 bytes are left in the file"
 *   "g.out: byte 69: overlapping histogram records: 0x1008-0x1018 overlaps
 *    0x1000-0x1010 read before (expected the same range or a disjoint one)"
 * plus: a histogram whose dimension, abbreviation or bin width differs from
 * the first one; low_pc > high_pc; a file whose address size or byte
 * order differs from the files already in g (formats may mix: g->format
 * is the first file's); a BSD file without a given layout
 * (PLUMB_ERR_USAGE); a version-0 BB record (PLUMB_ERR_UNSUPPORTED).
 * Counts in the file are checked against its size before anything is
 * allocated. */
int plumb_gmon_read(plumb_gmon *g, const char *path, const plumb_gmon_layout *layout,
		    plumb_error *err);
/* The same on bytes in memory; name is used in messages. */
int plumb_gmon_read_buffer(plumb_gmon *g, const char *name, const unsigned char *buf,
			   size_t len, const plumb_gmon_layout *layout, plumb_error *err);

/* Add everything of src into dst with gprof's rules (as if src's files had
 * been read after dst's): equal histogram ranges add bin by bin, an
 * overlapping different range, another dimension or bin width, or another
 * address size or byte order is an error naming src_name; equal arcs and
 * equal BB addresses are summed; counts that would wrap 64 bits fail with
 * PLUMB_ERR_OVERFLOW. dst may be empty (it then takes src's layout). */
int plumb_gmon_merge(plumb_gmon *dst, const plumb_gmon *src, const char *src_name,
		     plumb_error *err);

/* The largest gmon.out the writer makes (1 GiB): counts that would need more
 * (continuation records of histogram bins, arcs, blocks), or one count that
 * would need over 4,096 records, are refused with PLUMB_ERR_OVERFLOW before
 * anything is written. */
#define PLUMB_GMON_MAX_WRITE (1ull << 30)
/* Write g in the GNU format (version 1) with g's address size and byte
 * order, atomically (a temporary file renamed over path): one histogram
 * record per range (split into several records with the same range when a
 * bin exceeds 65535, which gprof adds back together), one arc record per
 * arc (split the same way past 2^32 - 1), and the BB records if any. The
 * result read back by plumb_gmon_read or GNU gprof gives the same numbers
 * as the files g was read from. */
int plumb_gmon_write(const plumb_gmon *g, const char *path, plumb_error *err);
int plumb_gmon_write_stream(const plumb_gmon *g, FILE *out, plumb_error *err);

/* gprof's bin width in 2-byte units, ((high_pc - low_pc) / 2) / nbins as
 * a double (its "hist_scale"); 0 for an empty record. */
double plumb_gmon_hist_scale(const plumb_gmon_hist *h);

/* gprof's credit of histogram samples to address ranges (functions, or
 * the lines inside them): the one copy, used by the gmon.out reader and by
 * the gprof engine (tested byte for byte against GNU gprof).
 *
 * gprof works in 2-byte units with truncated edges: bin i covers
 * [low_pc / 2 + (uint64_t)(scale * i), low_pc / 2 + (uint64_t)(scale * (i + 1)))
 * and range j covers [start_j / 2, start_(j+1) / 2); the bin's count goes to
 * the ranges it overlaps in proportion to the overlap, count * overlap /
 * scale samples each, so a bin that straddles two ranges is split and a
 * part outside every range is credited to none. Ranges are given by their
 * starts, ascending; range j ends where range j + 1 starts, so n ranges
 * read n + 1 starts (gprof itself passes its symbols' addresses and n =
 * nsym - 1: its last symbol gets no time). */
typedef struct plumb_gmon_credit {
	const uint64_t *start; /* start of range 0 */
	size_t stride;         /* bytes from one start to the next (sizeof(uint64_t) for an
				* array; the size of a struct to read a field of each) */
	size_t n;              /* number of ranges */
	uint64_t low_pc;       /* of the histogram being credited */
	double scale;          /* bin width in 2-byte units: gprof takes the first
				* histogram's (plumb_gmon_hist_scale) for all */
	/* called for every range a bin overlaps, in ascending range order */
	void (*add)(void *ctx, size_t range, double samples);
	void *ctx;
	size_t cursor;         /* private: where the previous bin's walk ended; 0 to start */
} plumb_gmon_credit;

/* Credit count samples of bin i of the histogram at c->low_pc. Bins given
 * in ascending order take linear time in all. */
void plumb_gmon_credit_bin(plumb_gmon_credit *c, uint32_t i, uint64_t count);
/* Every bin of h, in order (sets c->low_pc and restarts the walk). */
void plumb_gmon_credit_hist(plumb_gmon_credit *c, const plumb_gmon_hist *h);

/* Sum of all histogram bins (gprof's total_time in samples). */
uint64_t plumb_gmon_total_samples(const plumb_gmon *g);

/* True if the first bytes of a file are a GNU gmon header ("gmon" and a
 * version of 0 or 1 in either byte order). */
bool plumb_gmon_detect(const unsigned char *head, size_t len);

/* The profiling runtime's own functions (the mcount family), NULL-ended:
 * gprof 2.40 keeps them out of time propagation, the call graph and the
 * flat profile (its default_excluded_list), and so does plumb's estimate. */
extern const char *const plumb_gmon_mcount_family[];

#endif
