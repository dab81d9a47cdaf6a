/* Callgrind writer: hand-built profiles written to memory and checked line
 * by line (header order, name compression, fi/fe, cfi/cob, calls, totals,
 * parts), the rules every output obeys, and failed writes. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plumb/formats.h"

TestSuite(callgrind_write);

/* ---- helpers ----------------------------------------------------------- */

/* The lines of a text (a copy, split in place). */
typedef struct lines {
	char *buf;
	char **v;
	size_t n;
} lines;

static lines split(const char *text)
{
	lines l = { strdup(text), calloc(strlen(text) + 2, sizeof(char *)), 0 };
	cr_assert(l.buf && l.v);
	for (char *s = l.buf; *s;) {
		char *nl = strchr(s, '\n');
		cr_assert_not_null(nl, "the output does not end in a newline");
		*nl = '\0';
		l.v[l.n++] = s;
		s = nl + 1;
	}
	return l;
}

static void lines_free(lines *l)
{
	free(l->buf);
	free(l->v);
}

/* The index of the first line equal to s at or after from; -1 if none. */
static long find_line(const lines *l, size_t from, const char *s)
{
	for (size_t i = from; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return (long)i;
	return -1;
}

static size_t count_prefix(const lines *l, const char *prefix)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += strncmp(l->v[i], prefix, strlen(prefix)) == 0;
	return n;
}

/* The rules of section 1 of the research notes that every output obeys. */
static void check_rules(const char *text)
{
	lines l = split(text);
	cr_assert_str_eq(l.v[0], "# callgrind format");
	for (size_t i = 0; i < l.n; i++) {
		const char *s = l.v[i];
		size_t key = strspn(s, "abcdefghijklmnopqrstuvwxyz");
		if (key && s[key] == '=')
			cr_assert(s[key + 1] != ' ', "space after '=': %s", s);
		cr_assert_null(strstr(s, "  "), "two spaces: %s", s);
		cr_assert_null(strchr(s, '\t'), "a tab: %s", s);
		cr_assert_null(strstr(s, "0X"), "upper-case hex: %s", s);
		/* Callgrind's own desc: lines keep their values' trailing spaces */
		if (strncmp(s, "desc: ", 6) != 0)
			cr_assert(!*s || s[strlen(s) - 1] != ' ', "trailing space: %s", s);
		cr_assert(strncmp(s, "calls=0 ", 8) != 0, "calls=0: %s", s);
		if (strncmp(s, "calls=", 6) == 0)
			cr_assert(i + 1 < l.n && l.v[i + 1][0] && strchr("0123456789*+-", l.v[i + 1][0]),
				  "calls= without a cost line: %s", s);
	}
	lines_free(&l);
}

/* Write p to memory; the text (to free) or NULL with err filled. */
static char *write_mem(const plumb_profile *p, plumb_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	cr_assert_not_null(fp);
	plumb_error_clear(err);
	int rc = plumb_callgrind_write_stream(p, fp, err);
	fclose(fp);
	if (rc) {
		free(buf);
		return NULL;
	}
	check_rules(buf);
	return buf;
}

static char *write_ok(const plumb_profile *p)
{
	plumb_error err;
	char *text = write_mem(p, &err);
	cr_assert_not_null(text, "write failed: %s", err.message);
	return text;
}

/* The body of the first section: the lines after "summary:" and a blank. */
static const char *body(const char *text)
{
	const char *s = strstr(text, "\nsummary:");
	cr_assert_not_null(s);
	s = strstr(s + 1, "\n\n");
	cr_assert_not_null(s);
	return s + 2;
}

static plumb_profile *new_profile(const char *event)
{
	plumb_profile *p = plumb_profile_new();
	cr_assert_not_null(p);
	plumb_error err;
	cr_assert_eq(plumb_event_add(p, event, NULL, NULL, &err), 0, "%s", err.message);
	return p;
}

static plumb_id fn_in(plumb_profile *p, const char *name, const char *file, const char *module,
		      uint32_t line)
{
	plumb_id fl = file ? plumb_file_intern(p, file) : PLUMB_NONE;
	plumb_id ob = module ? plumb_module_intern(p, module, NULL) : PLUMB_NONE;
	plumb_id f = plumb_function_intern(p, name, NULL, ob, fl, line);
	cr_assert_neq(f, PLUMB_NONE);
	return f;
}

static plumb_id frame_at(plumb_profile *p, plumb_id fn, const char *file, uint32_t line,
			 uint64_t addr)
{
	plumb_id fl = file ? plumb_file_intern(p, file) : PLUMB_NONE;
	plumb_id fr = plumb_frame_intern(p, fn, fl, line, addr);
	cr_assert_neq(fr, PLUMB_NONE);
	return fr;
}

static void cg_self(plumb_profile *p, plumb_id part, plumb_id frame, uint64_t c)
{
	plumb_error err;
	cr_assert_eq(plumb_cg_add_self(p, part, frame, &c, &err), 0, "%s", err.message);
}

