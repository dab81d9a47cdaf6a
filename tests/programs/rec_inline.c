/* Inlined functions: hot() calls outer_step() at line 20, which calls
 * inner_step() at line 13, both always inlined; samples land in inner_step. */
#include <stdlib.h>
static volatile unsigned long sink;
static inline __attribute__((always_inline)) unsigned long inner_step(unsigned long x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005UL + 1;
	return x;
}
static inline __attribute__((always_inline)) unsigned long outer_step(unsigned long x)
{
	x = inner_step(x);
	return x ^ (x >> 3);
}
__attribute__((noinline)) void hot(void)
{
	unsigned long x = sink;
	for (int i = 0; i < 300000; i++)
		x = outer_step(x);
	sink = x;
}
int main(void) { hot(); return 0; }
