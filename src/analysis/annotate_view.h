/* Private to src/analysis/annotate*.c: the state of one annotation being
 * computed, and the arena its result lives in. */
#ifndef PLUMB_ANNOTATE_VIEW_H
#define PLUMB_ANNOTATE_VIEW_H

#include "plumb/analysis.h"
#include "plumb/annotate.h"

typedef struct ann_view {
	const plumb_profile *p;
	const plumb_annotate_opts *o;
	plumb_annotation *a;         /* the result being filled */
	size_t nev;
	uint64_t *total;             /* the 100% of each event (a->total's values) */
	double *thr;                 /* one threshold per sort event */
	bool single_threshold;       /* no per-event thresholds were given */
	plumb_metrics *fm, *lm;      /* function and line level */
	/* The same metrics of the values written as 0 (profile.h's
	 * cg_self_zero): a cost above 0 where some cost line wrote a 0, which
	 * is shown as "0" rather than "." (no value). NULL: none was written. */
	plumb_metrics *zf, *zl;
	/* per function key: zf's inclusive plus its calls in (callgrind_annotate's
	 * inclusive cost of a called function is the sum of the calls to it) */
	uint64_t *zincl;
	const char **fname;          /* function id -> "file:name" (lazily filled) */
	uint32_t *fn_key;            /* function id -> function-level key (or UINT32_MAX) */
	bool *listed;                /* function id -> in the table */
	plumb_id *order;             /* the listed functions, in table order */
	size_t norder;
} ann_view;

/* ---- the result's arena: everything is freed with the annotation ------ */

void *ann_alloc(plumb_annotation *a, size_t n, size_t size); /* zeroed; NULL on ENOMEM */
char *ann_strdup(plumb_annotation *a, const char *s);        /* NULL in, NULL out */
char *ann_strndup(plumb_annotation *a, const char *s, size_t n);
/* A kept copy of nev values, where a 0 is no value (PLUMB_ANN_NONE) unless
 * zeros (the same sums over zf or zl; NULL: none) says a cost line wrote it. */
uint64_t *ann_cost(ann_view *v, const uint64_t *values, const uint64_t *zeros);
/* zf's or zl's costs at one row (a key, or an arc for the attributions),
 * or NULL without zeros. */
typedef enum ann_zero_of { ANN_EXCL, ANN_INCL, ANN_CALLEE_ATTR, ANN_CALLER_ATTR } ann_zero_of;
static inline const uint64_t *ann_zeros(const plumb_metrics *z, ann_zero_of of, size_t row)
{
	if (!z)
		return NULL;
	const uint64_t *base = of == ANN_EXCL ? z->exclusive : of == ANN_INCL ? z->inclusive
			     : of == ANN_CALLEE_ATTR ? z->callee_attr : z->caller_attr;
	return base + row * z->nevents;
}

/* ---- shared by the view's files ---------------------------------------- */

/* callgrind_annotate's order: descending by the sort events; 0 if equal. */
int ann_cmp_costs(const ann_view *v, const uint64_t *a, const uint64_t *b);
/* The same, where equal zeros put a written 0 (za, zb: zf's or zl's sums,
 * or NULL) before no value. */
int ann_cmp_costs_z(const ann_view *v, const uint64_t *a, const uint64_t *za, const uint64_t *b,
		    const uint64_t *zb);
/* The cost shown for function-level arc (UINT32_MAX: none) of raw cost: a
 * recursive call (inside a strongly connected component) is capped at the
 * callee's inclusive cost, since Callgrind's figure counts every level of
 * the recursion again. */
void ann_arc_costs(const ann_view *v, uint32_t arc, const uint64_t *raw, uint64_t *out);
/* A file's name as shown: the strip prefix removed; "???" for none. */
const char *ann_file_name(const ann_view *v, plumb_id file);
/* "file:function"; NULL on ENOMEM. */
const char *ann_fn_name(ann_view *v, plumb_id fn);
/* The object shown after a function ("[obj]"), or NULL. */
const char *ann_fn_object(const ann_view *v, plumb_id fn);

/* Every user file can be opened (checked before anything is computed). */
int ann_check_user_files(const ann_view *v, plumb_error *err);
/* The annotated sources (annotate_source_view.c). */
int ann_view_sources(ann_view *v, plumb_error *err);
/* The per-instruction annotation of the listed functions (annotate_disasm_view.c). */
int ann_view_disasm(ann_view *v, plumb_error *err);

#endif
