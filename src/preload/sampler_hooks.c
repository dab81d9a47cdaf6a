/* Interposed libc functions: pthread_create (sample new threads), fork
 * (pthread_atfork: a new file for the child), the exec family and
 * posix_spawn (keep LD_PRELOAD and the settings in the new image's
 * environment; write everything before the image is replaced), dlopen (a
 * maps snapshot), _exit (flush). Each finds the real function with
 * dlsym(RTLD_NEXT). */
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/heap.h"
#include "preload/cfi_walk.h"
#include "preload/sampler.h"
#include "preload/wait.h"

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);
typedef void *(*dlopen_fn)(const char *, int);
typedef int (*dlclose_fn)(void *);
typedef void (*exit_fn)(int);

static struct {
	create_fn pthread_create;
	execve_fn execve, execvpe;
	fexecve_fn fexecve;
	spawn_fn posix_spawn, posix_spawnp;
	dlopen_fn dlopen;
	dlclose_fn dlclose;
	exit_fn exit_, Exit;
} real;

extern char **environ;

/* Each wrapper resolves what it calls on first use: it may run before our
 * constructor (from another library's), or in a process where the sampler
 * is not set up at all. */
#define RESOLVE(field, name) \
	(real.field ? real.field : (real.field = (__typeof__(real.field))dlsym(RTLD_NEXT, name)))

int smp_hooks_resolve(void)
{
	return RESOLVE(pthread_create, "pthread_create") && RESOLVE(execve, "execve") &&
			       RESOLVE(execvpe, "execvpe") && RESOLVE(fexecve, "fexecve") &&
			       RESOLVE(posix_spawn, "posix_spawn") &&
			       RESOLVE(posix_spawnp, "posix_spawnp") && RESOLVE(dlopen, "dlopen") &&
			       RESOLVE(dlclose, "dlclose") && RESOLVE(exit_, "_exit") &&
			       RESOLVE(Exit, "_Exit")
		       ? 0
		       : -1;
}

static void service_maps(void)
{
	if (atomic_load(&smp.active) && atomic_load(&smp.maps_dirty) && getpid() == smp.pid)
		smp_write_maps();
}

/* ---- threads ---------------------------------------------------------------- */

struct start {
	void *(*fn)(void *);
	void *arg;
};

/* In section plumb_roots, whose frames the handler leaves out of stacks.
 * The empty asm keeps the call from becoming a tail call, so the frame is
 * really there to be recognised. */
__attribute__((section("plumb_roots"), noinline)) static void *thread_start(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	struct smp_slot *t = smp_slot_acquire();
	if (t)
		smp_thread_begin(t, (uint64_t)(uintptr_t)s.fn, 0);
	void *r = s.fn(s.arg);
	__asm__ volatile("" : : "r"(r) : "memory");
	return r;
}

SMP_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	if (!RESOLVE(pthread_create, "pthread_create"))
		return EAGAIN;
	if (!atomic_load(&smp.active))
		return real.pthread_create(th, attr, fn, arg);
	service_maps();
	struct start *s = malloc(sizeof *s);
	if (!s)
		return real.pthread_create(th, attr, fn, arg);
	*s = (struct start){ fn, arg };
	int rc = real.pthread_create(th, attr, thread_start, s);
	if (rc != 0)
		free(s);
	return rc;
}

/* ---- fork --------------------------------------------------------------------- */

static __thread sigset_t fork_mask __attribute__((tls_model("initial-exec")));

/* No sample may land between fork and the child's new file. */
void smp_atfork_prepare(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, smp.signo);
	pthread_sigmask(SIG_BLOCK, &set, &fork_mask);
}

void smp_atfork_parent(void)
{
	pthread_sigmask(SIG_SETMASK, &fork_mask, NULL);
}

/* The child has one thread and no timers; the other slots' buffers hold
 * the parent's samples, which the parent writes itself. */
void smp_atfork_child(void)
{
	if (atomic_load(&smp.active)) {
		pid_t ppid = smp.pid;
		int old = atomic_load(&smp.fd);
		if (old >= 0)
			close(old);
		struct smp_slot *self = smp_self;
		for (struct smp_slot *t = atomic_load(&smp.slots); t; t = t->next)
			if (t != self) {
				atomic_store(&t->busy, 0);
				atomic_store(&t->live, 0);
			}
		atomic_store(&smp.samples, 0);
		atomic_store(&smp.dropped, 0);
		atomic_store(&smp.handler_ns, 0);
		atomic_store(&smp.stopping, 0);
		if (smp_open_file() != 0) {
			atomic_store(&smp.active, 0);
		} else {
			smp_write_image(PSMP_ORIGIN_FORK, ppid);
			smp_write_maps();
			if (!self)
				self = smp_slot_acquire();
			if (self)
				smp_thread_begin(self, self->start_routine, 1);
		}
	}
	pthread_sigmask(SIG_SETMASK, &fork_mask, NULL);
}

