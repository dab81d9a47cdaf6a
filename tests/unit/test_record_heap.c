/* The heap tracing reader (src/record/heap_read.c) on files built by hand:
 * two threads' events merged by sequence number, a block freed by another
 * thread, the peak per stack, temporaries, leaks, a mapping cut in two,
 * sampled weights, and damaged events with their byte offsets. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "preload/format.h"
#include "record/heap.h"

typedef struct buf {
	unsigned char b[8192];
	size_t n;
} buf;

static void put(buf *f, const void *p, size_t n)
{
	cr_assert_leq(f->n + n, sizeof f->b);
	memcpy(f->b + f->n, p, n);
	f->n += n;
}

static void pad(buf *f)
{
	while (f->n % 8)
		f->b[f->n++] = 0;
}

static void start(buf *f, uint32_t mode, uint64_t rate)
{
	struct psmp_file_header h = { PSMP_MAGIC, PSMP_VERSION, sizeof h };
	put(f, &h, sizeof h);
	const char exe[] = "/bin/prog";
	struct psmp_image im = { .h.type = PSMP_IMAGE, .pid = 7, .ppid = 1, .period_ns = 1000000,
				 .requested_hz = 1000, .time_ns = 1000, .exe_len = sizeof exe - 1 };
	im.h.size = (uint32_t)(sizeof im + PSMP_PAD8(sizeof exe - 1));
	put(f, &im, sizeof im);
	put(f, exe, sizeof exe - 1);
	pad(f);
	struct psmp_heap_info hi = { { PSMP_HEAP_INFO, sizeof hi }, mode, 0, rate, 0, 0 };
	put(f, &hi, sizeof hi);
}

static void stack(buf *f, uint32_t tid, uint32_t id, uint64_t leaf)
{
	uint64_t pc[2] = { leaf, 0x401234 };
	struct psmp_heap_stack s = { { PSMP_HEAP_STACK, sizeof s + sizeof pc }, tid, id, 2, 0, 0 };
	put(f, &s, sizeof s);
	put(f, pc, sizeof pc);
}

/* An events record: ev holds the encoded events. */
typedef struct evs {
	unsigned char b[512];
	size_t n;
	uint64_t seq, ptr;
} evs;

