/* Private to src/store: the summary columns of the functions table,
 * written for sqlite3 users (self, calls, points: JSON arrays); plumb
 * never reads them. */
#ifndef PLUMB_STORE_SUMMARY_H
#define PLUMB_STORE_SUMMARY_H

#include "plumb/profile.h"
#include "store/store_json.h"
#include "store/store_lines.h"

typedef struct store_summary {
	store_json json;       /* the texts */
	size_t *self, *calls, *points; /* function id -> offset in text; SIZE_MAX: none */
} store_summary;

/* l: p's lines (store_lines_build), whose sums are the functions' self costs. */
int store_summary_build(const plumb_profile *p, const store_lines *l, store_summary *s,
			plumb_error *err);
/* The text at off[fn] (s->self, s->calls or s->points), or NULL. */
const char *store_summary_text(const store_summary *s, const size_t *off, size_t fn);
void store_summary_free(store_summary *s);

#endif
