/* Event names as perf spells them -> perf_event_attr type and config. */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/analysis.h"
#include "plumb/record.h"

static const struct named_event {
	const char *name;
	uint32_t type;
	uint64_t config;
} named[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

/* "r1a8": a raw PMU event, hex digits after r. */
static bool parse_raw(const char *s, size_t len, uint64_t *config)
{
	if (len < 2 || len > 17 || s[0] != 'r')
		return false;
	uint64_t v = 0;
	for (size_t i = 1; i < len; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*config = v;
	return true;
}

/* ":u", ":k", ":p", ":pp", ":ukp"... after the name. */
static int parse_modifiers(const char *m, size_t len, plumb_rec_event_spec *e, plumb_error *err)
{
	bool u = false, k = false;
	for (size_t i = 0; i < len; i++) {
		if (m[i] == 'u')
			u = true;
		else if (m[i] == 'k')
			k = true;
		else if (m[i] == 'p' && e->precise < 3)
			e->precise++;
		else
			return plumb_fail(err, PLUMB_ERR_USAGE, "event '%s': unknown modifier '%.*s' "
					  "(u, k, p, pp, ppp)", e->name, (int)len, m);
	}
	if (u || k) {
		e->exclude_user = !u;
		e->exclude_kernel = !k;
	}
	return 0;
}

static int unknown_event(const char *name, plumb_error *err);

/* "period=N" or "freq=N", perf's terms between slashes, comma-separated. */
static int parse_terms(const char *t, size_t len, plumb_rec_event_spec *e, plumb_error *err)
{
	while (len > 0) {
		const char *comma = memchr(t, ',', len);
		size_t n = comma ? (size_t)(comma - t) : len;
		const char *eq = memchr(t, '=', n);
		size_t klen = eq ? (size_t)(eq - t) : n;
		bool period = klen == 6 && memcmp(t, "period", 6) == 0;
		bool freq = klen == 4 && memcmp(t, "freq", 4) == 0;
		if (!period && !freq)
			return plumb_fail(err, PLUMB_ERR_USAGE, "event '%s': unknown term '%.*s' (period=N "
					  "or freq=N)", e->name, (int)n, t);
		uint64_t v = 0;
		size_t i = klen + 1;
		bool ok = eq && i < n;
		for (; ok && i < n; i++) {
			if (t[i] < '0' || t[i] > '9' || v > (UINT64_MAX - 9) / 10)
				ok = false;
			else
				v = v * 10 + (uint64_t)(t[i] - '0');
		}
		if (!ok || v == 0)
			return plumb_fail(err, PLUMB_ERR_USAGE, "event '%s': %.*s expects a positive number, "
					  "got '%.*s'", e->name, (int)klen, t, (int)n, t);
		if (freq && v > 1000000)
			return plumb_fail(err, PLUMB_ERR_USAGE, "event '%s': freq=%" PRIu64 " is above "
					  "1000000 Hz", e->name, v);
		if (period)
			e->period = v;
		else
			e->freq = v;
		if (e->period && e->freq)
			return plumb_fail(err, PLUMB_ERR_USAGE, "event '%s': period= and freq= exclude "
					  "each other", e->name);
		if (!comma)
			break;
		len -= n + 1;
		t = comma + 1;
	}
	return 0;
}

/* One event "name[/terms/][[:]mods]" of len bytes. */
static int parse_one(const char *s, size_t len, plumb_rec_event_spec *e, plumb_error *err)
{
	memset(e, 0, sizeof *e);
	/* user space only unless :k says otherwise (kernel samples need
	 * privileges at perf_event_paranoid 2) */
	e->exclude_kernel = true;
	const char *slash = memchr(s, '/', len);
	const char *colon = memchr(s, ':', slash ? (size_t)(slash - s) : len);
	size_t nlen = slash ? (size_t)(slash - s) : colon ? (size_t)(colon - s) : len;
	if (nlen == 0 || nlen >= sizeof e->name)
		return plumb_fail(err, PLUMB_ERR_USAGE, "event '%.*s': bad name", (int)len, s);
	memcpy(e->name, s, nlen);
	size_t i;
	for (i = 0; i < sizeof named / sizeof *named; i++)
		if (strcmp(named[i].name, e->name) == 0)
			break;
	if (i < sizeof named / sizeof *named) {
		e->type = named[i].type;
		e->config = named[i].config;
	} else if (parse_raw(s, nlen, &e->config)) {
		e->type = PERF_TYPE_RAW;
	} else {
		return unknown_event(e->name, err);
	}
	if (slash) {
		/* "name/period=N/" then, as perf allows, "u" or ":u" */
		const char *end = memchr(slash + 1, '/', len - nlen - 1);
		if (!end)
			return plumb_fail(err, PLUMB_ERR_USAGE, "event '%.*s': expected a '/' after the "
					  "terms (name/period=N/)", (int)len, s);
		if (parse_terms(slash + 1, (size_t)(end - slash - 1), e, err))
			return -1;
		const char *m = end + 1;
		size_t mlen = len - (size_t)(m - s);
		if (mlen && *m == ':') {
			m++;
			mlen--;
		}
		return mlen ? parse_modifiers(m, mlen, e, err) : 0;
	}
	return colon ? parse_modifiers(colon + 1, len - nlen - 1, e, err) : 0;
}

/* An unknown name, with the nearest known ones. */
static int unknown_event(const char *name, plumb_error *err)
{
	plumb_suggestions sg;
	plumb_suggest_init(&sg, name);
	for (size_t i = 0; i < sizeof named / sizeof *named; i++)
		plumb_suggest_add(&sg, named[i].name);
	char near[256];
	plumb_suggest_format(&sg, "'", "'", near, sizeof near);
	return plumb_fail(err, PLUMB_ERR_USAGE, "unknown event '%s'%s%s%s (cpu-clock, task-clock, "
			  "page-faults, minor-faults, major-faults, context-switches, "
			  "cpu-migrations, cycles, instructions, cache-misses, ..., rNNNN)", name,
			  *near ? "; did you mean " : "", near, *near ? "?" : "");
}

/* The comma that ends an event: not one between its slashes
 * ("cpu-clock/period=1,freq=2/" is one event, however wrong). */
static const char *next_comma(const char *s)
{
	bool inside = false;
	for (; *s; s++) {
		if (*s == '/')
			inside = !inside;
		else if (*s == ',' && !inside)
			return s;
	}
	return NULL;
}

int plumb_rec_parse_events(const char *list, plumb_rec_event_spec **out, size_t *n,
			   plumb_error *err)
{
	*out = NULL;
	*n = 0;
	size_t cap = 1;
	for (const char *c = list; *c; c++)
		cap += *c == ',';
	plumb_rec_event_spec *v = calloc(cap, sizeof *v);
	if (!v)
		return plumb_fail_nomem(err);
	const char *s = list;
	for (;;) {
		const char *comma = next_comma(s);
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		if (parse_one(s, len, &v[*n], err)) {
			free(v);
			*n = 0;
			return -1;
		}
		for (size_t j = 0; j < *n; j++)
			if (strcmp(v[j].name, v[*n].name) == 0) {
				plumb_fail(err, PLUMB_ERR_USAGE, "event '%s' given twice", v[j].name);
				free(v);
				*n = 0;
				return -1;
			}
		++*n;
		if (!comma)
			break;
		s = comma + 1;
	}
	*out = v;
	return 0;
}
