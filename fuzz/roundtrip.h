/* What the reader fuzz targets share: the input written to a temporary
 * file, read through the format's registry row, written back in the same
 * format, read again and compared by the target's own check. */
#ifndef PLUMB_FUZZ_ROUNDTRIP_H
#define PLUMB_FUZZ_ROUNDTRIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plumb/formats.h"

typedef struct fuzz_format {
	plumb_format fmt;
	const char *ext;            /* of the written copy: ".cg", ".plumb" */
	/* abort() unless what was read and what was read back agree */
	void (*check_same)(const plumb_profile *read, const plumb_profile *again);
	/* a refusal of the writer that is right for this profile */
	bool (*write_may_fail)(const plumb_profile *p, const plumb_error *err);
	/* the reader may also fail with PLUMB_ERR_IO (a damaged database) */
	bool read_io_errors;
	/* may be NULL: more checks once p (read from in) was written to out */
	void (*check_more)(const plumb_profile *p, const char *in, const char *out);
} fuzz_format;

/* The bytes written to this process's temporary file (removed at exit):
 * its path, the same at every call. */
const char *fuzz_put_temp(const uint8_t *data, size_t size);

/* One input: never a crash, and whatever the reader accepts round-trips. */
int fuzz_round_trip(const fuzz_format *f, const uint8_t *data, size_t size);

#endif
