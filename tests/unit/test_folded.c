/* Folded stacks: reading (exact CCT costs, the tolerated variants, every
 * rejected input with its FILE:LINE), detection, and write-read round trips. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plumb/formats.h"

static char dir[] = "/tmp/plumb-folded-XXXXXX";
static char path[sizeof dir + 32];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/in.txt", dir);
}

static void teardown(void)
{
	char out[sizeof path];
	snprintf(out, sizeof out, "%s/out.txt", dir);
	unlink(path);
	unlink(out);
	rmdir(dir);
}

TestSuite(folded, .init = setup, .fini = teardown);

/* Write n bytes as the input file. */
static void put_file(const char *text, size_t n)
{
	FILE *fp = fopen(path, "wb");
	cr_assert_not_null(fp);
	cr_assert_eq(fwrite(text, 1, n, fp), n);
	cr_assert_eq(fclose(fp), 0);
}

/* Read text (n bytes) into a new profile; the reader's status in *rc. */
static plumb_profile *read_n(const char *text, size_t n, int *rc, plumb_error *err)
{
	put_file(text, n);
	plumb_profile *p = plumb_profile_new();
	cr_assert_not_null(p);
	plumb_error_clear(err);
	*rc = plumb_folded_read(p, path, NULL, err);
	return p;
}

static plumb_profile *read_ok(const char *text)
{
	plumb_error err;
	int rc;
	plumb_profile *p = read_n(text, strlen(text), &rc, &err);
	cr_assert_eq(rc, 0, "read failed: %s", err.message);
	return p;
}

/* Reading must fail with code and the message "in.txt:LINE: " + what. */
static void read_bad_n(const char *text, size_t n, plumb_status code, const char *what)
{
	plumb_error err;
	int rc;
	plumb_profile *p = read_n(text, n, &rc, &err);
	cr_assert_eq(rc, -1, "accepted: %s", text);
	cr_assert_eq(err.code, code, "code %d: %s", err.code, err.message);
	char want[2048];
	snprintf(want, sizeof want, "%s:%s", path, what);
	cr_assert_str_eq(err.message, want);
	plumb_profile_free(p);
}

static void read_bad(const char *text, plumb_status code, const char *what)
{
	read_bad_n(text, strlen(text), code, what);
}

/* The child of node whose function is named name (and, if mod is not
 * NULL, lives in that module); PLUMB_NONE if there is none. */
static plumb_id child_named(const plumb_profile *p, plumb_id node, const char *name,
			    const char *mod)
{
	for (plumb_id c = p->cct.v[node].first_child; c != PLUMB_NONE; c = p->cct.v[c].next_sibling) {
		plumb_id fn = p->frames.v[p->cct.v[c].frame].function;
		const char *m = plumb_function_module(p, fn);
		if (strcmp(plumb_function_name(p, fn), name) == 0 &&
		    (!mod || (m && strcmp(m, mod) == 0)))
			return c;
	}
	return PLUMB_NONE;
}

/* Self cost of the node at "a;b;c" (function names) in the first part. */
static uint64_t self_at(const plumb_profile *p, const char *stack)
{
	char *copy = strdup(stack), *save = NULL;
	plumb_id node = p->parts.v[0].root;
	for (char *t = strtok_r(copy, ";", &save); t && node != PLUMB_NONE;
	     t = strtok_r(NULL, ";", &save))
		node = child_named(p, node, t, NULL);
	free(copy);
	cr_assert_neq(node, PLUMB_NONE, "no node for %s", stack);
	return plumb_cct_self(p, node)[0];
}

/* Exclusive and inclusive samples of function fn, straight from the CCT:
 * a stack counts once for fn however often fn is on it. */
static void costs_of(const plumb_profile *p, plumb_id fn, uint64_t *ex, uint64_t *in)
{
	*ex = *in = 0;
	for (size_t i = 0; i < p->cct.n; i++) {
		uint64_t c = plumb_cct_self(p, (plumb_id)i)[0];
		if (!c || p->cct.v[i].frame == PLUMB_NONE)
			continue;
		if (p->frames.v[p->cct.v[i].frame].function == fn)
			*ex += c;
		for (plumb_id n = (plumb_id)i; p->cct.v[n].frame != PLUMB_NONE; n = p->cct.v[n].parent)
			if (p->frames.v[p->cct.v[n].frame].function == fn) {
				*in += c;
				break;
			}
	}
}

/* The function with this name and module (NULL: none), or PLUMB_NONE. */
static plumb_id find_fn(const plumb_profile *p, const char *name, const char *mod)
{
	for (size_t f = 0; f < p->functions.n; f++) {
		const char *m = plumb_function_module(p, (plumb_id)f);
		if (strcmp(plumb_function_name(p, (plumb_id)f), name) == 0 &&
		    ((!mod && !m) || (mod && m && strcmp(mod, m) == 0)))
			return (plumb_id)f;
	}
	return PLUMB_NONE;
}

static uint64_t excl(const plumb_profile *p, const char *name, const char *mod)
{
	uint64_t ex, in;
	plumb_id fn = find_fn(p, name, mod);
	cr_assert_neq(fn, PLUMB_NONE, "no function %s [%s]", name, mod ? mod : "");
	costs_of(p, fn, &ex, &in);
	return ex;
}