static void arc(plumb_profile *p, plumb_id part, plumb_id site, plumb_id callee, uint64_t calls,
		const uint64_t *incl)
{
	plumb_error err;
	cr_assert_geq(plumb_arc_add(p, part, site, callee, calls, incl, &err), 0, "%s", err.message);
}

/* A stack of frames (root first) with self cost c at its leaf. */
static plumb_id stack(plumb_profile *p, plumb_id part, const plumb_id *frames, size_t n, uint64_t c)
{
	plumb_error err;
	plumb_id node = plumb_cct_path(p, part, frames, n);
	cr_assert_neq(node, PLUMB_NONE);
	cr_assert_eq(plumb_cct_add_self(p, node, &c, &err), 0, "%s", err.message);
	return node;
}

/* ---- header ------------------------------------------------------------- */

Test(callgrind_write, header_in_order)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_eq(plumb_event_add(p, "Ir", "Instruction Fetches", NULL, &err), 0);
	cr_assert_eq(plumb_event_add(p, "Dr", NULL, NULL, &err), 1);
	cr_assert_eq(plumb_event_add_derived(p, "Sum", NULL, "Ir + 2 * Dr", &err), 2, "%s", err.message);
	cr_assert_eq(plumb_event_add_derived(p, "Diff", "Ir less Dr", "Ir - Dr", &err), 3, "%s", err.message);
	cr_assert_eq(plumb_meta_set(p, "cmd", "./prog a\\b\nc", &err), 0);
	cr_assert_eq(plumb_meta_set(p, "pid", "4242", &err), 0);
	cr_assert_eq(plumb_meta_set(p, "callgrind.desc", "I1 cache: \nTrigger: Program termination", &err), 0);
	plumb_id part = plumb_part_default(p);
	plumb_id f = fn_in(p, "main", "m.c", NULL, 3);
	uint64_t c[4] = { 10, 4, 0, 0 };
	cr_assert_eq(plumb_cg_add_self(p, part, frame_at(p, f, NULL, 3, 0), c, &err), 0);
	c[0] = 5;
	c[1] = 0;
	cr_assert_eq(plumb_cg_add_self(p, part, frame_at(p, f, NULL, 4, 0), c, &err), 0);
	char *text = write_ok(p);
	lines l = split(text);
	const char *order[] = { "# callgrind format", "version: 1", "creator: plumb-" PLUMB_VERSION,
				"pid: 4242", "cmd: ./prog a\\\\b\\nc", "part: 1",
				"desc: I1 cache: ", "desc: Trigger: Program termination", "positions: line",
				"event: Ir : Instruction Fetches", "event: Sum = Ir + 2 * Dr", "event: Diff = Ir - Dr : Ir less Dr",
				"events: Ir Dr", "summary: 15 4" };
	size_t at = 0;
	for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
		long k = find_line(&l, 0, order[i]);
		cr_assert_geq(k, (long)at, "\"%s\" missing or out of order in:\n%s", order[i], text);
		at = (size_t)k;
	}
	/* the body: cost lines sorted by line, trailing zeros dropped, and the
	 * totals of the section at its end */
	cr_assert_str_eq(body(text), "fl=(1) m.c\nfn=(1) main\n3 10 4\n+1 5\n\ntotals: 15 4\n\n");
	cr_assert_eq(count_prefix(&l, "summary:"), 1);
	lines_free(&l);
	free(text);
	plumb_profile_free(p);
}

/* Event names are one token each, and different: "a b" is written a_b,
 * and the event really named a_b then a_b_2 (one event twice on the
 * events: line would be refused by readers). */
Test(callgrind_write, event_tokens_stay_apart)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_eq(plumb_event_add(p, "a b", NULL, NULL, &err), 0);
	cr_assert_eq(plumb_event_add(p, "a_b", NULL, NULL, &err), 1);
	cr_assert_eq(plumb_event_add(p, "a_b_2", NULL, NULL, &err), 2);
	plumb_id part = plumb_part_default(p);
	plumb_id f = fn_in(p, "main", "m.c", NULL, 3);
	uint64_t c[3] = { 1, 2, 3 };
	cr_assert_eq(plumb_cg_add_self(p, part, frame_at(p, f, NULL, 3, 0), c, &err), 0);
	char *text = write_ok(p);
	lines l = split(text);
	cr_assert_geq(find_line(&l, 0, "events: a_b a_b_3 a_b_2"), 0, "%s", text);
	lines_free(&l);
	free(text);
	plumb_profile_free(p);
}

/* One desc: line per line of the value, verbatim; empty lines dropped. */
Test(callgrind_write, desc_lines_verbatim)
{
	plumb_profile *p = new_profile("samples");
	plumb_error err;
	cr_assert_eq(plumb_meta_set(p, "callgrind.desc", "I1 cache: 32768 B\n\nLL cache: \nx\ry", &err), 0);
	char *text = write_ok(p);
	lines l = split(text);
	cr_assert_eq(find_line(&l, 0, "desc: I1 cache: 32768 B"), 5, "%s", text);
	cr_assert_eq(find_line(&l, 0, "desc: LL cache: "), 6, "%s", text);
	cr_assert_eq(find_line(&l, 0, "desc: x?y"), 7, "%s", text);
	lines_free(&l);
	free(text);
	plumb_profile_free(p);
}

