/* The formats plumb knows, detection by content, and read/write dispatch. */
#include <stdlib.h>
#include <string.h>

#include "formats/linesrc.h"
#include "plumb/formats.h"
#include "plumb/store.h"

/* Detection order matters: the most specific signatures come first. */
static const plumb_format_ops formats[] = {
	{ PLUMB_FMT_PLUMB, "plumb", "plumb profile store (SQLite)", plumb_store_detect,
	  plumb_store_read, plumb_store_write },
	{ PLUMB_FMT_CALLGRIND, "callgrind", "Callgrind profile (callgrind.out.*)",
	  plumb_callgrind_detect, plumb_callgrind_read, plumb_callgrind_write },
	{ PLUMB_FMT_GMON, "gmon", "gmon.out of a gcc -pg program (needs its executable)",
	  plumb_gmon_format_detect, plumb_gmon_profile_read, NULL },
	{ PLUMB_FMT_FOLDED, "folded", "folded stacks (\"a;b;c 123\" per line)",
	  plumb_folded_detect, plumb_folded_read, plumb_folded_write },
};
#define NFORMATS (sizeof formats / sizeof *formats)

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

plumb_format plumb_detect_buffer(const unsigned char *head, size_t len)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i].detect(head, len))
			return formats[i].id;
	return PLUMB_FMT_UNKNOWN;
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
		return plumb_fail(err, PLUMB_ERR_FORMAT,
				  "%s: unknown format: expected a .plumb profile, a Callgrind file, "
				  "a GNU gmon.out (a BSD one with --exe) or folded stacks "
				  "(\"a;b;c 123\" per line)", path);
	}
	if (comp != PLUMB_COMP_NONE && *out != PLUMB_FMT_CALLGRIND)
		return plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
				  "%s: compressed %s input is not supported (only Callgrind files are "
				  "read compressed): decompress it first", path, plumb_format_name(*out));
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
	return plumb_format_get(fmt)->read(p, path, opts ? opts : &none, err);
}

int plumb_write_file(const plumb_profile *p, const char *path, plumb_format fmt,
		     plumb_error *err)
{
	const plumb_format_ops *f = plumb_format_get(fmt);
	if (!f || !f->write)
		return plumb_fail(err, PLUMB_ERR_USAGE, "cannot write format '%s'",
				  plumb_format_name(fmt));
	return f->write(p, path, err);
}
