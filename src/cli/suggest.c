/* Usage errors that say what was meant: unknown commands, options and
 * names get the nearest known ones (plumb_suggest, one edit distance for
 * all of plumb). */
#include <getopt.h>
#include <string.h>

#include "cli/cli.h"

/* " (did you mean 'x'?)" into buf, or "". */
static void did_you_mean(const plumb_suggestions *s, char *buf, size_t size)
{
	char near[400];
	buf[0] = 0;
	if (plumb_suggest_format(s, "'", "'", near, sizeof near))
		snprintf(buf, size, "; did you mean %s?", near);
}

int cli_unknown_word(const char *cmd, const char *what, const char *word, const char *list)
{
	char scratch[1024], hint[512];
	plumb_suggestions s;
	plumb_suggest_init(&s, word);
	plumb_suggest_add_list(&s, list, scratch, sizeof scratch);
	did_you_mean(&s, hint, sizeof hint);
	return cli_usage_error(cmd, "unknown %s '%s'%s (%s)", what, word, hint, list);
}

int cli_unknown_option(const char *cmd, const char *arg, const struct option *longopts)
{
	/* "--vew=tree" is the option "vew" */
	char name[128];
	const char *start = arg;
	while (*start == '-')
		start++;
	snprintf(name, sizeof name, "%.*s", (int)strcspn(start, "="), start);
	char hint[512] = "", near[400];
	if (start - arg == 2 && *name) {
		plumb_suggestions s;
		plumb_suggest_init(&s, name);
		for (size_t i = 0; longopts[i].name; i++)
			plumb_suggest_add(&s, longopts[i].name);
		if (plumb_suggest_format(&s, "'--", "'", near, sizeof near))
			snprintf(hint, sizeof hint, "; did you mean %s?", near);
	}
	return cli_usage_error(cmd, "unknown option '%s'%s", arg, hint);
}

int cli_unknown_command(const char *word, const char *const *names, size_t n)
{
	plumb_suggestions s;
	plumb_suggest_init(&s, word);
	for (size_t i = 0; i < n; i++)
		plumb_suggest_add(&s, names[i]);
	char hint[512];
	did_you_mean(&s, hint, sizeof hint);
	fprintf(stderr, "plumb: '%s' is not a command%s\n", word, hint);
	return EXIT_USAGE;
}
