/* gprof -i counts the records of a GNU gmon file as they stand in it (two
 * block records are two, whatever their blocks), which a summed reading no
 * longer tells. The file has already been read and checked by the gmon
 * reader; this walk only counts, and stops at anything short. */
#include <stdlib.h>
#include <string.h>

#include "plumb/gprof.h"

static uint32_t u32(const unsigned char *p, bool big)
{
	return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		   : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* Bytes of the record at p (tag byte excluded), or 0 when it does not fit. */
static size_t record_size(int tag, const unsigned char *p, size_t left, unsigned asz, bool big)
{
	switch (tag) {
	case 0: {
		size_t head = 2 * (size_t)asz + 24;
		if (left < head)
			return 0;
		size_t bins = u32(p + 2 * asz, big);
		return bins <= (left - head) / 2 ? head + 2 * bins : 0;
	}
	case 1:
		return left >= 2 * (size_t)asz + 4 ? 2 * (size_t)asz + 4 : 0;
	case 2: {
		if (left < 4)
			return 0;
		size_t n = u32(p, big);
		return n <= (left - 4) / (2 * (size_t)asz) ? 4 + n * 2 * asz : 0;
	}
	default:
		return 0;
	}
}

int plumb_gprof_gnu_record_counts(const char *path, unsigned addr_size, bool big_endian, size_t counts[3],
				  plumb_error *err)
{
	counts[0] = counts[1] = counts[2] = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return plumb_fail(err, PLUMB_ERR_IO, "%s: cannot open", path);
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, n;
	do {
		if (len == cap) {
			size_t nc = cap ? cap * 2 : 1 << 16;
			unsigned char *nb = realloc(buf, nc);
			if (!nb) {
				free(buf);
				fclose(f);
				return plumb_fail_nomem(err);
			}
			buf = nb;
			cap = nc;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	for (size_t pos = 20; pos < len;) {
		int tag = buf[pos++];
		size_t size = record_size(tag, buf + pos, len - pos, addr_size, big_endian);
		if (!size)
			break;
		counts[tag]++;
		pos += size;
	}
	free(buf);
	return 0;
}
