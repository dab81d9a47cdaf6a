/* plumb record's library side: event names, maps over time, and raw
 * samples -> profile on synthetic data whose addresses are this test
 * binary's own functions (so libdwfl resolves them from a real file). */
#include <criterion/criterion.h>
#include <elf.h>
#include <inttypes.h>
#include <link.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/record.h"

/* ---- event names ---------------------------------------------------------- */

Test(record, parse_events)
{
	plumb_rec_event_spec *e;
	size_t n;
	plumb_error err;
	cr_assert_eq(plumb_rec_parse_events("cpu-clock,page-faults:u,r1a8:pp,cycles:k,cs:uk", &e, &n, &err), 0,
		     "%s", err.message);
	cr_assert_eq(n, 5);
	cr_assert_str_eq(e[0].name, "cpu-clock");
	cr_assert_eq(e[0].type, PERF_TYPE_SOFTWARE);
	cr_assert_eq(e[0].config, PERF_COUNT_SW_CPU_CLOCK);
	cr_assert(e[0].exclude_kernel && !e[0].exclude_user, "user space only by default");
	cr_assert_eq(e[1].config, PERF_COUNT_SW_PAGE_FAULTS);
	cr_assert(e[1].exclude_kernel && !e[1].exclude_user);
	cr_assert_eq(e[2].type, PERF_TYPE_RAW);
	cr_assert_eq(e[2].config, 0x1a8);
	cr_assert_eq(e[2].precise, 2);
	cr_assert_eq(e[3].type, PERF_TYPE_HARDWARE);
	cr_assert_eq(e[3].config, PERF_COUNT_HW_CPU_CYCLES);
	cr_assert(e[3].exclude_user && !e[3].exclude_kernel);
	cr_assert_eq(e[4].config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	cr_assert(!e[4].exclude_user && !e[4].exclude_kernel);
	free(e);
}

Test(record, parse_events_errors)
{
	plumb_rec_event_spec *e;
	size_t n;
	plumb_error err;
	cr_assert_eq(plumb_rec_parse_events("cpu-clock,bogus", &e, &n, &err), -1);
	cr_assert_eq(err.code, PLUMB_ERR_USAGE);
	cr_assert(strstr(err.message, "'bogus'"), "%s", err.message);
	cr_assert_null(e);
	cr_assert_eq(plumb_rec_parse_events("task-clock:x", &e, &n, &err), -1);
	cr_assert(strstr(err.message, "modifier"), "%s", err.message);
	cr_assert_eq(plumb_rec_parse_events("cs,context-switches,cs", &e, &n, &err), -1);
	cr_assert(strstr(err.message, "twice"), "%s", err.message);
	cr_assert_eq(plumb_rec_parse_events("", &e, &n, &err), -1);
	cr_assert_eq(plumb_rec_parse_events("rxyz", &e, &n, &err), -1);
	cr_assert_eq(plumb_rec_parse_events("cycles:ppp", &e, &n, &err), 0);
	cr_assert_eq(e[0].precise, 3);
	free(e);
}

/* perf's terms: a period or a rate per event, commas inside the slashes
 * not splitting the list, modifiers after the closing slash. */
Test(record, parse_events_terms)
{
	plumb_rec_event_spec *e;
	size_t n;
	plumb_error err;
	cr_assert_eq(plumb_rec_parse_events("cpu-clock/period=1000000/,page-faults/period=100/u,"
					    "cycles/freq=4000/:k,minor-faults", &e, &n, &err), 0, "%s", err.message);
	cr_assert_eq(n, 4);
	cr_assert_str_eq(e[0].name, "cpu-clock");
	cr_assert_eq(e[0].period, 1000000);
	cr_assert_eq(e[0].freq, 0);
	cr_assert_str_eq(e[1].name, "page-faults");
	cr_assert_eq(e[1].config, PERF_COUNT_SW_PAGE_FAULTS);
	cr_assert_eq(e[1].period, 100);
	cr_assert(e[1].exclude_kernel && !e[1].exclude_user);
	cr_assert_eq(e[2].freq, 4000);
	cr_assert_eq(e[2].period, 0);
	cr_assert(e[2].exclude_user && !e[2].exclude_kernel);
	cr_assert_eq(e[3].period, 0, "no term: -c or -F decide");
	cr_assert_eq(e[3].freq, 0);
	free(e);
}

Test(record, parse_events_term_errors)
{
	static const struct {
		const char *list, *says;
	} bad[] = {
		{ "cpu-clock/perod=10/", "unknown term 'perod=10'" },
		{ "cpu-clock/period=/", "period expects a positive number" },
		{ "cpu-clock/period=0/", "period expects a positive number" },
		{ "cpu-clock/period=12x/", "period expects a positive number" },
		{ "cpu-clock/period=99999999999999999999999/", "positive number" },
		{ "cpu-clock/period=10", "expected a '/'" },
		{ "cpu-clock/period=10,freq=10/", "exclude each other" },
		{ "cpu-clock/freq=2000000/", "above 1000000" },
		{ "cpu-clock/period=10/x", "unknown modifier" },
		{ "cpu-clok/period=10/", "did you mean 'cpu-clock'?" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		plumb_rec_event_spec *e;
		size_t n;
		plumb_error err;
		cr_assert_eq(plumb_rec_parse_events(bad[i].list, &e, &n, &err), -1, "%s", bad[i].list);
		cr_assert_eq(err.code, PLUMB_ERR_USAGE);
		cr_assert(strstr(err.message, bad[i].says), "%s: %s", bad[i].list, err.message);
		cr_assert_null(e);
	}
}

/* ---- maps over time ---------------------------------------------------- */

Test(record, maps_fork_exec)
{
	plumb_error err;
	plumb_rec_data *d = plumb_rec_data_new();
	const uint8_t id[3] = { 0xab, 0x01, 0xff };
	cr_assert_eq(plumb_rec_map_add(d, 10, 100, 0x1000, 0x1000, 0, "/bin/a", id, 3, &err), 0);
	cr_assert_eq(plumb_rec_map_add(d, 10, 200, 0x5000, 0x1000, 0x2000, "/lib/b", NULL, 0, &err), 0);
	const plumb_rec_map *m = plumb_rec_map_find(d, 10, 0x1800, 150);
	cr_assert_not_null(m);
	cr_assert_str_eq(m->path, "/bin/a");
	cr_assert_str_eq(m->build_id, "ab01ff");
	cr_assert_null(plumb_rec_map_find(d, 10, 0x3000, 150));
	cr_assert_null(plumb_rec_map_find(d, 11, 0x1800, 150));
	/* fork at 300: the child sees both; exec of the child at 400 ends them */
	cr_assert_eq(plumb_rec_fork(d, 10, 11, 300, &err), 0);
	cr_assert_str_eq(plumb_rec_map_find(d, 11, 0x5010, 350)->path, "/lib/b");
	plumb_rec_exec(d, 11, 400);
	cr_assert_eq(plumb_rec_map_add(d, 11, 410, 0x1000, 0x1000, 0, "/bin/c", NULL, 0, &err), 0);
	cr_assert_str_eq(plumb_rec_map_find(d, 11, 0x1800, 500)->path, "/bin/c");
	cr_assert_str_eq(plumb_rec_map_find(d, 11, 0x1800, 350)->path, "/bin/a");
	cr_assert_str_eq(plumb_rec_map_find(d, 10, 0x1800, 500)->path, "/bin/a");
	/* a new mapping over an old range replaces it from its time on */
	cr_assert_eq(plumb_rec_map_add(d, 10, 600, 0x1000, 0x800, 0, "/bin/d", NULL, 0, &err), 0);
	cr_assert_str_eq(plumb_rec_map_find(d, 10, 0x1100, 700)->path, "/bin/d");
	cr_assert_str_eq(plumb_rec_map_find(d, 10, 0x1100, 500)->path, "/bin/a");
	plumb_rec_data_free(d);
}

/* ---- raw samples -> profile -------------------------------------------- */

__attribute__((noinline)) int rec_test_leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int rec_test_caller(int x)
{
	return rec_test_leaf(x) + rec_test_leaf(x + 1);
}

/* This binary's executable mappings, as a recorder would see them. */
static void add_self_maps(plumb_rec_data *d, int32_t pid)
{
	FILE *f = fopen("/proc/self/maps", "r");
	cr_assert_not_null(f);
	char line[4400], file[4097];
	plumb_error err;
	while (fgets(line, sizeof line, f)) {
		unsigned long long lo, hi, off;
		char perms[8];
		file[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4096[^\n]", &lo, &hi, perms, &off, file) >= 4 &&
		    perms[2] == 'x' && file[0] == '/')
			cr_assert_eq(plumb_rec_map_add(d, pid, 0, lo, hi - lo, off, file, NULL, 0, &err), 0);
	}
	fclose(f);
}

static const plumb_function *function_named(const plumb_profile *p, const char *name)
{
	for (size_t i = 0; i < p->functions.n; i++)
		if (strcmp(plumb_str(p, p->functions.v[i].name), name) == 0)
			return &p->functions.v[i];
	return NULL;
}

static uint64_t excl_of(const plumb_profile *p, const char *name, size_t ev)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < p->cct.n; i++) {
		plumb_id fr = p->cct.v[i].frame;
		if (fr == PLUMB_NONE)
			continue;
		if (strcmp(plumb_function_name(p, p->frames.v[fr].function), name) == 0)
			sum += plumb_cct_self(p, (plumb_id)i)[ev];
	}
	return sum;
}

