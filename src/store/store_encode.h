/* Private to src/store: writing the bulk of a profile (frames,
 * calling context tree, call graph, samples) as blocks of the bulk table
 * (store_read_bulk.c reads them). */
#ifndef PLUMB_STORE_ENCODE_H
#define PLUMB_STORE_ENCODE_H

#include <sqlite3.h>

#include "plumb/formats.h"
#include "plumb/profile.h"

/* Inside the writer's transaction, after the schema. */
int store_write_bulk(sqlite3 *db, const plumb_profile *p, const char *path,
		     const plumb_write_progress *wp, plumb_error *err);

#endif