static uint64_t incl(const plumb_profile *p, const char *name, const char *mod)
{
	uint64_t ex, in;
	plumb_id fn = find_fn(p, name, mod);
	cr_assert_neq(fn, PLUMB_NONE, "no function %s [%s]", name, mod ? mod : "");
	costs_of(p, fn, &ex, &in);
	return in;
}

/* The folded text of p, as a malloc'd string: with modules (what the
 * reader reads back exactly), or as the writer's default (names only). */
static char *write_text_with(const plumb_profile *p, bool modules)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	cr_assert_not_null(fp);
	plumb_error err;
	plumb_folded_write_opts o = { modules };
	cr_assert_eq(modules ? plumb_folded_write_stream_with(p, fp, &o, &err)
			     : plumb_folded_write_stream(p, fp, &err), 0, "%s", err.message);
	cr_assert_eq(fclose(fp), 0);
	return buf;
}

static char *write_text(const plumb_profile *p)
{
	return write_text_with(p, true);
}

/* ---- reading ------------------------------------------------------------ */

Test(folded, simple_file_exact_costs)
{
	plumb_profile *p = read_ok("main;foo 3\nmain;foo;bar 5\nmain;baz 2\nmain 1\n");
	cr_assert_eq(p->events.n, 1);
	cr_assert_str_eq(plumb_str(p, p->events.v[0].name), "samples");
	cr_assert_str_eq(plumb_str(p, p->events.v[0].long_name), "Samples");
	cr_assert_str_eq(plumb_str(p, p->events.v[0].unit), "samples");
	cr_assert_eq(p->parts.n, 1);
	cr_assert_eq(p->cct.n, 5); /* root, main, foo, bar, baz */
	cr_assert_eq(self_at(p, "main"), 1);
	cr_assert_eq(self_at(p, "main;foo"), 3);
	cr_assert_eq(self_at(p, "main;foo;bar"), 5);
	cr_assert_eq(self_at(p, "main;baz"), 2);
	cr_assert_eq(incl(p, "main", NULL), 11);
	cr_assert_eq(incl(p, "foo", NULL), 8);
	cr_assert_eq(excl(p, "foo", NULL), 3);
	uint64_t total;
	plumb_error err;
	cr_assert_eq(plumb_profile_totals(p, &total, &err), 0);
	cr_assert_eq(total, 11);
	plumb_profile_free(p);
}

Test(folded, repeated_stacks_are_summed)
{
	plumb_profile *p = read_ok("a;b 1\nc 4\na;b 2\na;b 3\na;b;c 1\na;b 10\n");
	cr_assert_eq(self_at(p, "a;b"), 16);
	cr_assert_eq(self_at(p, "c"), 4);
	cr_assert_eq(self_at(p, "a;b;c"), 1);
	cr_assert_eq(incl(p, "c", NULL), 5);
	cr_assert_eq(p->cct.n, 5);
	plumb_profile_free(p);
}

Test(folded, spaces_inside_frames)
{
	plumb_profile *p = read_ok(
		"main;operator new(unsigned long);std::vector<int, std::allocator<int> >::push_back 7\n"
		"main;operator new(unsigned long) 2\n");
	cr_assert_eq(self_at(p, "main;operator new(unsigned long);"
				"std::vector<int, std::allocator<int> >::push_back"), 7);
	cr_assert_eq(self_at(p, "main;operator new(unsigned long)"), 2);
	cr_assert_eq(incl(p, "operator new(unsigned long)", NULL), 9);
	plumb_profile_free(p);
}

Test(folded, module_suffix)
{
	plumb_profile *p = read_ok("main;read [libc.so.6] 4\n"
				   "main;[libc.so.6] 2\n"
				   "main;write  [/usr/lib/x86_64-linux-gnu/libc.so.6] 1\n"
				   "main;std::vector<int>::operator[] 5\n"
				   "main;f(int) [clone .isra.0] 6\n"
				   "main;g [unknown] 8\n"
				   "main;[unknown] 9\n");
	cr_assert_eq(excl(p, "read", "libc.so.6"), 4);
	cr_assert_eq(excl(p, "[libc.so.6]", "libc.so.6"), 2);
	cr_assert_eq(excl(p, "write", "/usr/lib/x86_64-linux-gnu/libc.so.6"), 1);
	cr_assert_eq(excl(p, "std::vector<int>::operator[]", NULL), 5);
	cr_assert_eq(excl(p, "f(int) [clone .isra.0]", NULL), 6);
	cr_assert_eq(excl(p, "g [unknown]", NULL), 8); /* perf's "no module" */
	cr_assert_eq(excl(p, "[unknown]", NULL), 9);
	cr_assert_eq(p->modules.n, 2);
	plumb_profile_free(p);
}

