/* The pprof wire walker, the samples' and locations' decoder, and the gzip
 * reader (see pprof_internal.h; the writer's gzip is pprof_gzip.c).
 *
 * protobuf-c says only "cannot unpack" of a damaged file; this walk says
 * where and what was expected. It knows profile.proto's field numbers and
 * wire types (src/formats/pprof_profile.proto) and checks the nesting, so
 * detection accepts a file only when its head is that message all through.
 * The samples and locations, most of a big file, are decoded here into
 * flat arrays (protobuf-c's structs, three allocations a sample, took a
 * third of the reading time); protobuf-c decodes the rest. */
#include "formats/pprof_internal.h"
#include "model/index.h"
#include "model/varint.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>
#include <zlib.h>

enum msg { M_PROFILE, M_VALUE_TYPE, M_SAMPLE, M_LABEL, M_MAPPING, M_LOCATION, M_LINE,
	   M_FUNCTION, M_COUNT };
enum kind { F_UNKNOWN = 0, F_VARINT, F_PACKED, F_STRING, F_MSG };

typedef struct field {
	unsigned char kind, sub;
	const char *name;
} field;

#define NFIELDS 15
static const char *const msg_names[M_COUNT] = { "Profile", "ValueType", "Sample", "Label",
						"Mapping", "Location", "Line", "Function" };
static const field schema[M_COUNT][NFIELDS] = {
	[M_PROFILE] = { [1] = { F_MSG, M_VALUE_TYPE, "sample_type" }, [2] = { F_MSG, M_SAMPLE, "sample" },
			[3] = { F_MSG, M_MAPPING, "mapping" }, [4] = { F_MSG, M_LOCATION, "location" },
			[5] = { F_MSG, M_FUNCTION, "function" }, [6] = { F_STRING, 0, "string_table" },
			[7] = { F_VARINT, 0, "drop_frames" }, [8] = { F_VARINT, 0, "keep_frames" },
			[9] = { F_VARINT, 0, "time_nanos" }, [10] = { F_VARINT, 0, "duration_nanos" },
			[11] = { F_MSG, M_VALUE_TYPE, "period_type" }, [12] = { F_VARINT, 0, "period" },
			[13] = { F_PACKED, 0, "comment" }, [14] = { F_VARINT, 0, "default_sample_type" } },
	[M_VALUE_TYPE] = { [1] = { F_VARINT, 0, "type" }, [2] = { F_VARINT, 0, "unit" } },
	[M_SAMPLE] = { [1] = { F_PACKED, 0, "location_id" }, [2] = { F_PACKED, 0, "value" },
		       [3] = { F_MSG, M_LABEL, "label" } },
	[M_LABEL] = { [1] = { F_VARINT, 0, "key" }, [2] = { F_VARINT, 0, "str" },
		      [3] = { F_VARINT, 0, "num" }, [4] = { F_VARINT, 0, "num_unit" } },
	[M_MAPPING] = { [1] = { F_VARINT, 0, "id" }, [2] = { F_VARINT, 0, "memory_start" },
			[3] = { F_VARINT, 0, "memory_limit" }, [4] = { F_VARINT, 0, "file_offset" },
			[5] = { F_VARINT, 0, "filename" }, [6] = { F_VARINT, 0, "build_id" },
			[7] = { F_VARINT, 0, "has_functions" }, [8] = { F_VARINT, 0, "has_filenames" },
			[9] = { F_VARINT, 0, "has_line_numbers" },
			[10] = { F_VARINT, 0, "has_inline_frames" } },
	[M_LOCATION] = { [1] = { F_VARINT, 0, "id" }, [2] = { F_VARINT, 0, "mapping_id" },
			 [3] = { F_VARINT, 0, "address" }, [4] = { F_MSG, M_LINE, "line" },
			 [5] = { F_VARINT, 0, "is_folded" } },
	[M_LINE] = { [1] = { F_VARINT, 0, "function_id" }, [2] = { F_VARINT, 0, "line" },
		     [3] = { F_VARINT, 0, "column" } },
	[M_FUNCTION] = { [1] = { F_VARINT, 0, "id" }, [2] = { F_VARINT, 0, "name" },
			 [3] = { F_VARINT, 0, "system_name" }, [4] = { F_VARINT, 0, "filename" },
			 [5] = { F_VARINT, 0, "start_line" } },
};

