/* aprof p and q lines: the fields each report version wrote (docs/aprof.md,
 * "Points"), read into a plumb_point. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/aprof_read.h"
#include "formats/quote.h"
#include "model/index.h"

typedef enum field {
	F_ID, F_INPUT, F_AVG, F_MIN, F_MAX, F_SUM, F_SQR, F_CALLS, F_REAL, F_SELF, F_SMIN, F_SMAX,
	F_SSQR, F_DEPRECATED, F_SYS_C, F_THR_C, F_SYS_S, F_THR_S
} field;

#define MAX_FIELDS 18
#define SQUARE_DIGITS 60

static const field v0[] = { F_ID, F_INPUT, F_AVG, F_CALLS };
static const field v1[] = { F_ID, F_INPUT, F_MIN, F_MAX, F_SUM, F_SQR, F_CALLS };
static const field v2[] = { F_ID, F_INPUT, F_MIN, F_MAX, F_SUM, F_CALLS, F_REAL, F_SELF };
static const field v3[] = { F_ID, F_INPUT, F_MIN, F_MAX, F_SUM, F_CALLS, F_REAL, F_SELF, F_SMIN,
			    F_SMAX };
/* version 4 on: 12 fields; 14 with two deprecated ones (5 and 6 with the
 * rvms metric: sums of rms and its squares); 18 with the drms counts too */
static const field v4[] = { F_ID, F_INPUT, F_MIN, F_MAX, F_SUM, F_SQR, F_CALLS, F_REAL, F_SELF,
			    F_SMIN, F_SMAX, F_SSQR, F_DEPRECATED, F_DEPRECATED, F_SYS_C, F_THR_C,
			    F_SYS_S, F_THR_S };

/* The layout of version v with n fields; NULL when the version has no
 * such layout (*expect then says which it has). */
static const field *layout(int v, size_t n, const char **expect)
{
	switch (v) {
	case 0: *expect = "4"; return n == 4 ? v0 : NULL;
	case 1: *expect = "7"; return n == 7 ? v1 : NULL;
	case 2: *expect = "8"; return n == 8 ? v2 : NULL;
	case 3: *expect = "10"; return n == 10 ? v3 : NULL;
	case 4: *expect = "12"; return n == 12 ? v4 : NULL;
	case 5: *expect = "12 or 14"; return n == 12 || n == 14 ? v4 : NULL;
	default: *expect = "12, 14 or 18"; return n == 12 || n == 14 || n == 18 ? v4 : NULL;
	}
}

/* A sum of squares: aprof wrote it as a 64-bit integer (which may have
 * wrapped), aprof-helper as "%.0f" (which may pass 2^64): a whole number
 * below 10^60 (calls x max^2 < 2^192 < 10^58), so that sums of any number
 * of them stay finite. */
static bool parse_square(const char *s, size_t n, long double *out)
{
	uint64_t v;
	if (n <= 19 && aprof_parse_u64(s, n, &v)) {
		*out = (long double)v;
		return true;
	}
	if (n == 0 || n > SQUARE_DIGITS)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	char buf[SQUARE_DIGITS + 1];
	memcpy(buf, s, n);
	buf[n] = '\0';
	*out = strtold(buf, NULL);
	return isfinite(*out);
}

/* The deprecated fields: numbers, "%.2f" in version 5 */
static bool parse_deprecated(const char *s, size_t n, bool *nonzero)
{
	size_t i = 0, digits = 0;
	*nonzero = false;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
		*nonzero |= s[i] != '0';
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			*nonzero |= s[i] != '0';
	return digits > 0 && i == n;
}

static const char *field_name(field f)
{
	static const char *const names[] = {
		"a routine id", "an input size", "an average cost", "a minimum cost", "a maximum cost",
		"a sum of costs", "a sum of squared costs", "a number of calls", "a real sum of costs",
		"a sum of self costs", "a minimum self cost", "a maximum self cost",
		"a sum of squared self costs", "a number (deprecated field)", "a count of syscall reads",
		"a count of thread reads", "a count of syscall reads", "a count of thread reads",
	};
	return names[f];
}

