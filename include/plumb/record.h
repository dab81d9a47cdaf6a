/* plumb: recording. Samplers (perf_event_open, the signal sampler) collect
 * raw samples -- address chains with pid, tid, time and event -- together
 * with each process's memory maps and its threads. plumb_rec_to_profile
 * then symbolizes every address with libdwfl (ELF symbol tables, separate
 * debug files by build-id and debuglink under /usr/lib/debug, MiniDebugInfo,
 * DWARF lines, inlined frames, demangled names) and builds the profile's
 * calling context tree, one part per thread.
 *
 * Address chains are leaf first. chain[0] is the sampled pc; chain[i > 0]
 * are return addresses, which are symbolized at the start of their call
 * instruction (src/symbols/call_site.c; address - 1 when none is found), so
 * that a caller's frame carries the call's address and line.
 */
#ifndef PLUMB_RECORD_H
#define PLUMB_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "plumb/error.h"
#include "plumb/profile.h"
#include "plumb/symbols.h"

/* ---- raw data ---------------------------------------------------------- */

enum {
	PLUMB_REC_TRUNCATED = 1, /* unwinding stopped early (stack copy ended, no CFI) */
	PLUMB_REC_LOCK = 2,      /* chain[0] is the object waited for (a lock), chain[1]
				    the waiting function: a sync-wait sample; bits 8-15
				    hold the wait's kind (PSMP_WAIT_*, preload/format.h) */
};

typedef struct plumb_rec_sample {
	int32_t pid, tid;
	uint64_t time_ns;
	uint32_t event;        /* index into plumb_rec_data.events */
	uint32_t flags;        /* PLUMB_REC_* */
	uint64_t weight;       /* added to the event's cost column (1 per sample) */
	size_t ips;            /* first address in plumb_rec_data.ips */
	uint32_t nips;         /* length of the chain (0: nothing known) */
} plumb_rec_sample;

/* A file mapping of a process (only executable ones matter). It is alive
 * for samples with time_ns in [time_ns, end_ns). */
typedef struct plumb_rec_map {
	int32_t pid;
	uint64_t start, end, pgoff;
	uint64_t time_ns, end_ns;  /* end_ns UINT64_MAX: until the end */
	char *path;                /* "[vdso]" and the like for anonymous ones */
	char build_id[41];         /* hex, "" if unknown */
} plumb_rec_map;

typedef struct plumb_rec_thread {
	int32_t pid, tid;
	char name[32];             /* COMM, "" if unknown */
	uint64_t start_routine;    /* address of the thread function, 0 if unknown */
} plumb_rec_thread;

typedef struct plumb_rec_data {
	PLUMB_VEC(char *) events;  /* names: "cpu-clock", "page-faults" */
	/* per event: its fixed sampling period (-c N), each sample then
	 * weighing the kernel's period of it (events, not samples); 0: sampled
	 * by frequency, each sample weighs 1 (events.n entries) */
	uint64_t *periods;
	/* per event: the sum of the kernel's sample periods when sampled by
	 * frequency (its count of events while sampling); 0 otherwise */
	uint64_t *counts;
	PLUMB_VEC(plumb_rec_sample) samples;
	PLUMB_VEC(uint64_t) ips;
	PLUMB_VEC(plumb_rec_map) maps;
	PLUMB_VEC(plumb_rec_thread) threads;
	PLUMB_VEC(char *) meta;    /* "key\tvalue": the profile's metadata (heap summaries) */
	uint64_t lost;             /* samples the kernel dropped (PERF_RECORD_LOST) */
	uint64_t throttled;        /* throttle events (the kernel lowered the rate) */
	/* private: equal chains of a process are stored once (samples share
	 * their ips), so long recordings grow by a sample, not a stack */
	struct plumb_rec_chain_ix *chain_ix;
	/* private: waits and context switches until plumb_rec_waits_finish */
	struct plumb_rec_waits *waits;
} plumb_rec_data;

plumb_rec_data *plumb_rec_data_new(void);
void plumb_rec_data_free(plumb_rec_data *d);

