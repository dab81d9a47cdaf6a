/* The file the signal sampler writes: DIR/plumb-sampler.<pid>, one per
 * process. Shared by the preloaded library (writer) and src/record (reader).
 *
 * Native byte order (the reader runs on the same machine). The file starts
 * with a 16-byte header, then records. Every record starts with a type and
 * its total size in bytes (header included), a multiple of 8, so a reader
 * can skip types it does not know. An exec in the process starts a new
 * image in the same file: a new IMAGE record, whose maps replace the old.
 *
 *   header  "PLUMBSMP" u32 version u32 header size (16)
 *   IMAGE   u32 pid, ppid, origin, clock, signo, pad; u64 period_ns,
 *           requested_hz, time_ns; u32 exe_len, cmdline_len;
 *           exe path then /proc/self/cmdline bytes, zero-padded
 *   SAMPLE  u32 tid; u16 nframes, flags; u32 overrun, pad; u64 time_ns;
 *           u64 pc[nframes], leaf first (pc[0] the interrupted pc,
 *           the others return addresses)
 *   THREAD  u32 tid, flags; u64 start_routine, time_ns, cpu_ns;
 *           char name[16]; the last record of a tid is the newest
 *   MAPS    u64 time_ns; u32 len, pad; /proc/self/maps text (len bytes),
 *           zero-padded
 *   END     u64 time_ns, cpu_ns (process), samples, dropped, handler_ns
 *           (time spent taking samples); u32 reason, pad
 *   WAIT    u32 tid; u16 nframes; u8 kind, flags; u64 t0, t1 (the call and
 *           its return), obj (lock, condvar, semaphore or barrier address,
 *           thread id of a join, fd of I/O), inv_p (1/probability that
 *           the stack was taken, x65536); u64 pc[nframes]: pc[0] the
 *           waiting libc function, then return addresses (nframes 0: a
 *           wait whose stack was not taken). docs/waits.md
 *   WAITCFG u64 sync_threshold_ns, offcpu_mean_ns; u32 modes, pad
 *
 * With heap tracing (plumb record --heap, docs/heap.md) also:
 *   HEAP_INFO    u32 mode (1 exact, 2 sampled), flags; u64 sample_bytes;
 *                u32 text_len, pad; text: where malloc comes from, when
 *                it is not this library (an allocator it cannot see)
 *   HEAP_STACK   u32 tid, id; u16 nframes, flags; u32 pad; u64 pc[nframes],
 *                leaf first: the allocator's entry, then return addresses;
 *                ids count per thread and image
 *   HEAP_EVENTS  u32 tid, len; u64 time_ns (of the first event); len bytes
 *                of events, zero-padded. An event is a kind byte then
 *                unsigned LEB128 numbers; seq (a process-wide order of
 *                events) and pointers are deltas from the previous event
 *                of the record (pointers zigzag-coded):
 *                  ALLOC  dseq dptr size stack     FREE, FREE_TEMP dseq dptr
 *                  MMAP   dseq dptr len stack      MUNMAP dseq dptr len
 *                  MREMAP dseq dptr len stack old_ptr old_len
 *                  TIME   time_ns - the record's time_ns
 *
 * A process that crashes or is killed has no END record and may lose what
 * its threads had not flushed yet (at most ~100 ms each).
 */
#ifndef PLUMB_PRELOAD_FORMAT_H
#define PLUMB_PRELOAD_FORMAT_H

#include <stdint.h>

#define PSMP_MAGIC "PLUMBSMP"
#define PSMP_VERSION 1u
#define PSMP_MAX_FRAMES 256

enum psmp_type {
	PSMP_IMAGE = 1,
	PSMP_SAMPLE = 2,
	PSMP_THREAD = 3,
	PSMP_MAPS = 4,
	PSMP_END = 5,
	PSMP_HEAP_INFO = 6,
	PSMP_HEAP_STACK = 7,
	PSMP_HEAP_EVENTS = 8,
	PSMP_WAIT = 16,
	PSMP_WAITCFG = 17,
	PSMP_WAITHELD = 18,
};

enum psmp_heap_mode { PSMP_HEAP_EXACT = 1, PSMP_HEAP_SAMPLED = 2 };
enum psmp_heap_kind {
	PSMP_HEAP_ALLOC = 1,
	PSMP_HEAP_FREE = 2,
	PSMP_HEAP_FREE_TEMP = 3,   /* sampled mode: freed before its thread allocated again */
	PSMP_HEAP_MMAP = 4,
	PSMP_HEAP_MUNMAP = 5,
	PSMP_HEAP_TIME = 6,
	PSMP_HEAP_MREMAP = 7,      /* moves a recorded mapping; others are ignored */
};
enum {
	PSMP_HEAP_MALLOC_ELSEWHERE = 1,  /* malloc resolves before this library: not seen */
	PSMP_HEAP_OTHER_ALLOCATOR = 2,   /* the malloc wrapped is not libc's */
};

enum psmp_origin { PSMP_ORIGIN_START = 0, PSMP_ORIGIN_FORK = 1, PSMP_ORIGIN_EXEC = 2 };
enum psmp_clock { PSMP_CLOCK_CPU = 0, PSMP_CLOCK_WALL = 1, PSMP_CLOCK_NONE = 2 /* waits only */ };
enum psmp_end_reason { PSMP_END_EXIT = 0, PSMP_END_EXEC = 1 };

enum {
	PSMP_SAMPLE_TRUNCATED = 1,   /* more than PSMP_MAX_FRAMES frames */
	PSMP_SAMPLE_NO_UNWIND = 2,   /* the unwinder did not reach the interrupted frame */
};

