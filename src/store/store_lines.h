/* Private to src/store: the lines table, for sqlite3 users: each source
 * line's self cost per event, summed over the line's frames (addresses)
 * and every part, a row per function and file. plumb never reads it. */
#ifndef PLUMB_STORE_LINES_H
#define PLUMB_STORE_LINES_H

#include <sqlite3.h>

#include "plumb/profile.h"

/* At most this many lines are kept: those of the largest share of an
 * event's total. A line takes about 20 bytes, so the table stays under a
 * megabyte (a 200,000-stack pprof profile's store has about that much room
 * below its input's size); every line: plumb report --view lines. */
#define STORE_LINES_MAX 32768u

extern const char store_lines_schema[];

/* Inside the writer's transaction: the lines rows, and the lines entries
 * of sql_info. */
int store_write_lines(sqlite3 *db, const plumb_profile *p, const char *path, plumb_error *err);

#endif