Test(record, to_profile_synthetic)
{
	plumb_error err;
	plumb_rec_data *d = plumb_rec_data_new();
	add_self_maps(d, 7);
	cr_assert_eq(plumb_rec_event_add(d, "cpu-clock", &err), 0);
	cr_assert_eq(plumb_rec_event_add(d, "page-faults", &err), 1);
	cr_assert_eq(plumb_rec_thread_set(d, 7, 7, "tester", 0, &err), 0);
	cr_assert_eq(plumb_rec_thread_set(d, 7, 8, "helper", (uint64_t)(uintptr_t)rec_test_caller, &err), 0);
	uint64_t leaf = (uint64_t)(uintptr_t)rec_test_leaf + 2;
	uint64_t ret = (uint64_t)(uintptr_t)rec_test_caller + 6; /* a "return address" */
	uint64_t chain[2] = { leaf, ret };
	for (int i = 0; i < 3; i++)
		cr_assert_eq(plumb_rec_sample_add(d, 7, 7, 1000 + i, 0, 1, chain, 2, 0, &err), 0);
	cr_assert_eq(plumb_rec_sample_add(d, 7, 8, 2000, 1, 5, chain, 1, 0, &err), 0);
	uint64_t unmapped = 0x10;
	cr_assert_eq(plumb_rec_sample_add(d, 7, 8, 2001, 0, 1, &unmapped, 1, 0, &err), 0);
	cr_assert_eq(plumb_rec_sample_add(d, 7, 8, 2002, 0, 1, NULL, 0, 0, &err), 0);
	cr_assert_eq(plumb_rec_sample_add(d, 7, 8, 2003, 2, 1, NULL, 0, 0, &err), -1, "no event 2");
	d->lost = 4;

	plumb_profile *p = plumb_profile_new();
	plumb_rec_profile_opts o = { NULL, true };
	cr_assert_eq(plumb_rec_to_profile(d, &o, p, &err), 0, "%s", err.message);
	cr_assert_eq(p->events.n, 2);
	cr_assert_str_eq(plumb_str(p, p->events.v[1].name), "page-faults");
	cr_assert_eq(p->parts.n, 2);
	cr_assert_str_eq(plumb_str(p, p->parts.v[0].name), "tester");
	cr_assert_eq(p->parts.v[0].pid, 7);
	cr_assert_eq(p->parts.v[1].tid, 8);
	/* the start routine the sampler knew names the thread */
	cr_assert_str_eq(plumb_function_name(p, p->parts.v[1].start_function), "rec_test_caller");

	const plumb_function *lf = function_named(p, "rec_test_leaf");
	cr_assert_not_null(lf, "the leaf resolved through libdwfl");
	cr_assert(strstr(plumb_str(p, p->files.v[lf->file].path), "test_record.c"));
	cr_assert_gt(lf->line, 0);
	cr_assert_not_null(function_named(p, "rec_test_caller"));
	cr_assert_eq(excl_of(p, "rec_test_leaf", 0), 3);
	cr_assert_eq(excl_of(p, "rec_test_leaf", 1), 5, "weights go to their event's column");
	cr_assert_eq(excl_of(p, "rec_test_caller", 0), 0);
	cr_assert_eq(excl_of(p, "[unmapped]+0x10", 0), 1, "never a bare [unknown]");
	cr_assert_eq(p->samples.n, 5, "kept samples, without the empty chain");
	cr_assert_str_eq(plumb_meta_get(p, "record.lost"), "4");
	cr_assert_str_eq(plumb_meta_get(p, "record.no_stack"), "1");
	cr_assert_str_eq(plumb_meta_get(p, "stacks.rooted"), "0 5", "no root function on these stacks");
	/* the caller's frame is at the call's line, inside rec_test_caller */
	int found = 0;
	for (size_t i = 0; i < p->cct.n; i++) {
		plumb_id fr = p->cct.v[i].frame;
		if (fr != PLUMB_NONE && p->cct.v[i].parent != PLUMB_NONE &&
		    strcmp(plumb_function_name(p, p->frames.v[fr].function), "rec_test_leaf") == 0) {
			plumb_id parent = p->cct.v[p->cct.v[i].parent].frame;
			if (parent != PLUMB_NONE &&
			    strcmp(plumb_function_name(p, p->frames.v[parent].function), "rec_test_caller") == 0)
				found++;
		}
	}
	cr_assert_eq(found, 1, "one context: caller -> leaf");
	plumb_profile_free(p);
	plumb_rec_data_free(d);
}

