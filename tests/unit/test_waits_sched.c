/* --off-cpu's default mode: the split of a schedstat poll period
 * (src/record/waits_sched.c) and the samples plumb_rec_waits_finish makes
 * from hand-made readings, waits and CPU samples. */
#include <criterion/criterion.h>
#include <string.h>

#include "plumb/record.h"
#include "preload/format.h"
#include "rec_totals.h"
#include "record/waits_sched.h"

/* ---- the arithmetic of one period ---------------------------------------- */

Test(waits_sched, a_period_splits_into_traced_preempted_and_blocked)
{
	plumb_sched_carry c = { 0, 0 };
	plumb_sched_split s;
	plumb_sched_split_period(&c, 10000, 4000, 1000, 3000, &s);
	cr_expect_eq(s.off, 6000);
	cr_expect_eq(s.traced, 3000);
	cr_expect_eq(s.preempted, 1000);
	cr_expect_eq(s.pre_untraced, 1000, "runqueue time goes outside the traced calls first");
	cr_expect_eq(s.pre_traced, 0);
	cr_expect_eq(s.blocked, 2000);
	cr_expect_eq(s.traced + s.pre_untraced + s.blocked, s.off);
	cr_expect_eq(c.debt, 0);
	cr_expect_eq(c.delay, 0);
}

Test(waits_sched, traced_calls_longer_than_the_off_cpu_time_are_cut_to_it)
{
	plumb_sched_carry c = { 0, 0 };
	plumb_sched_split s;
	/* 800 ns in traced calls, of which the thread ran some: off is 500 */
	plumb_sched_split_period(&c, 1000, 500, 200, 800, &s);
	cr_expect_eq(s.off, 500);
	cr_expect_eq(s.traced, 500);
	cr_expect_eq(s.preempted, 200);
	cr_expect_eq(s.pre_traced, 200, "no time outside the calls: the runqueue time is inside");
	cr_expect_eq(s.pre_untraced, 0);
	cr_expect_eq(s.blocked, 0);
}

Test(waits_sched, on_cpu_time_counted_late_is_owed_by_the_next_period)
{
	plumb_sched_carry c = { 0, 0 };
	plumb_sched_split s;
	/* the kernel caught up 500 ns of the last period's running */
	plumb_sched_split_period(&c, 1000, 1500, 0, 0, &s);
	cr_expect_eq(s.off, 0);
	cr_expect_eq(c.debt, 500);
	plumb_sched_split_period(&c, 1000, 200, 0, 0, &s);
	cr_expect_eq(s.off, 300, "2000 ns elapsed, 1700 on the CPU: 300 off, not 800");
	cr_expect_eq(c.debt, 0);
	plumb_sched_split_period(&c, 1000, 0, 0, 0, &s);
	cr_expect_eq(s.off, 1000);
}

Test(waits_sched, runqueue_time_beyond_the_off_cpu_time_waits_for_the_next_period)
{
	plumb_sched_carry c = { 0, 0 };
	plumb_sched_split s;
	plumb_sched_split_period(&c, 1000, 900, 300, 0, &s);
	cr_expect_eq(s.off, 100);
	cr_expect_eq(s.preempted, 100);
	cr_expect_eq(c.delay, 200);
	plumb_sched_split_period(&c, 1000, 0, 0, 0, &s);
	cr_expect_eq(s.preempted, 200);
	cr_expect_eq(s.blocked, 800);
	cr_expect_eq(c.delay, 0);
}

Test(waits_sched, nothing_overflows_at_the_extremes)
{
	plumb_sched_carry c = { UINT64_MAX - 1, UINT64_MAX - 1 };
	plumb_sched_split s;
	plumb_sched_split_period(&c, 0, UINT64_MAX, UINT64_MAX, UINT64_MAX, &s);
	cr_expect_eq(s.off, 0);
	cr_expect_eq(c.debt, UINT64_MAX);
	cr_expect_eq(c.delay, UINT64_MAX);
	plumb_sched_split_period(&c, UINT64_MAX, 0, 0, 0, &s);
	cr_expect_eq(s.off, 0, "all of it owed");
}

/* ---- samples from readings -------------------------------------------------- */

static uint64_t at(const plumb_rec_data *d, const char *event, int32_t tid, uint64_t leaf)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < d->samples.n; i++) {
		const plumb_rec_sample *s = &d->samples.v[i];
		if (strcmp(d->events.v[s->event], event) == 0 && s->tid == tid && s->nips &&
		    d->ips.v[s->ips] == leaf)
			sum += s->weight;
	}
	return sum;
}

