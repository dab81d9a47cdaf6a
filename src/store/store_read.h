/* Private to src/store: what the .plumb reader's files share (store_read.c
 * reads the tables of rows, store_read_bulk.c the blocks). */
#ifndef PLUMB_STORE_READ_H
#define PLUMB_STORE_READ_H

#include <sqlite3.h>

#include "plumb/profile.h"
#include "store/store_bulk.h"

/* A file id -> profile id map; the file's ids are dense (checked). */
typedef struct idmap {
	plumb_id *v;          /* NULL: the identity (frames appended to none) */
	size_t n, cap;
	const char *table;    /* the table the ids come from, for messages */
} idmap;

/* A part as the file describes it; it is added when its root node comes. */
typedef struct file_part {
	plumb_part_kind kind;
	plumb_id name;        /* the profile's string id */
	int64_t pid, tid, root;
	plumb_id start_function;
	plumb_arc_costs arc_costs;
} file_part;

typedef struct rd {
	plumb_profile *p;
	const char *path;
	sqlite3 *db;
	plumb_error *err;
	idmap str, mod, file, fn, frame, part, node;
	file_part *parts;
	size_t nparts;
	uint64_t *vec;         /* scratch cost vector, one slot per event */
	uint64_t file_size;
	int version;           /* the file's schema version */
	store_read_progress progress;
} rd;

int store_rd_fail(rd *r, int rc);
int store_rd_prepare(rd *r, const char *sql, sqlite3_stmt **st);
/* Append id to m; ENOMEM (or the model's PLUMB_NONE) fails. */
int store_map_push(rd *r, idmap *m, plumb_id id);

/* A file id below m's count, read from a block: the profile's id; else an
 * error naming the entity. */
int store_bulk_ref_fail(store_bulk_in *b, uint64_t v, const idmap *m, const char *name);
static inline int store_bulk_ref(store_bulk_in *b, uint64_t v, const idmap *m, const char *name,
				 plumb_id *out)
{
	if (v < m->n) {
		*out = m->v ? m->v[v] : (plumb_id)v;
		return 0;
	}
	*out = PLUMB_NONE;
	return store_bulk_ref_fail(b, v, m, name);
}
/* A model call failed while adding the entity just read: its message,
 * naming the entity (ENOMEM as it is). */
int store_bulk_model_fail(rd *r, store_bulk_in *b);

/* The blocks of each kind, in this order (store_read_bulk.c). */
int store_check_bulk_size(rd *r);
int store_read_frames(rd *r);
int store_read_cct(rd *r);
/* kind: "cg_self" and "arcs", or the function-level "fn_self" and
 * "fn_arcs" after store_function_frames instead of store_read_frames. */
int store_read_cg_self(rd *r, const char *kind);
int store_read_arcs(rd *r, const char *kind);
int store_function_frames(rd *r);
int store_read_samples(rd *r);

#endif