typedef struct walker {
	const uint8_t *base;
	bool strict, cut;
	bool skim;            /* the samples' insides are pprof_take_samples' to check */
	pprof_offsets *offs;
	uint32_t seen;        /* bit n: top-level field n met */
	pprof_walk_error *e;
} walker;

static int fail(walker *w, const uint8_t *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(walker *w, const uint8_t *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	w->e->offset = (size_t)(at - w->base);
	vsnprintf(w->e->what, sizeof w->e->what, fmt, ap);
	va_end(ap);
	return -1;
}

/* 1 with *v and *p advanced, 0 when the data ends first, -1 when the
 * varint is longer than 64 bits (model/varint.h decodes it). */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	plumb_varint_in in = { *p, end, false };
	*v = plumb_varint_get(&in);
	if (!in.bad) {
		*p = in.p;
		return 1;
	}
	/* cut short: every byte left has its continuation bit */
	for (const uint8_t *q = *p; q < end && q - *p < PLUMB_VARINT_MAX; q++)
		if (!(*q & 0x80))
			return -1;
	return end - *p < PLUMB_VARINT_MAX ? 0 : -1;
}

static const char *const wire_names[8] = { "a varint (wire type 0)", "64 bits (wire type 1)",
					   "a length-delimited field (wire type 2)",
					   "a group start (wire type 3)", "a group end (wire type 4)",
					   "32 bits (wire type 5)", "wire type 6", "wire type 7" };

static int record_offset(walker *w, int kind, const uint8_t *at)
{
	pprof_offsets *o = w->offs;
	if (plumb_vec_reserve_((void **)&o->v[kind], &o->cap[kind], o->n[kind] + 1,
			       sizeof *o->v[kind]) < 0)
		return -2;
	o->v[kind][o->n[kind]++] = (size_t)(at - w->base);
	return 0;
}

/* Walk one message of type m in [p, end); top: it is the whole buffer
 * (cut applies). Returns its field count or -1/-2. */
