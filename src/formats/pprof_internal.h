/* Private to the pprof reader and writer (src/formats/pprof_*.c): the wire
 * walker that checks a profile.proto message field by field (detection, and
 * the byte offset of what is wrong), the decoder of its samples and
 * locations, and the gzip wrapper. */
#ifndef PLUMB_FORMATS_PPROF_INTERNAL_H
#define PLUMB_FORMATS_PPROF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plumb/error.h"
#include "plumb/profile.h"

/* Where each Profile field of a repeated message starts (sample 2,
 * mapping 3, location 4, function 5), so that errors found after decoding
 * name the byte offset of the message at fault. */
enum { PPROF_OFF_SAMPLE, PPROF_OFF_MAPPING, PPROF_OFF_LOCATION, PPROF_OFF_FUNCTION,
       PPROF_OFF_KINDS };

typedef struct pprof_offsets {
	size_t *v[PPROF_OFF_KINDS];
	size_t n[PPROF_OFF_KINDS], cap[PPROF_OFF_KINDS];
} pprof_offsets;

void pprof_offsets_free(pprof_offsets *o);
/* The offset of the k-th message of a kind, or 0 if not recorded. */
size_t pprof_offset(const pprof_offsets *o, int kind, size_t k);

typedef struct pprof_walk_error {
	size_t offset;
	char what[256];       /* "expected ..., got ..." */
} pprof_walk_error;

/* Walk buf as a Profile message, every nested message too. strict: only
 * the fields profile.proto has (detection); otherwise unknown fields of a
 * valid wire type are skipped, as protobuf-c does. cut: buf is the head of
 * a longer file, so a field running past its end is no error. offs and
 * seen (bit n: a complete top-level field n was met, before any error)
 * may be NULL. Returns the number of top-level fields, or -1 with *e filled
 * (-2: out of memory). */
long pprof_walk(const uint8_t *buf, size_t len, bool strict, bool cut, pprof_offsets *offs,
		uint32_t *seen, pprof_walk_error *e);

/* The samples of a Profile, decoded here rather than by protobuf-c: they
 * are most of a big file, and flat arrays cost one allocation each
 * instead of three a sample. Sample i's values are val[val_off[i] ..
 * val_off[i + 1]) and its labels lab[lab_off[i] ..]; its location ids go
 * to the caller as they are decoded (pprof_take_samples). */
typedef struct pprof_label {
	int64_t key, str, num, num_unit;
} pprof_label;

typedef struct pprof_samples {
	size_t n, cap;
	size_t *val_off, *lab_off;     /* n + 1 each */
	uint64_t *val;        /* int64 values, as the wire has them */
	pprof_label *lab;
	size_t nval, cap_val, nlab, cap_lab;
} pprof_samples;

/* The locations, decoded here too: location i's lines (innermost first)
 * are fn[line_off[i] .. line_off[i + 1]) with line[] beside. */
typedef struct pprof_locations {
	size_t n, cap;
	uint64_t *id, *mapping_id, *address;
	size_t *line_off;     /* n + 1 */
	uint64_t *fn;         /* Line.function_id */
	int64_t *line;        /* Line.line */
	size_t nline, cap_fn, cap_line;
} pprof_locations;

/* Split a Profile that pprof_walk_skim accepted: its locations into *l,
 * every top-level field but the samples and locations copied into *rest
 * (malloc'd, for protobuf-c). 0, or -1 when a location is not one
 * pprof_walk accepts (-2: out of memory), with *e filled. */
int pprof_take_rest(const uint8_t *buf, size_t len, uint8_t **rest, size_t *rest_len,
		    pprof_locations *l, pprof_walk_error *e);
/* Its samples into *s (room made for ns samples of nval values in all),
 * each one's location ids (leaf first) handed to fn as soon as they are
 * decoded (sample i, ids[0..n)): the reader turns them into frames then,
 * without an array of every sample's ids. 0; -1 when a sample is not one
 * pprof_walk accepts (-2: out of memory), with *e filled; or fn's result
 * when it is not 0 (which stops the decoding). */
