/* libFuzzer target for the gmon.out decoder (include/plumb/gmon.h), without
 * an executable: the first input byte picks the layout a caller would give
 * (address size, byte order, format; 0 bits = detect), the rest is the file.
 *
 * `make $(BUILD)/fuzz-gmon` builds it with fuzz/replay.c, which runs every
 * file of the directories it is given once (make check runs it over
 * tests/fuzz/gmon). For real fuzzing (from the repository root; clang is
 * Debian's clang):
 *
 *   clang -g -O1 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc \
 *     -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 *     fuzz/gmon.c src/formats/gmon_read.c src/formats/gmon_write.c src/formats/gmon_model.c \
 *     src/formats/gmon_credit.c src/formats/fileio.c src/model/error.c \
 *     -lm -o build/fuzz-gmon-lf
 *   mkdir -p build/fuzz-corpus-gmon
 *   ./build/fuzz-gmon-lf build/fuzz-corpus-gmon tests/fuzz/gmon
 *
 * Besides "never crash, leak or hang", it checks an oracle: whatever the
 * decoder accepts, the writer writes (GNU format, same address size and
 * byte order), and reading that back gives the same histograms, arcs and
 * block counts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/gmon.h"

static void check_same(const plumb_gmon *a, const plumb_gmon *b)
{
	if (a->nhists != b->nhists || a->narcs != b->narcs || a->nbbs != b->nbbs ||
	    a->addr_size != b->addr_size || a->big_endian != b->big_endian)
		abort();
	for (size_t i = 0; i < a->nhists; i++) {
		const plumb_gmon_hist *x = &a->hists[i], *y = &b->hists[i];
		if (x->low_pc != y->low_pc || x->high_pc != y->high_pc || x->nbins != y->nbins)
			abort();
		for (uint32_t k = 0; k < x->nbins; k++)
			if (x->bins[k] != y->bins[k])
				abort();
	}
	for (size_t i = 0; i < a->narcs; i++)
		if (a->arcs[i].from_pc != b->arcs[i].from_pc ||
		    a->arcs[i].self_pc != b->arcs[i].self_pc || a->arcs[i].count != b->arcs[i].count)
			abort();
	for (size_t i = 0; i < a->nbbs; i++)
		if (a->bbs[i].addr != b->bbs[i].addr || a->bbs[i].count != b->bbs[i].count)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	static const unsigned sizes[] = { 0, 4, 8, 0 };
	plumb_gmon_layout lay = { .addr_size = sizes[data[0] & 3],
				  .order = (plumb_gmon_order)((data[0] >> 2) % 3),
				  .format = (plumb_gmon_format)((data[0] >> 4) & 3) };
	plumb_gmon *g = plumb_gmon_new();
	if (!g)
		abort();
	plumb_error err;
	if (plumb_gmon_read_buffer(g, "fuzz", data + 1, size - 1, &lay, &err) == 0) {
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);
		if (!fp)
			abort();
		if (plumb_gmon_write_stream(g, fp, &err) != 0) {
			/* the writer writes what the decoder gives, unless its counts
			 * would need a file past the writer's bound */
			if (err.code != PLUMB_ERR_OVERFLOW)
				abort();
			fclose(fp);
			free(buf);
			plumb_gmon_free(g);
			return 0;
		}
		if (fclose(fp) != 0)
			abort();
		plumb_gmon_layout back = { .addr_size = g->addr_size,
					   .order = g->big_endian ? PLUMB_GMON_BIG : PLUMB_GMON_LITTLE,
					   .format = PLUMB_GMON_GNU };
		plumb_gmon *h = plumb_gmon_new();
		if (!h || plumb_gmon_read_buffer(h, "written", (unsigned char *)buf, len, &back, &err))
			abort();
		check_same(g, h);
		plumb_gmon_free(h);
		free(buf);
	} else if (err.code != PLUMB_ERR_FORMAT && err.code != PLUMB_ERR_OVERFLOW &&
		   err.code != PLUMB_ERR_UNSUPPORTED && err.code != PLUMB_ERR_USAGE) {
		abort();
	}
	plumb_gmon_free(g);
	return 0;
}
