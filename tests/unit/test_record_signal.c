/* The signal sampler's file reader (src/record/signal_read.c) on files
 * built by hand: every record kind, exec and pc-only chains, and each kind
 * of damage with its exact message and byte offset. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/format.h"
#include "record/signal_read.h"

/* ---- building files -------------------------------------------------------- */

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

static void header(buf *f)
{
	struct psmp_file_header h = { PSMP_MAGIC, PSMP_VERSION, sizeof h };
	put(f, &h, sizeof h);
}

static void image(buf *f, uint32_t pid, uint64_t time_ns, uint32_t origin)
{
	const char exe[] = "/bin/prog", cmd[] = "prog\0-x";
	struct psmp_image im = { .h.type = PSMP_IMAGE, .pid = pid, .ppid = 1, .origin = origin,
				 .period_ns = 1000000, .requested_hz = 1000, .time_ns = time_ns,
				 .exe_len = sizeof exe - 1, .cmdline_len = sizeof cmd };
	im.h.size = (uint32_t)(sizeof im + PSMP_PAD8(sizeof exe - 1 + sizeof cmd));
	put(f, &im, sizeof im);
	put(f, exe, sizeof exe - 1);
	put(f, cmd, sizeof cmd);
	pad(f);
}

static void sample(buf *f, uint32_t tid, uint32_t overrun, const uint64_t *pc, uint16_t n)
{
	struct psmp_sample s = { .h = { PSMP_SAMPLE, (uint32_t)(sizeof s + 8u * n) }, .tid = tid,
				 .nframes = n, .overrun = overrun, .time_ns = 500 };
	put(f, &s, sizeof s);
	put(f, pc, 8u * n);
}

static void thread(buf *f, uint32_t tid, const char *name, uint64_t start)
{
	struct psmp_thread t = { .h = { PSMP_THREAD, sizeof t }, .tid = tid, .start_routine = start };
	strncpy(t.name, name, sizeof t.name);
	put(f, &t, sizeof t);
}

static void maps(buf *f, uint64_t time_ns, const char *text)
{
	size_t n = strlen(text);
	struct psmp_maps m = { .h = { PSMP_MAPS, (uint32_t)(sizeof m + PSMP_PAD8(n)) },
			       .time_ns = time_ns, .len = (uint32_t)n };
	put(f, &m, sizeof m);
	put(f, text, n);
	pad(f);
}

static void end(buf *f, uint64_t cpu_ns, uint64_t dropped)
{
	struct psmp_end e = { .h = { PSMP_END, sizeof e }, .time_ns = 900, .cpu_ns = cpu_ns,
			      .samples = 2, .dropped = dropped,
			      .handler_ns = 12345 };
	put(f, &e, sizeof e);
}

static const char MAPS1[] =
	"00400000-00401000 r--p 00000000 08:01 1234 /bin/prog\n"
	"00401000-00402000 r-xp 00001000 08:01 1234 /bin/prog\n"
	"7f0000000000-7f0000010000 rw-p 00000000 00:00 0 \n"
	"7fff0000000-7fff0002000 r-xp 00000000 00:00 0 [vdso]\n";

/* A well-formed process: one thread besides main, two samples. */
static void good_file(buf *f)
{
	static const uint64_t deep[] = { 0x401010, 0x401020, 0x401030 };
	static const uint64_t flat[] = { 0x401040 };
	header(f);
	image(f, 100, 10, PSMP_ORIGIN_START);
	maps(f, 10, MAPS1);
	thread(f, 100, "prog", 0);
	thread(f, 101, "worker", 0x401100);
	sample(f, 101, 3, deep, 3);
	sample(f, 100, 0, flat, 1);
	end(f, 7000000, 2);
}

/* ---- reading ---------------------------------------------------------------------- */

static plumb_rec_data *d;
static plumb_error err;
static plumb_sig_info info;
static char warned[1024];

