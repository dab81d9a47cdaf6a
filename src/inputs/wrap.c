/* The libc functions whose memory accesses matter most, seen: `plumb cc`
 * links executables with -Wl,--wrap=NAME for each, so the program's calls
 * (and the loops gcc turns into such calls) come here first. Reads and
 * writes are counted like the compiler's hooks, then libc does the work.
 * The runtime's own calls happen with no thread state (tls NULL). */
#include <stddef.h>
#include <string.h>

#include "inputs/inputs.h"

void *__real_memcpy(void *d, const void *s, size_t n);
void *__real_memmove(void *d, const void *s, size_t n);
void *__real_memset(void *d, int c, size_t n);
int __real_memcmp(const void *a, const void *b, size_t n);
size_t __real_strlen(const char *s);
int __real_strcmp(const char *a, const char *b);
int __real_strncmp(const char *a, const char *b, size_t n);
char *__real_strcpy(char *d, const char *s);

INP_EXPORT void *__wrap_memcpy(void *d, const void *s, size_t n)
{
	inp_thread *t = inp_current();
	if (t && n) {
		inp_read(t, (uintptr_t)s, n);
		inp_write(t, (uintptr_t)d, n);
	}
	return __real_memcpy(d, s, n);
}

INP_EXPORT void *__wrap_memmove(void *d, const void *s, size_t n)
{
	inp_thread *t = inp_current();
	if (t && n) {
		inp_read(t, (uintptr_t)s, n);
		inp_write(t, (uintptr_t)d, n);
	}
	return __real_memmove(d, s, n);
}

INP_EXPORT void *__wrap_memset(void *d, int c, size_t n)
{
	inp_thread *t = inp_current();
	if (t && n)
		inp_write(t, (uintptr_t)d, n);
	return __real_memset(d, c, n);
}

/* Comparisons read up to the first difference, as a byte loop would. */
static size_t compared(const unsigned char *a, const unsigned char *b, size_t n, int stop_at_nul)
{
	size_t i = 0;
	while (i < n && a[i] == b[i] && !(stop_at_nul && a[i] == 0))
		i++;
	return i < n ? i + 1 : n;
}

INP_EXPORT int __wrap_memcmp(const void *a, const void *b, size_t n)
{
	inp_thread *t = inp_current();
	if (t && n) {
		size_t k = compared(a, b, n, 0);
		inp_read(t, (uintptr_t)a, k);
		inp_read(t, (uintptr_t)b, k);
	}
	return __real_memcmp(a, b, n);
}

INP_EXPORT size_t __wrap_strlen(const char *s)
{
	size_t n = __real_strlen(s);
	inp_thread *t = inp_current();
	if (t)
		inp_read(t, (uintptr_t)s, n + 1);
	return n;
}

INP_EXPORT int __wrap_strcmp(const char *a, const char *b)
{
	inp_thread *t = inp_current();
	if (t) {
		size_t k = compared((const void *)a, (const void *)b, SIZE_MAX, 1);
		inp_read(t, (uintptr_t)a, k);
		inp_read(t, (uintptr_t)b, k);
	}
	return __real_strcmp(a, b);
}

INP_EXPORT int __wrap_strncmp(const char *a, const char *b, size_t n)
{
	inp_thread *t = inp_current();
	if (t && n) {
		size_t k = compared((const void *)a, (const void *)b, n, 1);
		inp_read(t, (uintptr_t)a, k);
		inp_read(t, (uintptr_t)b, k);
	}
	return __real_strncmp(a, b, n);
}

INP_EXPORT char *__wrap_strcpy(char *d, const char *s)
{
	inp_thread *t = inp_current();
	if (t) {
		size_t n = __real_strlen(s) + 1;
		inp_read(t, (uintptr_t)s, n);
		inp_write(t, (uintptr_t)d, n);
	}
	return __real_strcpy(d, s);
}
