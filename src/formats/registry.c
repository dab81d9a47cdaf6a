/* The formats plumb knows, one row each: detection by content, read/write
 * dispatch, the output names each owns and the messages that list them. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/linesrc.h"
#include "plumb/formats.h"
#include "plumb/store.h"

static const char *const plumb_ext[] = { ".plumb", NULL };
static const char *const callgrind_ext[] = { ".callgrind", ".cg", NULL };
static const char *const callgrind_prefix[] = { "callgrind.out", NULL };
static const char *const gmon_prefix[] = { "gmon.out", NULL };
static const char *const aprof_ext[] = { ".aprof", NULL };
static const char *const pprof_ext[] = { ".pb.gz", ".pprof", ".pb", NULL };
static const char *const folded_ext[] = { ".folded", ".txt", NULL };
static const char *const speedscope_ext[] = { ".speedscope.json", NULL };

/* Detection order matters: the most specific signatures come first. */
static const plumb_format_ops formats[] = {
	{ .id = PLUMB_FMT_PLUMB, .name = "plumb", .description = "plumb profile store (SQLite)",
	  .extensions = plumb_ext, .detect = plumb_store_detect, .read = plumb_store_read,
	  .write = plumb_store_write },
	{ .id = PLUMB_FMT_CALLGRIND, .name = "callgrind",
	  .description = "Callgrind profile (callgrind.out.*)", .extensions = callgrind_ext,
	  .prefixes = callgrind_prefix, .compressed_input = true, .detect = plumb_callgrind_detect,
	  .read = plumb_callgrind_read, .write = plumb_callgrind_write,
	  .write_stream = plumb_callgrind_write_stream, .part_files = plumb_callgrind_part_files },
	{ .id = PLUMB_FMT_GMON, .name = "gmon",
	  .description = "GNU gmon.out of a gcc -pg program (a BSD one with --exe)",
	  .prefixes = gmon_prefix, .detect = plumb_gmon_format_detect,
	  .read = plumb_gmon_profile_read },
	/* binary, after the formats with a signature: its detection walks
	 * the head as a profile.proto message */
	{ .id = PLUMB_FMT_PPROF, .name = "pprof",
	  .description = "pprof profile (profile.proto, gzip-wrapped or raw)",
	  .extensions = pprof_ext, .compressed_input = true, .detect = plumb_pprof_detect,
	  .read = plumb_pprof_read, .write = plumb_pprof_write,
	  .write_stream = plumb_pprof_write_stream },
	/* before folded stacks: "r main NONE 1" has a folded stack's shape */
	{ .id = PLUMB_FMT_APROF, .name = "aprof",
	  .description = "aprof input-sensitive profile (*.aprof)", .extensions = aprof_ext,
	  .compressed_input = true, .detect = plumb_aprof_detect, .read = plumb_aprof_read,
	  .write = plumb_aprof_write, .write_stream = plumb_aprof_write_stream },
	{ .id = PLUMB_FMT_FOLDED, .name = "folded",
	  .description = "folded stacks (\"a;b;c 123\" per line)", .extensions = folded_ext,
	  .detect = plumb_folded_detect, .read = plumb_folded_read, .write = plumb_folded_write,
	  .write_stream = plumb_folded_write_stream },
	{ .id = PLUMB_FMT_SPEEDSCOPE, .name = "speedscope",
	  .description = "speedscope JSON (written only)", .extensions = speedscope_ext,
	  .write = plumb_speedscope_write, .write_stream = plumb_speedscope_write_stream },
};
#define NFORMATS (sizeof formats / sizeof *formats)
_Static_assert(NFORMATS == PLUMB_FMT_COUNT - 1, "one registry row per plumb_format");

const plumb_format_ops *plumb_formats(size_t *n)
{
	*n = NFORMATS;
	return formats;
}

const plumb_format_ops *plumb_format_get(plumb_format fmt)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i].id == fmt)
			return &formats[i];
	return NULL;
}

const plumb_format_ops *plumb_format_by_name(const char *name)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

const char *plumb_format_name(plumb_format fmt)
{
	const plumb_format_ops *f = plumb_format_get(fmt);
	return f ? f->name : "unknown";
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && strcmp(s + n - k, suffix) == 0;
}

