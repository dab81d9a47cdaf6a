/* The second source file of gp_main: a caller and a static helper here. */
static unsigned long mix(unsigned long x)
{
	return (x ^ (x >> 7)) * 2654435761UL;
}

unsigned long second_leaf(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++)
		x = mix(x) + i;
	return x;
}

unsigned long second_work(unsigned long n)
{
	return second_leaf(n) + second_leaf(n / 3);
}
