/* Varints: the decoder of the longer ones (model/varint.h). */
#include "model/varint.h"

uint64_t plumb_varint_get_long(plumb_varint_in *in)
{
	const uint8_t *p = in->p;
	uint64_t v = 0;
	if (in->end - p >= PLUMB_VARINT_MAX) { /* room for the longest: no bound to check */
		for (unsigned shift = 0; shift < 63; shift += 7) {
			uint8_t b = *p++;
			v |= (uint64_t)(b & 0x7f) << shift;
			if (!(b & 0x80)) {
				in->p = p;
				return v;
			}
		}
		if (*p <= 1) { /* the tenth byte holds bit 63 alone */
			in->p = p + 1;
			return v | (uint64_t)*p << 63;
		}
	} else {
		for (unsigned shift = 0; p < in->end; shift += 7) {
			uint8_t b = *p++;
			if (shift == 63 && b > 1)
				break; /* more than 64 bits */
			v |= (uint64_t)(b & 0x7f) << shift;
			if (!(b & 0x80)) {
				in->p = p;
				return v;
			}
		}
	}
	in->bad = true;
	in->p = in->end;
	return 0;
}
