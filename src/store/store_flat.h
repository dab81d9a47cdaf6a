/* Private to src/store: the views kept in the bulk table (schema version
 * 8): the flat view's metrics (kind "flat", store_flat.c) and the inputs
 * view's routines (kind "inputs", store_inputs.c). */
#ifndef PLUMB_STORE_FLAT_H
#define PLUMB_STORE_FLAT_H

#include "plumb/analysis.h"
#include "store/store_bulk.h"
#include "store/store_read.h"

/* The flat blocks of m, p's flat view, when it has metrics to keep (else none). */
int store_enc_flat(store_bulk_out *o, const plumb_profile *p, const plumb_metrics *m);
/* The entities of the blocks of kind (0: the file has none). */
int store_kept_count(rd *r, const char *kind, int64_t *total);
/* Read them (total of them) into r->p->flat, with r->p->kept_totals. */
int store_read_flat(rd *r, int64_t total);
/* The inputs blocks of s, p's inputs view, with the profile's totals,
 * when it has points (else none). */
int store_enc_inputs(store_bulk_out *o, const plumb_profile *p, const plumb_inputs_summary *s,
		     const uint64_t *totals);
/* Read them (total of them) into r->p->inputs, with r->p->kept_totals. */
int store_read_inputs(rd *r, int64_t total);

#endif
