/* aprof reports (input-sensitive profiles, seed 000 and docs/aprof.md):
 * every version from 0 to 6. One file is one part (a thread: aprof writes
 * one report per thread). The header goes to the profile's points_info and
 * metadata, each r line to a function, each p or q line to a performance
 * point; q lines name contexts that only the x lines at the end define,
 * so they wait for them (aprof_contexts.c). So that the views built on self
 * costs work too, a routine point's self sum is the call-graph self cost of
 * the routine and a context point's the CCT self cost of its node. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/aprof_read.h"
#include "formats/quote.h"
#include "model/index.h"

const aprof_field_name aprof_field_names[] = {
	{ PLUMB_PT_MIN_MAX, "min-max" },
	{ PLUMB_PT_SUM, "sum" },
	{ PLUMB_PT_SQR, "sqr" },
	{ PLUMB_PT_REAL, "real" },
	{ PLUMB_PT_SELF, "self" },
	{ PLUMB_PT_SELF_MIN_MAX, "self-min-max" },
	{ PLUMB_PT_SELF_SQR, "self-sqr" },
	{ PLUMB_PT_INPUT_STATS, "input-stats" },
	{ 0, NULL },
};

bool aprof_parse_u64(const char *s, size_t n, uint64_t *out)
{
	if (n == 0)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* ---- messages ------------------------------------------------------------ */

int aprof_bad(aprof_reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = plumb_vfail_at(r->err, PLUMB_ERR_FORMAT, r->path, r->lineno, fmt, ap);
	va_end(ap);
	return rc;
}

int aprof_bad_at(aprof_reader *r, plumb_status code, uint64_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = plumb_vfail_at(r->err, code, r->path, line, fmt, ap);
	va_end(ap);
	return rc;
}

/* "FILE:LINE: message", or "FILE: message" at the end of the file. */
void aprof_warn(aprof_reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	plumb_vwarn_at(r->opts, r->path, r->lineno, fmt, ap);
	va_end(ap);
}

/* ---- fields -------------------------------------------------------------- */

/* The only field of a header line. */
static int one_token(aprof_reader *r, char tag, const char *s, const char *end, const char **tok,
		     size_t *len, const char *what)
{
	const char *extra;
	size_t elen;
	if (!aprof_token(&s, end, tok, len))
		return aprof_bad(r, "expected %s after \"%c\", got nothing", what, tag);
	if (aprof_token(&s, end, &extra, &elen)) {
		char q[PLUMB_QUOTE_SIZE];
		return aprof_bad(r, "expected only %s after \"%c\", got also %s", what, tag,
				 plumb_quote_input(q, sizeof q, extra, elen));
	}
	return 0;
}

static int header_number(aprof_reader *r, char tag, const char *s, const char *end, uint64_t max,
			 const char *what, uint64_t *out)
{
	const char *tok;
	size_t len;
	if (one_token(r, tag, s, end, &tok, &len, what))
		return -1;
	if (!aprof_parse_u64(tok, len, out) || *out > max) {
		char q[PLUMB_QUOTE_SIZE];
		return aprof_bad(r, "expected %s (a decimal number of at most %" PRIu64 ") after \"%c\", got %s",
				 what, max, tag, plumb_quote_input(q, sizeof q, tok, len));
	}
	return 0;
}

/* A name: "raw bytes" between quotes (no escaping: aprof writes names as
 * they are), or, in version 0 reports, a token without quotes. */
static int name_field(aprof_reader *r, const char **s, const char *end, const char *what,
		      plumb_id *out)
{
	const char *p = *s;
	while (p < end && *p == ' ')
		p++;
	const char *b, *e;
	if (p < end && *p == '"') {
		b = p + 1;
		e = memchr(b, '"', (size_t)(end - b));
		if (!e)
			return aprof_bad(r, "expected %s between double quotes, got no closing quote", what);
		p = e + 1;
		if (p < end && *p != ' ') {
			char q[PLUMB_QUOTE_SIZE];
			return aprof_bad(r, "expected a space after the quoted %s, got %s (a name cannot "
					 "hold a double quote)", what, plumb_quote_input(q, sizeof q, p, (size_t)(end - p)));
		}
	} else {
		size_t n;
		if (!aprof_token(&p, end, &b, &n))
			return aprof_bad(r, "expected %s, got nothing", what);
		e = b + n;
	}
	*s = p;
	*out = plumb_intern_n(r->p, b, (size_t)(e - b));
	return *out == PLUMB_NONE ? plumb_fail_nomem(r->err) : 0;
}

