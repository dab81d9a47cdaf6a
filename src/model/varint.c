/* Varints: the decoder of the longer ones (model/varint.h). */
#include "model/varint.h"

uint64_t plumb_varint_get_long(plumb_varint_in *in)
{
	uint64_t v = 0;
	for (unsigned shift = 0; in->p < in->end; shift += 7) {
		uint8_t b = *in->p++;
		if (shift == 63 && b > 1)
			break; /* more than 64 bits */
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	in->bad = true;
	in->p = in->end;
	return 0;
}
