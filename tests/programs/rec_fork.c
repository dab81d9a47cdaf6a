/* A parent that forks: the child spins in child_work then execs
 * argv[1] (a second program); the parent spins in parent_work. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void spin(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 5;
	sink = x;
}

__attribute__((noinline)) void parent_work(void) { spin(300000000); }
__attribute__((noinline)) void child_work(void) { spin(150000000); }

int main(int argc, char **argv)
{
	pid_t pid = fork();
	if (pid == 0) {
		child_work();
		if (argc > 1)
			execv(argv[1], argv + 1);
		_exit(0);
	}
	parent_work();
	int st;
	waitpid(pid, &st, 0);
	return 0;
}
