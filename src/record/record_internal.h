/* Private to src/record: the DWARF unwinder the perf recorder uses. */
#ifndef PLUMB_RECORD_INTERNAL_H
#define PLUMB_RECORD_INTERNAL_H

#include "plumb/record.h"

/* x86-64 user registers as perf_event orders them (PERF_REG_X86_*), the
 * ones an unwinder needs: AX..IP and R8..R15 (no segment registers). */
#define UNWIND_REGS_MASK 0xff01ffULL
#define UNWIND_NREGS 17
/* The most frames a stack keeps, sampled or read at -p's attach. */
#define MAX_CHAIN 512

typedef struct unwinder unwinder;

/* Unwinds samples of the processes in d, whose maps it reads as they grow. */
unwinder *unwinder_new(const plumb_rec_data *d, plumb_error *err);
void unwinder_free(unwinder *u);
/* pid called exec, or a new process pid appeared: forget its modules. */
void unwinder_forget(unwinder *u, int32_t pid);

/* One sample: regs are the sampled user registers in perf order (mask
 * UNWIND_REGS_MASK), stack the copy starting at the sampled sp. Fills
 * chain (leaf first, at most max) and returns the count; *truncated when
 * unwinding stopped before the outermost frame. */
size_t unwinder_unwind(unwinder *u, int32_t pid, int32_t tid, const uint64_t *regs,
		       const uint8_t *stack, size_t stack_len, uint64_t *chain, size_t max,
		       bool *truncated);
/* Samples unwound by recipes and by libdwfl; with unwinder_check on, each
 * sample a recipe walks is walked by libdwfl too (whose chain is kept) and
 * differ counts the chains that are not the same. */
typedef struct unwind_stats {
	uint64_t recipe, libdw, differ;
} unwind_stats;
void unwinder_check(unwinder *u, bool on);
unwind_stats unwinder_stats(const unwinder *u);

/* --off-cpu / --sync-wait under perf (waits_perf.c): a private directory
 * (into dir) and the command's environment with the wait tracer preloaded;
 * after the command, its files read into d and the directory removed. */
char **plumb_rec_waits_prepare(const plumb_record_opts *o, char *dir, size_t cap, plumb_error *err);
int plumb_rec_waits_collect(const plumb_record_opts *o, const char *dir, plumb_rec_data *d,
			    plumb_error *err);
/* --off-cpu -p: the switch records see only what happens inside the
 * window. At its start (start: true) each thread of pid gets a switch out
 * (preempted if it is runnable), at its end a switch in, both at at_ns
 * (plumb_rec_now_ns: the records' clock, read before the events are
 * enabled and after the last records are read): a thread blocked when the window opens is charged from
 * then to its first switch in, one still blocked at the end from its last
 * switch out, one blocked throughout for the whole window; a running
 * thread's own records supersede them. */
int plumb_rec_waits_window_edge(plumb_rec_data *d, int32_t pid, bool start, uint64_t at_ns,
				plumb_error *err);
/* --off-cpu -p, as the window opens (at_ns): the stack each thread of pid
 * blocked in a system call is at, from its sp and pc
 * (/proc/PID/task/TID/syscall) and stack_size bytes of its stack
 * (process_vm_readv), for the interval until it first runs, which nothing
 * else gives a stack (plumb_rec_held_add). A thread that cannot be read
 * is left out. */
int plumb_rec_waits_held_stacks(plumb_rec_data *d, unwinder *u, int32_t pid, uint64_t at_ns,
				size_t stack_size, plumb_error *err);
uint64_t plumb_rec_now_ns(void);
/* fn(ctx, tid) for each thread of pid (/proc/PID/task), until one returns
 * non-zero: that value; -2 (errno set) when pid has no thread list. */
int plumb_rec_each_thread(int32_t pid, int (*fn)(void *ctx, int32_t tid), void *ctx);

#endif
