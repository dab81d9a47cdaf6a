/* Is it an aprof report? Every line starts with a one-letter tag, and the
 * shape of each tag's line is known. A folded stack "v 6" or "c 12" has
 * that shape too, so a report needs a line no folded file has: a quoted
 * r line, a p or q line of four numbers or more, or a v line together with
 * another header line; Callgrind's "key: value" lines and binary files
 * (gmon, SQLite) never have a tag's shape. */
#include <string.h>

#include "formats/aprof_internal.h"
#include "plumb/formats.h"

#define LINES 32

typedef enum verdict { BAD, WEAK, STRONG, HEADER, VERSION } verdict;

static bool all_numbers(const char *s, const char *end, size_t *n)
{
	const char *tok;
	size_t len;
	uint64_t v;
	*n = 0;
	while (aprof_token(&s, end, &tok, &len)) {
		bool ok = aprof_parse_u64(tok, len, &v) || (len == 2 && memcmp(tok, "-1", 2) == 0);
		for (size_t i = 0; !ok && i < len && (tok[i] >= '0' && tok[i] <= '9'); i++)
			ok = i + 1 == len; /* a long sum of squares */
		if (!ok)
			return false;
		(*n)++;
	}
	return true;
}

/* "name" or a token; the rest after it in *s. */
static bool name_token(const char **s, const char *end, bool *quoted)
{
	const char *p = *s;
	while (p < end && *p == ' ')
		p++;
	if (p < end && *p == '"') {
		const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
		if (!q)
			return false;
		*s = q + 1;
		*quoted = true;
		return true;
	}
	const char *tok;
	size_t len;
	*quoted = false;
	return aprof_token(s, end, &tok, &len) && *tok != '"';
}

static verdict judge(const char *s, const char *end)
{
	const char *t = s;
	while (t < end && *t != ' ')
		t++;
	if (t - s == 3 && memcmp(s, "fav", 3) == 0)
		return WEAK;
	if (t - s != 1)
		return BAD;
	size_t n;
	bool q1, q2;
	const char *tok;
	size_t len;
	uint64_t v;
	switch (*s) {
	case 'c': case 'a': case 'f':
		return WEAK;
	case 'v':
		return all_numbers(t, end, &n) && n == 1 ? VERSION : BAD;
	case 'k': case 'e': case 't':
		return all_numbers(t, end, &n) && n == 1 ? HEADER : BAD;
	case 'm': case 'i':
		return aprof_token(&t, end, &tok, &len) && !aprof_token(&t, end, &tok, &len) ? HEADER : BAD;
	case 'r':
		if (!name_token(&t, end, &q1) || !name_token(&t, end, &q2) || !all_numbers(t, end, &n) ||
		    n < 1 || n > 2)
			return BAD;
		return q1 && q2 ? STRONG : WEAK;
	case 'u': case 'd':
		return aprof_token(&t, end, &tok, &len) && aprof_parse_u64(tok, len, &v) &&
			       name_token(&t, end, &q1) && t == end ? WEAK : BAD;
	case 'p': case 'q':
		return all_numbers(t, end, &n) && n >= 4 && n <= 18 ? STRONG : BAD;
	case 'x':
		return all_numbers(t, end, &n) && n == 3 ? WEAK : BAD;
	case 'g':
		return all_numbers(t, end, &n) && n == 3 ? WEAK : BAD;
	default:
		return BAD;
	}
}

/* The first line must look right, and most of the next ones (a damaged
 * line further down then reaches the reader, which names it). */
bool plumb_aprof_detect(const unsigned char *head, size_t len)
{
	if (!head || len == 0 || memchr(head, '\0', len))
		return false;
	const char *s = (const char *)head;
	size_t pos = 0, good = 0, bad = 0;
	bool strong = false, version = false, header = false;
	while (pos < len && good + bad < LINES) {
		const char *nl = memchr(s + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - s) : len;
		if (!nl && good + bad > 0)
			break; /* possibly cut */
		size_t a = pos, b = end;
		pos = end + 1;
		if (b > a && s[b - 1] == '\r')
			b--;
		if (a == b)
			continue;
		verdict v = judge(s + a, s + b);
		if (v == BAD && good == 0)
			return false;
		if (v == BAD) {
			bad++;
			continue;
		}
		good++;
		strong |= v == STRONG;
		version |= v == VERSION;
		header |= v == HEADER;
	}
	return good >= bad && (strong || (version && header));
}
