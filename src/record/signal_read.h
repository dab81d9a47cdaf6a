/* Reading the signal sampler's files (src/preload/format.h) into raw
 * recorded data. Internal to libplumb; the unit tests use it directly. */
#ifndef PLUMB_RECORD_SIGNAL_READ_H
#define PLUMB_RECORD_SIGNAL_READ_H

#include <stddef.h>
#include <stdint.h>

#include "plumb/record.h"

/* What the files said, summed over the files read. */
typedef struct plumb_sig_info {
	uint64_t samples;      /* SAMPLE records read */
	uint64_t periods;      /* timer periods they stand for (1 + overrun each) */
	uint64_t dropped;      /* samples the sampler could not take (END records) */
	uint64_t cpu_ns;       /* process CPU time of the processes that ended */
	uint64_t handler_ns;   /* time their signal handlers spent taking samples */
	uint64_t requested_hz; /* of the last image */
	uint32_t clock;        /* PSMP_CLOCK_* of the last image */
	unsigned images;       /* program images (process starts, forks, execs) */
	unsigned unfinished;   /* images without an END record (crashed, killed) */
} plumb_sig_info;

/* Parse the bytes of one file; name is used in messages. Samples go to
 * event `event` of d with weight 1 + the timer's overrun count. With
 * pc_only, chains keep their first address only (-g none). Damage is an
 * error naming the byte offset; a last record cut short (the process was
 * killed while writing) is a warning and the rest is kept. */
int plumb_sig_read_buffer(const char *name, const unsigned char *buf, size_t len,
			  plumb_rec_data *d, uint32_t event, bool pc_only, plumb_sig_info *info,
			  plumb_warn_fn warn, void *warn_ctx, plumb_error *err);

/* Same, for a file. */
int plumb_sig_read_file(const char *path, plumb_rec_data *d, uint32_t event, bool pc_only,
			plumb_sig_info *info, plumb_warn_fn warn, void *warn_ctx, plumb_error *err);

/* The preloaded library (signal.c), shared with the perf recorder, which
 * preloads it for --off-cpu and --sync-wait: its path (heap: the build
 * with the allocator wrappers, for --heap); the command's
 * environment (ours plus LD_PRELOAD and the PLUMB_SAMPLER_* settings:
 * clock "cpu" or "none", waits as plumb_rec_waits_env gives, heap's
 * --heap settings when heap is not NULL); the
 * plumb-sampler.* files of dir, sorted. */
int plumb_sampler_find(char *out, size_t cap, bool heap, plumb_error *err);
char **plumb_sampler_env(const char *lib, const char *dir, uint64_t hz, const char *clock,
			 const char *waits, const plumb_record_opts *heap);
void plumb_sampler_env_free(char **env);
char **plumb_sampler_list(const char *dir, size_t *n, plumb_error *err);
void plumb_sampler_list_free(char **v, size_t n, int unlink_them);

/* PLUMB_SAMPLER_WAITS for o's --off-cpu / --sync-wait ("" when neither). */
void plumb_rec_waits_env(const plumb_record_opts *o, char *out, size_t cap);

#endif
