/* Private to src/store: the lines table, for sqlite3 users: each source
 * line's self cost per event, summed over the line's frames (addresses)
 * and every part, a row per function and file. plumb never reads it. */
#ifndef PLUMB_STORE_LINES_H
#define PLUMB_STORE_LINES_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "plumb/profile.h"

/* At most this many lines are kept: those of the largest share of an
 * event's total. A line takes about 20 bytes, so the table stays under a
 * megabyte (a 200,000-stack pprof profile's store has about that much room
 * below its input's size); every line: plumb report --view lines. */
#define STORE_LINES_MAX 32768u

extern const char store_lines_schema[];

/* A line once summed: its function, (file + 1) << 32 | line, its largest
 * share of an event's total and whether it is kept. */
typedef struct store_line {
	uint64_t key;
	double share;
	plumb_id fn;
	bool keep;
} store_line;

typedef struct store_lines {
	const plumb_profile *p;
	size_t nev, ncct;
	uint64_t *total;              /* per event: the self costs of every line */
	PLUMB_VEC(store_line) recs;   /* by function, file and line */
	PLUMB_VEC(uint64_t) costs;    /* recs.n * nev, held at UINT64_MAX */
	size_t kept;
} store_lines;

/* Sum p's self costs by line and choose the lines kept (*l is p's until
 * store_lines_free). The summary's functions.self is the sum of each
 * function's lines. 0, or -1 on ENOMEM. */
int store_lines_build(const plumb_profile *p, store_lines *l, plumb_error *err);
/* Inside the writer's transaction: the lines rows and their sql_info. */
int store_lines_write(sqlite3 *db, const store_lines *l, const char *path, plumb_error *err);
void store_lines_free(store_lines *l);

#endif
