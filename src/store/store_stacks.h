/* Private to src/store: the stacks table, for sqlite3 users: the heaviest
 * distinct stacks (calling context tree nodes with a self cost), each with
 * its part, its weights per event and its functions from the root. plumb
 * never reads it. */
#ifndef PLUMB_STORE_STACKS_H
#define PLUMB_STORE_STACKS_H

#include <sqlite3.h>

#include "plumb/profile.h"

/* At most this many stacks are kept, the heaviest of the first event: a
 * row takes 100 to 200 bytes, so the table stays under 200 KB. Every
 * stack: plumb convert FILE.plumb -o FILE.folded. */
#define STORE_STACKS_MAX 1024u

extern const char store_stacks_schema[];

/* Inside the writer's transaction: the stacks rows, and the stacks
 * entries of sql_info. */
int store_write_stacks(sqlite3 *db, const plumb_profile *p, const char *path, plumb_error *err);

#endif
