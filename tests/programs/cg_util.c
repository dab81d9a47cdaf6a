/* A second translation unit: a real call across files. */
#include "cg_util.h"

long cg_scale(long x, int k)
{
	long v[16];
	for (int i = 0; i < 16; i++)
		v[i] = x + i * k;
	return cg_sum_squares(v, 16) % 1000003;
}