/* Add an event name (period 0); returns its index or -1. */
int plumb_rec_event_add(plumb_rec_data *d, const char *name, plumb_error *err);
/* Add a sample with its chain (copied), leaf first. */
int plumb_rec_sample_add(plumb_rec_data *d, int32_t pid, int32_t tid, uint64_t time_ns,
			 uint32_t event, uint64_t weight, const uint64_t *chain, size_t n,
			 uint32_t flags, plumb_error *err);
/* Add a metadata entry for the profile (copied). */
int plumb_rec_meta_add(plumb_rec_data *d, const char *key, const char *value, plumb_error *err);
/* Add a mapping of pid's address space. build_id may be NULL (len 0): it is
 * then read from the file when the profile is made. */
int plumb_rec_map_add(plumb_rec_data *d, int32_t pid, uint64_t time_ns, uint64_t start,
		      uint64_t len, uint64_t pgoff, const char *path, const uint8_t *build_id,
		      size_t build_id_len, plumb_error *err);
/* pid forked from ppid: it starts with a copy of ppid's live maps. */
int plumb_rec_fork(plumb_rec_data *d, int32_t ppid, int32_t pid, uint64_t time_ns,
		   plumb_error *err);
/* pid called exec: its maps so far end at time_ns. */
void plumb_rec_exec(plumb_rec_data *d, int32_t pid, uint64_t time_ns);
/* Create or update a thread: name NULL and start_routine 0 keep what is known. */
int plumb_rec_thread_set(plumb_rec_data *d, int32_t pid, int32_t tid, const char *name,
			 uint64_t start_routine, plumb_error *err);
/* The live map of pid holding addr at time t, or NULL. */
const plumb_rec_map *plumb_rec_map_find(const plumb_rec_data *d, int32_t pid, uint64_t addr,
					uint64_t t);

/* ---- waits (--off-cpu, --sync-wait; src/record/waits.c) ---------------- */

/* A timed blocking call from the preloaded library: [t0, t1] on
 * CLOCK_MONOTONIC, its kind and object, and the stack (chain[0] the libc
 * function, n 0 when it was not taken) with inv_p = 65536 / the
 * probability it was taken. */
int plumb_rec_wait_add(plumb_rec_data *d, int32_t pid, int32_t tid, unsigned kind, unsigned flags,
		       uint64_t t0, uint64_t t1, uint64_t obj, uint64_t inv_p, const uint64_t *chain,
		       size_t n, plumb_error *err);
/* The thread that held the lock of the wait added last (pid's), when it
 * began. */
void plumb_rec_wait_held(plumb_rec_data *d, int32_t pid, int32_t holder);
/* A context switch of tid (PERF_RECORD_SWITCH), out or in; preempted: the
 * thread was still runnable when it left the CPU. */
int plumb_rec_switch_add(plumb_rec_data *d, int32_t pid, int32_t tid, uint64_t time_ns, bool out,
			 bool preempted, plumb_error *err);
/* -p --off-cpu: the stack (leaf first, flags PLUMB_REC_*) tid was blocked
 * at when the window opened at time_ns; its first off-CPU interval goes
 * there, where no traced wait and no CPU sample of its own tells. */
int plumb_rec_held_add(plumb_rec_data *d, int32_t pid, int32_t tid, uint64_t time_ns,
		       const uint64_t *chain, size_t n, uint32_t flags, plumb_error *err);
/* The CPU time (ns) sample `index` of d stands for, when not its weight
 * times the period given to plumb_rec_waits_finish (perf's PERIOD). */
int plumb_rec_period_note(plumb_rec_data *d, size_t index, uint64_t period_ns, plumb_error *err);
/* What /proc/PID/task/TID/schedstat said of tid at time_ns (--off-cpu's
 * default mode, no switch records): its cumulative on-CPU ns (exec_ns) and
 * ns runnable but not running (delay_ns, the kernel's run_delay). kind
 * PLUMB_SCHED_START: the thread began then (both 0); PLUMB_SCHED_END: it
 * ended then, the counters not known (0); PLUMB_SCHED_CPU: exec_ns from
 * the thread's own CPU clock (the preloaded library's THREAD record as it
 * began or ended), delay_ns not known. */
enum { PLUMB_SCHED_READ = 0, PLUMB_SCHED_START, PLUMB_SCHED_END, PLUMB_SCHED_CPU };
int plumb_rec_sched_add(plumb_rec_data *d, int32_t pid, int32_t tid, uint64_t time_ns,
			uint64_t exec_ns, uint64_t delay_ns, unsigned kind, plumb_error *err);
