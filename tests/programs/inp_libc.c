/* The libc calls plumb cc wraps (t_inputs.sh): a string's length reads
 * its bytes and the NUL (100 bytes: 25 cells), a buffer zeroed with memset
 * then summed was written first (rms 0), memcpy reads its source (n cells)
 * and memcmp of equal buffers reads both (2n cells). */
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static char text[128] __attribute__((aligned(16)));
static int src[64] __attribute__((aligned(16))), dst[64] __attribute__((aligned(16)));

NOINLINE size_t length(const char *s)
{
	return strlen(s);
}

NOINLINE long zero_then_sum(int *a, int n)
{
	memset(a, 0, sizeof *a * (size_t)n);
	long s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}

NOINLINE void copy(int *d, const int *s, int n)
{
	memcpy(d, s, sizeof *d * (size_t)n);
}

NOINLINE int same(const int *a, const int *b, int n)
{
	return memcmp(a, b, sizeof *a * (size_t)n) == 0;
}

int main(void)
{
	memset(text, 'x', 99);
	size_t len = length(text);
	long z = zero_then_sum(dst, 50);
	copy(dst, src, 40);
	int eq = same(dst, src, 30);
	printf("%zu %ld %d\n", len, z, eq);
	return 0;
}
