/* Symspecs: gprof's grammar, plus C++ names with "::". */
#include <criterion/criterion.h>
#include <string.h>

#include "plumb/analysis.h"

static plumb_symspec parse(const char *text)
{
	plumb_symspec s;
	plumb_error err;
	cr_assert_eq(plumb_symspec_parse(&s, text, &err), 0, "%s: %s", text, err.message);
	return s;
}

static void expect(const char *text, const char *file, const char *func, uint32_t line)
{
	plumb_symspec s = parse(text);
	if (file)
		cr_expect_str_eq(s.file, file, "%s: file", text);
	else
		cr_expect_null(s.file, "%s: file should be unset", text);
	if (func)
		cr_expect_str_eq(s.func, func, "%s: func", text);
	else
		cr_expect_null(s.func, "%s: func should be unset", text);
	cr_expect_eq(s.line, line, "%s: line", text);
	plumb_symspec_free(&s);
}

Test(symspec, grammar_of_gprof)
{
	expect("main.c", "main.c", NULL, 0);
	expect("main", NULL, "main", 0);
	expect("main.c:main", "main.c", "main", 0);
	expect("main.c:134", "main.c", NULL, 134);
	expect(":.mul", NULL, ".mul", 0);
	expect("odd:", "odd", NULL, 0);
	expect("23", NULL, NULL, 23);
	expect("a:b:c", "a:b", "c", 0);
	expect(":cycle.c", NULL, "cycle.c", 0);
	expect("", NULL, NULL, 0);
}

Test(symspec, cxx_names_are_not_split_at_double_colons)
{
	expect("ns::f", NULL, "ns::f", 0);
	expect("std::vector<int>::push_back(int const&)", NULL, "std::vector<int>::push_back(int const&)", 0);
	expect("a.cc:ns::f", "a.cc", "ns::f", 0);
	expect("a.cc:ns::Klass::method", "a.cc", "ns::Klass::method", 0);
}

Test(symspec, bad_line_number_is_an_error)
{
	plumb_symspec s;
	plumb_error err;
	cr_expect_eq(plumb_symspec_parse(&s, "a.c:12x", &err), -1);
	cr_expect_eq(err.code, PLUMB_ERR_USAGE);
	cr_expect(strstr(err.message, "a.c:12x") != NULL, "%s", err.message);
}

