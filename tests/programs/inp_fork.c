/* fork and exec followed (t_inputs_fork.sh): three children sum 50, 30
 * and (after exec'ing this program again) 40 ints, the parent 20; the
 * first child ends with exit, the second with _exit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static int a[100];

NOINLINE long sum(const int *v, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

int main(int argc, char **argv)
{
	for (int i = 0; i < 100; i++)
		a[i] = i;
	if (argc > 1 && !strcmp(argv[1], "leaf")) {
		printf("leaf %ld\n", sum(a, 40));
		return 0;
	}
	fflush(stdout);
	pid_t c1 = fork();
	if (c1 == 0) {
		printf("child %ld\n", sum(a, 50));
		exit(0);
	}
	waitpid(c1, NULL, 0);
	pid_t c2 = fork();
	if (c2 == 0) {
		printf("child %ld\n", sum(a, 30));
		fflush(stdout);
		_exit(0);
	}
	waitpid(c2, NULL, 0);
	pid_t c3 = fork();
	if (c3 == 0) {
		execl("/proc/self/exe", argv[0], "leaf", (char *)NULL);
		_exit(127);
	}
	waitpid(c3, NULL, 0);
	printf("parent %ld\n", sum(a, 20));
	return 0;
}
