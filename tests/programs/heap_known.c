/* Known allocations for plumb record --heap (tests/e2e/t_heap.sh): every
 * site's counts, bytes, peak, leaks and temporaries are fixed. No stdio
 * (its buffer would be one more allocation). "big" runs the large sites
 * the sampled mode is checked on. */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void *keep[20000];

/* keeps the compiler from dropping an allocation it can see unused */
static void use(void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

__attribute__((noinline)) static void *thread_work(void *arg)  /* 1000 x 100, freed by main */
{
	void **v = arg;
	for (int i = 0; i < 1000; i++)
		v[i] = malloc(100);
	return NULL;
}

__attribute__((noinline)) void site_temp(void)      /* 100000 x 48, each freed at once */
{
	for (int i = 0; i < 100000; i++) {
		char *p = malloc(48);
		use(p);
		free(p);
	}
}

__attribute__((noinline)) void site_peak(void)      /* 20000 x 1000 live together */
{
	for (int i = 0; i < 20000; i++)
		keep[i] = calloc(1, 1000);
}

__attribute__((noinline)) void release_peak(void)
{
	for (int i = 0; i < 20000; i++)
		free(keep[i]);
}

__attribute__((noinline)) void site_leak(void)      /* 10 x 4096 never freed */
{
	for (int i = 0; i < 10; i++)
		use(malloc(4096));
}

__attribute__((noinline)) void site_realloc(void)   /* 16 B grown 16 times to 1 MiB */
{
	char *p = malloc(16);
	for (size_t n = 32; n <= 1 << 20; n *= 2)
		p = realloc(p, n);
	free(p);
}

__attribute__((noinline)) void site_aligned(void)   /* 5 blocks, 2192 B; memalign's leaks */
{
	void *a = NULL;
	if (posix_memalign(&a, 64, 256))
		_exit(2);
	void *b = aligned_alloc(128, 512);
	void *c = memalign(256, 1024);
	void *d = valloc(100);
	void *e = reallocarray(NULL, 10, 30);
	use(a), use(b), use(c), use(d), use(e);
	free(a);
	free(b);
	free(d);
	free(e);
}

__attribute__((noinline)) void site_mmap(void)      /* 8 MiB kept, 1 MiB unmapped */
{
	char *p = mmap(NULL, 8 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *q = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || q == MAP_FAILED)
		_exit(3);
	p[0] = 1;
	munmap(q, 1 << 20);
}

__attribute__((noinline)) void child_leak(void)     /* in a forked child: 5 x 777 */
{
	for (int i = 0; i < 5; i++)
		use(malloc(777));
}

__attribute__((noinline)) void big_small(void)      /* 2,000,000 x 100 B = 200 MB */
{
	for (int i = 0; i < 2000000; i++) {
		char *p = malloc(100);
		use(p);
		free(p);
	}
}

__attribute__((noinline)) void big_large(void)      /* 200 x 1 MiB = 200 MiB */
{
	for (int i = 0; i < 200; i++) {
		char *p = malloc(1 << 20);
		use(p);
		free(p);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "big") == 0) {
		big_small();
		big_large();
		return 0;
	}
	static void *v[1000];
	pthread_t t;
	if (pthread_create(&t, NULL, thread_work, v) || pthread_join(t, NULL))
		return 1;
	for (int i = 0; i < 1000; i++)
		free(v[i]);
	site_temp();
	site_peak();
	release_peak();
	site_leak();
	site_realloc();
	site_aligned();
	site_mmap();
	pid_t pid = fork();
	if (pid == 0) {
		child_leak();
		exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	return 0;
}
