/* A third source file without static functions, linked into gp_cycles
 * for -A's file order: its functions are never called. */
unsigned long third_a(unsigned long n)
{
	return n * 7;
}

unsigned long third_b(unsigned long n)
{
	return third_a(n) + 1;
}