Test(record, symbolize_fallbacks)
{
	plumb_error err;
	plumb_symbolizer *s = plumb_symbolizer_new(NULL, &err);
	cr_assert_not_null(s);
	plumb_sym_frame f[4];
	cr_assert_eq(plumb_symbolize(s, "/nonexistent/libgone.so", 0x1234, f, 4, &err), 1);
	cr_assert_str_eq(f[0].function, "libgone.so+0x1234");
	cr_assert_eq(plumb_symbolize(s, "[vdso]", 0x10, f, 4, &err), 1);
	cr_assert_str_eq(f[0].function, "[vdso]+0x10");
	cr_assert_eq(plumb_symbolize(s, "[vdso]", 0x10, f, 0, &err), -1);
	plumb_symbolizer_free(s);
}

/* The file range of this binary's code (libplumb, built with -O2 -g:
 * plenty of inlined functions). */
static int exec_range(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	uint64_t *r = data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			r[0] = ph->p_offset;
			r[1] = ph->p_offset + ph->p_filesz;
		}
	}
	return 1; /* the first object is the executable */
}

/* The frames of one address as one string. */
static void chain_text(const plumb_sym_frame *f, int n, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s|%s|%s:%u|%s:%u;", f[i].function,
					f[i].mangled ? f[i].mangled : "-", f[i].file ? f[i].file : "-",
					f[i].line, f[i].decl_file ? f[i].decl_file : "-", f[i].decl_line);
}

