/* plumb: folded stacks, the text that flame graph tools exchange
 * (Brendan Gregg's stackcollapse-*.pl, inferno): one stack per line, frames
 * root first separated by ';', then whitespace and a sample count:
 *
 *     main;parse;read [libc.so.6] 123
 *
 * Frame names may hold spaces, so the count is the last whitespace-separated
 * token. A frame may end in " [module]" (or be "[module]" alone, which
 * stackcollapse-perf writes for an unknown symbol) and in an annotation
 * "_[k]", "_[j]", "_[i]" or "_[w]" (kernel, jit, inline, waker), which is
 * dropped. Every stack lands in the calling context tree of the default
 * part, with its count as the leaf's self cost in the event "samples", or
 * the event and unit the reader is told (plumb_read_opts.event_name).
 *
 * The writer prints one line per stack with samples in the first event,
 * sorted byte-wise, frames by name only as flamegraph.pl and perf's
 * stackcollapse print them (" [module]" when asked); reading its output
 * gives the same functions with the same exclusive and inclusive samples
 * (functions of one name in several modules are one without modules).
 */
#include "formats/quote.h"
#include "model/index.h"
#include "plumb/formats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/jobs.h"


/* The only spaces: the line ending is cut off first, and other control
 * bytes are rejected. */
static bool is_ws(int c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_digit((unsigned char)s[i]))
			return false;
	return n > 0;
}

/* ---- sample counts ------------------------------------------------------ */

typedef enum count_status {
	COUNT_OK,
	COUNT_NEGATIVE,
	COUNT_NOT_DIGITS,
	COUNT_TOO_BIG
} count_status;

/* A count is plain decimal digits (no sign, exponent or fraction). */
static count_status parse_count(const char *s, size_t n, uint64_t *out)
{
	if (n > 1 && s[0] == '-' && all_digits(s + 1, n - 1))
		return COUNT_NEGATIVE;
	if (!all_digits(s, n))
		return COUNT_NOT_DIGITS;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t d = (uint64_t)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return COUNT_TOO_BIG;
		v = v * 10 + d;
	}
	*out = v;
	return COUNT_OK;
}

/* ---- splitting a line --------------------------------------------------- */

typedef struct line_parts {
	const char *stack;    /* first byte of the stack (not NUL-terminated) */
	size_t stack_len;
	const char *count;    /* the last token */
	size_t count_len;
	const char *prev_tok; /* the token before the count, within the stack */
	size_t prev_tok_len;
} line_parts;

typedef enum split_status {
	SPLIT_BLANK,
	SPLIT_OK,
	SPLIT_NO_COUNT        /* a single token: no whitespace before a count */
} split_status;

/* Trim the line and cut it into stack and count (the last token). */
static split_status split_line(const char *line, size_t len, line_parts *lp)
{
	const char *s = line, *e = line + len;
	while (s < e && is_ws((unsigned char)*s))
		s++;
	while (e > s && is_ws((unsigned char)e[-1]))
		e--;
	if (s == e)
		return SPLIT_BLANK;
	const char *t = e;
	while (t > s && !is_ws((unsigned char)t[-1]))
		t--;
	lp->count = t;
	lp->count_len = (size_t)(e - t);
	lp->stack = s;
	if (t == s) {
		lp->stack_len = (size_t)(e - s);
		return SPLIT_NO_COUNT;
	}
	const char *u = t;
	while (u > s && is_ws((unsigned char)u[-1]))
		u--;
	lp->stack_len = (size_t)(u - s);
	const char *v = u;
	while (v > s && !is_ws((unsigned char)v[-1]))
		v--;
	lp->prev_tok = v;
	lp->prev_tok_len = v > s ? (size_t)(u - v) : 0; /* only a token after a space */
	return SPLIT_OK;
}

/* ---- hashing ------------------------------------------------------------ */

static inline uint64_t load64(const char *s)
{
	uint64_t w;
	memcpy(&w, s, 8);
	return w;
}

static inline uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/* Non-zero when a word has a byte below 0x20 (a control byte or a tab). */
static inline uint64_t low_bytes(uint64_t w)
{
	return (w - 0x2020202020202020u) & ~w & 0x8080808080808080u;
}

/* A fast hash for lookups that always compare the keys afterwards: four
 * independent lanes over 32-byte blocks (stacks are long), then words,
 * then the tail, then a final mix so that the low bits are usable. As it
 * reads every word anyway, it also flags in *ctrl bytes below 0x20, which
 * costs next to nothing here and a pass over the text elsewhere. */
static uint64_t hash_text(const char *s, size_t n, uint64_t *ctrl)
{
	const uint64_t p1 = 0x9E3779B185EBCA87u, p2 = 0xC2B2AE3D27D4EB4Fu;
	uint64_t h = 0x27D4EB2F165667C5u ^ ((uint64_t)n * p1), low = 0;
	if (n >= 32) {
		uint64_t a = p1 + p2, b = p2, c = 0, d = 0x61C8864E7A143579u;
		for (; n >= 32; s += 32, n -= 32) {
			uint64_t w0 = load64(s), w1 = load64(s + 8), w2 = load64(s + 16),
				 w3 = load64(s + 24);
			low |= low_bytes(w0) | low_bytes(w1) | low_bytes(w2) | low_bytes(w3);
			a = rotl64(a + w0 * p2, 31) * p1;
			b = rotl64(b + w1 * p2, 31) * p1;
			c = rotl64(c + w2 * p2, 31) * p1;
			d = rotl64(d + w3 * p2, 31) * p1;
		}
		h ^= rotl64(a, 1) + rotl64(b, 7) + rotl64(c, 12) + rotl64(d, 18);
	}
	for (; n >= 8; s += 8, n -= 8) {
		uint64_t w = load64(s);
		low |= low_bytes(w);
		h = rotl64(h ^ (w * p2), 27) * p1;
	}
	uint64_t w = 0;
	for (size_t i = 0; i < n; i++) {
		w |= (uint64_t)(unsigned char)s[i] << (8 * i);
		low |= (unsigned char)s[i] < 0x20;
	}
	*ctrl = low;
	h = rotl64(h ^ (w * p1), 23) * p2;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	return h;
}

/* ---- frame cache: frame text -> frame id --------------------------------
 * Most frames repeat on many lines; hashing the trimmed text saves the
 * module, function and frame interning on every later occurrence. The
 * cache also keeps one text per frame id, to check repeated stacks. */

typedef struct frame_entry {
	uint64_t hash;
	size_t off, len;      /* text in frame_cache.text */
	plumb_id frame;
} frame_entry;

typedef struct frame_cache {
	char *text;
	size_t text_len, text_cap;
	frame_entry *ent;
	size_t n, cap;
	uint32_t *slots;      /* entry index + 1, 0 = empty */
	size_t nslots;        /* a power of two */
	uint32_t *by_frame;   /* frame id -> entry index + 1 of one of its texts */
	size_t by_frame_cap;
} frame_cache;

static void frame_cache_free(frame_cache *c)
{
	free(c->text);
	free(c->ent);
	free(c->slots);
	free(c->by_frame);
}

