/* Private to src/store: the views a store keeps (schema version 8; see
 * store_flat.h), computed on the writer's helper thread while the rest of
 * the file is written, and written last. */
#ifndef PLUMB_STORE_VIEWS_H
#define PLUMB_STORE_VIEWS_H

#include <sqlite3.h>
#include <stdbool.h>

#include "formats/jobs.h"
#include "plumb/analysis.h"
#include "plumb/formats.h"

typedef struct store_views_job {
	plumb_job job;
	const plumb_profile *p;
	/* What a plain report of p computes: the flat view's metrics, or for a
	 * profile with points the inputs view's routines and p's totals. NULL
	 * when p has none, or they could not be computed (the store is written
	 * without them and reports compute them). */
	plumb_metrics *flat;
	plumb_inputs_summary *inputs;
	uint64_t *totals;
} store_views_job;

/* A job (jobs.h) that computes p's kept views; p's own (p->flat,
 * p->inputs) are used when it has them. */
void store_views_job_init(store_views_job *j, const plumb_profile *p);
/* Does computing them take two threads of its own (the inputs view's
 * fits)? Then it is run before the rest, not as a job beside it. */
bool store_views_threaded(const store_views_job *j);
/* Write the job's views as bulk blocks, once it is done. */
int store_views_write(sqlite3 *db, const store_views_job *j, const char *path,
		      const plumb_write_progress *wp, plumb_error *err);
void store_views_job_free(store_views_job *j);

#endif
