/* Callgrind reader, header side: the "key: value" lines, events (with long
 * names and derived formulas), parts, totals and the metadata that
 * `plumb annotate` shows. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/callgrind_read.h"
#include "model/index.h"

static const char *skip_ws(const char *s, const char *e)
{
	while (s < e && cg_is_space(*s))
		s++;
	return s;
}

static const char *trim_end(const char *s, const char *e)
{
	while (e > s && cg_is_space(e[-1]))
		e--;
	return e;
}

static int meta_n(cg_reader *r, const char *key, const char *v, size_t n)
{
	char *s = strndup(v, n);
	if (!s)
		return plumb_fail_nomem(r->err);
	int rc = plumb_meta_set(r->p, key, s, r->err);
	free(s);
	return rc;
}

/* A decimal number that is the whole value; false if it is not one. */
static bool whole_number(const char *s, const char *e, int64_t *out)
{
	int64_t v = 0;
	if (s == e)
		return false;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9' || v > (INT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return true;
}

static void free_defs(cg_reader *r)
{
	for (size_t i = 0; i < r->ndefs; i++) {
		free(r->defs[i].name);
		free(r->defs[i].formula);
		free(r->defs[i].long_name);
	}
	free(r->defs);
	r->defs = NULL;
	r->ndefs = 0;
}

static void free_events(cg_reader *r)
{
	for (size_t i = 0; i < r->nevents; i++)
		free(r->events[i]);
	free(r->events);
	r->events = NULL;
	r->nevents = 0;
}

void cg_header_free(cg_reader *r)
{
	free_defs(r);
	free_events(r);
	free(r->positions);
	free(r->totals);
	free(r->desc);
	free(r->evmap);
	cg_totals_free(r->deferred);
}

/* ---- single keys ------------------------------------------------------- */

/* "events: Ir Dr Dw" (any spaces): the columns of cost lines. */
static int set_events(cg_reader *r, const char *s, const char *e)
{
	free_events(r);
	for (;;) {
		s = skip_ws(s, e);
		if (s == e)
			break;
		const char *t = s;
		while (t < e && !cg_is_space(*t))
			t++;
		char **ev = realloc(r->events, (r->nevents + 1) * sizeof *ev);
		if (!ev)
			return plumb_fail_nomem(r->err);
		r->events = ev;
		if (!(ev[r->nevents] = strndup(s, (size_t)(t - s))))
			return plumb_fail_nomem(r->err);
		r->nevents++;
		s = t;
	}
	if (r->nevents == 0)
		return cg_bad(r, "expected event names after \"events:\", got none");
	r->events_line = r->lineno;
	r->events_here = true;
	return 0;
}

/* "positions: instr line": which position columns cost lines start with. */
static int set_positions(cg_reader *r, const char *s, const char *e)
{
	int n = 0, addr = -1, line = -1;
	const char *v = s;
	for (;;) {
		s = skip_ws(s, e);
		if (s == e)
			break;
		const char *t = s;
		while (t < e && !cg_is_space(*t))
			t++;
		size_t len = (size_t)(t - s);
		char q[128];
		if (n == CG_MAX_POS - 1)
			return cg_bad(r, "expected at most 3 positions (instr, bb, line), got more");
		if ((len == 5 && memcmp(s, "instr", 5) == 0) || (len == 4 && memcmp(s, "addr", 4) == 0))
			addr = n;
		else if (len == 4 && memcmp(s, "line", 4) == 0)
			line = n;
		else if (!(len == 2 && memcmp(s, "bb", 2) == 0))
			return cg_bad(r, "expected positions among instr, addr, bb and line, got %s",
				      plumb_quote_input(q, sizeof q, s, len));
		n++;
		s = t;
	}
	r->npos = n;
	r->addr_col = addr;
	r->line_col = line;
	free(r->positions);
	if (!(r->positions = strndup(v, (size_t)(e - v))))
		return plumb_fail_nomem(r->err);
	return 0;
}

