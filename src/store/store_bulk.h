/* Private to src/store: the bulk table of the .plumb store. The big
 * collections (frames, cct, cg_self, arcs, samples) are kept as blocks:
 * one row per run of consecutive ids, whose data is the entities' fields
 * as varints (mostly deltas from the entity before), zstd-compressed.
 * Encoding of each kind: docs/plumb-format.md; store.c writes the fields,
 * store_read.c reads them, this file moves the blocks. */
#ifndef PLUMB_STORE_BULK_H
#define PLUMB_STORE_BULK_H

#include <sqlite3.h>
#include <stdint.h>

#include "model/varint.h"
#include "plumb/formats.h"
#include "plumb/error.h"

/* A block is written once its data reaches this many bytes (before
 * compression): big enough for zstd and SQLite, small enough to stay in cache. */
#define STORE_BULK_BLOCK (256u * 1024u)
/* The most a block may decompress to: a reader's memory bound. */
#define STORE_BULK_MAX_SIZE (64u * 1024u * 1024u)
/* All blocks of a file together may decompress to 64 MiB, or to 100 times
 * the file (a real store is 1 to 10 times): more is a zstd bomb. */
#define STORE_BULK_RATIO 100

extern const char store_bulk_schema[];

typedef struct store_bulk_out {
	sqlite3 *db;
	sqlite3_stmt *ins;
	void *zctx;            /* ZSTD_CCtx */
	const char *kind;
	int64_t first, count;  /* the block's first id and entities so far */
	uint8_t *buf, *zbuf;
	size_t len, cap, zcap;
	const char *path;      /* for messages */
	plumb_error *err;
	const struct plumb_write_progress *progress; /* may be NULL */
	uint64_t written;      /* compressed bytes so far, for it */
} store_bulk_out;

int store_bulk_out_open(store_bulk_out *o, sqlite3 *db, const char *path, plumb_error *err);
void store_bulk_out_close(store_bulk_out *o);
/* Start the blocks of kind (after finishing those of the kind before). */
int store_bulk_kind(store_bulk_out *o, const char *kind);
/* Room for need more bytes: where to write one entity; NULL on ENOMEM (err set). */
uint8_t *store_bulk_room(store_bulk_out *o, size_t need);
/* The entity just written ends at end; a full block is written out. */
int store_bulk_done(store_bulk_out *o, uint8_t *end);
/* Write out the last block of the kind. */
int store_bulk_flush(store_bulk_out *o);

/* A read's progress line: the compressed bytes of the blocks read so far,
 * of the file's size. */
typedef struct store_read_progress {
	plumb_progress_fn fn;  /* NULL: none */
	void *ctx;
	uint64_t done, total;
} store_read_progress;

typedef struct store_bulk_in {
	sqlite3 *db;
	sqlite3_stmt *st;
	void *dctx;            /* ZSTD_DCtx */
	const char *kind;
	int64_t first, count;  /* the current block */
	int64_t next;          /* the id of the next entity */
	uint8_t *buf;
	size_t cap;
	plumb_varint_in in;    /* the current block's data, from the next entity on */
	const char *path;
	plumb_error *err;
	store_read_progress *progress; /* may be NULL */
} store_bulk_in;

int store_bulk_in_open(store_bulk_in *b, sqlite3 *db, const char *kind, const char *path,
		       plumb_error *err);
/* 1: in holds the next entity (id b->next); 0: no more; -1: error. */
int store_bulk_next(store_bulk_in *b);
/* The entity just read (id b->next) was cut short or is damaged: an error naming it. */
int store_bulk_bad(store_bulk_in *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* After the entity's fields: checks it was whole, moves to the next id. */
int store_bulk_end_entity(store_bulk_in *b);
void store_bulk_in_close(store_bulk_in *b);

#endif
