/* Private to the Callgrind reader: its state, shared by callgrind_read.c
 * (lines, positions, costs, calls) and callgrind_header.c (header lines,
 * events, parts, metadata). See docs/callgrind.md for what each construct
 * means to plumb. */
#ifndef PLUMB_FORMATS_CALLGRIND_READ_H
#define PLUMB_FORMATS_CALLGRIND_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/linesrc.h"
#include "formats/quote.h"
#include "plumb/formats.h"

#define CG_MAX_POS 4       /* position columns on a cost line (instr bb line + spare) */
#define CG_UNDEF 0xFFFFFFFEu /* a compressed id not defined yet */
#define CG_MAX_ID (1u << 24) /* largest compressed id accepted */

/* A compressed function name: the name, and the function it was last
 * bound to (with which file and object), so repeated fn= lines do not hash. */
typedef struct cg_fname {
	plumb_id name;      /* string id; CG_UNDEF if the id is not defined */
	plumb_id file, module, fn;
} cg_fname;

typedef struct cg_idmap {
	uint32_t *v;        /* compressed id -> file or module id (PLUMB_NONE = "???") */
	size_t n;
} cg_idmap;

/* An `event:` line of the current header. */
typedef struct cg_eventdef {
	char *name, *formula, *long_name; /* formula, long_name may be NULL */
	uint64_t lineno;
} cg_eventdef;

/* A totals: check put off: the line, and what it is checked against. */
typedef struct cg_totals {
	char *totals;
	uint64_t line;
	size_t nevents;
	char **events;
	uint32_t *evmap;
	uint64_t *sum;              /* profile events */
} cg_totals;

typedef struct cg_reader {
	plumb_profile *p;
	const char *path;
	const plumb_read_opts *opts;
	plumb_error *err;
	plumb_linesrc src;
	uint64_t lineno;
	bool lines_only;
	/* plumb_read_opts.functions_only: one frame per function (line 0, the
	 * function's file), no entry frames, no jumps: what function views need */
	bool functions_only;

	/* the cost line layout (persists across parts, as in KCachegrind) */
	int npos, addr_col, line_col;
	char *positions;            /* as written, for the metadata */
	char **events;              /* the current events: names */
	size_t nevents;
	uint64_t events_line;
	uint32_t *evmap;            /* column -> profile event */

	/* header of the current section */
	bool in_body, events_here;
	size_t nsection;            /* sections begun so far (the current one included) */
	int64_t pid, tid, partno;
	cg_eventdef *defs;
	size_t ndefs;
	char *totals;               /* raw totals: of this section, checked at its end */
	uint64_t totals_line;

	/* body state */
	plumb_id part;
	cg_idmap files, objs;
	cg_fname *fns;
	size_t nfns;
	plumb_id ob, fl, file, fn;  /* current object, fl= file, current file, function */
	bool fl_seen;               /* an fl= in this part */
	plumb_id cob, cfi;          /* for the next call: an id, PLUMB_NONE (???), CG_UNDEF (not given) */
	plumb_id cfn_name;          /* string id of the last cfn= (CG_UNDEF: none) */
	uint32_t cfn_slot;          /* its compressed id, or CG_UNDEF */
	bool cfn_fresh;             /* a cfn= since the last call */
	plumb_id callee;
	uint64_t last[CG_MAX_POS];  /* the base for relative positions */
	bool call_pending;
	uint64_t call_count, call_lineno, call_target[CG_MAX_POS];
	uint64_t jumps;
	/* a jump=/jcnd= line waiting for its source line; its target's jfi=/jfn= */
	bool jump_pending, jump_cond;
	uint64_t jump_executed, jump_followed, jump_lineno, jump_target[CG_MAX_POS];
	plumb_id jfi;               /* file id, PLUMB_NONE (???), CG_UNDEF (not given) */
	plumb_id jfn_name;          /* string id of the jfn= (CG_UNDEF: none) */
	uint32_t jfn_slot;          /* its compressed id, or CG_UNDEF */

	/* self costs summed while the position repeats */
	bool self_valid;
	plumb_id self_fn, self_file;
	uint32_t self_line;
	uint64_t self_addr;
	uint64_t *self_cost;        /* profile events */
	uint64_t self_zeros;        /* events written as 0 there (plumb_cg_note_zeros) */
	uint64_t *costs;            /* scratch: one cost line */
	uint64_t zeros;             /* its events written as 0 */
	uint64_t *sum;              /* this section's self costs, per profile event */
	size_t cost_slots;          /* size of the three arrays */
	uint8_t *entry_known;       /* function id -> its entry frame was added */
	size_t entry_cap;
	/* the frame interned last, for the next one at the same position (a
	 * function's calls and self cost with functions_only): fn, file, line,
	 * address as asked; frame_id1 = its id + 1, 0: none */
	plumb_id frame_fn, frame_file;
	uint32_t frame_line;
	uint64_t frame_addr;
	plumb_id frame_id1;
	/* functions_only: function id -> its one frame's id + 1 (0: not yet) */
	uint32_t *fn_frame1;
	size_t fn_frame_cap;

	/* reading in pieces (callgrind_par.c); all zero for a serial read */
	uint64_t stop_at;           /* first piece: stop before the line at this byte */
	uint64_t start_at;          /* a later piece: lines before this byte are skimmed */
	bool skim;                  /* before start_at: headers and names only (no costs) */
	size_t piece_section;       /* the section the piece starts in */
	cg_totals *deferred;        /* that section's totals: check, without the
				     * earlier pieces' sums (they add them) */
	const plumb_read_opts *piece_opts; /* the opts from start_at on */

	/* metadata and warnings */
	char *desc;
	size_t desc_len;
	uint64_t unknown;           /* unknown lines (warned about the first few) */
} cg_reader;

