/* Off-CPU and lock-wait samples (src/record/waits.c) from hand-made waits,
 * switches and CPU samples, and the WAIT records of the sampler's file. */
#include <criterion/criterion.h>
#include <string.h>

#include "plumb/record.h"
#include "preload/format.h"
#include "rec_totals.h"
#include "record/signal_read.h"
#include "record/waits_order.h"

/* The chain's first address of event's samples summed by weight. */
static uint64_t at(const plumb_rec_data *d, const char *event, uint64_t leaf)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < d->samples.n; i++) {
		const plumb_rec_sample *s = &d->samples.v[i];
		if (strcmp(d->events.v[s->event], event) == 0 && s->nips && d->ips.v[s->ips] == leaf)
			sum += s->weight;
	}
	return sum;
}

static const uint64_t cpu_chain[] = { 0x1000, 0x2000 };
static const uint64_t lock_chain[] = { 0x7000, 0x2100, 0x2000 };
static const uint64_t sleep_chain[] = { 0x7100, 0x2200, 0x2000 };

static plumb_rec_data *fixture(void)
{
	plumb_error err;
	plumb_rec_data *d = plumb_rec_data_new();
	cr_assert(d);
	int ev = plumb_rec_event_add(d, "cpu-clock", &err);
	cr_assert_eq(ev, 0);
	cr_assert_eq(plumb_rec_sample_add(d, 1, 10, 100, 0, 1, cpu_chain, 2, 0, &err), 0);
	cr_assert_eq(plumb_rec_period_note(d, 0, 1000000, &err), 0);
	/* a lock wait with its stack, a wait whose stack was not taken, a
	 * sleep whose stack was taken with probability 1/2 */
	cr_assert_eq(plumb_rec_wait_add(d, 1, 10, PSMP_WAIT_MUTEX, PSMP_WAIT_IS_SYNC, 1000, 5000,
					0xabc0, 65536, lock_chain, 3, &err), 0);
	cr_assert_eq(plumb_rec_wait_add(d, 1, 10, PSMP_WAIT_IO, 0, 6000, 9000, 3, 0, NULL, 0, &err), 0);
	cr_assert_eq(plumb_rec_wait_add(d, 1, 10, PSMP_WAIT_SLEEP, 0, 10000, 20000, 0, 2 * 65536,
					sleep_chain, 3, &err), 0);
	return d;
}

static void switches(plumb_rec_data *d)
{
	plumb_error err;
	/* out/in pairs: inside the lock wait, the untaken wait, the sleep,
	 * then a preemption outside any traced call */
	static const uint64_t t[][2] = { { 1500, 4500 }, { 6500, 8000 }, { 12000, 13000 }, { 30000, 31000 } };
	for (size_t i = 0; i < 4; i++) {
		cr_assert_eq(plumb_rec_switch_add(d, 1, 10, t[i][0], true, i == 3, &err), 0);
		cr_assert_eq(plumb_rec_switch_add(d, 1, 10, t[i][1], false, false, &err), 0);
	}
}

Test(waits, switch_intervals_go_to_the_wait_they_lie_in)
{
	plumb_error err;
	plumb_rec_data *d = fixture();
	switches(d);
	plumb_rec_waits_opts o = { true, false, 0 };
	cr_assert_eq(plumb_rec_waits_finish(d, &o, &err), 0, "%s", err.message);
	cr_expect_eq(at(d, "off-cpu", 0x7000), 3000);       /* the lock wait, exactly */
	cr_expect_eq(at(d, "off-cpu", 0x7100), 2000);       /* 1000 ns at p = 1/2 */
	cr_expect_eq(at(d, "off-cpu", 0x1000), 1000);       /* preempted: the CPU sample's stack */
	cr_expect_eq(total(d, "off-cpu"), 6000);            /* the untaken wait's interval is dropped */
	cr_expect_eq(total(d, "preempted"), 1000);
	cr_expect_eq(at(d, "preempted", 0x1000), 1000);
	/* + the CPU sample's period (before the first switch: its own) + the
	 * on-CPU time between each switch in and the next out */
	cr_expect_eq(total(d, "wall"), 6000 + 1000000 + 2000 + 4000 + 17000);
	plumb_rec_data_free(d);
}