static plumb_id frame_cache_find(const frame_cache *c, uint64_t h, const char *s, size_t n)
{
	if (!c->nslots)
		return PLUMB_NONE;
	for (size_t i = h & (c->nslots - 1);; i = (i + 1) & (c->nslots - 1)) {
		uint32_t slot = c->slots[i];
		if (!slot)
			return PLUMB_NONE;
		const frame_entry *e = &c->ent[slot - 1];
		if (e->hash == h && e->len == n && memcmp(c->text + e->off, s, n) == 0)
			return e->frame;
	}
}

static int frame_cache_grow_slots(frame_cache *c)
{
	size_t ns = c->nslots ? c->nslots * 2 : 1024;
	uint32_t *slots = calloc(ns, sizeof *slots);
	if (!slots)
		return -1;
	for (size_t k = 0; k < c->n; k++) {
		size_t i = c->ent[k].hash & (ns - 1);
		while (slots[i])
			i = (i + 1) & (ns - 1);
		slots[i] = (uint32_t)k + 1;
	}
	free(c->slots);
	c->slots = slots;
	c->nslots = ns;
	return 0;
}

static int frame_cache_add(frame_cache *c, uint64_t h, const char *s, size_t n, plumb_id frame)
{
	size_t old = c->by_frame_cap;
	if (c->n >= UINT32_MAX - 1 ||
	    ((c->n + 1) * 2 > c->nslots && frame_cache_grow_slots(c) < 0) ||
	    plumb_vec_reserve_((void **)&c->ent, &c->cap, c->n + 1, sizeof *c->ent) < 0 ||
	    plumb_vec_reserve_((void **)&c->text, &c->text_cap, c->text_len + n, 1) < 0 ||
	    plumb_vec_reserve_((void **)&c->by_frame, &c->by_frame_cap, (size_t)frame + 1, sizeof *c->by_frame) < 0)
		return -1;
	if (c->by_frame_cap > old)
		memset(c->by_frame + old, 0, (c->by_frame_cap - old) * sizeof *c->by_frame);
	memcpy(c->text + c->text_len, s, n);
	c->ent[c->n] = (frame_entry){ .hash = h, .off = c->text_len, .len = n, .frame = frame };
	c->text_len += n;
	size_t i = h & (c->nslots - 1);
	while (c->slots[i])
		i = (i + 1) & (c->nslots - 1);
	c->slots[i] = (uint32_t)++c->n;
	if (!c->by_frame[frame])
		c->by_frame[frame] = (uint32_t)c->n;
	return 0;
}

/* ---- frame text -> (name, module) ---------------------------------------- */

typedef struct frame_parts {
	size_t name_len;      /* the name is text[0 .. name_len) */
	size_t mod_off, mod_len; /* the module, if mod_len > 0 */
} frame_parts;

/* A bracketed suffix names a module when it looks like a file name:
 * "[clone .isra.0]" and perf's "[unknown]" do not. */
static bool is_module_name(const char *s, size_t n)
{
	if (n == 0 || (n == 7 && memcmp(s, "unknown", 7) == 0))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= ' ' || c == '[' || c == ']' || c == ';')
			return false;
	}
	return true;
}

/* True when text ends in a stackcollapse-perf annotation such as "_[k]". */
static bool has_annotation(const char *t, size_t n)
{
	if (n <= 4 || t[n - 4] != '_' || t[n - 3] != '[' || t[n - 1] != ']')
		return false;
	char c = t[n - 2];
	return c == 'k' || c == 'j' || c == 'i' || c == 'w';
}

/* Inside a name only spaces and tabs count as spaces: the writer prints
 * other control bytes as '?', and the name must read back the same. */
static bool is_space(int c)
{
	return c == ' ' || c == '\t';
}

/* Does text end in a space and digits, like "x 4"? */
static bool ends_in_number(const char *t, size_t n)
{
	size_t d = n;
	while (d > 0 && is_digit((unsigned char)t[d - 1]))
		d--;
	return d < n && d > 0 && is_space((unsigned char)t[d - 1]);
}

/* Split trimmed, non-empty frame text into name and module: annotations
 * go (all of them: a name must not end in one), then one " [module]"
 * suffix. The names must read back the same from the writer's output, so
 * an annotation stays when the name would end in a number ("f 4_[k]"):
 * as a leaf, "f 4 2" would read as two counts. */
static frame_parts parse_frame(const char *t, size_t n)
{
	frame_parts fp = { .name_len = n };
	while (has_annotation(t, n)) {
		size_t m = n - 4;
		while (is_space((unsigned char)t[m - 1])) /* t[0] is not a space */
			m--;
		if (ends_in_number(t, m))
			break;
		n = m;
	}
	fp.name_len = n;
	if (t[n - 1] != ']')
		return fp;
	size_t j = n - 1;
	while (j > 0 && t[j - 1] != '[')
		j--;
	if (j == 0)
		return fp;
	size_t open = j - 1, mod_len = n - 1 - j;
	if (!is_module_name(t + j, mod_len))
		return fp; /* "[clone .isra.0]", "[unknown]": part of the name */
	if (open == 0) {
		/* "[libc.so.6]" alone: the frame is known only by its module */
		fp.mod_off = j;
		fp.mod_len = mod_len;
		return fp;
	}
	if (!is_space((unsigned char)t[open - 1]))
		return fp; /* "operator[]", "f[abi:cxx11]": part of the name */
	size_t name_len = open;
	while (is_space((unsigned char)t[name_len - 1]))
		name_len--;
	fp.name_len = name_len;
	fp.mod_off = j;
	fp.mod_len = mod_len;
	return fp;
}

/* ---- distinct stacks ------------------------------------------------------
 * The reader first sums the counts of each distinct stack, then builds the
 * calling context tree from the distinct stacks in sorted order. Lines
 * repeat stacks (several collapsed files concatenated) and come in any
 * order: a repeated line is found by the hash of its text and checked
 * frame by frame against the frame texts of the stack it matches, without
 * hashing its frames. Sorted, each stack shares its longest prefix with the
 * one before it, so each CCT node is looked up about once, not once per
 * line. A stack is a record of 32-bit words in one arena: */
enum { REC_DEPTH, REC_COUNT_LO, REC_COUNT_HI, REC_LINE_LO, REC_LINE_HI, REC_HEAD };

typedef struct stack_table {
	uint32_t *w;          /* records back to back: REC_HEAD words, then frame ids */
	size_t n, cap;
	size_t count;         /* records */
	uint64_t *slots;      /* high hash bits << 32 | (record offset + 1); 0 = empty */
	size_t nslots;        /* a power of two */
} stack_table;

static uint64_t rec_get(const uint32_t *rec, int at)
{
	return (uint64_t)rec[at] | (uint64_t)rec[at + 1] << 32;
}

static void rec_set(uint32_t *rec, int at, uint64_t v)
{
	rec[at] = (uint32_t)v;
	rec[at + 1] = (uint32_t)(v >> 32);
}

static void stack_table_free(stack_table *t)
{
	free(t->w);
	free(t->slots);
}