Test(folded, annotation_suffixes)
{
	plumb_profile *p = read_ok("java;Interpreter_[j];sys_read_[k] 3\n"
				   "java;inlined_[i] 2\n"
				   "java;[kernel.kallsyms]_[k] 1\n"
				   "java;waker_[w] 4\n"
				   "java;sys_read 5\n"
				   "java;twice_[k]_[k] 6\n"
				   "java;spaced _[k] 7\n"
				   "java;_[k] 8\n"
				   "java;a_[k] [m.so] 9\n"
				   "java;f 4_[k] 10\n");
	cr_assert_eq(excl(p, "sys_read", NULL), 8); /* sys_read_[k] is sys_read */
	cr_assert_eq(incl(p, "Interpreter", NULL), 3);
	cr_assert_eq(excl(p, "inlined", NULL), 2);
	cr_assert_eq(excl(p, "[kernel.kallsyms]", "kernel.kallsyms"), 1);
	cr_assert_eq(excl(p, "waker", NULL), 4);
	cr_assert_eq(excl(p, "twice", NULL), 6);
	cr_assert_eq(excl(p, "spaced", NULL), 7);
	cr_assert_eq(excl(p, "_[k]", NULL), 8);
	cr_assert_eq(excl(p, "a_[k]", "m.so"), 9);
	cr_assert_eq(excl(p, "f 4_[k]", NULL), 10); /* "f 4" could not be written */
	plumb_profile_free(p);
}

Test(folded, crlf_blank_lines_and_whitespace)
{
	plumb_profile *p = read_ok("\r\n\n  a;b 1  \r\n\t\n   \r\na;b\t2\r\n a ; c  3\n\n");
	cr_assert_eq(self_at(p, "a;b"), 3);
	cr_assert_eq(self_at(p, "a;c"), 3);
	cr_assert_eq(p->cct.n, 4);
	plumb_profile_free(p);
}

Test(folded, last_line_without_newline)
{
	plumb_profile *p = read_ok("a;b 1\na;c 2");
	cr_assert_eq(self_at(p, "a;c"), 2);
	plumb_profile_free(p);
	p = read_ok("a;c 2\r");
	cr_assert_eq(self_at(p, "a;c"), 2);
	plumb_profile_free(p);
}

Test(folded, empty_file_and_zero_counts)
{
	plumb_profile *p = read_ok("");
	cr_assert_eq(p->events.n, 1);
	cr_assert_eq(p->cct.n, 1);
	plumb_profile_free(p);
	p = read_ok("a;b 0\na;b 000012\n");
	cr_assert_eq(self_at(p, "a;b"), 12);
	plumb_profile_free(p);
}

Test(folded, largest_count)
{
	plumb_profile *p = read_ok("a 18446744073709551615\nb 1\n");
	cr_assert_eq(self_at(p, "a"), UINT64_MAX);
	plumb_profile_free(p);
}

Test(folded, sample_files)
{
	static const char *const files[] = { "simple.folded", "perf.folded", "cpp.folded",
					     "crlf.folded" };
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		char f[256];
		snprintf(f, sizeof f, "tests/data/folded/%s", files[i]);
		plumb_profile *p = plumb_profile_new();
		plumb_error err;
		cr_assert_eq(plumb_folded_read(p, f, NULL, &err), 0, "%s", err.message);
		uint64_t total;
		cr_assert_eq(plumb_profile_totals(p, &total, &err), 0);
		cr_assert_gt(total, 0, "%s", f);
		plumb_profile_free(p);
	}
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_eq(plumb_folded_read(p, "tests/data/folded/perf.folded", NULL, &err), 0);
	cr_assert_eq(excl(p, "[libc.so.6]", "libc.so.6"), 2);
	cr_assert_eq(incl(p, "do_syscall_64", NULL), 17);
	plumb_profile_free(p);
}

/* A deep stack and a long frame: no small limits, no recursion. */
Test(folded, long_lines)
{
	size_t depth = 100000, cap = depth * 8 + 4200000;
	char *s = malloc(cap);
	size_t n = 0;
	for (size_t i = 0; i < depth; i++)
		n += (size_t)sprintf(s + n, "%sf%zu", i ? ";" : "", i % 1000);
	n += (size_t)sprintf(s + n, " 5\n");
	memset(s + n, 'x', 4000000);
	n += 4000000;
	n += (size_t)sprintf(s + n, " 2\n");
	plumb_error err;
	int rc;
	plumb_profile *p = read_n(s, n, &rc, &err);
	cr_assert_eq(rc, 0, "%s", err.message);
	cr_assert_eq(p->cct.n, depth + 2);
	cr_assert_eq(incl(p, "f999", NULL), 5);
	cr_assert_eq(p->functions.n, 1001);
	plumb_profile_free(p);
	free(s);
}

/* Random stacks in random order, with repeats, against sums kept here:
 * exercises the reuse of the previous line's path and the frame cache. */