/* ---- exec ----------------------------------------------------------------------- */

static int has_word(const char *list, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = list; (p = strstr(p, w)) != NULL; p += n)
		if ((p == list || p[-1] == ':' || p[-1] == ' ') && (p[n] == 0 || p[n] == ':' || p[n] == ' '))
			return 1;
	return 0;
}

static int is_var(const char *e, const char *name)
{
	size_t n = strlen(name);
	return strncmp(e, name, n) == 0 && e[n] == '=';
}

/* Settings the new image needs, as "NAME=value" strings in `store`. */
static size_t settings_env(char *store, size_t cap, const char **out)
{
	static const char *names[] = { "PLUMB_SAMPLER_DIR", "PLUMB_SAMPLER_HZ",
				       "PLUMB_SAMPLER_CLOCK", "PLUMB_SAMPLER_SIGNAL",
				       "PLUMB_SAMPLER_HEAP", "PLUMB_SAMPLER_HEAP_SEED", "PLUMB_SAMPLER_WAITS" };
	char vals[7][PATH_MAX];
	snprintf(vals[0], sizeof vals[0], "%s", smp.dir);
	snprintf(vals[1], sizeof vals[1], "%llu", (unsigned long long)smp.hz);
	snprintf(vals[2], sizeof vals[2], "%s", smp.clock == PSMP_CLOCK_WALL ? "wall"
						: smp.clock == PSMP_CLOCK_NONE ? "none" : "cpu");
	snprintf(vals[3], sizeof vals[3], "%d", smp.signo);
	/* heap tracing and wait tracing, as this image was given them */
	snprintf(vals[4], sizeof vals[4], "%s", heap.env_mode);
	snprintf(vals[5], sizeof vals[5], "%s", heap.env_seed);
	snprintf(vals[6], sizeof vals[6], "%s", wt_settings());
	size_t used = 0, k = 0;
	for (int i = 0; i < 7; i++) {
		if (i >= 4 && !vals[i][0])
			continue;
		int n = snprintf(store + used, cap - used, "%s=%s", names[i], vals[i]);
		if (n < 0 || (size_t)n >= cap - used)
			return k;
		out[k++] = store + used;
		used += (size_t)n + 1;
	}
	return k;
}

/* envp with LD_PRELOAD naming this library and the sampler's settings, in
 * `out` (room for n(envp) + 10 pointers) and `store`. The program may have
 * removed them (unsetenv, a cleared environment): put them back. */
static char *const *fixed_env(char *const *envp, const char **out, char *store, size_t cap)
{
	size_t k = 0, used = 0;
	const char *preload = NULL;
	for (char *const *e = envp; e && *e; e++) {
		if (is_var(*e, "LD_PRELOAD"))
			preload = *e + 11;
		else if (strncmp(*e, "PLUMB_SAMPLER_", 14) != 0)
			out[k++] = *e;
	}
	int n;
	if (preload && has_word(preload, smp.lib))
		n = snprintf(store, cap, "LD_PRELOAD=%s", preload);
	else if (preload && *preload)
		n = snprintf(store, cap, "LD_PRELOAD=%s:%s", preload, smp.lib);
	else
		n = snprintf(store, cap, "LD_PRELOAD=%s", smp.lib);
	if (n > 0 && (size_t)n < cap) {
		out[k++] = store;
		used = (size_t)n + 1;
	}
	k += settings_env(store + used, cap - used, out + k);
	out[k] = NULL;
	return (char *const *)out;
}

static size_t env_count(char *const *envp)
{
	size_t n = 0;
	while (envp && envp[n])
		n++;
	return n;
}

/* Before the image is replaced: no timer may fire into a process whose
 * handler is gone, and every buffer goes to the file. */
static void before_exec(sigset_t *saved)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, smp.signo);
	pthread_sigmask(SIG_BLOCK, &set, saved);
	smp_finish(PSMP_END_EXEC);
	struct timespec zero = { 0, 0 };
	while (sigtimedwait(&set, NULL, &zero) > 0)
		;   /* drop a signal that was already pending */
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static void after_failed_exec(void)
{
	if (atomic_load(&smp.active) && getpid() == smp.pid)
		smp_resume_after_exec_failure();
}

#define ENV_STORE (8 * PATH_MAX + 256)

enum exec_how { BY_PATH, BY_SEARCH, BY_FD };

static int real_exec(enum exec_how how, const char *name, int fd, char *const argv[],
		     char *const envp[])
{
	if (!RESOLVE(execve, "execve") || !RESOLVE(execvpe, "execvpe") ||
	    !RESOLVE(fexecve, "fexecve")) {
		errno = ENOSYS;
		return -1;
	}
	switch (how) {
	case BY_PATH: return real.execve(name, argv, envp);
	case BY_SEARCH: return real.execvpe(name, argv, envp);
	default: return real.fexecve(fd, argv, envp);
	}
}