static int stack_grow_slots(stack_table *t)
{
	size_t ns = t->nslots ? t->nslots * 2 : 4096;
	uint64_t *slots = calloc(ns, sizeof *slots);
	if (!slots)
		return -1;
	for (size_t k = 0; k < t->nslots; k++) {
		uint64_t s = t->slots[k];
		if (!s)
			continue;
		/* the slot holds only the high hash bits: rehash by them */
		size_t i = (size_t)(s >> 32) & (ns - 1);
		while (slots[i])
			i = (i + 1) & (ns - 1);
		slots[i] = s;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = ns;
	return 0;
}

/* The slot index of a hash: its high bits, which the slots keep. */
static size_t stack_slot(const stack_table *t, uint64_t h)
{
	return (size_t)(h >> 32) & (t->nslots - 1);
}

/* Add a record for ids[0 .. depth); NULL on ENOMEM or a full arena. */
static uint32_t *stack_insert(stack_table *t, uint64_t h, const plumb_id *ids, size_t depth)
{
	size_t need = t->n + REC_HEAD + depth;
	if (depth > UINT32_MAX || need >= UINT32_MAX ||
	    ((t->count + 1) * 2 > t->nslots && stack_grow_slots(t) < 0) ||
	    plumb_vec_reserve_((void **)&t->w, &t->cap, need, sizeof *t->w) < 0)
		return NULL;
	uint32_t *rec = t->w + t->n;
	rec[REC_DEPTH] = (uint32_t)depth;
	rec_set(rec, REC_COUNT_LO, 0);
	rec_set(rec, REC_LINE_LO, 0);
	memcpy(rec + REC_HEAD, ids, depth * sizeof *ids);
	size_t i = stack_slot(t, h);
	while (t->slots[i])
		i = (i + 1) & (t->nslots - 1);
	t->slots[i] = (h & 0xFFFFFFFF00000000u) | (uint64_t)(t->n + 1);
	t->n = need;
	t->count++;
	return rec;
}

/* ---- the reader ---------------------------------------------------------- */

typedef struct folded_reader {
	plumb_profile *p;
	const char *path;
	unsigned long lineno;
	frame_cache cache;
	stack_table stacks;
	/* The last stack whose frames were hashed (still in the line buffer
	 * unless it was refilled since), with the end offset and frame id of
	 * each frame: a line that starts with the same bytes reuses them. */
	const char *prev;
	size_t prev_len, depth, path_cap;
	size_t *end;
	plumb_id *ids;
} folded_reader;

static void reader_free(folded_reader *r)
{
	frame_cache_free(&r->cache);
	stack_table_free(&r->stacks);
	free(r->end);
	free(r->ids);
}

/* Intern the function and frame that a frame's text names. t is inside
 * the line buffer, which is writable: names are NUL-terminated in place for
 * the interning calls and restored afterwards. */
static plumb_id intern_frame(plumb_profile *p, char *t, size_t n)
{
	frame_parts fp = parse_frame(t, n);
	plumb_id mod = PLUMB_NONE;
	if (fp.mod_len) {
		char *me = t + fp.mod_off + fp.mod_len, saved = *me;
		*me = '\0';
		mod = plumb_module_intern(p, t + fp.mod_off, NULL);
		*me = saved;
		if (mod == PLUMB_NONE)
			return PLUMB_NONE;
	}
	char *ne = t + fp.name_len, saved = *ne;
	*ne = '\0';
	plumb_id fn = plumb_function_intern(p, t, NULL, mod, PLUMB_NONE, 0);
	*ne = saved;
	if (fn == PLUMB_NONE)
		return PLUMB_NONE;
	return plumb_frame_intern(p, fn, PLUMB_NONE, 0, 0);
}

static plumb_id resolve_frame(folded_reader *r, char *t, size_t n)
{
	uint64_t ctrl; /* checked for the whole stack already */
	uint64_t h = hash_text(t, n, &ctrl);
	plumb_id frame = frame_cache_find(&r->cache, h, t, n);
	if (frame != PLUMB_NONE)
		return frame;
	frame = intern_frame(r->p, t, n);
	if (frame == PLUMB_NONE || frame_cache_add(&r->cache, h, t, n, frame) < 0)
		return PLUMB_NONE;
	return frame;
}

/* Is the stack text s the frames ids? Each frame, trimmed, must be the text
 * that the cache resolved to that id. */
static bool same_stack(const frame_cache *c, const uint32_t *ids, size_t depth, const char *s,
		       size_t len)
{
	size_t pos = 0;
	for (size_t i = 0; i < depth; i++) {
		if (i > 0) {
			if (pos == len || s[pos] != ';')
				return false;
			pos++;
		}
		while (pos < len && is_ws((unsigned char)s[pos]))
			pos++;
		const frame_entry *e = &c->ent[c->by_frame[ids[i]] - 1];
		if (len - pos < e->len || memcmp(s + pos, c->text + e->off, e->len) != 0)
			return false;
		pos += e->len;
		while (pos < len && is_ws((unsigned char)s[pos]))
			pos++;
	}
	return pos == len;
}

/* The record of a stack seen before, by its text; NULL if it is new. */
static uint32_t *find_stack(const folded_reader *r, uint64_t h, const char *s, size_t len)
{
	const stack_table *t = &r->stacks;
	if (!t->nslots)
		return NULL;
	for (size_t i = stack_slot(t, h);; i = (i + 1) & (t->nslots - 1)) {
		uint64_t slot = t->slots[i];
		if (!slot)
			return NULL;
		if ((slot >> 32) != (h >> 32))
			continue;
		uint32_t *rec = t->w + (uint32_t)slot - 1;
		if (same_stack(&r->cache, rec + REC_HEAD, rec[REC_DEPTH], s, len))
			return rec;
	}
}

static size_t common_prefix(const char *a, size_t na, const char *b, size_t nb)
{
	size_t n = na < nb ? na : nb, i = 0;
	while (i + 8 <= n && load64(a + i) == load64(b + i))
		i += 8;
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* How many leading frames of the previous stack this stack repeats. */
static size_t shared_frames(const folded_reader *r, const char *stack, size_t len)
{
	if (!r->prev)
		return 0;
	size_t common = common_prefix(r->prev, r->prev_len, stack, len), k = 0;
	while (k < r->depth) {
		size_t e = r->end[k];
		if (e < common || (e == common && (e == len || stack[e] == ';')))
			k++;
		else
			break;
	}
	return k;
}

static int path_reserve(folded_reader *r, size_t depth, plumb_error *err)
{
	if (depth < r->path_cap)
		return 0;
	size_t cap = r->path_cap ? r->path_cap * 2 : 64;
	size_t *end = realloc(r->end, cap * sizeof *end);
	if (!end)
		return plumb_fail_nomem(err);
	r->end = end;
	plumb_id *ids = realloc(r->ids, cap * sizeof *ids);
	if (!ids)
		return plumb_fail_nomem(err);
	r->ids = ids;
	r->path_cap = cap;
	return 0;
}

/* Split a new stack into frames and fill r->ids[0 .. r->depth). */
static int stack_frames(folded_reader *r, char *stack, size_t len, plumb_error *err)
{
	size_t k = shared_frames(r, stack, len), pos = 0;
	r->prev = NULL; /* until this line is complete */
	r->depth = k;
	if (k > 0) {
		if (r->end[k - 1] == len)
			goto done;
		pos = r->end[k - 1] + 1;
	}
	for (;;) {
		char *semi = memchr(stack + pos, ';', len - pos);
		size_t end = semi ? (size_t)(semi - stack) : len, a = pos, b = end;
		while (a < b && is_ws((unsigned char)stack[a]))
			a++;
		while (b > a && is_ws((unsigned char)stack[b - 1]))
			b--;
		if (a == b) {
			char q[PLUMB_QUOTE_SIZE];
			return plumb_fail(err, PLUMB_ERR_FORMAT,
					  "%s:%lu: expected a function name in frame %zu of the stack, "
					  "got an empty frame in %s",
					  r->path, r->lineno, r->depth + 1, plumb_quote_input(q, sizeof q, stack, len));
		}
		if (path_reserve(r, r->depth, err) < 0)
			return -1;
		plumb_id frame = resolve_frame(r, stack + a, b - a);
		if (frame == PLUMB_NONE)
			return plumb_fail_nomem(err);
		r->end[r->depth] = end;
		r->ids[r->depth] = frame;
		r->depth++;
		if (!semi)
			break;
		pos = end + 1;
	}
done:
	r->prev = stack;
	r->prev_len = len;
	return 0;
}

/* The index of the first control byte other than a tab in s, or n. */
static size_t find_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
			return i;
	return n;
}

/* Add a line's count to its stack's record, creating it for a new stack. */
static int add_stack(folded_reader *r, const char *line, char *stack, size_t len,
		     uint64_t count, plumb_error *err)
{
	uint64_t ctrl;
	uint64_t h = hash_text(stack, len, &ctrl);
	size_t bad = ctrl ? find_control(stack, len) : len;
	if (bad < len)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s:%lu: expected text, got the control byte 0x%02x at column %zu",
				  r->path, r->lineno, (unsigned)(unsigned char)stack[bad],
				  (size_t)(stack - line) + bad + 1);
	uint32_t *rec = find_stack(r, h, stack, len);
	if (!rec) {
		if (stack_frames(r, stack, len, err) < 0)
			return -1;
		if (!(rec = stack_insert(&r->stacks, h, r->ids, r->depth)))
			return plumb_fail_nomem(err);
	}
	uint64_t sum = rec_get(rec, REC_COUNT_LO);
	if (sum > UINT64_MAX - count)
		return plumb_fail(err, PLUMB_ERR_OVERFLOW,
				  "%s:%lu: expected the samples of a stack to total at most %" PRIu64
				  ", got more (adding %" PRIu64 ")",
				  r->path, r->lineno, UINT64_MAX, count);
	rec_set(rec, REC_COUNT_LO, sum + count);
	rec_set(rec, REC_LINE_LO, r->lineno);
	return 0;
}

