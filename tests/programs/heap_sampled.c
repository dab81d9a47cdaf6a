/* t_heap.sh: --heap=sample must tell sampled blocks from unsampled ones
 * exactly. Blocks of 4 MiB are sampled with probability 1 - e^-64 at a
 * 64 KiB mean (1 in a double: weight 1), so their counts and leaks are
 * exact numbers in sampled mode too, through every allocator entry, a
 * free from another thread, a realloc to 0 and a fork; a million small
 * blocks around them, all freed, must leave no leak whatever was sampled.
 * The same program traced exactly gives the same numbers. */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BIG (4u << 20)

static void *volatile sink;

static void use(void *p)
{
	if (!p) {
		fprintf(stderr, "heap_sampled: out of memory\n");
		exit(1);
	}
	memset(p, 1, 64);
	sink = p;
}

/* 10 blocks, 3 never freed */
__attribute__((noinline)) static void big_malloc(void **keep)
{
	void *v[10];
	for (int i = 0; i < 10; i++)
		use(v[i] = malloc(BIG));
	for (int i = 0; i < 7; i++)
		free(v[i]);
	for (int i = 7; i < 10; i++)
		keep[i - 7] = v[i];
}

/* 4 blocks, all freed */
__attribute__((noinline)) static void big_calloc(void)
{
	for (int i = 0; i < 4; i++) {
		void *p = calloc(1, BIG);
		use(p);
		free(p);
	}
}

/* 4 MiB, grown to 8 MiB, then realloc(p, 0): 2 allocations, no leak */
__attribute__((noinline)) static void big_realloc(void)
{
	void *p = malloc(BIG);
	use(p);
	p = realloc(p, 2 * BIG);
	use(p);
	p = realloc(p, 0);   /* frees it (glibc: returns NULL) */
	free(p);
}

/* memalign, posix_memalign, aligned_alloc; the last one leaks */
__attribute__((noinline)) static void *big_aligned(void)
{
	void *a = memalign(4096, BIG), *b = NULL, *c = aligned_alloc(4096, BIG);
	if (posix_memalign(&b, 4096, BIG) != 0)
		b = NULL;
	use(a);
	use(b);
	use(c);
	free(a);
	free(b);
	return c;
}

/* a thread allocates, main frees */
static void *thread_big(void *arg)
{
	void **v = arg;
	for (int i = 0; i < 4; i++)
		use(v[i] = malloc(BIG));
	return NULL;
}

/* the thread's first and only allocation */
__attribute__((noinline)) static void *thread_once(void *arg)
{
	(void)arg;
	void *p = malloc(64);
	use(p);
	free(p);
	return NULL;
}

/* a million small blocks, all freed */
__attribute__((noinline)) static void small_noise(void)
{
	unsigned x = 1;
	for (int i = 0; i < 1000000; i++) {
		x = x * 1103515245u + 12345u;
		void *p = malloc(16 + (x >> 16) % 64);
		use(p);
		free(p);
		free(NULL);
	}
}

/* allocated before the fork: the child frees it (a block its own trace
 * never saw), the parent too */
__attribute__((noinline)) static void *big_prefork(void)
{
	void *p = malloc(BIG);
	use(p);
	return p;
}

__attribute__((noinline)) static void child_big(void)
{
	use(malloc(BIG));   /* leaked */
}

int main(void)
{
	void *keep[3], *tv[4];
	big_malloc(keep);
	big_calloc();
	big_realloc();
	void *c = big_aligned();
	pthread_t th;
	if (pthread_create(&th, NULL, thread_big, tv) != 0 || pthread_join(th, NULL) != 0)
		return 1;
	for (int i = 0; i < 4; i++)
		free(tv[i]);
	for (int i = 0; i < 200; i++)
		if (pthread_create(&th, NULL, thread_once, NULL) != 0 || pthread_join(th, NULL) != 0)
			return 1;
	small_noise();
	void *pre = big_prefork();
	pid_t pid = fork();
	if (pid == 0) {
		free(pre);
		child_big();
		_exit(0);
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	free(pre);
	sink = keep[0];
	sink = c;
	return 0;
}