static long walk(walker *w, int m, const uint8_t *p, const uint8_t *end, bool top)
{
	long count = 0;
	while (p < end) {
		const uint8_t *start = p;
		uint64_t key, v;
		int r = varint(&p, end, &key);
		if (r <= 0) {
			if (r == 0 && top && w->cut)
				return count;
			return fail(w, start, "expected a field key of %s (a varint), got %s",
				    msg_names[m], r == 0 ? "the end of the data" : "more than 64 bits");
		}
		uint64_t num = key >> 3;
		int wt = (int)(key & 7);
		if (num == 0 || num > 536870911u)
			return fail(w, start, "expected a field number of %s from 1, got %llu",
				    msg_names[m], (unsigned long long)num);
		const field *f = num < NFIELDS ? &schema[m][num] : NULL;
		if (!f || f->kind == F_UNKNOWN) {
			if (w->strict)
				return fail(w, start, "expected a field of %s (profile.proto), got "
					    "unknown field %llu", msg_names[m], (unsigned long long)num);
			if (wt != 0 && wt != 1 && wt != 2 && wt != 5)
				return fail(w, start, "expected unknown field %llu of %s to have "
					    "wire type 0, 1, 2 or 5, got %s", (unsigned long long)num,
					    msg_names[m], wire_names[wt]);
		} else {
			int want = f->kind == F_VARINT ? 0 : 2;
			if (wt != want && !(f->kind == F_PACKED && wt == 0))
				return fail(w, start, "expected field %llu (%s) of %s to be %s, got %s",
					    (unsigned long long)num, f->name, msg_names[m],
					    wire_names[want], wire_names[wt]);
		}
		const uint8_t *body = p;
		uint64_t size = 0;
		switch (wt) {
		case 0:
			r = varint(&p, end, &v);
			if (r == 0 && top && w->cut)
				return count;
			if (r <= 0)
				return fail(w, body, "expected the varint value of field %llu of %s, got %s",
					    (unsigned long long)num, msg_names[m],
					    r == 0 ? "the end of the data" : "more than 64 bits");
			break;
		case 1:
		case 5:
			size = wt == 1 ? 8 : 4;
			if ((uint64_t)(end - p) < size) {
				if (top && w->cut)
					return count;
				return fail(w, body, "expected %llu bytes of field %llu of %s, got %zu",
					    (unsigned long long)size, (unsigned long long)num,
					    msg_names[m], (size_t)(end - p));
			}
			p += size;
			break;
		default: /* 2 */
			r = varint(&p, end, &size);
			if (r == 0 && top && w->cut)
				return count;
			if (r <= 0)
				return fail(w, body, "expected the length of field %llu of %s, got %s",
					    (unsigned long long)num, msg_names[m],
					    r == 0 ? "the end of the data" : "more than 64 bits");
			if (size > (uint64_t)(end - p)) {
				if (top && w->cut)
					return count;
				return fail(w, body, "expected field %llu of %s to fit in the %zu bytes "
					    "left of its message, got a length of %llu",
					    (unsigned long long)num, msg_names[m], (size_t)(end - p),
					    (unsigned long long)size);
			}
			if (f && f->kind == F_MSG && !(w->skim && f->sub == M_SAMPLE)) {
				long sub = walk(w, f->sub, p, p + size, false);
				if (sub < 0)
					return sub;
			} else if (f && f->kind == F_PACKED) {
				plumb_varint_in q = { p, p + size, false };
				while (q.p < q.end) {
					const uint8_t *at = q.p;
					(void)plumb_varint_get(&q);
					if (q.bad)
						return fail(w, at, "expected a packed varint of field %llu "
							    "(%s) of %s", (unsigned long long)num,
							    f->name, msg_names[m]);
				}
			}
			p += size;
			break;
		}
		if (top && num < 32)
			w->seen |= 1u << num;
		if (top && w->offs && num >= 2 && num <= 5) {
			int rc = record_offset(w, (int)num - 2, start);
			if (rc < 0)
				return rc;
		}
		count++;
	}
	return count;
}

static long walk_all(walker *w, const uint8_t *buf, size_t len, uint32_t *seen)
{
	long n = walk(w, M_PROFILE, buf, buf + len, true);
	if (n == -2) {
		w->e->offset = 0;
		snprintf(w->e->what, sizeof w->e->what, "out of memory");
	}
	if (seen)
		*seen = w->seen;
	return n;
}

long pprof_walk_skim(const uint8_t *buf, size_t len, pprof_offsets *offs, pprof_walk_error *e)
{
	walker w = { .base = buf, .skim = true, .offs = offs, .e = e };
	return walk_all(&w, buf, len, NULL);
}

long pprof_walk(const uint8_t *buf, size_t len, bool strict, bool cut, pprof_offsets *offs,
		uint32_t *seen, pprof_walk_error *e)
{
	pprof_walk_error spare;
	walker w = { .base = buf, .strict = strict, .cut = cut, .offs = offs, .e = e ? e : &spare };
	return walk_all(&w, buf, len, seen);
}

void pprof_offsets_free(pprof_offsets *o)
{
	for (int k = 0; k < PPROF_OFF_KINDS; k++)
		free(o->v[k]);
}

size_t pprof_offset(const pprof_offsets *o, int kind, size_t k)
{
	return o && k < o->n[kind] ? o->v[kind][k] : 0;
}

/* ---- samples ------------------------------------------------------------ */

/* Past the value of a field of wire type wt whose key in->p is after;
 * *body is where a length-delimited value's bytes start. false if cut. */
static bool skip_value(plumb_varint_in *in, int wt, const uint8_t **body)
{
	uint64_t size = 0;
	switch (wt) {
	case 0:
		(void)plumb_varint_get(in);
		return !in->bad;
	case 1:
	case 5:
		size = wt == 1 ? 8 : 4;
		break;
	case 2:
		size = plumb_varint_get(in);
		if (in->bad)
			return false;
		break;
	default:
		return false;
	}
	*body = in->p;
	if (size > (uint64_t)(in->end - in->p))
		return false;
	in->p += size;
	return true;
}

