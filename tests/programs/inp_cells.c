/* Unaligned 8-byte reads across a 64 KiB shadow leaf boundary, then
 * 2-byte writes and reads back (t_inputs_plugin.sh): the gcc plugin's inline
 * path must leave them to the runtime exactly as the hooks alone do.
 * scan reads bytes [p, p + n + 6] with p 100 bytes before a 64 KiB
 * boundary: rms 207 / memres cells, rounded out (52 at memres 4). */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

struct __attribute__((packed)) unaligned {
	char pad;
	long v;
};

NOINLINE long scan(const char *p, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += ((const struct unaligned *)(p + i - 1))->v;
	return s;
}

NOINLINE void stamp(short *q, int n)
{
	for (int i = 0; i < n; i++)
		q[i] = (short)(q[i] + i);
}

int main(void)
{
	char *base = aligned_alloc(65536, 3 * 65536);
	if (!base)
		return 1;
	for (int i = 0; i < 3 * 65536; i++)
		base[i] = (char)(i * 7);
	char *p = base + 65536 - 100;
	long s = scan(p, 200);
	stamp((short *)(p + 2), 100);
	s += scan(p, 200);
	printf("%ld\n", s);
	free(base);
	return 0;
}