/* A routine id: its index, or an error naming the line that should have
 * declared it. */
static int routine_ref(aprof_reader *r, const char **s, const char *end, char tag, uint32_t *out)
{
	const char *tok;
	size_t len;
	uint64_t id;
	char q[PLUMB_QUOTE_SIZE];
	if (!aprof_token(s, end, &tok, &len))
		return aprof_bad(r, "expected a routine id after \"%c\", got nothing", tag);
	if (!aprof_parse_u64(tok, len, &id))
		return aprof_bad(r, "expected a routine id (a decimal number of at most 64 bits) after "
				 "\"%c\", got %s", tag, plumb_quote_input(q, sizeof q, tok, len));
	*out = aprof_idmap_get(&r->routine_ix, id);
	if (*out == PLUMB_NONE)
		return aprof_bad(r, "routine %" PRIu64 " was not declared (expected an \"r\" line with "
				 "id %" PRIu64 " before this line)", id, id);
	return 0;
}

/* ---- routines ------------------------------------------------------------ */

int aprof_routine_function(aprof_reader *r, uint32_t i)
{
	aprof_routine *rt = &r->routines.v[i];
	if (rt->fn != PLUMB_NONE)
		return 0;
	plumb_profile *p = r->p;
	plumb_id mod = PLUMB_NONE;
	if (rt->object != PLUMB_NONE &&
	    (mod = plumb_module_intern(p, plumb_str(p, rt->object), NULL)) == PLUMB_NONE)
		return plumb_fail_nomem(r->err);
	const char *mangled = rt->mangled != PLUMB_NONE ? plumb_str(p, rt->mangled) : NULL;
	rt->fn = plumb_function_intern(p, plumb_str(p, rt->name), mangled, mod, PLUMB_NONE, 0);
	if (rt->fn == PLUMB_NONE)
		return plumb_fail_nomem(r->err);
	rt->frame = plumb_frame_intern(p, rt->fn, PLUMB_NONE, 0, 0);
	return rt->frame == PLUMB_NONE ? plumb_fail_nomem(r->err) : 0;
}

/* r "name" "object" id, with a fourth number in some development builds
 * of version 6 (a count of distinct input sizes), which is skipped. */
static int routine_line(aprof_reader *r, const char *s, const char *end)
{
	aprof_routine rt = { .mangled = PLUMB_NONE, .fn = PLUMB_NONE, .frame = PLUMB_NONE,
			     .line = r->lineno };
	if (name_field(r, &s, end, "the routine name", &rt.name) ||
	    name_field(r, &s, end, "the routine's object file", &rt.object))
		return -1;
	if (strcmp(plumb_str(r->p, rt.object), "NONE") == 0)
		rt.object = PLUMB_NONE;
	const char *tok, *extra;
	size_t len, elen;
	uint64_t id, skip;
	char q[PLUMB_QUOTE_SIZE];
	if (!aprof_token(&s, end, &tok, &len))
		return aprof_bad(r, "expected a routine id after the object file, got nothing");
	if (!aprof_parse_u64(tok, len, &id))
		return aprof_bad(r, "expected a routine id (a decimal number of at most 64 bits), got %s",
				 plumb_quote_input(q, sizeof q, tok, len));
	if (aprof_token(&s, end, &extra, &elen) &&
	    (!aprof_parse_u64(extra, elen, &skip) || aprof_token(&s, end, &extra, &elen)))
		return aprof_bad(r, "expected only \"name\" \"object\" id after \"r\", got also %s",
				 plumb_quote_input(q, sizeof q, extra, elen));
	uint32_t old = aprof_idmap_get(&r->routine_ix, id);
	if (old != PLUMB_NONE)
		return aprof_bad(r, "expected each routine id once, got %" PRIu64 " again (first on line %"
				 PRIu64 ")", id, r->routines.v[old].line);
	if (r->routines.n >= PLUMB_NONE - 1)
		return aprof_bad(r, "expected fewer than 2^32 routines");
	/* the routine before is complete (u and d lines follow their r line):
	 * its function now, so that functions keep the file's order */
	if (r->routines.n > 0 && aprof_routine_function(r, (uint32_t)r->routines.n - 1))
		return -1;
	uint32_t idx = (uint32_t)r->routines.n;
	if (plumb_vec_push(r->routines, rt) || aprof_idmap_put(&r->routine_ix, id, idx))
		return plumb_fail_nomem(r->err);
	return 0;
}

