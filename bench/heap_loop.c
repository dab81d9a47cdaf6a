/* bench/heap.sh: N malloc + free pairs of 16..79 bytes (the allocator's fast path). */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	unsigned x = 1;
	for (long i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		char *p = malloc(16 + (x >> 16) % 64);
		__asm__ volatile("" : : "r"(p) : "memory");
		free(p);
	}
	return 0;
}