static bool owns_name(const plumb_format_ops *f, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (const char *const *e = f->extensions; e && *e; e++)
		if (ends_with(base, *e))
			return true;
	for (const char *const *q = f->prefixes; q && *q; q++)
		if (strncmp(base, *q, strlen(*q)) == 0)
			return true;
	return false;
}

plumb_format plumb_format_for_output(const char *path)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i].write && owns_name(&formats[i], path))
			return formats[i].id;
	return PLUMB_FMT_UNKNOWN;
}

/* Appends "name (.ext, prefix*)" for each row that want() keeps. */
static void list_formats(char *buf, size_t size, bool writers)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < NFORMATS && len < size; i++) {
		const plumb_format_ops *f = &formats[i];
		if (writers ? !f->write : !f->detect)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
					writers ? f->name : f->description);
		if (!writers)
			continue;
		const char *sep = " (";
		for (const char *const *e = f->extensions; e && *e && len < size; e++, sep = ", ")
			len += (size_t)snprintf(buf + len, size - len, "%s%s", sep, *e);
		for (const char *const *q = f->prefixes; q && *q && len < size; q++, sep = ", ")
			len += (size_t)snprintf(buf + len, size - len, "%s%s*", sep, *q);
		if (*sep == ',' && len < size)
			len += (size_t)snprintf(buf + len, size - len, ")");
	}
}

const char *plumb_format_writers_list(void)
{
	static char buf[512];
	if (!buf[0])
		list_formats(buf, sizeof buf, true);
	return buf;
}

/* A text profile with a few NUL bytes, which the text formats' detection
 * refuses: the format it is without them, so that its reader names the
 * byte's offset instead of "unknown format". Binary files have many NULs
 * or no line at all. */
static plumb_format detect_text_with_nuls(const unsigned char *head, size_t len)
{
	size_t nuls = 0;
	for (size_t i = 0; i < len; i++)
		nuls += head[i] == '\0';
	if (nuls == 0 || (nuls > 8 && nuls * 16 > len) || !memchr(head, '\n', len))
		return PLUMB_FMT_UNKNOWN;
	unsigned char *copy = malloc(len);
	if (!copy)
		return PLUMB_FMT_UNKNOWN;
	for (size_t i = 0; i < len; i++)
		copy[i] = head[i] ? head[i] : '?';
	static const plumb_format text[] = { PLUMB_FMT_CALLGRIND, PLUMB_FMT_APROF };
	plumb_format found = PLUMB_FMT_UNKNOWN;
	for (size_t i = 0; i < sizeof text / sizeof *text && !found; i++) {
		const plumb_format_ops *f = plumb_format_get(text[i]);
		if (f && f->detect && f->detect(copy, len))
			found = text[i];
	}
	free(copy);
	return found;
}

plumb_format plumb_detect_buffer(const unsigned char *head, size_t len)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i].detect && formats[i].detect(head, len))
			return formats[i].id;
	if (plumb_folded_detect_damaged(head, len))
		return PLUMB_FMT_FOLDED;
	return detect_text_with_nuls(head, len);
}

/* The compressed formats' names, for the message that refuses the others. */
static void list_compressed(char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < NFORMATS && len < size; i++)
		if (formats[i].compressed_input)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
						formats[i].name);
}

int plumb_detect_file(const char *path, plumb_format *out, plumb_error *err)
{
	static const size_t cap = 64 * 1024;
	unsigned char *head = malloc(cap);
	if (!head)
		return plumb_fail_nomem(err);
	size_t n;
	plumb_compression comp;
	/* compressed files are judged by their decompressed head */
	if (plumb_read_head(path, head, cap, &n, &comp, err)) {
		free(head);
		return -1;
	}
	*out = plumb_detect_buffer(head, n);
	free(head);
	if (*out == PLUMB_FMT_UNKNOWN) {
		if (n == 0)
			return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: empty file, expected a profile", path);
		char known[512];
		list_formats(known, sizeof known, false);
		return plumb_fail(err, PLUMB_ERR_FORMAT, "%s: unknown format: expected one of: %s",
				  path, known);
	}
	const plumb_format_ops *f = plumb_format_get(*out);
	assert(f);
	if (comp != PLUMB_COMP_NONE && !f->compressed_input) {
		char which[128];
		list_compressed(which, sizeof which);
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
				  "%s: compressed %s input is not supported (only %s files are "
				  "read compressed): decompress it first", path, f->name, which);
	}
	return 0;
}

