/* Signal sampler test: the process forks; the child burns in
 * before_exec_work, then execs this program again as "sig_fork child" with
 * an empty environment, which burns in child_work; the parent burns in
 * parent_work, waits, then posix_spawns "sig_fork child" (empty
 * environment too). All three processes must be profiled. */
#include <spawn.h>
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
		/* the sampler must survive an empty environment */
		char *empty[] = { NULL };
		execle("/proc/self/exe", argv[0], "child", (char *)NULL, empty);
		_exit(127);
	}
	double r = parent_work();
	int st, st2 = 0;
	waitpid(pid, &st, 0);
	/* and a posix_spawn'd child, also with an empty environment */
	pid_t spawned;
	char *args[] = { argv[0], "child", NULL }, *empty[] = { NULL };
	if (posix_spawn(&spawned, "/proc/self/exe", NULL, NULL, args, empty) != 0)
		return 1;
	waitpid(spawned, &st2, 0);
	printf("parent %g child exit %d\n", r, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return WIFEXITED(st) && WEXITSTATUS(st) == 3 && WIFEXITED(st2) && WEXITSTATUS(st2) == 3 ? 0 : 1;
}