Test(waits, without_switches_a_taken_wait_is_its_elapsed_time)
{
	plumb_error err;
	plumb_rec_data *d = fixture();
	plumb_rec_waits_opts o = { true, false, 4000000 };
	cr_assert_eq(plumb_rec_waits_finish(d, &o, &err), 0, "%s", err.message);
	cr_expect_eq(at(d, "off-cpu", 0x7000), 4000);
	cr_expect_eq(at(d, "off-cpu", 0x7100), 20000);
	cr_expect_eq(total(d, "preempted"), 0);
	cr_expect_eq(total(d, "wall"), 24000 + 1000000);  /* the noted period wins over the given one */
	plumb_rec_data_free(d);
}

Test(waits, sync_waits_carry_the_object_and_count_once)
{
	plumb_error err;
	plumb_rec_data *d = fixture();
	plumb_rec_waits_opts o = { false, true, 0 };
	cr_assert_eq(plumb_rec_waits_finish(d, &o, &err), 0, "%s", err.message);
	cr_expect_eq(total(d, "sync-wait"), 4000);   /* the sleep is not a lock wait */
	cr_expect_eq(total(d, "sync-waits"), 1);
	cr_expect_eq(at(d, "sync-waits", 0xabc0), 1);
	for (size_t i = 0; i < d->samples.n; i++) {
		const plumb_rec_sample *s = &d->samples.v[i];
		if (strcmp(d->events.v[s->event], "sync-wait") == 0) {
			cr_expect(s->flags & PLUMB_REC_LOCK);
			cr_expect_eq((s->flags >> 8) & 0xff, PSMP_WAIT_MUTEX);
			cr_expect_eq(s->nips, 4);
			cr_expect_eq(s->time_ns, 1000);
		}
	}
	cr_expect_str_eq(plumb_rec_event_unit("sync-waits"), "waits");
	cr_expect_str_eq(plumb_rec_event_unit("off-cpu"), "ns");
	plumb_rec_data_free(d);
}

Test(waits, close_intervals_at_one_stack_make_one_sample)
{
	plumb_error err;
	plumb_rec_data *d = fixture();
	for (uint64_t t = 1100; t < 4900; t += 200) {
		cr_assert_eq(plumb_rec_switch_add(d, 1, 10, t, true, false, &err), 0);
		cr_assert_eq(plumb_rec_switch_add(d, 1, 10, t + 100, false, false, &err), 0);
	}
	plumb_rec_waits_opts o = { true, false, 0 };
	cr_assert_eq(plumb_rec_waits_finish(d, &o, &err), 0, "%s", err.message);
	size_t n = 0;
	for (size_t i = 0; i < d->samples.n; i++)
		n += strcmp(d->events.v[d->samples.v[i].event], "off-cpu") == 0;
	cr_expect_eq(n, 1);
	cr_expect_eq(at(d, "off-cpu", 0x7000), 19 * 100);
	plumb_rec_data_free(d);
}

/* ---- the file's WAIT records --------------------------------------------------- */

static size_t file_with_wait_weighted(unsigned char *b, uint16_t nframes, uint32_t size,
				     uint64_t inv_p)
{
	size_t n = 0;
	struct psmp_file_header h = { PSMP_MAGIC, PSMP_VERSION, sizeof h };
	memcpy(b + n, &h, sizeof h);
	n += sizeof h;
	struct psmp_image im = { .h = { PSMP_IMAGE, sizeof im }, .pid = 7, .period_ns = 1000000 };
	memcpy(b + n, &im, sizeof im);
	n += sizeof im;
	struct psmp_waitcfg c = { { PSMP_WAITCFG, sizeof c }, 2000, 1000000, 3, 0 };
	memcpy(b + n, &c, sizeof c);
	n += sizeof c;
	struct psmp_wait w = { { PSMP_WAIT, size }, 8, nframes, PSMP_WAIT_COND, PSMP_WAIT_IS_SYNC,
			       100, 900, 0x5550, inv_p };
	memcpy(b + n, &w, sizeof w);
	n += sizeof w;
	for (uint16_t i = 0; i < nframes; i++) {
		uint64_t pc = 0x4000 + i;
		memcpy(b + n, &pc, 8);
		n += 8;
	}
	return n;
}