/* "event: Name [= formula] [: long name]". */
static int add_eventdef(cg_reader *r, const char *s, const char *e)
{
	s = skip_ws(s, e);
	const char *t = s;
	while (t < e && !cg_is_space(*t) && *t != '=' && *t != ':')
		t++;
	char q[128];
	if (t == s)
		return cg_bad(r, "expected \"event: name [= formula] [: long name]\", got %s",
			      plumb_quote_input(q, sizeof q, s, (size_t)(e - s)));
	cg_eventdef d = { .lineno = r->lineno };
	const char *u = skip_ws(t, e), *colon = memchr(u, ':', (size_t)(e - u));
	if (u < e && *u == '=') {
		const char *fe = colon ? colon : e;
		const char *fs = skip_ws(u + 1, fe);
		if (!(d.formula = strndup(fs, (size_t)(trim_end(fs, fe) - fs))))
			return plumb_fail_nomem(r->err);
	} else if (u < e && *u != ':') {
		return cg_bad(r, "expected \"=\" or \":\" after the event name, got %s",
			      plumb_quote_input(q, sizeof q, u, (size_t)(e - u)));
	}
	if (colon) {
		const char *ls = skip_ws(colon + 1, e);
		if (ls < e && !(d.long_name = strndup(ls, (size_t)(e - ls)))) {
			free(d.formula);
			return plumb_fail_nomem(r->err);
		}
	}
	cg_eventdef *defs = realloc(r->defs, (r->ndefs + 1) * sizeof *defs);
	if (!defs || !(d.name = strndup(s, (size_t)(t - s)))) {
		if (defs)
			r->defs = defs;
		free(d.formula);
		free(d.long_name);
		return plumb_fail_nomem(r->err);
	}
	r->defs = defs;
	r->defs[r->ndefs++] = d;
	return 0;
}

static int add_desc(cg_reader *r, const char *s, const char *e)
{
	if (r->nsection > 1)
		return 0; /* the first part's descriptions only */
	size_t n = (size_t)(e - s), need = r->desc_len + n + 2;
	char *d = realloc(r->desc, need);
	if (!d)
		return plumb_fail_nomem(r->err);
	if (r->desc_len)
		d[r->desc_len++] = '\n';
	memcpy(d + r->desc_len, s, n);
	r->desc_len += n;
	d[r->desc_len] = '\0';
	r->desc = d;
	return 0;
}

/* cmd: as typed: callgrind writes a newline as \n and a backslash as \\. */
static int set_cmd(cg_reader *r, const char *s, const char *e)
{
	if (plumb_meta_get(r->p, "cmd"))
		return 0; /* the first one: later threads repeat it */
	char *d = malloc((size_t)(e - s) + 1), *o = d;
	if (!d)
		return plumb_fail_nomem(r->err);
	for (; s < e; s++) {
		if (*s == '\\' && s + 1 < e && (s[1] == 'n' || s[1] == '\\'))
			*o++ = *++s == 'n' ? '\n' : '\\';
		else
			*o++ = *s;
	}
	*o = '\0';
	int rc = plumb_meta_set(r->p, "cmd", d, r->err);
	free(d);
	return rc;
}

static int set_version(cg_reader *r, const char *s, const char *e)
{
	int64_t v;
	char q[128];
	if (!whole_number(s, e, &v))
		return cg_bad(r, "expected a version number, got %s",
			      plumb_quote_input(q, sizeof q, s, (size_t)(e - s)));
	if (v >= 2)
		return cg_bad_code(r, PLUMB_ERR_UNSUPPORTED,
				   "expected Callgrind format version 1, got version %" PRId64, v);
	return plumb_meta_get(r->p, "callgrind.version") ? 0
							  : meta_n(r, "callgrind.version", s, (size_t)(e - s));
}

