/* Symspecs: gprof's little language for naming parts of a program.
 * Grammar (seed 002): split at the last ':'; without a colon a dot makes a
 * file name, a leading digit a line number, anything else a function.
 * Unlike gprof, a "::" never splits, so C++ names can be given as printed:
 * "ns::f" and "a.cc:ns::f" name the function ns::f. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
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

/* ---- specs that name nothing ---------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* Is a file spec any file or load module of p? */
static bool file_known(const char *spec, const plumb_profile *p)
{
	for (size_t i = 0; i < p->files.n; i++)
		if (file_matches(spec, plumb_str(p, p->files.v[i].path)))
			return true;
	for (size_t i = 0; i < p->modules.n; i++)
		if (file_matches(spec, plumb_str(p, p->modules.v[i].path)))
			return true;
	return false;
}

/* "<cycle 3>": the views' name for a cycle of a call graph, found only
 * when its metrics are computed; the view says whether it is there. */
static bool names_a_cycle(const plumb_symspec *s)
{
	unsigned n;
	int end = 0;
	return s->func && !s->file && !s->line && sscanf(s->func, "<cycle %u>%n", &n, &end) == 1 &&
	       end > 0 && s->func[end] == '\0';
}

bool plumb_symspec_matches_any(const plumb_symspec *s, const plumb_profile *p)
{
	if (!s->file && !s->func && !s->line)
		return true;
	if (names_a_cycle(s))
		return true;
	if (s->file && !s->func && !s->line)
		return file_known(s->file, p);
	for (size_t i = 0; i < p->frames.n; i++)
		if (plumb_symspec_match_frame(s, p, (plumb_id)i))
			return true;
	for (size_t i = 0; !s->line && i < p->functions.n; i++)
		if (plumb_symspec_match_function(s, p, (plumb_id)i))
			return true;
	return false;
}

bool plumb_symspec_resolve(plumb_symspec *s, const plumb_profile *p)
{
	if (!s->file || s->func || s->line || !s->text || strchr(s->text, ':') || file_known(s->file, p))
		return false;
	plumb_symspec fn = { .func = s->file, .text = s->text };
	for (size_t i = 0; i < p->functions.n; i++)
		if (plumb_symspec_match_function(&fn, p, (plumb_id)i)) {
			s->func = s->file;
			s->file = NULL;
			return true;
		}
	return false;
}

/* Has p any source file name (folded stacks and gmon.out without an
 * executable have none)? */
static bool has_file_names(const plumb_profile *p)
{
	for (size_t i = 0; i < p->files.n; i++)
		if (*plumb_str(p, p->files.v[i].path))
			return true;
	return false;
}

static void suggest_files(plumb_suggestions *sg, const plumb_profile *p, bool full)
{
	for (size_t i = 0; i < p->files.n; i++) {
		const char *path = plumb_str(p, p->files.v[i].path);
		plumb_suggest_add(sg, full ? path : base_name(path));
	}
	for (size_t i = 0; i < p->modules.n; i++) {
		const char *path = plumb_str(p, p->modules.v[i].path);
		plumb_suggest_add(sg, full ? path : base_name(path));
	}
}

/* Function names, only those in file when it is given. */
static void suggest_functions(plumb_suggestions *sg, const plumb_profile *p, const char *file)
{
	for (size_t i = 0; i < p->functions.n; i++)
		if (!file || file_matches(file, plumb_function_file(p, (plumb_id)i)))
			plumb_suggest_add(sg, plumb_str(p, p->functions.v[i].name));
}

int plumb_symspec_check(const plumb_symspec *s, const plumb_profile *p, const char *where,
			plumb_error *err)
{
	if (plumb_symspec_matches_any(s, p))
		return 0;
	char near[512];
	plumb_suggestions sg;
	/* "f.part.0" alone may have been meant as a function */
	bool dotted = s->file && !s->func && !s->line && s->text && !strchr(s->text, ':');
	if (s->file && !has_file_names(p) && !file_known(s->file, p)) {
		/* "main.c:work" on folded stacks: the function alone may be there */
		plumb_symspec alone = { .func = s->func, .text = s->text };
		if (s->func && !s->line && plumb_symspec_matches_any(&alone, p))
			return plumb_fail(err, PLUMB_ERR_USAGE, "'%s' names the file '%s', but %s has no "
					  "source file names (folded stacks name functions only); "
					  "without the file: '%s'", s->text, s->file, where, s->func);
		*near = '\0';
		if (dotted) {
			plumb_suggest_init(&sg, s->file);
			suggest_functions(&sg, p, NULL);
			plumb_suggest_format(&sg, "'", "'", near, sizeof near);
		}
		return plumb_fail(err, PLUMB_ERR_USAGE, "'%s' names the file '%s', but %s has no source "
				  "file names (folded stacks name functions only)%s%s%s", s->text, s->file,
				  where, *near ? "; did you mean the function " : "", near,
				  *near ? "?" : "");
	}
	if (s->file && !file_known(s->file, p)) {
		plumb_suggest_init(&sg, s->file);
		suggest_files(&sg, p, strchr(s->file, '/') != NULL);
		if (dotted)
			suggest_functions(&sg, p, NULL);
		plumb_suggest_format(&sg, "'", "'", near, sizeof near);
		return plumb_fail(err, PLUMB_ERR_USAGE, "'%s' matches nothing in %s: no file%s load "
				  "module%s '%s'%s%s%s", s->text, where, dotted ? "," : " or",
				  dotted ? " or function" : "", s->file, *near ? "; did you mean " : "",
				  near, *near ? "?" : "");
	}
	if (s->func) {
		plumb_suggest_init(&sg, s->func);
		suggest_functions(&sg, p, s->file);
		/* none near in that file: the name may be in another one */
		bool elsewhere = sg.n == 0 && s->file;
		if (elsewhere)
			suggest_functions(&sg, p, NULL);
		plumb_suggest_format(&sg, "'", "'", near, sizeof near);
		return plumb_fail(err, PLUMB_ERR_USAGE, "'%s' matches nothing in %s: no function '%s'%s%s%s%s%s",
				  s->text, where, s->func, s->file ? " in " : "", s->file ? s->file : "",
				  !*near ? "" : elsewhere ? "; in other files: " : "; did you mean ", near,
				  *near && !elsewhere ? "?" : "");
	}
	return plumb_fail(err, PLUMB_ERR_USAGE, "'%s' matches nothing in %s: no sample on line %" PRIu32
			  "%s%s", s->text, where, s->line, s->file ? " of " : "", s->file ? s->file : "");
}
