/* The plumb-report JSON document (docs/report-json.md): a contract other
 * tools and our tests rely on. The functions are those the view options
 * select, in the same order as the flat view, each with callers and callees. */
#include <inttypes.h>
#include <stdlib.h>

#include "analysis/view_internal.h"
#include "output/output_internal.h"

static void write_costs(FILE *out, const uint64_t *v, const view_events *ve)
{
	fputc('[', out);
	for (size_t i = 0; i < ve->n; i++)
		fprintf(out, "%s%" PRIu64, i ? ", " : "", v[ve->ev[i]]);
	fputc(']', out);
}

static void write_opt_string(FILE *out, const char *s)
{
	if (s)
		plumb_json_write_string(out, s);
	else
		fputs("null", out);
}

static void write_calls(FILE *out, uint64_t calls)
{
	if (calls == PLUMB_COUNT_UNKNOWN)
		fputs("null", out);
	else
		fprintf(out, "%" PRIu64, calls);
}

static void write_cycle(FILE *out, uint32_t n)
{
	if (n)
		fprintf(out, "%" PRIu32, n);
	else
		fputs("null", out);
}

static void write_identity(FILE *out, const plumb_profile *p, const plumb_key *k)
{
	fputs("\"name\": ", out);
	write_opt_string(out, view_key_name(p, k));
	fputs(", \"file\": ", out);
	write_opt_string(out, view_key_file(p, k));
	fputs(", \"module\": ", out);
	write_opt_string(out, view_key_module(p, k));
}

static int write_arcs(FILE *out, const plumb_profile *p, const plumb_metrics *m,
		      const view_events *ve, const uint32_t *unsorted, size_t n, bool callers)
{
	uint32_t *arcs = view_sorted_arcs(m, unsorted, n, callers, ve->primary);
	if (!arcs)
		return -1;
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		const plumb_metric_arc *a = &m->arcs[arcs[i]];
		const uint64_t *attr = (callers ? m->caller_attr : m->callee_attr) +
				       (size_t)arcs[i] * m->nevents;
		uint32_t other = callers ? a->caller : a->callee;
		fputs(i ? ",\n      {" : "\n      {", out);
		write_identity(out, p, &m->keys[other]);
		fputs(", \"cycle\": ", out);
		write_cycle(out, m->cycle[other]);
		fputs(", \"calls\": ", out);
		write_calls(out, a->calls);
		fprintf(out, ", \"recursive\": %s", m->arc_in_scc[arcs[i]] ? "true" : "false");
		fputs(", \"attributed\": ", out);
		write_costs(out, attr, ve);
		fputc('}', out);
	}
	fputc(']', out);
	free(arcs);
	return 0;
}

static int write_function(FILE *out, const plumb_profile *p, const plumb_metrics *m,
			   const view_events *ve, uint32_t k)
{
	const plumb_key *key = &m->keys[k];
	fputs("    {", out);
	write_identity(out, p, key);
	uint32_t line = key->function != PLUMB_NONE ? p->functions.v[key->function].line : 0;
	if (line)
		fprintf(out, ", \"line\": %" PRIu32, line);
	else
		fputs(", \"line\": null", out);
	fputs(",\n     \"exclusive\": ", out);
	write_costs(out, plumb_metrics_excl(m, k), ve);
	fputs(", \"inclusive\": ", out);
	write_costs(out, plumb_metrics_incl(m, k), ve);
	fputs(", \"calls\": ", out);
	write_calls(out, m->calls[k]);
	fprintf(out, ", \"inclusive_estimated\": %s, \"cycle\": ",
		m->inclusive_estimated ? "true" : "false");
	write_cycle(out, m->cycle[k]);
	fputs(",\n     \"callers\": ", out);
	if (write_arcs(out, p, m, ve, m->in_arcs + m->in_start[k], m->in_start[k + 1] - m->in_start[k], true))
		return -1;
	fputs(",\n     \"callees\": ", out);
	if (write_arcs(out, p, m, ve, m->out_arcs + m->out_start[k], m->out_start[k + 1] - m->out_start[k], false))
		return -1;
	fputc('}', out);
	return 0;
}

/* Every cycle, in number order, with its members. */
static void write_cycles(FILE *out, const plumb_profile *p, const plumb_metrics *m,
			 const view_events *ve)
{
	fputs(",\n \"cycles\": [", out);
	for (size_t c = 0; c < m->ncycles; c++) {
		const plumb_metric_cycle *cy = &m->cycles[c];
		fprintf(out, "%s    {\"cycle\": %zu, \"name\": \"<cycle %zu>\",\n     \"exclusive\": ",
			c ? ",\n" : "\n", c + 1, c + 1);
		write_costs(out, m->cycle_exclusive + c * m->nevents, ve);
		fputs(", \"inclusive\": ", out);
		write_costs(out, m->cycle_inclusive + c * m->nevents, ve);
		fputs(", \"calls\": ", out);
		write_calls(out, cy->calls);
		fputs(",\n     \"members\": [", out);
		for (uint32_t i = 0; i < cy->n; i++) {
			fputs(i ? ",\n      {" : "\n      {", out);
			write_identity(out, p, &m->keys[m->cycle_members[cy->first + i]]);
			fputc('}', out);
		}
		fputs("]}", out);
	}
	fputc(']', out);
}

int plumb_report_write_json(const plumb_profile *p, const plumb_view_opts *o, FILE *out,
			    plumb_error *err)
{
	view_rows r;
	if (view_rows_prepare(p, o, PLUMB_LEVEL_FUNCTION, false, &r, err))
		return -1;
	const view_events *ve = &r.ve;
	fputs("{\"format\": \"plumb-report\", \"version\": 1,\n \"events\": [", out);
	for (size_t i = 0; i < ve->n; i++) {
		const plumb_event *e = &p->events.v[ve->ev[i]];
		fputs(i ? ",\n   {\"name\": " : "\n   {\"name\": ", out);
		plumb_json_write_string(out, plumb_str(p, e->name));
		fputs(", \"description\": ", out);
		write_opt_string(out, plumb_str(p, e->long_name != PLUMB_NONE ? e->long_name : e->name));
		fputs(", \"unit\": ", out);
		write_opt_string(out, plumb_str(p, e->unit));
		if (e->formula != PLUMB_NONE) {
			fputs(", \"formula\": ", out);
			plumb_json_write_string(out, plumb_str(p, e->formula));
		}
		fputc('}', out);
	}
	fputs("],\n \"totals\": ", out);
	write_costs(out, r.m->totals, ve);
	fputs(",\n \"functions\": [", out);
	for (size_t i = 0; i < r.n; i++) {
		fputs(i ? ",\n" : "\n", out);
		if (write_function(out, p, r.m, ve, r.keys[i])) {
			view_rows_free(&r);
			return plumb_fail_nomem(err);
		}
	}
	fputc(']', out);
	write_cycles(out, p, r.m, ve);
	fputs("}\n", out);
	view_rows_free(&r);
	return plumb_output_flush(out, "report", err);
}
