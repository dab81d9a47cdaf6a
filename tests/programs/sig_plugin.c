/* Signal sampler test: a library that sig_dlopen.c loads with dlopen. */
double plugin_work(long n)
{
	double x = 0;
	for (long i = 0; i < n; i++)
		x = x * 0.999999 + 1.0;
	return x;
}
