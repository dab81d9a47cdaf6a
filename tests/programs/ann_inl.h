/* plumb annotate e2e: code inlined into ann_rec.c's work(). */
static inline __attribute__((always_inline)) long ann_scale(long v, int k)
{
	long r = v;
	for (int i = 0; i < k; i++)
		r = r * 3 + i;
	return r;
}