Test(folded, random_stacks_match_reference)
{
	static const char *const names[] = { "a", "b", "bc", "b c", "main", "x [m.so]", "op[]",
					     "k_[k]", " a ", "[lib.so]" };
	enum { DISTINCT = 400, LINES = 80000 }; /* about 2 MiB: more than one read buffer */
	char *stacks[DISTINCT];
	uint64_t want[DISTINCT] = { 0 };
	unsigned seed = 12345;
	for (int i = 0; i < DISTINCT; i++) {
		char buf[512];
		size_t n = 0, d = 1 + (size_t)(rand_r(&seed) % 10);
		for (size_t j = 0; j < d; j++)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", j ? ";" : "",
					      names[rand_r(&seed) % 10]);
		stacks[i] = strdup(buf);
	}
	size_t cap = (size_t)LINES * 120, n = 0;
	char *text = malloc(cap);
	for (int l = 0; l < LINES; l++) {
		int i = rand_r(&seed) % DISTINCT;
		if (l % 3 == 1)
			i = (i % 7); /* frequent repeats, often on consecutive lines */
		uint64_t c = (uint64_t)(rand_r(&seed) % 1000);
		want[i] += c;
		n += (size_t)snprintf(text + n, cap - n, "%s %" PRIu64 "\n", stacks[i], c);
	}
	cr_assert_gt(n, (size_t)1 << 20);
	plumb_error err;
	int rc;
	plumb_profile *p = read_n(text, n, &rc, &err);
	cr_assert_eq(rc, 0, "%s", err.message);
	uint64_t total = 0, got_total = 0;
	for (int i = 0; i < DISTINCT; i++)
		total += want[i];
	cr_assert_eq(plumb_profile_totals(p, &got_total, &err), 0);
	cr_assert_eq(got_total, total);
	/* Different texts may name one path (" a " is "a", "k_[k]" is "k"):
	 * find each stack's node by its functions, as read from it alone. */
	uint64_t *expect = calloc(p->cct.n, sizeof *expect);
	for (int i = 0; i < DISTINCT; i++) {
		char line[600];
		snprintf(line, sizeof line, "%s 1\n", stacks[i]);
		plumb_profile *one = read_ok(line);
		plumb_id leaf = PLUMB_NONE;
		for (size_t k = 0; k < one->cct.n; k++)
			if (plumb_cct_self(one, (plumb_id)k)[0])
				leaf = (plumb_id)k;
		plumb_id chain[32];
		size_t d = 0;
		for (plumb_id k = leaf; one->cct.v[k].parent != PLUMB_NONE; k = one->cct.v[k].parent)
			chain[d++] = one->frames.v[one->cct.v[k].frame].function;
		plumb_id node = p->parts.v[0].root;
		while (d > 0 && node != PLUMB_NONE) {
			plumb_id fn = chain[--d];
			node = child_named(p, node, plumb_function_name(one, fn),
					   plumb_function_module(one, fn));
		}
		cr_assert_neq(node, PLUMB_NONE, "%s", stacks[i]);
		expect[node] += want[i];
		plumb_profile_free(one);
	}
	for (size_t k = 0; k < p->cct.n; k++)
		cr_assert_eq(plumb_cct_self(p, (plumb_id)k)[0], expect[k], "node %zu", k);
	free(expect);
	plumb_profile_free(p);
	for (int i = 0; i < DISTINCT; i++)
		free(stacks[i]);
	free(text);
}

/* Texts that differ only in spaces around frames are one stack. */
Test(folded, spacing_variants_are_one_stack)
{
	plumb_profile *p = read_ok("a ; b 1\na;b 2\n a;b  3\na\t;b\t4\na;b;c 5\na ;b; c 6\n");
	cr_assert_eq(self_at(p, "a;b"), 10);
	cr_assert_eq(self_at(p, "a;b;c"), 11);
	cr_assert_eq(p->cct.n, 4);
	plumb_profile_free(p);
	/* their sum is checked too: the stack's last line is named */
	read_bad("a;b 18446744073709551615\nc 1\na ;b 1\n", PLUMB_ERR_OVERFLOW,
		 "3: expected the samples of a stack to total at most 18446744073709551615, "
		 "got more");
}

/* Through detection: a damaged line further down is named by the reader. */
Test(folded, read_file_names_the_bad_line)
{
	put_file("main;a 1\nmain;b 2\nmain;foo\nmain;c 3\n", 36);
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	plumb_format fmt = PLUMB_FMT_UNKNOWN;
	cr_assert_eq(plumb_detect_file(path, &fmt, &err), 0, "%s", err.message);
	cr_assert_eq(fmt, PLUMB_FMT_FOLDED);
	cr_assert_eq(plumb_read_file(p, path, NULL, NULL, &err), -1);
	char want[256];
	snprintf(want, sizeof want, "%s:3: expected a sample count after the stack, got \"main;foo\"",
		 path);
	cr_assert_str_eq(err.message, want);
	plumb_profile_free(p);
}

Test(folded, adds_to_a_profile_with_samples)
{
	plumb_profile *p = read_ok("a 1\n");
	plumb_error err;
	put_file("a 2\nb 3\n", 8);
	cr_assert_eq(plumb_folded_read(p, path, NULL, &err), 0, "%s", err.message);
	cr_assert_eq(self_at(p, "a"), 3);
	cr_assert_eq(p->events.n, 1);
	plumb_profile_free(p);

	p = plumb_profile_new();
	cr_assert_geq(plumb_event_add(p, "Ir", NULL, NULL, &err), 0);
	cr_assert_eq(plumb_folded_read(p, path, NULL, &err), -1);
	cr_assert_eq(err.code, PLUMB_ERR_FORMAT);
	cr_assert(strstr(err.message, "first event is \"samples\""), "%s", err.message);
	cr_assert(strstr(err.message, "\"Ir\""), "%s", err.message);
	plumb_profile_free(p);
}

/* ---- rejected input ----------------------------------------------------- */

Test(folded, line_without_count)
{
	read_bad("a 1\nb 2\nmain;foo\n", PLUMB_ERR_FORMAT,
		 "3: expected a sample count after the stack, got \"main;foo\"");
	read_bad("\n\n42\n", PLUMB_ERR_FORMAT,
		 "3: expected a stack before the sample count, got only \"42\"");
}