/* u id "mangled" (and the 2011 d id "demangled", when r held the mangled
 * name). Once the routine's function exists, a late u line can still give
 * it a mangled name it lacks; a late d line changes nothing. */
static int name_line(aprof_reader *r, char tag, const char *s, const char *end)
{
	uint32_t i;
	plumb_id name;
	if (routine_ref(r, &s, end, tag, &i) ||
	    name_field(r, &s, end, tag == 'u' ? "the mangled name" : "the demangled name", &name))
		return -1;
	const char *extra;
	size_t elen;
	char q[PLUMB_QUOTE_SIZE];
	if (aprof_token(&s, end, &extra, &elen))
		return aprof_bad(r, "expected only id \"name\" after \"%c\", got also %s", tag,
				 plumb_quote_input(q, sizeof q, extra, elen));
	aprof_routine *rt = &r->routines.v[i];
	if (rt->fn != PLUMB_NONE) {
		plumb_function *fn = &r->p->functions.v[rt->fn];
		if (tag == 'u' && fn->mangled == PLUMB_NONE && name != fn->name)
			fn->mangled = name; /* not part of a function's identity */
		return 0;
	}
	if (tag == 'u') {
		rt->mangled = name;
	} else {
		if (rt->mangled == PLUMB_NONE)
			rt->mangled = rt->name;
		rt->name = name;
	}
	if (rt->mangled == rt->name)
		rt->mangled = PLUMB_NONE;
	return 0;
}

/* ---- header -------------------------------------------------------------- */

/* The cost metric's event: the m line's name, "cost" when there is none
 * (aprof's wiki says bb-count then, but no reader can be sure). Several
 * files must agree. */
static int setup_event(aprof_reader *r)
{
	plumb_profile *p = r->p;
	const char *name = r->metric ? r->metric : "cost";
	if (p->events.n > 0) {
		const char *first = plumb_str(p, p->events.v[0].name);
		if (p->events.n != 1 || strcmp(first, name) != 0)
			return plumb_fail(r->err, PLUMB_ERR_FORMAT,
					  "%s: expected the cost metric of the reports read before (\"%s\"), "
					  "got \"%s\"", r->path, first, name);
		return 0;
	}
	static const struct { const char *name, *long_name, *unit; } known[] = {
		{ "bb-count", "Basic blocks executed", "basic blocks" },
		{ "time-usec", "Elapsed time", "us" },
		{ "vex-instr", "VEX instructions executed", "instructions" },
	};
	const char *long_name = NULL, *unit = NULL;
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (strcmp(known[i].name, name) == 0) {
			long_name = known[i].long_name;
			unit = known[i].unit;
		}
	plumb_error e2;
	if (plumb_event_add(p, name, long_name, unit, &e2) < 0)
		return plumb_fail(r->err, e2.code, "%s: %s", r->path, e2.message);
	return 0;
}

static int open_part(aprof_reader *r);

/* The first routine, point or context line: the version and the cost
 * metric are settled, and the part is made (after the event: the root's
 * cost slots are sized by the events). */
static int begin_data(aprof_reader *r)
{
	if (r->in_data)
		return 0;
	r->in_data = true;
	if (r->version < 0)
		r->version = 0; /* no v line: version 0 */
	return setup_event(r) || open_part(r) ? -1 : 0;
}

/* "c plumb-missing: sum sqr": which fields the next points lack. */
static void comment_line(aprof_reader *r, const char *s, const char *end)
{
	const char *tok;
	size_t len;
	if (!aprof_token(&s, end, &tok, &len) || len != strlen(APROF_MISSING_TAG) ||
	    memcmp(tok, APROF_MISSING_TAG, len) != 0)
		return;
	r->missing = 0;
	while (aprof_token(&s, end, &tok, &len))
		for (const aprof_field_name *f = aprof_field_names; f->name; f++)
			if (strlen(f->name) == len && memcmp(f->name, tok, len) == 0)
				r->missing |= f->bit;
}

