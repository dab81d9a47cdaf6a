/* libFuzzer target for the read-ahead thread (src/formats/readahead.c) and
 * the line source that runs it (src/formats/linesrc.c).
 *
 * Input: six setting bytes, then the payload (missing bytes read as 0).
 *   [0] how the payload is stored in the file, % 5: 0 plain, 1 gzip,
 *       2 zstd, 3 the gzip magic then the raw payload, 4 the zstd magic
 *       then the raw payload; (/ 5) & 1: 1 and 2 as two members/frames
 *   [1] 1 and 2: 0 keeps the compressed file whole, k cuts it to k/256
 *   [2] the ring test's chunk (1 + [2] % 64) and the sizes its fill gives
 *   [3] the sizes the ring test's consumer asks for
 *   [4] k > 0: the ring's fill fails after (k - 1) % (len + 1) bytes
 *   [5] odd: the ring's consumer stops after ([5] >> 1) / 128 of them
 *
 * Besides "never crash, leak or hang", two oracles:
 * - the ring: the payload through plumb_readahead with a fill of odd-sized
 *   pieces comes out as the same bytes in order, each with a mark no
 *   smaller than the bytes out so far, then the end or the fill's error
 *   (again on every later call), and stops cleanly at any point;
 * - the file: read line by line with the read-ahead and without it, in
 *   lockstep, gives the same lines and the same end or error; where the
 *   text is known (plain, gzip, zstd) the lines are the payload's, and a
 *   cut compressed file is an error.
 *
 * `make $(BUILD)/fuzz-readahead` builds it with fuzz/replay.c (make check
 * runs it over tests/fuzz/readahead, and make tsan under ThreadSanitizer);
 * `make fuzz FUZZ_TARGETS=readahead` fuzzes it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "formats/linesrc.h"
#include "formats/readahead.h"
#include "roundtrip.h"

#define SETTINGS 6

/* ---- the ring -------------------------------------------------------------- */

typedef struct ring_src {
	const uint8_t *p;
	size_t len, pos, fail_at;
	bool fail;
	unsigned calls, seed;
} ring_src;

/* Runs on the read-ahead's thread: pieces of 1..n bytes, then the end or
 * an error at fail_at. */
static ssize_t ring_fill(void *ctx, char *dst, size_t n, uint64_t *mark, plumb_error *err)
{
	ring_src *s = ctx;
	size_t limit = s->fail ? s->fail_at : s->len;
	*mark = s->pos;
	if (s->pos == limit && s->fail)
		return plumb_fail(err, PLUMB_ERR_IO, "fill fails at byte %zu", s->pos);
	size_t k = 1 + (s->calls++ * 31u + s->seed) % n;
	if (k > limit - s->pos)
		k = limit - s->pos;
	memcpy(dst, s->p + s->pos, k);
	s->pos += k;
	*mark = s->pos;
	return (ssize_t)k;
}

static void ring(const uint8_t *set, const uint8_t *p, size_t len)
{
	ring_src src = { .p = p, .len = len, .seed = set[2] };
	if (set[4]) {
		src.fail = true;
		src.fail_at = (size_t)(set[4] - 1) % (len + 1);
	}
	size_t limit = src.fail ? src.fail_at : len;
	bool stop = set[5] & 1;
	size_t stop_at = len * (set[5] >> 1) / 128;
	plumb_readahead ra;
	plumb_error err;
	if (plumb_readahead_start(&ra, ring_fill, &src, 1 + set[2] % 64, &err) != 0)
		abort();
	size_t got = 0;
	uint64_t last = 0;
	for (unsigned k = 0; !stop || got < stop_at; k++) {
		char buf[100];
		size_t want = 1 + (k * 13u + set[3]) % 97;
		uint64_t mark = UINT64_MAX;
		ssize_t r = plumb_readahead_read(&ra, buf, want, &mark, &err);
		if (r > 0) {
			if ((size_t)r > want || got + (size_t)r > limit ||
			    memcmp(buf, p + got, (size_t)r) != 0)
				abort();
			got += (size_t)r;
			if (mark < got || mark < last || mark > limit)
				abort();
			last = mark;
			continue;
		}
		if (r == 0 && (src.fail || got != len || plumb_readahead_read(&ra, buf, want, &mark, &err) != 0))
			abort();
		if (r < 0) {
			char want_msg[64];
			snprintf(want_msg, sizeof want_msg, "fill fails at byte %zu", limit);
			if (!src.fail || got != limit || err.code != PLUMB_ERR_IO ||
			    strcmp(err.message, want_msg) != 0)
				abort();
			err.code = PLUMB_OK;
			if (plumb_readahead_read(&ra, buf, want, &mark, &err) != -1 || err.code != PLUMB_ERR_IO)
				abort();
		}
		break;
	}
	plumb_readahead_stop(&ra);
}