Test(callgrind_write, no_events_is_an_error)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_null(write_mem(p, &err));
	cr_assert_eq(err.code, PLUMB_ERR_UNSUPPORTED);
	cr_assert(strstr(err.message, "without events"), "%s", err.message);
	plumb_profile_free(p);
}

/* ---- a call graph --------------------------------------------------------- */

/* main (m.c, object prog) calls work twice from line 7 and lib (l.c,
 * object libx.so) once from line 8; work calls lib from line 21. */
static plumb_profile *call_graph(void)
{
	plumb_profile *p = new_profile("Ir");
	plumb_id part = plumb_part_default(p);
	plumb_id m = fn_in(p, "main", "m.c", "prog", 5);
	plumb_id w = fn_in(p, "work", "m.c", "prog", 20);
	plumb_id lib = fn_in(p, "lib", "l.c", "libx.so", 40);
	cg_self(p, part, frame_at(p, m, NULL, 6, 0), 3);
	cg_self(p, part, frame_at(p, w, NULL, 20, 0), 100);
	cg_self(p, part, frame_at(p, w, NULL, 21, 0), 7);
	cg_self(p, part, frame_at(p, lib, NULL, 41, 0), 50);
	uint64_t i1 = 107 + 20, i2 = 30, i3 = 20;
	arc(p, part, frame_at(p, m, NULL, 7, 0), w, 2, &i1);
	arc(p, part, frame_at(p, m, NULL, 8, 0), lib, 1, &i2);
	arc(p, part, frame_at(p, w, NULL, 21, 0), lib, 4, &i3);
	return p;
}

Test(callgrind_write, call_graph_as_it_is)
{
	plumb_profile *p = call_graph();
	char *text = write_ok(p);
	/* objects by name (libx.so first), then files, then functions */
	cr_assert_str_eq(body(text),
			 "ob=(1) libx.so\n"
			 "fl=(1) l.c\n"
			 "fn=(1) lib\n"
			 "41 50\n"
			 "\n"
			 "ob=(2) prog\n"
			 "fl=(2) m.c\n"
			 "fn=(2) main\n"
			 "6 3\n"
			 "cfn=(3) work\n"
			 "calls=2 20\n"
			 "7 127\n"
			 "cob=(1)\n"
			 "cfi=(1)\n"
			 "cfn=(1)\n"
			 "calls=1 40\n"
			 "8 30\n"
			 "\n"
			 "fn=(3)\n"
			 "20 100\n"
			 "+1 7\n"
			 "cob=(1)\n"
			 "cfi=(1)\n"
			 "cfn=(1)\n"
			 "calls=4 40\n"
			 "* 20\n"
			 "\n"
			 "totals: 160\n"
			 "\n");
	cr_assert_null(strstr(text, "\n# "), "no note is needed:\n%s", text);
	free(text);
	plumb_profile_free(p);
}

/* Arcs without inclusive cost keep their count with cost 0; a count of 0
 * is written as 1, an unknown one as 1 too; each says so in a note. */
Test(callgrind_write, arcs_without_cost_or_count)
{
	plumb_profile *p = new_profile("Ir");
	plumb_id part = plumb_part_default(p);
	plumb_id m = fn_in(p, "main", NULL, NULL, 0);
	plumb_id a = fn_in(p, "a", NULL, NULL, 0), b = fn_in(p, "b", NULL, NULL, 0),
		 c = fn_in(p, "c", NULL, NULL, 0);
	cg_self(p, part, frame_at(p, a, NULL, 0, 0), 9);
	uint64_t incl = 12;
	arc(p, part, frame_at(p, m, NULL, 3, 0), a, 6, NULL);
	arc(p, part, frame_at(p, m, NULL, 4, 0), b, 0, &incl);
	arc(p, part, frame_at(p, m, NULL, 5, 0), c, PLUMB_COUNT_UNKNOWN, &incl);
	char *text = write_ok(p);
	cr_assert_str_eq(body(text),
			 "fl=(1) ???\n"
			 "fn=(1) a\n"
			 "0 9\n"
			 "\n"
			 "fn=(2) main\n"
			 "cfn=(1)\n"
			 "calls=6 0\n"
			 "3\n"
			 "cfn=(3) b\n"
			 "calls=1 0\n"
			 "4 12\n"
			 "cfn=(4) c\n"
			 "calls=1 0\n"
			 "5 12\n"
			 "\n"
			 "totals: 9\n"
			 "\n");
	lines l = split(text);
	cr_assert_geq(find_line(&l, 0, "# calls=1 stands for calls recorded with a count of 0."), 0, "%s", text);
	cr_assert_eq(count_prefix(&l, "# calls with cost 0"), 1, "%s", text);
	cr_assert_eq(count_prefix(&l, "# calls= counts: the profile has no call counts"), 1, "%s", text);
	cr_assert_lt(find_line(&l, 0, "# calls=1 stands for calls recorded with a count of 0."),
		     find_line(&l, 0, "positions: line"), "notes belong in the header");
	lines_free(&l);
	free(text);
	plumb_profile_free(p);
}