Test(folded, bad_counts)
{
	read_bad("a -5\n", PLUMB_ERR_FORMAT, "1: expected a sample count of 0 or more, got \"-5\"");
	const char *const bad[] = { "12abc", "1e5", "1.5", "+3", "0x10", "-", "-x", "12,5" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char text[64], what[256];
		snprintf(text, sizeof text, "main;a 1\nmain;b %s\n", bad[i]);
		snprintf(what, sizeof what,
			 "2: expected a sample count (decimal digits) at the end of the line, got \"%s\"",
			 bad[i]);
		read_bad(text, PLUMB_ERR_FORMAT, what);
	}
	read_bad("a 18446744073709551616\n", PLUMB_ERR_FORMAT,
		 "1: expected a sample count of at most 18446744073709551615, "
		 "got \"18446744073709551616\"");
	read_bad("a 99999999999999999999999999\n", PLUMB_ERR_FORMAT,
		 "1: expected a sample count of at most 18446744073709551615, "
		 "got \"99999999999999999999999999\"");
	read_bad("a;b 5 7\n", PLUMB_ERR_FORMAT,
		 "1: expected one sample count at the end of the line, got two (\"5 7\"); "
		 "differential folded files are not supported");
}

Test(folded, empty_frames)
{
	read_bad("main;;foo 1\n", PLUMB_ERR_FORMAT,
		 "1: expected a function name in frame 2 of the stack, got an empty frame in "
		 "\"main;;foo\"");
	read_bad("x 1\n;main 1\n", PLUMB_ERR_FORMAT,
		 "2: expected a function name in frame 1 of the stack, got an empty frame in \";main\"");
	read_bad("main;foo; 1\n", PLUMB_ERR_FORMAT,
		 "1: expected a function name in frame 3 of the stack, got an empty frame in "
		 "\"main;foo;\"");
	read_bad("main; ;foo 1\n", PLUMB_ERR_FORMAT,
		 "1: expected a function name in frame 2 of the stack, got an empty frame in "
		 "\"main; ;foo\"");
	/* after a line that shares the prefix, the frame number is still right */
	read_bad("main;foo;bar 1\nmain;foo;;x 1\n", PLUMB_ERR_FORMAT,
		 "2: expected a function name in frame 3 of the stack, got an empty frame in "
		 "\"main;foo;;x\"");
	read_bad(";\t1\n", PLUMB_ERR_FORMAT,
		 "1: expected a function name in frame 1 of the stack, got an empty frame in \";\"");
}

Test(folded, nul_byte)
{
	read_bad_n("a 1\nb\0c 2\n", 10, PLUMB_ERR_FORMAT,
		   "2: expected text, got a NUL byte at column 2");
	read_bad_n("\0", 1, PLUMB_ERR_FORMAT, "1: expected text, got a NUL byte at column 1");
}

/* Control bytes have no place in a folded file (and could not be written
 * back): only tabs, and "\r" before the line's end, are allowed. */
Test(folded, control_bytes)
{
	read_bad("a;x\f5_[k] 1\n", PLUMB_ERR_FORMAT,
		 "1: expected text, got the control byte 0x0c at column 4");
	read_bad("a 1\nb\x01 2\n", PLUMB_ERR_FORMAT,
		 "2: expected text, got the control byte 0x01 at column 2");
	read_bad("a;b 1\r\r\n", PLUMB_ERR_FORMAT, /* one CR ends the line, one is in the count */
		 "1: expected a sample count (decimal digits) at the end of the line, got \"1\\x0d\"");
	read_bad("\va;b 1\n", PLUMB_ERR_FORMAT,
		 "1: expected text, got the control byte 0x0b at column 1");
	read_bad("a\rb 1\n", PLUMB_ERR_FORMAT,
		 "1: expected text, got the control byte 0x0d at column 2");
	read_bad("0123456789abcdef;\x1f 1\n", PLUMB_ERR_FORMAT,
		 "1: expected text, got the control byte 0x1f at column 18");
	plumb_profile *p = read_ok("a\tb;\tc\t\t7\r\nd\x7f 1\n");
	cr_assert_eq(excl(p, "c", NULL), 7);
	cr_assert_eq(excl(p, "d\x7f", NULL), 1);
	plumb_profile_free(p);
}

Test(folded, sum_overflow)
{
	read_bad("a;b 18446744073709551615\nc 1\na;b 18446744073709551615\n", PLUMB_ERR_OVERFLOW,
		 "3: expected the samples of a stack to total at most 18446744073709551615, "
		 "got more (adding 18446744073709551615)");
	read_bad("a;b 18446744073709551615\na;b 1\n", PLUMB_ERR_OVERFLOW,
		 "2: expected the samples of a stack to total at most 18446744073709551615, "
		 "got more (adding 1)");
}

Test(folded, long_text_is_cut_in_messages)
{
	char text[400];
	memset(text, 'x', 300);
	memcpy(text + 300, " 1;2\n", 6);
	plumb_error err;
	int rc;
	plumb_profile *p = read_n(text, strlen(text), &rc, &err);
	cr_assert_eq(rc, -1);
	cr_assert(strstr(err.message, "got \"1;2\""), "%s", err.message);
	plumb_profile_free(p);
	/* "a"yyy...y": no count; the quote escapes and is cut */
	memset(text, 'y', 300);
	memcpy(text, "a\"", 2);
	memcpy(text + 300, "\n", 2);
	p = read_n(text, strlen(text), &rc, &err);
	cr_assert_eq(rc, -1);
	cr_assert(strstr(err.message, "got \"a\\\"yyy"), "%s", err.message);
	cr_assert(strstr(err.message, "yyy...\""), "%s", err.message);
	cr_assert_lt(strlen(err.message), 200);
	plumb_profile_free(p);
}