static void num(evs *e, uint64_t v)
{
	while (v >= 0x80) {
		e->b[e->n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	e->b[e->n++] = (unsigned char)v;
}

static void ev(evs *e, unsigned kind, uint64_t seq, uint64_t ptr, uint64_t size, uint64_t stk)
{
	e->b[e->n++] = (unsigned char)kind;
	num(e, seq - e->seq);
	int64_t d = (int64_t)(ptr - e->ptr);
	num(e, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
	e->seq = seq;
	e->ptr = ptr;
	if (kind != PSMP_HEAP_FREE && kind != PSMP_HEAP_FREE_TEMP)
		num(e, size);
	if (kind == PSMP_HEAP_ALLOC || kind == PSMP_HEAP_MMAP)
		num(e, stk);
}

static void events(buf *f, uint32_t tid, const evs *e)
{
	struct psmp_heap_events h = { { PSMP_HEAP_EVENTS, (uint32_t)(sizeof h + PSMP_PAD8(e->n)) }, tid,
				      (uint32_t)e->n, 2000 };
	put(f, &h, sizeof h);
	put(f, e->b, e->n);
	pad(f);
}

static plumb_rec_data *d;
static plumb_error err;

static void setup(void)
{
	d = plumb_rec_data_new();
	cr_assert_not_null(d);
	cr_assert_eq(plumb_heap_events_add(d, &err), 0);
}

static void teardown(void)
{
	plumb_rec_data_free(d);
}

TestSuite(record_heap, .init = setup, .fini = teardown);

/* The sum of event e's weights at thread tid. */
static uint64_t value(int32_t tid, uint32_t e)
{
	uint64_t v = 0;
	for (size_t i = 0; i < d->samples.n; i++)
		if (d->samples.v[i].tid == tid && d->samples.v[i].event == e)
			v += d->samples.v[i].weight;
	return v;
}

Test(record_heap, threads_merged_by_sequence)
{
	buf f = { .n = 0 };
	start(&f, PSMP_HEAP_EXACT, 0);
	stack(&f, 100, 0, 0x1000);
	stack(&f, 101, 0, 0x1000);
	evs a = { .n = 0 }, b = { .n = 0 };
	ev(&a, PSMP_HEAP_ALLOC, 1, 0x5000, 100, 0);   /* thread 100 */
	ev(&b, PSMP_HEAP_ALLOC, 2, 0x6000, 50, 0);    /* thread 101: the peak, 150 */
	ev(&b, PSMP_HEAP_FREE, 3, 0x5000, 0, 0);      /* 101 frees 100's block: a temporary */
	ev(&a, PSMP_HEAP_ALLOC, 4, 0x7000, 10, 0);    /* leaked */
	ev(&a, PSMP_HEAP_MMAP, 5, 0x100000, 0x3000, 0);
	ev(&b, PSMP_HEAP_MUNMAP, 6, 0x101000, 0x1000, 0);  /* a hole: two pieces left */
	events(&f, 100, &a);
	events(&f, 101, &b);
	plumb_heap_info info = { 0 };
	cr_assert_eq(plumb_heap_read_buffer("f", f.b, f.n, d, 0, &info, &err), 0, "%s", err.message);
	cr_assert_eq(value(100, HEAP_EV_ALLOCS), 3);
	cr_assert_eq(value(100, HEAP_EV_ALLOC_BYTES), 110 + 0x3000);
	cr_assert_eq(value(100, HEAP_EV_MMAP_BYTES), 0x3000);
	cr_assert_eq(value(100, HEAP_EV_TEMP_ALLOCS), 1);
	/* the peak is the mapping's: 50 + 10 + 0x3000 live after seq 5 */
	cr_assert_eq(value(100, HEAP_EV_PEAK_BYTES), 10 + 0x3000);
	cr_assert_eq(value(101, HEAP_EV_PEAK_BYTES), 50);
	cr_assert_eq(value(100, HEAP_EV_LEAKS), 1 + 2);
	cr_assert_eq(value(100, HEAP_EV_LEAK_BYTES), 10 + 0x2000);
	cr_assert_eq(value(101, HEAP_EV_LEAKS), 1);
	cr_assert_eq(info.images, 1);
	cr_assert_eq(info.events, 6);
	cr_assert_eq(d->meta.n, 1);
	cr_assert(strstr(d->meta.v[0], "peak_bytes=12348 ") != NULL, "%s", d->meta.v[0]);
}

Test(record_heap, sampled_weights)
{
	buf f = { .n = 0 };
	start(&f, PSMP_HEAP_SAMPLED, 1000);
	stack(&f, 100, 0, 0x1000);
	evs a = { .n = 0 };
	ev(&a, PSMP_HEAP_ALLOC, 1, 0x5000, 1000, 0);
	ev(&a, PSMP_HEAP_FREE_TEMP, 2, 0x5000, 0, 0);
	events(&f, 100, &a);
	cr_assert_eq(plumb_heap_read_buffer("f", f.b, f.n, d, 0, NULL, &err), 0, "%s", err.message);
	double w = 1 / (1 - exp(-1.0));   /* a 1000-byte block at one mark per 1000 bytes */
	cr_assert_eq(value(100, HEAP_EV_ALLOCS), (uint64_t)llround(w));
	cr_assert_eq(value(100, HEAP_EV_ALLOC_BYTES), (uint64_t)llround(1000 * w));
	cr_assert_eq(value(100, HEAP_EV_TEMP_ALLOCS), (uint64_t)llround(w));
}

Test(record_heap, damaged_events_name_the_offset)
{
	buf f = { .n = 0 };
	start(&f, PSMP_HEAP_EXACT, 0);
	size_t at = f.n + sizeof(struct psmp_heap_events);
	evs a = { .n = 0 };
	a.b[a.n++] = PSMP_HEAP_ALLOC;
	a.b[a.n++] = 0x81;   /* a number that goes on past the end */
	events(&f, 100, &a);
	cr_assert_eq(plumb_heap_read_buffer("f", f.b, f.n, d, 0, NULL, &err), -1);
	char want[160];
	snprintf(want, sizeof want, "f: byte offset %zu: HEAP_EVENTS record: an event runs past the record's end",
		 at + 2);
	cr_assert_str_eq(err.message, want);

	buf g = { .n = 0 };
	start(&g, PSMP_HEAP_EXACT, 0);
	at = g.n + sizeof(struct psmp_heap_events);
	evs b = { .n = 0 };
	b.b[b.n++] = 42;
	events(&g, 100, &b);
	cr_assert_eq(plumb_heap_read_buffer("g", g.b, g.n, d, 0, NULL, &err), -1);
	snprintf(want, sizeof want, "g: byte offset %zu: HEAP_EVENTS record: unknown event kind", at);
	cr_assert_str_eq(err.message, want);
}

Test(record_heap, units)
{
	cr_assert_str_eq(plumb_heap_event_unit("alloc-bytes"), "bytes");
	cr_assert_str_eq(plumb_heap_event_unit("temp-allocs"), "allocations");
	cr_assert_str_eq(plumb_heap_event_unit("cpu-clock"), "samples");
}
