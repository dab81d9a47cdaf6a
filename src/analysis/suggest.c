/* "Did you mean ...?": the names closest to one the user typed. One edit
 * distance for every suggestion plumb makes (commands, options, views,
 * formats, events, function and file names in symspecs). */
#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/analysis.h"

/* Optimal string alignment distance, case-insensitive: insertions,
 * deletions, substitutions and swaps of two neighbours cost one each (a
 * typo is most often one of these). Stops early past limit and then
 * returns limit + 1. */
size_t plumb_edit_distance(const char *a, const char *b, size_t limit)
{
	size_t la = strlen(a), lb = strlen(b);
	if ((la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	size_t *rows = malloc(3 * (lb + 1) * sizeof *rows);
	if (!rows)
		return limit + 1;
	size_t *prev2 = rows, *prev = rows + lb + 1, *cur = rows + 2 * (lb + 1);
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t row_min = cur[0] = i;
		int ca = tolower((unsigned char)a[i - 1]);
		for (size_t j = 1; j <= lb; j++) {
			int cb = tolower((unsigned char)b[j - 1]);
			size_t d = prev[j - 1] + (ca != cb);
			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
			if (d < row_min)
				row_min = d;
		}
		if (row_min > limit) {
			free(rows);
			return limit + 1;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	size_t d = prev[lb];
	free(rows);
	return d > limit ? limit + 1 : d;
}

static bool contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return true;
	return false;
}

void plumb_suggest_init(plumb_suggestions *s, const char *word)
{
	memset(s, 0, sizeof *s);
	s->word = word;
	size_t len = strlen(word);
	/* one typo in three letters, at least one ("yaml" is not "html") */
	s->limit = len < 6 ? 1 : len / 3;
}

void plumb_suggest_add(plumb_suggestions *s, const char *candidate)
{
	if (!candidate || !*candidate || !*s->word)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], candidate) == 0)
			return;
	size_t d = plumb_edit_distance(s->word, candidate, s->limit);
	/* "quick" for "quicksort": a part of a longer name is a near miss too
	 * (ranked behind one-letter typos) */
	if (d > s->limit && strlen(s->word) >= 3 && contains_nocase(candidate, s->word))
		d = s->limit;
	if (d > s->limit)
		return;
	size_t max = sizeof s->v / sizeof *s->v;
	size_t at = s->n;
	while (at > 0 && s->dist[at - 1] > d)
		at--;
	if (at >= max)
		return;
	size_t n = s->n < max ? s->n + 1 : max;
	for (size_t i = n - 1; i > at; i--) {
		s->v[i] = s->v[i - 1];
		s->dist[i] = s->dist[i - 1];
	}
	s->v[at] = candidate;
	s->dist[at] = d;
	s->n = n;
}

void plumb_suggest_add_list(plumb_suggestions *s, const char *list, char *scratch, size_t size)
{
	assert(scratch && size > 0);
	/* the candidates must outlive s: they point into scratch */
	snprintf(scratch, size, "%s", list);
	for (char *save = NULL, *w = strtok_r(scratch, ", |", &save); w; w = strtok_r(NULL, ", |", &save))
		plumb_suggest_add(s, w);
}

size_t plumb_suggest_format(const plumb_suggestions *s, const char *before, const char *after, char *buf,
			    size_t size)
{
	assert(size > 0);
	buf[0] = 0;
	if (s->n == 0)
		return 0;
	/* the closest only, when one is clearly closer than the rest */
	size_t n = s->n;
	while (n > 1 && s->dist[n - 1] > s->dist[0])
		n--;
	size_t len = 0;
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
					before, s->v[i], after);
	return len < size ? len : size - 1;
}
