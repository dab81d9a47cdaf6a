/* longjmp out of a recursion, then a crash (t_inputs.sh): the frames the
 * jump left are closed, the calls after it have main as their caller, and
 * with "crash" the report is still written when SIGSEGV ends the program. */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

static jmp_buf jb;
static volatile int sink;

__attribute__((noinline)) long sum(const int *a, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}

__attribute__((noinline)) void deep(int d)
{
	if (d == 0)
		longjmp(jb, 1);
	deep(d - 1);
	sink++; /* not a tail call */
}

int main(int argc, char **argv)
{
	int a[30] = { 0 };
	if (!setjmp(jb))
		deep(5);
	long s = sum(a, 10) + sum(a, 30);
	printf("%ld\n", s);
	if (argc > 1 && strcmp(argv[1], "crash") == 0)
		*(volatile int *)(long)sink = 1;
	return 0;
}
