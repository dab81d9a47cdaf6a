/* The blocking libc calls the wait tracer times (docs/waits.md): locks,
 * condition variables, semaphores, barriers and joins (pthread and C11),
 * sleeps, descriptor I/O, poll/select/epoll and futex(2) through
 * syscall(3). Each wrapper passes the call on unchanged -- same arguments,
 * same result, same errno, no signal -- and only reads the clock around
 * it. The real functions come from dlsym(RTLD_NEXT), the condition
 * variable ones by version (GLIBC_2.3.2: dlsym would give the old ABI). */
#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "preload/sampler.h"
#include "preload/wait.h"


#define REAL(name) \
	(real_##name ? real_##name : (real_##name = (__typeof__(real_##name))dlsym(RTLD_NEXT, #name)))
#define REALV(name, ver) \
	(real_##name ? real_##name \
		     : (real_##name = (__typeof__(real_##name))dlvsym(RTLD_NEXT, #name, ver)))

/* The end of every timed wrapper (c_ begun): note who held the lock as the
 * wait began (0: no lock, or not known; read before the call: racy, and
 * only a hint when the lock changes hands meanwhile), make the call into
 * r, record it from the wrapper's own frame, and return its result. */
#define TIMED_CALL(obj, who, name, r, call)                                                  \
	do {                                                                                 \
		c_.holder = (uint32_t)(who);                                                 \
		r = call;                                                                    \
		wt_end(&c_, (uint64_t)(obj), (const void *)real_##name,                      \
		       __builtin_return_address(0),                                          \
		       (uint64_t)(uintptr_t)__builtin_frame_address(0) + 16);                \
		return r;                                                                    \
	} while (0)

/* The body of a wrapper: the call alone when not traced, else timed. */
#define TIMED_HELD(kind, obj, who, name, call)                                               \
	do {                                                                                 \
		struct wt_call c_;                                                           \
		if (!wt_begin(&c_, kind))                                                    \
			return call;                                                         \
		__typeof__(call) r_;                                                         \
		TIMED_CALL(obj, who, name, r_, call);                                        \
	} while (0)
#define TIMED(kind, obj, name, call) TIMED_HELD(kind, obj, 0, name, call)

/* A lock: tried first, and timed only when busy, so that a lock taken at
 * once (most of them) is never a wait, however long a preemption inside
 * the call made it look (but --sync-wait=0 times every call). */
#define TIMED_LOCK(kind, obj, who, name, trycall, busy, call)                                 \
	do {                                                                                 \
		struct wt_call c_;                                                           \
		if (!wt_begin(&c_, kind))                                                    \
			return call;                                                         \
		__typeof__(call) r_ = wt_try_locks() ? (trycall) : (busy);                   \
		if (r_ != (busy)) {                                                          \
			wt_cancel(&c_);                                                      \
			return r_;                                                           \
		}                                                                            \
		TIMED_CALL(obj, who, name, r_, call);                                        \
	} while (0)

/* glibc records the owner's thread id in every mutex it locks, and the
 * writer's in a write-locked rwlock. */
#define MUTEX_OWNER(m) ((m)->__data.__owner)
#define RWLOCK_WRITER(l) ((l)->__data.__cur_writer)

#define NOREAL(name, fail)                                                                   \
	do {                                                                                 \
		if (!REAL(name)) {                                                           \
			errno = ENOSYS;                                                      \
			return fail;                                                         \
		}                                                                            \
	} while (0)

/* ---- synchronization --------------------------------------------------------- */

static int (*real_pthread_mutex_lock)(pthread_mutex_t *);
static int (*real_pthread_mutex_trylock)(pthread_mutex_t *);
static int (*real_pthread_mutex_unlock)(pthread_mutex_t *);
static int (*real_pthread_mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
static int (*real_pthread_mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
static int (*real_pthread_cond_wait)(pthread_cond_t *, pthread_mutex_t *);
static int (*real_pthread_cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
static int (*real_pthread_cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
					  const struct timespec *);
static int (*real_pthread_rwlock_rdlock)(pthread_rwlock_t *);
static int (*real_pthread_rwlock_wrlock)(pthread_rwlock_t *);
static int (*real_pthread_rwlock_timedrdlock)(pthread_rwlock_t *, const struct timespec *);
static int (*real_pthread_rwlock_timedwrlock)(pthread_rwlock_t *, const struct timespec *);
static int (*real_sem_wait)(sem_t *);
static int (*real_sem_timedwait)(sem_t *, const struct timespec *);
static int (*real_sem_clockwait)(sem_t *, clockid_t, const struct timespec *);
static int (*real_pthread_join)(pthread_t, void **);
static int (*real_pthread_barrier_wait)(pthread_barrier_t *);
static int (*real_mtx_lock)(mtx_t *);
static int (*real_mtx_trylock)(mtx_t *);
static int (*real_mtx_timedlock)(mtx_t *restrict, const struct timespec *restrict);
static int (*real_cnd_wait)(cnd_t *, mtx_t *);
static int (*real_cnd_timedwait)(cnd_t *restrict, mtx_t *restrict, const struct timespec *restrict);
static int (*real_thrd_join)(thrd_t, int *);

SMP_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	if (!REAL(pthread_mutex_lock))
		return EINVAL;
	TIMED_LOCK(PSMP_WAIT_MUTEX, (uintptr_t)m, MUTEX_OWNER(m), pthread_mutex_lock,
		   REAL(pthread_mutex_trylock) ? real_pthread_mutex_trylock(m) : EBUSY, EBUSY,
		   real_pthread_mutex_lock(m));
}

SMP_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *ts)
{
	if (!REAL(pthread_mutex_timedlock))
		return EINVAL;
	TIMED_HELD(PSMP_WAIT_MUTEX, (uintptr_t)m, MUTEX_OWNER(m), pthread_mutex_timedlock,
		   real_pthread_mutex_timedlock(m, ts));
}

SMP_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk, const struct timespec *ts)
{
	if (!REAL(pthread_mutex_clocklock))
		return EINVAL;
	TIMED_HELD(PSMP_WAIT_MUTEX, (uintptr_t)m, MUTEX_OWNER(m), pthread_mutex_clocklock,
		   real_pthread_mutex_clocklock(m, clk, ts));
}

SMP_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	if (!REALV(pthread_cond_wait, "GLIBC_2.3.2") && !REAL(pthread_cond_wait))
		return EINVAL;
	TIMED(PSMP_WAIT_COND, (uintptr_t)c, pthread_cond_wait, real_pthread_cond_wait(c, m));
}

SMP_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *ts)
{
	if (!REALV(pthread_cond_timedwait, "GLIBC_2.3.2") && !REAL(pthread_cond_timedwait))
		return EINVAL;
	TIMED(PSMP_WAIT_COND, (uintptr_t)c, pthread_cond_timedwait,
	      real_pthread_cond_timedwait(c, m, ts));
}

SMP_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
				      const struct timespec *ts)
{
	if (!REAL(pthread_cond_clockwait))
		return EINVAL;
	TIMED(PSMP_WAIT_COND, (uintptr_t)c, pthread_cond_clockwait,
	      real_pthread_cond_clockwait(c, m, clk, ts));
}