Test(symspec, matching_functions_frames_and_keys)
{
	plumb_profile *p = plumb_profile_new();
	plumb_id mod = plumb_module_intern(p, "/usr/lib/libfoo.so.1", NULL);
	plumb_id file = plumb_file_intern(p, "/src/dir/work.c");
	plumb_id other = plumb_file_intern(p, "inl.h");
	plumb_id f = plumb_function_intern(p, "work", "_Z4workv", mod, file, 10);
	plumb_id g = plumb_function_intern(p, "ns::g", NULL, mod, other, 3);
	plumb_id fr_f = plumb_frame_intern(p, f, PLUMB_NONE, 12, 0);
	plumb_id fr_inl = plumb_frame_intern(p, f, other, 7, 0); /* inlined from inl.h */
	plumb_symspec_list l = { 0 };
	plumb_error err;
	const struct { const char *spec; bool f, g, fr_f, fr_inl; } cases[] = {
		{ "work", true, false, true, true },
		{ "_Z4workv", true, false, true, true },
		{ "work.c", true, false, true, true },     /* basename */
		{ "/src/dir/work.c", true, false, true, true }, /* full path */
		{ "dir/work.c", false, false, false, false },
		{ "work.c:12", true, false, true, false },  /* a line of the function */
		{ "work.c:10", true, false, false, false }, /* its first line (gprof) */
		{ "inl.h:7", false, false, false, true },
		{ "inl.h", false, true, false, true },
		{ "ns::g", false, true, false, false },
		{ "nothing", false, false, false, false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		plumb_symspec s = parse(cases[i].spec);
		cr_expect_eq(plumb_symspec_match_function(&s, p, f), cases[i].f, "%s vs work", cases[i].spec);
		cr_expect_eq(plumb_symspec_match_function(&s, p, g), cases[i].g, "%s vs ns::g", cases[i].spec);
		cr_expect_eq(plumb_symspec_match_frame(&s, p, fr_f), cases[i].fr_f, "%s vs frame work.c:12", cases[i].spec);
		cr_expect_eq(plumb_symspec_match_frame(&s, p, fr_inl), cases[i].fr_inl, "%s vs frame inl.h:7", cases[i].spec);
		plumb_symspec_free(&s);
	}
	/* Module keys match by path or basename. */
	cr_assert_eq(plumb_symspec_list_add(&l, "libfoo.so.1", &err), 0);
	plumb_key k = { PLUMB_NONE, PLUMB_NONE, mod, 0 };
	cr_expect(plumb_symspec_list_match_key(&l, p, PLUMB_LEVEL_MODULE, &k));
	plumb_symspec_list_free(&l);
	plumb_profile_free(p);
}

/* ---- specs that name nothing ------------------------------------------ */

/* main.c: main, quicksort (line 54), checksum; libc.so.6: memcpy. */
static plumb_profile *small_profile(bool files)
{
	plumb_profile *p = plumb_profile_new();
	plumb_id file = files ? plumb_file_intern(p, "/src/main.c") : PLUMB_NONE;
	plumb_id mod = plumb_module_intern(p, "/usr/lib/libc.so.6", NULL);
	const char *names[] = { "main", "quicksort", "checksum" };
	for (size_t i = 0; i < 3; i++) {
		plumb_id fn = plumb_function_intern(p, names[i], NULL, PLUMB_NONE, file, 0);
		plumb_frame_intern(p, fn, file, i == 1 ? 54 : 10, 0);
	}
	plumb_id fm = plumb_function_intern(p, "memcpy", NULL, mod, PLUMB_NONE, 0);
	plumb_frame_intern(p, fm, PLUMB_NONE, 0, 0);
	return p;
}

static const char *check(const plumb_profile *p, const char *text)
{
	static plumb_error err;
	plumb_symspec s = parse(text);
	int rc = plumb_symspec_check(&s, p, "x.prof", &err);
	plumb_symspec_free(&s);
	return rc == 0 ? NULL : err.message;
}

Test(symspec, check_names_what_matched_nothing)
{
	plumb_profile *p = small_profile(true);
	cr_assert_null(check(p, "quicksort"));
	cr_assert_null(check(p, "main.c"));
	cr_assert_null(check(p, "main.c:quicksort"));
	cr_assert_null(check(p, "main.c:54"));
	cr_assert_null(check(p, "libc.so.6"), "a load module by its base name");
	cr_assert_null(check(p, ""), "an empty spec matches everything");
	cr_assert_null(check(p, "<cycle 2>"), "a cycle's name is the view's to check");
	cr_assert_not_null(check(p, "<cycle 2>x"));
	cr_assert_str_eq(check(p, "quicksrt"), "'quicksrt' matches nothing in x.prof: no function 'quicksrt'; "
					       "did you mean 'quicksort'?");
	cr_assert_str_eq(check(p, "mian.c"), "'mian.c' matches nothing in x.prof: no file, load module "
					     "or function 'mian.c'; did you mean 'main.c'?");
	cr_assert_str_eq(check(p, "main.c:memcpy"), "'main.c:memcpy' matches nothing in x.prof: no function "
						    "'memcpy' in main.c; in other files: 'memcpy'");
	cr_assert_str_eq(check(p, "main.c:quicksrt"), "'main.c:quicksrt' matches nothing in x.prof: no function "
						      "'quicksrt' in main.c; did you mean 'quicksort'?");
	cr_assert_str_eq(check(p, "main.c:99"), "'main.c:99' matches nothing in x.prof: no sample on line 99 "
						"of main.c");
	cr_assert_str_eq(check(p, "zzzzzz"), "'zzzzzz' matches nothing in x.prof: no function 'zzzzzz'");
	plumb_profile_free(p);
}

Test(symspec, check_on_stacks_without_files)
{
	plumb_profile *p = small_profile(false);
	cr_assert_str_eq(check(p, "main.c:quicksort"), "'main.c:quicksort' names the file 'main.c', but x.prof "
						       "has no source file names (folded stacks name functions "
						       "only); without the file: 'quicksort'");
	cr_assert_str_eq(check(p, "main.c"), "'main.c' names the file 'main.c', but x.prof has no source file "
					     "names (folded stacks name functions only); did you mean the "
					     "function 'main'?");
	cr_assert_str_eq(check(p, "zzzz.c"), "'zzzz.c' names the file 'zzzz.c', but x.prof has no source file "
					     "names (folded stacks name functions only)");
	cr_assert_null(check(p, "libc.so.6"), "modules are still there");
	plumb_profile_free(p);
}

/* gcc's clones have a '.' in their names, which makes a spec a file name:
 * one that names no file but names a function is that function. */
Test(symspec, a_dotted_function_name_is_resolved)
{
	plumb_profile *p = small_profile(true);
	plumb_id fn = plumb_function_intern(p, "quicksort.part.0", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_frame_intern(p, fn, PLUMB_NONE, 0, 0);
	plumb_symspec s = parse("quicksort.part.0");
	cr_assert_not_null(s.file, "read as a file name first");
	cr_assert(plumb_symspec_resolve(&s, p));
	cr_assert_null(s.file);
	cr_assert_str_eq(s.func, "quicksort.part.0");
	cr_assert(plumb_symspec_match_function(&s, p, fn));
	cr_assert_not(plumb_symspec_match_function(&s, p, 1), "quicksort itself is not matched");
	plumb_symspec_free(&s);

	s = parse("main.c");
	cr_assert_not(plumb_symspec_resolve(&s, p), "a file that is there stays a file");
	cr_assert_str_eq(s.file, "main.c");
	plumb_symspec_free(&s);
	s = parse("quicksort.part.1");
	cr_assert_not(plumb_symspec_resolve(&s, p), "nothing of that name: left for the check to report");
	plumb_symspec_free(&s);
	cr_assert_str_eq(check(p, "quicksort.part.1"), "'quicksort.part.1' matches nothing in x.prof: no "
			 "file, load module or function 'quicksort.part.1'; did you mean 'quicksort.part.0'?");
	plumb_profile_free(p);
}