/* ---- inlined code ----------------------------------------------------------- */

Test(callgrind_write, inlined_code_under_fi_and_back_with_fe)
{
	plumb_profile *p = new_profile("Ir");
	plumb_id part = plumb_part_default(p);
	plumb_id f = fn_in(p, "f", "a.c", NULL, 10);
	plumb_id g = fn_in(p, "g", "a.c", NULL, 30);
	plumb_id h = fn_in(p, "h", "b.c", NULL, 50);
	cg_self(p, part, frame_at(p, f, NULL, 11, 0), 1);
	cg_self(p, part, frame_at(p, f, "inl.h", 3, 0), 2);
	cg_self(p, part, frame_at(p, f, "inl.h", 4, 0), 3);
	cg_self(p, part, frame_at(p, g, NULL, 31, 0), 4);
	cg_self(p, part, frame_at(p, h, "inl.h", 5, 0), 6);
	uint64_t incl = 6;
	/* a call from inlined code to a function in another file */
	arc(p, part, frame_at(p, f, "inl.h", 4, 0), h, 1, &incl);
	/* a call from inlined code to a function in the caller's own file */
	arc(p, part, frame_at(p, f, "inl.h", 4, 0), g, 1, &(uint64_t){ 4 });
	char *text = write_ok(p);
	cr_assert_str_eq(body(text),
			 "fl=(1) a.c\n"
			 "fn=(1) f\n"
			 "11 1\n"
			 "fi=(2) inl.h\n"
			 "3 2\n"
			 "+1 3\n"
			 "cfi=(1)\n"
			 "cfn=(2) g\n"
			 "calls=1 30\n"
			 "* 4\n"
			 "cfi=(3) b.c\n"
			 "cfn=(3) h\n"
			 "calls=1 50\n"
			 "* 6\n"
			 "fe=(1)\n"
			 "\n"
			 "fn=(2)\n"
			 "31 4\n"
			 "\n"
			 "fl=(3)\n"
			 "fn=(3)\n"
			 "fi=(2)\n"
			 "5 6\n"
			 "fe=(3)\n"
			 "\n"
			 "totals: 16\n"
			 "\n");
	free(text);
	plumb_profile_free(p);
}

/* ---- instruction addresses ------------------------------------------------ */

Test(callgrind_write, addresses_and_relative_positions)
{
	plumb_profile *p = new_profile("Ir");
	plumb_id part = plumb_part_default(p);
	plumb_id f = fn_in(p, "f", "a.c", NULL, 0);
	plumb_id g = fn_in(p, "g", "a.c", NULL, 0);
	cg_self(p, part, frame_at(p, f, NULL, 5, 0x401000), 1);
	cg_self(p, part, frame_at(p, f, NULL, 5, 0x401004), 2);
	cg_self(p, part, frame_at(p, f, NULL, 200, 0x4010AB), 3);
	cg_self(p, part, frame_at(p, f, NULL, 7, 0x40a000), 4);
	cg_self(p, part, frame_at(p, g, NULL, 90, 0x402000), 8);
	cg_self(p, part, frame_at(p, g, NULL, 95, 0x402010), 8);
	arc(p, part, frame_at(p, f, NULL, 6, 0x401008), g, 3, &(uint64_t){ 16 });
	char *text = write_ok(p);
	lines l = split(text);
	cr_assert_geq(find_line(&l, 0, "positions: instr line"), 0);
	lines_free(&l);
	cr_assert_str_eq(body(text),
			 "fl=(1) a.c\n"
			 "fn=(1) f\n"
			 "0x401000 5 1\n"
			 "+4 * 2\n"
			 /* a call site that is not the last position: absolute,
			  * and the next line is absolute too */
			 "cfn=(2) g\n"
			 "calls=3 0x402000 90\n"
			 "0x401008 6 16\n"
			 "0x4010ab 200 3\n"
			 "0x40a000 7 4\n"
			 "\n"
			 "fn=(2)\n"
			 "0x402000 90 8\n"
			 "+16 +5 8\n"
			 "\n"
			 "totals: 26\n"
			 "\n");
	free(text);
	plumb_profile_free(p);
}

/* ---- a calling context tree ----------------------------------------------- */

/* main -> f -> f -> g, main -> f -> g, main -> g: direct recursion and one
 * callee reached from two contexts of the same call site. */