static const uint64_t cpu_chain[] = { 0x1000, 0x2000 };
static const uint64_t cpu2_chain[] = { 0x1100, 0x2000 };
static const uint64_t lock_chain[] = { 0x7000, 0x2100, 0x2000 };
static const uint64_t sleep_chain[] = { 0x7100, 0x2200, 0x2000 };
static const uint64_t held_chain[] = { 0x7200, 0x2300, 0x2000 };

static void cpu_sample(plumb_rec_data *d, int32_t tid, uint64_t t, const uint64_t *chain,
		       uint64_t period)
{
	plumb_error err;
	cr_assert_eq(plumb_rec_sample_add(d, 1, tid, t, 0, 1, chain, 2, 0, &err), 0);
	cr_assert_eq(plumb_rec_period_note(d, d->samples.n - 1, period, &err), 0);
}

static void reading(plumb_rec_data *d, int32_t tid, uint64_t t, uint64_t exec, uint64_t delay,
		    unsigned kind)
{
	plumb_error err;
	cr_assert_eq(plumb_rec_sched_add(d, 1, tid, t, exec, delay, kind, &err), 0);
}

static void finish(plumb_rec_data *d)
{
	plumb_error err;
	plumb_rec_waits_opts o = { true, false, 0, true };
	cr_assert_eq(plumb_rec_waits_finish(d, &o, &err), 0, "%s", err.message);
}

static plumb_rec_data *data(void)
{
	plumb_error err;
	plumb_rec_data *d = plumb_rec_data_new();
	cr_assert(d);
	cr_assert_eq(plumb_rec_event_add(d, "cpu-clock", &err), 0);
	return d;
}

Test(waits_sched, periods_go_to_traced_waits_cpu_samples_and_the_nearest_sample)
{
	plumb_error err;
	plumb_rec_data *d = data();
	cpu_sample(d, 10, 100, cpu_chain, 1000);
	/* a lock wait with its stack, a wait whose stack was not taken, a
	 * sleep whose stack was taken with probability 1/2 */
	cr_assert_eq(plumb_rec_wait_add(d, 1, 10, PSMP_WAIT_MUTEX, PSMP_WAIT_IS_SYNC, 1000, 5000,
					0xabc0, 65536, lock_chain, 3, &err), 0);
	cr_assert_eq(plumb_rec_wait_add(d, 1, 10, PSMP_WAIT_IO, 0, 6000, 9000, 3, 0, NULL, 0, &err), 0);
	cr_assert_eq(plumb_rec_wait_add(d, 1, 10, PSMP_WAIT_SLEEP, 0, 10000, 20000, 0, 2 * 65536,
					sleep_chain, 3, &err), 0);
	/* [0, 10000]: 2000 on the CPU, 500 runnable, 7000 in traced calls;
	 * [10000, 20000]: 2000 on the CPU inside the sleep's call */
	reading(d, 10, 20000, 4000, 500, PLUMB_SCHED_READ);
	reading(d, 10, 0, 0, 0, PLUMB_SCHED_START);
	reading(d, 10, 10000, 2000, 500, PLUMB_SCHED_READ);
	finish(d);
	cr_expect_eq(at(d, "off-cpu", 10, 0x7000), 4000, "the lock wait, exactly");
	cr_expect_eq(at(d, "off-cpu", 10, 0x1000), 1000, "500 preempted + 500 untraced blocked");
	cr_expect_eq(at(d, "preempted", 10, 0x1000), 500);
	cr_expect_eq(at(d, "off-cpu", 10, 0x7100), 16000, "10000 ns weighted 2, cut to 8000/10000");
	cr_expect_eq(total(d, "off-cpu"), 21000, "the untaken wait's time is the weights' to stand for");
	cr_expect_eq(total(d, "preempted"), 500);
	cr_expect_eq(total(d, "wall"), 21000 + 4000, "+ schedstat's on-CPU time, not the sample's 1000");
	cr_expect_eq(at(d, "wall", 10, 0x1000), 4000 + 1000, "the on-CPU time at the CPU sample");
	plumb_rec_data_free(d);
}

