/* speedscope's JSON file format (https://www.speedscope.app/file-format-schema.json;
 * tests/data/speedscope/ keeps a copy): written, not read.
 *
 * One "sampled" profile per part and event with any cost: each calling
 * context with a self cost is one sample, its stack of frame indexes root
 * first, its weight the cost. Frames are shared and are functions: name,
 * file (the source file, else the load module) and first line, so that
 * speedscope's self weight of a frame is plumb's exclusive cost of the
 * function. A profile with only a call graph (Callgrind, gmon.out) has no
 * stacks to give: it is refused with an error that says so.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/formats.h"
#include "plumb/output.h"

#ifndef PLUMB_VERSION
#define PLUMB_VERSION "unknown"
#endif

#define SCHEMA_URL "https://www.speedscope.app/file-format-schema.json"

/* speedscope's units: its own names for the units plumb's events carry. */
static const char *unit_of(const plumb_profile *p, size_t e)
{
	static const struct { const char *ours, *theirs; } units[] = {
		{ "ns", "nanoseconds" }, { "nanoseconds", "nanoseconds" }, { "us", "microseconds" },
		{ "microseconds", "microseconds" }, { "ms", "milliseconds" },
		{ "milliseconds", "milliseconds" }, { "s", "seconds" }, { "seconds", "seconds" },
		{ "bytes", "bytes" }, { "B", "bytes" },
	};
	plumb_id u = p->events.v[e].unit;
	const char *s = u == PLUMB_NONE ? NULL : plumb_str(p, u);
	for (size_t i = 0; s && i < sizeof units / sizeof *units; i++)
		if (strcmp(s, units[i].ours) == 0)
			return units[i].theirs;
	return "none";
}

typedef struct ss_writer {
	const plumb_profile *p;
	FILE *out;
	uint32_t *frame_of;   /* per function: its index in shared.frames + 1, 0: none yet */
	uint32_t nframes;
	uint32_t unknown;     /* the "[unknown]" frame's index + 1 */
	uint32_t *stack;      /* one sample's frames, leaf first */
	size_t stack_cap;
} ss_writer;

static plumb_id function_of(const plumb_profile *p, plumb_id node)
{
	plumb_id fr = p->cct.v[node].frame;
	return fr == PLUMB_NONE ? PLUMB_NONE : p->frames.v[fr].function;
}

/* Number the functions on stacks with a cost, in the order met. */
static int number_frames(ss_writer *w, plumb_error *err)
{
	const plumb_profile *p = w->p;
	w->frame_of = calloc(p->functions.n + 1, sizeof *w->frame_of);
	if (!w->frame_of)
		return plumb_fail_nomem(err);
	for (size_t i = 0; i < p->cct.n; i++) {
		if (p->cct.v[i].parent == PLUMB_NONE)
			continue;
		plumb_id fn = function_of(p, (plumb_id)i);
		uint32_t *slot = fn == PLUMB_NONE ? &w->unknown : &w->frame_of[fn];
		if (!*slot)
			*slot = ++w->nframes;
	}
	return 0;
}

static void write_frames(ss_writer *w)
{
	const plumb_profile *p = w->p;
	/* frames in index order: invert the numbering */
	uint32_t *fn_at = malloc((w->nframes + 1) * sizeof *fn_at);
	fputs("{\"$schema\":\"" SCHEMA_URL "\",\n\"shared\":{\"frames\":[", w->out);
	for (size_t f = 0; fn_at && f < p->functions.n; f++)
		if (w->frame_of[f])
			fn_at[w->frame_of[f] - 1] = (uint32_t)f;
	if (w->unknown && fn_at)
		fn_at[w->unknown - 1] = PLUMB_NONE;
	for (uint32_t i = 0; fn_at && i < w->nframes; i++) {
		plumb_id fn = fn_at[i];
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", w->out);
		const char *name = fn == PLUMB_NONE ? NULL : plumb_function_name(p, fn);
		plumb_json_write_string(w->out, name ? name : "[unknown]");
		const char *file = fn == PLUMB_NONE ? NULL : plumb_function_file(p, fn);
		if (!file && fn != PLUMB_NONE)
			file = plumb_function_module(p, fn);
		if (file) {
			fputs(",\"file\":", w->out);
			plumb_json_write_string(w->out, file);
		}
		if (fn != PLUMB_NONE && p->functions.v[fn].line)
			fprintf(w->out, ",\"line\":%" PRIu32, p->functions.v[fn].line);
		fputc('}', w->out);
	}
	fputs("]},\n", w->out);
	free(fn_at);
}

/* One sample's stack, root first. */
static int write_stack(ss_writer *w, plumb_id node)
{
	const plumb_profile *p = w->p;
	size_t n = 0;
	for (plumb_id x = node; p->cct.v[x].parent != PLUMB_NONE; x = p->cct.v[x].parent) {
		if (n == w->stack_cap) {
			size_t cap = w->stack_cap ? 2 * w->stack_cap : 64;
			uint32_t *s = realloc(w->stack, cap * sizeof *s);
			if (!s)
				return -1;
			w->stack = s;
			w->stack_cap = cap;
		}
		plumb_id fn = function_of(p, x);
		w->stack[n++] = (fn == PLUMB_NONE ? w->unknown : w->frame_of[fn]) - 1;
	}
	fputc('[', w->out);
	for (size_t i = n; i-- > 0;)
		fprintf(w->out, i + 1 < n ? ",%" PRIu32 : "%" PRIu32, w->stack[i]);
	fputc(']', w->out);
	return 0;
}