static int text_meta(aprof_reader *r, const char *key, const char *s, const char *end)
{
	if (s < end && *s == ' ')
		s++;
	char *v = strndup(s, (size_t)(end - s));
	if (!v)
		return plumb_fail_nomem(r->err);
	int rc = plumb_meta_set(r->p, key, v, r->err);
	free(v);
	return rc;
}

static int word_header(aprof_reader *r, char tag, const char *s, const char *end)
{
	const char *tok;
	size_t len;
	if (one_token(r, tag, s, end, &tok, &len, tag == 'm' ? "a cost metric" : "an input metric"))
		return -1;
	if (tag == 'i') {
		r->info.input_metric = plumb_intern_n(r->p, tok, len);
		return r->info.input_metric == PLUMB_NONE ? plumb_fail_nomem(r->err) : 0;
	}
	if (r->in_data)
		return aprof_bad(r, "expected the \"m\" line before the first routine");
	free(r->metric);
	r->metric = strndup(tok, len);
	return r->metric ? 0 : plumb_fail_nomem(r->err);
}

static int header_line(aprof_reader *r, char tag, const char *s, const char *end)
{
	uint64_t v;
	switch (tag) {
	case 'v':
		if (r->in_data)
			return aprof_bad(r, "expected the \"v\" line before the first routine");
		if (header_number(r, tag, s, end, UINT64_MAX, "a report version", &v))
			return -1;
		if (v > 6)
			return aprof_bad_at(r, PLUMB_ERR_UNSUPPORTED, r->lineno,
					    "expected a report version from 0 to 6, got %" PRIu64, v);
		r->version = (int)v;
		return 0;
	case 'k':
		return header_number(r, tag, s, end, UINT64_MAX, "the total cost", &r->info.total_cost);
	case 'e':
		if (header_number(r, tag, s, end, INT64_MAX, "the executable's mtime", &v))
			return -1;
		r->info.exe_mtime = (int64_t)v;
		return 0;
	case 't':
		if (header_number(r, tag, s, end, UINT32_MAX, "the memory resolution", &v))
			return -1;
		r->info.memres = (uint32_t)v;
		return 0;
	case 'm':
	case 'i':
		return word_header(r, tag, s, end);
	case 'a':
		return text_meta(r, "exe", s, end);
	default: /* 'f' */
		return text_meta(r, "cmd", s, end);
	}
}

/* ---- lines --------------------------------------------------------------- */

static int skipped_line(aprof_reader *r, bool *warned, const char *what)
{
	if (!*warned) {
		*warned = true;
		aprof_warn(r, "%s skipped", what);
	}
	return 0;
}

static int one_line(aprof_reader *r, const char *s, const char *end)
{
	const char *nul = memchr(s, '\0', (size_t)(end - s));
	if (nul)
		return aprof_bad(r, "expected text, got a NUL byte at column %zu", (size_t)(nul - s) + 1);
	if (s == end)
		return 0;
	const char *t = s;
	while (t < end && *t != ' ')
		t++;
	size_t tlen = (size_t)(t - s);
	char tag = tlen == 1 ? *s : 0;
	if (tlen == 3 && memcmp(s, "fav", 3) == 0)
		return skipped_line(r, &r->warned_fav, "\"fav\" lines (aprof-plot's favourites)");
	switch (tag) {
	case 'c':
		comment_line(r, t, end);
		return 0;
	case 'v': case 'k': case 'e': case 'm': case 'i': case 't': case 'a': case 'f':
		return header_line(r, tag, t, end);
	case 'g':
		return skipped_line(r, &r->warned_g, "\"g\" lines (distinct input sizes of a development "
				    "build of aprof)");
	case 'r':
		return begin_data(r) || routine_line(r, t, end) ? -1 : 0;
	case 'u':
	case 'd':
		return begin_data(r) || name_line(r, tag, t, end) ? -1 : 0;
	case 'p':
	case 'q':
		return begin_data(r) || aprof_point_line(r, tag, t, end) ? -1 : 0;
	case 'x':
		return begin_data(r) || aprof_context_line(r, t, end) ? -1 : 0;
	default: {
		char q[PLUMB_QUOTE_SIZE];
		return aprof_bad(r, "expected a line tag among c v k e m i t a f r u d p q x, got %s",
				 plumb_quote_input(q, sizeof q, s, tlen ? tlen : (size_t)(end - s)));
	}
	}
}