Test(waits_sched, preemption_goes_to_the_cpu_samples_of_the_period_by_their_time)
{
	plumb_rec_data *d = data();
	cpu_sample(d, 10, 1000, cpu_chain, 3000);
	cpu_sample(d, 10, 2000, cpu2_chain, 1000);
	cpu_sample(d, 10, 30000, cpu2_chain, 1000);   /* another period's */
	reading(d, 10, 0, 0, 0, PLUMB_SCHED_START);
	reading(d, 10, 10000, 6000, 4000, PLUMB_SCHED_READ);
	finish(d);
	cr_expect_eq(at(d, "preempted", 10, 0x1000), 3000);
	cr_expect_eq(at(d, "preempted", 10, 0x1100), 1000);
	cr_expect_eq(total(d, "off-cpu"), 4000);
	plumb_rec_data_free(d);
}

Test(waits_sched, an_ended_thread_s_last_period_is_estimated_from_its_cpu_samples)
{
	plumb_rec_data *d = data();
	cpu_sample(d, 11, 3000, cpu_chain, 1000);
	reading(d, 11, 0, 0, 0, PLUMB_SCHED_START);
	reading(d, 11, 5000, 0, 0, PLUMB_SCHED_END);
	finish(d);
	cr_expect_eq(total(d, "off-cpu"), 4000, "5000 elapsed, one sample of 1000 on the CPU");
	cr_expect_eq(total(d, "preempted"), 0, "not known");
	plumb_rec_data_free(d);
}

Test(waits_sched, a_reading_after_the_end_gives_its_final_figures)
{
	plumb_rec_data *d = data();
	cpu_sample(d, 12, 2000, cpu_chain, 1000);
	reading(d, 12, 0, 100, 0, PLUMB_SCHED_READ);
	reading(d, 12, 4000, 0, 0, PLUMB_SCHED_END);
	reading(d, 12, 6000, 1100, 300, PLUMB_SCHED_READ);   /* a zombie read later */
	finish(d);
	cr_expect_eq(total(d, "off-cpu"), 3000, "to the end at 4000, not the reading at 6000");
	cr_expect_eq(total(d, "preempted"), 300);
	cr_expect_eq(total(d, "wall"), 3000 + 1000);
	plumb_rec_data_free(d);
}

/* -p: a thread blocked when the window opened has its stack read then;
 * its blocked time goes there until it first runs. */
Test(waits_sched, a_held_stack_takes_the_time_until_the_thread_first_runs)
{
	plumb_error err;
	plumb_rec_data *d = data();
	cpu_sample(d, 13, 7000, cpu_chain, 500);
	cr_assert_eq(plumb_rec_held_add(d, 1, 13, 50, held_chain, 3, 0, &err), 0);
	reading(d, 13, 50, 700, 10, PLUMB_SCHED_READ);
	reading(d, 13, 5000, 700, 10, PLUMB_SCHED_READ);
	reading(d, 13, 10000, 1200, 10, PLUMB_SCHED_READ);
	finish(d);
	cr_expect_eq(at(d, "off-cpu", 13, 0x7200), 4950);
	cr_expect_eq(at(d, "off-cpu", 13, 0x1000), 4500);
	plumb_rec_data_free(d);
}

/* The preloaded library's THREAD records: the thread's own CPU clock as it
 * began and ended, the runqueue time not known (it stays the last
 * reading's). */
Test(waits_sched, a_thread_record_s_cpu_time_closes_the_last_period)
{
	plumb_rec_data *d = data();
	cpu_sample(d, 14, 1000, cpu_chain, 1000);
	reading(d, 14, 0, 0, 0, PLUMB_SCHED_START);
	reading(d, 14, 100, 50, 0, PLUMB_SCHED_CPU);
	reading(d, 14, 5000, 1000, 400, PLUMB_SCHED_READ);
	reading(d, 14, 9000, 3000, 0, PLUMB_SCHED_CPU);      /* ended: 2000 more on the CPU */
	reading(d, 14, 9010, 0, 0, PLUMB_SCHED_END);
	finish(d);
	cr_expect_eq(total(d, "off-cpu"), 9010 - 3000);
	cr_expect_eq(total(d, "preempted"), 400);
	plumb_rec_data_free(d);
}

/* A thread id used again after its thread ended: two lives, not one with
 * the time between them. */
Test(waits_sched, a_reused_thread_id_starts_a_new_life)
{
	plumb_rec_data *d = data();
	cpu_sample(d, 15, 500, cpu_chain, 1000);
	reading(d, 15, 0, 0, 0, PLUMB_SCHED_START);
	reading(d, 15, 2000, 1000, 0, PLUMB_SCHED_READ);
	reading(d, 15, 3000, 0, 0, PLUMB_SCHED_END);
	reading(d, 15, 100000, 0, 0, PLUMB_SCHED_START);
	reading(d, 15, 104000, 1000, 0, PLUMB_SCHED_READ);
	finish(d);
	/* 1000, 1000 to its end (no CPU sample there), then 3000: not the 97000 between */
	cr_expect_eq(total(d, "off-cpu"), 1000 + 1000 + 3000);
	plumb_rec_data_free(d);
}