/* Every exec goes through here: write everything, exec with the repaired
 * environment (on the stack: this may run in a vfork child or a signal
 * handler), and sample on if the exec failed. */
static int exec_sampled(enum exec_how how, const char *name, int fd, char *const argv[],
			char *const envp[])
{
	if (!atomic_load(&smp.active))
		return real_exec(how, name, fd, argv, envp);
	sigset_t saved;
	before_exec(&saved);
	size_t cap = ENV_STORE + strlen(smp.lib);
	const char **slots = alloca((env_count(envp) + 10) * sizeof *slots);
	char *store = alloca(cap);
	int rc = real_exec(how, name, fd, argv, fixed_env(envp, slots, store, cap));
	int e = errno;
	after_failed_exec();
	errno = e;
	return rc;
}

SMP_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return exec_sampled(BY_PATH, path, -1, argv, envp);
}

SMP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return exec_sampled(BY_SEARCH, file, -1, argv, envp);
}

SMP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	return exec_sampled(BY_FD, NULL, fd, argv, envp);
}

SMP_EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

SMP_EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* execl, execle, execlp: gather the variadic arguments into an array. */
#define GATHER_ARGS(first, ap, argv)                                                  \
	size_t argc_ = 1;                                                             \
	va_start(ap, first);                                                          \
	while (va_arg(ap, const char *))                                              \
		argc_++;                                                              \
	va_end(ap);                                                                   \
	char **argv = alloca((argc_ + 1) * sizeof *argv);                             \
	argv[0] = (char *)(first);                                                    \
	va_start(ap, first);                                                          \
	for (size_t i_ = 1; i_ <= argc_; i_++)                                        \
		argv[i_] = va_arg(ap, char *);

SMP_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	GATHER_ARGS(arg, ap, argv)
	va_end(ap);
	return execve(path, argv, environ);
}

SMP_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	GATHER_ARGS(arg, ap, argv)
	va_end(ap);
	return execvpe(file, argv, environ);
}

SMP_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	GATHER_ARGS(arg, ap, argv)
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}

/* posix_spawn: the child is a new process that loads us again, if its
 * environment still says so. */
SMP_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	if (!RESOLVE(posix_spawn, "posix_spawn"))
		return ENOSYS;
	if (!atomic_load(&smp.active))
		return real.posix_spawn(pid, path, fa, at, argv, envp);
	size_t n = env_count(envp);
	const char **slots = alloca((n + 10) * sizeof *slots);
	size_t cap = ENV_STORE + strlen(smp.lib);
	char *store = alloca(cap);
	return real.posix_spawn(pid, path, fa, at, argv, fixed_env(envp, slots, store, cap));
}

SMP_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	if (!RESOLVE(posix_spawnp, "posix_spawnp"))
		return ENOSYS;
	if (!atomic_load(&smp.active))
		return real.posix_spawnp(pid, file, fa, at, argv, envp);
	size_t n = env_count(envp);
	const char **slots = alloca((n + 10) * sizeof *slots);
	size_t cap = ENV_STORE + strlen(smp.lib);
	char *store = alloca(cap);
	return real.posix_spawnp(pid, file, fa, at, argv, fixed_env(envp, slots, store, cap));
}

/* ---- dlopen and _exit ---------------------------------------------------------- */

/* A name without '/' is searched with the calling object's RUNPATH, and
 * glibc takes the caller from dlopen's return address: jump to the real
 * dlopen so that the caller stays the program's object, and write the maps
 * at the next occasion (thread creation, fork, exec, exit, another dlopen,
 * dlclose).
 * A path needs no search: call it and write the maps at once. */
SMP_EXPORT void *dlopen(const char *file, int flags)
{
	if (!RESOLVE(dlopen, "dlopen"))
		return NULL;
	if (file && !strchr(file, '/')) {
		service_maps();
		atomic_store(&smp.maps_dirty, 1);
		return real.dlopen(file, flags);  /* a tail call at -O1 and above */
	}
	void *h = real.dlopen(file, flags);
	if (h && atomic_load(&smp.active) && getpid() == smp.pid)
		smp_write_maps();
	return h;
}

/* The library may go away: its code must be in a snapshot first. */
SMP_EXPORT int dlclose(void *handle)
{
	if (!RESOLVE(dlclose, "dlclose"))
		return -1;
	service_maps();
	int rc = real.dlclose(handle);
	cfi_walk_forget();
	return rc;
}

SMP_EXPORT void _exit(int status)
{
	smp_finish(PSMP_END_EXIT);
	if (RESOLVE(exit_, "_exit"))
		real.exit_(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

SMP_EXPORT void _Exit(int status)
{
	smp_finish(PSMP_END_EXIT);
	if (RESOLVE(Exit, "_Exit"))
		real.Exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}
