/* "Did you mean": the one edit distance and the choice of suggestions. */
#include <criterion/criterion.h>
#include <string.h>

#include "plumb/analysis.h"

Test(suggest, edit_distance)
{
	cr_assert_eq(plumb_edit_distance("tree", "tree", 5), 0);
	cr_assert_eq(plumb_edit_distance("tre", "tree", 5), 1);
	cr_assert_eq(plumb_edit_distance("reprot", "report", 5), 1, "a swap of neighbours is one edit");
	cr_assert_eq(plumb_edit_distance("JSON", "json", 5), 0, "case is ignored");
	cr_assert_eq(plumb_edit_distance("kitten", "sitting", 5), 3);
	cr_assert_eq(plumb_edit_distance("", "abc", 5), 3);
	cr_assert_eq(plumb_edit_distance("abc", "", 5), 3);
	cr_assert_eq(plumb_edit_distance("a", "abcdefgh", 2), 3, "over the limit: limit + 1");
	cr_assert_eq(plumb_edit_distance("abcdefgh", "hgfedcba", 2), 3);
}

static const char *format(const char *word, const char *const *cands)
{
	static char buf[256];
	plumb_suggestions s;
	plumb_suggest_init(&s, word);
	for (; *cands; cands++)
		plumb_suggest_add(&s, *cands);
	plumb_suggest_format(&s, "'", "'", buf, sizeof buf);
	return buf;
}

Test(suggest, nearest_names)
{
	const char *views[] = { "flat", "callers", "callees", "butterfly", "tree", "lines", "files", NULL };
	cr_assert_str_eq(format("tre", views), "'tree'");
	cr_assert_str_eq(format("butterfy", views), "'butterfly'");
	cr_assert_str_eq(format("caller", views), "'callers'", "callees is two edits away");
	cr_assert_str_eq(format("calles", views), "'callers' or 'callees'", "ties are all shown");
	cr_assert_str_eq(format("yaml", views), "", "nothing near: no suggestion");
	cr_assert_str_eq(format("", views), "");
	const char *fns[] = { "quicksort", "quicksort_part", "main", "hash", "checksum", NULL };
	cr_assert_str_eq(format("quicksrt", fns), "'quicksort'");
	cr_assert_str_eq(format("quick", fns), "'quicksort' or 'quicksort_part'", "names that hold the word");
	cr_assert_str_eq(format("mian", fns), "'main'");
}

Test(suggest, at_most_four_and_no_repeats)
{
	const char *c[] = { "ab1", "ab2", "ab3", "ab4", "ab5", "ab1", NULL };
	plumb_suggestions s;
	plumb_suggest_init(&s, "ab");
	for (const char *const *p = c; *p; p++)
		plumb_suggest_add(&s, *p);
	cr_assert_eq(s.n, 4);
	cr_assert_str_eq(s.v[0], "ab1");
	cr_assert_str_eq(s.v[3], "ab4");
	char scratch[64], buf[64];
	plumb_suggest_init(&s, "jsn");
	plumb_suggest_add_list(&s, "text, json, csv, svg", scratch, sizeof scratch);
	plumb_suggest_format(&s, "'--", "'", buf, sizeof buf);
	cr_assert_str_eq(buf, "'--json'");
}