static size_t file_with_wait(unsigned char *b, uint16_t nframes, uint32_t size)
{
	return file_with_wait_weighted(b, nframes, size, 65536);
}

Test(waits, wait_records_are_read)
{
	unsigned char b[512];
	size_t n = file_with_wait(b, 2, sizeof(struct psmp_wait) + 16);
	plumb_error err;
	plumb_rec_data *d = plumb_rec_data_new();
	cr_assert_eq(plumb_rec_event_add(d, "cpu-clock", &err), 0);
	cr_assert_eq(plumb_sig_read_buffer("f", b, n, d, 0, false, NULL, NULL, NULL, &err), 0, "%s",
		     err.message);
	cr_expect_eq(plumb_rec_waits_count(d), 1);
	uint64_t thr = 0, mean = 0;
	cr_expect(plumb_rec_waits_settings(d, &thr, &mean));
	cr_expect_eq(thr, 2000);
	plumb_rec_waits_opts o = { false, true, 0 };
	cr_assert_eq(plumb_rec_waits_finish(d, &o, &err), 0);
	cr_expect_eq(at(d, "sync-wait", 0x5550), 800);
	plumb_rec_data_free(d);
}

Test(waits, a_wait_record_of_the_wrong_size_is_an_error)
{
	unsigned char b[512];
	size_t n = file_with_wait(b, 2, sizeof(struct psmp_wait) + 8);
	plumb_error err;
	plumb_rec_data *d = plumb_rec_data_new();
	cr_assert_eq(plumb_sig_read_buffer("f", b, n, d, 0, false, NULL, NULL, NULL, &err), -1);
	cr_expect(strstr(err.message, "f: byte offset 112: WAIT record: size does not match"),
		  "%s", err.message);
	plumb_rec_data_free(d);
}

/* The sampler weighs a taken wait by 1/p >= 1 (or 0: not taken); a damaged
 * weight below 1 would scale off-CPU time down without a word. */
Test(waits, a_wait_weighted_below_one_is_an_error)
{
	unsigned char b[512];
	size_t n = file_with_wait_weighted(b, 2, sizeof(struct psmp_wait) + 16, 32768);
	plumb_error err;
	plumb_rec_data *d = plumb_rec_data_new();
	cr_assert_eq(plumb_sig_read_buffer("f", b, n, d, 0, false, NULL, NULL, NULL, &err), -1);
	cr_expect(strstr(err.message, "f: byte offset 112: WAIT record: weight 0.5000, expected 1 or more"),
		  "%s", err.message);
	plumb_rec_data_free(d);
	n = file_with_wait_weighted(b, 2, sizeof(struct psmp_wait) + 16, 0);
	d = plumb_rec_data_new();
	cr_assert_eq(plumb_sig_read_buffer("f", b, n, d, 0, false, NULL, NULL, NULL, &err), 0, "%s",
		     err.message);
	plumb_rec_data_free(d);
}

/* The finish's sort: by (pid, tid, time), stable, whatever the runs. */
static int ref_cmp(const void *a, const void *b)
{
	const plumb_order_key *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;   /* stable */
}

