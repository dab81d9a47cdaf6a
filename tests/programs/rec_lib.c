/* A shared library function (linked) and one to dlopen. Built twice:
 * -DLIBNAME=lib_linked and -DLIBNAME=lib_loaded. */
static volatile unsigned long sink;

__attribute__((noinline)) void LIBNAME(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 3;
	sink = x;
}