static void on_warn(void *ctx, const char *m)
{
	(void)ctx;
	snprintf(warned, sizeof warned, "%s", m);
}

static void setup(void)
{
	d = plumb_rec_data_new();
	cr_assert_not_null(d);
	cr_assert_eq(plumb_rec_event_add(d, "cpu-clock", &err), 0);
	memset(&info, 0, sizeof info);
	warned[0] = 0;
}

static void teardown(void)
{
	plumb_rec_data_free(d);
}

TestSuite(record_signal, .init = setup, .fini = teardown);

static int read_buf(const buf *f, bool pc_only)
{
	return plumb_sig_read_buffer("f", f->b, f->n, d, 0, pc_only, &info, on_warn, NULL, &err);
}

/* Read f, expect failure with exactly msg. */
static void expect_error(const buf *f, const char *msg)
{
	cr_assert_eq(read_buf(f, false), -1);
	cr_assert_eq(err.code, PLUMB_ERR_FORMAT);
	cr_assert_str_eq(err.message, msg);
}

Test(record_signal, good_file_samples_weights_chains)
{
	buf f = { .n = 0 };
	good_file(&f);
	cr_assert_eq(read_buf(&f, false), 0, "%s", err.message);
	cr_assert_eq(d->samples.n, 2);
	plumb_rec_sample *s = &d->samples.v[0];
	cr_assert_eq(s->pid, 100);
	cr_assert_eq(s->tid, 101);
	cr_assert_eq(s->weight, 4);   /* 1 + overrun 3 */
	cr_assert_eq(s->nips, 3);
	cr_assert_eq(d->ips.v[s->ips], 0x401010);
	cr_assert_eq(d->ips.v[s->ips + 2], 0x401030);
	cr_assert_eq(d->samples.v[1].weight, 1);
	cr_assert_eq(info.samples, 2);
	cr_assert_eq(info.periods, 5);
	cr_assert_eq(info.dropped, 2);
	cr_assert_eq(info.handler_ns, 12345);
	cr_assert_eq(info.cpu_ns, 7000000);
	cr_assert_eq(info.images, 1);
	cr_assert_eq(info.unfinished, 0);
	cr_assert_eq(info.requested_hz, 1000);
	cr_assert_str_eq(warned, "");
}

Test(record_signal, only_executable_file_maps_are_kept)
{
	buf f = { .n = 0 };
	good_file(&f);
	cr_assert_eq(read_buf(&f, false), 0, "%s", err.message);
	cr_assert_eq(d->maps.n, 2);
	cr_assert_str_eq(d->maps.v[0].path, "/bin/prog");
	cr_assert_eq(d->maps.v[0].start, 0x401000);
	cr_assert_eq(d->maps.v[0].end, 0x402000);
	cr_assert_eq(d->maps.v[0].pgoff, 0x1000);
	cr_assert_eq(d->maps.v[0].time_ns, 10);
	cr_assert_str_eq(d->maps.v[1].path, "[vdso]");
}

Test(record_signal, threads_have_names_and_start_routines)
{
	buf f = { .n = 0 };
	good_file(&f);
	cr_assert_eq(read_buf(&f, false), 0, "%s", err.message);
	cr_assert_eq(d->threads.n, 2);
	cr_assert_str_eq(d->threads.v[1].name, "worker");
	cr_assert_eq(d->threads.v[1].tid, 101);
	cr_assert_eq(d->threads.v[1].start_routine, 0x401100);
	cr_assert_eq(d->threads.v[0].start_routine, 0);
}

Test(record_signal, pc_only_keeps_the_first_address)
{
	buf f = { .n = 0 };
	good_file(&f);
	cr_assert_eq(read_buf(&f, true), 0, "%s", err.message);
	cr_assert_eq(d->samples.v[0].nips, 1);
	cr_assert_eq(d->ips.v[d->samples.v[0].ips], 0x401010);
}

