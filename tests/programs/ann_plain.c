/* plumb annotate e2e: a small program without recursion or inlining, for
 * byte-for-byte comparison with callgrind_annotate (tests/e2e/t_annotate.sh). */
#include <stdio.h>

static int square(int x)
{
	return x * x;
}

static long sum_squares(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += square(i);
	return s;
}

static long mix(int n)
{
	long h = 7;
	for (int i = 0; i < n; i++)
		h = h * 31 + i;
	return h;
}

int main(void)
{
	long t = 0;
	for (int k = 0; k < 40; k++)
		t += sum_squares(500);
	t += mix(3000);
	printf("%ld\n", t);
	return 0;
}