/* pid:, thread:, part: are numbers; a bad one is ignored with a warning. */
static int set_number(cg_reader *r, const char *key, const char *s, const char *e, int64_t *out)
{
	char q[128];
	if (!whole_number(s, e, out)) {
		cg_warn(r, "expected a number after \"%s:\", got %s; ignored", key,
			plumb_quote_input(q, sizeof q, s, (size_t)(e - s)));
		*out = -1;
		return 0;
	}
	if (strcmp(key, "pid") == 0 && !plumb_meta_get(r->p, "pid"))
		return meta_n(r, "pid", s, (size_t)(e - s));
	if (r->nsection == 1 && strcmp(key, "pid") != 0) {
		char mk[32];
		snprintf(mk, sizeof mk, "callgrind.%s", key);
		return meta_n(r, mk, s, (size_t)(e - s));
	}
	return 0;
}

static int set_totals(cg_reader *r, const char *s, const char *e)
{
	free(r->totals);
	if (!(r->totals = strndup(s, (size_t)(e - s))))
		return plumb_fail_nomem(r->err);
	r->totals_line = r->lineno;
	return meta_n(r, "callgrind.totals", s, (size_t)(e - s));
}

/* ---- sections ------------------------------------------------------------ */

/* A header line after a section's body or totals: starts the next section. */
static int new_section(cg_reader *r)
{
	if (cg_end_section(r))
		return -1;
	r->in_body = false;
	r->events_here = false;
	r->partno = -1;
	free_defs(r);
	r->nsection++;
	cg_reset_names(r);
	return 0;
}

static bool key_is(const char *k, size_t n, const char *want)
{
	return strlen(want) == n && memcmp(k, want, n) == 0;
}

int cg_header_line(cg_reader *r, const char *key, size_t klen, const char *v, const char *e,
		   const char *raw_v)
{
	if (key_is(key, klen, "totals"))
		return set_totals(r, v, e);
	/* totals: ends a section: after it, a header line starts the next one
	 * even if this one had no cost lines (an empty part, as plumb writes) */
	if ((r->in_body || (r->totals && r->events_here)) && new_section(r))
		return -1;
	if (r->nsection == 0)
		r->nsection = 1;
	if (key_is(key, klen, "events"))
		return set_events(r, v, e);
	if (key_is(key, klen, "positions"))
		return set_positions(r, v, e);
	if (key_is(key, klen, "event"))
		return add_eventdef(r, v, e);
	if (key_is(key, klen, "summary"))
		return meta_n(r, "callgrind.summary", v, (size_t)(e - v));
	if (key_is(key, klen, "desc"))
		return add_desc(r, raw_v, raw_v + strlen(raw_v));
	if (key_is(key, klen, "cmd"))
		return set_cmd(r, raw_v, raw_v + strlen(raw_v));
	if (key_is(key, klen, "creator"))
		return plumb_meta_get(r->p, "creator") ? 0 : meta_n(r, "creator", v, (size_t)(e - v));
	if (key_is(key, klen, "version"))
		return set_version(r, v, e);
	if (key_is(key, klen, "pid"))
		return set_number(r, "pid", v, e, &r->pid);
	if (key_is(key, klen, "thread"))
		return set_number(r, "thread", v, e, &r->tid);
	if (key_is(key, klen, "part"))
		return set_number(r, "part", v, e, &r->partno);
	cg_unknown(r, "header line", key, (size_t)(e - key));
	return 0;
}

/* The profile event for the name, added if the profile has no costs yet. */
static int map_event(cg_reader *r, const char *name, uint32_t *out)
{
	int id = plumb_event_find(r->p, name);
	if (id >= 0 && r->p->events.v[id].nterms) {
		r->lineno = r->events_line;
		return cg_bad(r, "expected measured events on the events: line, got the derived event \"%s\"",
			      name);
	}
	if (id < 0 && r->p->costs_started) {
		r->lineno = r->events_line;
		return cg_bad(r, "expected the events of the earlier parts, got the new event \"%s\"", name);
	}
	if (id < 0) {
		const char *long_name = NULL;
		for (size_t i = 0; i < r->ndefs; i++)
			if (!r->defs[i].formula && strcmp(r->defs[i].name, name) == 0)
				long_name = r->defs[i].long_name;
		plumb_error e2;
		if ((id = plumb_event_add(r->p, name, long_name, NULL, &e2)) < 0) {
			r->lineno = r->events_line;
			return cg_bad(r, "bad events: line: %s", e2.message);
		}
	}
	for (size_t i = 0; i < r->nevents && r->events[i] != name; i++)
		if (strcmp(r->events[i], name) == 0) {
			r->lineno = r->events_line;
			return cg_bad(r, "expected each event once on the events: line, got \"%s\" twice",
				      name);
		}
	*out = (uint32_t)id;
	return 0;
}