/* Explain a bad last token. */
static int count_error(const folded_reader *r, count_status st, const line_parts *lp,
		       plumb_error *err)
{
	char q[PLUMB_QUOTE_SIZE];
	plumb_quote_input(q, sizeof q, lp->count, lp->count_len);
	switch (st) {
	case COUNT_NEGATIVE:
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s:%lu: expected a sample count of 0 or more, got %s",
				  r->path, r->lineno, q);
	case COUNT_TOO_BIG:
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s:%lu: expected a sample count of at most %" PRIu64 ", got %s",
				  r->path, r->lineno, UINT64_MAX, q);
	default:
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s:%lu: expected a sample count (decimal digits) at the end of the line, got %s",
				  r->path, r->lineno, q);
	}
}

/* Check one line's shape and get its count. 0: a stack line, 1: blank. */
static int check_line(const folded_reader *r, char *line, size_t n, line_parts *lp,
		      uint64_t *count, plumb_error *err)
{
	char q[PLUMB_QUOTE_SIZE];
	const char *nul = memchr(line, '\0', n);
	if (nul)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s:%lu: expected text, got a NUL byte at column %zu",
				  r->path, r->lineno, (size_t)(nul - line) + 1);
	/* other control bytes: in the count they are not digits, in the stack
	 * add_stack finds them */
	if (n > 0 && line[n - 1] == '\n')
		n--;
	if (n > 0 && line[n - 1] == '\r')
		n--;
	split_status sp = split_line(line, n, lp);
	if (sp == SPLIT_BLANK)
		return 1;
	if (sp == SPLIT_NO_COUNT) {
		plumb_quote_input(q, sizeof q, lp->stack, lp->stack_len);
		if (all_digits(lp->stack, lp->stack_len))
			return plumb_fail(err, PLUMB_ERR_FORMAT,
					  "%s:%lu: expected a stack before the sample count, got only %s",
					  r->path, r->lineno, q);
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s:%lu: expected a sample count after the stack, got %s",
				  r->path, r->lineno, q);
	}
	count_status st = parse_count(lp->count, lp->count_len, count);
	if (st != COUNT_OK)
		return count_error(r, st, lp, err);
	/* "a;b 5 7" is a differential file (difffolded.pl): reading its first
	 * count as part of a frame name would give wrong numbers. */
	if (all_digits(lp->prev_tok, lp->prev_tok_len)) {
		size_t len = (size_t)(lp->count + lp->count_len - lp->prev_tok);
		plumb_quote_input(q, sizeof q, lp->prev_tok, len);
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s:%lu: expected one sample count at the end of the line, got two (%s); "
				  "differential folded files are not supported",
				  r->path, r->lineno, q);
	}
	return 0;
}

/* Read one line. -1: error. */
static int read_line(folded_reader *r, char *line, size_t n, plumb_error *err)
{
	line_parts lp;
	uint64_t count = 0;
	int rc = check_line(r, line, n, &lp, &count, err);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	/* the stack is inside line, which is ours to write */
	return add_stack(r, line, line + (lp.stack - line), lp.stack_len, count, err);
}

/* Lines straight from a block buffer: no copy per line, no line limit
 * (the buffer grows to hold a long line). */
typedef struct line_reader {
	FILE *fp;
	char *buf;
	size_t cap, start, end, scanned; /* scanned: bytes after start with no '\n' */
	bool eof;
	const plumb_read_opts *opts; /* its progress callback, told at each read */
	const char *path;
	uint64_t done, size;
	uint64_t left;               /* bytes it may still read (a piece's end) */
} line_reader;

enum { LINE_BUF = 1 << 20 };

/* The next line (with its '\n', if any) in *line, *len. 1: a line, 0: the
 * end, -1: a read error or ENOMEM (errno says which). *moved is set when
 * earlier lines were overwritten. */
static int next_line(line_reader *lr, char **line, size_t *len, bool *moved)
{
	for (;;) {
		char *from = lr->buf + lr->start + lr->scanned;
		char *nl = memchr(from, '\n', lr->end - lr->start - lr->scanned);
		if (nl || (lr->eof && lr->start < lr->end)) {
			*line = lr->buf + lr->start;
			*len = nl ? (size_t)(nl + 1 - *line) : lr->end - lr->start;
			lr->start += *len;
			lr->scanned = 0;
			return 1;
		}
		if (lr->eof)
			return 0;
		lr->scanned = lr->end - lr->start;
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
		*moved = true;
		if (lr->end == lr->cap && plumb_vec_reserve_((void **)&lr->buf, &lr->cap, lr->cap + 1, 1) < 0) {
			errno = ENOMEM;
			return -1;
		}
		size_t want = lr->cap - lr->end;
		if (want > lr->left)
			want = (size_t)lr->left;
		size_t n = want ? fread(lr->buf + lr->end, 1, want, lr->fp) : 0;
		lr->left -= n;
		lr->end += n;
		lr->done += n;
		if (lr->opts->progress)
			lr->opts->progress(lr->opts->progress_ctx, lr->path, lr->done, lr->size);
		if (n == 0) {
			if (ferror(lr->fp))
				return -1;
			lr->eof = true;
		}
	}
}