Test(callgrind_write, cct_with_recursion)
{
	plumb_profile *p = new_profile("samples");
	plumb_id part = plumb_part_default(p);
	plumb_id m = frame_at(p, fn_in(p, "main", NULL, NULL, 0), NULL, 0, 0);
	plumb_id f = frame_at(p, fn_in(p, "f", NULL, NULL, 0), NULL, 0, 0);
	plumb_id g = frame_at(p, fn_in(p, "g", NULL, NULL, 0), NULL, 0, 0);
	stack(p, part, (plumb_id[]){ m }, 1, 1);
	stack(p, part, (plumb_id[]){ m, f }, 2, 2);
	stack(p, part, (plumb_id[]){ m, f, f }, 3, 4);
	stack(p, part, (plumb_id[]){ m, f, f, g }, 4, 8);
	stack(p, part, (plumb_id[]){ m, f, g }, 3, 16);
	stack(p, part, (plumb_id[]){ m, g }, 2, 32);
	char *text = write_ok(p);
	cr_assert_str_eq(body(text),
			 "fl=(1) ???\n"
			 "fn=(1) f\n"
			 "0 6\n"
			 "cfn=(1)\n"
			 "calls=1 0\n"
			 "0 12\n"
			 "cfn=(2) g\n"
			 "calls=1 0\n"
			 "0 24\n"
			 "\n"
			 "fn=(2)\n"
			 "0 56\n"
			 "\n"
			 "fn=(3) main\n"
			 "0 1\n"
			 "cfn=(1)\n"
			 "calls=1 0\n"
			 "0 30\n"
			 "cfn=(2)\n"
			 "calls=1 0\n"
			 "0 32\n"
			 "\n"
			 "totals: 63\n"
			 "\n");
	lines l = split(text);
	cr_assert_geq(find_line(&l, 0, "# calls= counts: the profile has no call counts (sampled stacks). A call"), 0, "%s", text);
	cr_assert_geq(find_line(&l, 0, "summary: 63"), 0);
	lines_free(&l);
	free(text);
	plumb_profile_free(p);
}

/* A sampled profile has no call counts: each call line says calls=1, not
 * the number of contexts it sums (helper -> parse here comes from three
 * contexts), and the header says why. */
Test(callgrind_write, sampled_calls_are_not_context_counts)
{
	plumb_profile *p = new_profile("samples");
	plumb_id part = plumb_part_default(p);
	plumb_id m = frame_at(p, fn_in(p, "main", NULL, NULL, 0), NULL, 3, 0);
	plumb_id x = frame_at(p, fn_in(p, "x", NULL, NULL, 0), NULL, 8, 0);
	plumb_id h = frame_at(p, fn_in(p, "helper", NULL, NULL, 0), NULL, 12, 0);
	plumb_id parse = frame_at(p, fn_in(p, "parse", NULL, NULL, 0), NULL, 20, 0);
	/* helper -> parse from three contexts: it was "3x" */
	stack(p, part, (plumb_id[]){ m, h, parse }, 3, 100);
	stack(p, part, (plumb_id[]){ m, x, h, parse }, 4, 50);
	stack(p, part, (plumb_id[]){ m, x, x, h, parse }, 5, 7);
	char *text = write_ok(p);
	lines l = split(text);
	long i = find_line(&l, 0, "cfn=(2) parse");
	cr_assert_geq(i, 0, "%s", text);
	cr_assert_str_eq(l.v[i + 1], "calls=1 20", "%s", text);
	cr_assert_str_eq(l.v[i + 2], "12 157");
	for (size_t k = 0; k < l.n; k++)
		if (strncmp(l.v[k], "calls=", 6) == 0)
			cr_assert_eq(strncmp(l.v[k], "calls=1 ", 8), 0, "%s", l.v[k]);
	cr_assert_geq(find_line(&l, 0, "# calls= counts: the profile has no call counts (sampled stacks). A call"), 0, "%s", text);
	lines_free(&l);
	free(text);
	plumb_profile_free(p);
}

/* Known activation counts are summed, and then no note is written. */
Test(callgrind_write, cct_activations_are_counts)
{
	plumb_profile *p = new_profile("samples");
	plumb_error err;
	plumb_id part = plumb_part_default(p);
	plumb_id m = frame_at(p, fn_in(p, "main", NULL, NULL, 0), NULL, 0, 0);
	plumb_id a = frame_at(p, fn_in(p, "a", NULL, NULL, 0), NULL, 0, 0);
	plumb_id b = frame_at(p, fn_in(p, "b", NULL, NULL, 0), NULL, 0, 0);
	plumb_id n1 = stack(p, part, (plumb_id[]){ m, a, b }, 3, 5);
	plumb_id n2 = stack(p, part, (plumb_id[]){ m, b }, 2, 7);
	plumb_id n3 = stack(p, part, (plumb_id[]){ m, a }, 2, 1);
	plumb_id n0 = plumb_cct_path(p, part, (plumb_id[]){ m }, 1);
	cr_assert_eq(plumb_cct_add_activations(p, n0, 1, &err), 0);
	cr_assert_eq(plumb_cct_add_activations(p, n1, 40, &err), 0);
	cr_assert_eq(plumb_cct_add_activations(p, n2, 2, &err), 0);
	cr_assert_eq(plumb_cct_add_activations(p, n3, 3, &err), 0);
	char *text = write_ok(p);
	cr_assert_str_eq(body(text),
			 "fl=(1) ???\n"
			 "fn=(1) a\n"
			 "0 1\n"
			 "cfn=(2) b\n"
			 "calls=40 0\n"
			 "0 5\n"
			 "\n"
			 "fn=(2)\n"
			 "0 12\n"
			 "\n"
			 "fn=(3) main\n"
			 "cfn=(1)\n"
			 "calls=3 0\n"
			 "0 6\n"
			 "cfn=(2)\n"
			 "calls=2 0\n"
			 "0 7\n"
			 "\n"
			 "totals: 13\n"
			 "\n");
	lines l = split(text);
	cr_assert_eq(count_prefix(&l, "# "), 1, "only the format line:\n%s", text);
	lines_free(&l);
	free(text);
	plumb_profile_free(p);
}

