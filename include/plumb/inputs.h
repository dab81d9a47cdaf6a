/* plumb: input-sensitive profiles of programs built with `plumb cc`
 * (docs/inputs.md). Such a program carries plumb's runtime; run with
 * PLUMB_APROF_DIR set, it writes an aprof report per thread there, which
 * plumb reads as performance points, a calling context tree with exact
 * call counts, and basic-block costs. */
#ifndef PLUMB_INPUTS_H
#define PLUMB_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "plumb/error.h"
#include "plumb/profile.h"

/* Whether the executable at path was linked with plumb's runtime (its
 * ".plumb_inputs" section). False for anything unreadable or not ELF. */
bool plumb_inputs_instrumented(const char *path);

/* The executable a command name runs: itself when it holds a '/', else
 * the first executable file of that name on $PATH. malloc'd; NULL if none. */
char *plumb_inputs_which(const char *name);

typedef struct plumb_inputs_opts {
	char *const *argv;        /* the command */
	unsigned memres;          /* bytes per memory granule: 1, 2, 4 (0), 8 or 16 */
	bool no_contexts;         /* routine points only (no calling contexts) */
	bool drms;                /* dynamic read memory size (threads, input calls) */
	bool cost_time;           /* cost: wall-clock microseconds, not basic blocks */
	void (*started)(pid_t child, void *ctx);
	void *ctx;
} plumb_inputs_opts;

/* Run the command with its reports going to a fresh temporary directory,
 * wait for it (*wait_status: waitpid's status), read every report into p
 * (one part per thread and process) and remove them. *nreports gets their
 * number. Fails when the command cannot start or wrote no report. */
int plumb_record_inputs(const plumb_inputs_opts *o, plumb_profile *p, int *wait_status,
			size_t *nreports, plumb_error *err);

#endif
