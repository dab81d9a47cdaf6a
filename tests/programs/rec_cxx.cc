// C++ names: samples land in calc::Engine::spin(unsigned long), which the
// profile must show demangled.
namespace calc {
struct Engine {
	__attribute__((noinline)) unsigned long spin(unsigned long n);
};
unsigned long Engine::spin(unsigned long n)
{
	unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 11;
	return x;
}
} // namespace calc

int main()
{
	calc::Engine e;
	return (int)(e.spin(200000000UL) & 1);
}
