/* Private to the aprof reader (aprof_read.c, aprof_points.c,
 * aprof_contexts.c): its state while one report is read. */
#ifndef PLUMB_FORMATS_APROF_READ_H
#define PLUMB_FORMATS_APROF_READ_H

#include <stdarg.h>

#include "formats/aprof_internal.h"
#include "formats/linesrc.h"
#include "plumb/formats.h"

/* A routine of the file (r line). Its function is interned when a point,
 * a context or the end of the file needs it, so that the u or d line after
 * the r line can still give it its mangled or demangled name. */
typedef struct aprof_routine {
	plumb_id name, object, mangled; /* string ids; object PLUMB_NONE: "NONE" */
	plumb_id fn, frame;             /* PLUMB_NONE until interned */
	uint64_t line;                  /* of its r line */
} aprof_routine;

/* A q point waiting for the x lines at the end that say what its context is. */
typedef struct aprof_pending_q {
	plumb_point pt;
	uint64_t context;               /* the file's context id */
	uint64_t line;
} aprof_pending_q;

/* A calling context (x line). */
typedef struct aprof_context {
	uint64_t id, parent;            /* parent: the file's id; none if is_top */
	bool is_top;                    /* parent -1: a child of the root */
	uint8_t state;                  /* building its node: 0 not yet, 1 under way, 2 done */
	uint32_t routine;               /* index into routines */
	plumb_id node;
	uint64_t line;
} aprof_context;

/* The points of the routine whose p lines are being read, by input size
 * (aprof_points.c): aprof writes each routine's points after its r line,
 * so a small table finds equal points where the profile's index of every
 * point would miss the cache on each line. */
typedef struct aprof_block_slot {
	uint64_t input;
	uint32_t id1;                   /* point id + 1; 0: empty */
} aprof_block_slot;

typedef struct aprof_block {
	plumb_id fn;                    /* the routine's function; PLUMB_NONE: none yet */
	bool shared;                    /* fn had points before: the profile's index finds them */
	size_t first;                   /* its points are p->points.v[first ..] */
	size_t count, nslots;           /* nslots: a power of two, count <= nslots / 2 */
	aprof_block_slot *slots;
	size_t cap;                     /* slots allocated */
	uint8_t *seen;                  /* per function: had a block in this file */
	size_t nseen;
} aprof_block;

typedef struct aprof_reader {
	plumb_profile *p;
	const char *path;
	const plumb_read_opts *opts;
	plumb_error *err;
	plumb_linesrc src;
	uint64_t lineno;

	int version;                    /* -1 until a v line or the first data line */
	bool in_data;                   /* a routine, point or context line was read */
	char *metric;                   /* m line, malloc'd; NULL: none */
	plumb_points_info info;
	plumb_id part;
	uint32_t missing;               /* PLUMB_PT_* the writer marked absent */

	PLUMB_VEC(aprof_routine) routines;
	aprof_idmap routine_ix;
	PLUMB_VEC(aprof_pending_q) qs;
	PLUMB_VEC(aprof_context) contexts;
	aprof_idmap context_ix;

	const void *has_layout;         /* the p/q layout of the last point line */
	size_t has_n;                   /* and its number of fields */
	uint32_t has;                   /* and the PLUMB_PT_* fields it has */

	aprof_block block;

	uint64_t no_self;               /* points without a self sum */
	bool warned_g, warned_fav, warned_deprecated;
} aprof_reader;

/* "FILE:LINE: message" (PLUMB_ERR_FORMAT or code) for the current line. */
int aprof_bad(aprof_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int aprof_bad_at(aprof_reader *r, plumb_status code, uint64_t line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void aprof_warn(aprof_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The function and frame of routine i, interned on first use. */
int aprof_routine_function(aprof_reader *r, uint32_t i);

/* A p or q line (tag 'p' or 'q'; s..end after the tag). */
int aprof_point_line(aprof_reader *r, char tag, const char *s, const char *end);
void aprof_block_free(aprof_block *b);
/* An x line. */
int aprof_context_line(aprof_reader *r, const char *s, const char *end);
/* At the end of the file: every context becomes a CCT path and every q
 * point is added at its node. */
int aprof_resolve_contexts(aprof_reader *r);

#endif
