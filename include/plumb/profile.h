/* plumb: the in-memory profile.
 *
 * Every reader produces one plumb_profile; every view and writer consumes
 * one. The structure is plain data: callers may read every field directly,
 * but should change it only through the functions below, which keep the
 * interning tables and the invariants in step:
 *
 *  - ids are dense indexes into the arrays (0 .. n-1); PLUMB_NONE is "absent";
 *  - a CCT node's parent always has a smaller id than the node, so a single
 *    forward pass over the nodes visits parents before children;
 *  - costs are vectors of uint64, one slot per event, stored contiguously
 *    (node i's self costs are cct_self[i * n_events ...]); adding costs is
 *    checked and fails with PLUMB_ERR_OVERFLOW instead of wrapping.
 */
#ifndef PLUMB_PROFILE_H
#define PLUMB_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plumb/error.h"

#define PLUMB_NONE UINT32_MAX           /* an absent id */
#define PLUMB_COUNT_UNKNOWN UINT64_MAX  /* a call/activation count not known */

typedef uint32_t plumb_id;

/* Merging counts: a known count n adds to *sum, where an unknown sum
 * counts as 0. False on overflow (*sum unchanged). n must be known. */
static inline bool plumb_count_add(uint64_t *sum, uint64_t n)
{
	uint64_t have = *sum == PLUMB_COUNT_UNKNOWN ? 0 : *sum;
	if (n == PLUMB_COUNT_UNKNOWN || have > PLUMB_COUNT_UNKNOWN - 1 - n)
		return false;
	*sum = have + n;
	return true;
}

/* A growable array of T, used throughout the model. */
#define PLUMB_VEC(T) struct { T *v; size_t n, cap; }

/* ---- interned strings ------------------------------------------------- */

/* Hash index over ids: the hash of each entry is kept beside its id so the
 * table can grow without asking the owner to rehash. Private to the model. */
typedef struct plumb_index_slot {
	uint32_t id1;          /* id + 1; 0 = empty */
	uint32_t hash;
} plumb_index_slot;

typedef struct plumb_index {
	plumb_index_slot *slots;
	size_t nslots, count;
} plumb_index;

typedef struct plumb_strtab {
	char *buf;             /* all strings, NUL-terminated, back to back */
	size_t len, cap;
	PLUMB_VEC(size_t) off; /* string id -> offset into buf */
	PLUMB_VEC(uint32_t) lens; /* string id -> length */
	plumb_index ix;
} plumb_strtab;

/* ---- the entities ----------------------------------------------------- */

/* A term of a derived event: coefficient * event. */
typedef struct plumb_event_term {
	int64_t coef;
	plumb_id event;
} plumb_event_term;

typedef struct plumb_event {
	plumb_id name;        /* short name: "samples", "Ir", "cpu-clock" */
	plumb_id long_name;   /* "Instruction fetches"; PLUMB_NONE if none */
	plumb_id unit;        /* "samples", "ns", "instructions"; PLUMB_NONE if none */
	plumb_id formula;     /* derived events: "Ir + 2 * Dr"; PLUMB_NONE for primary */
	plumb_event_term *terms;
	size_t nterms;
} plumb_event;

typedef struct plumb_module {
	plumb_id path;        /* string id */
	plumb_id build_id;    /* hex string id or PLUMB_NONE */
} plumb_module;

typedef struct plumb_file {
	plumb_id path;        /* string id, as the source recorded it */
} plumb_file;

typedef struct plumb_function {
	plumb_id name;        /* demangled or plain name (string id) */
	plumb_id mangled;     /* linkage name, or PLUMB_NONE */
	plumb_id module;      /* module id or PLUMB_NONE */
	plumb_id file;        /* file id or PLUMB_NONE */
	uint32_t line;        /* first line, 0 if unknown */
} plumb_function;

/* A position in the program. file/line may differ from the function's when
 * code was inlined from elsewhere. Any part may be unknown (0 / PLUMB_NONE). */
typedef struct plumb_frame {
	plumb_id function;
	plumb_id file;
	uint32_t line;
	uint64_t address;
} plumb_frame;

