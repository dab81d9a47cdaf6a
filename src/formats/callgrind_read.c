/* Callgrind reader, body side: detection, the line loop, compressed names,
 * positions, cost lines, calls and jumps. Header lines, events and parts
 * are in callgrind_header.c. What each construct means to plumb, and where
 * that differs from callgrind_annotate and KCachegrind: docs/callgrind.md.
 *
 * Speed matters (files reach gigabytes): lines come from one refilled
 * buffer, numbers are parsed by hand, compressed ids index arrays, each
 * compressed function name remembers the function it was bound to, and
 * costs at a repeated position are summed locally before they reach the
 * profile's hash tables. */
#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "formats/callgrind_read.h"
#include "formats/quote.h"
#include "model/index.h"

#define WARN_UNKNOWN 5 /* unknown lines warned about one by one */

/* ---- messages ------------------------------------------------------------ */

int cg_bad(cg_reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = plumb_vfail_at(r->err, PLUMB_ERR_FORMAT, r->path, r->lineno, fmt, ap);
	va_end(ap);
	return rc;
}

int cg_bad_code(cg_reader *r, plumb_status code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = plumb_vfail_at(r->err, code, r->path, r->lineno, fmt, ap);
	va_end(ap);
	return rc;
}

/* "FILE:LINE: message", or "FILE: message" when lineno is 0. */
void cg_warn(cg_reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	plumb_vwarn_at(r->opts, r->path, r->lineno, fmt, ap);
	va_end(ap);
}

void cg_unknown(cg_reader *r, const char *what, const char *s, size_t n)
{
	char q[128];
	if (++r->unknown <= WARN_UNKNOWN)
		cg_warn(r, "unknown %s %s ignored", what, plumb_quote_input(q, sizeof q, s, n));
}

