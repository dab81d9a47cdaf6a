/* plumb: the .plumb store, a SQLite database holding a whole profile.
 * Its schema is documented in docs/plumb-format.md. */
#ifndef PLUMB_STORE_H
#define PLUMB_STORE_H

#include "plumb/error.h"
#include "plumb/profile.h"

struct plumb_read_opts;

/* The schema version kept in PRAGMA user_version (5: frames, the CCT, the
 * call graph and samples in compressed blocks; 6: performance points too;
 * 7: the lines and stacks tables for sqlite3 users, which plumb never
 * reads; 8: the flat view's metrics, or the inputs view's routines, computed by
 * the writer).
 * Versions 5 to 8 are read; an older file is refused with a message saying
 * to convert it again (docs/plumb-format.md). */
#define PLUMB_STORE_VERSION 8
/* The oldest version read. */
#define PLUMB_STORE_VERSION_OLDEST 5
/* PRAGMA application_id: 'PLMB'. */
#define PLUMB_STORE_APPLICATION_ID 0x504c4d42

bool plumb_store_detect(const unsigned char *head, size_t len);
/* Read a .plumb file into p, which must be empty or hold the same events. */
int plumb_store_read(plumb_profile *p, const char *path, const struct plumb_read_opts *opts,
		     plumb_error *err);
/* Write p to path: one transaction into a temporary file, renamed over path. */
int plumb_store_write(const plumb_profile *p, const char *path, plumb_error *err);
/* The same, reporting the compressed bytes written through wp (may be NULL). */
struct plumb_write_progress;
int plumb_store_write_progress(const plumb_profile *p, const char *path,
			       const struct plumb_write_progress *wp, plumb_error *err);

#endif
