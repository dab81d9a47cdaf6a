/* plumb: input and output formats.
 *
 * Inputs are recognised by their content, never by their name; an output's
 * name picks the format it is written in. Each format lives in one file
 * under src/formats/ (or src/store/ for .plumb) and has one plumb_format_ops
 * row in src/formats/registry.c.
 */
#ifndef PLUMB_FORMATS_H
#define PLUMB_FORMATS_H

#include <stdio.h>

#include "plumb/error.h"
#include "plumb/profile.h"

typedef enum plumb_format {
	PLUMB_FMT_UNKNOWN = 0,
	PLUMB_FMT_PLUMB,      /* the .plumb store (SQLite) */
	PLUMB_FMT_FOLDED,     /* folded stacks: "a;b;c 123" */
	PLUMB_FMT_CALLGRIND,  /* Callgrind's profile format (seed 001) */
	PLUMB_FMT_GMON,       /* gmon.out of gcc -pg programs (plumb/gmon.h) */
	PLUMB_FMT_APROF,      /* aprof's input-sensitive profiles (seed 000) */
	PLUMB_FMT_SPEEDSCOPE, /* speedscope's JSON (written only) */
	PLUMB_FMT_PPROF,      /* pprof's profile.proto, gzip-wrapped or raw */
	PLUMB_FMT_COUNT
} plumb_format;

/* Progress of a long read: the bytes of the file at path read so far and
 * its size (0 when not known). Called now and then (about every MiB) by
 * the readers of big text files, and once with done == total when a file
 * is read (or has failed), so that a caller can clear what it showed. */
typedef void (*plumb_progress_fn)(void *ctx, const char *path, uint64_t done, uint64_t total);

typedef struct plumb_read_opts {
	plumb_warn_fn warn;   /* may be NULL: warnings are dropped */
	void *warn_ctx;
	/* Merge positions that differ only in their address (frames keep
	 * function, file and line; address 0). Every view but instruction-level
	 * annotation is the same; big Callgrind files load faster and smaller. */
	bool lines_only;
	/* Only function-level costs are needed (flat, callers, tree views):
	 * a reader that keeps the call graph summed by function (the .plumb
	 * store) may read that instead of every position. Implies lines_only
	 * for the others. */
	bool functions_only;
	/* Only the flat view of the whole profile is needed (function level,
	 * no --focus, part or time range): a reader that keeps its metrics
	 * (the .plumb store) may read them (plumb_profile.flat) instead of
	 * any costs, into an empty profile. Implies functions_only. */
	bool flat_only;
	/* The same for the inputs view of a profile with performance points
	 * (all parts, routines whole, no charts): plumb_profile.inputs. */
	bool inputs_only;
	/* The executable a gmon.out belongs to (its symbols, address size and
	 * byte order); NULL = "a.out" in the gmon file's directory, as gprof
	 * defaults to a.out. Only gmon files use it. */
	const char *executable;
	/* What the counts of folded stacks are (--event-name, --unit): e.g.
	 * "off-cpu" in "ns" from a stackcollapse of nanosecond weights. NULL:
	 * "samples" (in samples). Only folded stacks use them. */
	const char *event_name, *event_unit;
	/* May be NULL: no progress is reported. */
	plumb_progress_fn progress;
	void *progress_ctx;
} plumb_read_opts;

/* What a long write reports, for a progress line: the bytes written so
 * far with total 0 (not known ahead), at most every few MB, and done ==
 * total at the end. */
typedef struct plumb_write_progress {
	plumb_progress_fn fn;   /* NULL: nothing is reported */
	void *ctx;
} plumb_write_progress;

/* A stream that writes what it is given to out and reports the bytes so
 * far through wp (for path); closing it flushes it into out, which stays
 * open, and reports the end. NULL on ENOMEM. */
FILE *plumb_progress_stream(FILE *out, const char *path, const plumb_write_progress *wp);

/* One row per format (src/formats/registry.c): everything plumb knows about
 * it. detect() looks at the first bytes of a file (up to 64 KiB, fewer for
 * short files; decompressed when the file is compressed) and says whether
 * they are this format; read() adds the file's contents to p; write()
 * stores p at path and write_stream() writes it to an open stream (either
 * NULL when the format cannot be written that way; detect and read are
 * NULL for a format plumb only writes). Adding a format is one
 * file and one row: the messages, convert's choice of output format and the
 * detection order all come from the table. */