/* The preloaded library's settings (WAITCFG), kept for the metadata. */
void plumb_rec_waits_config(plumb_rec_data *d, uint64_t sync_threshold_ns, uint64_t offcpu_mean_ns);

typedef struct plumb_rec_waits_opts {
	bool off_cpu;              /* events off-cpu, preempted, wall */
	bool sync_wait;            /* events sync-wait, sync-waits */
	uint64_t cpu_period_ns;    /* a cpu-clock sample without a noted period */
	bool sched;                /* off-CPU time from the schedstat readings */
} plumb_rec_waits_opts;

/* Turn the waits and switches into samples: with schedstat readings
 * (plumb_rec_sched_add), each thread's off-CPU time per poll period
 * (elapsed - on-CPU) goes to the traced waits in the period, its runqueue
 * delay (preempted) to the thread's CPU samples in it, the rest to the
 * nearest CPU sample (waits_sched.h has the arithmetic); with switches, each off-CPU
 * interval of a thread goes to the stack of the wait it lies in (weighted
 * by inv_p; dropped if that wait's stack was not taken, which the weights
 * of the taken ones stand for), or, outside any traced call, to the
 * thread's nearest cpu-clock sample; without switches (the signal sampler),
 * each taken wait's elapsed time is its off-CPU time. wall = off-cpu + the
 * CPU time of cpu-clock/task-clock samples. */
int plumb_rec_waits_finish(plumb_rec_data *d, const plumb_rec_waits_opts *o, plumb_error *err);
/* The settings the preloaded library reported (WAITCFG); false if none. */
bool plumb_rec_waits_settings(const plumb_rec_data *d, uint64_t *sync_threshold_ns,
			      uint64_t *offcpu_mean_ns);
/* Waits recorded so far (for messages). */
/* Free the private wait storage (plumb_rec_data_free does). */
void plumb_rec_waits_free(struct plumb_rec_waits *w);
size_t plumb_rec_waits_count(const plumb_rec_data *d);
/* "ns" for off-cpu, preempted, wall and sync-wait, "waits" for sync-waits,
 * else "samples". */
const char *plumb_rec_event_unit(const char *event);
/* The name of a waited-for object: "[mutex name]" when addr is in a
 * global of a module of pid, else "[mutex 0x...]" (kind: PSMP_WAIT_*). */
void plumb_rec_lock_label(const plumb_rec_data *d, int32_t pid, uint64_t t, uint64_t addr,
			  unsigned kind, char *out, size_t cap);

/* ---- symbols: plumb/symbols.h (plumb_symbolizer) ------------------------ */

/* ---- raw data -> profile ----------------------------------------------- */

typedef struct plumb_rec_profile_opts {
	const char *debug_path;    /* NULL: /usr/lib/debug */
	bool keep_samples;         /* also store each sample (time, thread, leaf node) */
	/* non-fatal news, such as a file that changed since the program ran
	 * (its build-id then, from the kernel, is not the file's now): its
	 * names would be read from the new file; may be NULL */
	plumb_warn_fn warn;
	void *warn_ctx;
} plumb_rec_profile_opts;

/* Symbolize d and add it to p (which must have no events yet): one event per
 * d->events, one thread part per (pid, tid), each labelled with its name and
 * start routine. Metadata: "record.samples", "record.lost",
 * "record.throttled", and stack completeness: "stacks.rooted" =
 * "ROOTED TOTAL" over all samples and "stacks.rooted:MODULE" per module of
 * the leaf frame, a root being main, _start, __libc_start_main,
 * start_thread or clone/clone3 on the stack. */
int plumb_rec_to_profile(const plumb_rec_data *d, const plumb_rec_profile_opts *o,
			 plumb_profile *p, plumb_error *err);

/* ---- events ----------------------------------------------------------- */