/* The lines of fp, up to limit bytes. */
static int read_stream(folded_reader *r, FILE *fp, const plumb_read_opts *opts, uint64_t limit,
		       plumb_error *err)
{
	static const plumb_read_opts none = { 0 };
	line_reader lr = { .fp = fp, .buf = malloc(LINE_BUF), .cap = LINE_BUF,
			   .opts = opts ? opts : &none, .path = r->path, .left = limit };
	struct stat sb;
	if (fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode))
		lr.size = (uint64_t)sb.st_size;
	if (!lr.buf)
		return plumb_fail_nomem(err);
	int rc = 0, st;
	char *line;
	size_t n;
	bool moved = false;
	while ((st = next_line(&lr, &line, &n, &moved)) > 0) {
		if (moved)
			r->prev = NULL; /* its text was overwritten */
		moved = false;
		r->lineno++;
		if (read_line(r, line, n, err) < 0) {
			rc = -1;
			break;
		}
	}
	if (st < 0)
		rc = errno == ENOMEM ? plumb_fail_nomem(err)
				     : plumb_fail(err, PLUMB_ERR_IO, "%s:%lu: read error: %s", r->path,
						  r->lineno + 1, strerror(errno ? errno : EIO));
	free(lr.buf);
	return rc;
}

/* Records by their frame ids, byte-wise: any lexicographic order keeps
 * the stacks that share a prefix together. */
static int compare_records(const void *pa, const void *pb, void *ctx)
{
	const uint32_t *w = ctx;
	const uint32_t *a = w + *(const uint32_t *)pa, *b = w + *(const uint32_t *)pb;
	uint32_t da = a[REC_DEPTH], db = b[REC_DEPTH];
	int c = memcmp(a + REC_HEAD, b + REC_HEAD, (da < db ? da : db) * sizeof *a);
	if (c)
		return c;
	return da < db ? -1 : da > db;
}

/* Walk the distinct stacks in sorted order, reusing the previous stack's
 * path for the shared prefix, and add each total. */
static int build_cct(folded_reader *r, plumb_error *err)
{
	const stack_table *t = &r->stacks;
	plumb_profile *p = r->p;
	plumb_id part = plumb_part_default(p);
	uint64_t *costs = calloc(p->events.n, sizeof *costs);
	uint32_t *order = malloc((t->count ? t->count : 1) * sizeof *order);
	size_t maxdepth = 0, k = 0;
	for (size_t off = 0; off < t->n && order; off += REC_HEAD + t->w[off + REC_DEPTH]) {
		order[k++] = (uint32_t)off;
		if (t->w[off + REC_DEPTH] > maxdepth)
			maxdepth = t->w[off + REC_DEPTH];
	}
	plumb_id *nodes = malloc((maxdepth + 1) * sizeof *nodes); /* nodes[d]: at depth d */
	int rc = 0;
	if (part == PLUMB_NONE || !costs || !order || !nodes) {
		rc = plumb_fail_nomem(err);
		goto out;
	}
	nodes[0] = p->parts.v[part].root;
	qsort_r(order, t->count, sizeof *order, compare_records, t->w);
	const uint32_t *prev = NULL;
	for (size_t i = 0; i < t->count; i++) {
		const uint32_t *rec = t->w + order[i], *ids = rec + REC_HEAD;
		size_t depth = rec[REC_DEPTH], d = 0;
		while (prev && d < prev[REC_DEPTH] && d < depth && prev[REC_HEAD + d] == ids[d])
			d++;
		for (; d < depth; d++)
			if ((nodes[d + 1] = plumb_cct_child(p, nodes[d], ids[d])) == PLUMB_NONE) {
				rc = plumb_fail_nomem(err);
				goto out;
			}
		prev = rec;
		if (!(costs[0] = rec_get(rec, REC_COUNT_LO)))
			continue;
		if (plumb_cct_add_self(p, nodes[depth], costs, err) < 0) {
			/* only over costs read before this file (or texts that differ
			 * in spaces alone) */
			if (err && err->code == PLUMB_ERR_OVERFLOW)
				plumb_fail(err, PLUMB_ERR_OVERFLOW,
					   "%s:%lu: expected the samples of a stack to total at most %"
					   PRIu64 ", got more", r->path,
					   (unsigned long)rec_get(rec, REC_LINE_LO), UINT64_MAX);
			rc = -1;
			goto out;
		}
	}
out:
	free(costs);
	free(order);
	free(nodes);
	return rc;
}

/* The profile counts the event of the stacks' numbers first ("samples",
 * or what opts name): add it, or check that it is there. */
static int setup_event(plumb_profile *p, const char *path, const plumb_read_opts *opts,
		       plumb_error *err)
{
	const char *name = opts && opts->event_name ? opts->event_name : "samples";
	const char *unit = opts && opts->event_unit ? opts->event_unit
			   : opts && opts->event_name ? NULL : "samples";
	if (!*name || strpbrk(name, " \t\n"))
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "%s: expected an event name without spaces, got \"%s\"", path, name);
	if (p->events.n == 0)
		return plumb_event_add(p, name, strcmp(name, "samples") ? NULL : "Samples", unit, err) < 0
			       ? -1 : 0;
	const char *first = plumb_str(p, p->events.v[0].name);
	if (!first || strcmp(first, name) != 0)
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s: expected a profile whose first event is \"%s\" to add "
				  "folded stacks to, got one whose first event is \"%s\"",
				  path, name, first ? first : "");
	return 0;
}

/* ---- two cores ------------------------------------------------------------
 * A big file is read in two pieces at once: the first on the caller's
 * thread into p, the second (from the line start after the middle) on a
 * job (formats/jobs.h) into a profile of its own, its lines
 * numbered after the first piece's. Then the second piece's frames are
 * interned into p in the order it made them, which is the order a serial
 * read makes the new ones (a frame new to the file is new to the piece at
 * the same line), its stacks are added to the first piece's with their
 * frame ids mapped, and the tree is built once from all of them, sorted,
 * as the serial reader builds it. An error in the first piece is the
 * file's first; an error in the second, or a stack whose count overflows
 * only once the pieces add up, reads the file again serially, so the
 * messages are always the serial reader's. PLUMB_FOLDED_SPLIT=N (0-100,
 * for tests only) splits any file at its first line start from N% on. */

#define PAR_MIN ((off_t)16 << 20) /* smaller files: a thread is not worth it */

typedef struct folded_piece {
	plumb_job job;        /* first: the job is the piece */
	folded_reader r;
	uint64_t from;        /* its first byte: a line start */
	plumb_error err;
	int rc;
} folded_piece;

/* The lines before byte n: the second piece's first line number. */
static int count_lines(int fd, uint64_t n, unsigned long *lines)
{
	enum { CHUNK = 1 << 20 };
	char *b = malloc(CHUNK);
	if (!b)
		return -1;
	unsigned long k = 0;
	for (uint64_t at = 0; at < n;) {
		ssize_t got = pread(fd, b, n - at < CHUNK ? (size_t)(n - at) : CHUNK, (off_t)at);
		if (got <= 0) {
			free(b);
			return -1;
		}
		for (const char *s = b, *e = b + got; (s = memchr(s, '\n', (size_t)(e - s))); s++)
			k++;
		at += (uint64_t)got;
	}
	free(b);
	*lines = k;
	return 0;
}

/* The second piece, on its own thread: from r.from to the end. It owns
 * its reader and profile until the join. */