/* ---- the file -------------------------------------------------------------- */

typedef struct bytes {
	uint8_t *p;
	size_t n;
} bytes;

static void append(bytes *b, const void *p, size_t n)
{
	uint8_t *q = realloc(b->p, b->n + n + 1);
	if (!q)
		abort();
	memcpy(q + b->n, p, n);
	b->p = q;
	b->n += n;
}

static void gzip_member(bytes *out, const uint8_t *p, size_t n)
{
	z_stream zs = { 0 };
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	uLong cap = deflateBound(&zs, (uLong)n);
	uint8_t *z = malloc(cap);
	if (!z)
		abort();
	zs.next_in = (Bytef *)(uintptr_t)p;
	zs.avail_in = (uInt)n;
	zs.next_out = z;
	zs.avail_out = (uInt)cap;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
		abort();
	append(out, z, cap - zs.avail_out);
	deflateEnd(&zs);
	free(z);
}

static void zstd_frame(bytes *out, const uint8_t *p, size_t n)
{
	size_t cap = ZSTD_compressBound(n);
	uint8_t *z = malloc(cap);
	if (!z)
		abort();
	size_t k = ZSTD_compress(z, cap, p, n, 3);
	if (ZSTD_isError(k))
		abort();
	append(out, z, k);
	free(z);
}

/* What the file's lines must be: text's (a prefix of them when the file
 * is cut, followed by an error), or anything both ways agree on. */
typedef struct expect {
	const uint8_t *text; /* NULL: not known */
	size_t len;
	bool cut;
} expect;

static void same_lines(const char *path, const expect *x)
{
	plumb_linesrc a, b;
	plumb_error ea, eb;
	if (plumb_linesrc_open(&a, path, &ea) != 0 || plumb_linesrc_open(&b, path, &eb) != 0)
		abort();
	bool nul = x->text && memchr(x->text, 0, x->len);
	size_t off = 0;
	for (;;) {
		char *la, *lb;
		size_t na, nb;
		plumb_linesrc_readahead_min = 0;           /* a: always read ahead */
		int ra = plumb_linesrc_next(&a, &la, &na, &ea);
		plumb_linesrc_readahead_min = UINT64_MAX;  /* b: never */
		int rb = plumb_linesrc_next(&b, &lb, &nb, &eb);
		if (ra != rb || !a.ra || b.ra)
			abort();
		if (ra == 1) {
			if (na != nb || memcmp(la, lb, na) != 0)
				abort();
			if (x->text) {
				if (off + na > x->len || memcmp(la, x->text + off, na) != 0 ||
				    (off + na < x->len && x->text[off + na] != '\n'))
					abort();
				off += na + 1;
			}
			continue;
		}
		if (ra == 0 && x->text && (x->cut || off < x->len))
			abort();
		if (ra < 0 && (ea.code != eb.code || strcmp(ea.message, eb.message) != 0))
			abort();
		if (ra < 0 && x->text && !x->cut && !nul)
			abort();
		break;
	}
	plumb_linesrc_close(&a);
	plumb_linesrc_close(&b);
}

static void file(const uint8_t *set, const uint8_t *p, size_t len)
{
	unsigned mode = set[0] % 5;
	bool two = (set[0] / 5) & 1;
	bytes f = { 0 };
	expect x = { p, len, false };
	if (mode == 1 || mode == 2) {
		void (*pack)(bytes *, const uint8_t *, size_t) = mode == 1 ? gzip_member : zstd_frame;
		size_t half = two ? len / 2 : len;
		pack(&f, p, half);
		size_t first = f.n;
		if (two)
			pack(&f, p + half, len - half);
		size_t magic = mode == 1 ? 2 : 4;
		if (set[1]) {
			f.n = f.n * set[1] / 256;
			x.cut = true;
			if (f.n < magic)
				x.text = NULL; /* no longer says it is compressed */
			if (two && f.n == first)
				x = (expect){ p, half, false }; /* the first member whole */
		}
	} else if (mode == 3 || mode == 4) {
		static const uint8_t gz[] = { 0x1f, 0x8b }, zs[] = { 0x28, 0xb5, 0x2f, 0xfd };
		append(&f, mode == 3 ? gz : zs, mode == 3 ? sizeof gz : sizeof zs);
		append(&f, p, len);
		x.text = NULL;
	} else {
		append(&f, p, len);
	}
	same_lines(fuzz_put_temp(f.p ? f.p : (const uint8_t *)"", f.n), &x);
	free(f.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t set[SETTINGS] = { 0 };
	memcpy(set, data, size < SETTINGS ? size : SETTINGS);
	const uint8_t *p = size > SETTINGS ? data + SETTINGS : data;
	size_t len = size > SETTINGS ? size - SETTINGS : 0;
	ring(set, p, len);
	file(set, p, len);
	return 0;
}
