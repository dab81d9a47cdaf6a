/* Reader of the signal sampler's per-process files (format in
 * src/preload/format.h): images, samples, threads and /proc/self/maps
 * snapshots become plumb_rec_data. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/format.h"
#include "record/signal_read.h"

struct rd {
	const char *name;
	const unsigned char *b;
	size_t n;
	plumb_rec_data *d;
	uint32_t event;
	bool pc_only;
	plumb_sig_info *info;
	plumb_error *err;
	/* the current image */
	int have_image, ended;
	int32_t pid;
};

static const char *type_name(uint32_t t)
{
	static const char *names[] = { "?", "IMAGE", "SAMPLE", "THREAD", "MAPS", "END" };
	return t < sizeof names / sizeof *names ? names[t] : "unknown";
}

static int bad(struct rd *r, size_t off, const char *what)
{
	return plumb_fail(r->err, PLUMB_ERR_FORMAT, "%s: byte offset %zu: %s", r->name, off, what);
}

static void finish_image(struct rd *r)
{
	if (r->have_image && !r->ended)
		r->info->unfinished++;
}

static int read_image(struct rd *r, size_t off, uint32_t size)
{
	struct psmp_image im;
	if (size < sizeof im)
		return bad(r, off, "IMAGE record shorter than its fixed part (64 bytes)");
	memcpy(&im, r->b + off, sizeof im);
	if ((uint64_t)im.exe_len + im.cmdline_len > size - sizeof im)
		return bad(r, off, "IMAGE record: executable and command line longer than the record");
	if (im.period_ns == 0)
		return bad(r, off, "IMAGE record: timer period 0");
	finish_image(r);
	/* An exec keeps the pid: the old image's maps end here. */
	if (r->have_image && (int32_t)im.pid == r->pid)
		plumb_rec_exec(r->d, (int32_t)im.pid, im.time_ns);
	r->have_image = 1;
	r->ended = 0;
	r->pid = (int32_t)im.pid;
	r->info->images++;
	r->info->clock = im.clock;
	r->info->requested_hz = im.requested_hz;
	return 0;
}

static int read_sample(struct rd *r, size_t off, uint32_t size)
{
	struct psmp_sample s;
	if (size < sizeof s)
		return bad(r, off, "SAMPLE record shorter than its fixed part (32 bytes)");
	memcpy(&s, r->b + off, sizeof s);
	if (size != sizeof s + (uint64_t)s.nframes * 8) {
		char m[160];
		snprintf(m, sizeof m, "SAMPLE record of %u frames has %u bytes, expected %zu",
			 (unsigned)s.nframes, size, sizeof s + (size_t)s.nframes * 8);
		return bad(r, off, m);
	}
	if (!r->have_image)
		return bad(r, off, "SAMPLE record before any IMAGE record");
	size_t n = s.nframes;
	if (r->pc_only && n > 1)
		n = 1;
	/* The chain is used in place when aligned (always, in a file read
	 * into malloc'd memory: records are multiples of 8 bytes). */
	const unsigned char *p = r->b + off + sizeof s;
	uint64_t *copy = NULL;
	if ((uintptr_t)p % _Alignof(uint64_t)) {
		if (!(copy = malloc(n * 8 + 1)))
			return plumb_fail_nomem(r->err);
		memcpy(copy, p, n * 8);
	}
	uint32_t flags = (s.flags & (PSMP_SAMPLE_TRUNCATED | PSMP_SAMPLE_NO_UNWIND)) ? PLUMB_REC_TRUNCATED : 0;
	uint64_t weight = 1 + (uint64_t)s.overrun;
	r->info->samples++;
	r->info->periods += weight;
	int rc = plumb_rec_sample_add(r->d, r->pid, (int32_t)s.tid, s.time_ns, r->event, weight,
				      copy ? copy : (const uint64_t *)(const void *)p, n, flags, r->err);
	free(copy);
	return rc;
}

static int read_thread(struct rd *r, size_t off, uint32_t size)
{
	struct psmp_thread t;
	if (size < sizeof t)
		return bad(r, off, "THREAD record shorter than its fixed part (56 bytes)");
	if (!r->have_image)
		return bad(r, off, "THREAD record before any IMAGE record");
	memcpy(&t, r->b + off, sizeof t);
	char name[17];
	memcpy(name, t.name, 16);
	name[16] = 0;
	/* its own CPU clock as it began or ended: --off-cpu's figures */
	if (plumb_rec_sched_add(r->d, r->pid, (int32_t)t.tid, t.time_ns, t.cpu_ns, 0, PLUMB_SCHED_CPU,
				r->err))
		return -1;
	return plumb_rec_thread_set(r->d, r->pid, (int32_t)t.tid, name[0] ? name : NULL,
				    t.start_routine, r->err);
}

