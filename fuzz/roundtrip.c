/* The read, write, read-back oracle of the reader fuzz targets. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "roundtrip.h"

static char in_path[] = "/tmp/plumb-fuzz-XXXXXX";
static char out_path[sizeof in_path + 16];
static bool made;

static void remove_files(void)
{
	unlink(in_path);
	if (out_path[0])
		unlink(out_path);
}

static void put(const char *path, const uint8_t *data, size_t size)
{
	FILE *fp = fopen(path, "wb");
	if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp) != 0)
		abort();
}

const char *fuzz_put_temp(const uint8_t *data, size_t size)
{
	if (!made) {
		int fd = mkstemp(in_path);
		if (fd < 0)
			abort();
		close(fd);
		atexit(remove_files);
		made = true;
	}
	put(in_path, data, size);
	return in_path;
}

int fuzz_round_trip(const fuzz_format *f, const uint8_t *data, size_t size)
{
	const plumb_format_ops *ops = plumb_format_get(f->fmt);
	if (!ops || !ops->read || !ops->write)
		abort();
	fuzz_put_temp(data, size);
	if (!out_path[0])
		snprintf(out_path, sizeof out_path, "%s%s", in_path, f->ext);
	(void)ops->detect(data, size);
	plumb_profile *p = plumb_profile_new();
	plumb_read_opts none = { 0 };
	plumb_error err;
	if (ops->read(p, in_path, &none, &err) == 0) {
		if (ops->write(p, out_path, &err) == 0) {
			plumb_profile *q = plumb_profile_new();
			if (ops->read(q, out_path, &none, &err) != 0)
				abort();
			f->check_same(p, q);
			plumb_profile_free(q);
			if (f->check_more)
				f->check_more(p, in_path, out_path);
			unlink(out_path);
		} else if (!f->write_may_fail(p, &err)) {
			abort();
		}
	} else if (err.code != PLUMB_ERR_FORMAT && err.code != PLUMB_ERR_OVERFLOW &&
		   err.code != PLUMB_ERR_UNSUPPORTED && !(f->read_io_errors && err.code == PLUMB_ERR_IO)) {
		abort();
	}
	plumb_profile_free(p);
	return 0;
}