/* Both shapes in one profile: CCT and call graph costs at one frame merge. */
Test(callgrind_write, cct_and_call_graph_together)
{
	plumb_profile *p = new_profile("samples");
	plumb_id part = plumb_part_default(p);
	plumb_id mf = fn_in(p, "main", NULL, NULL, 0), af = fn_in(p, "a", NULL, NULL, 0);
	plumb_id m = frame_at(p, mf, NULL, 2, 0), a = frame_at(p, af, NULL, 9, 0);
	stack(p, part, (plumb_id[]){ m, a }, 2, 5);
	cg_self(p, part, a, 4);
	arc(p, part, m, af, 3, &(uint64_t){ 4 });
	char *text = write_ok(p);
	lines l = split(text);
	long i = find_line(&l, 0, "fn=(2) main");
	cr_assert_geq(i, 0, "%s", text);
	/* one context (count unknown) and 3 calls: the count known */
	cr_assert_str_eq(l.v[i + 1], "cfn=(1)");
	cr_assert_str_eq(l.v[i + 2], "calls=3 9");
	cr_assert_str_eq(l.v[i + 3], "2 9");
	i = find_line(&l, 0, "fn=(1) a");
	cr_assert_str_eq(l.v[i + 1], "9 9");
	cr_assert_geq(find_line(&l, 0, "totals: 9"), 0);
	lines_free(&l);
	free(text);
	plumb_profile_free(p);
}

/* ---- parts ---------------------------------------------------------------- */

Test(callgrind_write, one_section_per_part)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_eq(plumb_event_add(p, "samples", "Samples", NULL, &err), 0);
	plumb_id t1 = plumb_part_add(p, PLUMB_PART_THREAD, "one", 100, 101);
	plumb_id t2 = plumb_part_add(p, PLUMB_PART_THREAD, "two", 100, 102);
	plumb_id fa = fn_in(p, "a", "x.c", NULL, 0), fb = fn_in(p, "b", "y.c", NULL, 0);
	plumb_id a = frame_at(p, fa, NULL, 1, 0), b = frame_at(p, fb, NULL, 2, 0);
	stack(p, t1, (plumb_id[]){ a, b }, 2, 3);
	stack(p, t2, (plumb_id[]){ b }, 1, 4);
	stack(p, t2, (plumb_id[]){ b, a }, 2, 5);
	char *text = write_ok(p);
	lines l = split(text);
	cr_assert_eq(count_prefix(&l, "summary:"), 1);
	cr_assert_geq(find_line(&l, 0, "summary: 12"), 0);
	long s1 = find_line(&l, 0, "part: 1"), s2 = find_line(&l, 0, "part: 2");
	cr_assert(s1 >= 0 && s2 > s1, "%s", text);
	cr_assert_str_eq(l.v[s1 + 1], "thread: 101");
	cr_assert_str_eq(l.v[s2 + 1], "thread: 102");
	cr_assert_eq(find_line(&l, 0, "pid: 100"), 3, "%s", text);
	cr_assert_eq(count_prefix(&l, "pid:"), 1, "the same pid is not repeated:\n%s", text);
	cr_assert_lt(find_line(&l, 0, "totals: 3"), s2);
	cr_assert_gt(find_line(&l, 0, "totals: 9"), s2);
	/* each section has its events and its own name ids, from 1 */
	cr_assert_gt(find_line(&l, (size_t)s2, "events: samples"), s2);
	/* event: lines once: KCachegrind ignores them after the first events: */
	cr_assert_eq(count_prefix(&l, "event:"), 1, "%s", text);
	cr_assert_lt(find_line(&l, 0, "event: samples : Samples"), s2);
	cr_assert_gt(find_line(&l, (size_t)s2, "fl=(1) x.c"), s2, "%s", text);
	cr_assert_gt(find_line(&l, (size_t)s2, "fn=(1) a"), s2, "%s", text);
	lines_free(&l);
	free(text);
	plumb_profile_free(p);
}

/* ---- names ---------------------------------------------------------------- */

Test(callgrind_write, names_on_one_line)
{
	plumb_profile *p = new_profile("cpu clock");
	plumb_id part = plumb_part_default(p);
	plumb_id f = fn_in(p, "bad\nname", "", NULL, 0);
	plumb_id g = fn_in(p, "", NULL, NULL, 0);
	cg_self(p, part, frame_at(p, f, NULL, 1, 0), 1);
	cg_self(p, part, frame_at(p, g, NULL, 1, 0), 1);
	char *text = write_ok(p);
	lines l = split(text);
	cr_assert_geq(find_line(&l, 0, "events: cpu_clock"), 0, "%s", text);
	cr_assert_geq(find_line(&l, 0, "fn=(1) ???"), 0, "%s", text);
	cr_assert_geq(find_line(&l, 0, "fn=(2) bad?name"), 0, "%s", text);
	cr_assert_geq(find_line(&l, 0, "fl=(1) ???"), 0, "%s", text);
	lines_free(&l);
	free(text);
	plumb_profile_free(p);
}

