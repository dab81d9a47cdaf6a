/* Private helpers shared by the gmon reader, merger and writer. */
#ifndef PLUMB_GMON_INTERNAL_H
#define PLUMB_GMON_INTERNAL_H

#include "plumb/gmon.h"

/* Add one histogram (bins copied) with gprof's checks: same dimension and
 * bin width as the first, equal range added bin by bin, overlap an error.
 * name is the file it came from, for messages. */
int plumb_gmon_add_hist(plumb_gmon *g, const plumb_gmon_hist *h, const char *name,
			plumb_error *err);
/* The same, keeping h->bins (malloc'd) instead of a copy when the range is
 * new; h->bins is NULL then. What the readers use: no second array. */
int plumb_gmon_take_hist(plumb_gmon *g, plumb_gmon_hist *h, const char *name, plumb_error *err);
/* Add an arc / a BB count, summing equal ones. */
int plumb_gmon_add_arc(plumb_gmon *g, const plumb_gmon_arc *a, plumb_error *err);
int plumb_gmon_add_bb(plumb_gmon *g, const plumb_gmon_bb *b, plumb_error *err);
/* Drop every record (keeps the struct usable). */
void plumb_gmon_clear(plumb_gmon *g);

#endif