int plumb_read_file(plumb_profile *p, const char *path, const plumb_read_opts *opts,
		    plumb_format *fmt_out, plumb_error *err)
{
	plumb_format fmt;
	if (plumb_detect_file(path, &fmt, err)) {
		/* BSD gmon files have no signature: read as such only when the
		 * caller named the executable they belong to */
		if (opts && opts->executable && err && err->code == PLUMB_ERR_FORMAT) {
			if (fmt_out)
				*fmt_out = PLUMB_FMT_GMON;
			if (plumb_gmon_profile_read(p, path, opts, err) == 0)
				return 0;
			char msg[sizeof err->message];
			memcpy(msg, err->message, sizeof msg);
			size_t n = strlen(path);
			const char *why = strncmp(msg, path, n) == 0 && msg[n] == ':' ? msg + n + 2 : msg;
			return plumb_fail(err, err->code, "%s: no known format, and not a BSD gmon.out "
					  "either (tried because of --exe): %.800s", path, why);
		}
		return -1;
	}
	if (fmt_out)
		*fmt_out = fmt;
	plumb_read_opts none = { 0 };
	int rc = plumb_format_get(fmt)->read(p, path, opts ? opts : &none, err);
	if (opts && opts->progress) {
		/* the end: a progress line shown is cleared */
		struct stat st;
		uint64_t size = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
		opts->progress(opts->progress_ctx, path, size, size);
	}
	return rc ? -1 : plumb_check_totals(p, path, err);
}

int plumb_check_totals(const plumb_profile *p, const char *what, plumb_error *err)
{
	size_t nev = p->events.n;
	uint64_t *tot = malloc((nev ? nev : 1) * sizeof *tot);
	if (!tot)
		return plumb_fail_nomem(err);
	plumb_error mine;
	int rc = plumb_profile_totals(p, tot, &mine);
	free(tot);
	if (rc == 0)
		return 0;
	if (mine.code == PLUMB_ERR_NOMEM)
		return plumb_fail_nomem(err);
	/* every view sums the costs: a profile whose sum does not fit cannot be
	 * shown, so it is not read (nor written) as if it could */
	return plumb_fail(err, PLUMB_ERR_OVERFLOW, "%s: the costs add up to more than 64 bits "
			  "hold (%.800s)", what, mine.message);
}

static const plumb_format_ops *writer_of(plumb_format fmt, bool stream, const char *out_name,
					 plumb_error *err)
{
	const plumb_format_ops *f = plumb_format_get(fmt);
	if (f && (stream ? f->write_stream != NULL : f->write != NULL))
		return f;
	if (f && f->write)
		plumb_fail(err, PLUMB_ERR_USAGE, "a %s file cannot go to %s: give a file name",
			   f->name, out_name);
	else
		plumb_fail(err, PLUMB_ERR_USAGE, "cannot write format '%s' (known: %s)",
			   plumb_format_name(fmt), plumb_format_writers_list());
	return NULL;
}

int plumb_write_file(const plumb_profile *p, const char *path, plumb_format fmt,
		     plumb_error *err)
{
	const plumb_format_ops *f = writer_of(fmt, false, path, err);
	return f ? f->write(p, path, err) : -1;
}

int plumb_write_stream(const plumb_profile *p, FILE *out, const char *out_name, plumb_format fmt,
		       plumb_error *err)
{
	const plumb_format_ops *f = writer_of(fmt, true, out_name, err);
	if (!f || f->write_stream(p, out, err))
		return -1;
	if (fflush(out) || ferror(out))
		return plumb_fail(err, PLUMB_ERR_IO, "cannot write to %s: %s", out_name,
				  strerror(errno));
	return 0;
}