/* Two functions with one name in two files get two ids: KCachegrind binds
 * an id to the function it was first defined with. */
Test(callgrind_write, same_name_two_functions)
{
	plumb_profile *p = new_profile("Ir");
	plumb_id part = plumb_part_default(p);
	plumb_id m = fn_in(p, "main", "m.c", NULL, 0);
	plumb_id h1 = fn_in(p, "helper", "a.c", NULL, 0), h2 = fn_in(p, "helper", "b.c", NULL, 0);
	cg_self(p, part, frame_at(p, h1, NULL, 1, 0), 1);
	cg_self(p, part, frame_at(p, h2, NULL, 1, 0), 2);
	arc(p, part, frame_at(p, m, NULL, 1, 0), h1, 1, &(uint64_t){ 1 });
	arc(p, part, frame_at(p, m, NULL, 2, 0), h2, 1, &(uint64_t){ 2 });
	char *text = write_ok(p);
	cr_assert_str_eq(body(text),
			 "fl=(1) a.c\n"
			 "fn=(1) helper\n"
			 "1 1\n"
			 "\n"
			 "fl=(2) b.c\n"
			 "fn=(2) helper\n"
			 "1 2\n"
			 "\n"
			 "fl=(3) m.c\n"
			 "fn=(3) main\n"
			 "cfi=(1)\n"
			 "cfn=(1)\n"
			 "calls=1 1\n"
			 "1 1\n"
			 "cfi=(2)\n"
			 "cfn=(2)\n"
			 "calls=1 1\n"
			 "2 2\n"
			 "\n"
			 "totals: 3\n"
			 "\n");
	free(text);
	plumb_profile_free(p);
}

/* ---- failures --------------------------------------------------------------- */

