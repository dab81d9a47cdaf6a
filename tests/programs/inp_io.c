/* drms (t_inputs_drms.sh): a routine that reads a file through a 4 KB
 * buffer has rms 1024 cells and drms = the cells all its read() calls
 * brought; values another thread wrote are new input too. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

NOINLINE long consume(int fd)
{
	unsigned char buf[4096];
	long s = 0;
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++)
			s += buf[i];
	return s;
}

NOINLINE long consume_stdio(FILE *f)
{
	unsigned char buf[4096];
	long s = 0;
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		for (size_t i = 0; i < n; i++)
			s += buf[i];
	return s;
}

static int a[100];

NOINLINE void fill(int *v, int n, int x)
{
	for (int i = 0; i < n; i++)
		v[i] = x + i;
}

NOINLINE long sum(const int *v, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

static void *refill(void *arg)
{
	(void)arg;
	fill(a, 100, 7);
	return NULL;
}

/* sums a, has another thread write it again, sums it again */
NOINLINE long twice(void)
{
	long s = sum(a, 100);
	pthread_t th;
	pthread_create(&th, NULL, refill, NULL);
	pthread_join(th, NULL);
	return s + sum(a, 100);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 1;
	long s1 = consume(fd);
	close(fd);
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return 1;
	long s2 = consume_stdio(f);
	fclose(f);
	fill(a, 100, 1);
	long s3 = twice();
	printf("%ld %ld %ld\n", s1, s2, s3);
	return 0;
}
