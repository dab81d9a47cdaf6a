/* Private to src/store: the flat view's metrics kept in the bulk table
 * (kind "flat", schema version 8; store_flat.c). */
#ifndef PLUMB_STORE_FLAT_H
#define PLUMB_STORE_FLAT_H

#include "store/store_bulk.h"
#include "store/store_read.h"

/* The flat blocks of p->flat, when it has metrics to keep (else none). */
int store_enc_flat(store_bulk_out *o, const plumb_profile *p);
/* The entities of the flat blocks (0: the file has none). */
int store_flat_count(rd *r, int64_t *total);
/* Read them (total of them) into r->p->flat, with r->p->flat_totals. */
int store_read_flat(rd *r, int64_t total);

#endif
