/* gprof comparison program: two separate cycles (a->b->c->a and d<->e),
 * a function reached from both, and equal-time ties. Runs about 0.3 s. */
#include <stdio.h>

static volatile unsigned long sink;

unsigned long spin(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}

unsigned long cb(unsigned long n);
unsigned long cc(unsigned long n);
unsigned long de(unsigned long n);

unsigned long ca(unsigned long n)
{
	return n == 0 ? spin(3000) : spin(2000) + cb(n - 1);
}

unsigned long cb(unsigned long n)
{
	return n == 0 ? 1 : cc(n - 1) + spin(1000);
}

unsigned long cc(unsigned long n)
{
	return n == 0 ? 2 : ca(n - 1) + (n & 1 ? spin(500) : 0);
}

unsigned long dd(unsigned long n)
{
	unsigned long x = spin(4000);
	return n == 0 ? x : x + de(n - 1);
}

unsigned long de(unsigned long n)
{
	return n == 0 ? 3 : dd(n - 1);
}

unsigned long tiny1(void) { return 1; }
unsigned long tiny2(void) { return 2; }

int main(void)
{
	unsigned long t = 0;
	for (unsigned long i = 0; i < 40000; i++) {
		t += ca(i % 7);
		t += dd(i % 4);
		t += tiny1() + tiny2();
	}
	sink = t;
	printf("%lu\n", t & 1);
	return 0;
}