/* Derived events of this header, added once their terms exist. A bad
 * formula costs the derived event only, so it is a warning. */
static void add_derived(cg_reader *r)
{
	for (size_t i = 0; i < r->ndefs; i++) {
		cg_eventdef *d = &r->defs[i];
		if (!d->formula || plumb_event_find(r->p, d->name) >= 0)
			continue;
		plumb_error e2;
		uint64_t at = r->lineno;
		r->lineno = d->lineno;
		if (r->p->costs_started)
			cg_warn(r, "derived event \"%s\" is new in a later part; ignored", d->name);
		else if (plumb_event_add_derived(r->p, d->name, d->long_name, d->formula, &e2) < 0)
			cg_warn(r, "derived event \"%s\" ignored: %s", d->name, e2.message);
		r->lineno = at;
	}
}

static int size_cost_arrays(cg_reader *r)
{
	size_t nev = r->p->events.n;
	if (nev <= r->cost_slots)
		return 0;
	uint64_t *a = realloc(r->self_cost, nev * sizeof *a);
	if (a)
		r->self_cost = a;
	uint64_t *b = realloc(r->costs, nev * sizeof *b);
	if (b)
		r->costs = b;
	uint64_t *c = realloc(r->sum, nev * sizeof *c);
	if (c)
		r->sum = c;
	if (!a || !b || !c)
		return plumb_fail_nomem(r->err);
	memset(r->self_cost + r->cost_slots, 0, (nev - r->cost_slots) * sizeof *a);
	memset(r->costs + r->cost_slots, 0, (nev - r->cost_slots) * sizeof *b);
	r->cost_slots = nev;
	return 0;
}

static int open_part(cg_reader *r)
{
	char name[64];
	const char *label = NULL;
	if (r->partno >= 0) {
		snprintf(name, sizeof name, "part %" PRId64, r->partno);
		label = name;
	}
	plumb_part_kind kind = r->tid >= 0 ? PLUMB_PART_THREAD : PLUMB_PART_DUMP;
	r->part = plumb_part_add(r->p, kind, label, r->pid, r->tid);
	return r->part == PLUMB_NONE ? plumb_fail_nomem(r->err) : 0;
}

int cg_begin_body(cg_reader *r)
{
	if (r->nsection == 0)
		r->nsection = 1;
	if (!r->events) {
		/* nothing can be counted: a cost before events: (KCachegrind rejects it too) */
		return cg_bad(r, "expected an events: line before the profile data");
	}
	uint64_t at = r->lineno;
	uint32_t *map = realloc(r->evmap, r->nevents * sizeof *map);
	if (!map)
		return plumb_fail_nomem(r->err);
	r->evmap = map;
	for (size_t i = 0; i < r->nevents; i++)
		if (map_event(r, r->events[i], &map[i]))
			return -1;
	r->lineno = at;
	add_derived(r);
	if (size_cost_arrays(r) || open_part(r))
		return -1;
	memset(r->sum, 0, r->p->events.n * sizeof *r->sum);
	r->in_body = true;
	return 0;
}

