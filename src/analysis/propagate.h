/* Private to src/analysis: gprof's estimate of call-graph arc costs, for
 * the parts whose arcs have call counts and no measured cost
 * (PLUMB_ARC_COSTS_GPROF: gmon.out). */
#ifndef PLUMB_PROPAGATE_H
#define PLUMB_PROPAGATE_H

#include "plumb/profile.h"

/* True if some part's arc costs are gprof's estimate. */
bool propagate_wanted(const plumb_profile *p);

/* gprof's propagation (research gprof.md §2.5), per such part, over
 * functions: each function's self cost plus the cost propagated from its
 * callees is shared among its callers in proportion to their call counts;
 * a cycle (strongly connected functions) is shared as a whole, and the
 * calls inside it carry nothing; self calls carry nothing; the -pg runtime
 * (mcount and kin) is kept out, as gprof's default options keep it.
 * *out gets arcs.n * events.n costs (malloc'd): arc i's estimated inclusive
 * cost, rounded, for the arcs of those parts; zero for the others. */
int propagate_gprof(const plumb_profile *p, uint64_t **out, plumb_error *err);

#endif