/* Bits of the fields a layout has. */
static uint32_t layout_has(const field *lay, size_t n)
{
	uint32_t has = 0;
	for (size_t i = 0; i < n; i++)
		switch (lay[i]) {
		case F_MIN: has |= PLUMB_PT_MIN_MAX; break;
		case F_SUM: has |= PLUMB_PT_SUM; break;
		case F_SQR: has |= PLUMB_PT_SQR; break;
		case F_REAL: has |= PLUMB_PT_REAL; break;
		case F_SELF: has |= PLUMB_PT_SELF; break;
		case F_SMIN: has |= PLUMB_PT_SELF_MIN_MAX; break;
		case F_SSQR: has |= PLUMB_PT_SELF_SQR; break;
		case F_SYS_C: has |= PLUMB_PT_INPUT_STATS; break;
		default: break;
		}
	return has;
}

/* Fields the writer marked absent are 0, as the model has them; a sum
 * marked "sum" is avg x calls and stays. */
static void drop_missing(plumb_point *pt, uint32_t missing)
{
	pt->has &= ~missing;
	if (missing & PLUMB_PT_MIN_MAX)
		pt->min = pt->max = 0;
	if (missing & PLUMB_PT_SQR)
		pt->sqr_sum = 0;
	if (missing & PLUMB_PT_REAL)
		pt->real_sum = 0;
	if (missing & PLUMB_PT_SELF)
		pt->self_sum = 0;
	if (missing & PLUMB_PT_SELF_MIN_MAX)
		pt->self_min = pt->self_max = 0;
	if (missing & PLUMB_PT_SELF_SQR)
		pt->self_sqr_sum = 0;
	if (missing & PLUMB_PT_INPUT_STATS)
		pt->syscall_cumul = pt->thread_cumul = pt->syscall_self = pt->thread_self = 0;
}

static uint64_t *u64_field(plumb_point *pt, field f)
{
	switch (f) {
	case F_INPUT: return &pt->input;
	case F_MIN: return &pt->min;
	case F_MAX: return &pt->max;
	case F_SUM: case F_AVG: return &pt->sum;
	case F_CALLS: return &pt->calls;
	case F_REAL: return &pt->real_sum;
	case F_SELF: return &pt->self_sum;
	case F_SMIN: return &pt->self_min;
	case F_SMAX: return &pt->self_max;
	case F_SYS_C: return &pt->syscall_cumul;
	case F_THR_C: return &pt->thread_cumul;
	case F_SYS_S: return &pt->syscall_self;
	case F_THR_S: return &pt->thread_self;
	default: return NULL;
	}
}

/* The line's tokens, each with its value when it is digits only and short
 * enough not to overflow (19 digits); in one pass over the line, as a
 * million-point report has 12 million of them. */
typedef struct tokens {
	const char *tok[MAX_FIELDS + 1];
	size_t len[MAX_FIELDS + 1];
	uint64_t val[MAX_FIELDS + 1];
	bool digits[MAX_FIELDS + 1];  /* val holds the token's number */
	size_t n;
} tokens;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Eight bytes at a time (little-endian): how many of them, from the first,
 * are ASCII digits. A byte is a digit when its high half is 3 and adding 6
 * keeps it so; the carry of that addition can only come out of a byte
 * that is not a digit, so it never hides the first one. */
static inline unsigned leading_digits(uint64_t v)
{
	const uint64_t high = 0xf0f0f0f0f0f0f0f0ULL, threes = 0x3030303030303030ULL;
	uint64_t bad = ((v & high) ^ threes) | (((v + 0x0606060606060606ULL) & high) ^ threes);
	return bad ? (unsigned)__builtin_ctzll(bad) / 8 : 8;
}

/* The value of the first k (1 to 8) bytes of v, all digits: moved to the
 * top (the bytes below become leading zeros), then combined in pairs,
 * fours and eights (as simdjson's parse_eight_digits_unrolled). */
static inline uint64_t digits_value(uint64_t v, unsigned k)
{
	v -= 0x3030303030303030ULL; /* no borrow out of the k digits */
	v <<= 8 * (8 - k);
	v = v * 10 + (v >> 8);
	return (((v & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32))) +
		(((v >> 16) & 0x000000ff000000ffULL) * (1 + (10000ULL << 32)))) >> 32;
}

static const uint64_t pow10_8[9] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
};
#endif