SMP_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	if (!REAL(pthread_rwlock_rdlock))
		return EINVAL;
	TIMED_HELD(PSMP_WAIT_RWLOCK, (uintptr_t)l, RWLOCK_WRITER(l), pthread_rwlock_rdlock,
		   real_pthread_rwlock_rdlock(l));
}

SMP_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	if (!REAL(pthread_rwlock_wrlock))
		return EINVAL;
	TIMED_HELD(PSMP_WAIT_RWLOCK, (uintptr_t)l, RWLOCK_WRITER(l), pthread_rwlock_wrlock,
		   real_pthread_rwlock_wrlock(l));
}

SMP_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *ts)
{
	if (!REAL(pthread_rwlock_timedrdlock))
		return EINVAL;
	TIMED(PSMP_WAIT_RWLOCK, (uintptr_t)l, pthread_rwlock_timedrdlock,
	      real_pthread_rwlock_timedrdlock(l, ts));
}

SMP_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *ts)
{
	if (!REAL(pthread_rwlock_timedwrlock))
		return EINVAL;
	TIMED(PSMP_WAIT_RWLOCK, (uintptr_t)l, pthread_rwlock_timedwrlock,
	      real_pthread_rwlock_timedwrlock(l, ts));
}

SMP_EXPORT int sem_wait(sem_t *s)
{
	NOREAL(sem_wait, -1);
	TIMED(PSMP_WAIT_SEM, (uintptr_t)s, sem_wait, real_sem_wait(s));
}

SMP_EXPORT int sem_timedwait(sem_t *s, const struct timespec *ts)
{
	NOREAL(sem_timedwait, -1);
	TIMED(PSMP_WAIT_SEM, (uintptr_t)s, sem_timedwait, real_sem_timedwait(s, ts));
}

SMP_EXPORT int sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *ts)
{
	NOREAL(sem_clockwait, -1);
	TIMED(PSMP_WAIT_SEM, (uintptr_t)s, sem_clockwait, real_sem_clockwait(s, clk, ts));
}