Test(waits, records_sort_by_thread_then_time_stably)
{
	enum { N = 5000 };
	static plumb_order_key k[N], ref[N];
	uint64_t x = 88172645463325252ull;
	for (int shape = 0; shape < 3; shape++) {
		uint64_t clock[7] = { 0 };
		for (size_t i = 0; i < N; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			int th = (int)(x % 7);
			/* 0: interleaved ascending runs per thread (perf rings);
			 * 1: random times; 2: many equal times */
			uint64_t t = shape == 0 ? (clock[th] += x % 100) : shape == 1 ? x % 100000 : x % 3;
			k[i] = (plumb_order_key){ t, th % 2 ? 40 : -3, 100 - th, i };
		}
		memcpy(ref, k, sizeof k);
		qsort(ref, N, sizeof *ref, ref_cmp);
		cr_assert_eq(plumb_order_by_thread_time(k, N), 0);
		for (size_t i = 0; i < N; i++)
			cr_assert(k[i].index == ref[i].index, "shape %d, record %zu: index %zu, expected %zu",
				  shape, i, k[i].index, ref[i].index);
	}
	/* applying the order moves the records */
	uint32_t v[4] = { 10, 11, 12, 13 };
	plumb_order_key o[4] = { { 0, 0, 0, 2 }, { 0, 0, 0, 0 }, { 0, 0, 0, 3 }, { 0, 0, 0, 1 } };
	cr_assert_eq(plumb_order_apply(v, 4, sizeof *v, o), 0);
	cr_assert(v[0] == 12 && v[1] == 10 && v[2] == 13 && v[3] == 11);
}

/* Who held a lock: the holder given after a lock wait ends up in the
 * "locks.held.N" metadata with that wait's time and count; a wait without
 * a holder adds nothing. */
Test(waits, the_holder_of_a_lock_is_kept_per_object)
{
	plumb_error err;
	plumb_rec_data *d = plumb_rec_data_new();
	cr_assert_eq(plumb_rec_event_add(d, "cpu-clock", &err), 0);
	cr_assert_eq(plumb_rec_wait_add(d, 1, 10, PSMP_WAIT_MUTEX, PSMP_WAIT_IS_SYNC, 1000, 5000, 0xabc0,
					65536, lock_chain, 3, &err), 0);
	plumb_rec_wait_held(d, 1, 11);
	cr_assert_eq(plumb_rec_wait_add(d, 1, 10, PSMP_WAIT_MUTEX, PSMP_WAIT_IS_SYNC, 6000, 7000, 0xabc0,
					65536, lock_chain, 3, &err), 0);
	plumb_rec_wait_held(d, 2, 12);   /* another process's: not this wait's */
	plumb_rec_waits_opts o = { false, true, 0 };
	cr_assert_eq(plumb_rec_waits_finish(d, &o, &err), 0);
	size_t found = 0;
	for (size_t i = 0; i < d->meta.n; i++)
		if (strncmp(d->meta.v[i], "locks.held.", 11) == 0) {
			found++;
			cr_expect(strcmp(d->meta.v[i], "locks.held.0\t4000 1 11 [mutex 0xabc0]") == 0, "%s",
				  d->meta.v[i]);
		}
	cr_expect_eq(found, 1);
	plumb_rec_data_free(d);
}

/* A damaged file's wait can weigh more than 64 bits of ns: an overflow
 * error, not a wrapped or undefined number. */
Test(waits, a_weighted_wait_past_64_bits_is_an_overflow)
{
	plumb_error err;
	plumb_rec_data *d = plumb_rec_data_new();
	cr_assert_eq(plumb_rec_event_add(d, "cpu-clock", &err), 0);
	cr_assert_eq(plumb_rec_wait_add(d, 1, 10, PSMP_WAIT_SLEEP, 0, 0, (uint64_t)1 << 40, 0,
					(uint64_t)1 << 50, sleep_chain, 3, &err), 0);
	plumb_rec_waits_opts o = { true, false, 0 };
	cr_assert_eq(plumb_rec_waits_finish(d, &o, &err), -1);
	cr_expect_eq(err.code, PLUMB_ERR_OVERFLOW);
	cr_expect_str_eq(err.message, "a wait of thread 10: 1099511627776 ns weighted by "
				      "1125899906842624/65536 passes 2^64 ns");
	plumb_rec_data_free(d);
}

/* Two lock waits of thread 10 a nanosecond apart at one stack, each of
 * BIG ns (together past 64 bits), the lock held by holder (0: unknown). */
#define BIG (UINT64_MAX / 2 + 1)
static plumb_rec_data *two_long_lock_waits(int32_t holder)
{
	plumb_error err;
	plumb_rec_data *d = plumb_rec_data_new();
	cr_assert_eq(plumb_rec_event_add(d, "cpu-clock", &err), 0);
	for (uint64_t t0 = 0; t0 < 2; t0++) {
		cr_assert_eq(plumb_rec_wait_add(d, 1, 10, PSMP_WAIT_MUTEX, PSMP_WAIT_IS_SYNC, t0, t0 + BIG,
						0xabc0, 65536, lock_chain, 3, &err), 0);
		if (holder)
			plumb_rec_wait_held(d, 1, holder);
	}
	return d;
}