enum {
	PSMP_THREAD_MAIN = 1,        /* the process's first thread */
	PSMP_THREAD_ENDED = 2,
};

struct psmp_file_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
};

struct psmp_rec {
	uint32_t type;
	uint32_t size;
};

struct psmp_image {
	struct psmp_rec h;
	uint32_t pid, ppid, origin, clock, signo, pad;
	uint64_t period_ns, requested_hz, time_ns;
	uint32_t exe_len, cmdline_len;
	/* char exe[exe_len], cmdline[cmdline_len] follow */
};

struct psmp_sample {
	struct psmp_rec h;
	uint32_t tid;
	uint16_t nframes, flags;
	uint32_t overrun, pad;
	uint64_t time_ns;
	/* uint64_t pc[nframes] follows */
};

struct psmp_thread {
	struct psmp_rec h;
	uint32_t tid, flags;
	uint64_t start_routine, time_ns, cpu_ns;
	char name[16];
};

struct psmp_maps {
	struct psmp_rec h;
	uint64_t time_ns;
	uint32_t len, pad;
	/* char text[len] follows */
};

struct psmp_end {
	struct psmp_rec h;
	uint64_t time_ns, cpu_ns, samples, dropped, handler_ns;
	uint32_t reason, pad;
};

struct psmp_heap_info {
	struct psmp_rec h;
	uint32_t mode, flags;
	uint64_t sample_bytes;
	uint32_t text_len, pad;
	/* char text[text_len] follows */
};

struct psmp_heap_stack {
	struct psmp_rec h;
	uint32_t tid, id;
	uint16_t nframes, flags;
	uint32_t pad;
	/* uint64_t pc[nframes] follows */
};

struct psmp_heap_events {
	struct psmp_rec h;
	uint32_t tid, len;
	uint64_t time_ns;
	/* unsigned char events[len] follows */
};

/* What a WAIT record waited in. The first ones are synchronization
 * waits (--sync-wait); all are off-CPU candidates (--off-cpu). */
enum psmp_wait_kind {
	PSMP_WAIT_MUTEX = 1, PSMP_WAIT_COND, PSMP_WAIT_RWLOCK, PSMP_WAIT_SEM, PSMP_WAIT_JOIN,
	PSMP_WAIT_BARRIER, PSMP_WAIT_SYNC_LAST = PSMP_WAIT_BARRIER,
	PSMP_WAIT_SLEEP, PSMP_WAIT_IO, PSMP_WAIT_POLL, PSMP_WAIT_FUTEX,
};

enum {
	PSMP_WAIT_IS_SYNC = 1,       /* a sync wait at or above the threshold */
	PSMP_WAIT_TRUNCATED = 2,     /* stack longer than PSMP_MAX_FRAMES */
};

enum { PSMP_MODE_OFFCPU = 1, PSMP_MODE_SYNC = 2 };

struct psmp_wait {
	struct psmp_rec h;
	uint32_t tid;
	uint16_t nframes;
	uint8_t kind, flags;
	uint64_t t0, t1, obj, inv_p;
	/* uint64_t pc[nframes] follows */
};

/* Follows a WAIT record of a lock wait: the thread that held the lock when
 * the wait began (glibc's mutex owner, an rwlock's writer). */
struct psmp_waitheld {
	struct psmp_rec h;
	uint32_t holder, pad;
};

struct psmp_waitcfg {
	struct psmp_rec h;
	uint64_t sync_threshold_ns, offcpu_mean_ns;
	uint32_t modes, pad;
};

/* Bytes of a record with n payload bytes after its fixed part, padded. */
#define PSMP_PAD8(n) (((n) + 7u) & ~(uint64_t)7u)

/* The layout above is the file format: a field added, moved or resized
 * changes every file, so the sizes are pinned (as sysprof pins its capture
 * records), and every fixed part stays a multiple of 8 so that the u64
 * fields of the next record are aligned. */
_Static_assert(sizeof(struct psmp_file_header) == 16, "psmp_file_header is 16 bytes");
_Static_assert(sizeof(struct psmp_rec) == 8, "psmp_rec is 8 bytes");
_Static_assert(sizeof(struct psmp_image) == 64, "psmp_image is 64 bytes");
_Static_assert(sizeof(struct psmp_sample) == 32, "psmp_sample is 32 bytes");
_Static_assert(sizeof(struct psmp_thread) == 56, "psmp_thread is 56 bytes");
_Static_assert(sizeof(struct psmp_maps) == 24, "psmp_maps is 24 bytes");
_Static_assert(sizeof(struct psmp_end) == 56, "psmp_end is 56 bytes");
_Static_assert(sizeof(struct psmp_heap_info) == 32, "psmp_heap_info is 32 bytes");
_Static_assert(sizeof(struct psmp_heap_stack) == 24, "psmp_heap_stack is 24 bytes");
_Static_assert(sizeof(struct psmp_heap_events) == 24, "psmp_heap_events is 24 bytes");
_Static_assert(sizeof(struct psmp_wait) == 48, "psmp_wait is 48 bytes");
_Static_assert(sizeof(struct psmp_waitcfg) == 32, "psmp_waitcfg is 32 bytes");
_Static_assert(sizeof(struct psmp_image) % 8 == 0 && sizeof(struct psmp_sample) % 8 == 0 &&
		       sizeof(struct psmp_thread) % 8 == 0 && sizeof(struct psmp_maps) % 8 == 0 &&
		       sizeof(struct psmp_end) % 8 == 0,
	       "records keep 8-byte alignment");

#endif