SMP_EXPORT int pthread_join(pthread_t th, void **ret)
{
	if (!REAL(pthread_join))
		return EINVAL;
	TIMED(PSMP_WAIT_JOIN, th, pthread_join, real_pthread_join(th, ret));
}

SMP_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	if (!REAL(pthread_barrier_wait))
		return EINVAL;
	TIMED(PSMP_WAIT_BARRIER, (uintptr_t)b, pthread_barrier_wait, real_pthread_barrier_wait(b));
}

SMP_EXPORT int mtx_lock(mtx_t *m)
{
	if (!REAL(mtx_lock))
		return thrd_error;
	TIMED_LOCK(PSMP_WAIT_MUTEX, (uintptr_t)m, MUTEX_OWNER((pthread_mutex_t *)m), mtx_lock,
		   REAL(mtx_trylock) ? real_mtx_trylock(m) : thrd_busy, thrd_busy, real_mtx_lock(m));
}

SMP_EXPORT int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict ts)
{
	if (!REAL(mtx_timedlock))
		return thrd_error;
	TIMED_HELD(PSMP_WAIT_MUTEX, (uintptr_t)m, MUTEX_OWNER((pthread_mutex_t *)m), mtx_timedlock,
		   real_mtx_timedlock(m, ts));
}

SMP_EXPORT int cnd_wait(cnd_t *c, mtx_t *m)
{
	if (!REAL(cnd_wait))
		return thrd_error;
	TIMED(PSMP_WAIT_COND, (uintptr_t)c, cnd_wait, real_cnd_wait(c, m));
}

SMP_EXPORT int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m, const struct timespec *restrict ts)
{
	if (!REAL(cnd_timedwait))
		return thrd_error;
	TIMED(PSMP_WAIT_COND, (uintptr_t)c, cnd_timedwait, real_cnd_timedwait(c, m, ts));
}

SMP_EXPORT int thrd_join(thrd_t th, int *res)
{
	if (!REAL(thrd_join))
		return thrd_error;
	TIMED(PSMP_WAIT_JOIN, th, thrd_join, real_thrd_join(th, res));
}

/* ---- sleeps --------------------------------------------------------------------- */

static unsigned (*real_sleep)(unsigned);
static int (*real_usleep)(useconds_t);
static int (*real_nanosleep)(const struct timespec *, struct timespec *);
static int (*real_clock_nanosleep)(clockid_t, int, const struct timespec *, struct timespec *);

SMP_EXPORT unsigned sleep(unsigned s)
{
	if (!REAL(sleep))
		return s;
	TIMED(PSMP_WAIT_SLEEP, 0, sleep, real_sleep(s));
}

SMP_EXPORT int usleep(useconds_t us)
{
	NOREAL(usleep, -1);
	TIMED(PSMP_WAIT_SLEEP, 0, usleep, real_usleep(us));
}

SMP_EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	NOREAL(nanosleep, -1);
	TIMED(PSMP_WAIT_SLEEP, 0, nanosleep, real_nanosleep(req, rem));
}

SMP_EXPORT int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
	if (!REAL(clock_nanosleep))
		return ENOSYS;
	TIMED(PSMP_WAIT_SLEEP, 0, clock_nanosleep, real_clock_nanosleep(clk, flags, req, rem));
}

/* ---- descriptors ------------------------------------------------------------------ */

static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_readv)(int, const struct iovec *, int);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_recv)(int, void *, size_t, int);
static ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static ssize_t (*real_send)(int, const void *, size_t, int);
static ssize_t (*real_sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static int (*real_accept)(int, struct sockaddr *, socklen_t *);
static int (*real_accept4)(int, struct sockaddr *, socklen_t *, int);
static int (*real_connect)(int, const struct sockaddr *, socklen_t);
static int (*real_poll)(struct pollfd *, nfds_t, int);
static int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
static int (*real_select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
static int (*real_pselect)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
			   const sigset_t *);
static int (*real_epoll_wait)(int, struct epoll_event *, int, int);
static int (*real_epoll_pwait)(int, struct epoll_event *, int, int, const sigset_t *);
static long (*real_syscall)(long, ...);

SMP_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	NOREAL(read, -1);
	TIMED(PSMP_WAIT_IO, fd, read, real_read(fd, buf, n));
}

SMP_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	NOREAL(write, -1);
	if (fd == atomic_load_explicit(&smp.fd, memory_order_relaxed))
		return real_write(fd, buf, n);   /* the sampler's own file */
	TIMED(PSMP_WAIT_IO, fd, write, real_write(fd, buf, n));
}

