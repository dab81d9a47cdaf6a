/* The bulk table of the .plumb store: blocks of varint-encoded entities,
 * zstd-compressed, one row per block (see store_bulk.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "plumb/formats.h"
#include "store/store_bulk.h"

/* zstd level 1 for every kind but the performance points, which take
 * level -1. Against level 3, level 1 made the 100 MB Callgrind file's
 * store 0.1 MB larger (of 64) for less CPU. Level -1 everywhere made the
 * 200,000-sample pprof file's store larger than its gzipped input (14.6
 * MB against 12.4), but for an aprof file, whose points are most of its
 * bytes, it saves 9% of a convert's instructions (300,000 points: 1677 ->
 * 1531 M) for a store of 13.1 MB instead of 11.5 (of 29.4). */
#define STORE_ZSTD_LEVEL 1
#define STORE_ZSTD_LEVEL_POINTS (-1)

const char store_bulk_schema[] =
	"CREATE TABLE bulk (kind TEXT NOT NULL, first INTEGER NOT NULL, count INTEGER NOT NULL,"
	" size INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (kind, first));\n";

/* ---- writing ---------------------------------------------------------------- */

static int out_sql_fail(store_bulk_out *o, int rc)
{
	if ((rc & 0xff) == SQLITE_NOMEM)
		return plumb_fail_nomem(o->err);
	return plumb_fail(o->err, PLUMB_ERR_IO, "%s: cannot write .plumb file (SQLite: %s)", o->path,
			  sqlite3_errmsg(o->db));
}

int store_bulk_out_open(store_bulk_out *o, sqlite3 *db, const char *path, plumb_error *err)
{
	*o = (store_bulk_out){ .db = db, .path = path, .err = err };
	int rc = sqlite3_prepare_v2(db, "INSERT INTO bulk VALUES (?1, ?2, ?3, ?4, ?5)", -1, &o->ins,
				    NULL);
	if (rc != SQLITE_OK)
		return out_sql_fail(o, rc);
	o->zctx = ZSTD_createCCtx();
	if (!o->zctx)
		return plumb_fail_nomem(err);
	return 0; /* the level is set per kind */
}

void store_bulk_out_close(store_bulk_out *o)
{
	sqlite3_finalize(o->ins);
	ZSTD_freeCCtx(o->zctx);
	free(o->buf);
	free(o->zbuf);
	o->ins = NULL;
	o->zctx = NULL;
	o->buf = o->zbuf = NULL;
}

int store_bulk_kind(store_bulk_out *o, const char *kind)
{
	o->kind = kind;
	ZSTD_CCtx_setParameter(o->zctx, ZSTD_c_compressionLevel,
			       strcmp(kind, "points") ? STORE_ZSTD_LEVEL : STORE_ZSTD_LEVEL_POINTS);
	o->first = o->count = 0;
	o->len = 0;
	return 0;
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : STORE_BULK_BLOCK + 4096;
	while (c < need)
		c *= 2;
	uint8_t *nb = realloc(*buf, c);
	if (!nb)
		return -1;
	*buf = nb;
	*cap = c;
	return 0;
}

uint8_t *store_bulk_room(store_bulk_out *o, size_t need)
{
	if (grow(&o->buf, &o->cap, o->len + need)) {
		plumb_fail_nomem(o->err);
		return NULL;
	}
	return o->buf + o->len;
}