static plumb_profile *big_profile(void)
{
	plumb_profile *p = new_profile("samples");
	plumb_id part = plumb_part_default(p);
	plumb_id m = frame_at(p, fn_in(p, "main", NULL, NULL, 0), NULL, 0, 0);
	for (int i = 0; i < 2000; i++) {
		char name[32];
		snprintf(name, sizeof name, "function_%d", i);
		plumb_id f = frame_at(p, fn_in(p, name, NULL, NULL, 0), NULL, 0, 0);
		stack(p, part, (plumb_id[]){ m, f }, 2, (uint64_t)i + 1);
	}
	return p;
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	cr_assert_not_null(fp);
	static char buf[256];
	size_t n = fread(buf, 1, sizeof buf - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

Test(callgrind_write, unwritable_path_is_an_error)
{
	char dir[] = "/tmp/plumb-cgw-XXXXXX", path[64];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/file", dir);
	FILE *fp = fopen(path, "w");
	fputs("old\n", fp);
	fclose(fp);
	plumb_profile *p = big_profile();
	plumb_error err;
	char under[96];
	snprintf(under, sizeof under, "%s/callgrind.out.1", path);
	cr_assert_eq(plumb_callgrind_write(p, under, &err), -1);
	cr_assert_eq(err.code, PLUMB_ERR_IO);
	cr_assert(strstr(err.message, under), "%s", err.message);
	cr_assert_str_eq(slurp(path), "old\n");
	unlink(path);
	rmdir(dir);
	plumb_profile_free(p);
}

/* A write that fails half-way (over the file size limit) leaves the old
 * file as it was and no temporary file. */
Test(callgrind_write, failed_write_keeps_the_old_file)
{
	char dir[] = "/tmp/plumb-cgw-XXXXXX", path[64];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/out.callgrind", dir);
	FILE *fp = fopen(path, "w");
	fputs("old\n", fp);
	fclose(fp);
	plumb_profile *p = big_profile();
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit old, lim;
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 4096;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	plumb_error err;
	int rc = plumb_callgrind_write(p, path, &err);
	setrlimit(RLIMIT_FSIZE, &old);
	cr_assert_eq(rc, -1);
	cr_assert_eq(err.code, PLUMB_ERR_IO);
	cr_assert(strstr(err.message, path), "%s", err.message);
	cr_assert_str_eq(slurp(path), "old\n");
	/* with no limit the same profile is written, and is bigger */
	cr_assert_eq(plumb_callgrind_write(p, path, &err), 0, "%s", err.message);
	cr_assert_eq(strncmp(slurp(path), "# callgrind format\n", 19), 0);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_gt(st.st_size, 4096);
	unlink(path);
	rmdir(dir);
	plumb_profile_free(p);
}

Test(callgrind_write, full_stream_is_an_error)
{
	FILE *fp = fopen("/dev/full", "w");
	if (!fp)
		cr_skip_test("no /dev/full");
	plumb_profile *p = big_profile();
	plumb_error err;
	cr_assert_eq(plumb_callgrind_write_stream(p, fp, &err), -1);
	cr_assert_eq(err.code, PLUMB_ERR_IO);
	fclose(fp);
	plumb_profile_free(p);
}

/* ---- summary: ------------------------------------------------------------- */

/* The first line of text that starts with prefix (a static copy). */
static const char *line_with(const char *text, const char *prefix)
{
	static char buf[256];
	char want[64];
	snprintf(want, sizeof want, "\n%s", prefix);
	const char *s = strstr(text, want);
	cr_assert_not_null(s, "no %s in:\n%s", prefix, text);
	s++;
	size_t n = strcspn(s, "\n");
	cr_assert_lt(n, sizeof buf);
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

/* summary: of a profile read from Callgrind (meta callgrind.summary) */
static const char *summary_for(const char *meta, bool two_parts)
{
	plumb_profile *p = plumb_profile_new();
	plumb_error err;
	cr_assert_eq(plumb_event_add(p, "Ir", NULL, NULL, &err), 0);
	cr_assert_eq(plumb_event_add(p, "Dr", NULL, NULL, &err), 1);
	if (meta)
		cr_assert_eq(plumb_meta_set(p, "callgrind.summary", meta, &err), 0);
	plumb_id part = plumb_part_default(p);
	plumb_id f = fn_in(p, "main", NULL, NULL, 0);
	cr_assert_eq(plumb_cg_add_self(p, part, frame_at(p, f, NULL, 1, 0), (uint64_t[]){ 15, 4 }, &err), 0);
	if (two_parts) {
		plumb_id p2 = plumb_part_add(p, PLUMB_PART_DUMP, NULL, -1, -1);
		cr_assert_eq(plumb_cg_add_self(p, p2, frame_at(p, f, NULL, 1, 0), (uint64_t[]){ 1, 1 }, &err), 0);
	}
	char *text = write_ok(p);
	const char *s = line_with(text, "summary:");
	free(text);
	plumb_profile_free(p);
	return s;
}

Test(callgrind_write, summary_of_a_callgrind_file_is_kept)
{
	cr_assert_str_eq(summary_for(NULL, false), "summary: 15 4");
	cr_assert_str_eq(summary_for("17 4", false), "summary: 17 4");
	cr_assert_str_eq(summary_for("  20\t6 ", false), "summary: 20 6");
	/* not a summary of these costs: below them, too many, not numbers */
	cr_assert_str_eq(summary_for("17", false), "summary: 15 4");
	cr_assert_str_eq(summary_for("14 9", false), "summary: 15 4");
	cr_assert_str_eq(summary_for("17 4 1", false), "summary: 15 4");
	cr_assert_str_eq(summary_for("17 0x4", false), "summary: 15 4");
	cr_assert_str_eq(summary_for("99999999999999999999 4", false), "summary: 15 4");
	/* several parts: the whole profile */
	cr_assert_str_eq(summary_for("17 4", true), "summary: 16 5");
}

/* A part read from Callgrind keeps its number ("part N", the dump number);
 * any other part is numbered by its place. */
Test(callgrind_write, part_numbers)
{
	plumb_profile *p = new_profile("Ir");
	plumb_id d7 = plumb_part_add(p, PLUMB_PART_DUMP, "part 7", -1, -1);
	plumb_id x = plumb_part_add(p, PLUMB_PART_DUMP, NULL, -1, -1);
	plumb_id y = plumb_part_add(p, PLUMB_PART_DUMP, "part 0x3", -1, -1);
	plumb_id f = fn_in(p, "main", NULL, NULL, 0);
	cg_self(p, d7, frame_at(p, f, NULL, 1, 0), 1);
	cg_self(p, x, frame_at(p, f, NULL, 1, 0), 2);
	cg_self(p, y, frame_at(p, f, NULL, 1, 0), 3);
	char *text = write_ok(p);
	lines l = split(text);
	long a = find_line(&l, 0, "part: 7");
	long b = find_line(&l, (size_t)a + 1, "part: 2");
	long c = find_line(&l, (size_t)b + 1, "part: 3");
	cr_assert(a >= 0 && b > a && c > b, "%s", text);
	cr_assert_eq(count_prefix(&l, "part:"), 3);
	lines_free(&l);
	free(text);
	plumb_profile_free(p);
}

/* Costs that would wrap when two shapes meet at one frame are an error. */
Test(callgrind_write, overflow_is_an_error)
{
	plumb_profile *p = new_profile("Ir");
	plumb_id part = plumb_part_default(p);
	plumb_id f = frame_at(p, fn_in(p, "main", NULL, NULL, 0), NULL, 1, 0);
	cg_self(p, part, f, UINT64_MAX);
	stack(p, part, (plumb_id[]){ f }, 1, 1);
	plumb_error err;
	cr_assert_null(write_mem(p, &err));
	cr_assert_eq(err.code, PLUMB_ERR_OVERFLOW, "%s", err.message);
	plumb_profile_free(p);
}