typedef enum plumb_part_kind {
	PLUMB_PART_WHOLE = 0, /* no split: the whole run */
	PLUMB_PART_THREAD,
	PLUMB_PART_PROCESS,
	PLUMB_PART_DUMP
} plumb_part_kind;

/* What a part's call-graph arcs say of their inclusive costs. */
typedef enum plumb_arc_costs {
	PLUMB_ARC_COSTS_GIVEN = 0, /* as each arc says: has_inclusive, cost in arc_incl
				    * (Callgrind's calls= lines are measured) */
	PLUMB_ARC_COSTS_GPROF      /* none measured (gmon.out: call counts only; the arcs
				    * carry no inclusive cost). Metrics estimate them with
				    * gprof's propagation of this part's self costs along its
				    * call counts, and mark them estimated; writers that
				    * cannot say "estimated" write no cost */
} plumb_arc_costs;

typedef struct plumb_part {
	plumb_part_kind kind;
	plumb_id name;        /* label: thread name, "part 2", ...; PLUMB_NONE */
	int64_t pid, tid;     /* -1 if unknown */
	plumb_id start_function; /* the routine a thread started with, or PLUMB_NONE */
	plumb_id root;        /* its CCT root node (frame PLUMB_NONE) */
	plumb_arc_costs arc_costs; /* GIVEN when added; a reader sets it */
} plumb_part;

/* Calling context tree node. The root of each part has frame PLUMB_NONE. */
typedef struct plumb_cct_node {
	plumb_id frame;
	plumb_id parent;       /* PLUMB_NONE for a part root */
	plumb_id part;
	plumb_id first_child;  /* children as a singly linked list */
	plumb_id next_sibling;
} plumb_cct_node;         /* its activation count: plumb_cct_activations */

/* Call graph: self cost at a frame, per part. */
typedef struct plumb_cg_self {
	plumb_id part;
	plumb_id frame;
} plumb_cg_self;

/* Call graph arc: from a call site to a callee function. */
typedef struct plumb_arc {
	plumb_id part;
	plumb_id caller;       /* frame id of the call site */
	plumb_id callee;       /* function id */
	bool has_inclusive;    /* arc_incl holds the arc's inclusive cost */
	uint64_t calls;        /* PLUMB_COUNT_UNKNOWN if not known */
} plumb_arc;              /* 24 bytes: the flag in the padding before calls */

/* A jump (Callgrind's --collect-jumps): from the jump instruction's
 * position to its target, per part. Equal (part, from, to, conditional)
 * are one jump whose counts add up. */
typedef struct plumb_jump {
	plumb_id part;
	plumb_id from;         /* frame of the jump instruction */
	plumb_id to;           /* frame of the target */
	bool conditional;      /* Callgrind's jcnd= (else jump=) */
	uint64_t executed;     /* times the jump instruction ran */
	uint64_t followed;     /* times it jumped (unconditional: = executed) */
} plumb_jump;

/* A raw sample: when, where, how much. */
typedef struct plumb_sample {
	uint64_t time_ns;
	plumb_id part;
	plumb_id node;         /* CCT node of the leaf */
} plumb_sample;

typedef struct plumb_meta {
	plumb_id key, value;   /* string ids */
} plumb_meta;

/* A performance point (aprof, input-sensitive profiles): the activations of
 * one routine, or of one calling context, with one input size. Costs are
 * the profile's first event (the cost metric). Which fields the source had
 * is in `has`: a field it lacked is 0 and its bit clear. Sums of squares
 * are long double: they hold every uint64 exactly, and the values past
 * 2^64 that tools write as "%.0f" doubles. */
enum {
	PLUMB_PT_MIN_MAX = 1u << 0,      /* min, max */
	PLUMB_PT_SUM = 1u << 1,          /* sum exact (else avg x calls: v0) */
	PLUMB_PT_SQR = 1u << 2,
	PLUMB_PT_REAL = 1u << 3,         /* real_sum: recursion counted once */
	PLUMB_PT_SELF = 1u << 4,         /* self_sum */
	PLUMB_PT_SELF_MIN_MAX = 1u << 5,
	PLUMB_PT_SELF_SQR = 1u << 6,
	PLUMB_PT_INPUT_STATS = 1u << 7,  /* the four drms counts */
	PLUMB_PT_ALL = (1u << 8) - 1
};