/* Is this mapping already live for the pid, unchanged since a snapshot? */
static int known_map(struct rd *r, uint64_t start, uint64_t end, uint64_t pgoff, const char *path,
		     uint64_t t)
{
	const plumb_rec_map *m = plumb_rec_map_find(r->d, r->pid, start, t);
	return m && m->start == start && m->end == end && m->pgoff == pgoff && m->end_ns > t &&
	       strcmp(m->path, path) == 0;
}

/* One line of /proc/self/maps: "start-end perms offset dev inode path". */
static int map_line(struct rd *r, size_t off, const char *line, uint64_t t)
{
	unsigned long long start, end, pgoff;
	char perms[8];
	int pathpos = 0;
	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &pgoff, &pathpos) < 4 ||
	    pathpos == 0 || end <= start)
		return bad(r, off, "MAPS record: a line is not in /proc/self/maps form");
	const char *path = line + pathpos;
	if (!strchr(perms, 'x') || !*path)
		return 0;   /* only code can hold a sampled address */
	if (known_map(r, start, end, pgoff, path, t))
		return 0;
	return plumb_rec_map_add(r->d, r->pid, t, start, end - start, pgoff, path, NULL, 0, r->err);
}

static int read_maps(struct rd *r, size_t off, uint32_t size)
{
	struct psmp_maps m;
	if (size < sizeof m)
		return bad(r, off, "MAPS record shorter than its fixed part (24 bytes)");
	if (!r->have_image)
		return bad(r, off, "MAPS record before any IMAGE record");
	memcpy(&m, r->b + off, sizeof m);
	if (m.len > size - sizeof m)
		return bad(r, off, "MAPS record: text longer than the record");
	char *text = malloc((size_t)m.len + 1);
	if (!text)
		return plumb_fail_nomem(r->err);
	memcpy(text, r->b + off + sizeof m, m.len);
	text[m.len] = 0;
	int rc = 0;
	for (char *line = text, *nl; rc == 0 && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		else
			nl = line + strlen(line);
		if (*line)
			rc = map_line(r, off, line, m.time_ns);
	}
	free(text);
	return rc;
}

static int read_end(struct rd *r, size_t off, uint32_t size)
{
	struct psmp_end e;
	if (size < sizeof e)
		return bad(r, off, "END record shorter than its fixed part (56 bytes)");
	if (!r->have_image)
		return bad(r, off, "END record before any IMAGE record");
	memcpy(&e, r->b + off, sizeof e);
	r->ended = 1;
	r->info->dropped += e.dropped;
	r->info->handler_ns += e.handler_ns;
	/* before an exec the CPU time so far is counted by the next image's END */
	if (e.reason == PSMP_END_EXIT)
		r->info->cpu_ns += e.cpu_ns;
	return 0;
}

/* A timed blocking call of the wait tracer (docs/waits.md). */
static int read_wait(struct rd *r, size_t off, uint32_t size)
{
	struct psmp_wait w;
	if (size < sizeof w)
		return bad(r, off, "WAIT record shorter than its fixed part (48 bytes)");
	memcpy(&w, r->b + off, sizeof w);
	if (size != sizeof w + (uint64_t)w.nframes * 8)
		return bad(r, off, "WAIT record: size does not match its frame count");
	if (!r->have_image)
		return bad(r, off, "WAIT record before any IMAGE record");
	if (w.t1 < w.t0)
		return bad(r, off, "WAIT record ends before it starts");
	/* 1/p in 16.16 fixed point: 0 (a wait not taken), or p <= 1 */
	if (w.inv_p && w.inv_p < 65536) {
		char what[96];
		snprintf(what, sizeof what, "WAIT record: weight %.4f, expected 1 or more (or 0)",
			 (double)w.inv_p / 65536.0);
		return bad(r, off, what);
	}
	uint64_t *chain = NULL;
	if (w.nframes && !(chain = malloc((size_t)w.nframes * 8)))
		return plumb_fail_nomem(r->err);
	if (w.nframes)
		memcpy(chain, r->b + off + sizeof w, (size_t)w.nframes * 8);
	int rc = plumb_rec_wait_add(r->d, r->pid, (int32_t)w.tid, w.kind, w.flags, w.t0, w.t1, w.obj,
				    w.inv_p, chain, w.nframes, r->err);
	free(chain);
	return rc;
}

static int read_waitcfg(struct rd *r, size_t off, uint32_t size)
{
	struct psmp_waitcfg c;
	if (size < sizeof c)
		return bad(r, off, "WAITCFG record shorter than its fixed part (32 bytes)");
	memcpy(&c, r->b + off, sizeof c);
	plumb_rec_waits_config(r->d, c.sync_threshold_ns, c.offcpu_mean_ns);
	return 0;
}

