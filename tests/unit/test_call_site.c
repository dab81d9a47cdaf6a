/* Where a call instruction starts, from its return address (src/symbols/
 * call_site.c): each x86-64 call form in a file of known bytes, the direct
 * call's target check, and the fallbacks (no call there, no file). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "symbols/call_site.h"

TestSuite(call_site);

#if defined(__x86_64__)

static char path[] = "/tmp/plumb-call-site-XXXXXX";

/* The bytes, each call ending at a known offset (the return address). */
static const unsigned char code[] = {
	0x48, 0x8b, 0x43, 0x08,                         /*  0 mov 0x8(%rbx),%rax */
	0xff, 0xd0,                                     /*  4 call *%rax         -> 6 */
	0xff, 0x15, 0x10, 0x20, 0x00, 0x00,             /*  6 call *0x2010(%rip) -> 12 */
	0x41, 0xff, 0xd3,                               /* 12 call *%r11         -> 15 */
	0xe8, 0x00, 0x01, 0x00, 0x00,                   /* 15 call rel32 +0x100  -> 20 */
	0xff, 0x94, 0x24, 0x08, 0x01, 0x00, 0x00,       /* 20 call *0x108(%rsp)  -> 27 */
	0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, /* 27 nops               -> 35 */
	0xff, 0x50, 0x10,                               /* 35 call *0x10(%rax)   -> 38 */
};

static void setup(void)
{
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, code, sizeof code), (ssize_t)sizeof code);
	close(fd);
}

static void teardown(void)
{
	unlink(path);
}

static bool accept(void *ctx, int64_t rel)
{
	*(int64_t *)ctx = rel;
	return true;
}

static bool refuse(void *ctx, int64_t rel)
{
	(void)ctx, (void)rel;
	return false;
}

Test(call_site, every_form, .init = setup, .fini = teardown)
{
	plumb_call_sites *cs = plumb_call_sites_new();
	cr_assert_not_null(cs);
	int64_t rel = 0;
	static const uint64_t ret[][2] = { { 6, 4 }, { 12, 6 }, { 15, 12 }, { 27, 20 }, { 38, 35 } };
	for (size_t i = 0; i < sizeof ret / sizeof *ret; i++)
		cr_assert_eq(plumb_call_site(cs, path, ret[i][0], accept, &rel), ret[i][1],
			     "the call returning to %llu", (unsigned long long)ret[i][0]);
	cr_assert_eq(plumb_call_site(cs, path, 20, accept, &rel), 15);
	cr_assert_eq(rel, 0x100, "the target checked is the call's");
	/* an e8 whose target is not mapped is no call; nothing else ends there */
	cr_assert_eq(plumb_call_site(cs, path, 20, refuse, NULL), 19);
	/* no call ends here: inside the last instruction, as before */
	cr_assert_eq(plumb_call_site(cs, path, 35, accept, &rel), 34);
	cr_assert_eq(plumb_call_site(cs, path, 1, accept, &rel), 0);
	/* bytes that cannot be read */
	cr_assert_eq(plumb_call_site(cs, path, 4000, accept, &rel), 3999);
	cr_assert_eq(plumb_call_site(cs, "[vdso]", 6, accept, &rel), 5);
	cr_assert_eq(plumb_call_site(cs, "/nonexistent/lib.so", 6, accept, &rel), 5);
	plumb_call_sites_free(cs);
}

#endif