SMP_EXPORT ssize_t readv(int fd, const struct iovec *v, int n)
{
	NOREAL(readv, -1);
	TIMED(PSMP_WAIT_IO, fd, readv, real_readv(fd, v, n));
}

SMP_EXPORT ssize_t writev(int fd, const struct iovec *v, int n)
{
	NOREAL(writev, -1);
	TIMED(PSMP_WAIT_IO, fd, writev, real_writev(fd, v, n));
}

SMP_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	NOREAL(recv, -1);
	TIMED(PSMP_WAIT_IO, fd, recv, real_recv(fd, buf, n, flags));
}

SMP_EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *a, socklen_t *al)
{
	NOREAL(recvfrom, -1);
	TIMED(PSMP_WAIT_IO, fd, recvfrom, real_recvfrom(fd, buf, n, flags, a, al));
}

SMP_EXPORT ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	NOREAL(recvmsg, -1);
	TIMED(PSMP_WAIT_IO, fd, recvmsg, real_recvmsg(fd, m, flags));
}

SMP_EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	NOREAL(send, -1);
	TIMED(PSMP_WAIT_IO, fd, send, real_send(fd, buf, n, flags));
}

SMP_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *a,
			  socklen_t al)
{
	NOREAL(sendto, -1);
	TIMED(PSMP_WAIT_IO, fd, sendto, real_sendto(fd, buf, n, flags, a, al));
}

SMP_EXPORT ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	NOREAL(sendmsg, -1);
	TIMED(PSMP_WAIT_IO, fd, sendmsg, real_sendmsg(fd, m, flags));
}

SMP_EXPORT int accept(int fd, struct sockaddr *a, socklen_t *al)
{
	NOREAL(accept, -1);
	TIMED(PSMP_WAIT_IO, fd, accept, real_accept(fd, a, al));
}

SMP_EXPORT int accept4(int fd, struct sockaddr *a, socklen_t *al, int flags)
{
	NOREAL(accept4, -1);
	TIMED(PSMP_WAIT_IO, fd, accept4, real_accept4(fd, a, al, flags));
}

SMP_EXPORT int connect(int fd, const struct sockaddr *a, socklen_t al)
{
	NOREAL(connect, -1);
	TIMED(PSMP_WAIT_IO, fd, connect, real_connect(fd, a, al));
}

SMP_EXPORT int poll(struct pollfd *f, nfds_t n, int ms)
{
	NOREAL(poll, -1);
	TIMED(PSMP_WAIT_POLL, 0, poll, real_poll(f, n, ms));
}

SMP_EXPORT int ppoll(struct pollfd *f, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
	NOREAL(ppoll, -1);
	TIMED(PSMP_WAIT_POLL, 0, ppoll, real_ppoll(f, n, ts, mask));
}

SMP_EXPORT int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
	NOREAL(select, -1);
	TIMED(PSMP_WAIT_POLL, 0, select, real_select(n, r, w, e, tv));
}

SMP_EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts,
		       const sigset_t *mask)
{
	NOREAL(pselect, -1);
	TIMED(PSMP_WAIT_POLL, 0, pselect, real_pselect(n, r, w, e, ts, mask));
}

SMP_EXPORT int epoll_wait(int fd, struct epoll_event *ev, int n, int ms)
{
	NOREAL(epoll_wait, -1);
	TIMED(PSMP_WAIT_POLL, fd, epoll_wait, real_epoll_wait(fd, ev, n, ms));
}

SMP_EXPORT int epoll_pwait(int fd, struct epoll_event *ev, int n, int ms, const sigset_t *mask)
{
	NOREAL(epoll_pwait, -1);
	TIMED(PSMP_WAIT_POLL, fd, epoll_pwait, real_epoll_pwait(fd, ev, n, ms, mask));
}

/* futex(2) has no libc wrapper: programs reach it through syscall(3). Only
 * the waiting operations are timed; every other call goes straight on. */
static int futex_waits(long op)
{
	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
	case FUTEX_LOCK_PI:
	case FUTEX_WAIT_REQUEUE_PI:
		return 1;
	default:
		return 0;
	}
}

SMP_EXPORT long syscall(long nr, ...)
{
	va_list ap;
	long a[6];
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	NOREAL(syscall, -1);
	if (nr != SYS_futex || !futex_waits(a[1]))
		return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	TIMED(PSMP_WAIT_FUTEX, a[0], syscall, real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]));
}

__attribute__((constructor)) static void wt_load(void)
{
	if (REAL(pthread_mutex_lock) && REAL(pthread_mutex_unlock))
		wt_setup(real_pthread_mutex_lock, real_pthread_mutex_unlock);
}