/* ---- the part: a thread, named as aprof names its reports ----------------
 * <exe>_<PID>_<TID-1>_<memres>.aprof, where TID-1 has 1024 + n added when
 * the name was taken (the thread is then not known). */
static bool name_number(const char *s, size_t n, uint64_t *v)
{
	return aprof_parse_u64(s, n, v);
}

static int open_part(aprof_reader *r)
{
	const char *base = strrchr(r->path, '/');
	base = base ? base + 1 : r->path;
	int64_t pid = -1, tid = -1;
	size_t n = strlen(base);
	const char *ext = ".aprof";
	if (n > strlen(ext) && strcmp(base + n - strlen(ext), ext) == 0) {
		size_t end = n - strlen(ext), cut[3];
		int k = 0;
		for (size_t i = end; i > 0 && k < 3; i--)
			if (base[i - 1] == '_')
				cut[k++] = i - 1;
		uint64_t memres, t1, pd;
		if (k == 3 && cut[2] > 0 && name_number(base + cut[0] + 1, end - cut[0] - 1, &memres) &&
		    name_number(base + cut[1] + 1, cut[0] - cut[1] - 1, &t1) &&
		    name_number(base + cut[2] + 1, cut[1] - cut[2] - 1, &pd) && pd <= INT64_MAX) {
			pid = (int64_t)pd;
			tid = t1 < 1024 ? (int64_t)t1 + 1 : -1;
		}
	}
	r->part = plumb_part_add(r->p, PLUMB_PART_THREAD, base, pid, tid);
	return r->part == PLUMB_NONE ? plumb_fail_nomem(r->err) : 0;
}

/* ---- the file ------------------------------------------------------------ */

static int finish(aprof_reader *r)
{
	r->lineno = 0;
	if (begin_data(r) || aprof_resolve_contexts(r))
		return -1;
	for (size_t i = 0; i < r->routines.n; i++)
		if (aprof_routine_function(r, (uint32_t)i))
			return -1;
	r->info.version = r->version;
	plumb_error e2;
	if (plumb_points_info_add(r->p, &r->info, &e2))
		return plumb_fail(r->err, e2.code, "%s: %s", r->path, e2.message);
	if (r->no_self)
		aprof_warn(r, "%" PRIu64 " point%s without self costs (report version %d): views of self "
			   "cost (flat, tree) do not count %s", r->no_self, r->no_self == 1 ? "" : "s",
			   r->version, r->no_self == 1 ? "it" : "them");
	return 0;
}

int plumb_aprof_read(plumb_profile *p, const char *path, const plumb_read_opts *opts,
		     plumb_error *err)
{
	plumb_read_opts none = { 0 };
	aprof_reader r = { .p = p, .path = path, .opts = opts ? opts : &none, .err = err,
			   .version = -1, .block = { .fn = PLUMB_NONE } };
	plumb_points_info_init(&r.info);
	if (plumb_linesrc_open(&r.src, path, err))
		return -1;
	r.src.progress = r.opts->progress;
	r.src.progress_ctx = r.opts->progress_ctx;
	int rc = 0, got = 0;
	char *line;
	size_t len;
	while (rc == 0 && (got = plumb_linesrc_next(&r.src, &line, &len, err)) == 1) {
		r.lineno++;
		if (len > 0 && line[len - 1] == '\r')
			len--;
		rc = one_line(&r, line, line + len);
	}
	if (rc == 0 && got < 0)
		rc = -1;
	if (rc == 0)
		rc = finish(&r);
	plumb_linesrc_close(&r.src);
	free(r.metric);
	free(r.routines.v);
	free(r.qs.v);
	free(r.contexts.v);
	aprof_idmap_free(&r.routine_ix);
	aprof_idmap_free(&r.context_ix);
	aprof_block_free(&r.block);
	return rc;
}