static void split_tokens(const char *s, const char *end, tokens *t)
{
	size_t n = 0;
	while (n <= MAX_FIELDS) {
		while (s < end && *s == ' ')
			s++;
		if (s == end)
			break;
		const char *b = s;
		uint64_t v = 0;
		bool digits = true;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* whole runs of digits, 8 bytes at a time while the line has 8 */
		while (end - s >= 8) {
			uint64_t w;
			memcpy(&w, s, 8);
			unsigned k = leading_digits(w);
			if (k)
				v = v * pow10_8[k] + digits_value(w, k);
			s += k;
			if (k < 8)
				break;
		}
#endif
		/* the rest: the end of the line, or a byte that is not a digit */
		for (; s < end && *s != ' '; s++) {
			unsigned d = (unsigned)(unsigned char)*s - '0';
			digits &= d <= 9;
			v = v * 10 + d;
		}
		t->tok[n] = b;
		t->len[n] = (size_t)(s - b);
		t->val[n] = v;
		t->digits[n] = digits && s - b <= 19;
		n++;
	}
	t->n = n;
}

/* A token as aprof_parse_u64 reads it. */
static bool token_u64(const tokens *t, size_t i, uint64_t *out)
{
	if (t->digits[i]) {
		*out = t->val[i];
		return true;
	}
	return aprof_parse_u64(t->tok[i], t->len[i], out);
}

/* Parse the fields into pt and the line's id. */
static int parse_fields(aprof_reader *r, char tag, const char *s, const char *end, plumb_point *pt,
			uint64_t *id)
{
	tokens t;
	split_tokens(s, end, &t);
	size_t n = t.n;
	const char *expect;
	const field *lay = layout(r->version, n, &expect);
	if (!lay)
		return aprof_bad(r, "expected %s fields after \"%c\" in a version %d report, got %s%zu",
				 expect, tag, r->version, n > MAX_FIELDS ? "more than " : "",
				 n > MAX_FIELDS ? (size_t)MAX_FIELDS : n);
	if (lay != r->has_layout || n != r->has_n) {
		r->has_layout = lay;
		r->has_n = n;
		r->has = layout_has(lay, n);
	}
	pt->has = r->has;
	char q[PLUMB_QUOTE_SIZE];
	for (size_t i = 0; i < n; i++) {
		bool ok, nonzero = false;
		uint64_t *dst = u64_field(pt, lay[i]);
		if (lay[i] == F_ID)
			ok = token_u64(&t, i, id);
		else if (dst)
			ok = token_u64(&t, i, dst);
		else if ((lay[i] == F_SQR || lay[i] == F_SSQR) && t.digits[i]) {
			*(lay[i] == F_SQR ? &pt->sqr_sum : &pt->self_sqr_sum) = (long double)t.val[i];
			ok = true;
		} else if (lay[i] == F_SQR || lay[i] == F_SSQR)
			ok = parse_square(t.tok[i], t.len[i], lay[i] == F_SQR ? &pt->sqr_sum : &pt->self_sqr_sum);
		else
			ok = parse_deprecated(t.tok[i], t.len[i], &nonzero);
		if (!ok)
			return aprof_bad(r, "expected %s (a whole decimal number%s) as field %zu after \"%c\", "
					 "got %s", field_name(lay[i]),
					 lay[i] == F_SQR || lay[i] == F_SSQR ? " below 10^60" : " of at most 64 bits",
					 i + 1, tag, plumb_quote_input(q, sizeof q, t.tok[i], t.len[i]));
		if (nonzero && !r->warned_deprecated) {
			r->warned_deprecated = true;
			aprof_warn(r, "fields 13 and 14 (sums of rms of the old rvms metric) are not kept");
		}
	}
	if (lay == v0) {
		/* the average: the sum is avg x calls, not exact */
		if (pt->calls && pt->sum > UINT64_MAX / pt->calls)
			return aprof_bad_at(r, PLUMB_ERR_OVERFLOW, r->lineno,
					    "expected an average cost times calls within 64 bits, got %"
					    PRIu64 " x %" PRIu64, pt->sum, pt->calls);
		pt->sum *= pt->calls;
	}
	drop_missing(pt, r->missing);
	return 0;
}