typedef struct plumb_point {
	plumb_id part;
	plumb_id function;     /* the routine */
	plumb_id context;      /* CCT node whose path is the context; PLUMB_NONE:
				  a point of the routine as a whole */
	uint32_t has;          /* PLUMB_PT_* */
	uint64_t input;        /* input size (rms or drms), in memory granules */
	uint64_t calls, min, max, sum;
	uint64_t real_sum, self_sum, self_min, self_max;
	uint64_t syscall_cumul, thread_cumul, syscall_self, thread_self;
	long double sqr_sum, self_sqr_sum;
} plumb_point;

/* What a profile of points was measured with (aprof's header lines). */
typedef struct plumb_points_info {
	plumb_id input_metric; /* "rms" or "drms" (string id); PLUMB_NONE: not said */
	uint32_t memres;       /* bytes per memory granule; 0: not said */
	uint64_t total_cost;   /* aprof's k: the run's whole cost, summed over files */
	int64_t exe_mtime;     /* the executable's mtime (s); -1: not known */
	int version;           /* the report version read (lowest of several); -1: none */
} plumb_points_info;

typedef struct plumb_profile {
	plumb_strtab strings;

	PLUMB_VEC(plumb_event) events;
	PLUMB_VEC(plumb_module) modules;
	PLUMB_VEC(plumb_file) files;
	PLUMB_VEC(plumb_function) functions;
	PLUMB_VEC(plumb_frame) frames;
	PLUMB_VEC(plumb_part) parts;

	PLUMB_VEC(plumb_cct_node) cct;
	PLUMB_VEC(uint64_t) cct_self;     /* cct.n * n_events */
	/* activation counts of the first cct_act.n nodes (the others' are
	 * unknown): most profiles have none, and a node is 20 bytes without */
	PLUMB_VEC(uint64_t) cct_act;

	PLUMB_VEC(plumb_cg_self) cg_self;
	PLUMB_VEC(uint64_t) cg_self_cost; /* cg_self.n * n_events */
	PLUMB_VEC(plumb_arc) arcs;
	PLUMB_VEC(uint64_t) arc_incl;     /* arcs.n * n_events (zero if !has_inclusive) */
	/* Values written as 0, which callgrind_annotate shows as "0" where a
	 * value never written is ".": bit e (e < 64) of cg_self_zero.v[id] or
	 * arc_zero.v[id] is set when a cost line of that entry wrote event e
	 * as 0. Short or empty: no bits past the end (most formats write none). */
	PLUMB_VEC(uint64_t) cg_self_zero;
	PLUMB_VEC(uint64_t) arc_zero;

	PLUMB_VEC(plumb_sample) samples;
	PLUMB_VEC(uint64_t) sample_weights; /* samples.n * n_events */

	PLUMB_VEC(plumb_meta) meta;

	PLUMB_VEC(plumb_point) points;
	plumb_points_info points_info;
	PLUMB_VEC(plumb_jump) jumps;
	plumb_index jump_ix;  /* private: finds a jump by its key */

	/* The flat view's function-level metrics of the whole profile (a
	 * struct plumb_metrics, include/plumb/analysis.h), when known: read
	 * from a .plumb store (whose writer computes it when it is NULL, and
	 * keeps it), or given by the caller. NULL otherwise. Freed with the
	 * profile by flat_free. */
	struct plumb_metrics *flat;
	void (*flat_free)(struct plumb_metrics *);
	/* The same for the inputs view of a profile with performance points
	 * (a struct plumb_inputs_summary). */
	struct plumb_inputs_summary *inputs;
	void (*inputs_free)(struct plumb_inputs_summary *);
	/* Set (events.n totals) when a reader asked for the flat or inputs
	 * view only (plumb_read_opts.flat_only, inputs_only) read flat or
	 * inputs instead of the costs and points: the profile then has parts,
	 * names and metadata but no costs, and plumb_profile_totals gives these. */
	uint64_t *kept_totals;

	/* private lookup tables */
	plumb_index module_ix, file_ix, function_ix, frame_ix, cct_ix, cg_self_ix, arc_ix;
	plumb_index point_ix;
	size_t cct_indexed;    /* nodes below this id are in cct_ix (roots never are) */
	/* the first part given call-graph costs (usually the only one) finds
	 * its cg_self entries by frame id, without hashing: part + 1 (0 unset)
	 * and frame -> cg_self id (PLUMB_NONE if none) */
	plumb_id cg_direct_part1;
	PLUMB_VEC(plumb_id) cg_direct;
	bool lookups_dropped;  /* see plumb_profile_drop_lookups */
	bool costs_started;    /* events are frozen once a cost has been added */
} plumb_profile;

