/* Second source file of the gmon test program. */
unsigned long gm_work(unsigned long n)
{
	unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = (x << 1) ^ (x >> 3) ^ i;
	return x;
}
