/* Per-line costs of a plumb cc report into the part read from it
 * (inputs_lines.c). */
#ifndef PLUMB_RECORD_INPUTS_LINES_H
#define PLUMB_RECORD_INPUTS_LINES_H

#include "plumb/error.h"
#include "plumb/profile.h"

/* Read the "c plumb-block" lines of the report at path, whose contexts
 * are in part: each block's runs move from its context's node to a node
 * beside it at the block's source line. 0 when the report has none. */
int plumb_inputs_add_lines(plumb_profile *p, plumb_id part, const char *path, plumb_error *err);

#endif
