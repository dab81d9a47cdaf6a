/* Private to src/store: what the .plumb reader and writer share.
 * The schema itself is documented in docs/plumb-format.md. */
#ifndef PLUMB_STORE_PRIVATE_H
#define PLUMB_STORE_PRIVATE_H

#include <stdint.h>
#include <string.h>

/* The first 16 bytes of every SQLite 3 database. */
#define STORE_SQLITE_MAGIC "SQLite format 3"  /* plus its NUL: 16 bytes */
#define STORE_SQLITE_MAGIC_LEN 16

/* SQLite integers are signed 64-bit, so a uint64 is stored as the int64
 * with the same bit pattern: values above INT64_MAX read back negative in
 * SQL and exactly in plumb. memcpy keeps the conversion well defined. */
static inline int64_t store_u2i(uint64_t v)
{
	int64_t i;
	memcpy(&i, &v, sizeof i);
	return i;
}

static inline uint64_t store_i2u(int64_t i)
{
	uint64_t v;
	memcpy(&v, &i, sizeof v);
	return v;
}

/* Entry i's mask of events written as 0 (cg_self_zero, arc_zero): those
 * vectors stop at the last entry that has one. */
static inline uint64_t store_zero_mask(const uint64_t *v, size_t n, size_t i)
{
	return i < n ? v[i] : 0;
}

#endif