static void read_second_piece(plumb_job *job, unsigned worker)
{
	(void)worker;
	folded_piece *pc = (folded_piece *)job;
	pc->rc = -1;
	FILE *fp = fopen(pc->r.path, "rb");
	if (!fp)
		return;
	__fsetlocking(fp, FSETLOCKING_BYCALLER);
	if (fseeko(fp, (off_t)pc->from, SEEK_SET) == 0 &&
	    count_lines(fileno(fp), pc->from, &pc->r.lineno) == 0)
		pc->rc = read_stream(&pc->r, fp, NULL, UINT64_MAX, &pc->err);
	fclose(fp);
}

/* The records of b (frame ids of q) after a's, with ids of p. */
static int add_piece_stacks(folded_reader *a, const folded_reader *b, plumb_profile *p,
			    const plumb_profile *q)
{
	plumb_id *map = malloc((q->frames.n + 1) * sizeof *map);
	if (!map)
		return -1;
	/* as intern_frame interns them: module, function, frame */
	for (size_t i = 0; i < q->frames.n; i++) {
		const plumb_function *f = &q->functions.v[q->frames.v[i].function];
		plumb_id mod = PLUMB_NONE, fn;
		if (f->module != PLUMB_NONE &&
		    (mod = plumb_module_intern(p, plumb_str(q, q->modules.v[f->module].path), NULL)) ==
			    PLUMB_NONE)
			goto fail;
		if ((fn = plumb_function_intern(p, plumb_str(q, f->name), NULL, mod, PLUMB_NONE, 0)) ==
			    PLUMB_NONE ||
		    (map[i] = plumb_frame_intern(p, fn, PLUMB_NONE, 0, 0)) == PLUMB_NONE)
			goto fail;
	}
	const stack_table *t = &b->stacks;
	stack_table *d = &a->stacks;
	if (plumb_vec_reserve_((void **)&d->w, &d->cap, d->n + t->n, sizeof *d->w) < 0)
		goto fail;
	/* appended without a slot: only build_cct reads them, and it sorts
	 * equal stacks next to each other, which add up in the tree */
	for (size_t off = 0; off < t->n; off += REC_HEAD + t->w[off + REC_DEPTH]) {
		const uint32_t *rec = t->w + off;
		uint32_t *out = d->w + d->n;
		memcpy(out, rec, REC_HEAD * sizeof *rec);
		for (size_t k = 0; k < rec[REC_DEPTH]; k++)
			out[REC_HEAD + k] = map[rec[REC_HEAD + k]];
		d->n += REC_HEAD + rec[REC_DEPTH];
		d->count++;
	}
	free(map);
	return 0;
fail:
	free(map);
	return -1;
}

/* Where to split path: a line start, or 0 (read it serially). */
static uint64_t folded_split(const char *path, plumb_profile *p)
{
	if (!plumb_profile_is_empty(p))
		return 0;
	const char *v = getenv("PLUMB_FOLDED_SPLIT");
	char *end = NULL;
	long pct = v && *v ? strtol(v, &end, 10) : -1;
	if (end && (*end || pct < 0 || pct > 100))
		pct = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	uint64_t split = 0;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (pct >= 0 || st.st_size >= PAR_MIN)) {
		uint64_t size = (uint64_t)st.st_size;
		uint64_t at = size / 100 * (uint64_t)(pct >= 0 ? pct : 50) +
			      size % 100 * (uint64_t)(pct >= 0 ? pct : 50) / 100;
		char b[4096];
		ssize_t got = at > 0 ? pread(fd, b, sizeof b, (off_t)(at - 1)) : 0;
		const char *nl = got > 0 ? memchr(b, '\n', (size_t)got) : NULL;
		if (nl && at - 1 + (uint64_t)(nl - b) + 1 < size)
			split = at - 1 + (uint64_t)(nl - b) + 1;
	}
	if (fd >= 0)
		close(fd);
	return split;
}

/* 0 or -1 as the serial reader, or 1: read it serially (p as it was). */
static int read_parallel(plumb_profile *p, const char *path, const plumb_read_opts *opts,
			 plumb_error *err)
{
	uint64_t split = folded_split(path, p);
	if (!split)
		return 1;
	plumb_profile *q = plumb_profile_new();
	folded_piece *b = calloc(1, sizeof *b);
	if (!q || !b) {
		plumb_profile_free(q);
		free(b);
		return 1;
	}
	b->r = (folded_reader){ .p = q, .path = path };
	b->from = split;
	plumb_jobs jobs;
	plumb_jobs_start(&jobs);
	b->job.run = read_second_piece;
	plumb_jobs_add(&jobs, &b->job);

	folded_reader a = { .p = p, .path = path };
	FILE *fp = plumb_open_input(path, err);
	int rc = fp ? 0 : -1;
	if (fp)
		__fsetlocking(fp, FSETLOCKING_BYCALLER);
	if (rc == 0)
		rc = setup_event(p, path, opts, err);
	if (rc == 0)
		rc = read_stream(&a, fp, opts, split, err);
	plumb_jobs_wait(&jobs);
	if (fp)
		fclose(fp);
	if (rc == 0 && b->rc)
		rc = 1; /* the serial reader says what is wrong there */
	if (rc == 0 && add_piece_stacks(&a, &b->r, p, q))
		rc = plumb_fail_nomem(err);
	if (rc == 0 && build_cct(&a, err))
		rc = err->code == PLUMB_ERR_OVERFLOW ? 1 : -1;
	if (rc == 0 && opts && opts->progress) { /* the second piece's bytes are read too */
		struct stat st;
		if (stat(path, &st) == 0)
			opts->progress(opts->progress_ctx, path, (uint64_t)st.st_size,
				       (uint64_t)st.st_size);
	}
	reader_free(&a);
	reader_free(&b->r);
	free(b);
	plumb_profile_free(q);
	if (rc == 1 && plumb_profile_reset(p, err))
		return -1;
	return rc;
}

int plumb_folded_read(plumb_profile *p, const char *path, const plumb_read_opts *opts,
		      plumb_error *err)
{
	plumb_error dummy;
	if (!err)
		err = &dummy;
	int par = read_parallel(p, path, opts, err);
	if (par != 1)
		return par;
	FILE *fp = plumb_open_input(path, err);
	if (!fp)
		return -1;
	__fsetlocking(fp, FSETLOCKING_BYCALLER); /* one thread reads it */
	folded_reader r = { .p = p, .path = path };
	int rc = setup_event(p, path, opts, err);
	if (rc == 0)
		rc = read_stream(&r, fp, opts, UINT64_MAX, err);
	if (rc == 0)
		rc = build_cct(&r, err);
	reader_free(&r);
	fclose(fp);
	return rc;
}

/* ---- detection ------------------------------------------------------------ */

/* Does one trimmed, non-empty line look like "stack count"? Besides the
 * count, it rules out "key: 12" headers and lines of numbers. A damaged
 * line (lenient) may hold NUL bytes and a signed count: the reader then
 * names what is wrong with it. */
