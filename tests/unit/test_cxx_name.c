/* C++ names shortened for narrow columns (src/output/cxx_name.c). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output/cxx_name.h"

static const char *shorten(const char *s, size_t budget)
{
	static char out[4096];
	size_t n = plumb_cxx_shorten(s, strlen(s), budget, out);
	if (n == 0)
		return NULL;
	out[n] = '\0';
	return out;
}

Test(cxx_name, innermost_template_arguments_go_first)
{
	const char *s = "std::vector<std::pair<int, std::string>, std::allocator<int> >::push_back(int const&)";
	cr_assert_str_eq(shorten(s, 72), "std::vector<std::pair<...>, std::allocator<int> >::push_back(int const&)",
			 "'<int>' is no longer than '<...>'");
	cr_assert_str_eq(shorten(s, 50), "std::vector<...>::push_back(int const&)");
	cr_assert_str_eq(shorten(s, 20), "std::vector<...>::push_back(...)",
			 "too wide even so: the shortest form, for the caller to cut");
}

Test(cxx_name, operators_are_not_brackets)
{
	const char *s = "bool std::operator< <char, std::char_traits<char> >(std::basic_string<char> const&, int)";
	cr_assert_str_eq(shorten(s, 61), "bool std::operator< <...>(std::basic_string<...> const&, int)");
	cr_assert_str_eq(shorten("std::ostream::operator<<(long)", 20), "std::ostream::operator<<(...)");
	cr_assert_str_eq(shorten("Foo<Bar<Baz> >::operator->() const", 20), "Foo<...>::operator->() const");
	cr_assert_str_eq(shorten("Call<Arg<Long> >::operator()(int, int, long)", 37), "Call<...>::operator()(int, int, long)");
}

Test(cxx_name, anonymous_namespaces_and_lambdas_are_kept)
{
	cr_assert_str_eq(shorten("(anonymous namespace)::helper(std::vector<long> const&)", 54),
			 "(anonymous namespace)::helper(std::vector<...> const&)");
	cr_assert_str_eq(shorten("(anonymous namespace)::helper(std::vector<long> const&)", 40),
			 "(anonymous namespace)::helper(...)");
	cr_assert_null(shorten("(anonymous namespace)::helper", 10), "nothing to hide");
	cr_assert_str_eq(shorten("main::{lambda(int)#1}::operator()(int, long) const", 30),
			 "main::{lambda(int)#1}::operator()(...) const",
			 "a lambda's parameters are part of its name");
	cr_assert_null(shorten("main::{lambda(int)#1}::operator()(int) const", 30), "'(int)' stays");
}

Test(cxx_name, short_groups_and_plain_names_stay)
{
	cr_assert_null(shorten("quicksort", 3), "no templates, no parameters");
	cr_assert_null(shorten("f<T>(a)", 2), "'<T>' and '(a)' are shorter than '<...>'");
	cr_assert_null(shorten("caf\xc3\xa9<int, long>(x)", 5), "non-ASCII: widths are not bytes");
	cr_assert_str_eq(shorten("f(unsigned long, char const*)", 10), "f(...)");
}

/* Names come from the profiles: any bytes, unbalanced brackets, no NUL.
 * Exact-size buffers, so that the sanitizer build sees any read past the
 * end; a shortened name is never longer. */
Test(cxx_name, any_text_is_safe)
{
	static const char alphabet[] = "<>(){}ab :operator-=,";
	uint64_t r = 7;
	for (int it = 0; it < 200000; it++) {
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		size_t len = (size_t)(r >> 58); /* 0..63 */
		char *s = malloc(len ? len : 1), *out = malloc(len ? len : 1);
		cr_assert(s && out);
		for (size_t i = 0; i < len; i++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			s[i] = alphabet[(r >> 33) % (sizeof alphabet - 1)];
		}
		size_t n = plumb_cxx_shorten(s, len, (size_t)(r >> 59), out);
		cr_assert_leq(n, len, "'%.*s': %zu bytes out of %zu", (int)len, s, n, len);
		free(s);
		free(out);
	}
}