/* The message "FILE:LINE: " + fmt, as a PLUMB_ERR_FORMAT error; returns -1. */
int cg_bad(cg_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cg_bad_code(cg_reader *r, plumb_status code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cg_warn(cg_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An unknown line: warned about with its number the first few times. */
void cg_unknown(cg_reader *r, const char *what, const char *s, size_t n);

static inline bool cg_is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* callgrind_header.c */
/* A "key: value" line (key without the colon); in_body says whether the
 * body of a section has begun (then it ends, except for totals:). */
int cg_header_line(cg_reader *r, const char *key, size_t klen, const char *v, const char *e,
		   const char *raw_v);
/* The first body line of a section: events into the profile, a new part. */
int cg_begin_body(cg_reader *r);
/* The end of a section: flush costs, check totals:. */
int cg_end_section(cg_reader *r);
int cg_finish_meta(cg_reader *r);
void cg_header_free(cg_reader *r);
/* Flush the summed self cost of the last position into the profile. */
int cg_flush_self(cg_reader *r);
/* Forget the compressed names and positions of the last section. */
void cg_reset_names(cg_reader *r);
/* Warn where t's sums differ from its totals: line (at that line). */
void cg_check_totals(cg_reader *r, const cg_totals *t);
void cg_totals_free(cg_totals *t);

/* callgrind_read.c: one reader over [0, stop_at) or all of the file with
 * [0, start_at) skimmed (see callgrind_par.c). Without cg_read_finish it
 * leaves the section open; cg_reader_free frees it either way. */
int cg_read_piece(cg_reader *r);
int cg_read_finish(cg_reader *r);
void cg_reader_init(cg_reader *r, plumb_profile *p, const char *path, const plumb_read_opts *opts,
		    plumb_error *err);
void cg_reader_free(cg_reader *r);
/* The serial reader. */
int cg_read_serial(plumb_profile *p, const char *path, const plumb_read_opts *opts,
		   plumb_error *err);
/* callgrind_par.c: the file in two pieces on two threads, or 1 (nothing
 * read, p untouched) when it offers no safe split: then read it serially. */
int cg_read_parallel(plumb_profile *p, const char *path, const plumb_read_opts *opts,
		     plumb_error *err);

#endif