Test(folded, unopenable_inputs)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	char missing[sizeof dir + 32];
	snprintf(missing, sizeof missing, "%s/missing.txt", dir);
	cr_assert_eq(plumb_folded_read(p, missing, NULL, &err), -1);
	cr_assert_eq(err.code, PLUMB_ERR_IO);
	cr_assert(strstr(err.message, "missing.txt"), "%s", err.message);
	cr_assert_eq(plumb_folded_read(p, dir, NULL, &err), -1);
	cr_assert_eq(err.code, PLUMB_ERR_IO);
	plumb_profile_free(p);
}

/* ---- detection ------------------------------------------------------------ */

static bool detect(const char *s)
{
	return plumb_folded_detect((const unsigned char *)s, strlen(s));
}

Test(folded, detect_accepts)
{
	cr_assert(detect("main;foo 1\n"));
	cr_assert(detect("main 1"));
	cr_assert(detect("main;Foo::operator= 5\nmain;std::operator<< 2\n"));
	cr_assert(detect("\n\n  main;foo;bar 12\r\nmain;foo 3\r\n"));
	cr_assert(detect("main;operator new(unsigned long);std::vector<int, std::allocator<int> >::"
			 "push_back 7\n"));
	cr_assert(detect("perf;read [libc.so.6];sys_read_[k] 7\tmain;foo 1\n"));
	/* the head may end in the middle of a line */
	cr_assert(detect("main;foo 1\nmain;bar 2\nmain;ba"));
	cr_assert(detect("main;foo 1\nmain;bar 2\nmain;bar x"));
	/* one damaged line among good ones is left to the reader to name */
	cr_assert(detect("a;b 1\nc;d 2\nmain;foo\ne 3\n"));
}

Test(folded, detect_rejects)
{
	cr_assert_not(detect(""));
	cr_assert_not(detect("\n\n"));
	cr_assert_not(plumb_folded_detect(NULL, 0));
	static const unsigned char sqlite[] = "SQLite format 3\0\x10\0\1\1 1\n";
	cr_assert_not(plumb_folded_detect(sqlite, sizeof sqlite - 1));
	static const unsigned char gmon[] = "gmon\1\0\0\0\0\0\0\0 1\n";
	cr_assert_not(plumb_folded_detect(gmon, sizeof gmon - 1));
	static const unsigned char gz[] = "\x1f\x8b\x08\x00 1\n";
	cr_assert_not(plumb_folded_detect(gz, sizeof gz - 1));
	cr_assert_not(detect("# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n"));
	cr_assert_not(detect("version: 1\ncreator: callgrind-3.19.0\npid: 12\n"));
	cr_assert_not(detect("events: Ir\nfl=a.c\nfn=main\n16 3\n"));
	cr_assert_not(detect("hello world\n"));
	cr_assert_not(detect("main;foo\nmain;bar 1\n"));
	cr_assert_not(detect("a;b 5 7\n"));
	cr_assert_not(detect("a;b 1.5\n"));
	cr_assert_not(detect("a;b -1\n"));
	cr_assert_not(detect("1 2 3\n4 5 6\n"));
	cr_assert_not(detect("{\"a\": 1}\n"));
	cr_assert_not(detect("key=12\n"));
	cr_assert_not(detect("totals: 12\nsummary: 12\n"));
	cr_assert_not(detect("a;b 1\nx\ny\nz\n"));
	cr_assert_not(detect("a;b\x01 1\n"));
	cr_assert_not(detect("main;foo 123456789012345678901\n"));
}

/* ---- writing ------------------------------------------------------------- */

Test(folded, write_sorted_and_merged)
{
	plumb_profile *p = read_ok("main;foo 3\n"
				   "main;read [libc.so.6] 4\n"
				   "z 1\n"
				   "main;[libc.so.6] 2\n"
				   "main;foo 1\n"
				   "main;foo;bar_[k] 0\n"
				   "a b;c 1\n"
				   "a;b 1\n"
				   "a 1\n"
				   "main;foo\t[x.so] 6\n");
	char *text = write_text(p);
	cr_assert_str_eq(text, "a 1\n"
			       "a b;c 1\n"
			       "a;b 1\n"
			       "main;[libc.so.6] 2\n"
			       "main;foo 4\n"
			       "main;foo [x.so] 6\n"
			       "main;read [libc.so.6] 4\n"
			       "z 1\n");
	free(text);
	plumb_profile_free(p);
}

/* By default frames are names alone, as perf's stackcollapse and
 * flamegraph.pl print them: one name in two modules is one frame. A frame
 * known only by its module keeps its "[libc.so.6]". */
