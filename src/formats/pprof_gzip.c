/* The pprof writer's gzip (see pprof_internal.h): the encoded message is
 * handed over in pieces as the writer makes it, and each piece becomes a
 * gzip member of its own, compressed on jobs.h's helper thread while the
 * writer encodes the next, and on both threads at the end. The file is the
 * members in order, which gzip readers (Go's, zlib's, plumb's) read as one
 * stream. libdeflate's level 1 (three times zlib's speed, and as small):
 * Go's runtime/pprof writes its profiles at gzip's fastest too. */
#include "formats/jobs.h"
#include "formats/pprof_internal.h"
#include "model/index.h"

#include <errno.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

size_t pprof_gzip_member = (size_t)1 << 20;

typedef struct member {
	plumb_job job;
	struct libdeflate_compressor *const *c;   /* one a worker */
	const uint8_t *in;
	size_t len;
	void *owned;          /* freed once compressed, or NULL */
	uint8_t *out;
	size_t out_len;       /* 0: out of memory */
} member;

struct pprof_gz {
	plumb_jobs q;
	struct libdeflate_compressor *c[2];
	PLUMB_VEC(member *) m;
	PLUMB_VEC(void *) later;  /* freed at the end: split buffers */
};

static void compress_member(plumb_job *job, unsigned worker)
{
	member *m = (member *)job;
	struct libdeflate_compressor *c = m->c[worker];
	size_t cap = libdeflate_gzip_compress_bound(c, m->len);
	m->out = malloc(cap);
	m->out_len = m->out ? libdeflate_gzip_compress(c, m->in, m->len, m->out, cap) : 0;
	free(m->owned);
	m->owned = NULL;
}

pprof_gz *pprof_gz_start(plumb_error *err)
{
	pprof_gz *z = calloc(1, sizeof *z);
	if (z)
		z->c[0] = libdeflate_alloc_compressor(1), z->c[1] = libdeflate_alloc_compressor(1);
	if (!z || !z->c[0] || !z->c[1]) {
		if (z) {
			libdeflate_free_compressor(z->c[0]);
			libdeflate_free_compressor(z->c[1]);
		}
		free(z);
		plumb_fail_nomem(err);
		return NULL;
	}
	plumb_jobs_start(&z->q);
	return z;
}

/* One member of in[0..len); owned freed once it is compressed. */
static int add(pprof_gz *z, const uint8_t *in, size_t len, void *owned, plumb_error *err)
{
	member *m = calloc(1, sizeof *m);
	if (!m || plumb_vec_reserve(z->m, z->m.n + 1)) {
		free(m);
		free(owned);
		return plumb_fail_nomem(err);
	}
	*m = (member){ .job.run = compress_member, .c = z->c, .in = in, .len = len, .owned = owned };
	z->m.v[z->m.n++] = m;
	plumb_jobs_add(&z->q, &m->job);
	return 0;
}

int pprof_gz_add(pprof_gz *z, uint8_t *buf, size_t len, plumb_error *err)
{
	return add(z, buf, len, buf, err);
}

int pprof_gz_add_split(pprof_gz *z, uint8_t *buf, size_t len, plumb_error *err)
{
	if (plumb_vec_push(z->later, (void *)buf)) {
		free(buf);
		return plumb_fail_nomem(err);
	}
	size_t step = pprof_gzip_member ? pprof_gzip_member : 1, at = 0;
	do { /* nothing at all is one empty member */
		if (add(z, buf + at, len - at < step ? len - at : step, NULL, err))
			return -1;
		at += step;
	} while (at < len);
	return 0;
}

int pprof_gz_finish(pprof_gz *z, FILE *out, plumb_error *err)
{
	plumb_jobs_wait(&z->q);
	int rc = 0;
	for (size_t i = 0; i < z->m.n; i++) {
		member *m = z->m.v[i];
		if (out && rc == 0 && !m->out_len)
			rc = plumb_fail(err, PLUMB_ERR_NOMEM, "gzip: cannot compress %zu bytes", m->len);
		if (rc == 0 && out && fwrite(m->out, 1, m->out_len, out) != m->out_len)
			rc = plumb_fail(err, PLUMB_ERR_IO, "writing pprof: %s",
					strerror(errno ? errno : EIO));
		free(m->out);
		free(m);
	}
	for (size_t i = 0; i < z->later.n; i++)
		free(z->later.v[i]);
	free(z->m.v);
	free(z->later.v);
	libdeflate_free_compressor(z->c[0]);
	libdeflate_free_compressor(z->c[1]);
	free(z);
	return rc;
}

int pprof_gzip(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len, plumb_error *err)
{
	char *buf = NULL;
	size_t n = 0;
	uint8_t *copy = malloc(len ? len : 1);
	FILE *mem = copy ? open_memstream(&buf, &n) : NULL;
	pprof_gz *z = mem ? pprof_gz_start(err) : NULL;
	int rc;
	if (!z) {
		free(copy);
		rc = mem ? -1 : plumb_fail_nomem(err);
	} else {
		memcpy(copy, in, len);
		rc = pprof_gz_add_split(z, copy, len, err);
		rc = pprof_gz_finish(z, rc ? NULL : mem, err) || rc ? -1 : 0;
	}
	if (mem && fclose(mem) != 0 && rc == 0)
		rc = plumb_fail_nomem(err);
	if (rc) {
		free(buf);
		return -1;
	}
	*out = (uint8_t *)buf;
	*out_len = n;
	return 0;
}