/* ---- lifecycle -------------------------------------------------------- */

plumb_profile *plumb_profile_new(void);
void plumb_profile_free(plumb_profile *p);
/* Nothing read into p yet: no events, parts, frames, functions or metadata. */
bool plumb_profile_is_empty(const plumb_profile *p);
/* p as plumb_profile_new made it, everything in it freed (a reader that
 * read part of a file into an empty profile and reads it again another
 * way). 0, or -1 on ENOMEM (p is left as it was). */
int plumb_profile_reset(plumb_profile *p, plumb_error *err);

static inline size_t plumb_profile_nevents(const plumb_profile *p) { return p->events.n; }

/* ---- strings ---------------------------------------------------------- */

/* Intern a string (len bytes, need not be NUL-terminated). PLUMB_NONE on ENOMEM. */
plumb_id plumb_intern_n(plumb_profile *p, const char *s, size_t len);
plumb_id plumb_intern(plumb_profile *p, const char *s);
/* Look up without adding; PLUMB_NONE if absent. */
plumb_id plumb_string_find(const plumb_profile *p, const char *s);
/* The string for an id; NULL for PLUMB_NONE. */
const char *plumb_str(const plumb_profile *p, plumb_id id);

/* ---- events ----------------------------------------------------------- */

/* Add an event (before any cost is added). long_name, unit may be NULL.
 * Returns the event id or -1 (duplicate name, events frozen, ENOMEM). */
int plumb_event_add(plumb_profile *p, const char *name, const char *long_name,
		    const char *unit, plumb_error *err);
/* Add a derived event: formula is a sum of terms "[coef *] event" with + or -,
 * over events already added, e.g. "Ir + 2 * Dr". */
int plumb_event_add_derived(plumb_profile *p, const char *name, const char *long_name,
			    const char *formula, plumb_error *err);
/* Event id by short name, or -1. */
int plumb_event_find(const plumb_profile *p, const char *name);
/* A sampled event's fixed period: each sample stood for `period` events,
 * and its costs count events (samples = cost / period). Kept in the
 * metadata as "period.<event name>", so every store and merge keeps it.
 * plumb_event_period returns 0 when the event has none (its costs are
 * what they say: samples, Ir, ns...). */
int plumb_event_set_period(plumb_profile *p, int event, uint64_t period, plumb_error *err);
uint64_t plumb_event_period(const plumb_profile *p, int event);
/* The kernel's count of an event sampled by frequency (the sum of its
 * sample periods), kept as "count.<event name>" = "<n> <unit>"; 0 when the
 * recording has none. *unit (may be NULL) gets its unit ("ns", "events"). */
uint64_t plumb_event_count(const plumb_profile *p, int event, const char **unit);
/* Recompute every derived event slot from its terms, in all cost arrays.
 * Readers call it once at the end. Fails on overflow or a negative result. */
int plumb_profile_compute_derived(plumb_profile *p, plumb_error *err);

/* ---- entities (interned: equal arguments give the same id) ------------- */

plumb_id plumb_module_intern(plumb_profile *p, const char *path, const char *build_id);
plumb_id plumb_file_intern(plumb_profile *p, const char *path);
/* module, file: ids or PLUMB_NONE. mangled may be NULL. Identity is
 * (name, module, file); the first call's line and mangled name are kept
 * (a later non-zero line fills a zero one). */
plumb_id plumb_function_intern(plumb_profile *p, const char *name, const char *mangled,
			       plumb_id module, plumb_id file, uint32_t line);
/* The same with the names as string ids of p (plumb_intern's; mangled may
 * be PLUMB_NONE): for a reader that interned them already. */
plumb_id plumb_function_intern_ids(plumb_profile *p, plumb_id name, plumb_id mangled,
				   plumb_id module, plumb_id file, uint32_t line);