Test(record_signal, a_repeated_snapshot_adds_no_map)
{
	buf f = { .n = 0 };
	header(&f);
	image(&f, 100, 10, PSMP_ORIGIN_START);
	maps(&f, 10, MAPS1);
	maps(&f, 20, MAPS1);
	maps(&f, 30, "00500000-00501000 r-xp 00000000 08:01 99 /lib/plugin.so\n");
	cr_assert_eq(read_buf(&f, false), 0, "%s", err.message);
	cr_assert_eq(d->maps.n, 3);
	cr_assert_str_eq(d->maps.v[2].path, "/lib/plugin.so");
	cr_assert_eq(d->maps.v[2].time_ns, 30);
}

Test(record_signal, exec_ends_the_old_images_maps)
{
	buf f = { .n = 0 };
	header(&f);
	image(&f, 100, 10, PSMP_ORIGIN_START);
	maps(&f, 10, MAPS1);
	image(&f, 100, 50, PSMP_ORIGIN_EXEC);
	maps(&f, 50, "00401000-00402000 r-xp 00001000 08:01 77 /bin/other\n");
	cr_assert_eq(read_buf(&f, false), 0, "%s", err.message);
	cr_assert_eq(info.images, 2);
	cr_assert_eq(info.unfinished, 2);
	const plumb_rec_map *old = plumb_rec_map_find(d, 100, 0x401800, 20);
	const plumb_rec_map *now = plumb_rec_map_find(d, 100, 0x401800, 60);
	cr_assert_str_eq(old->path, "/bin/prog");
	cr_assert_eq(old->end_ns, 50);
	cr_assert_str_eq(now->path, "/bin/other");
}

Test(record_signal, unknown_record_types_are_skipped)
{
	buf f = { .n = 0 };
	good_file(&f);
	struct psmp_rec unknown = { 99, 24 };
	put(&f, &unknown, sizeof unknown);
	put(&f, "0123456789abcdef", 16);
	cr_assert_eq(read_buf(&f, false), 0, "%s", err.message);
	cr_assert_eq(d->samples.n, 2);
}

Test(record_signal, an_unaligned_buffer_reads_the_same)
{
	buf f = { .n = 0 };
	good_file(&f);
	unsigned char *copy = malloc(f.n + 1);
	memcpy(copy + 1, f.b, f.n);
	cr_assert_eq(plumb_sig_read_buffer("f", copy + 1, f.n, d, 0, false, &info, NULL, NULL, &err), 0,
		     "%s", err.message);
	free(copy);
	cr_assert_eq(d->ips.v[d->samples.v[0].ips + 1], 0x401020);
}

/* ---- damage ---------------------------------------------------------------------------- */

Test(record_signal, not_a_sampler_file)
{
	buf f = { .n = 0 };
	put(&f, "PLUMBSMX\1\0\0\0\20\0\0\0", 16);
	expect_error(&f, "f: not a plumb sampler file (no PLUMBSMP header)");
	buf e = { .n = 0 };
	expect_error(&e, "f: not a plumb sampler file (no PLUMBSMP header)");
}

Test(record_signal, another_version)
{
	buf f = { .n = 0 };
	struct psmp_file_header h = { PSMP_MAGIC, 7, sizeof h };
	put(&f, &h, sizeof h);
	expect_error(&f, "f: sampler file version 7, this plumb reads version 1");
}

Test(record_signal, record_size_not_a_multiple_of_8)
{
	buf f = { .n = 0 };
	header(&f);
	struct psmp_rec r = { PSMP_IMAGE, 12 };
	put(&f, &r, sizeof r);
	put(&f, "\0\0\0\0\0\0\0\0", 8);
	expect_error(&f, "f: byte offset 16: IMAGE record of size 12 (at least 8 and a multiple of 8 expected)");
}