/* Inline chains are found from the top of the compile unit for a
 * function's first address and from its subprogram (remembered) for the
 * next ones: two symbolizers that visit the same addresses in opposite
 * orders take the two ways for different addresses, and must agree. */
Test(record, inline_chains_the_same_in_any_order)
{
	uint64_t r[2] = { 0, 0 };
	dl_iterate_phdr(exec_range, r);
	cr_assert_lt(r[0], r[1], "no code segment found");
	enum { N = 4000 };
	uint64_t step = (r[1] - r[0]) / N ? (r[1] - r[0]) / N : 1;
	plumb_error err;
	plumb_symbolizer *fwd = plumb_symbolizer_new(NULL, &err), *back = plumb_symbolizer_new(NULL, &err);
	cr_assert(fwd && back);
	static char a[N][512], b[N][512];
	plumb_sym_frame f[16];
	size_t inlined = 0, n = 0;
	for (uint64_t off = r[0]; off < r[1] && n < N; off += step, n++) {
		int k = plumb_symbolize(fwd, "/proc/self/exe", off, f, 16, &err);
		cr_assert_gt(k, 0, "%s", err.message);
		inlined += k > 1;
		chain_text(f, k, a[n], sizeof a[n]);
	}
	for (size_t i = n; i-- > 0;) {
		int k = plumb_symbolize(back, "/proc/self/exe", r[0] + i * step, f, 16, &err);
		cr_assert_gt(k, 0, "%s", err.message);
		chain_text(f, k, b[i], sizeof b[i]);
	}
	for (size_t i = 0; i < n; i++)
		cr_expect_str_eq(a[i], b[i], "offset 0x%" PRIx64, r[0] + i * step);
	cr_expect_gt(inlined, n / 20, "only %zu of %zu addresses in inlined code", inlined, n);
	plumb_symbolizer_free(fwd);
	plumb_symbolizer_free(back);
}

Test(record, equal_chains_stored_once)
{
	plumb_error err;
	plumb_rec_data *d = plumb_rec_data_new();
	cr_assert_eq(plumb_rec_event_add(d, "cpu-clock", &err), 0);
	uint64_t a[3] = { 0x1000, 0x2000, 0x3000 }, b[3] = { 0x1004, 0x2000, 0x3000 };
	for (int i = 0; i < 1000; i++)
		cr_assert_eq(plumb_rec_sample_add(d, 1, 1, (uint64_t)i, 0, 1, i % 2 ? a : b, 3, 0, &err), 0);
	cr_assert_eq(d->ips.n, 6, "two distinct chains kept once each");
	cr_assert_eq(plumb_rec_sample_add(d, 2, 2, 5, 0, 1, a, 3, 0, &err), 0);
	cr_assert_eq(d->ips.n, 9, "another process's equal chain is its own (addresses are per process)");
	cr_assert_eq(plumb_rec_sample_add(d, 1, 1, 6, 0, 1, a, 2, 0, &err), 0);
	cr_assert_eq(d->ips.n, 11, "a prefix is a different chain");
	const plumb_rec_sample *s = &d->samples.v[1];
	cr_assert_eq(s->nips, 3);
	cr_assert_eq(d->ips.v[s->ips], 0x1000);
	cr_assert_eq(d->ips.v[d->samples.v[0].ips], 0x1004);
	cr_assert_eq(d->samples.v[1001].ips != d->samples.v[1].ips, true);
	plumb_rec_data_free(d);
}
