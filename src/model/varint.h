/* Private to libplumb: LEB128 varints (7 bits a byte, low bits first) and
 * zigzag signed deltas, the compact integers of the .plumb store's bulk
 * blocks. Bounds-checked decoding: a cut or overlong varint sets bad. */
#ifndef PLUMB_MODEL_VARINT_H
#define PLUMB_MODEL_VARINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PLUMB_VARINT_MAX 10 /* bytes of the longest uint64 */

/* Write v at out (room for PLUMB_VARINT_MAX bytes); the end of what was written. */
static inline uint8_t *plumb_varint_put(uint8_t *out, uint64_t v)
{
	while (v >= 0x80) {
		*out++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*out++ = (uint8_t)v;
	return out;
}

/* The difference cur - prev (mod 2^64) as a small unsigned number when it
 * is small either way: 0, -1, 1, -2, ... -> 0, 1, 2, 3, ... */
static inline uint64_t plumb_zigzag(uint64_t cur, uint64_t prev)
{
	uint64_t d = cur - prev;
	return (d << 1) ^ (uint64_t)-(int64_t)(d >> 63);
}

static inline uint64_t plumb_unzigzag(uint64_t z, uint64_t prev)
{
	return prev + ((z >> 1) ^ (uint64_t)-(int64_t)(z & 1));
}

typedef struct plumb_varint_in {
	const uint8_t *p, *end;
	bool bad; /* read past the end, or a varint longer than 64 bits */
} plumb_varint_in;

uint64_t plumb_varint_get_long(plumb_varint_in *in);

/* Most varints of a block are one or two bytes: those take the short way, */
static inline uint64_t plumb_varint_get(plumb_varint_in *in)
{
	const uint8_t *p = in->p;
	if (p < in->end && *p < 0x80) {
		in->p = p + 1;
		return *p;
	}
	if (in->end - p >= 2 && p[1] < 0x80) {
		in->p = p + 2;
		return (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
	}
	/* and ids below 2^21 (a pprof file's location ids) three */
	if (in->end - p >= 3 && p[2] < 0x80) {
		in->p = p + 3;
		return (uint64_t)(p[0] & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7 | (uint64_t)p[2] << 14;
	}
	return plumb_varint_get_long(in);
}

/* A run of varints (a packed repeated field) into out (room for one a
 * byte): how many. Those of three bytes or fewer with eight bytes to read
 * take no branch on their length, which mixed one- and two-byte ids would
 * mispredict; the rest, and the run's last few bytes, take
 * plumb_varint_get. in->bad as there. */
static inline size_t plumb_varint_get_run(plumb_varint_in *in, uint64_t *out)
{
	static const uint64_t keep[4] = { 0, 0x7f, 0x3fff, 0x1fffff };
	uint64_t *o = out;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (in->end - in->p >= 8) {
		uint64_t x;
		memcpy(&x, in->p, sizeof x);
		uint64_t stop = ~x & 0x8080808080808080u; /* the bytes that end a varint */
		unsigned len = stop ? ((unsigned)__builtin_ctzll(stop) >> 3) + 1 : 9;
		if (len > 3) {
			*o++ = plumb_varint_get(in);
			if (in->bad)
				return (size_t)(o - out);
			continue;
		}
		*o++ = ((x & 0x7f) | (x >> 1 & 0x3f80) | (x >> 2 & 0x1fc000)) & keep[len];
		in->p += len;
	}
#endif
	while (in->p < in->end && !in->bad)
		*o++ = plumb_varint_get(in);
	return (size_t)(o - out);
}

#endif
