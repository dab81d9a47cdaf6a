/* The recipe walk (src/record/unwind_recipe.c) against libdwfl's unwinder
 * on samples recorded here: with unwind_check, every sample the recipes
 * walk is walked by libdwfl too, and the two chains must be the same
 * (frames, order, and whether the stack was cut). Programs without frame
 * pointers: Debian's python3 (deep interpreter stacks through libc) and
 * the shell; a small stack copy makes walks run off its end. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "plumb/record.h"

static void check_same_chains(char *const *argv, uint32_t stack_size)
{
	plumb_record_opts o = { 0 };
	o.stack = PLUMB_STACK_DWARF;
	o.stack_size = stack_size;
	o.freq = 2000;
	o.argv = argv;
	o.unwind_check = true;
	plumb_rec_data *d = plumb_rec_data_new();
	cr_assert_not_null(d);
	plumb_record_result res = { 0 };
	plumb_error err;
	int rc = plumb_record_perf(&o, d, &res, &err);
	plumb_rec_data_free(d);
	if (rc && res.not_permitted)
		cr_skip_test("perf_event_open cannot sample here");
	cr_assert_eq(rc, 0, "record %s: %s", argv[0], err.message);
	uint64_t walked = res.unwound_recipe + res.unwound_libdw;
	cr_assert_gt(res.unwound_recipe, 50, "%s (stack %u): %" PRIu64 " samples walked by recipes",
		     argv[0], stack_size, res.unwound_recipe);
	/* most frames have a recipe: a broken derivation would send all to libdwfl */
	cr_assert_geq(2 * res.unwound_recipe, walked, "%s: recipes %" PRIu64 " of %" PRIu64, argv[0],
		      res.unwound_recipe, walked);
	cr_assert_eq(res.unwind_differ, 0,
		     "%s (stack %u): %" PRIu64 " of %" PRIu64 " recipe chains differ from libdwfl's",
		     argv[0], stack_size, res.unwind_differ, res.unwound_recipe);
}

static char *const python[] = {
	"/usr/bin/python3", "-c",
	"import math, re\n"
	"def f(n):\n"
	"    return sum(math.sin(i) for i in range(200)) if n == 0 else f(n - 1) + 1\n"
	"t = 0\n"
	"for i in range(3000):\n"
	"    t += f(i % 40)\n"
	"    re.findall(r'(a|b)+c', 'ab' * 30 + 'c')\n",
	NULL
};
static char *const shell[] = { "/bin/sh", "-c", "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done", NULL };

static bool have_python(void)
{
	return access("/usr/bin/python3", X_OK) == 0;
}

Test(unwind, recipes_match_libdw_python, .timeout = 120)
{
	if (!have_python())
		cr_skip_test("no python3");
	check_same_chains(python, 0);
}

Test(unwind, recipes_match_libdw_small_stack_copy, .timeout = 120)
{
	if (!have_python())
		cr_skip_test("no python3");
	check_same_chains(python, 1024);
}

Test(unwind, recipes_match_libdw_shell, .timeout = 120)
{
	check_same_chains(shell, 0);
}