/* Compare a totals: line with the sums of its section's cost lines. */
void cg_check_totals(cg_reader *r, const cg_totals *t)
{
	const char *s = t->totals, *e = s + strlen(s);
	uint64_t at = r->lineno;
	r->lineno = t->line;
	for (size_t i = 0;; i++) {
		s = skip_ws(s, e);
		if (s == e)
			break;
		const char *u = s;
		uint64_t v = 0;
		bool ok = true;
		for (; u < e && !cg_is_space(*u); u++) {
			if (*u < '0' || *u > '9' || v > (UINT64_MAX - 9) / 10)
				ok = false;
			else
				v = v * 10 + (uint64_t)(*u - '0');
		}
		char q[128];
		if (!ok || i >= t->nevents) {
			cg_warn(r, "totals: %s is not a number of one of the %zu events; not checked",
				plumb_quote_input(q, sizeof q, s, (size_t)(u - s)), t->nevents);
			break;
		}
		uint64_t have = t->sum[t->evmap[i]];
		if (have != v)
			cg_warn(r, "totals: says %" PRIu64 " %s, the cost lines of this part add up to %"
				PRIu64, v, t->events[i], have);
		s = u;
	}
	r->lineno = at;
}

void cg_totals_free(cg_totals *t)
{
	if (!t)
		return;
	free(t->totals);
	for (size_t i = 0; t->events && i < t->nevents; i++)
		free(t->events[i]);
	free(t->events);
	free(t->evmap);
	free(t->sum);
	free(t);
}

/* A later piece's first section: its sums so far and its totals: line (if
 * any), for the check once the earlier piece's sums are added. The NULL
 * warning marks where that check's warnings go among the piece's. */
static int defer_totals(cg_reader *r)
{
	cg_totals *t = calloc(1, sizeof *t);
	size_t nev = r->p->events.n;
	if (!t || !(t->events = calloc(r->nevents ? r->nevents : 1, sizeof *t->events)) ||
	    !(t->evmap = malloc((r->nevents ? r->nevents : 1) * sizeof *t->evmap)) ||
	    !(t->sum = malloc((nev ? nev : 1) * sizeof *t->sum))) {
		cg_totals_free(t);
		return plumb_fail_nomem(r->err);
	}
	t->nevents = r->nevents;
	for (size_t i = 0; i < r->nevents; i++)
		if (!(t->events[i] = strdup(r->events[i]))) {
			cg_totals_free(t);
			return plumb_fail_nomem(r->err);
		}
	memcpy(t->evmap, r->evmap, r->nevents * sizeof *t->evmap);
	memcpy(t->sum, r->sum, nev * sizeof *t->sum);
	t->totals = r->totals; /* the check owns it now */
	t->line = r->totals_line;
	r->totals = NULL;
	r->deferred = t;
	if (r->opts->warn)
		r->opts->warn(r->opts->warn_ctx, NULL);
	return 0;
}

static void check_totals(cg_reader *r)
{
	cg_totals t = { r->totals, r->totals_line, r->nevents, r->events, r->evmap, r->sum };
	cg_check_totals(r, &t);
	free(r->totals);
	r->totals = NULL;
}

int cg_end_section(cg_reader *r)
{
	if (!r->in_body && r->events_here && cg_begin_body(r))
		return -1; /* a header without a body is still a part */
	if (cg_flush_self(r))
		return -1;
	if (r->start_at && !r->skim && r->in_body && r->nsection == r->piece_section && !r->deferred)
		return defer_totals(r);
	if (r->totals && r->in_body)
		check_totals(r);
	return 0;
}

int cg_finish_meta(cg_reader *r)
{
	char n[32];
	snprintf(n, sizeof n, "%" PRIu64, r->jumps);
	if (plumb_meta_set(r->p, "callgrind.jumps", n, r->err) ||
	    plumb_meta_set(r->p, "source", r->path, r->err))
		return -1;
	if (r->positions && plumb_meta_set(r->p, "callgrind.positions", r->positions, r->err))
		return -1;
	if (r->desc && plumb_meta_set(r->p, "callgrind.desc", r->desc, r->err))
		return -1;
	if (r->unknown > 5)
		cg_warn(r, "%" PRIu64 " more unknown lines ignored", r->unknown - 5);
	return 0;
}