static void write_name(ss_writer *w, plumb_id part, size_t e)
{
	const plumb_profile *p = w->p;
	const plumb_part *pt = &p->parts.v[part];
	char buf[64];
	const char *name = pt->name != PLUMB_NONE ? plumb_str(p, pt->name) : NULL;
	if (!name) {
		if (pt->kind == PLUMB_PART_THREAD && pt->tid >= 0)
			snprintf(buf, sizeof buf, "thread %" PRId64, pt->tid);
		else if (p->parts.n == 1)
			snprintf(buf, sizeof buf, "%s", "all");
		else
			snprintf(buf, sizeof buf, "part %" PRIu32, (uint32_t)part + 1);
		name = buf;
	}
	if (p->events.n == 1) {
		plumb_json_write_string(w->out, name);
		return;
	}
	size_t len = strlen(name) + strlen(plumb_str(p, p->events.v[e].name)) + 4;
	char *both = malloc(len);
	if (both)
		snprintf(both, len, "%s: %s", name, plumb_str(p, p->events.v[e].name));
	plumb_json_write_string(w->out, both ? both : name);
	free(both);
}

/* The profile of one part and event; *wrote says whether it had a sample. */
static int write_profile(ss_writer *w, plumb_id part, size_t e, bool first, bool *wrote,
			 plumb_error *err)
{
	const plumb_profile *p = w->p;
	size_t nev = p->events.n;
	uint64_t total = 0;
	for (size_t i = 0; i < p->cct.n; i++)
		if (p->cct.v[i].part == part && p->cct.v[i].parent != PLUMB_NONE) {
			uint64_t v = plumb_cct_self(p, (plumb_id)i)[e];
			if (v > UINT64_MAX - total)
				return plumb_fail(err, PLUMB_ERR_OVERFLOW, "speedscope output: a part's total passes 2^64");
			total += v;
		}
	*wrote = total > 0;
	if (!total)
		return 0;
	fputs(first ? "\n{\"type\":\"sampled\",\"name\":" : ",\n{\"type\":\"sampled\",\"name\":", w->out);
	write_name(w, part, e);
	fprintf(w->out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\n\"samples\":[",
		unit_of(p, e), total);
	bool any = false;
	for (size_t i = 0; i < p->cct.n; i++) {
		if (p->cct.v[i].part != part || p->cct.v[i].parent == PLUMB_NONE ||
		    !p->cct_self.v[i * nev + e])
			continue;
		if (any)
			fputs(",\n", w->out);
		any = true;
		if (write_stack(w, (plumb_id)i))
			return plumb_fail_nomem(err);
	}
	fputs("],\n\"weights\":[", w->out);
	any = false;
	for (size_t i = 0; i < p->cct.n; i++) {
		uint64_t v = p->cct_self.v[i * nev + e];
		if (p->cct.v[i].part != part || p->cct.v[i].parent == PLUMB_NONE || !v)
			continue;
		fprintf(w->out, any ? ",%" PRIu64 : "%" PRIu64, v);
		any = true;
	}
	fputs("]}", w->out);
	return 0;
}

int plumb_speedscope_write_stream(const plumb_profile *p, FILE *out, plumb_error *err)
{
	bool stacks = false;
	for (size_t i = 0; i < p->cct.n && !stacks; i++)
		stacks = p->cct.v[i].parent != PLUMB_NONE;
	if (!stacks && (p->cg_self.n || p->arcs.n))
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
				  "speedscope output: expected a profile with call stacks, got one with "
				  "only a call graph (as Callgrind, gmon.out and aprof routine reports give): speedscope's profiles are "
				  "stacks; `plumb report --view flame --format svg` draws a flame graph "
				  "of a call graph");
	ss_writer w = { .p = p, .out = out };
	if (number_frames(&w, err))
		return -1;
	write_frames(&w);
	fputs("\"profiles\":[", out);
	int rc = 0;
	bool first = true;
	for (size_t part = 0; part < p->parts.n && rc == 0; part++)
		for (size_t e = 0; e < p->events.n && rc == 0; e++) {
			bool wrote = false;
			rc = write_profile(&w, (plumb_id)part, e, first, &wrote, err);
			first &= !wrote;
		}
	if (rc == 0) {
		fputs("],\n\"name\":", out);
		const char *cmd = plumb_meta_get(p, "cmd");
		plumb_json_write_string(out, cmd ? cmd : "plumb profile");
		fputs(",\"activeProfileIndex\":0,\"exporter\":\"plumb " PLUMB_VERSION "\"}\n", out);
		if (ferror(out))
			rc = plumb_fail(err, PLUMB_ERR_IO, "cannot write the speedscope file: %s", strerror(errno));
	}
	free(w.frame_of);
	free(w.stack);
	return rc;
}

int plumb_speedscope_write(const plumb_profile *p, const char *path, plumb_error *err)
{
	plumb_atomic_file af;
	if (plumb_atomic_open(&af, path, err) < 0)
		return -1;
	if (plumb_speedscope_write_stream(p, af.fp, err) < 0) {
		plumb_atomic_abort(&af);
		return -1;
	}
	return plumb_atomic_commit(&af, err);
}