/* wall = on-CPU + off-CPU = elapsed, per thread: the on-CPU part is
 * schedstat's, spread over the period's CPU samples by the time each
 * stands for, whatever they missed (time in the kernel). A sample outside
 * every period keeps its own time. */
Test(waits_sched, wall_is_the_elapsed_time_whatever_the_samples_missed)
{
	plumb_rec_data *d = data();
	cpu_sample(d, 16, 1000, cpu_chain, 1000);
	cpu_sample(d, 16, 2000, cpu2_chain, 3000);
	cpu_sample(d, 16, 50000, cpu2_chain, 700);    /* after the last reading */
	reading(d, 16, 0, 0, 0, PLUMB_SCHED_START);
	reading(d, 16, 10000, 8000, 0, PLUMB_SCHED_READ);  /* 8000 on the CPU, 4000 sampled */
	finish(d);
	cr_expect_eq(total(d, "off-cpu"), 2000);
	cr_expect_eq(at(d, "wall", 16, 0x1000), 2000, "a quarter of 8000");
	cr_expect_eq(at(d, "wall", 16, 0x1100), 6000 + 2000 + 700,
		     "three quarters, the blocked 2000 (the last sample before the period's end), its own");
	cr_expect_eq(total(d, "wall"), 10000 + 700);
	plumb_rec_data_free(d);
}

static size_t count(const plumb_rec_data *d, const char *event)
{
	size_t n = 0;
	for (size_t i = 0; i < d->samples.n; i++)
		n += strcmp(d->events.v[d->samples.v[i].event], event) == 0;
	return n;
}

/* A long wait spans many periods: one sample at its start, as with switch
 * records, whether it was traced or not; the recording does not grow with
 * the time a thread sleeps. */
Test(waits_sched, a_long_wait_makes_one_sample)
{
	plumb_error err;
	plumb_rec_data *d = data();
	cpu_sample(d, 17, 100, cpu_chain, 100);
	cpu_sample(d, 18, 100, cpu_chain, 100);
	cr_assert_eq(plumb_rec_wait_add(d, 1, 17, PSMP_WAIT_SLEEP, 0, 1000, 200000, 0, 65536, sleep_chain, 3,
					&err), 0);
	for (uint64_t t = 0; t <= 200000; t += 5000) {
		reading(d, 17, t, 200, 0, t ? PLUMB_SCHED_READ : PLUMB_SCHED_START);
		reading(d, 18, t, 200, 0, t ? PLUMB_SCHED_READ : PLUMB_SCHED_START);
	}
	finish(d);
	cr_expect_eq(at(d, "off-cpu", 17, 0x7100), 199000);
	cr_expect_eq(at(d, "off-cpu", 18, 0x1000), 200000, "untraced: at the nearest CPU sample");
	cr_expect_eq(count(d, "off-cpu"), 3, "the traced wait, the time before it, the untraced one");
	for (size_t i = 0; i < d->samples.n; i++)
		if (d->samples.v[i].tid == 17 && d->ips.v[d->samples.v[i].ips] == 0x7100)
			cr_expect_eq(d->samples.v[i].time_ns, 1000);
	plumb_rec_data_free(d);
}

/* A new thread waits on a runqueue before it first runs (and writes its
 * THREAD record): that wait is preempted time, not cut out of its period
 * and left as blocked. */
Test(waits_sched, a_thread_record_between_readings_does_not_cut_a_runqueue_wait)
{
	plumb_rec_data *d = data();
	cpu_sample(d, 19, 8000, cpu_chain, 1000);
	reading(d, 19, 0, 0, 0, PLUMB_SCHED_START);
	reading(d, 19, 3000, 10, 0, PLUMB_SCHED_CPU);       /* ran at last, after 3000 queued */
	reading(d, 19, 10000, 7010, 3000, PLUMB_SCHED_READ);
	finish(d);
	cr_expect_eq(total(d, "off-cpu"), 2990);
	cr_expect_eq(total(d, "preempted"), 2990, "all of it runnable");
	plumb_rec_data_free(d);
}