/* ---- the current routine's points ---------------------------------------
 * Equal points (same routine and input size) can only come from this file:
 * each file is a part of its own. A routine's first block of points is
 * therefore checked against that block alone, in a table sized to the
 * block; a function seen in an earlier block (its points came in two
 * blocks, or two routines share a name and object) goes through
 * plumb_point_add. */

static size_t block_slot(const aprof_block *b, uint64_t input)
{
	size_t mask = b->nslots - 1, i = (size_t)((input * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
	while (b->slots[i].id1 && b->slots[i].input != input)
		i = (i + 1) & mask;
	return i;
}

/* A table of n slots (cleared), the block's points placed again. */
static int block_resize(aprof_reader *r, size_t n)
{
	aprof_block *b = &r->block;
	if (n > b->cap) {
		aprof_block_slot *v = realloc(b->slots, n * sizeof *v);
		if (!v)
			return -1;
		b->slots = v;
		b->cap = n;
	}
	memset(b->slots, 0, n * sizeof *b->slots);
	b->nslots = n;
	for (size_t id = b->first; id < r->p->points.n; id++) {
		uint64_t input = r->p->points.v[id].input;
		b->slots[block_slot(b, input)] = (aprof_block_slot){ input, (uint32_t)id + 1 };
	}
	return 0;
}

static int block_start(aprof_reader *r, plumb_id fn)
{
	aprof_block *b = &r->block;
	if (fn >= b->nseen) {
		size_t n = r->p->functions.n > fn ? r->p->functions.n : (size_t)fn + 1;
		uint8_t *v = realloc(b->seen, n);
		if (!v)
			return -1;
		memset(v + b->nseen, 0, n - b->nseen);
		b->seen = v;
		b->nseen = n;
	}
	b->fn = fn;
	b->shared = b->seen[fn];
	b->seen[fn] = 1;
	b->first = r->p->points.n;
	b->count = 0;
	return block_resize(r, 64);
}

static int block_add(aprof_reader *r, const plumb_point *pt, plumb_error *e2)
{
	aprof_block *b = &r->block;
	if ((b->fn != pt->function || !b->nslots) && block_start(r, pt->function))
		return plumb_fail_nomem(e2);
	if (b->shared)
		return plumb_point_add(r->p, pt, e2);
	size_t i = block_slot(b, pt->input);
	if (b->slots[i].id1)
		return plumb_point_combine(&r->p->points.v[b->slots[i].id1 - 1], pt, e2);
	uint32_t id = (uint32_t)r->p->points.n;
	if (plumb_point_append(r->p, pt, e2))
		return -1;
	b->slots[i] = (aprof_block_slot){ pt->input, id + 1 };
	if (++b->count * 2 > b->nslots && block_resize(r, b->nslots * 2))
		return plumb_fail_nomem(e2);
	return 0;
}

void aprof_block_free(aprof_block *b)
{
	free(b->slots);
	free(b->seen);
	memset(b, 0, sizeof *b);
}

int aprof_point_line(aprof_reader *r, char tag, const char *s, const char *end)
{
	plumb_point pt = { .part = r->part, .context = PLUMB_NONE };
	uint64_t id;
	if (parse_fields(r, tag, s, end, &pt, &id))
		return -1;
	if (!(pt.has & PLUMB_PT_SELF))
		r->no_self++;
	if (tag == 'q') {
		aprof_pending_q pq = { .pt = pt, .context = id, .line = r->lineno };
		return plumb_vec_push(r->qs, pq) ? plumb_fail_nomem(r->err) : 0;
	}
	uint32_t i = aprof_idmap_get(&r->routine_ix, id);
	if (i == PLUMB_NONE)
		return aprof_bad(r, "routine %" PRIu64 " was not declared (expected an \"r\" line with id %"
				 PRIu64 " before this line)", id, id);
	if (aprof_routine_function(r, i))
		return -1;
	const aprof_routine *rt = &r->routines.v[i];
	pt.function = rt->fn;
	plumb_error e2;
	if (block_add(r, &pt, &e2) ||
	    ((pt.has & PLUMB_PT_SELF) && plumb_cg_add_self(r->p, r->part, rt->frame, &pt.self_sum, &e2)))
		return e2.code == PLUMB_ERR_NOMEM ? plumb_fail_nomem(r->err)
						  : aprof_bad_at(r, e2.code, r->lineno, "%s", e2.message);
	return 0;
}
