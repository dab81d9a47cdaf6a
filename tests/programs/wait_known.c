/* Known waits for tests/e2e/t_waits.sh: main spins 100 ms, holds big_lock
 * 200 ms while a thread waits for it in wait_for_mutex, sleeps 300 ms in
 * do_sleep_300ms, reads a pipe a child writes 150 ms later in
 * wait_pipe_read, and waits 100 ms on a condition variable in
 * wait_cond_100ms. Prints its elapsed time and how long each wait took
 * (a loaded machine makes them longer, or starts the mutex wait late). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* The empty asm after each call keeps it from being a tail call, so that
 * the waiting function stays on the stack. */
#define NOT_TAIL() __asm__ volatile("" ::: "memory")

static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int flag;

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
__attribute__((noinline)) static void spin_ms(double ms) { double e = now() + ms / 1000; volatile unsigned x = 0; while (now() < e) x++; }
__attribute__((noinline)) static void sleep_ms(long ms) { struct timespec t = { ms / 1000, (ms % 1000) * 1000000 }; nanosleep(&t, NULL); }

static double mutex_ms;
__attribute__((noinline)) static void wait_for_mutex(void) {
	double a = now();
	pthread_mutex_lock(&big_lock);
	mutex_ms = (now() - a) * 1000;
	pthread_mutex_unlock(&big_lock);
	NOT_TAIL();
}
static void *locker(void *a) { (void)a; wait_for_mutex(); return NULL; }
__attribute__((noinline)) static void hold_lock_200ms(void) {
	pthread_mutex_lock(&big_lock);
	pthread_t t; pthread_create(&t, NULL, locker, NULL);
	spin_ms(200);
	pthread_mutex_unlock(&big_lock);
	pthread_join(t, NULL);
}
__attribute__((noinline)) static void do_sleep_300ms(void) { sleep_ms(300); NOT_TAIL(); }
__attribute__((noinline)) static void wait_pipe_read(void) {
	int p[2]; if (pipe(p)) exit(1);
	pid_t c = fork();
	if (c == 0) { sleep_ms(150); if (write(p[1], "x", 1) != 1) _exit(1); _exit(0); }
	char b; if (read(p[0], &b, 1) != 1) exit(1);
	close(p[0]); close(p[1]);
	NOT_TAIL();
}
static void *signaler(void *a) { (void)a; sleep_ms(100); pthread_mutex_lock(&cv_lock); flag = 1; pthread_cond_signal(&cv); pthread_mutex_unlock(&cv_lock); return NULL; }
__attribute__((noinline)) static void wait_cond_100ms(void) {
	pthread_t t; pthread_create(&t, NULL, signaler, NULL);
	pthread_mutex_lock(&cv_lock); while (!flag) pthread_cond_wait(&cv, &cv_lock); pthread_mutex_unlock(&cv_lock);
	pthread_join(t, NULL);
	NOT_TAIL();
}
int main(void) {
	double t0 = now();
	spin_ms(100);
	hold_lock_200ms();
	double a = now();
	do_sleep_300ms();
	double b = now();
	wait_pipe_read();
	double c = now();
	wait_cond_100ms();
	double e = now();
	printf("elapsed %.0f ms\n", (e - t0) * 1000);
	printf("waited mutex %.0f sleep %.0f read %.0f cond %.0f ms\n", mutex_ms, (b - a) * 1000,
	       (c - b) * 1000, (e - c) * 1000);
	return 0;
}
