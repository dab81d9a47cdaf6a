// gprof comparison program in C++: demangled names in the reports,
// overloads, a method, a template; symspecs match the mangled names.
#include <cstdio>

static volatile unsigned long sink;

namespace ns {
unsigned long work(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757UL + i;
	return x;
}

unsigned long work(double d)
{
	return work((unsigned long)d) + 1;
}
} // namespace ns

struct Acc {
	unsigned long total = 0;
	void add(unsigned long n) { total += ns::work(n); }
};

template <typename T> T twice(T v)
{
	return ns::work((unsigned long)v) + ns::work((unsigned long)v / 2);
}

int main()
{
	Acc a;
	for (int i = 0; i < 2000; i++) {
		a.add(40000);
		a.total += ns::work(20000.0);
		a.total += twice<unsigned long>(10000);
	}
	sink = a.total;
	std::printf("%lu\n", a.total & 1);
	return 0;
}
