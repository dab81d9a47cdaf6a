/* Private to src/store: performance points (aprof) in the bulk table, the
 * blocks of kind "points" (schema version 6; version 5 kept a row each in
 * the points table, which store_read.c still reads). The encoding is in
 * docs/plumb-format.md. */
#ifndef PLUMB_STORE_POINTS_H
#define PLUMB_STORE_POINTS_H

#include <stdint.h>

#include "plumb/profile.h"
#include "store/store_bulk.h"
#include "store/store_read.h"

/* A sum of squares as two varints, exactly: the exponent e (zigzag) and
 * the mantissa m < 2^64 of v = m * 2^e. 0 when v can be written so (a
 * finite v >= 0 whose significant bits fit 64 bits: every long double of
 * x86-64), else -1. */
int store_sqr_split(long double v, uint64_t *zig_e, uint64_t *m);
/* The value of a split; -1 (and *v = 0) when it is not finite. */
int store_sqr_join(uint64_t zig_e, uint64_t m, long double *v);

/* The points blocks (store_write_bulk calls it). */
int store_enc_points(store_bulk_out *o, const plumb_profile *p);
/* Read them into r->p, each point appended (see store_points.c). */
int store_read_point_blocks(rd *r);

#endif
