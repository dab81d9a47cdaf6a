/* Reads of cells an ancestor counted, the paths the gcc plugin puts inline
 * (t_inputs_plugin.sh compares the reports with its inline paths on and
 * off): a leaf reading what its caller read, siblings reading what their
 * grandparent read (the ancestor found last), that ancestor returning and a
 * new one at its depth whose callees read cells stamped in the old range
 * (own_then_half, second_half),
 * reads of 1, 2, 4 and 8 bytes, aligned or not, halves stamped apart, a
 * longjmp out of such reads, 8-byte reads over a shadow leaf's end, and
 * the same in two threads. Exact rms, known
 * by hand: peek reads n ints its caller read, so rms n (4-byte cells). */
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static volatile long sink;
static __thread jmp_buf jb; /* each thread jumps in its own */

NOINLINE long peek(const int *a, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}

/* bytes, shorts and unaligned 8-byte reads over what the caller read */
NOINLINE long peek_mixed(const unsigned char *p, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += p[i];
	for (int i = 0; i + 2 <= n; i += 2) {
		uint16_t v;
		memcpy(&v, p + i, 2);
		s += v;
	}
	for (int i = 1; i + 8 <= n; i += 3) {
		uint64_t v;
		__builtin_memcpy(&v, p + i, 8);
		s += (long)(v & 0xffff);
	}
	return s;
}

/* a child of the reader: it reads what its grandparent counted */
NOINLINE long middle(const int *a, int n)
{
	return peek(a, n) + peek(a, n / 2);
}

/* stamps one half of each 8-byte pair itself, so that 8-byte reads of
 * its callee see two different timestamps */
NOINLINE long halves(int *a, int n)
{
	long s = 0;
	for (int i = 0; i < n; i += 2)
		a[i] = i;
	for (int i = 1; i < n; i += 2)
		s += a[i];
	for (int i = 0; i + 1 < n; i += 2) {
		uint64_t v;
		__builtin_memcpy(&v, a + i, 8);
		s += (long)(v >> 40);
	}
	return s + peek(a, n);
}

NOINLINE long reader(int *a, int n, int round)
{
	long s = peek(a, n);                   /* the caller counted them */
	s += middle(a, n) + middle(a, n - 1);  /* the grandparent: the hint */
	s += peek_mixed((const unsigned char *)a, n * 4);
	s += halves(a, n & ~1);
	if (round & 1)
		s += peek(a, n);
	return s;
}

/* the hint's frame returns, and a new frame at its depth reads cells
 * stamped in the old one's range */
NOINLINE long again(int *a, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s + middle(a, n);
}

/* reads all of a, its grandchildren the first half: the ancestor found
 * last is this frame, which then returns */
NOINLINE long own_then_half(const int *a, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s + middle(a, n / 2);
}

/* a new frame at that depth whose callee reads the second half, stamped
 * by the frame that returned: its caller (work) counted them, not this */
NOINLINE long second_half(const int *a, int n)
{
	return peek(a + n / 2, n - n / 2) + 1;
}

NOINLINE void jump_from(const int *a, int n, int d)
{
	sink += peek(a, n);
	if (d == 0)
		longjmp(jb, 1);
	jump_from(a, n, d - 1);
	sink++; /* not a tail call */
}

NOINLINE long work(int *a, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	for (int r = 0; r < 6; r++) {
		s += reader(a, n - r, r);
		s += again(a + r, n - 2 * r);
		s += again(a, n);
		s += own_then_half(a, n);
		s += second_half(a, n);
	}
	if (!setjmp(jb))
		jump_from(a, n, 4);
	s += middle(a, n); /* after the jump: the frames it left are closed */
	return s;
}

/* 8-byte accesses at 4-byte offsets over the end of a 64 KiB shadow leaf
 * (one starting in its last cell), written here and read by a callee */
_Alignas(65536) static int across[2 * 16384];

NOINLINE long read_pairs(const char *p, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++) {
		uint64_t v;
		__builtin_memcpy(&v, p + 4 * i, 8);
		s += (long)(v >> 3);
	}
	return s;
}

NOINLINE long leaf_end(void)
{
	char *p = (char *)across + 65536 - 16;
	for (int i = 0; i < 6; i++) {
		uint64_t v = (uint64_t)i << 33;
		__builtin_memcpy(p + 4 * i, &v, 8);
	}
	return read_pairs(p, 6) + read_pairs(p + 4, 4);
}

/* main's own first read of 8 bytes over a leaf's end, of cells nobody
 * stamped (0 like the spare cell past the leaf), then of the next leaf's
 * first cell: counted once */
_Alignas(65536) int untouched[2 * 16384]; /* not static: not known to be 0 */

/* the pair, through a pointer gcc does not know misaligned */
static uint64_t *volatile pair;

/* the next leaf's first cell, then the pair again: rms 2 */
NOINLINE long pair_again(void)
{
	long s = untouched[16384];
	return s + (long)*pair;
}

static void *thread_main(void *arg)
{
	int a[64];
	for (int i = 0; i < 64; i++)
		a[i] = i * (int)(intptr_t)arg;
	sink += work(a, 40 + (int)(intptr_t)arg);
	return NULL;
}

int main(void)
{
	int a[100];
	for (int i = 0; i < 100; i++)
		a[i] = i * 7;
	/* through a misaligned uint64_t *: gcc's aligned 8-byte hook, which
	 * the plugin puts inline (x86 reads it); at depth 1, where the caller's
	 * id is 0 like the cells' */
	int first = untouched[0]; /* the leaf in the cache, before the pair */
	__asm__ volatile("" ::: "memory");
	pair = (uint64_t *)(void *)((char *)untouched + 65536 - 4);
	uint64_t v = *pair + (uint64_t)first;
	long s = work(a, 50) + leaf_end() + (long)v + *(volatile int *)&untouched[16384] + pair_again();
	pthread_t th[2];
	for (intptr_t i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, thread_main, (void *)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("%ld\n", s + sink);
	return 0;
}