/* Append the varints of a repeated field (one, or packed) to *v. */
static int take_varints(plumb_varint_in *in, int wt, uint64_t **v, size_t *n, size_t *cap)
{
	if (wt == 0) {
		uint64_t x = plumb_varint_get(in);
		if (in->bad || plumb_vec_reserve_((void **)v, cap, *n + 1, sizeof **v) < 0)
			return in->bad ? -1 : -2;
		(*v)[(*n)++] = x;
		return 0;
	}
	const uint8_t *body;
	if (wt != 2 || !skip_value(in, wt, &body))
		return -1;
	/* at most one value a byte: room made once */
	size_t most = (size_t)(in->p - body);
	if (plumb_vec_reserve_((void **)v, cap, *n + most, sizeof **v) < 0)
		return -2;
	plumb_varint_in q = { body, in->p, false };
	*n += plumb_varint_get_run(&q, *v + *n);
	return q.bad ? -1 : 0;
}

/* What pprof_walk asks of a field number (1 to 2^29 - 1). */
static bool field_number_ok(uint64_t num)
{
	return num >= 1 && num <= 536870911u;
}

static int take_label(plumb_varint_in *in, int wt, pprof_samples *s)
{
	const uint8_t *body;
	if (wt != 2 || !skip_value(in, wt, &body))
		return -1;
	if (plumb_vec_reserve_((void **)&s->lab, &s->cap_lab, s->nlab + 1, sizeof *s->lab) < 0)
		return -2;
	pprof_label l = { 0, 0, 0, 0 };
	plumb_varint_in q = { body, in->p, false };
	while (q.p < q.end && !q.bad) {
		uint64_t key = plumb_varint_get(&q);
		int fwt = (int)(key & 7);
		uint64_t num = key >> 3;
		const uint8_t *b;
		if (!field_number_ok(num) || (num <= 4 && fwt != 0))
			return -1;
		if (num <= 4) {
			int64_t x = (int64_t)plumb_varint_get(&q);
			int64_t *f[] = { &l.key, &l.str, &l.num, &l.num_unit };
			*f[num - 1] = x; /* the last one wins, as in protobuf */
		} else if (q.bad || !skip_value(&q, fwt, &b)) {
			return -1;
		}
	}
	if (q.bad)
		return -1;
	s->lab[s->nlab++] = l;
	return 0;
}

/* One Sample message [p, end): its values and labels into s, its
 * location ids into ids[0..*nids) (grown as needed). */
static int take_sample(const uint8_t *p, const uint8_t *end, pprof_samples *s, uint64_t **ids,
		       size_t *nids, size_t *cap_ids)
{
	size_t need = s->n + 2;
	if (need > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		size_t *b = realloc(s->val_off, cap * sizeof *b);
		if (b)
			s->val_off = b;
		size_t *c = realloc(s->lab_off, cap * sizeof *c);
		if (c)
			s->lab_off = c;
		if (!b || !c)
			return -2;
		s->cap = cap;
		plumb_advise_huge(b, cap * sizeof *b);
		plumb_advise_huge(c, cap * sizeof *c);
	}
	plumb_varint_in in = { p, end, false };
	int rc = 0;
	*nids = 0;
	while (rc == 0 && in.p < in.end) {
		uint64_t key = plumb_varint_get(&in);
		int wt = (int)(key & 7);
		const uint8_t *body;
		if (in.bad || !field_number_ok(key >> 3))
			rc = -1;
		else if (key >> 3 == 1)
			rc = take_varints(&in, wt, ids, nids, cap_ids);
		else if (key >> 3 == 2)
			rc = take_varints(&in, wt, &s->val, &s->nval, &s->cap_val);
		else if (key >> 3 == 3)
			rc = take_label(&in, wt, s);
		else if (!skip_value(&in, wt, &body))
			rc = -1;
	}
	s->n++;
	s->val_off[s->n] = s->nval;
	s->lab_off[s->n] = s->nlab;
	return rc;
}

/* One Location message [p, end): walked already (pprof_walk_skim), so
 * its known fields have their wire types; the last value of a field wins,
 * as in protobuf. */