Test(folded, write_names_without_modules_by_default)
{
	plumb_profile *p = read_ok("main;foo 3\n"
				   "main;read [libc.so.6] 4\n"
				   "main;[libc.so.6] 2\n"
				   "main;foo\t[x.so] 6\n"
				   "other root;x [/opt/lib/libx.so.1] 11\n");
	char *text = write_text_with(p, false);
	cr_assert_str_eq(text, "main;[libc.so.6] 2\n"
			       "main;foo 9\n"
			       "main;read 4\n"
			       "other root;x 11\n");
	free(text);
	char out[sizeof path];
	snprintf(out, sizeof out, "%s/names.folded", dir);
	plumb_error err;
	cr_assert_eq(plumb_folded_write(p, out, &err), 0, "%s", err.message);
	plumb_profile *q = plumb_profile_new();
	cr_assert_eq(plumb_folded_read(q, out, NULL, &err), 0, "%s", err.message);
	cr_assert_eq(excl(q, "foo", NULL), 9);
	cr_assert_eq(excl(q, "read", NULL), 4);
	cr_assert_eq(incl(q, "main", NULL), 15);
	plumb_profile_free(q);
	plumb_profile_free(p);
}

Test(folded, write_merges_parts_and_same_text)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "cycles", NULL, NULL, &err), 0);
	cr_assert_geq(plumb_event_add(p, "instructions", NULL, NULL, &err), 0);
	plumb_id t1 = plumb_part_add(p, PLUMB_PART_THREAD, "t1", 1, 1);
	plumb_id t2 = plumb_part_add(p, PLUMB_PART_THREAD, "t2", 1, 2);
	plumb_id m = plumb_module_intern(p, "/lib/libm.so", NULL);
	plumb_id fmain = plumb_function_intern(p, "main", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_id fsin = plumb_function_intern(p, "sin", NULL, m, PLUMB_NONE, 0);
	plumb_id odd = plumb_function_intern(p, "a;b\nc", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_id fr[4] = {
		plumb_frame_intern(p, fmain, PLUMB_NONE, 10, 0),
		plumb_frame_intern(p, fmain, PLUMB_NONE, 12, 0), /* another line of main */
		plumb_frame_intern(p, fsin, PLUMB_NONE, 0, 0x1234),
		plumb_frame_intern(p, odd, PLUMB_NONE, 0, 0),
	};
	plumb_id a[2] = { fr[0], fr[2] }, b[2] = { fr[1], fr[2] }, c[2] = { fr[0], fr[3] };
	uint64_t w1[2] = { 5, 100 }, w2[2] = { 7, 100 }, w3[2] = { 0, 100 }, w4[2] = { 1, 0 };
	cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, t1, a, 2), w1, &err), 0);
	cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, t2, a, 2), w2, &err), 0);
	cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, t2, b, 2), w2, &err), 0);
	cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, t1, b, 1), w3, &err), 0);
	cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, t1, c, 2), w4, &err), 0);
	char *text = write_text(p);
	cr_assert_str_eq(text, "main;a:b?c 1\nmain;sin [/lib/libm.so] 19\n");
	free(text);
	plumb_profile_free(p);
}

Test(folded, write_nothing_and_errors)
{
	plumb_profile *p = plumb_profile_new();
	char *text = write_text(p);
	cr_assert_str_eq(text, "");
	free(text);
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "Ir", NULL, NULL, &err), 0);
	plumb_id fn = plumb_function_intern(p, "main", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_id fr = plumb_frame_intern(p, fn, PLUMB_NONE, 0, 0);
	uint64_t one = 1;
	cr_assert_eq(plumb_cg_add_self(p, plumb_part_default(p), fr, &one, &err), 0);
	FILE *fp = fopen("/dev/null", "w");
	cr_assert_eq(plumb_folded_write_stream(p, fp, &err), -1);
	cr_assert_eq(err.code, PLUMB_ERR_UNSUPPORTED);
	fclose(fp);
	plumb_profile_free(p);

	/* the same stack in two parts may overflow when merged */
	p = read_ok("a 18446744073709551615\n");
	plumb_id part = plumb_part_add(p, PLUMB_PART_THREAD, NULL, -1, -1);
	plumb_id frames[1] = { p->cct.v[1].frame };
	cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, part, frames, 1), &one, &err), 0);
	fp = fopen("/dev/null", "w");
	cr_assert_eq(plumb_folded_write_stream(p, fp, &err), -1);
	cr_assert_eq(err.code, PLUMB_ERR_OVERFLOW);
	fclose(fp);
	plumb_profile_free(p);
}

/* Write to a file and read it back: every function keeps its exclusive and
 * inclusive samples, and the second write is the same text. */
Test(folded, round_trip)
{
	plumb_profile *p = read_ok(
		"main;operator new(unsigned long);std::vector<int, std::allocator<int> >::push_back 7\n"
		"main;read [libc.so.6];[kernel.kallsyms]_[k];sys_read_[k] 4\n"
		"main;[libc.so.6] 2\n"
		"main;f;g;f;g 3\n"
		"main;f;g;f 5\n"
		"main;f 1\n"
		"main;read [libc.so.6] 9\n"
		"main;f;g;f;g 3\n"
		"other root;x [/opt/lib/libx.so.1] 11\n");
	char out[sizeof path];
	snprintf(out, sizeof out, "%s/out.txt", dir);
	plumb_error err;
	plumb_folded_write_opts o = { .modules = true };
	cr_assert_eq(plumb_folded_write_with(p, out, &o, &err), 0, "%s", err.message);
	plumb_profile *q = plumb_profile_new();
	cr_assert_eq(plumb_folded_read(q, out, NULL, &err), 0, "%s", err.message);
	cr_assert_eq(q->functions.n, p->functions.n);
	cr_assert_eq(q->cct.n, p->cct.n);
	for (size_t f = 0; f < p->functions.n; f++) {
		const char *name = plumb_function_name(p, (plumb_id)f);
		const char *mod = plumb_function_module(p, (plumb_id)f);
		cr_assert_eq(excl(q, name, mod), excl(p, name, mod), "%s", name);
		cr_assert_eq(incl(q, name, mod), incl(p, name, mod), "%s", name);
	}
	cr_assert_eq(incl(q, "g", NULL), 11);
	cr_assert_eq(incl(q, "f", NULL), 12);
	cr_assert_eq(excl(q, "sys_read", NULL), 4);
	char *t1 = write_text(p), *t2 = write_text(q);
	cr_assert_str_eq(t1, t2);
	free(t1);
	free(t2);
	plumb_profile_free(q);
	plumb_profile_free(p);
}