typedef int (*pprof_sample_fn)(void *ctx, size_t i, const uint64_t *ids, size_t n);
int pprof_take_samples(const uint8_t *buf, size_t len, size_t ns, size_t nval, pprof_samples *s,
		       pprof_sample_fn fn, void *ctx, pprof_walk_error *e);
void pprof_locations_free(pprof_locations *l);
void pprof_samples_free(pprof_samples *s);

/* pprof_walk (not strict, not cut) that leaves the samples' insides to
 * pprof_take_samples: it checks them as the walk would, and when it finds
 * them wrong, pprof_walk says where and what. */
long pprof_walk_skim(const uint8_t *buf, size_t len, pprof_offsets *offs, pprof_walk_error *e);

/* gzip: does buf start with its magic; inflate all of it (concatenated
 * members too) into a malloc'd buffer; deflate with a gzip header (as
 * members of pprof_gzip_member bytes, pprof_gz below). */
bool pprof_is_gzip(const uint8_t *buf, size_t len);
int pprof_gunzip(const char *path, const uint8_t *in, size_t len, uint8_t **out, size_t *out_len,
		 plumb_error *err);
/* The first bytes of a gzip stream, as many as inflate to at most cap. */
size_t pprof_gunzip_head(const uint8_t *in, size_t len, uint8_t *out, size_t cap);
int pprof_gzip(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len, plumb_error *err);

/* The writer's gzip (pprof_gzip.c): pieces of the message handed over as
 * they are made, each compressed into a gzip member of its own on a second
 * thread while the writer goes on; written in order at the end. */
typedef struct pprof_gz pprof_gz;
extern size_t pprof_gzip_member;   /* bytes a member (1 MiB; tests make it small) */
pprof_gz *pprof_gz_start(plumb_error *err);
/* buf (malloc'd, len bytes) as one member; freed once compressed (or now,
 * on failure). */
int pprof_gz_add(pprof_gz *z, uint8_t *buf, size_t len, plumb_error *err);
/* buf (malloc'd) as members of pprof_gzip_member bytes; freed at the end. */
int pprof_gz_add_split(pprof_gz *z, uint8_t *buf, size_t len, plumb_error *err);
/* Wait for the members, write them to out in order (out NULL: drop them)
 * and free z. */
int pprof_gz_finish(pprof_gz *z, FILE *out, plumb_error *err);

/* The order samples are added in: by part, then by frames from the root
 * (ties by file order). Each sample then shares its longest prefix of
 * frames with the one before, and the rest of its path is new in the
 * tree: no lookups. Sorted by a multikey quicksort, one frame a pass. */
typedef struct sitem {
	size_t off;           /* its frames: fr[off .. off + n) */
	uint32_t i, n, part;  /* the sample, its frame count, its part */
	uint32_t base;        /* c holds frames base .. base + 3 */
	uint32_t c[4];
} sitem;

/* Sort a[0..n) from symbol d on (0: the part; d > 0: frame d - 1 + 1, 0
 * past the end), ties by sample (pprof_sort.c). fr holds every sample's
 * frames. */
void pprof_sort_stacks(const plumb_id *fr, sitem *a, size_t n, size_t d);
/* The same from symbol 0, a part of the items sorted on a second thread
 * when there are PPROF_SORT_PAR of them or more: the same order. */
#define PPROF_SORT_PAR 20000
void pprof_sort_stacks_2(const plumb_id *fr, sitem *a, size_t n);

/* Most files need no sort: plumb's writer, like any walk of a tree, puts
 * the samples of each subtree together. Build p's tree from the samples in
 * the file's order (sample i: part part[i], frames fr[off[i] .. off[i +
 * 1]) from the root) while they come so: the parts one after the other,
 * and each divergence from the sample before making a child its parent
 * did not have; node_of[i] gets sample i's node, nodes has room for the
 * deepest stack (maxn frames) + 1. Only on a tree without nodes below the
 * part roots. 1: built; 0: the samples come in another order (or the tree
 * had nodes, or is too deep for the check), and the tree is as it was;
 * -1: out of memory (the tree as it was). */
int pprof_tree_grouped(plumb_profile *p, const plumb_id *fr, const size_t *off,
		       const plumb_id *part, size_t ns, size_t maxn, plumb_id *node_of,
		       plumb_id *nodes);

#endif