static int take_location(const uint8_t *p, const uint8_t *end, pprof_locations *l)
{
	/* four arrays of one capacity: each grown from the same old one */
	size_t old = l->cap, c1 = old, c2 = old, c3 = old;
	if (plumb_vec_reserve_((void **)&l->mapping_id, &c1, l->n + 2, sizeof *l->mapping_id) < 0 ||
	    plumb_vec_reserve_((void **)&l->address, &c2, l->n + 2, sizeof *l->address) < 0 ||
	    plumb_vec_reserve_((void **)&l->line_off, &c3, l->n + 2, sizeof *l->line_off) < 0 ||
	    plumb_vec_reserve_((void **)&l->id, &l->cap, l->n + 2, sizeof *l->id) < 0)
		return -2;
	uint64_t v[4] = { 0, 0, 0, 0 };
	plumb_varint_in in = { p, end, false };
	l->line_off[l->n] = l->nline;
	while (in.p < in.end) {
		uint64_t key = plumb_varint_get(&in);
		int wt = (int)(key & 7);
		const uint8_t *body = NULL;
		if (in.bad)
			return -1;
		if (key >> 3 >= 1 && key >> 3 <= 3 && wt == 0) {
			v[key >> 3] = plumb_varint_get(&in);
			continue;
		}
		if (!skip_value(&in, wt, &body))
			return -1;
		if (key != (4 << 3 | 2))
			continue;
		if (plumb_vec_reserve_((void **)&l->fn, &l->cap_fn, l->nline + 1, sizeof *l->fn) < 0 ||
		    plumb_vec_reserve_((void **)&l->line, &l->cap_line, l->nline + 1,
				       sizeof *l->line) < 0)
			return -2;
		uint64_t f[3] = { 0, 0, 0 };
		plumb_varint_in q = { body, in.p, false };
		while (q.p < q.end) {
			uint64_t k = plumb_varint_get(&q);
			const uint8_t *b = NULL;
			if (q.bad)
				return -1;
			if (k >> 3 >= 1 && k >> 3 <= 2 && (k & 7) == 0)
				f[k >> 3] = plumb_varint_get(&q);
			else if (!skip_value(&q, (int)(k & 7), &b))
				return -1;
		}
		if (q.bad)
			return -1;
		l->fn[l->nline] = f[1];
		l->line[l->nline++] = (int64_t)f[2];
	}
	if (in.bad)
		return -1;
	l->id[l->n] = v[1];
	l->mapping_id[l->n] = v[2];
	l->address[l->n] = v[3];
	l->line_off[++l->n] = l->nline;
	return 0;
}

void pprof_locations_free(pprof_locations *l)
{
	free(l->id);
	free(l->mapping_id);
	free(l->address);
	free(l->line_off);
	free(l->fn);
	free(l->line);
	memset(l, 0, sizeof *l);
}

/* Room for ns samples of nval values in all, made once: growing arrays of
 * this size by copying took more time in page faults than the decoding.
 * The reader knows both from the walk (a file that says otherwise makes
 * them grow as it goes). */
static int make_room(pprof_samples *s, size_t ns, size_t nval)
{
	s->cap = ns + 1;
	s->val_off = malloc(s->cap * sizeof *s->val_off);
	s->lab_off = malloc(s->cap * sizeof *s->lab_off);
	if (!s->val_off || !s->lab_off)
		return -2;
	plumb_advise_huge(s->val_off, s->cap * sizeof *s->val_off);
	plumb_advise_huge(s->lab_off, s->cap * sizeof *s->lab_off);
	s->val_off[0] = s->lab_off[0] = 0;
	if (plumb_vec_reserve_((void **)&s->val, &s->cap_val, nval, sizeof *s->val) < 0)
		return -2;
	plumb_advise_huge(s->val, s->cap_val * sizeof *s->val);
	return 0;
}

/* Say where a decoding stopped, and why. */
static void stopped(pprof_walk_error *e, size_t at, int rc)
{
	/* pprof_walk passed this data: only memory can run out */
	e->offset = at;
	snprintf(e->what, sizeof e->what, rc == -2 ? "out of memory" :
		 "expected a Profile message, got damaged data");
}