static bool looks_folded(const char *s, size_t n, bool lenient)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 && c != '\t' && !(lenient && c == '\0'))
			return false;
	}
	line_parts lp;
	if (split_line(s, n, &lp) != SPLIT_OK)
		return false;
	const char *count = lp.count;
	size_t count_len = lp.count_len;
	if (lenient && count_len > 1 && (count[0] == '-' || count[0] == '+'))
		count++, count_len--;
	if (!all_digits(count, count_len) || count_len > 20)
		return false;
	/* "pid: 12" (callgrind) has one frame ending in ':'; "a;operator= 5"
	 * has several */
	char last = lp.stack[lp.stack_len - 1];
	if ((last == ':' || last == '=') && !memchr(lp.stack, ';', lp.stack_len))
		return false;
	return !all_digits(lp.prev_tok, lp.prev_tok_len);
}

/* Judge the first non-empty lines (up to 16, skipping a last line that the
 * head may have cut). The first must look folded, and most of the others:
 * a damaged line further down then still reaches the reader, which names
 * it, instead of making the whole file "unknown". */
static bool detect(const unsigned char *head, size_t len, bool lenient)
{
	if (!head || len == 0)
		return false;
	const char *s = (const char *)head;
	size_t pos = 0, good = 0, bad = 0;
	while (pos < len && good + bad < 16) {
		const char *nl = memchr(s + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - s) : len;
		if (!nl && good + bad > 0)
			break; /* possibly cut */
		size_t a = pos, b = end;
		pos = end + 1;
		if (b > a && s[b - 1] == '\r')
			b--;
		while (a < b && is_ws((unsigned char)s[a]))
			a++;
		while (b > a && is_ws((unsigned char)s[b - 1]))
			b--;
		if (a == b)
			continue;
		if (s[a] == '#')
			return false;
		if (looks_folded(s + a, b - a, lenient))
			good++;
		else if (good == 0)
			return false;
		else
			bad++;
	}
	return good > 0 && good >= bad; /* ties: let the reader name the bad line */
}

bool plumb_folded_detect(const unsigned char *head, size_t len)
{
	if (head && memchr(head, '\0', len))
		return false; /* binary, including SQLite's "SQLite format 3\0" */
	return detect(head, len, false);
}

bool plumb_folded_detect_damaged(const unsigned char *head, size_t len)
{
	/* text lines, not a binary file with a line-shaped start: at least one
	 * whole line, and NUL bytes a small minority */
	if (!head || !memchr(head, '\n', len))
		return false;
	size_t nuls = 0;
	for (size_t i = 0; i < len; i++)
		nuls += head[i] == '\0';
	return (nuls <= 8 || nuls * 16 <= len) && detect(head, len, true);
}

/* ---- the writer ----------------------------------------------------------- */

/* Growable text, for the rendered frame names. */
typedef struct textbuf {
	char *v;
	size_t n, cap;
} textbuf;

static int tb_put(textbuf *tb, const char *s, size_t n)
{
	if (tb->n + n > tb->cap) {
		size_t cap = tb->cap ? tb->cap : 4096;
		while (cap < tb->n + n)
			cap *= 2;
		char *v = realloc(tb->v, cap);
		if (!v)
			return -1;
		tb->v = v;
		tb->cap = cap;
	}
	memcpy(tb->v + tb->n, s, n);
	tb->n += n;
	return 0;
}

/* A name as one frame: ';' would split it and control bytes would break
 * the line, so they become ':' and '?'. A name ending in blanks and a
 * number ("read 4") would, as a stack's last frame, read back as a second
 * count (a differential file): those blanks become one '_'. */
static int tb_put_name(textbuf *tb, const char *s)
{
	size_t start = tb->n, n = strlen(s);
	if (tb_put(tb, s, n) < 0)
		return -1;
	for (size_t i = start; i < tb->n; i++) {
		unsigned char c = (unsigned char)tb->v[i];
		if (c == ';')
			tb->v[i] = ':';
		else if (c < 0x20 && c != '\t')
			tb->v[i] = '?';
	}
	size_t end = tb->n, d = end;
	while (d > start && ((tb->v[d - 1] >= '0' && tb->v[d - 1] <= '9') || tb->v[d - 1] == '.'))
		d--;
	size_t b = d;
	while (b > start && (tb->v[b - 1] == ' ' || tb->v[b - 1] == '\t'))
		b--;
	if (d < end && b < d && b > start) {
		tb->v[b] = '_';
		memmove(tb->v + b + 1, tb->v + d, end - d);
		tb->n = b + 1 + (end - d);
	}
	/* a name ending in a perf annotation ("f_[k]") would lose it: '-' */
	end = tb->n;
	if (has_annotation(tb->v + start, end - start))
		tb->v[end - 4] = '-';
	/* and a name ending in blanks and "[x]", which reads back as the module
	 * x: "write [libc.so.6]" is written "write-[libc.so.6]" ('_' would make
	 * "y [k]" a perf annotation, "y_[k]", which the reader drops) */
	end = tb->n;
	if (end - start >= 4 && tb->v[end - 1] == ']') {
		size_t open = end - 1;
		while (open > start && tb->v[open] != '[')
			open--;
		if (tb->v[open] == '[' && open > start && (tb->v[open - 1] == ' ' || tb->v[open - 1] == '\t') &&
		    is_module_name(tb->v + open + 1, end - open - 2)) {
			b = open;
			while (b > start && (tb->v[b - 1] == ' ' || tb->v[b - 1] == '\t'))
				b--;
			if (b > start) {
				tb->v[b] = '-';
				memmove(tb->v + b + 1, tb->v + open, end - open);
				tb->n = b + 1 + (end - open);
			}
		}
	}
	return 0;
}

static const char UNKNOWN_FRAME[] = "[unknown]";

/* Render frame f as "name", or with modules "name [module]" or "[module]". */
static int render_frame(const plumb_profile *p, plumb_id f, bool modules, textbuf *tb)
{
	const plumb_frame *fr = &p->frames.v[f];
	if (fr->function == PLUMB_NONE || fr->function >= p->functions.n) {
		char a[32];
		int n = fr->address ? snprintf(a, sizeof a, "0x%" PRIx64, fr->address)
				    : snprintf(a, sizeof a, "%s", UNKNOWN_FRAME);
		return tb_put(tb, a, (size_t)n);
	}
	const plumb_function *fn = &p->functions.v[fr->function];
	const char *name = plumb_function_name(p, fr->function);
	const char *mod = fn->module != PLUMB_NONE && fn->module < p->modules.n
				  ? plumb_str(p, p->modules.v[fn->module].path) : NULL;
	if (!name || !*name)
		name = UNKNOWN_FRAME;
	if (!modules || !mod || !is_module_name(mod, strlen(mod)))
		return tb_put_name(tb, name);
	size_t ml = strlen(mod);
	/* "[libc.so.6]" with module libc.so.6 reads back from "[libc.so.6]" */
	if (name[0] == '[' && strncmp(name + 1, mod, ml) == 0 && name[ml + 1] == ']' &&
	    name[ml + 2] == '\0')
		return tb_put(tb, name, ml + 2);
	if (tb_put_name(tb, name) < 0 || tb_put(tb, " [", 2) < 0 || tb_put(tb, mod, ml) < 0)
		return -1;
	return tb_put(tb, "]", 1);
}

/* One output stack: frame ids root first in paths[off .. off+depth). */
typedef struct wline {
	size_t off;
	uint32_t depth;
	uint64_t count;
} wline;

