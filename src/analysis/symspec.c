/* Symspecs: gprof's little language for naming parts of a program.
 * Grammar (seed 002): split at the last ':'; without a colon a dot makes a
 * file name, a leading digit a line number, anything else a function.
 * Unlike gprof, a "::" never splits, so C++ names can be given as printed:
 * "ns::f" and "a.cc:ns::f" name the function ns::f. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/analysis.h"

static int parse_line(const char *s, uint32_t *line)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (*end || v == 0 || v > UINT32_MAX)
		return -1;
	*line = (uint32_t)v;
	return 0;
}

/* "rest" is what follows the colon (or the whole spec): a line or a function. */
static int parse_target(plumb_symspec *s, const char *rest, plumb_error *err)
{
	if (!*rest)
		return 0;
	if (isdigit((unsigned char)*rest)) {
		if (parse_line(rest, &s->line))
			return plumb_fail(err, PLUMB_ERR_USAGE,
					  "symspec '%s': expected a line number after ':', got '%s'",
					  s->text, rest);
		return 0;
	}
	return (s->func = strdup(rest)) ? 0 : plumb_fail_nomem(err);
}

/* The last ':' that separates a file: one that is not half of a C++ "::"
 * (gprof splits at any last colon, which makes "ns::f" unnameable). */
static const char *file_colon(const char *text)
{
	const char *found = NULL;
	for (const char *c = text; *c; c++) {
		if (*c != ':')
			continue;
		if (c[1] == ':') {
			c++;
			continue;
		}
		found = c;
	}
	return found;
}

int plumb_symspec_parse(plumb_symspec *s, const char *text, plumb_error *err)
{
	memset(s, 0, sizeof *s);
	if (!(s->text = strdup(text)))
		return plumb_fail_nomem(err);
	const char *colon = file_colon(text);
	bool cxx = !colon && strstr(text, "::");
	int rc;
	if (colon) {
		if (colon > text && !(s->file = strndup(text, (size_t)(colon - text))))
			rc = plumb_fail_nomem(err);
		else
			rc = parse_target(s, colon + 1, err);
	} else if (strchr(text, '.') && !cxx) {
		rc = (s->file = strdup(text)) ? 0 : plumb_fail_nomem(err);
	} else {
		rc = parse_target(s, text, err);
	}
	if (rc)
		plumb_symspec_free(s);
	return rc;
}

void plumb_symspec_free(plumb_symspec *s)
{
	free(s->text);
	free(s->file);
	free(s->func);
	memset(s, 0, sizeof *s);
}

/* A file spec matches the recorded path or its basename. */
static bool file_matches(const char *spec, const char *path)
{
	if (!path)
		return false;
	if (strcmp(spec, path) == 0)
		return true;
	const char *base = strrchr(path, '/');
	return base && strcmp(spec, base + 1) == 0;
}

static bool name_matches(const plumb_symspec *s, const plumb_profile *p, plumb_id fn)
{
	const plumb_function *f = &p->functions.v[fn];
	if (strcmp(s->func, plumb_str(p, f->name)) == 0)
		return true;
	return f->mangled != PLUMB_NONE && strcmp(s->func, plumb_str(p, f->mangled)) == 0;
}

static const char *file_path(const plumb_profile *p, plumb_id file)
{
	return file == PLUMB_NONE ? NULL : plumb_str(p, p->files.v[file].path);
}

bool plumb_symspec_match_frame(const plumb_symspec *s, const plumb_profile *p, plumb_id frame)
{
	if (frame >= p->frames.n)
		return false;
	const plumb_frame *fr = &p->frames.v[frame];
	if (s->func && !name_matches(s, p, fr->function))
		return false;
	if (s->line && fr->line != s->line)
		return false;
	if (s->file) {
		/* A frame is in a file if its position is, or its function is. */
		if (!file_matches(s->file, file_path(p, fr->file)) &&
		    (s->line || !file_matches(s->file, plumb_function_file(p, fr->function))))
			return false;
	}
	return true;
}

bool plumb_symspec_match_function(const plumb_symspec *s, const plumb_profile *p, plumb_id fn)
{
	if (fn >= p->functions.n)
		return false;
	const plumb_function *f = &p->functions.v[fn];
	if (s->func && !name_matches(s, p, fn))
		return false;
	if (s->file && !file_matches(s->file, plumb_function_file(p, fn)))
		return false;
	if (s->line && f->line != s->line) {
		/* gprof matches a function's first line; plumb also takes any line
		 * the function has samples on. */
		bool any = false;
		for (size_t i = 0; i < p->frames.n && !any; i++)
			any = p->frames.v[i].function == fn && p->frames.v[i].line == s->line;
		if (!any)
			return false;
	}
	return true;
}

int plumb_symspec_list_add(plumb_symspec_list *l, const char *text, plumb_error *err)
{
	plumb_symspec *v = realloc(l->v, (l->n + 1) * sizeof *v);
	if (!v)
		return plumb_fail_nomem(err);
	l->v = v;
	if (plumb_symspec_parse(&l->v[l->n], text, err))
		return -1;
	l->n++;
	return 0;
}

void plumb_symspec_list_free(plumb_symspec_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		plumb_symspec_free(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

bool plumb_symspec_list_match_function(const plumb_symspec_list *l, const plumb_profile *p,
				       plumb_id fn)
{
	for (size_t i = 0; i < l->n; i++)
		if (plumb_symspec_match_function(&l->v[i], p, fn))
			return true;
	return false;
}

bool plumb_symspec_list_match_frame(const plumb_symspec_list *l, const plumb_profile *p,
				    plumb_id frame)
{
	for (size_t i = 0; i < l->n; i++)
		if (plumb_symspec_match_frame(&l->v[i], p, frame))
			return true;
	return false;
}

bool plumb_symspec_match_key(const plumb_symspec *s, const plumb_profile *p, plumb_level level,
			     const plumb_key *k)
{
	switch (level) {
	case PLUMB_LEVEL_FUNCTION:
		return k->function != PLUMB_NONE && plumb_symspec_match_function(s, p, k->function);
	case PLUMB_LEVEL_LINE:
		if (s->func && (k->function == PLUMB_NONE || !name_matches(s, p, k->function)))
			return false;
		if (s->file && !file_matches(s->file, file_path(p, k->file)))
			return false;
		return !s->line || s->line == k->line;
	case PLUMB_LEVEL_FILE:
		return !s->func && !s->line && (!s->file || file_matches(s->file, file_path(p, k->file)));
	case PLUMB_LEVEL_MODULE:
		return !s->func && !s->line &&
		       (!s->file || (k->module != PLUMB_NONE &&
				     file_matches(s->file, plumb_str(p, p->modules.v[k->module].path))));
	}
	return false;
}

bool plumb_symspec_list_match_key(const plumb_symspec_list *l, const plumb_profile *p,
				  plumb_level level, const plumb_key *k)
{
	for (size_t i = 0; i < l->n; i++)
		if (plumb_symspec_match_key(&l->v[i], p, level, k))
			return true;
	return false;
}
