/* Time ranges of a recording (plumb report --time): the samples of a span
 * of time, as a profile of their own. A recording's costs are the sums of
 * its samples' weights, so a slice is exact: the node costs are summed
 * again from the samples kept. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/analysis.h"

/* One side of a range: "" (open), "12.5" or "40%". */
static int parse_side(const char *s, size_t len, double *v, bool *has, bool *pct, plumb_error *err,
		      const char *whole)
{
	*has = len > 0;
	*pct = false;
	if (!len)
		return 0;
	char buf[64];
	if (len >= sizeof buf)
		goto bad;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (buf[len - 1] == '%') {
		*pct = true;
		buf[len - 1] = '\0';
	}
	char *end;
	errno = 0;
	*v = strtod(buf, &end);
	if (end == buf || *end || errno || !isfinite(*v) || *v < 0 || (*pct && *v > 100))
		goto bad;
	return 0;
bad:
	return plumb_fail(err, PLUMB_ERR_USAGE,
			  "--time '%s': expected START,END in seconds from the first sample (either "
			  "may be empty: 2.5, or ,10) or A%%-B%% of the recording (0%%-25%%)", whole);
}

int plumb_time_range_parse(const char *s, plumb_time_range *r, plumb_error *err)
{
	memset(r, 0, sizeof *r);
	const char *comma = strchr(s, ',');
	const char *cut = comma;
	/* the percent form: "A%-B%" */
	const char *dash = strstr(s, "%-");
	if (!comma && dash)
		cut = dash + 1;
	bool pct_a = false, pct_b = false;
	if (!cut) {
		if (parse_side(s, strlen(s), &r->start, &r->has_start, &pct_a, err, s))
			return -1;
		if (pct_a || !r->has_start)
			return plumb_fail(err, PLUMB_ERR_USAGE,
					  "--time '%s': expected START,END (seconds) or A%%-B%% (percent)", s);
		return 0; /* "START": to the end */
	}
	if (parse_side(s, (size_t)(cut - s), &r->start, &r->has_start, &pct_a, err, s) ||
	    parse_side(cut + 1, strlen(cut + 1), &r->end, &r->has_end, &pct_b, err, s))
		return -1;
	if ((r->has_start && r->has_end && pct_a != pct_b) || (!comma && !(pct_a && pct_b)))
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "--time '%s': both sides in seconds (START,END) or both in percent (A%%-B%%)", s);
	r->pct = pct_a || pct_b;
	if (r->has_start && r->has_end && r->end < r->start)
		return plumb_fail(err, PLUMB_ERR_USAGE, "--time '%s': the end is before the start", s);
	return 0;
}

int plumb_profile_time_span(const plumb_profile *p, uint64_t *first_ns, uint64_t *last_ns,
			    plumb_error *err)
{
	size_t nev = p->events.n;
	if (p->samples.n == 0)
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "the profile has no timed samples (recordings made by plumb record have)");
	if (p->cg_self.n || p->points.n)
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "the profile holds costs without time (a call graph or performance points)");
	/* every cost must come from a sample, or a slice would lose it silently */
	uint64_t *sum = calloc(2 * (nev ? nev : 1), sizeof *sum);
	if (!sum)
		return plumb_fail_nomem(err);
	int rc = 0;
	for (size_t i = 0; i < p->cct.n && !rc; i++)
		rc = plumb_costs_add(sum, plumb_cct_self(p, (plumb_id)i), nev, err);
	for (size_t i = 0; i < p->samples.n && !rc; i++)
		rc = plumb_costs_add(sum + nev, p->sample_weights.v + i * nev, nev, err);
	if (!rc && memcmp(sum, sum + nev, nev * sizeof *sum) != 0)
		rc = plumb_fail(err, PLUMB_ERR_USAGE,
				"some of the profile's costs carry no time (it was merged with a profile "
				"without samples)");
	free(sum);
	if (rc)
		return -1;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < p->samples.n; i++) {
		uint64_t t = p->samples.v[i].time_ns;
		lo = t < lo ? t : lo;
		hi = t > hi ? t : hi;
	}
	*first_ns = lo;
	*last_ns = hi;
	return 0;
}

/* A bound in ns from the first sample's time. */
static uint64_t bound(double v, bool pct, uint64_t first, uint64_t last)
{
	double off = pct ? (double)(last - first) * v / 100.0 : v * 1e9;
	if (off >= (double)(UINT64_MAX - first))
		return UINT64_MAX;
	return first + (uint64_t)llround(off);
}

int plumb_profile_time_slice(const plumb_profile *p, const plumb_time_range *r, plumb_profile **out,
			     size_t *nkept, plumb_error *err)
{
	*out = NULL;
	uint64_t first, last;
	if (plumb_profile_time_span(p, &first, &last, err))
		return -1;
	uint64_t lo = r->has_start ? bound(r->start, r->pct, first, last) : first;
	uint64_t hi = r->has_end ? bound(r->end, r->pct, first, last) : UINT64_MAX;
	plumb_profile *q = plumb_profile_new();
	if (!q)
		return plumb_fail_nomem(err);
	if (plumb_profile_merge(q, p, err)) {
		plumb_profile_free(q);
		return -1;
	}
	size_t nev = q->events.n, kept = 0;
	memset(q->cct_self.v, 0, q->cct_self.n * sizeof *q->cct_self.v);
	for (size_t i = 0; i < q->samples.n; i++) {
		const plumb_sample *s = &q->samples.v[i];
		/* the end is open ([lo, hi)) but for an open range, which keeps the last */
		if (s->time_ns < lo || (r->has_end ? s->time_ns >= hi : s->time_ns > hi))
			continue;
		if (plumb_cct_add_self(q, s->node, q->sample_weights.v + i * nev, err)) {
			plumb_profile_free(q);
			return -1;
		}
		q->samples.v[kept] = *s;
		memmove(q->sample_weights.v + kept * nev, q->sample_weights.v + i * nev, nev * sizeof(uint64_t));
		kept++;
	}
	q->samples.n = kept;
	q->sample_weights.n = kept * nev;
	/* the timeline keeps the recording's clock: seconds from its first sample */
	char v[3][24];
	snprintf(v[0], sizeof v[0], "%" PRIu64, first);
	snprintf(v[1], sizeof v[1], "%" PRIu64, lo);
	snprintf(v[2], sizeof v[2], "%" PRIu64, r->has_end && hi <= last ? hi : last + 1);
	if (plumb_meta_set(q, "time.origin_ns", v[0], err) || plumb_meta_set(q, "time.from_ns", v[1], err) ||
	    plumb_meta_set(q, "time.to_ns", v[2], err)) {
		plumb_profile_free(q);
		return -1;
	}
	if (nkept)
		*nkept = kept;
	*out = q;
	return 0;
}
