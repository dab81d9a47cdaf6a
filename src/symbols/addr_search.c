/* The binary search behind every "symbol (row, range) at address" lookup. */
#include <string.h>

#include "plumb/symbols.h"

ptrdiff_t plumb_addr_search(const void *base, size_t n, size_t stride, size_t start_off, uint64_t addr)
{
	const unsigned char *p = base;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t start;
		memcpy(&start, p + mid * stride + start_off, sizeof start);
		if (start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ptrdiff_t)lo - 1;
}
