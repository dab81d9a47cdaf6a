/* Private to src/store: the jumps table (since schema version 3), written and
 * read beside the other tables by store.c and store_read.c. */
#ifndef PLUMB_STORE_JUMPS_H
#define PLUMB_STORE_JUMPS_H

#include <sqlite3.h>

#include "plumb/profile.h"

extern const char store_jumps_schema[];

/* Every jump's part and frames in range; an error naming the jump if not. */
int store_check_jumps(const plumb_profile *p, const char *path, plumb_error *err);
/* Insert p's jumps into the open database (inside the caller's transaction). */
int store_write_jumps(sqlite3 *db, const plumb_profile *p, const char *path, plumb_error *err);
/* Add the file's jumps to p, its part and frame ids mapped through part[]
 * and frame[] (NULL: the identity). */
int store_read_jumps(sqlite3 *db, plumb_profile *p, const plumb_id *part, size_t nparts,
		     const plumb_id *frame, size_t nframes, const char *path, plumb_error *err);

#endif