int pprof_take_rest(const uint8_t *buf, size_t len, uint8_t **rest, size_t *rest_len,
		    pprof_locations *l, pprof_walk_error *e)
{
	uint8_t *out = malloc(len ? len : 1);
	size_t n = 0;
	plumb_varint_in in = { buf, buf + len, false };
	int rc = out ? 0 : -2;
	if (rc)
		stopped(e, 0, rc);
	while (rc == 0 && in.p < in.end) {
		const uint8_t *start = in.p, *body = NULL;
		uint64_t key = plumb_varint_get(&in);
		int wt = (int)(key & 7);
		if (in.bad || !skip_value(&in, wt, &body)) {
			rc = -1;
		} else if (key >> 3 == 2 && wt == 2) {
			continue; /* a sample: pprof_take_samples' */
		} else if (key >> 3 == 4 && wt == 2) {
			if ((rc = take_location(body, in.p, l)) == -1)
				start = body;
		} else {
			memcpy(out + n, start, (size_t)(in.p - start));
			n += (size_t)(in.p - start);
		}
		if (rc)
			stopped(e, (size_t)(start - buf), rc);
	}
	if (rc) {
		free(out);
		return rc;
	}
	*rest = out;
	*rest_len = n;
	return 0;
}

int pprof_take_samples(const uint8_t *buf, size_t len, size_t ns, size_t nval, pprof_samples *s,
		       pprof_sample_fn fn, void *ctx, pprof_walk_error *e)
{
	plumb_varint_in in = { buf, buf + len, false };
	uint64_t *ids = NULL;
	size_t nids = 0, cap_ids = 0;
	int rc = make_room(s, ns, nval);
	if (rc)
		stopped(e, 0, rc);
	while (rc == 0 && in.p < in.end) {
		const uint8_t *body = NULL;
		uint64_t key = plumb_varint_get(&in);
		int wt = (int)(key & 7);
		if (in.bad || !skip_value(&in, wt, &body)) {
			rc = -1;
			stopped(e, (size_t)(body ? body - buf : 0), rc);
		} else if (key >> 3 == 2 && wt == 2) {
			if ((rc = take_sample(body, in.p, s, &ids, &nids, &cap_ids)) < 0)
				stopped(e, (size_t)(body - buf), rc);
			else
				rc = fn(ctx, s->n - 1, ids, nids);
		}
	}
	free(ids);
	return rc;
}

void pprof_samples_free(pprof_samples *s)
{
	free(s->val_off);
	free(s->lab_off);
	free(s->val);
	free(s->lab);
	memset(s, 0, sizeof *s);
}

/* ---- gzip ------------------------------------------------------------- */

bool pprof_is_gzip(const uint8_t *buf, size_t len)
{
	return len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b;
}

/* The whole message is decoded in memory: a small file that expands past
 * both bounds is refused before it takes the memory (real profiles shrink
 * 5 to 20 times). */
#define PPROF_GZIP_FLOOR ((size_t)64 << 20)
#define PPROF_GZIP_RATIO 100

/* The whole-buffer way (libdeflate: two to three times zlib's speed), or
 * false when it cannot say: then zlib's stream, which names the byte at
 * fault, decides. Members follow one another as in zlib's loop below. */
static bool gunzip_fast(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len)
{
	if (len < 18)
		return false;
	/* the last member's size (mod 2^32) is the last 4 bytes: the whole
	 * of a single-member file, usually */
	size_t isize = (size_t)in[len - 4] | (size_t)in[len - 3] << 8 |
		       (size_t)in[len - 2] << 16 | (size_t)in[len - 1] << 24;
	size_t most = len > PPROF_GZIP_FLOOR / PPROF_GZIP_RATIO ? len * PPROF_GZIP_RATIO
								: PPROF_GZIP_FLOOR;
	size_t cap = (isize > len ? isize : len) + 64;
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	uint8_t *buf = cap <= most ? malloc(cap) : NULL;
	plumb_advise_huge(buf, cap);
	size_t at = 0, n = 0;
	bool ok = d && buf;
	while (ok && len - at >= 2 && pprof_is_gzip(in + at, len - at)) {
		size_t used_in = 0, used_out = 0;
		enum libdeflate_result r = libdeflate_gzip_decompress_ex(
			d, in + at, len - at, buf + n, cap - n, &used_in, &used_out);
		if (r == LIBDEFLATE_INSUFFICIENT_SPACE && cap <= most / 2) {
			uint8_t *b = realloc(buf, cap * 2);
			ok = b != NULL;
			buf = ok ? b : buf;
			cap *= 2;
			plumb_advise_huge(buf, cap);
			continue; /* this member again, with room */
		}
		ok = r == LIBDEFLATE_SUCCESS;
		at += used_in;
		n += used_out;
	}
	libdeflate_free_decompressor(d);
	if (!ok || at == 0) {
		free(buf);
		return false;
	}
	*out = buf;
	*out_len = n;
	return true;
}

