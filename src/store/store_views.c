/* The views a store keeps (store_views.h). Computing them is most of the
 * cost of some writes (fitting every routine of an aprof profile; the
 * inclusive costs and cycles of a big call graph), so it runs beside the
 * encoding of everything else. */
#include <stdlib.h>
#include <string.h>

#include "store/store_bulk.h"
#include "store/store_flat.h"
#include "store/store_views.h"

static void views_run(plumb_job *job, unsigned worker)
{
	(void)worker;
	store_views_job *j = (store_views_job *)job;
	const plumb_profile *p = j->p;
	plumb_error err;
	if (p->points.n) {
		if (!p->inputs && plumb_inputs_summarize(p, &j->inputs, &err) != 0)
			j->inputs = NULL;
		/* a report that reads the inputs view alone shows these */
		j->totals = calloc(p->events.n ? p->events.n : 1, sizeof *j->totals);
		if (j->totals && plumb_profile_totals(p, j->totals, &err) != 0) {
			free(j->totals);
			j->totals = NULL;
		}
		return;
	}
	if (!p->events.n || p->flat)
		return;
	plumb_metrics_opts mo;
	plumb_metrics_opts_init(&mo);
	mo.keys_only = true;
	if (plumb_metrics_compute(p, &mo, &j->flat, &err) != 0)
		j->flat = NULL;
}

void store_views_job_init(store_views_job *j, const plumb_profile *p)
{
	memset(j, 0, sizeof *j);
	j->job.run = views_run;
	j->p = p;
}

bool store_views_threaded(const store_views_job *j)
{
	return j->p->points.n > 0 && !j->p->inputs;
}

int store_views_write(sqlite3 *db, const store_views_job *j, const char *path,
		      const plumb_write_progress *wp, plumb_error *err)
{
	const plumb_profile *p = j->p;
	const plumb_metrics *flat = p->flat ? p->flat : j->flat;
	const plumb_inputs_summary *inputs = p->inputs ? p->inputs : j->inputs;
	bool with_inputs = inputs && j->totals && p->points.n;
	if (!flat && !with_inputs)
		return 0;
	store_bulk_out o;
	if (store_bulk_out_open(&o, db, path, err))
		return -1;
	o.progress = wp;
	int rc = (flat && store_enc_flat(&o, p, flat)) ||
		 (with_inputs && store_enc_inputs(&o, p, inputs, j->totals)) || store_bulk_flush(&o)
			 ? -1
			 : 0;
	store_bulk_out_close(&o);
	return rc;
}

void store_views_job_free(store_views_job *j)
{
	plumb_metrics_free(j->flat);
	plumb_inputs_summary_free(j->inputs);
	free(j->totals);
	memset(j, 0, sizeof *j);
}
