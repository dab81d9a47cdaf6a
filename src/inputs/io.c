/* drms: the input and output calls, wrapped like the libc calls of wrap.c
 * (`plumb cc` links with -Wl,--wrap=NAME for each). What an input call
 * returns was written by the kernel: the global write shadow marks it, so
 * the program's next read of it is new input (research/aprof.md §5 step
 * 10). An output call reads its buffer, as the calling activation. Without
 * --drms the calls go straight through. */
#include <stdio.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "inputs/inputs.h"

ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __real_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __real_pread64(int fd, void *buf, size_t n, off_t off);
ssize_t __real_readv(int fd, const struct iovec *iov, int n);
ssize_t __real_preadv(int fd, const struct iovec *iov, int n, off_t off);
ssize_t __real_preadv64(int fd, const struct iovec *iov, int n, off_t off);
ssize_t __real_recv(int fd, void *buf, size_t n, int flags);
ssize_t __real_recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *a, socklen_t *alen);
ssize_t __real_recvmsg(int fd, struct msghdr *m, int flags);
size_t __real_fread(void *buf, size_t size, size_t n, FILE *f);
size_t __real_fread_unlocked(void *buf, size_t size, size_t n, FILE *f);
char *__real_fgets(char *s, int n, FILE *f);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__real_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);
ssize_t __real___read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __real___pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __real___pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __real___recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
ssize_t __real___recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags, struct sockaddr *a,
			      socklen_t *alen);
size_t __real___fread_chk(void *buf, size_t buflen, size_t size, size_t n, FILE *f);
char *__real___fgets_chk(char *s, size_t size, int n, FILE *f);
ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __real_pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t __real_pwrite64(int fd, const void *buf, size_t n, off_t off);
ssize_t __real_writev(int fd, const struct iovec *iov, int n);
ssize_t __real_send(int fd, const void *buf, size_t n, int flags);
ssize_t __real_sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *a, socklen_t alen);
ssize_t __real_sendmsg(int fd, const struct msghdr *m, int flags);
size_t __real_fwrite(const void *buf, size_t size, size_t n, FILE *f);

static inp_thread *measuring(void)
{
	inp_thread *t = inp_current();
	return t && t->drms ? t : NULL;
}

static void wrote(ssize_t got, const void *buf)
{
	if (got > 0 && measuring())
		inp_drms_kernel_wrote((uintptr_t)buf, (size_t)got);
}

static void wrote_iov(ssize_t got, const struct iovec *iov, size_t n)
{
	if (got <= 0 || !measuring())
		return;
	size_t left = (size_t)got;
	for (size_t i = 0; i < n && left; i++) {
		size_t k = iov[i].iov_len < left ? iov[i].iov_len : left;
		inp_drms_kernel_wrote((uintptr_t)iov[i].iov_base, k);
		left -= k;
	}
}

static void sent(const void *buf, size_t n)
{
	inp_thread *t = measuring();
	if (t && n)
		inp_read(t, (uintptr_t)buf, n);
}

static void sent_iov(const struct iovec *iov, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sent(iov[i].iov_base, iov[i].iov_len);
}

/* ---- input -------------------------------------------------------------- */

INP_EXPORT ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	ssize_t got = __real_read(fd, buf, n);
	wrote(got, buf);
	return got;
}

INP_EXPORT ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off)
{
	ssize_t got = __real_pread(fd, buf, n, off);
	wrote(got, buf);
	return got;
}

INP_EXPORT ssize_t __wrap_pread64(int fd, void *buf, size_t n, off_t off)
{
	ssize_t got = __real_pread64(fd, buf, n, off);
	wrote(got, buf);
	return got;
}

INP_EXPORT ssize_t __wrap_readv(int fd, const struct iovec *iov, int n)
{
	ssize_t got = __real_readv(fd, iov, n);
	wrote_iov(got, iov, n > 0 ? (size_t)n : 0);
	return got;
}

INP_EXPORT ssize_t __wrap_preadv(int fd, const struct iovec *iov, int n, off_t off)
{
	ssize_t got = __real_preadv(fd, iov, n, off);
	wrote_iov(got, iov, n > 0 ? (size_t)n : 0);
	return got;
}

INP_EXPORT ssize_t __wrap_preadv64(int fd, const struct iovec *iov, int n, off_t off)
{
	ssize_t got = __real_preadv64(fd, iov, n, off);
	wrote_iov(got, iov, n > 0 ? (size_t)n : 0);
	return got;
}

INP_EXPORT ssize_t __wrap_recv(int fd, void *buf, size_t n, int flags)
{
	ssize_t got = __real_recv(fd, buf, n, flags);
	wrote(got, buf);
	return got;
}