typedef struct plumb_format_ops {
	plumb_format id;
	const char *name;          /* "plumb", "folded": what --to takes */
	const char *description;   /* for lists: "folded stacks (\"a;b;c 123\" per line)" */
	/* Output names this format owns, for convert -o: name endings
	 * (".folded") and basename prefixes ("callgrind.out"); NULL-ended. */
	const char *const *extensions;
	const char *const *prefixes;
	bool compressed_input;     /* gzip- or zstd-compressed files are read */
	bool (*detect)(const unsigned char *head, size_t len);
	int (*read)(plumb_profile *p, const char *path, const plumb_read_opts *opts,
		    plumb_error *err);
	int (*write)(const plumb_profile *p, const char *path, plumb_error *err);
	int (*write_stream)(const plumb_profile *p, FILE *out, plumb_error *err);
	/* An empty file that stands for other files (Callgrind's
	 * --separate-threads=yes leaves the base file empty beside its thread
	 * files): their paths, malloc'd, in *out (NULL, 0 when path is not such
	 * a file). NULL for formats without the notion. */
	int (*part_files)(const char *path, char ***out, size_t *n, plumb_error *err);
} plumb_format_ops;

/* The rows, in detection order; *n gets their count. */
const plumb_format_ops *plumb_formats(size_t *n);
const plumb_format_ops *plumb_format_get(plumb_format fmt);
/* By name ("plumb", "folded"); NULL if unknown. */
const plumb_format_ops *plumb_format_by_name(const char *name);
const char *plumb_format_name(plumb_format fmt);
/* The format an output file name asks for (its extension or basename
 * prefix, from the table); PLUMB_FMT_UNKNOWN when no writable format owns
 * the name. */
plumb_format plumb_format_for_output(const char *path);
/* "plumb (.plumb), callgrind (.callgrind, callgrind.out*), folded (.folded,
 * .txt)": the writable formats and the names they own, for messages. */
const char *plumb_format_writers_list(void);

/* Open a file for reading with a clear error for a missing file, a
 * directory or an unreadable file. */
FILE *plumb_open_input(const char *path, plumb_error *err);

/* Standard input ("-") and pipes cannot be read twice (detection, then
 * the reader): copy such an input into a temporary file first. *tmp_out
 * gets its malloc'd name, to read and then unlink and free; NULL when path
 * can be read as it is. */
int plumb_spool_input(const char *path, char **tmp_out, plumb_error *err);

/* Detect a file's format from its content. */
int plumb_detect_file(const char *path, plumb_format *out, plumb_error *err);
plumb_format plumb_detect_buffer(const unsigned char *head, size_t len);

/* Detect and read one file into p (which may already hold other files of the
 * same events: they are added as further parts/costs). fmt_out may be NULL.
 * On failure p may hold part of the file: discard it (plumb_profile_free). */
int plumb_read_file(plumb_profile *p, const char *path, const plumb_read_opts *opts,
		    plumb_format *fmt_out, plumb_error *err);

/* The profile's costs summed per event fit in 64 bits (every view sums
 * them); else PLUMB_ERR_OVERFLOW naming what (a file, "the files merged").
 * plumb_read_file checks each file; a caller that merges checks the sum. */
int plumb_check_totals(const plumb_profile *p, const char *what, plumb_error *err);

/* Write p to path in fmt. Every writer writes a temporary file in the same
 * directory and renames it over path only when it is complete. */
int plumb_write_file(const plumb_profile *p, const char *path, plumb_format fmt,
		     plumb_error *err);
/* Write p to an open stream in fmt (PLUMB_ERR_USAGE when fmt has no stream
 * writer). The stream is flushed and checked, not closed; out_name names it
 * in messages ("standard output"). */
int plumb_write_stream(const plumb_profile *p, FILE *out, const char *out_name, plumb_format fmt,
		       plumb_error *err);

/* ---- helpers for writers: atomic output ------------------------------ */

/* How an output is written (docs/plumb.1, "Outputs"):
 *  - a new name or a regular file: into a temporary file beside it, renamed
 *    over it only when complete; a replaced file keeps its mode (and, for
 *    root, its owner and group);
 *  - a symbolic link is followed, as cp(1) follows it: the file it names is
 *    the one replaced (or created), and the link stays;
 *  - a device, FIFO or socket (/dev/null, /dev/full, a named pipe) is never
 *    replaced: the output goes to a temporary file in $TMPDIR (or /tmp) and
 *    is copied into it when complete, and its write errors are reported. */
typedef struct plumb_atomic_file {
	FILE *fp;
	char *path;       /* the file replaced or written (a link's target) */
	char *tmp_path;   /* the temporary file */
	bool special;     /* path is a device, FIFO or socket: copied into */
} plumb_atomic_file;

/* Create tmp file next to path. fp is open for writing. */
int plumb_atomic_open(plumb_atomic_file *af, const char *path, plumb_error *err);
/* Create only the temporary name (for writers such as SQLite that open the
 * file themselves); the empty temp file exists afterwards; fp is NULL. */
int plumb_atomic_reserve(plumb_atomic_file *af, const char *path, plumb_error *err);
/* Flush, fsync, close and rename tmp over path. On failure tmp is removed. */
int plumb_atomic_commit(plumb_atomic_file *af, plumb_error *err);
/* Close and remove the temporary file; path is untouched. */
void plumb_atomic_abort(plumb_atomic_file *af);

/* ---- the formats ----------------------------------------------------- */