int store_bulk_flush(store_bulk_out *o)
{
	if (!o->count)
		return 0;
	size_t bound = ZSTD_compressBound(o->len);
	if (grow(&o->zbuf, &o->zcap, bound))
		return plumb_fail_nomem(o->err);
	size_t z = ZSTD_compress2(o->zctx, o->zbuf, o->zcap, o->buf, o->len);
	if (ZSTD_isError(z))
		return plumb_fail(o->err, PLUMB_ERR_IO, "%s: cannot write .plumb file (zstd: %s)",
				  o->path, ZSTD_getErrorName(z));
	int rc = sqlite3_bind_text(o->ins, 1, o->kind, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(o->ins, 2, o->first);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(o->ins, 3, o->count);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(o->ins, 4, (int64_t)o->len);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_blob64(o->ins, 5, o->zbuf, z, SQLITE_STATIC);
	if (rc == SQLITE_OK && (rc = sqlite3_step(o->ins)) == SQLITE_DONE)
		rc = SQLITE_OK;
	sqlite3_reset(o->ins);
	if (rc != SQLITE_OK)
		return out_sql_fail(o, rc);
	o->first += o->count;
	o->count = 0;
	o->len = 0;
	o->written += z;
	if (o->progress && o->progress->fn)
		o->progress->fn(o->progress->ctx, o->path, o->written, 0);
	return 0;
}

int store_bulk_done(store_bulk_out *o, uint8_t *end)
{
	o->len = (size_t)(end - o->buf);
	o->count++;
	return o->len >= STORE_BULK_BLOCK ? store_bulk_flush(o) : 0;
}

/* ---- reading ---------------------------------------------------------------- */

static int in_fail(store_bulk_in *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int in_fail(store_bulk_in *b, const char *fmt, ...)
{
	char what[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return plumb_fail(b->err, PLUMB_ERR_FORMAT, "%s: table bulk, %s block at id %lld: %s",
			  b->path, b->kind, (long long)b->first, what);
}

static int in_sql_fail(store_bulk_in *b, int rc)
{
	if ((rc & 0xff) == SQLITE_NOMEM)
		return plumb_fail(b->err, PLUMB_ERR_FORMAT,
				  "%s: damaged .plumb file, or out of memory (SQLite: %s)", b->path,
				  sqlite3_errmsg(b->db));
	return plumb_fail(b->err, PLUMB_ERR_FORMAT, "%s: damaged or truncated .plumb file (SQLite: %s)",
			  b->path, sqlite3_errmsg(b->db));
}

int store_bulk_in_open(store_bulk_in *b, sqlite3 *db, const char *kind, const char *path,
		       plumb_error *err)
{
	*b = (store_bulk_in){ .db = db, .kind = kind, .path = path, .err = err };
	int rc = sqlite3_prepare_v2(db, "SELECT first, count, size, data FROM bulk WHERE kind = ?1"
				    " ORDER BY first", -1, &b->st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(b->st, 1, kind, -1, SQLITE_STATIC);
	if (rc != SQLITE_OK)
		return in_sql_fail(b, rc);
	b->dctx = ZSTD_createDCtx();
	return b->dctx ? 0 : plumb_fail_nomem(err);
}

void store_bulk_in_close(store_bulk_in *b)
{
	sqlite3_finalize(b->st);
	ZSTD_freeDCtx(b->dctx);
	free(b->buf);
	b->st = NULL;
	b->dctx = NULL;
	b->buf = NULL;
}

static int col_int(store_bulk_in *b, int col, const char *name, int64_t *out)
{
	*out = sqlite3_column_int64(b->st, col);
	if (sqlite3_column_type(b->st, col) != SQLITE_INTEGER)
		return in_fail(b, "%s: expected an integer", name);
	return 0;
}

/* The next row: its block decompressed into buf. */
static int next_block(store_bulk_in *b)
{
	int rc = sqlite3_step(b->st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return in_sql_fail(b, rc);
	int64_t first, count, size;
	b->first = sqlite3_column_int64(b->st, 0);
	if (col_int(b, 0, "first", &first) || col_int(b, 1, "count", &count) ||
	    col_int(b, 2, "size", &size))
		return -1;
	if (first != b->next)
		return in_fail(b, "expected the block at id %lld: blocks must follow each other",
			       (long long)b->next);
	if (count < 1 || size < count || size > (int64_t)STORE_BULK_MAX_SIZE)
		return in_fail(b, "count %lld and size %lld out of range (1 <= count <= size <= %u)",
			       (long long)count, (long long)size, STORE_BULK_MAX_SIZE);
	if (sqlite3_column_type(b->st, 3) != SQLITE_BLOB)
		return in_fail(b, "data: expected a blob");
	const void *z = sqlite3_column_blob(b->st, 3);
	size_t zlen = (size_t)sqlite3_column_bytes(b->st, 3);
	if (grow(&b->buf, &b->cap, (size_t)size))
		return plumb_fail_nomem(b->err);
	size_t got = ZSTD_decompressDCtx(b->dctx, b->buf, (size_t)size, z, zlen);
	if (ZSTD_isError(got))
		return in_fail(b, "data: %s (zstd)", ZSTD_getErrorName(got));
	if (got != (size_t)size)
		return in_fail(b, "data: %zu bytes, expected %lld", got, (long long)size);
	b->count = count;
	b->in = (plumb_varint_in){ b->buf, b->buf + size, false };
	store_read_progress *pr = b->progress;
	if (pr && pr->fn) {
		pr->done += zlen;
		/* done == total is the end, which plumb_store_read says */
		pr->fn(pr->ctx, b->path, pr->done < pr->total ? pr->done : pr->total - 1, pr->total);
	}
	return 1;
}

int store_bulk_next(store_bulk_in *b)
{
	if (b->next < b->first + b->count)
		return 1;
	if (b->count && b->in.p != b->in.end)
		return in_fail(b, "%td bytes left after its %lld entities",
			       b->in.end - b->in.p, (long long)b->count);
	return next_block(b);
}

int store_bulk_bad(store_bulk_in *b, const char *fmt, ...)
{
	char what[240];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return in_fail(b, "entity %lld: %s", (long long)b->next, what);
}

int store_bulk_end_entity(store_bulk_in *b)
{
	if (b->in.bad)
		return store_bulk_bad(b, "cut short, or a number longer than 64 bits");
	b->next++;
	return 0;
}