INP_EXPORT ssize_t __wrap_recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *a, socklen_t *alen)
{
	ssize_t got = __real_recvfrom(fd, buf, n, flags, a, alen);
	wrote(got, buf);
	return got;
}

INP_EXPORT ssize_t __wrap_recvmsg(int fd, struct msghdr *m, int flags)
{
	ssize_t got = __real_recvmsg(fd, m, flags);
	if (got >= 0)
		wrote_iov(got, m->msg_iov, m->msg_iovlen);
	return got;
}

INP_EXPORT size_t __wrap_fread(void *buf, size_t size, size_t n, FILE *f)
{
	size_t got = __real_fread(buf, size, n, f);
	wrote((ssize_t)(got * size), buf);
	return got;
}

INP_EXPORT size_t __wrap_fread_unlocked(void *buf, size_t size, size_t n, FILE *f)
{
	size_t got = __real_fread_unlocked(buf, size, n, f);
	wrote((ssize_t)(got * size), buf);
	return got;
}

INP_EXPORT char *__wrap_fgets(char *s, int n, FILE *f)
{
	char *r = __real_fgets(s, n, f);
	if (r && measuring())
		inp_drms_kernel_wrote((uintptr_t)s, __builtin_strlen(s) + 1);
	return r;
}

static void mapped(void *p, size_t len, int flags, int fd)
{
	if (p != MAP_FAILED && fd >= 0 && !(flags & MAP_ANONYMOUS) && measuring())
		inp_drms_kernel_wrote((uintptr_t)p, len);
}

INP_EXPORT void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = __real_mmap(addr, len, prot, flags, fd, off);
	mapped(p, len, flags, fd);
	return p;
}

INP_EXPORT void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = __real_mmap64(addr, len, prot, flags, fd, off);
	mapped(p, len, flags, fd);
	return p;
}

/* _FORTIFY_SOURCE's checked versions */

INP_EXPORT ssize_t __wrap___read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	ssize_t got = __real___read_chk(fd, buf, n, buflen);
	wrote(got, buf);
	return got;
}

INP_EXPORT ssize_t __wrap___pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	ssize_t got = __real___pread_chk(fd, buf, n, off, buflen);
	wrote(got, buf);
	return got;
}

INP_EXPORT ssize_t __wrap___pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	ssize_t got = __real___pread64_chk(fd, buf, n, off, buflen);
	wrote(got, buf);
	return got;
}

INP_EXPORT ssize_t __wrap___recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags)
{
	ssize_t got = __real___recv_chk(fd, buf, n, buflen, flags);
	wrote(got, buf);
	return got;
}

INP_EXPORT ssize_t __wrap___recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
					 struct sockaddr *a, socklen_t *alen)
{
	ssize_t got = __real___recvfrom_chk(fd, buf, n, buflen, flags, a, alen);
	wrote(got, buf);
	return got;
}

INP_EXPORT size_t __wrap___fread_chk(void *buf, size_t buflen, size_t size, size_t n, FILE *f)
{
	size_t got = __real___fread_chk(buf, buflen, size, n, f);
	wrote((ssize_t)(got * size), buf);
	return got;
}

INP_EXPORT char *__wrap___fgets_chk(char *s, size_t size, int n, FILE *f)
{
	char *r = __real___fgets_chk(s, size, n, f);
	if (r && measuring())
		inp_drms_kernel_wrote((uintptr_t)s, __builtin_strlen(s) + 1);
	return r;
}

/* ---- output: the buffer is read by the caller -------------------------- */

INP_EXPORT ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	sent(buf, n);
	return __real_write(fd, buf, n);
}

INP_EXPORT ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	sent(buf, n);
	return __real_pwrite(fd, buf, n, off);
}

INP_EXPORT ssize_t __wrap_pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	sent(buf, n);
	return __real_pwrite64(fd, buf, n, off);
}

INP_EXPORT ssize_t __wrap_writev(int fd, const struct iovec *iov, int n)
{
	sent_iov(iov, n > 0 ? (size_t)n : 0);
	return __real_writev(fd, iov, n);
}

INP_EXPORT ssize_t __wrap_send(int fd, const void *buf, size_t n, int flags)
{
	sent(buf, n);
	return __real_send(fd, buf, n, flags);
}

INP_EXPORT ssize_t __wrap_sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *a,
				 socklen_t alen)
{
	sent(buf, n);
	return __real_sendto(fd, buf, n, flags, a, alen);
}

INP_EXPORT ssize_t __wrap_sendmsg(int fd, const struct msghdr *m, int flags)
{
	sent_iov(m->msg_iov, m->msg_iovlen);
	return __real_sendmsg(fd, m, flags);
}

INP_EXPORT size_t __wrap_fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
	sent(buf, size * n);
	return __real_fwrite(buf, size, n, f);
}
