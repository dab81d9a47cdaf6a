/* Signal sampler test: the process forks; the child execs this program
 * again as "sig_fork child", which burns in child_work; the parent burns in
 * parent_work, then waits. Both processes must be profiled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile double sink;

static double burn(long n)
{
	double x = 0;
	for (long i = 0; i < n; i++)
		x = x * 0.999999 + 1.0;
	return x;
}

__attribute__((noinline)) double parent_work(void) { return burn(150000000L); }
__attribute__((noinline)) double child_work(void) { return burn(150000000L); }
__attribute__((noinline)) double before_exec_work(void) { return burn(50000000L); }

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		printf("child %g\n", child_work());
		return 3;
	}
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		sink = before_exec_work();
		/* the sampler must survive an environment without LD_PRELOAD */
		unsetenv("LD_PRELOAD");
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		_exit(127);
	}
	double r = parent_work();
	int st;
	waitpid(pid, &st, 0);
	printf("parent %g child exit %d\n", r, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return WIFEXITED(st) && WEXITSTATUS(st) == 3 ? 0 : 1;
}
