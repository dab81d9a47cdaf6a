/* Inlined into cg_main.c at -O2: its lines appear under fi=/fe=. */
#ifndef CG_UTIL_H
#define CG_UTIL_H

static inline long cg_sum_squares(const long *v, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += v[i] * v[i];
	return s;
}

long cg_scale(long x, int k);

#endif