/* Names near the reader's rules still give a fixed point: the second
 * write is the first (found by fuzzing). */
Test(folded, odd_names_write_stably)
{
	plumb_profile *p = read_ok("a;x\t5_[k] 1\n"
				   "a;do_  64_[k] 2\n"
				   "a;run(int, 4_[k] 3\n"
				   "a;y? [m.so] 4\n"
				   "a;b c;z\t[n.so] 5\n"
				   "a;[x] [y] 6\n"
				   "a;read2       [l?ibc.so.2] 7\n"
				   "a;f [clone .1] 8\n");
	char *t1 = write_text(p);
	char out[sizeof path];
	snprintf(out, sizeof out, "%s/out.txt", dir);
	FILE *fp = fopen(out, "w");
	fputs(t1, fp);
	fclose(fp);
	plumb_profile *q = plumb_profile_new();
	plumb_error err;
	cr_assert_eq(plumb_folded_read(q, out, NULL, &err), 0, "%s", err.message);
	char *t2 = write_text(q);
	cr_assert_str_eq(t2, t1);
	cr_assert_eq(excl(q, "y?", "m.so"), 4);
	cr_assert_eq(excl(q, "z", "n.so"), 5);
	cr_assert_eq(excl(q, "[x]", "y"), 6);
	cr_assert_eq(excl(q, "read2", "l?ibc.so.2"), 7);
	cr_assert_eq(excl(q, "f [clone .1]", NULL), 8);
	free(t1);
	free(t2);
	plumb_profile_free(q);
	plumb_profile_free(p);
}

/* Every line of the output is in byte order, for any mix of names. */
Test(folded, write_order_is_byte_order)
{
	static const char *const names[] = { "a", "a b", "a:b", "a(", "ab", "a;", "b", "[x]",
					     "a0" };
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_geq(plumb_event_add(p, "samples", NULL, NULL, &err), 0);
	plumb_id part = plumb_part_default(p);
	unsigned seed = 7;
	for (int i = 0; i < 500; i++) {
		plumb_id frames[4];
		size_t d = 1 + (size_t)(rand_r(&seed) % 4);
		for (size_t j = 0; j < d; j++) {
			plumb_id fn = plumb_function_intern(p, names[rand_r(&seed) % 9], NULL,
							    PLUMB_NONE, PLUMB_NONE, 0);
			frames[j] = plumb_frame_intern(p, fn, PLUMB_NONE, 0, 0);
		}
		uint64_t one = 1;
		cr_assert_eq(plumb_cct_add_self(p, plumb_cct_path(p, part, frames, d), &one, &err), 0);
	}
	char *text = write_text(p), *save = NULL, *prev = NULL;
	size_t lines = 0;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		*strrchr(l, ' ') = '\0';
		if (prev)
			cr_assert_lt(strcmp(prev, l), 0, "%s / %s", prev, l);
		prev = l;
		lines++;
	}
	cr_assert_gt(lines, 100);
	free(text);
	plumb_profile_free(p);
}

/* Damaged folded stacks the strict detection refuses still reach the
 * reader (which names the line); binary files do not. */
Test(folded, damaged_detection)
{
	static const char neg[] = "a;b -5\n", nul[] = "a;b 5\nc\0d 3\n", nul1[] = "a;b\0 5\n";
	cr_assert_not(plumb_folded_detect((const unsigned char *)neg, sizeof neg - 1));
	cr_assert(plumb_folded_detect_damaged((const unsigned char *)neg, sizeof neg - 1));
	cr_assert(plumb_folded_detect_damaged((const unsigned char *)nul, sizeof nul - 1));
	cr_assert(plumb_folded_detect_damaged((const unsigned char *)nul1, sizeof nul1 - 1));
	static const unsigned char sqlite[] = "SQLite format 3\0\x10\0\x01\x01\0@  \0\0\0\x01";
	static const unsigned char gmon[] = "gmon\0\0\0\x01\0\0\0\0\0\0\0\0\0\0\0\0\n";
	static const char words[] = "hello world\nthis is prose\n";
	cr_assert_not(plumb_folded_detect_damaged(sqlite, sizeof sqlite - 1));
	cr_assert_not(plumb_folded_detect_damaged(gmon, sizeof gmon - 1));
	cr_assert_not(plumb_folded_detect_damaged((const unsigned char *)words, sizeof words - 1));
	cr_assert_not(plumb_folded_detect_damaged(NULL, 0));
}
