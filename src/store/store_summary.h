/* Private to src/store: the summary tables written for sqlite3 users
 * (function_costs, calls); plumb never reads them. */
#ifndef PLUMB_STORE_SUMMARY_H
#define PLUMB_STORE_SUMMARY_H

#include <sqlite3.h>

#include "plumb/profile.h"

extern const char store_summary_schema[];
/* Inside the writer's transaction, after the bulk. */
int store_write_summary(sqlite3 *db, const plumb_profile *p, const char *path, plumb_error *err);

#endif