typedef struct writer {
	const plumb_profile *p;
	bool modules;         /* " [module]" after each name */
	textbuf text;         /* every frame's rendering, back to back */
	size_t *toff;         /* frame id -> offset in text; frames.n + 1 entries */
	plumb_id *paths;
	wline *lines;
	size_t nlines;
} writer;

static void writer_free(writer *w)
{
	free(w->text.v);
	free(w->toff);
	free(w->paths);
	free(w->lines);
}

static const char *frame_text(const writer *w, plumb_id f, size_t *len)
{
	if (f == PLUMB_NONE) {
		*len = sizeof UNKNOWN_FRAME - 1;
		return UNKNOWN_FRAME;
	}
	*len = w->toff[f + 1] - w->toff[f];
	return w->text.v + w->toff[f];
}

/* Order stacks as their text would sort byte by byte. Frame texts hold no
 * ';', so when one text is a prefix of the other, what follows it in its
 * own line (';' or the end) decides. */
static int compare_lines(const void *pa, const void *pb, void *ctx)
{
	const writer *w = ctx;
	const wline *a = pa, *b = pb;
	const plumb_id *fa = w->paths + a->off, *fb = w->paths + b->off;
	size_t n = a->depth < b->depth ? a->depth : b->depth;
	for (size_t i = 0; i < n; i++) {
		if (fa[i] == fb[i])
			continue;
		size_t la, lb;
		const char *ta = frame_text(w, fa[i], &la), *tb = frame_text(w, fb[i], &lb);
		int c = memcmp(ta, tb, la < lb ? la : lb);
		if (c)
			return c;
		if (la == lb)
			continue; /* different frames, same text: one stack */
		if (la < lb) {
			if (i + 1 == a->depth)
				return -1;
			return ';' < (unsigned char)tb[la] ? -1 : 1;
		}
		if (i + 1 == b->depth)
			return 1;
		return (unsigned char)ta[lb] < ';' ? -1 : 1;
	}
	return a->depth < b->depth ? -1 : a->depth > b->depth;
}

static int render_frames(writer *w, plumb_error *err)
{
	const plumb_profile *p = w->p;
	w->toff = malloc((p->frames.n + 1) * sizeof *w->toff);
	if (!w->toff)
		return plumb_fail_nomem(err);
	for (size_t f = 0; f < p->frames.n; f++) {
		w->toff[f] = w->text.n;
		if (render_frame(p, (plumb_id)f, w->modules, &w->text) < 0)
			return plumb_fail_nomem(err);
	}
	w->toff[p->frames.n] = w->text.n;
	return 0;
}

/* Collect every CCT node with a non-zero first-event self cost, with its
 * path of frames from the root. A part root's own cost (an empty stack)
 * becomes the one-frame stack "[unknown]" so that totals are kept. */
static int collect_lines(writer *w, plumb_error *err)
{
	const plumb_profile *p = w->p;
	size_t nn = p->cct.n, nev = p->events.n, total = 0;
	uint32_t *depth = malloc((nn ? nn : 1) * sizeof *depth);
	if (!depth)
		return plumb_fail_nomem(err);
	for (size_t i = 0; i < nn; i++) {
		plumb_id par = p->cct.v[i].parent;
		depth[i] = par == PLUMB_NONE || par >= i ? 0 : depth[par] + 1;
		if (p->cct_self.v[i * nev]) {
			w->nlines++;
			total += depth[i] ? depth[i] : 1;
		}
	}
	w->lines = malloc((w->nlines ? w->nlines : 1) * sizeof *w->lines);
	w->paths = malloc((total ? total : 1) * sizeof *w->paths);
	if (!w->lines || !w->paths) {
		free(depth);
		return plumb_fail_nomem(err);
	}
	size_t off = 0, k = 0;
	for (size_t i = 0; i < nn; i++) {
		uint64_t c = p->cct_self.v[i * nev];
		if (!c)
			continue;
		uint32_t d = depth[i] ? depth[i] : 1;
		w->lines[k++] = (wline){ .off = off, .depth = d, .count = c };
		if (!depth[i]) {
			w->paths[off] = PLUMB_NONE;
		} else {
			size_t j = d;
			for (plumb_id n = (plumb_id)i; j > 0; n = p->cct.v[n].parent)
				w->paths[off + --j] = p->cct.v[n].frame;
		}
		off += d;
	}
	free(depth);
	return 0;
}

static int write_line(const writer *w, const wline *l, uint64_t count, FILE *out)
{
	for (uint32_t i = 0; i < l->depth; i++) {
		size_t len;
		const char *t = frame_text(w, w->paths[l->off + i], &len);
		if (i > 0)
			putc_unlocked(';', out);
		fwrite_unlocked(t, 1, len, out);
	}
	return fprintf(out, " %" PRIu64 "\n", count) < 0 ? -1 : 0;
}

/* Sort, merge equal stacks (across parts and frames of the same text) and
 * print them. */
static int write_lines(writer *w, FILE *out, plumb_error *err)
{
	qsort_r(w->lines, w->nlines, sizeof *w->lines, compare_lines, w);
	int rc = 0;
	flockfile(out); /* for the _unlocked calls */
	for (size_t i = 0; i < w->nlines;) {
		uint64_t sum = w->lines[i].count;
		size_t j = i + 1;
		for (; j < w->nlines && compare_lines(&w->lines[i], &w->lines[j], w) == 0; j++) {
			if (sum > UINT64_MAX - w->lines[j].count) {
				rc = plumb_fail(err, PLUMB_ERR_OVERFLOW,
						"folded output: expected a stack's samples to total at most %"
						PRIu64 ", got more", UINT64_MAX);
				break;
			}
			sum += w->lines[j].count;
		}
		if (rc < 0 || write_line(w, &w->lines[i], sum, out) < 0)
			break;
		i = j;
	}
	funlockfile(out);
	if (rc == 0 && ferror(out))
		rc = plumb_fail(err, PLUMB_ERR_IO, "writing folded stacks: %s",
				strerror(errno ? errno : EIO));
	return rc;
}

int plumb_folded_write_stream(const plumb_profile *p, FILE *out, plumb_error *err)
{
	return plumb_folded_write_stream_with(p, out, NULL, err);
}

int plumb_folded_write_stream_with(const plumb_profile *p, FILE *out, const plumb_folded_write_opts *o,
				   plumb_error *err)
{
	if (p->events.n == 0)
		return 0; /* nothing is counted */
	writer w = { .p = p, .modules = o && o->modules };
	int rc = render_frames(&w, err);
	if (rc == 0)
		rc = collect_lines(&w, err);
	if (rc == 0 && w.nlines == 0 && p->cg_self.n > 0)
		rc = plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
				"folded output: expected a profile with call stacks, got one with only a "
				"call graph (no calling contexts)");
	if (rc == 0)
		rc = write_lines(&w, out, err);
	writer_free(&w);
	return rc;
}

int plumb_folded_write(const plumb_profile *p, const char *path, plumb_error *err)
{
	return plumb_folded_write_with(p, path, NULL, err);
}

int plumb_folded_write_with(const plumb_profile *p, const char *path, const plumb_folded_write_opts *o,
			    plumb_error *err)
{
	plumb_atomic_file af;
	if (plumb_atomic_open(&af, path, err) < 0)
		return -1;
	if (plumb_folded_write_stream_with(p, af.fp, o, err) < 0) {
		plumb_atomic_abort(&af);
		return -1;
	}
	return plumb_atomic_commit(&af, err);
}
