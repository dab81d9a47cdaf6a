/* Shorter C++ names for narrow columns: template arguments hidden from the
 * innermost out, then the parameter list, so that what is left is still
 * the name a reader looks for ("std::vector<...>::_M_realloc_insert(...)")
 * rather than its two ends around "...". */
#include "output/cxx_name.h"

#include <stdbool.h>
#include <string.h>

/* The characters an operator's name may have after "operator": its '<'
 * and '>' are not brackets ("operator<<", "operator->", "operator<=>"). */
static size_t operator_chars(const char *s, size_t i, size_t len)
{
	static const char kw[] = "operator";
	size_t k = sizeof kw - 1;
	if (i < k || memcmp(s + i - k, kw, k) != 0)
		return 0;
	if (i + 1 < len && s[i] == '(' && s[i + 1] == ')')
		return 2; /* operator() */
	size_t n = 0;
	while (i + n < len && strchr("<>=!-+*/%^&|~", s[i + n]) && s[i + n] != '\0')
		n++;
	return n;
}

/* One pass over s: the deepest template nesting, and where the last
 * parameter list (a '(' outside templates and braces, not "(anonymous
 * namespace)") opens; len when there is none. */
static void scan(const char *s, size_t len, int *deepest, size_t *params)
{
	static const char anon[] = "(anonymous namespace)";
	int angle = 0, brace = 0, paren = 0;
	*deepest = 0;
	*params = len;
	for (size_t i = 0; i < len; i++) {
		size_t op = operator_chars(s, i, len);
		if (op) {
			i += op - 1;
			continue;
		}
		switch (s[i]) {
		case '<':
			if (++angle > *deepest)
				*deepest = angle;
			break;
		case '>':
			if (angle > 0)
				angle--;
			break;
		case '{': brace++; break;
		case '}': if (brace > 0) brace--; break;
		case '(':
			if (angle == 0 && brace == 0 && paren == 0 &&
			    !(len - i >= sizeof anon - 1 && memcmp(s + i, anon, sizeof anon - 1) == 0))
				*params = i;
			paren++;
			break;
		case ')': if (paren > 0) paren--; break;
		default: break;
		}
	}
}

/* Where the group that opens at s[open] closes (its ')' or '>'), or len. */
static size_t group_end(const char *s, size_t open, size_t len)
{
	char o = s[open], c = o == '<' ? '>' : ')';
	int depth = 0;
	for (size_t i = open; i < len; i++) {
		size_t op = operator_chars(s, i, len);
		if (op) {
			i += op - 1;
			continue;
		}
		if (s[i] == o)
			depth++;
		else if (s[i] == c && --depth == 0)
			return i;
	}
	return len;
}

/* s with the template arguments at depth >= from hidden (from 0: none) and,
 * if params < len, the parameter list opening there; into out (room for
 * len bytes: a group is hidden only when "..." is shorter). */
static size_t collapse(const char *s, size_t len, int from, size_t params, char *out)
{
	size_t w = 0;
	int angle = 0;
	for (size_t i = 0; i < len; i++) {
		size_t op = operator_chars(s, i, len);
		if (op) {
			memcpy(out + w, s + i, op);
			w += op;
			i += op - 1;
			continue;
		}
		bool hide = (s[i] == '<' && from > 0 && angle + 1 >= from) || (s[i] == '(' && i == params);
		if (hide) {
			size_t end = group_end(s, i, len);
			if (end < len && end - i - 1 > 3) {
				memcpy(out + w, s[i] == '<' ? "<...>" : "(...)", 5);
				w += 5;
				i = end;
				continue;
			}
		}
		if (s[i] == '<')
			angle++;
		else if (s[i] == '>' && angle > 0)
			angle--;
		out[w++] = s[i];
	}
	return w;
}

size_t plumb_cxx_shorten(const char *s, size_t len, size_t budget, char *out)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0x80)
			return 0; /* widths below are bytes */
	int deepest;
	size_t params;
	scan(s, len, &deepest, &params);
	if (deepest == 0 && params == len)
		return 0;
	size_t w = 0;
	for (int from = deepest; from >= 1; from--)
		if ((w = collapse(s, len, from, len, out)) <= budget)
			return w;
	if (params < len)
		w = collapse(s, len, deepest ? 1 : 0, params, out);
	return w < len ? w : 0;
}