/* Close waits at one stack are one sample, unless their sum passes 64 bits:
 * then each keeps its own, and the sums are exact. */
Test(waits, close_waits_past_64_bits_are_not_coalesced)
{
	plumb_error err;
	plumb_rec_data *d = two_long_lock_waits(0);
	plumb_rec_waits_opts o = { false, true, 0 };
	cr_assert_eq(plumb_rec_waits_finish(d, &o, &err), 0, "%s", err.message);
	size_t n = 0;
	for (size_t i = 0; i < d->samples.n; i++)
		if (strcmp(d->events.v[d->samples.v[i].event], "sync-wait") == 0) {
			cr_expect_eq(d->samples.v[i].weight, BIG);
			n++;
		}
	cr_expect_eq(n, 2);
	plumb_rec_data_free(d);
}

/* The time waited for a lock's holder is summed per lock: past 64 bits is
 * an overflow. */
Test(waits, a_holders_wait_time_past_64_bits_is_an_overflow)
{
	plumb_error err;
	plumb_rec_data *d = two_long_lock_waits(11);
	plumb_rec_waits_opts o = { false, true, 0 };
	cr_assert_eq(plumb_rec_waits_finish(d, &o, &err), -1);
	cr_expect_eq(err.code, PLUMB_ERR_OVERFLOW);
	cr_expect_str_eq(err.message, "the waits for a lock held by thread 11 pass 2^64 ns");
	plumb_rec_data_free(d);
}

/* -p: a thread blocked when the window opened (at 50) has its stack read
 * then; its first interval goes there, not to a CPU sample (another
 * thread's, or its own later one), and a later interval does not. */
Test(waits, a_held_stack_takes_the_first_interval_only)
{
	plumb_error err;
	static const uint64_t held_chain[] = { 0x7200, 0x2300, 0x2000 };
	plumb_rec_data *d = plumb_rec_data_new();
	cr_assert(d);
	cr_assert_eq(plumb_rec_event_add(d, "cpu-clock", &err), 0);
	/* thread 11: blocked at 50 until 4000, runs (a CPU sample at 4500),
	 * blocked 5000-6000; thread 12: blocked throughout, no stack read */
	cr_assert_eq(plumb_rec_sample_add(d, 1, 11, 4500, 0, 1, cpu_chain, 2, 0, &err), 0);
	cr_assert_eq(plumb_rec_held_add(d, 1, 11, 50, held_chain, 3, 0, &err), 0);
	static const uint64_t t11[][2] = { { 50, 4000 }, { 5000, 6000 } };
	for (size_t i = 0; i < 2; i++) {
		cr_assert_eq(plumb_rec_switch_add(d, 1, 11, t11[i][0], true, false, &err), 0);
		cr_assert_eq(plumb_rec_switch_add(d, 1, 11, t11[i][1], false, false, &err), 0);
	}
	cr_assert_eq(plumb_rec_switch_add(d, 1, 12, 50, true, false, &err), 0);
	cr_assert_eq(plumb_rec_switch_add(d, 1, 12, 9000, false, false, &err), 0);
	plumb_rec_waits_opts o = { true, false, 1000000 };
	cr_assert_eq(plumb_rec_waits_finish(d, &o, &err), 0, "%s", err.message);
	cr_expect_eq(at(d, "off-cpu", 0x7200), 3950, "the held stack's interval: %llu",
		     (unsigned long long)at(d, "off-cpu", 0x7200));
	cr_expect_eq(at(d, "off-cpu", 0x1000), 1000, "the later interval, at the CPU sample: %llu",
		     (unsigned long long)at(d, "off-cpu", 0x1000));
	cr_expect_eq(total(d, "off-cpu"), 4950, "thread 12 has no stack: none of its time");
	plumb_rec_data_free(d);
}
