/* exec and _exit end the process image without its destructors: the
 * calling thread writes its report first (`plumb cc` links with
 * -Wl,--wrap=NAME for each). An exec'd program built with plumb cc writes
 * its own reports, as the environment still says where. If exec fails,
 * the thread goes on unmeasured (its pending calls were closed). */
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "inputs/inputs.h"

int __real_execve(const char *path, char *const argv[], char *const envp[]);
int __real_execv(const char *path, char *const argv[]);
int __real_execvp(const char *file, char *const argv[]);
int __real_execvpe(const char *file, char *const argv[], char *const envp[]);
int __real_fexecve(int fd, char *const argv[], char *const envp[]);
void __real__exit(int status);
void __real__Exit(int status);

INP_EXPORT int __wrap_execve(const char *path, char *const argv[], char *const envp[])
{
	inp_end_thread();
	return __real_execve(path, argv, envp);
}

INP_EXPORT int __wrap_execv(const char *path, char *const argv[])
{
	inp_end_thread();
	return __real_execv(path, argv);
}

INP_EXPORT int __wrap_execvp(const char *file, char *const argv[])
{
	inp_end_thread();
	return __real_execvp(file, argv);
}

INP_EXPORT int __wrap_execvpe(const char *file, char *const argv[], char *const envp[])
{
	inp_end_thread();
	return __real_execvpe(file, argv, envp);
}

INP_EXPORT int __wrap_fexecve(int fd, char *const argv[], char *const envp[])
{
	inp_end_thread();
	return __real_fexecve(fd, argv, envp);
}

/* execl, execlp, execle: their arguments as an array (at most 4096) */
#define MAX_ARGS 4096

static int collect(const char *arg0, va_list ap, char **argv)
{
	int n = 0;
	for (const char *a = arg0; a; a = va_arg(ap, const char *)) {
		if (n == MAX_ARGS - 1)
			return -1;
		argv[n++] = (char *)a;
	}
	argv[n] = NULL;
	return n;
}

INP_EXPORT int __wrap_execl(const char *path, const char *arg0, ...)
{
	char *argv[MAX_ARGS];
	va_list ap;
	va_start(ap, arg0);
	int n = collect(arg0, ap, argv);
	va_end(ap);
	if (n < 0)
		return -1;
	inp_end_thread();
	return __real_execv(path, argv);
}

INP_EXPORT int __wrap_execlp(const char *file, const char *arg0, ...)
{
	char *argv[MAX_ARGS];
	va_list ap;
	va_start(ap, arg0);
	int n = collect(arg0, ap, argv);
	va_end(ap);
	if (n < 0)
		return -1;
	inp_end_thread();
	return __real_execvp(file, argv);
}

INP_EXPORT int __wrap_execle(const char *path, const char *arg0, ...)
{
	char *argv[MAX_ARGS];
	va_list ap;
	va_start(ap, arg0);
	int n = collect(arg0, ap, argv);
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	if (n < 0)
		return -1;
	inp_end_thread();
	return __real_execve(path, argv, envp);
}

INP_EXPORT void __wrap__exit(int status)
{
	inp_end_thread();
	__real__exit(status);
	__builtin_unreachable();
}

INP_EXPORT void __wrap__Exit(int status)
{
	inp_end_thread();
	__real__Exit(status);
	__builtin_unreachable();
}