/* file PLUMB_NONE means "the function's file". */
plumb_id plumb_frame_intern(plumb_profile *p, plumb_id function, plumb_id file,
			    uint32_t line, uint64_t address);

/* Make room for about this many frames and call-graph self entries, so
 * that a reader that can estimate them (from a file's size) does not grow
 * the tables step by step. A hint: more may be added. -1 on ENOMEM. */
int plumb_profile_reserve(plumb_profile *p, size_t frames, size_t cg_self, plumb_error *err);

/* Free the tables that find existing frames, call-graph entries and arcs
 * (tens of MB on big profiles) when nothing more will be added; an add
 * after this rebuilds them first. */
void plumb_profile_drop_lookups(plumb_profile *p);

/* ---- parts ------------------------------------------------------------ */

/* Add a part with its own CCT root. name may be NULL. */
plumb_id plumb_part_add(plumb_profile *p, plumb_part_kind kind, const char *name,
			int64_t pid, int64_t tid);
/* The first part, created as PLUMB_PART_WHOLE if there is none yet. */
plumb_id plumb_part_default(plumb_profile *p);

/* ---- calling context tree ---------------------------------------------- */

/* The child of parent for frame, created if absent. PLUMB_NONE on ENOMEM. */
plumb_id plumb_cct_child(plumb_profile *p, plumb_id parent, plumb_id frame);
/* n new nodes below parent, the path parent -> frames[0] -> ... ->
 * frames[n-1], their ids into nodes[0..n). For a parent known to have no
 * child for frames[0] yet (it was created since its children were last
 * looked up): readers use it below a node plumb_cct_child just created,
 * with no lookup per node, and the lookup index takes the new nodes only
 * when plumb_cct_child is next called. -1 on ENOMEM or a bad id. */
int plumb_cct_new_path(plumb_profile *p, plumb_id parent, const plumb_id *frames, size_t n,
		       plumb_id *nodes);
/* Room for n more nodes (a hint: adding them makes no copy). -1 on ENOMEM. */
int plumb_cct_reserve(plumb_profile *p, size_t n);
/* Undo plumb_cct_new_path: drop the nodes from id n on (the newest), and
 * their costs, when none has been looked up by plumb_cct_child since. A
 * reader that built its tree on a guess about its input's order and found
 * the guess wrong starts again from n. */
void plumb_cct_truncate(plumb_profile *p, size_t n);
/* Walk/create the path root -> frames[0] -> ... -> frames[n-1] (root first). */
plumb_id plumb_cct_path(plumb_profile *p, plumb_id part, const plumb_id *frames, size_t n);
/* Add costs (one per event) to a node's self cost; checked. */
int plumb_cct_add_self(plumb_profile *p, plumb_id node, const uint64_t *costs, plumb_error *err);
/* Add to a node's activation count (unknown becomes known). Checked. */
int plumb_cct_add_activations(plumb_profile *p, plumb_id node, uint64_t n, plumb_error *err);
static inline const uint64_t *plumb_cct_self(const plumb_profile *p, plumb_id node)
{
	return p->cct_self.v + (size_t)node * p->events.n;
}
/* A node's activation count, PLUMB_COUNT_UNKNOWN if not known. */
static inline uint64_t plumb_cct_activations(const plumb_profile *p, plumb_id node)
{
	return node < p->cct_act.n ? p->cct_act.v[node] : PLUMB_COUNT_UNKNOWN;
}

/* ---- call graph -------------------------------------------------------- */

int plumb_cg_add_self(plumb_profile *p, plumb_id part, plumb_id frame, const uint64_t *costs,
		      plumb_error *err);
/* Mark events (bit e: event e < 64) written as 0 on a cost line of the
 * entry (part, frame), or of an arc (see cg_self_zero). */
int plumb_cg_note_zeros(plumb_profile *p, plumb_id part, plumb_id frame, uint64_t mask,
			plumb_error *err);
int plumb_arc_note_zeros(plumb_profile *p, plumb_id arc, uint64_t mask, plumb_error *err);
/* Add to the arc (part, caller frame, callee function): calls may be
 * PLUMB_COUNT_UNKNOWN; incl may be NULL (not known). Returns the arc id or -1. */