Test(record_signal, sample_size_disagrees_with_its_frames)
{
	buf f = { .n = 0 };
	header(&f);
	image(&f, 100, 10, PSMP_ORIGIN_START);
	size_t at = f.n;
	static const uint64_t pc[] = { 1, 2 };
	sample(&f, 100, 0, pc, 2);
	((struct psmp_sample *)(f.b + at))->nframes = 3;
	char msg[128];
	snprintf(msg, sizeof msg, "f: byte offset %zu: SAMPLE record of 3 frames has 48 bytes, expected 56", at);
	expect_error(&f, msg);
}

Test(record_signal, sample_before_image)
{
	buf f = { .n = 0 };
	header(&f);
	static const uint64_t pc[] = { 1 };
	sample(&f, 100, 0, pc, 1);
	expect_error(&f, "f: byte offset 16: SAMPLE record before any IMAGE record");
}

Test(record_signal, maps_text_longer_than_its_record)
{
	buf f = { .n = 0 };
	header(&f);
	image(&f, 100, 10, PSMP_ORIGIN_START);
	size_t at = f.n;
	maps(&f, 10, MAPS1);
	((struct psmp_maps *)(f.b + at))->len = 4096;
	char msg[128];
	snprintf(msg, sizeof msg, "f: byte offset %zu: MAPS record: text longer than the record", at);
	expect_error(&f, msg);
}

Test(record_signal, maps_line_not_in_proc_form)
{
	buf f = { .n = 0 };
	header(&f);
	image(&f, 100, 10, PSMP_ORIGIN_START);
	size_t at = f.n;
	maps(&f, 10, "hello world\n");
	char msg[128];
	snprintf(msg, sizeof msg, "f: byte offset %zu: MAPS record: a line is not in /proc/self/maps form", at);
	expect_error(&f, msg);
}

Test(record_signal, image_strings_longer_than_the_record)
{
	buf f = { .n = 0 };
	header(&f);
	image(&f, 100, 10, PSMP_ORIGIN_START);
	((struct psmp_image *)(f.b + 16))->exe_len = 1000;
	expect_error(&f, "f: byte offset 16: IMAGE record: executable and command line longer than the record");
}

Test(record_signal, a_cut_last_record_is_a_warning)
{
	buf f = { .n = 0 };
	header(&f);
	image(&f, 100, 10, PSMP_ORIGIN_START);
	static const uint64_t pc[] = { 0x401010, 0x401020 };
	sample(&f, 100, 0, pc, 2);
	size_t at = f.n;
	sample(&f, 100, 0, pc, 2);
	f.n -= 20;   /* killed in the middle of a write */
	cr_assert_eq(read_buf(&f, false), 0, "%s", err.message);
	cr_assert_eq(d->samples.n, 1);
	cr_assert_eq(info.unfinished, 1);
	char msg[256];
	snprintf(msg, sizeof msg,
		 "f: byte offset %zu: the last record (SAMPLE, 48 bytes) is cut short at 28 bytes "
		 "(the process was killed while writing, or the file system was full); it is ignored",
		 at);
	cr_assert_str_eq(warned, msg);
}

Test(record_signal, missing_file_is_an_io_error)
{
	cr_assert_eq(plumb_sig_read_file("/nonexistent/plumb-sampler.1", d, 0, false, &info, NULL,
					 NULL, &err),
		     -1);
	cr_assert_eq(err.code, PLUMB_ERR_IO);
	cr_assert_str_eq(err.message, "/nonexistent/plumb-sampler.1: No such file or directory");
}

Test(record_signal, file_round_trip)
{
	buf f = { .n = 0 };
	good_file(&f);
	char path[] = "/tmp/plumb-sig-unit-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	FILE *w = fdopen(fd, "wb");
	cr_assert_eq(fwrite(f.b, 1, f.n, w), f.n);
	fclose(w);
	int rc = plumb_sig_read_file(path, d, 0, false, &info, NULL, NULL, &err);
	unlink(path);
	cr_assert_eq(rc, 0, "%s", err.message);
	cr_assert_eq(d->samples.n, 2);
}
