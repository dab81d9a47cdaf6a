/* Events: the metrics a profile carries, and derived events computed from
 * them by a linear formula ("Ir + 2 * Dr", Callgrind's `event:` lines). */
#include <assert.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/index.h"

int plumb_event_find(const plumb_profile *p, const char *name)
{
	for (size_t i = 0; i < p->events.n; i++)
		if (strcmp(plumb_str(p, p->events.v[i].name), name) == 0)
			return (int)i;
	return -1;
}

/* Nodes, entries and arcs made before an event was added (a part's root,
 * a reader's first function) have cost vectors of the old width, all zero
 * as no cost has been added yet: give every one the new width. */
static int restride_vec(uint64_t **v, size_t *n, size_t *cap, size_t count, size_t nev)
{
	size_t want = count * nev;
	assert(*n == count * (nev - 1));
	if (count && nev > SIZE_MAX / count)
		return -1;
	if (plumb_vec_reserve_((void **)v, cap, want, sizeof **v))
		return -1;
	if (want)
		memset(*v, 0, want * sizeof **v);
	*n = want;
	return 0;
}

static int restride(plumb_profile *p)
{
	size_t nev = p->events.n;
	return restride_vec(&p->cct_self.v, &p->cct_self.n, &p->cct_self.cap, p->cct.n, nev) ||
	       restride_vec(&p->cg_self_cost.v, &p->cg_self_cost.n, &p->cg_self_cost.cap,
			    p->cg_self.n, nev) ||
	       restride_vec(&p->arc_incl.v, &p->arc_incl.n, &p->arc_incl.cap, p->arcs.n, nev) ||
	       restride_vec(&p->sample_weights.v, &p->sample_weights.n, &p->sample_weights.cap,
			    p->samples.n, nev);
}

static int event_push(plumb_profile *p, const char *name, const char *long_name,
		      const char *unit, plumb_error *err)
{
	if (p->costs_started)
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "event '%s' added after costs: events must come first", name);
	if (!*name)
		return plumb_fail(err, PLUMB_ERR_USAGE, "an event needs a name");
	if (plumb_event_find(p, name) >= 0)
		return plumb_fail(err, PLUMB_ERR_FORMAT, "event '%s' defined twice", name);
	plumb_event e = { plumb_intern(p, name), PLUMB_NONE, PLUMB_NONE, PLUMB_NONE, NULL, 0 };
	if (e.name == PLUMB_NONE || (long_name && (e.long_name = plumb_intern(p, long_name)) == PLUMB_NONE) ||
	    (unit && (e.unit = plumb_intern(p, unit)) == PLUMB_NONE))
		return plumb_fail_nomem(err);
	if (plumb_vec_push(p->events, e))
		return plumb_fail_nomem(err);
	if (restride(p)) {
		p->events.n--;
		return plumb_fail_nomem(err);
	}
	return (int)(p->events.n - 1);
}

int plumb_event_add(plumb_profile *p, const char *name, const char *long_name,
		    const char *unit, plumb_error *err)
{
	return event_push(p, name, long_name, unit, err);
}

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* Parse "[+|-] [N [*]] name" terms: Callgrind writes "2 Dr" as well as "2 * Dr". */
static int parse_formula(const plumb_profile *p, const char *formula, plumb_event_term **out,
			 size_t *nout, plumb_error *err)
{
	PLUMB_VEC(plumb_event_term) terms = { 0 };
	const char *s = skip_space(formula);
	int sign = 1;
	if (!*s)
		return plumb_fail(err, PLUMB_ERR_FORMAT, "empty formula");
	while (*s) {
		int64_t coef = 1;
		if (isdigit((unsigned char)*s)) {
			char *end;
			unsigned long long v = strtoull(s, &end, 10);
			if (v > INT64_MAX)
				goto bad;
			coef = (int64_t)v;
			s = skip_space(end);
			if (*s == '*')
				s = skip_space(s + 1);
		}
		const char *name = s;
		while (*s && !isspace((unsigned char)*s) && *s != '+' && *s != '-' && *s != '*')
			s++;
		if (s == name)
			goto bad;
		char buf[256];
		size_t len = (size_t)(s - name);
		if (len >= sizeof buf)
			goto bad;
		memcpy(buf, name, len);
		buf[len] = '\0';
		int ev = plumb_event_find(p, buf);
		if (ev < 0) {
			free(terms.v);
			return plumb_fail(err, PLUMB_ERR_FORMAT,
					  "formula '%s' names unknown event '%s'", formula, buf);
		}
		plumb_event_term t = { sign * coef, (plumb_id)ev };
		if (plumb_vec_push(terms, t)) {
			free(terms.v);
			return plumb_fail_nomem(err);
		}
		s = skip_space(s);
		if (!*s)
			break;
		if (*s != '+' && *s != '-')
			goto bad;
		sign = *s == '-' ? -1 : 1;
		s = skip_space(s + 1);
		if (!*s)
			goto bad;
	}
	*out = terms.v;
	*nout = terms.n;
	return 0;
bad:
	free(terms.v);
	return plumb_fail(err, PLUMB_ERR_FORMAT,
			  "formula '%s': expected terms like 'Ir + 2 * Dr'", formula);
}