/* ---- numbers and positions ------------------------------------------------- */

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hexval(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

typedef enum num_status { NUM_OK, NUM_BAD, NUM_BIG } num_status;

/* A decimal or 0x-hex number ending at a space or e; *ps moves past it. */
static inline num_status parse_u64(const char **ps, const char *e, uint64_t *out)
{
	const char *s = *ps;
	uint64_t v = 0;
	if (s + 1 < e && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		const char *start = s;
		int d;
		for (; s < e && (d = hexval(*s)) >= 0; s++) {
			if (v >> 60)
				return NUM_BIG;
			v = v << 4 | (uint64_t)d;
		}
		if (s == start)
			return NUM_BAD;
	} else {
		const char *start = s;
		/* 19 digits never overflow: only a 20th is checked */
		const char *safe = e - s > 19 ? s + 19 : e;
		for (; s < safe && is_digit(*s); s++)
			v = v * 10 + (uint64_t)(*s - '0');
		for (; s < e && is_digit(*s); s++) {
			uint64_t d = (uint64_t)(*s - '0');
			if (v > (UINT64_MAX - d) / 10)
				return NUM_BIG;
			v = v * 10 + d;
		}
		if (s == start)
			return NUM_BAD;
	}
	if (s < e && !cg_is_space(*s))
		return NUM_BAD;
	*ps = s;
	*out = v;
	return NUM_OK;
}

static const char *token_end(const char *s, const char *e)
{
	while (s < e && !cg_is_space(*s))
		s++;
	return s;
}

static int bad_number(cg_reader *r, num_status st, const char *what, const char *s, const char *e)
{
	char q[128];
	const char *t = token_end(s, e);
	if (st == NUM_BIG)
		return cg_bad_code(r, PLUMB_ERR_OVERFLOW, "expected %s of at most 64 bits, got %s", what,
				   plumb_quote_input(q, sizeof q, s, (size_t)(t - s)));
	return cg_bad(r, "expected %s (a decimal or 0x number), got %s", what,
		      plumb_quote_input(q, sizeof q, s, (size_t)(t - s)));
}

/* One subposition: absolute, +N, -N or * relative to base. */
static inline int parse_subpos(cg_reader *r, const char **ps, const char *e, uint64_t base,
			       uint64_t *out)
{
	const char *s = *ps;
	char c = *s;
	if (c == '*') {
		if (s + 1 < e && !cg_is_space(s[1]))
			return bad_number(r, NUM_BAD, "a position", s, e);
		*ps = s + 1;
		*out = base;
		return 0;
	}
	uint64_t v;
	const char *t = (c == '+' || c == '-') ? s + 1 : s;
	num_status st = parse_u64(&t, e, &v);
	if (st != NUM_OK)
		return bad_number(r, st, "a position", s, e);
	if (c == '+') {
		if (v > UINT64_MAX - base)
			return cg_bad_code(r, PLUMB_ERR_OVERFLOW,
					   "expected a relative position within 64 bits, got +%" PRIu64
					   " from %" PRIu64, v, base);
		v = base + v;
	} else if (c == '-') {
		if (v > base)
			return cg_bad(r, "expected a relative position that stays at or above 0, got -%"
				      PRIu64 " from %" PRIu64, v, base);
		v = base - v;
	}
	*ps = t;
	*out = v;
	return 0;
}

static inline const char *skip_ws(const char *s, const char *e)
{
	while (s < e && cg_is_space(*s))
		s++;
	return s;
}

/* The position columns of a line into pos[], relative to r->last. */
static int parse_positions(cg_reader *r, const char **ps, const char *e, uint64_t *pos)
{
	/* positions: refuses more columns than pos[] and r->last hold */
	assert(r->npos >= 0 && r->npos < CG_MAX_POS);
	const char *s = *ps;
	for (int i = 0; i < r->npos; i++) {
		s = skip_ws(s, e);
		if (s == e)
			return cg_bad(r, "expected %d position%s (%s) at the start of the line, got %d",
				      r->npos, r->npos > 1 ? "s" : "", r->positions ? r->positions : "line", i);
		if (parse_subpos(r, &s, e, r->last[i], &pos[i]))
			return -1;
	}
	*ps = s;
	return 0;
}

static int pos_line(cg_reader *r, const uint64_t *pos, uint32_t *line)
{
	if (r->line_col < 0) {
		*line = 0;
		return 0;
	}
	if (pos[r->line_col] > UINT32_MAX)
		return cg_bad_code(r, PLUMB_ERR_OVERFLOW, "expected a line number of at most %u, got %"
				   PRIu64, UINT32_MAX, pos[r->line_col]);
	*line = (uint32_t)pos[r->line_col];
	return 0;
}

static uint64_t pos_addr(const cg_reader *r, const uint64_t *pos)
{
	return r->addr_col < 0 || r->lines_only ? 0 : pos[r->addr_col];
}

/* The file of a frame of the current function: the fi=/fe= one, or with
 * functions_only the function's own (PLUMB_NONE says so). */
static plumb_id frame_file(const cg_reader *r)
{
	return r->functions_only ? PLUMB_NONE : r->file;
}

/* The costs after the positions into r->costs (profile slots); *any says
 * whether one is non-zero. */
static inline int parse_costs(cg_reader *r, const char *s, const char *e, bool *any)
{
	uint64_t *c = r->costs;
	for (size_t i = 0; i < r->nevents; i++)
		c[r->evmap[i]] = 0;
	r->zeros = 0;
	bool nz = false;
	for (size_t i = 0;; i++) {
		s = skip_ws(s, e);
		if (s == e)
			break;
		if (i == r->nevents) {
			char q[128];
			return cg_bad(r, "expected at most %zu costs (one per event), got more: %s",
				      r->nevents, plumb_quote_input(q, sizeof q, s, (size_t)(e - s)));
		}
		uint64_t v;
		num_status st = parse_u64(&s, e, &v);
		if (st != NUM_OK)
			return bad_number(r, st, "a cost", s, e);
		c[r->evmap[i]] = v;
		nz |= v != 0;
		if (!v && r->evmap[i] < 64)
			r->zeros |= 1ull << r->evmap[i];
	}
	*any = nz;
	return 0;
}

/* ---- self costs -------------------------------------------------------------- */

/* A function's one frame with functions_only (no file, line or address of
 * its own), interned once. */
static plumb_id function_frame(cg_reader *r, plumb_id fn)
{
	if (fn >= r->fn_frame_cap) {
		size_t cap = r->fn_frame_cap ? r->fn_frame_cap : 1024;
		while (cap <= fn)
			cap *= 2;
		uint32_t *v = realloc(r->fn_frame1, cap * sizeof *v);
		if (!v)
			return PLUMB_NONE;
		memset(v + r->fn_frame_cap, 0, (cap - r->fn_frame_cap) * sizeof *v);
		r->fn_frame1 = v;
		r->fn_frame_cap = cap;
	}
	if (r->fn_frame1[fn])
		return r->fn_frame1[fn] - 1;
	plumb_id id = plumb_frame_intern(r->p, fn, PLUMB_NONE, 0, 0);
	if (id != PLUMB_NONE)
		r->fn_frame1[fn] = id + 1;
	return id;
}

/* plumb_frame_intern, without hashing when the position is the last one's
 * or a function's own with functions_only. */
static plumb_id frame_at(cg_reader *r, plumb_id fn, plumb_id file, uint32_t line, uint64_t addr)
{
	if (r->functions_only && file == PLUMB_NONE && !line && !addr)
		return function_frame(r, fn);
	if (r->frame_id1 && r->frame_fn == fn && r->frame_file == file && r->frame_line == line &&
	    r->frame_addr == addr)
		return r->frame_id1 - 1;
	plumb_id id = plumb_frame_intern(r->p, fn, file, line, addr);
	if (id != PLUMB_NONE) {
		r->frame_fn = fn;
		r->frame_file = file;
		r->frame_line = line;
		r->frame_addr = addr;
		r->frame_id1 = id + 1;
	}
	return id;
}

int cg_flush_self(cg_reader *r)
{
	if (!r->self_valid)
		return 0;
	r->self_valid = false;
	plumb_id fr = frame_at(r, r->self_fn, r->self_file, r->self_line, r->self_addr);
	if (fr == PLUMB_NONE)
		return plumb_fail_nomem(r->err);
	if (plumb_cg_add_self(r->p, r->part, fr, r->self_cost, r->err) ||
	    (r->self_zeros && plumb_cg_note_zeros(r->p, r->part, fr, r->self_zeros, r->err)))
		return cg_bad_code(r, r->err->code, "%s", r->err->message);
	return 0;
}

static int add_checked(cg_reader *r, uint64_t *dst, const uint64_t *src)
{
	for (size_t i = 0; i < r->nevents; i++) {
		uint32_t k = r->evmap[i];
		if (__builtin_add_overflow(dst[k], src[k], &dst[k]))
			return cg_bad_code(r, PLUMB_ERR_OVERFLOW,
					   "expected the costs of %s to add up within 64 bits, got more",
					   r->events[i]);
	}
	return 0;
}

/* Self cost at a position: summed while the position repeats (instructions
 * of one line with lines_only), flushed to the profile when it changes. */
static int add_self(cg_reader *r, uint32_t line, uint64_t addr)
{
	assert(r->fn != PLUMB_NONE); /* cost_line refused a cost outside a function */
	if (add_checked(r, r->sum, r->costs))
		return -1;
	if (r->self_valid && r->self_fn == r->fn && r->self_file == frame_file(r) &&
	    r->self_line == line && r->self_addr == addr) {
		r->self_zeros |= r->zeros;
		return add_checked(r, r->self_cost, r->costs);
	}
	if (cg_flush_self(r))
		return -1;
	r->self_valid = true;
	r->self_fn = r->fn;
	r->self_file = frame_file(r);
	r->self_line = line;
	r->self_addr = addr;
	r->self_zeros = r->zeros;
	memcpy(r->self_cost, r->costs, r->p->events.n * sizeof *r->costs);
	return 0;
}

/* ---- calls --------------------------------------------------------------------- */

/* The callee's first position, once per function: its line and entry frame. */
static int note_entry(cg_reader *r, plumb_id callee, const uint64_t *target)
{
	if (callee >= r->entry_cap) {
		size_t cap = r->entry_cap ? r->entry_cap : 1024;
		while (cap <= callee)
			cap *= 2;
		uint8_t *k = realloc(r->entry_known, cap);
		if (!k)
			return plumb_fail_nomem(r->err);
		memset(k + r->entry_cap, 0, cap - r->entry_cap);
		r->entry_known = k;
		r->entry_cap = cap;
	}
	if (r->entry_known[callee])
		return 0;
	uint32_t line = 0;
	if (pos_line(r, target, &line))
		return -1;
	uint64_t addr = pos_addr(r, target);
	if (!line && !addr)
		return 0;
	r->entry_known[callee] = 1;
	/* The first known line fills a zero one, as plumb_function_intern would
	 * (without hashing the name again). */
	plumb_function *f = &r->p->functions.v[callee];
	if (line && !f->line)
		f->line = line;
	if (!r->functions_only && plumb_frame_intern(r->p, callee, PLUMB_NONE, line, addr) == PLUMB_NONE)
		return plumb_fail_nomem(r->err);
	return 0;
}

/* The line after calls=: the call site and the inclusive cost of the calls. */
static int add_call(cg_reader *r, uint32_t line, uint64_t addr)
{
	assert(r->fn != PLUMB_NONE && r->callee != PLUMB_NONE); /* checked at fn=, calls= */
	r->call_pending = false;
	plumb_id site = frame_at(r, r->fn, frame_file(r), line, addr);
	if (site == PLUMB_NONE)
		return plumb_fail_nomem(r->err);
	int arc = plumb_arc_add(r->p, r->part, site, r->callee, r->call_count, r->costs, r->err);
	if (arc < 0 || (r->zeros && plumb_arc_note_zeros(r->p, (plumb_id)arc, r->zeros, r->err)))
		return cg_bad_code(r, r->err->code, "%s", r->err->message);
	if (note_entry(r, r->callee, r->call_target))
		return -1;
	r->cob = r->cfi = CG_UNDEF; /* they name the next call only */
	r->cfn_fresh = false;
	return 0;
}

/* ---- jumps ------------------------------------------------------------------------ */

static plumb_id bind_function(cg_reader *r, plumb_id name, cg_fname *slot, plumb_id module,
			      plumb_id file);

/* The function a jump goes to: the current one, or jfn='s. A jfn= id bound
 * before stands for that function (as in KCachegrind); a new name is a
 * function of the current object and the target file. */
static plumb_id jump_function(cg_reader *r, plumb_id file)
{
	if (r->jfn_name == CG_UNDEF)
		return r->fn;
	cg_fname *slot = r->jfn_slot == CG_UNDEF ? NULL : &r->fns[r->jfn_slot];
	if (slot && slot->fn != PLUMB_NONE)
		return slot->fn;
	return bind_function(r, r->jfn_name, slot, r->ob, file);
}

/* The line after jump=/jcnd=: the jump's source. The target is in the
 * target file (jfi=, else the current one) and function (jfn=, else the
 * current one); both name this jump only. */
static int add_jump(cg_reader *r, uint32_t line, uint64_t addr)
{
	assert(r->fn != PLUMB_NONE); /* checked by cost_line */
	r->jump_pending = false;
	plumb_id file = r->jfi != CG_UNDEF ? r->jfi : r->file;
	plumb_id fn = jump_function(r, file); /* a jfn= may name a new function */
	/* jumps are for annotate, which reads every position */
	plumb_id from = r->functions_only ? 0 : plumb_frame_intern(r->p, r->fn, r->file, line, addr);
	if (from == PLUMB_NONE || fn == PLUMB_NONE)
		return plumb_fail_nomem(r->err);
	if (r->functions_only) {
		r->jfi = CG_UNDEF;
		r->jfn_name = CG_UNDEF;
		r->jfn_slot = CG_UNDEF;
		return 0;
	}
	uint32_t tline = 0;
	if (pos_line(r, r->jump_target, &tline))
		return -1;
	plumb_id to = plumb_frame_intern(r->p, fn, file, tline, pos_addr(r, r->jump_target));
	if (to == PLUMB_NONE)
		return plumb_fail_nomem(r->err);
	if (plumb_jump_add(r->p, r->part, from, to, r->jump_cond, r->jump_executed, r->jump_followed,
			   r->err) < 0)
		return cg_bad_code(r, r->err->code, "%s", r->err->message);
	r->jfi = CG_UNDEF;
	r->jfn_name = CG_UNDEF;
	r->jfn_slot = CG_UNDEF;
	return 0;
}

/* ---- cost lines ------------------------------------------------------------------ */

/* A cost line while skimming: only what it does to the names (the call or
 * jump it ends forgets its cob=/cfi=, jfi=/jfn=; a new jfn= name binds). */
static int skim_cost(cg_reader *r)
{
	if (r->call_pending) {
		r->call_pending = false;
		r->cob = r->cfi = CG_UNDEF;
		r->cfn_fresh = false;
	}
	if (r->jump_pending) {
		r->jump_pending = false;
		if (r->fn != PLUMB_NONE &&
		    jump_function(r, r->jfi != CG_UNDEF ? r->jfi : r->file) == PLUMB_NONE)
			return plumb_fail_nomem(r->err);
		r->jfi = CG_UNDEF;
		r->jfn_name = CG_UNDEF;
		r->jfn_slot = CG_UNDEF;
	}
	return 0;
}

static int cost_line(cg_reader *r, const char *s, const char *e)
{
	if (r->skim)
		return skim_cost(r);
	uint64_t pos[CG_MAX_POS];
	bool any = false;
	if (parse_positions(r, &s, e, pos) || parse_costs(r, s, e, &any))
		return -1;
	memcpy(r->last, pos, sizeof pos);
	uint32_t line = 0;
	if (pos_line(r, pos, &line))
		return -1;
	if (r->fn == PLUMB_NONE && (any || r->zeros || r->call_pending || r->jump_pending))
		return cg_bad(r, "expected fn= before the first cost line");
	uint64_t addr = pos_addr(r, pos); /* 0 with lines_only, which functions_only implies */
	if (r->functions_only)
		line = 0;
	if (r->call_pending)
		return add_call(r, line, addr);
	if (r->jump_pending && add_jump(r, line, addr))
		return -1;
	/* a line of written zeros is kept: callgrind_annotate shows them as 0;
	 * costs on a jump's source line (callgrind writes none) are self cost */
	return any || r->zeros ? add_self(r, line, addr) : 0;
}

static int bind_callee(cg_reader *r);

/* calls=COUNT TARGET: the next cost line is the call site. */
static int calls_line(cg_reader *r, const char *s, const char *e)
{
	if (r->cfn_fresh && bind_callee(r))
		return -1;
	if (r->callee == PLUMB_NONE)
		return cg_bad(r, "expected cfn= before calls=");
	if (r->skim) {
		r->call_pending = true; /* skim_cost ends it */
		return 0;
	}
	num_status st = parse_u64(&s, e, &r->call_count);
	if (st != NUM_OK)
		return bad_number(r, st, "a call count after \"calls=\"", s, e);
	if (parse_positions(r, &s, e, r->call_target))
		return -1;
	if (skip_ws(s, e) != e) {
		char q[128];
		return cg_bad(r, "expected only a count and %d position%s after \"calls=\", got also %s",
			      r->npos, r->npos > 1 ? "s" : "", plumb_quote_input(q, sizeof q, s, (size_t)(e - s)));
	}
	r->call_pending = true;
	r->call_lineno = r->lineno;
	return 0;
}

/* jump=COUNT TARGET, jcnd=FOLLOWED/EXECUTED TARGET (callgrind) or
 * jcnd=EXECUTED FOLLOWED TARGET (the spec): the next cost line is the
 * jump's source. */
static int jump_line(cg_reader *r, bool cond, const char *s, const char *e)
{
	if (r->skim) {
		r->jump_pending = true; /* skim_cost ends it */
		return 0;
	}
	uint64_t a, b = 0;
	const char *what = cond ? "a jump count after \"jcnd=\"" : "a jump count after \"jump=\"";
	const char *t = s;
	while (t < e && !cg_is_space(*t) && *t != '/')
		t++;
	num_status st = parse_u64(&s, t, &a);
	if (st != NUM_OK)
		return bad_number(r, st, what, s, e);
	bool slash = false;
	if (cond) {
		if (s < e && *s == '/') {
			s++;
			slash = true;
		} else {
			s = skip_ws(s, e);
		}
		if ((st = parse_u64(&s, e, &b)) != NUM_OK)
			return bad_number(r, st, "a second count after \"jcnd=\"", s, e);
	}
	r->jump_cond = cond;
	r->jump_executed = !cond ? a : slash ? b : a;
	r->jump_followed = !cond ? a : slash ? a : b;
	if (parse_positions(r, &s, e, r->jump_target))
		return -1;
	if (skip_ws(s, e) != e) {
		char q[128];
		return cg_bad(r, "expected only counts and %d position%s after \"%s\", got also %s",
			      r->npos, r->npos > 1 ? "s" : "", cond ? "jcnd=" : "jump=",
			      plumb_quote_input(q, sizeof q, s, (size_t)(e - s)));
	}
	r->jumps++;
	r->jump_pending = true;
	r->jump_lineno = r->lineno;
	return 0;
}

/* ---- compressed names ------------------------------------------------------------ */

typedef enum ns { NS_FILE, NS_OBJ, NS_FN } ns;

typedef struct name_ref {
	bool has_id;
	uint32_t id;
	const char *name;   /* NULL: a reference to the id */
	size_t len;
} name_ref;

/* "name", "(id) name" or "(id)". */
static int parse_name(cg_reader *r, const char *s, const char *e, name_ref *nr)
{
	nr->has_id = false;
	nr->name = s;
	nr->len = (size_t)(e - s);
	if (s + 1 >= e || s[0] != '(' || !is_digit(s[1]))
		return 0;
	uint64_t id = 0;
	const char *t = s + 1;
	for (; t < e && is_digit(*t); t++)
		if ((id = id * 10 + (uint64_t)(*t - '0')) >= CG_MAX_ID)
			return cg_bad(r, "expected a compressed id below %u, got a larger one", CG_MAX_ID);
	char q[128];
	if (t == e || *t != ')')
		return cg_bad(r, "expected \"(id)\" or \"(id) name\", got %s",
			      plumb_quote_input(q, sizeof q, s, (size_t)(e - s)));
	nr->has_id = true;
	nr->id = (uint32_t)id;
	t = skip_ws(t + 1, e);
	nr->name = t < e ? t : NULL;
	nr->len = (size_t)(e - t);
	return 0;
}

static bool is_unknown(const char *s, size_t n)
{
	return n == 0 || (n == 3 && memcmp(s, "???", 3) == 0);
}

static int grow_map(cg_reader *r, cg_idmap *m, uint32_t id)
{
	if (id < m->n)
		return 0;
	size_t n = m->n ? m->n : 256;
	while (n <= id)
		n *= 2;
	uint32_t *v = realloc(m->v, n * sizeof *v);
	if (!v)
		return plumb_fail_nomem(r->err);
	for (size_t i = m->n; i < n; i++)
		v[i] = CG_UNDEF;
	m->v = v;
	m->n = n;
	return 0;
}

static int grow_fns(cg_reader *r, uint32_t id)
{
	if (id < r->nfns)
		return 0;
	size_t n = r->nfns ? r->nfns : 256;
	while (n <= id)
		n *= 2;
	cg_fname *v = realloc(r->fns, n * sizeof *v);
	if (!v)
		return plumb_fail_nomem(r->err);
	for (size_t i = r->nfns; i < n; i++)
		v[i] = (cg_fname){ CG_UNDEF, CG_UNDEF, CG_UNDEF, PLUMB_NONE };
	r->fns = v;
	r->nfns = n;
	return 0;
}

static char *nul_free(cg_reader *r, const char *s, size_t n, char *buf, size_t cap)
{
	if (memchr(s, '\0', n)) {
		cg_bad(r, "expected a name, got one with a NUL byte");
		return NULL;
	}
	char *d = n < cap ? buf : malloc(n + 1);
	if (!d) {
		plumb_fail_nomem(r->err);
		return NULL;
	}
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static int undefined(cg_reader *r, const char *key, uint32_t id)
{
	return cg_bad(r, "%s(%u) refers to a name that was not defined (expected \"%s(%u) name\" "
		      "earlier in this part)", key, id, key, id);
}

/* A file or object name line: the file/module id (PLUMB_NONE for ???). */
static int resolve_path(cg_reader *r, ns space, const char *key, const name_ref *nr, plumb_id *out)
{
	cg_idmap *m = space == NS_FILE ? &r->files : &r->objs;
	if (nr->has_id && !nr->name) {
		if (nr->id >= m->n || m->v[nr->id] == CG_UNDEF)
			return undefined(r, key, nr->id);
		*out = m->v[nr->id];
		return 0;
	}
	plumb_id v = PLUMB_NONE;
	if (!is_unknown(nr->name, nr->len)) {
		char buf[512], *s = nul_free(r, nr->name, nr->len, buf, sizeof buf);
		if (!s)
			return -1;
		v = space == NS_FILE ? plumb_file_intern(r->p, s) : plumb_module_intern(r->p, s, NULL);
		if (s != buf)
			free(s);
		if (v == PLUMB_NONE)
			return plumb_fail_nomem(r->err);
	}
	if (nr->has_id) {
		if (grow_map(r, m, nr->id))
			return -1;
		m->v[nr->id] = v;
	}
	*out = v;
	return 0;
}

/* A function name line: the name's string id and its compressed slot. */
static int resolve_fname(cg_reader *r, const char *key, const name_ref *nr, plumb_id *name,
			 cg_fname **slot)
{
	*slot = NULL;
	if (nr->has_id && !nr->name) {
		if (nr->id >= r->nfns || r->fns[nr->id].name == CG_UNDEF)
			return undefined(r, key, nr->id);
		*slot = &r->fns[nr->id];
		*name = (*slot)->name;
		return 0;
	}
	const char *s = nr->len ? nr->name : "???";
	size_t n = nr->len ? nr->len : 3;
	if (memchr(s, '\0', n))
		return cg_bad(r, "expected a name, got one with a NUL byte");
	if ((*name = plumb_intern_n(r->p, s, n)) == PLUMB_NONE)
		return plumb_fail_nomem(r->err);
	if (nr->has_id) {
		if (grow_fns(r, nr->id))
			return -1;
		*slot = &r->fns[nr->id];
		**slot = (cg_fname){ *name, CG_UNDEF, CG_UNDEF, PLUMB_NONE };
	}
	return 0;
}

/* The function (name, object, file), remembered in its compressed slot. */
static plumb_id bind_function(cg_reader *r, plumb_id name, cg_fname *slot, plumb_id module,
			      plumb_id file)
{
	if (slot && slot->fn != PLUMB_NONE && slot->file == file && slot->module == module)
		return slot->fn;
	plumb_id fn = plumb_function_intern(r->p, plumb_str(r->p, name), NULL, module, file, 0);
	if (fn == PLUMB_NONE) {
		plumb_fail_nomem(r->err);
		return PLUMB_NONE;
	}
	if (slot) {
		slot->fn = fn;
		slot->file = file;
		slot->module = module;
	}
	return fn;
}

/* The callee of calls= after a cfn=: with the cob=/cfi= given for this call
 * (before or after the cfn=: lsprofcalltree writes cfi= second), else the
 * caller's object and current file (KCachegrind's rule). Later calls= with
 * no new cfn= go to the same callee. */
static int bind_callee(cg_reader *r)
{
	plumb_id mod = r->cob != CG_UNDEF ? r->cob : r->ob;
	plumb_id file = r->cfi != CG_UNDEF ? r->cfi : r->file;
	cg_fname *slot = r->cfn_slot == CG_UNDEF ? NULL : &r->fns[r->cfn_slot];
	r->callee = bind_function(r, r->cfn_name, slot, mod, file);
	return r->callee == PLUMB_NONE ? -1 : 0;
}

void cg_reset_names(cg_reader *r)
{
	for (size_t i = 0; i < r->files.n; i++)
		r->files.v[i] = CG_UNDEF;
	for (size_t i = 0; i < r->objs.n; i++)
		r->objs.v[i] = CG_UNDEF;
	for (size_t i = 0; i < r->nfns; i++)
		r->fns[i] = (cg_fname){ CG_UNDEF, CG_UNDEF, CG_UNDEF, PLUMB_NONE };
	r->ob = r->fl = r->file = r->fn = r->callee = PLUMB_NONE;
	r->cob = r->cfi = CG_UNDEF;
	r->cfn_name = CG_UNDEF;
	r->cfn_slot = CG_UNDEF;
	r->cfn_fresh = r->fl_seen = false;
	memset(r->last, 0, sizeof r->last);
	r->call_pending = r->jump_pending = false;
	r->jfi = r->jfn_name = CG_UNDEF;
	r->jfn_slot = CG_UNDEF;
}

/* A calls= or jump line is waiting for its cost line, and got something else. */
static int cg_unfinished(cg_reader *r, const char *got)
{
	assert(r->call_pending || r->jump_pending);
	if (r->call_pending)
		return cg_bad(r, "expected the cost line of the call on line %" PRIu64 ", got %s",
			      r->call_lineno, got);
	return cg_bad(r, "expected the source line of the jump on line %" PRIu64 ", got %s",
		      r->jump_lineno, got);
}

/* key=value lines: names and associations. */
typedef enum spec_key { KEY_UNKNOWN, KEY_CALLS, KEY_JUMP, KEY_FILE, KEY_OBJ, KEY_FN } spec_key;

/* What a key names, by its length and letters (a line in four is one). */
static spec_key key_of(const char *k, size_t n)
{
	switch (n) {
	case 2: /* fl fi fe ob fn */
		if (k[0] == 'f')
			return k[1] == 'l' || k[1] == 'i' || k[1] == 'e' ? KEY_FILE
			       : k[1] == 'n'				 ? KEY_FN
									 : KEY_UNKNOWN;
		return k[0] == 'o' && k[1] == 'b' ? KEY_OBJ : KEY_UNKNOWN;
	case 3: /* cfi cfl jfi cob cfn jfn */
		if ((k[0] == 'c' || k[0] == 'j') && k[1] == 'f')
			return k[2] == 'n' ? KEY_FN
			       : k[2] == 'i' || (k[2] == 'l' && k[0] == 'c') ? KEY_FILE
									 : KEY_UNKNOWN;
		return memcmp(k, "cob", 3) == 0 ? KEY_OBJ : KEY_UNKNOWN;
	case 4:
		return memcmp(k, "jump", 4) == 0 || memcmp(k, "jcnd", 4) == 0 ? KEY_JUMP : KEY_UNKNOWN;
	case 5:
		return memcmp(k, "calls", 5) == 0 ? KEY_CALLS : KEY_UNKNOWN;
	case 6:
		return memcmp(k, "rcalls", 6) == 0 ? KEY_CALLS : KEY_UNKNOWN;
	default:
		return KEY_UNKNOWN;
	}
}

static int spec_line(cg_reader *r, const char *key, size_t klen, const char *v, const char *e)
{
	char k[8];
	memcpy(k, key, klen);
	k[klen] = '\0';
	spec_key kind = key_of(k, klen);
	if (kind == KEY_CALLS) {
		if (r->call_pending || r->jump_pending)
			goto unfinished;
		return calls_line(r, v, e);
	}
	if (kind == KEY_JUMP) {
		if (r->call_pending || r->jump_pending)
			goto unfinished;
		return jump_line(r, k[1] == 'c', v, e);
	}
	ns space;
	if (kind == KEY_FILE)
		space = NS_FILE;
	else if (kind == KEY_OBJ)
		space = NS_OBJ;
	else if (kind == KEY_FN)
		space = NS_FN;
	else {
		cg_unknown(r, "line", key, (size_t)(e - key));
		return 0;
	}
	name_ref nr = { 0 }; /* parse_name sets it; zeroed for gcc -O1 (TSan build) */
	if (parse_name(r, v, e, &nr))
		return -1;
	strcat(k, "=");
	if (space == NS_FN) {
		plumb_id name;
		cg_fname *slot;
		if (resolve_fname(r, k, &nr, &name, &slot))
			return -1;
		if (k[0] == 'f') {
			/* fn= returns to the function's file (KCachegrind); files that
			 * never say fl= (lsprofcalltree) name it with fi= */
			if (r->fl_seen)
				r->file = r->fl;
			r->fn = bind_function(r, name, slot, r->ob, r->file);
			return r->fn == PLUMB_NONE ? -1 : 0;
		}
		if (k[0] == 'c') {
			r->cfn_name = name;
			/* an index: the table may grow before calls= */
			r->cfn_slot = slot ? (uint32_t)(slot - r->fns) : CG_UNDEF;
			r->cfn_fresh = true;
			return 0;
		}
		/* jfn=: the next jump's target function */
		r->jfn_name = name;
		r->jfn_slot = slot ? (uint32_t)(slot - r->fns) : CG_UNDEF;
		return 0;
	}
	plumb_id id = PLUMB_NONE;
	if (resolve_path(r, space, k, &nr, &id))
		return -1;
	switch (k[0] == 'c' ? k[1] : k[0] == 'j' ? 'j' : k[1]) {
	case 'l': /* fl= */
		r->fl = r->file = id;
		r->fl_seen = true;
		return 0;
	case 'i': /* fi= */
	case 'e': /* fe= */
		r->file = id;
		return 0;
	case 'b': /* ob= */
		r->ob = id;
		return 0;
	case 'f': /* cfi=, cfl= */
		r->cfi = id;
		return 0;
	case 'o': /* cob= */
		r->cob = id;
		return 0;
	default: /* jfi=: the next jump's target file */
		r->jfi = id;
		return 0;
	}
unfinished:
	strcat(k, "=");
	return cg_unfinished(r, k);
}

/* ---- the line loop --------------------------------------------------------------- */

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int body_line(cg_reader *r, const char *s, const char *e)
{
	if (!r->in_body && cg_begin_body(r))
		return -1;
	char c = *s;
	if (is_digit(c) || c == '+' || c == '-' || c == '*')
		return cost_line(r, s, e);
	const char *k = s;
	while (k < e && is_alpha(*k))
		k++;
	if (k < e && *k == '=' && k - s <= 6)
		return spec_line(r, s, (size_t)(k - s), k + 1, e);
	cg_unknown(r, "line", s, (size_t)(e - s));
	return 0;
}

/* "key: value" (or a name spec/cost line) at s..e; raw_end keeps trailing
 * spaces for desc: and cmd:. */
static int one_line(cg_reader *r, char *s, char *e, char *raw_end)
{
	char c = *s;
	if (is_alpha(c)) {
		const char *k = s;
		while (k < e && (is_alpha(*k) || *k == '_'))
			k++;
		if (k < e && *k == ':') {
			if (r->call_pending || r->jump_pending)
				return cg_unfinished(r, "a header line");
			const char *v = skip_ws(k + 1, e);
			*raw_end = '\0'; /* the line is ours until the next call */
			const char *raw_v = k + 1;
			while (*raw_v == ' ' || *raw_v == '\t')
				raw_v++;
			return cg_header_line(r, s, (size_t)(k - s), v, e, raw_v);
		}
	}
	return body_line(r, s, e);
}

/* One line as it came (without its '\n'): counted, trimmed, read. */
static inline int raw_line(cg_reader *r, char *line, size_t len)
{
	r->lineno++;
	char *e = line + len;
	if (e > line && e[-1] == '\r')
		e--;
	char *raw_end = e;
	char *s = line;
	if (r->lineno == 1 && len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3; /* a byte order mark */
	while (s < e && cg_is_space(*s))
		s++;
	while (e > s && cg_is_space(e[-1]))
		e--;
	if (s == e || *s == '#')
		return 0;
	return one_line(r, s, e, raw_end);
}

static int read_lines(cg_reader *r)
{
	char *line;
	size_t len;
	int got;
	while ((got = plumb_linesrc_next(&r->src, &line, &len, r->err)) == 1) {
		if (r->stop_at && r->src.line_off >= r->stop_at)
			return 0; /* the rest is the next piece's */
		if (raw_line(r, line, len))
			return -1;
	}
	if (got < 0)
		return -1;
	if (r->call_pending || r->jump_pending)
		return cg_unfinished(r, "the end of the file");
	return 0;
}

/* A later piece: the lines before start_at (mapped: s[0..n), ending in
 * '\n'), for their headers and names only. A cost line that ends no call
 * or jump and begins no body is only counted. Errors here are the first
 * piece's too, which reports them. */
static int skim_lines(cg_reader *r, char *s, size_t n)
{
	char *end = s + n;
	while (s < end) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		char c = *s;
		if (((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*') && r->in_body &&
		    !r->call_pending && !r->jump_pending && r->lineno) {
			r->lineno++;
		} else if (raw_line(r, s, (size_t)(nl - s))) {
			return -1;
		}
		s = nl + 1;
	}
	return 0;
}

/* A later piece begins: from here its lines count (the skim counted the
 * lines before, so line numbers are the file's). The first cost line is
 * absolute in every column (callgrind_par.c chose the line so), so the
 * position base of the lines before does not matter. Costs are taken to
 * have started (callgrind_par.c checks that they had, if it mattered). */
static int skim_to_start(cg_reader *r)
{
	void *m = mmap(NULL, (size_t)r->start_at, PROT_READ | PROT_WRITE, MAP_PRIVATE, r->src.fd, 0);
	if (m == MAP_FAILED)
		return plumb_fail(r->err, PLUMB_ERR_IO, "%s: cannot map the file: %s", r->path,
				  strerror(errno));
	r->skim = true;
	int rc = skim_lines(r, m, (size_t)r->start_at);
	munmap(m, (size_t)r->start_at);
	if (rc)
		return -1;
	r->skim = false;
	r->opts = r->piece_opts;
	r->piece_section = r->nsection;
	r->p->costs_started = true;
	memset(r->last, 0, sizeof r->last);
	return plumb_linesrc_seek(&r->src, r->start_at, r->err);
}

void cg_reader_free(cg_reader *r)
{
	plumb_linesrc_close(&r->src);
	cg_header_free(r);
	free(r->files.v);
	free(r->objs.v);
	free(r->fns);
	free(r->self_cost);
	free(r->costs);
	free(r->sum);
	free(r->entry_known);
	free(r->fn_frame1);
}

/* Room for the positions a file of this size holds, so that a big file's
 * tables do not grow (and rehash) step by step. Callgrind files spend about
 * 20 bytes per instruction position and 60 per source line; a low guess
 * only means some growing after all. Compressed files are not guessed. */
static int reserve_for(cg_reader *r)
{
	struct stat st;
	if (r->src.comp != PLUMB_COMP_NONE || fstat(r->src.fd, &st) || !S_ISREG(st.st_mode))
		return 0;
	size_t n = (size_t)st.st_size / (r->functions_only ? 512 : r->lines_only ? 64 : 24);
	if (n < 4096)
		return 0;
	if (n > (1u << 26))
		n = 1u << 26;
	return plumb_profile_reserve(r->p, r->p->frames.n + n, r->p->cg_self.n + n, r->err);
}

void cg_reader_init(cg_reader *r, plumb_profile *p, const char *path, const plumb_read_opts *opts,
		    plumb_error *err)
{
	*r = (cg_reader){
		.p = p, .path = path, .opts = opts, .err = err,
		.lines_only = opts->lines_only || opts->functions_only,
		.functions_only = opts->functions_only, .npos = 1, .addr_col = -1, .line_col = 0,
		.pid = -1, .tid = -1, .partno = -1, .part = PLUMB_NONE,
	};
	cg_reset_names(r);
}

/* Open the file and read its lines: all of them, or up to stop_at. */
int cg_read_piece(cg_reader *r)
{
	if (plumb_linesrc_open(&r->src, r->path, r->err))
		return -1;
	if (r->stop_at || r->start_at)
		r->src.no_readahead = true; /* the pieces keep both cores busy */
	if (!r->start_at) { /* a later piece's progress would come from another thread */
		r->src.progress = r->opts->progress;
		r->src.progress_ctx = r->opts->progress_ctx;
	}
	return reserve_for(r) || (r->start_at && skim_to_start(r)) || read_lines(r) ? -1 : 0;
}

/* The end of the file: the last section, the metadata, derived events. */
int cg_read_finish(cg_reader *r)
{
	if (cg_end_section(r))
		return -1;
	if (r->nevents == 0 && r->p->events.n == 0)
		return plumb_fail(r->err, PLUMB_ERR_FORMAT, "%s: expected an events: line, found none",
				  r->path);
	r->lineno = 0;
	return cg_finish_meta(r) || plumb_profile_compute_derived(r->p, r->err) ? -1 : 0;
}

int cg_read_serial(plumb_profile *p, const char *path, const plumb_read_opts *opts,
		   plumb_error *err)
{
	cg_reader r;
	cg_reader_init(&r, p, path, opts, err);
	int rc = cg_read_piece(&r) || cg_read_finish(&r) ? -1 : 0;
	cg_reader_free(&r);
	return rc;
}

int plumb_callgrind_read(plumb_profile *p, const char *path, const plumb_read_opts *opts,
			 plumb_error *err)
{
	static const plumb_read_opts none = { 0 };
	plumb_error dummy;
	if (!opts)
		opts = &none;
	if (!err)
		err = &dummy;
	int rc = cg_read_parallel(p, path, opts, err);
	return rc == 1 ? cg_read_serial(p, path, opts, err) : rc;
}

/* ---- detection ------------------------------------------------------------------- */

static bool starts(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);
	return n >= w && memcmp(s, word, w) == 0;
}

/* Is this a "key:" line that Callgrind headers hold? */
static bool header_key(const char *s, size_t n)
{
	static const char *const keys[] = { "cmd:", "pid:", "part:", "thread:", "desc:", "event:",
					    "summary:", "totals:" };
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (starts(s, n, keys[i]))
			return true;
	return false;
}

/* The magic first line, or one of events:, creator:, version:, positions:
 * after nothing but comments and header lines. A cmd: line that runs past
 * the head still counts (a long command line must not hide the format). */
bool plumb_callgrind_detect(const unsigned char *head, size_t len)
{
	const char *s = (const char *)head, *end = s + len;
	if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3;
	if (starts(s, (size_t)(end - s), "# callgrind format"))
		return true;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - s);
		if (memchr(s, '\0', n))
			return false;
		if ((starts(s, n, "events:") || starts(s, n, "creator:") || starts(s, n, "version:") ||
		     starts(s, n, "positions:")) && !memchr(s, ';', n))
			return true; /* ';' would be a folded stack */
		if (!nl)
			return starts(s, n, "cmd:") && n > 64;
		const char *t = s;
		while (t < le && cg_is_space(*t))
			t++;
		if (t < le && *t != '#' && *t != '\r' && !header_key(s, n))
			return false;
		s = nl + 1;
	}
	return false;
}