typedef struct plumb_rec_event_spec {
	char name[64];             /* as given, without modifiers: "cpu-clock" */
	uint32_t type;             /* PERF_TYPE_* */
	uint64_t config;
	bool exclude_user, exclude_kernel; /* no modifier: user space only */
	unsigned precise;          /* :p = 1, :pp = 2, :ppp = 3 */
	uint64_t period;           /* name/period=N/: every Nth event; 0: -c or -F */
	uint64_t freq;             /* name/freq=N/: N samples a second; 0: -c or -F */
} plumb_rec_event_spec;

/* Parse "cpu-clock,page-faults:u,r01c2" into *out (malloc'd, n entries).
 * Each may carry perf's terms between slashes, a period or a rate of its
 * own: "cpu-clock/period=1000000/,page-faults/period=100/u",
 * "cycles/freq=4000/:u". Unknown names and terms fail with
 * PLUMB_ERR_USAGE naming them (and the nearest known name). */
int plumb_rec_parse_events(const char *list, plumb_rec_event_spec **out, size_t *n,
			   plumb_error *err);

/* ---- recording ---------------------------------------------------------- */

typedef enum plumb_stack_mode {
	PLUMB_STACK_DWARF = 0,     /* copy registers + stack, unwind with CFI (default) */
	PLUMB_STACK_FP,            /* the kernel's frame-pointer callchain */
	PLUMB_STACK_NONE           /* the pc only */
} plumb_stack_mode;

typedef struct plumb_record_opts {
	const plumb_rec_event_spec *events; /* NULL: cpu-clock */
	size_t nevents;
	uint64_t period;           /* -c N: every Nth event; 0: use freq */
	uint64_t freq;             /* -F HZ; 0: 1000 */
	plumb_stack_mode stack;
	uint32_t stack_size;       /* bytes of stack copied per sample; 0: 16 KiB */
	pid_t pid;                 /* attach to this process; 0: run argv */
	char *const *argv;         /* the command */
	/* Called once the command runs, with its pid (for passing on signals). */
	void (*started)(pid_t child, void *ctx);
	void *ctx;
	/* Set to non-zero (e.g. by a signal handler) to stop recording
	 * (-p; with a command, recording ends when the command does). */
	volatile int *stop;
	bool off_cpu;              /* --off-cpu: schedstat polls + the wait tracer */
	bool off_cpu_exact;        /* --off-cpu=exact: switch records instead of polls */
	const char *sync_wait;     /* --sync-wait: NULL off, "auto" or a threshold in ns */
	uint64_t offcpu_mean_ns;   /* mean wait between two stacks taken; 0: 1 ms */
	plumb_warn_fn warn;        /* non-fatal news; may be NULL */
	void *warn_ctx;
	/* --heap (docs/heap.md): trace allocations in the preloaded library
	 * (the signal sampler): every one, or with heap_sample > 0 one mark
	 * per heap_sample bytes on average; heap_seed: its random seed (0: the
	 * clock). */
	bool heap;
	uint64_t heap_sample, heap_seed;
	/* For tests: unwind every sample that the recipe walk takes by
	 * libdwfl too, count the differing chains (res->unwind_differ). */
	bool unwind_check;
} plumb_record_opts;

typedef struct plumb_record_result {
	int wait_status;           /* the command's, as waitpid gives it; -1 if none */
	uint64_t samples, lost, throttled;
	/* user stacks unwound by per-file CFI recipes and by libdwfl (perf
	 * sampler, --stack dwarf); chains the two differed on (unwind_check) */
	uint64_t unwound_recipe, unwound_libdw, unwind_differ;
	bool not_permitted;        /* perf_event_open refused (EACCES/EPERM/ENOSYS):
				      try the signal sampler */
	char note[256];            /* for the profile's metadata ("record.note"), e.g.
				      the signal sampler's tick-rate limit; "" if none */
	char incomplete[512];      /* why samples are missing although recording
				      succeeded (the signal sampler's file system
				      filled up); "" if none. The data read is kept:
				      save it, then report this as a failure. */
} plumb_record_result;

/* Record with perf_event_open into d. */
int plumb_record_perf(const plumb_record_opts *o, plumb_rec_data *d, plumb_record_result *res,
		      plumb_error *err);
/* Record with the signal sampler (a preloaded library); provided by
 * src/record/signal*.c. */
int plumb_record_signal(const plumb_record_opts *o, plumb_rec_data *d, plumb_record_result *res,
			plumb_error *err);

#endif