bool plumb_folded_detect(const unsigned char *head, size_t len);
/* Folded stacks with damage the reader can name by line (a negative count,
 * NUL bytes), which plumb_folded_detect refuses: tried when no format
 * matches, so that the message says which line is wrong. */
bool plumb_folded_detect_damaged(const unsigned char *head, size_t len);
int plumb_folded_read(plumb_profile *p, const char *path, const plumb_read_opts *opts,
		      plumb_error *err);
int plumb_folded_write(const plumb_profile *p, const char *path, plumb_error *err);
/* The folded text for one stream (used by the writer and by tests). Uses the
 * first event; stacks are root-first, frames "name" (as perf's
 * stackcollapse and flamegraph.pl expect). */
int plumb_folded_write_stream(const plumb_profile *p, FILE *out, plumb_error *err);
typedef struct plumb_folded_write_opts {
	bool modules;  /* frames "name [module]" when the module is known */
} plumb_folded_write_opts;
/* The same with options (o may be NULL: the defaults). */
int plumb_folded_write_stream_with(const plumb_profile *p, FILE *out, const plumb_folded_write_opts *o,
				   plumb_error *err);
int plumb_folded_write_with(const plumb_profile *p, const char *path, const plumb_folded_write_opts *o,
			    plumb_error *err);

/* Callgrind (src/formats/callgrind_read.c, callgrind_write.c). The reader
 * takes plain, gzip- or zstd-compressed files of any size; each part (dump,
 * thread) becomes a plumb part. The writer writes any profile: a call graph
 * as it is, a CCT as calls= lines with each context's inclusive cost. */
bool plumb_callgrind_detect(const unsigned char *head, size_t len);
int plumb_callgrind_read(plumb_profile *p, const char *path, const plumb_read_opts *opts,
			 plumb_error *err);
int plumb_callgrind_write(const plumb_profile *p, const char *path, plumb_error *err);
int plumb_callgrind_write_stream(const plumb_profile *p, FILE *out, plumb_error *err);
/* The thread and dump files an empty Callgrind file stands for: PATH-NN,
 * PATH.N and PATH.N-NN that are Callgrind files (the registry's part_files). */
int plumb_callgrind_part_files(const char *path, char ***out, size_t *n, plumb_error *err);

/* gmon.out (src/formats/gmon_profile.c): the histogram becomes exclusive
 * "time" (nanoseconds) per function, and per source line when the
 * executable has DWARF lines; arcs become call-graph arcs with call counts
 * and no inclusive cost (inclusive metrics are then estimates). Only GNU
 * files are detected by content; BSD files are read when the read options
 * name the executable. */
bool plumb_gmon_format_detect(const unsigned char *head, size_t len);
int plumb_gmon_profile_read(plumb_profile *p, const char *path, const plumb_read_opts *opts,
			    plumb_error *err);

/* aprof reports (src/formats/aprof_*.c, docs/aprof.md): versions 0 to 6,
 * plain, gzip or zstd; each file one thread part of performance points
 * (their self sums also as call-graph or CCT self costs). The writer
 * writes version 6 from a profile's points; PLUMB_ERR_UNSUPPORTED for a
 * profile without any. */
bool plumb_aprof_detect(const unsigned char *head, size_t len);
int plumb_aprof_read(plumb_profile *p, const char *path, const plumb_read_opts *opts,
		     plumb_error *err);
int plumb_aprof_write(const plumb_profile *p, const char *path, plumb_error *err);
int plumb_aprof_write_stream(const plumb_profile *p, FILE *out, plumb_error *err);

/* speedscope's JSON file format (src/formats/speedscope.c), written only:
 * one sampled profile per part and event, frames per function.
 * PLUMB_ERR_UNSUPPORTED for a profile with only a call graph. */
int plumb_speedscope_write(const plumb_profile *p, const char *path, plumb_error *err);
int plumb_speedscope_write_stream(const plumb_profile *p, FILE *out, plumb_error *err);
/* pprof (src/formats/pprof_*.c, docs/pprof.md): profile.proto, raw or
 * gzip-wrapped. Sample types become events (the default one first),
 * samples CCT paths with inlined lines as frames, thread labels thread
 * parts. The writer writes any profile, gzip-wrapped; a call graph as
 * one-frame samples of its self costs. */
bool plumb_pprof_detect(const unsigned char *head, size_t len);
int plumb_pprof_read(plumb_profile *p, const char *path, const plumb_read_opts *opts,
		     plumb_error *err);
int plumb_pprof_write(const plumb_profile *p, const char *path, plumb_error *err);
int plumb_pprof_write_stream(const plumb_profile *p, FILE *out, plumb_error *err);
/* What a pprof file of p cannot hold (call-graph arcs, jumps, performance
 * points), as one sentence for a warning; NULL when nothing is lost. The
 * text is in a static buffer, valid until the next call. */
const char *plumb_pprof_losses(const plumb_profile *p);

#endif
