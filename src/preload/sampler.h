/* libplumb-sampler.so: internal interface between its files. The library is
 * preloaded into arbitrary programs, so it uses libc and libgcc_s only, and
 * everything reachable from the signal handler is async-signal-safe. */
#ifndef PLUMB_PRELOAD_SAMPLER_H
#define PLUMB_PRELOAD_SAMPLER_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "preload/format.h"

/* The libc functions the library wraps are the only symbols it exports. */
#define SMP_EXPORT __attribute__((visibility("default")))

#define SMP_BUF (64 * 1024)            /* per-thread sample buffer */
#define SMP_FLUSH_NS (100 * 1000000ull) /* flush a thread's buffer at least this often */

/* One sampled thread. Slots live in a lock-free list and are reused when
 * their thread ends; `busy` is taken by whoever touches buf (the thread's
 * own signal handler, or a flusher at exit/exec). */
struct smp_slot {
	struct smp_slot *next;
	atomic_int live;
	atomic_int busy;
	pid_t tid;
	int is_main;
	int has_timer;
	timer_t timer;
	uint64_t start_routine;
	uint64_t last_flush;
	size_t len;
	unsigned char buf[SMP_BUF];
};

struct smp_state {
	/* settings, from the environment */
	char dir[PATH_MAX];
	uint64_t hz, period_ns;
	int clock;                    /* PSMP_CLOCK_* */
	int signo;
	char lib[PATH_MAX];           /* this library's path, kept in LD_PRELOAD */
	/* process */
	atomic_int active;            /* sampling set up in this process */
	atomic_int stopping;          /* handlers do nothing */
	atomic_int fd;
	dev_t dev;
	ino_t ino;
	char path[PATH_MAX + 32];
	pid_t pid;
	_Atomic(struct smp_slot *) slots;
	atomic_uint_fast64_t samples, dropped;
	atomic_uint_fast64_t handler_ns;  /* time spent in take_sample, summed */
	atomic_int maps_dirty;        /* a dlopen whose maps are not written yet */
	pthread_key_t key;
};

extern struct smp_state smp;
extern __thread struct smp_slot *smp_self __attribute__((tls_model("initial-exec")));

uint64_t smp_now(void);
/* write(2) all of buf to the process file (reopened if the program closed
 * or reused its descriptor). Async-signal-safe. */
void smp_write(const void *buf, size_t len);
void smp_flush(struct smp_slot *t, uint64_t now);

/* threads */
struct smp_slot *smp_slot_acquire(void);
int smp_arm(struct smp_slot *t);
void smp_disarm(struct smp_slot *t);
void smp_thread_begin(struct smp_slot *t, uint64_t start_routine, int is_main);
void smp_thread_record(struct smp_slot *t, uint32_t flags);
void smp_thread_key_done(void *p);

/* records outside the handler */
int smp_open_file(void);
void smp_write_image(uint32_t origin, pid_t ppid);
void smp_write_maps(void);
void smp_write_end(uint32_t reason);

/* whole-process stops: exit, exec, _exit */
void smp_finish(uint32_t reason);
void smp_resume_after_exec_failure(void);

/* the handler and the unwinder (sampler_unwind.c) */
void smp_on_signal(int sig, siginfo_t *si, void *uc);
void smp_unwind_warm_up(void);

/* fork (sampler_hooks.c) */
void smp_atfork_prepare(void);
void smp_atfork_parent(void);
void smp_atfork_child(void);
int smp_hooks_resolve(void);

#endif