int pprof_gunzip(const char *path, const uint8_t *in, size_t len, uint8_t **out, size_t *out_len,
		 plumb_error *err)
{
	if (gunzip_fast(in, len, out, out_len))
		return 0;
	z_stream zs = { 0 };
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return plumb_fail_nomem(err);
	size_t cap = len * 4 + 4096, n = 0;
	uint8_t *buf = malloc(cap);
	int rc = buf ? 0 : plumb_fail_nomem(err);
	zs.next_in = (Bytef *)in;
	while (rc == 0) {
		if (n == cap) {
			uint8_t *b = cap < SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
			if (!b) {
				rc = plumb_fail_nomem(err);
				break;
			}
			buf = b;
			cap *= 2;
		}
		/* zlib counts in uInt: feed at most 1 GiB a call; take at most
		 * 16 MiB, so that the bound below is checked on the way */
		size_t left_in = len - (size_t)(zs.next_in - in);
		zs.avail_in = (uInt)(left_in < (1u << 30) ? left_in : (1u << 30));
		zs.next_out = buf + n;
		zs.avail_out = (uInt)(cap - n < (16u << 20) ? cap - n : (16u << 20));
		uInt before = zs.avail_out;
		int z = inflate(&zs, Z_NO_FLUSH);
		n += before - zs.avail_out;
		if (n > PPROF_GZIP_FLOOR && n / PPROF_GZIP_RATIO > len) {
			rc = plumb_fail(err, PLUMB_ERR_FORMAT, "%s: the gzip data expands more than %d "
					"times (past %zu MiB from %zu bytes): a gzip bomb, not a profile",
					path, PPROF_GZIP_RATIO, n >> 20, len);
			break;
		}
		left_in = len - (size_t)(zs.next_in - in);
		if (z == Z_STREAM_END) {
			/* another member may follow (cat a.gz b.gz) */
			if (left_in >= 2 && pprof_is_gzip(zs.next_in, left_in)) {
				if (inflateReset(&zs) != Z_OK)
					rc = plumb_fail_nomem(err);
				continue;
			}
			break;
		}
		if (z == Z_BUF_ERROR && left_in == 0) {
			rc = plumb_fail(err, PLUMB_ERR_FORMAT, "%s: byte %zu: expected more gzip data, "
					"got the end of the file", path, len);
			break;
		}
		if (z != Z_OK && z != Z_BUF_ERROR) {
			rc = z == Z_MEM_ERROR ? plumb_fail_nomem(err)
					      : plumb_fail(err, PLUMB_ERR_FORMAT, "%s: byte %zu: expected "
							   "gzip data, got damaged data (%s)", path,
							   (size_t)(zs.next_in - in),
							   zs.msg ? zs.msg : "inflate failed");
			break;
		}
	}
	inflateEnd(&zs);
	if (rc) {
		free(buf);
		return -1;
	}
	*out = buf;
	*out_len = n;
	return 0;
}

size_t pprof_gunzip_head(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
	z_stream zs = { 0 };
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return 0;
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)(len < (1u << 30) ? len : (1u << 30));
	zs.next_out = out;
	zs.avail_out = (uInt)(cap < (1u << 30) ? cap : (1u << 30));
	uInt before = zs.avail_out;
	(void)inflate(&zs, Z_SYNC_FLUSH);
	size_t n = before - zs.avail_out;
	inflateEnd(&zs);
	return n;
}