int plumb_event_add_derived(plumb_profile *p, const char *name, const char *long_name,
			    const char *formula, plumb_error *err)
{
	plumb_event_term *terms;
	size_t nterms;
	if (parse_formula(p, formula, &terms, &nterms, err))
		return -1;
	int id = event_push(p, name, long_name, NULL, err);
	plumb_id f = plumb_intern(p, formula);
	if (id < 0 || f == PLUMB_NONE) {
		free(terms);
		return id < 0 ? -1 : plumb_fail_nomem(err);
	}
	p->events.v[id].formula = f;
	p->events.v[id].terms = terms;
	p->events.v[id].nterms = nterms;
	return id;
}

/* Fill the derived slots of every cost vector in an array of rows. */
static int derive_rows(const plumb_profile *p, uint64_t *costs, size_t rows, plumb_error *err)
{
	size_t nev = p->events.n;
	for (size_t r = 0; r < rows; r++) {
		uint64_t *c = costs + r * nev;
		for (size_t e = 0; e < nev; e++) {
			const plumb_event *ev = &p->events.v[e];
			if (!ev->nterms)
				continue;
			__int128 sum = 0;
			for (size_t t = 0; t < ev->nterms; t++)
				sum += (__int128)ev->terms[t].coef * c[ev->terms[t].event];
			if (sum < 0 || sum > (__int128)UINT64_MAX)
				return plumb_fail(err, PLUMB_ERR_OVERFLOW,
						  "derived event '%s' is out of range (negative or over 64 bits)",
						  plumb_str(p, ev->name));
			c[e] = (uint64_t)sum;
		}
	}
	return 0;
}

int plumb_profile_compute_derived(plumb_profile *p, plumb_error *err)
{
	bool any = false;
	for (size_t e = 0; e < p->events.n; e++)
		any |= p->events.v[e].nterms > 0;
	if (!any)
		return 0;
	if (derive_rows(p, p->cct_self.v, p->cct.n, err) ||
	    derive_rows(p, p->cg_self_cost.v, p->cg_self.n, err) ||
	    derive_rows(p, p->arc_incl.v, p->arcs.n, err) ||
	    derive_rows(p, p->sample_weights.v, p->samples.n, err))
		return -1;
	return 0;
}

/* "<what>.<event name>": where an event's period and count are kept. */
static void event_key(const plumb_profile *p, const char *what, int event, char *key, size_t size)
{
	snprintf(key, size, "%s.%s", what, plumb_str(p, p->events.v[event].name));
}

int plumb_event_set_period(plumb_profile *p, int event, uint64_t period, plumb_error *err)
{
	assert(event >= 0 && (size_t)event < p->events.n);
	char key[512], val[32];
	event_key(p, "period", event, key, sizeof key);
	snprintf(val, sizeof val, "%" PRIu64, period);
	return plumb_meta_set(p, key, val, err);
}

uint64_t plumb_event_period(const plumb_profile *p, int event)
{
	if (event < 0 || (size_t)event >= p->events.n)
		return 0;
	char key[512];
	event_key(p, "period", event, key, sizeof key);
	const char *v = plumb_meta_get(p, key);
	if (!v || !*v)
		return 0;
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	return *end || v[0] == '-' ? 0 : (uint64_t)n;
}

uint64_t plumb_event_count(const plumb_profile *p, int event, const char **unit)
{
	if (unit)
		*unit = NULL;
	if (event < 0 || (size_t)event >= p->events.n)
		return 0;
	char key[512];
	event_key(p, "count", event, key, sizeof key);
	const char *v = plumb_meta_get(p, key);
	if (!v || *v < '0' || *v > '9')
		return 0;
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	if (unit && *end == ' ' && end[1])
		*unit = end + 1;
	return (uint64_t)n;
}