static int read_waitheld(struct rd *r, size_t off, uint32_t size)
{
	struct psmp_waitheld h;
	if (size < sizeof h)
		return bad(r, off, "WAITHELD record shorter than its fixed part (16 bytes)");
	memcpy(&h, r->b + off, sizeof h);
	if (!r->have_image) /* it follows a WAIT, which follows an IMAGE */
		return bad(r, off, "WAITHELD record before any IMAGE record");
	if (h.holder > INT32_MAX)
		return bad(r, off, "WAITHELD record: thread id out of range");
	plumb_rec_wait_held(r->d, r->pid, (int32_t)h.holder);
	return 0;
}

static int read_record(struct rd *r, size_t off, uint32_t type, uint32_t size)
{
	switch (type) {
	case PSMP_IMAGE: return read_image(r, off, size);
	case PSMP_SAMPLE: return read_sample(r, off, size);
	case PSMP_THREAD: return read_thread(r, off, size);
	case PSMP_MAPS: return read_maps(r, off, size);
	case PSMP_END: return read_end(r, off, size);
	case PSMP_WAIT: return read_wait(r, off, size);
	case PSMP_WAITCFG: return read_waitcfg(r, off, size);
	case PSMP_WAITHELD: return read_waitheld(r, off, size);
	default: return 0;   /* a newer sampler's record: skip it */
	}
}

static int read_header(struct rd *r, size_t *off)
{
	struct psmp_file_header h;
	if (r->n < sizeof h || memcmp(r->b, PSMP_MAGIC, 8) != 0)
		return plumb_fail(r->err, PLUMB_ERR_FORMAT,
				  "%s: not a plumb sampler file (no PLUMBSMP header)", r->name);
	memcpy(&h, r->b, sizeof h);
	if (h.version != PSMP_VERSION)
		return plumb_fail(r->err, PLUMB_ERR_FORMAT,
				  "%s: sampler file version %" PRIu32 ", this plumb reads version %u",
				  r->name, h.version, PSMP_VERSION);
	if (h.header_size < sizeof h || h.header_size > r->n || h.header_size % 8)
		return bad(r, 12, "bad header size");
	*off = h.header_size;
	return 0;
}

static void warn_cut(struct rd *r, plumb_warn_fn warn, void *ctx, size_t off, uint32_t type,
		     uint32_t size)
{
	if (!warn)
		return;
	char m[512];
	snprintf(m, sizeof m,
		 "%s: byte offset %zu: the last record (%s, %u bytes) is cut short at %zu bytes "
		 "(the process was killed while writing, or the file system was full); it is ignored",
		 r->name, off, type_name(type), size, r->n - off);
	warn(ctx, m);
}

int plumb_sig_read_buffer(const char *name, const unsigned char *buf, size_t len,
			  plumb_rec_data *d, uint32_t event, bool pc_only, plumb_sig_info *info,
			  plumb_warn_fn warn, void *warn_ctx, plumb_error *err)
{
	plumb_sig_info scratch = { 0 };
	struct rd r = { name, buf, len, d, event, pc_only, info ? info : &scratch, err, 0, 0, 0 };
	size_t off = 0;
	if (read_header(&r, &off))
		return -1;
	while (off < len) {
		struct psmp_rec h = { 0, 0 };
		if (len - off < sizeof h) {
			warn_cut(&r, warn, warn_ctx, off, 0, (uint32_t)sizeof h);
			break;
		}
		memcpy(&h, buf + off, sizeof h);
		if (h.size < sizeof h || h.size % 8) {
			char m[128];
			snprintf(m, sizeof m, "%s record of size %u (at least 8 and a multiple of 8 expected)",
				 type_name(h.type), h.size);
			return bad(&r, off, m);
		}
		if (h.size > len - off) {
			warn_cut(&r, warn, warn_ctx, off, h.type, h.size);
			break;
		}
		if (read_record(&r, off, h.type, h.size))
			return -1;
		off += h.size;
	}
	finish_image(&r);
	return 0;
}

int plumb_sig_read_file(const char *path, plumb_rec_data *d, uint32_t event, bool pc_only,
			plumb_sig_info *info, plumb_warn_fn warn, void *warn_ctx, plumb_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return plumb_fail(err, PLUMB_ERR_IO, "%s: %s", path, strerror(errno));
	size_t cap = 1 << 16, n = 0;
	unsigned char *b = malloc(cap);
	for (size_t got; b; n += got) {
		if (n == cap) {
			unsigned char *nb = realloc(b, cap *= 2);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
		}
		got = fread(b + n, 1, cap - n, f);
		if (got == 0)
			break;
	}
	int ioerr = ferror(f);
	fclose(f);
	if (!b)
		return plumb_fail_nomem(err);
	if (ioerr) {
		free(b);
		return plumb_fail(err, PLUMB_ERR_IO, "%s: read error", path);
	}
	int rc = plumb_sig_read_buffer(path, b, n, d, event, pc_only, info, warn, warn_ctx, err);
	free(b);
	return rc;
}