int plumb_arc_add(plumb_profile *p, plumb_id part, plumb_id caller, plumb_id callee,
		  uint64_t calls, const uint64_t *incl, plumb_error *err);

/* ---- jumps ------------------------------------------------------------ */

/* Add to the jump (part, from, to, conditional) its executed and followed
 * counts; an unconditional jump's followed count is its executed count.
 * Returns the jump id or -1 (unknown ids, overflow, ENOMEM). */
int plumb_jump_add(plumb_profile *p, plumb_id part, plumb_id from, plumb_id to, bool conditional,
		   uint64_t executed, uint64_t followed, plumb_error *err);

/* ---- samples and metadata --------------------------------------------- */

int plumb_sample_add(plumb_profile *p, uint64_t time_ns, plumb_id part, plumb_id node,
		     const uint64_t *weights, plumb_error *err);
/* Set (replace) a metadata value. */
int plumb_meta_set(plumb_profile *p, const char *key, const char *value, plumb_error *err);
const char *plumb_meta_get(const plumb_profile *p, const char *key);

/* ---- performance points ----------------------------------------------- */

/* Add a point: one of the same part, routine, context and input size takes
 * it in (sums, counts and sums of squares add, min and max combine, fields
 * known only on one side are dropped from `has`). Checked: -1 with
 * PLUMB_ERR_OVERFLOW when a sum would wrap. */
int plumb_point_add(plumb_profile *p, const plumb_point *pt, plumb_error *err);
/* Add a point that the caller knows has no equal (same part, routine,
 * context and input size) among the profile's points, without looking it
 * up: a reader that finds equal points by itself saves a lookup per point
 * in the index of every point (which plumb_point_add completes). */
int plumb_point_append(plumb_profile *p, const plumb_point *pt, plumb_error *err);
/* Take b into a as plumb_point_add does (whatever their keys: views merge
 * the points of several parts). On failure a is unchanged. */
int plumb_point_combine(plumb_point *a, const plumb_point *b, plumb_error *err);
/* Record what a file of points was measured with, checking that it agrees
 * with the files already read (aprof refuses to merge reports of different
 * input metrics or memory resolutions; so does plumb). total_cost adds. */
int plumb_points_info_add(plumb_profile *p, const plumb_points_info *info, plumb_error *err);
/* A points_info that says nothing yet (version -1, mtime -1). */
void plumb_points_info_init(plumb_points_info *info);

/* ---- costs ------------------------------------------------------------ */

/* dst[i] += src[i] for n slots; -1 with PLUMB_ERR_OVERFLOW if any would wrap
 * (dst is then unchanged). */
int plumb_costs_add(uint64_t *dst, const uint64_t *src, size_t n, plumb_error *err);
/* Sum of all self costs (CCT and call graph) per event into out[n_events]. */
int plumb_profile_totals(const plumb_profile *p, uint64_t *out, plumb_error *err);

/* Display helpers: "name" of a function id, or "module+0x..." style fallbacks. */
const char *plumb_function_name(const plumb_profile *p, plumb_id fn);
const char *plumb_function_file(const plumb_profile *p, plumb_id fn);
const char *plumb_function_module(const plumb_profile *p, plumb_id fn);

/* ---- merging ----------------------------------------------------------- */

/* Add everything of src into dst: events must be the same names in the same
 * order (or dst must have none yet). Parts of src become parts of dst, with
 * the costs written as 0 (cg_self_zero, arc_zero). Used to read several
 * input files into one profile. */
int plumb_profile_merge(plumb_profile *dst, const plumb_profile *src, plumb_error *err);
/* The same, with the CCT nodes i of src where fold[i] is non-zero merged
 * into their parent (its self cost, children and samples go to the
 * parent's node): how inlined frames are folded (plumb_profile_fold_inlined). */
int plumb_profile_merge_folding(plumb_profile *dst, const plumb_profile *src, const uint8_t *fold,
				plumb_error *err);
/* The same for a piece of one file read on another thread (a parallel
 * reader): src read the file from its start, so its first dst->parts.n
 * parts are dst's own. Metadata src has and dst lacks is added, as by the others. */
int plumb_profile_merge_piece(plumb_profile *dst, const plumb_profile *src, plumb_error *err);

#endif
