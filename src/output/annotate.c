/* plumb annotate, the writer: the header, PROGRAM TOTALS and the
 * file:function table with its caller/callee trees, in callgrind_annotate
 * 3.19's layout, from a plumb_annotation (the view decided every row). */
#include <string.h>

#include "output/annotate_internal.h"
#include "output/output_internal.h"
#include "plumb/output.h"

/* ---- cells ------------------------------------------------------------- */

size_t plumb_ann_cell_width(uint64_t v, bool percs)
{
	if (v == PLUMB_ANN_NONE)
		return 0;
	char buf[32];
	size_t len = strlen(plumb_format_u64(v, buf, sizeof buf));
	return len + (percs ? 9 : 0);
}

/* " (12.34%)": %5.2f, or %5.1f when two decimals would not fit. */
static void format_pct(uint64_t v, uint64_t total, char *buf, size_t size)
{
	if (total == PLUMB_ANN_NONE)
		total = 0;
	double pct = total ? (double)v * 100.0 / (double)total : 0.0;
	char num[32];
	bool two = pct > -9.995 && pct < 99.995;
	if (!plumb_format_fixed(pct, two ? 2 : 1, num, sizeof num))
		strcpy(num, "?");
	snprintf(buf, size, " (%5s%%)", num);
}

void plumb_ann_write_cell(FILE *out, uint64_t v, uint64_t total, bool percs, size_t width)
{
	char text[128], num[32];
	/* no percentage for "." and "0", as callgrind_annotate */
	if (v == PLUMB_ANN_NONE || v == 0)
		snprintf(text, sizeof text, "%s%s", v ? "." : "0", percs ? "         " : "");
	else {
		char pct[64] = "";
		if (percs)
			format_pct(v, total, pct, sizeof pct);
		snprintf(text, sizeof text, "%s%s", plumb_format_u64(v, num, sizeof num), pct);
	}
	size_t len = strlen(text);
	for (size_t i = len; i < width; i++)
		fputc(' ', out);
	fputs(text, out);
	fputc(' ', out);
}

void ann_widths_init(const ann_writer *w, size_t *widths)
{
	for (size_t e = 0; e < w->a->nevents; e++)
		widths[e] = strlen(w->a->event_names[e]);
}

void ann_widen(const ann_writer *w, const uint64_t *cost, size_t *widths)
{
	for (size_t e = 0; cost && e < w->a->nevents; e++) {
		size_t n = plumb_ann_cell_width(cost[e], w->a->show_percs);
		if (n > widths[e])
			widths[e] = n;
	}
}

void ann_events_header(const ann_writer *w, const size_t *widths)
{
	for (size_t i = 0; i < w->a->nshow; i++) {
		size_t e = w->a->show[i];
		fprintf(w->out, "%-*s ", (int)widths[e], w->a->event_names[e]);
	}
}

void ann_cells(const ann_writer *w, const uint64_t *cost, const size_t *widths)
{
	for (size_t i = 0; i < w->a->nshow; i++) {
		size_t e = w->a->show[i];
		plumb_ann_write_cell(w->out, cost ? cost[e] : PLUMB_ANN_NONE, w->base[e],
				     w->a->show_percs, widths[e]);
	}
}

/* ---- header ------------------------------------------------------------ */

static void print_list(FILE *out, const char *label, const char *const *v, size_t n)
{
	fprintf(out, "%s%s\n", label, n ? v[0] : "");
	for (size_t i = 1; i < n; i++)
		fprintf(out, "                  %s\n", v[i]);
}

/* callgrind_annotate shows each -I dir with one trailing '/'. */
static void print_include_dirs(const ann_writer *w)
{
	const plumb_annotation *a = w->a;
	if (!a->n_include) {
		fputs("Include dirs:     \n", w->out);
		return;
	}
	for (size_t i = 0; i < a->n_include; i++) {
		const char *d = a->include_dirs[i];
		size_t len = strlen(d);
		if (len && d[len - 1] == '/')
			len--;
		fprintf(w->out, "%s%.*s/\n", i ? "                  " : "Include dirs:     ", (int)len, d);
	}
}

static void print_desc(const ann_writer *w)
{
	const char *d = w->a->description;
	while (d && *d) {
		size_t len = strcspn(d, "\n");
		/* callgrind_annotate hides the profiler's options. */
		if (strncmp(d, "Option:", 7) != 0)
			fprintf(w->out, "%.*s\n", (int)len, d);
		d += len + (d[len] == '\n');
	}
}

static void print_target(const ann_writer *w)
{
	const plumb_annotation *a = w->a;
	const char *cmd = a->command;
	while (cmd && (*cmd == ' ' || *cmd == '\t'))
		cmd++;
	fprintf(w->out, "Profiled target:  %s", cmd && *cmd ? cmd : "(unknown)");
	if (a->pid && *a->pid) {
		fprintf(w->out, " (PID %s", a->pid);
		if (a->part && *a->part)
			fprintf(w->out, ", part %s", a->part);
		if (a->thread && *a->thread)
			fprintf(w->out, ", thread %s", a->thread);
		fputc(')', w->out);
	}
	fputc('\n', w->out);
}

static void print_event_names(const ann_writer *w, const char *label, const size_t *idx, size_t n)
{
	fputs(label, w->out);
	for (size_t i = 0; i < n; i++)
		fprintf(w->out, "%s%s", i ? " " : "", w->a->event_names[idx[i]]);
	fputc('\n', w->out);
}

static void print_header(const ann_writer *w)
{
	const plumb_annotation *a = w->a;
	FILE *out = w->out;
	fputs(ANN_FANCY, out);
	fprintf(out, "Profile data file '%s'", a->profile_path);
	if (a->creator && *a->creator)
		fprintf(out, " (creator: %s)", a->creator);
	fputs("\n" ANN_FANCY, out);
	print_desc(w);
	print_target(w);
	print_event_names(w, "Events recorded:  ", a->recorded, a->nrecorded);
	print_event_names(w, "Events shown:     ", a->show, a->nshow);
	print_event_names(w, "Event sort order: ", a->sort, a->nsort);
	fputs("Thresholds:      ", out);
	for (size_t i = 0; i < a->nsort; i++)
		fprintf(out, " %s", a->thresholds[i]);
	fputc('\n', out);
	print_include_dirs(w);
	print_list(out, "User annotated:   ", a->user_files, a->n_user);
	fprintf(out, "Auto-annotation:  %s\n\n", a->auto_annotate ? "on" : "off");
}

static void print_totals(const ann_writer *w)
{
	const plumb_annotation *a = w->a;
	size_t widths[a->nevents];
	ann_widths_init(w, widths);
	ann_widen(w, a->total, widths);
	fputs(ANN_FANCY, w->out);
	ann_events_header(w, widths);
	fputs("\n" ANN_FANCY, w->out);
	ann_cells(w, a->total, widths);
	fprintf(w->out, " PROGRAM TOTALS%s\n", a->total_calculated ? " (calculated)" : "");
	if (a->total_note)
		fprintf(w->out, "%s\n", a->total_note);
	fputc('\n', w->out);
}

/* ---- the function table ----------------------------------------------- */

static void print_call(const ann_writer *w, const plumb_ann_call *c, const char *arrow,
		       const size_t *widths)
{
	char buf[32];
	ann_cells(w, c->cost, widths);
	fprintf(w->out, "%s%s", arrow, c->name);
	if (c->calls == PLUMB_COUNT_UNKNOWN)
		fputs(" (?x)", w->out);
	else
		fprintf(w->out, " (%sx)", plumb_format_u64(c->calls, buf, sizeof buf));
	if (c->object)
		fprintf(w->out, " [%s]", c->object);
	fputc('\n', w->out);
}

static void print_function(const ann_writer *w, const plumb_ann_function *f, const size_t *widths)
{
	bool tree = w->a->tree != PLUMB_ANN_TREE_NONE;
	if (tree)
		fputc('\n', w->out);
	for (size_t i = 0; i < f->ncallers; i++)
		print_call(w, &f->callers[i], " < ", widths);
	ann_cells(w, f->cost, widths);
	fprintf(w->out, "%s %s", tree ? " * " : "", f->name);
	if (f->object)
		fprintf(w->out, " [%s]", f->object);
	fputc('\n', w->out);
	for (size_t i = 0; i < f->ncallees; i++)
		print_call(w, &f->callees[i], " >   ", widths);
}

static void print_functions(const ann_writer *w)
{
	const plumb_annotation *a = w->a;
	size_t widths[a->nevents];
	ann_widths_init(w, widths);
	ann_widen(w, a->table_max, widths);
	fputs(ANN_FANCY, w->out);
	ann_events_header(w, widths);
	fputs(" file:function\n" ANN_FANCY, w->out);
	for (size_t i = 0; i < a->nfunctions; i++)
		print_function(w, &a->functions[i], widths);
	fputc('\n', w->out);
}

int plumb_annotation_write(const plumb_annotation *a, FILE *out, plumb_error *err)
{
	ann_writer w = { a, out, a->total };
	print_header(&w);
	print_totals(&w);
	print_functions(&w);
	ann_write_sources(&w);
	w.base = a->late_total;
	if (a->disasm)
		ann_write_disasm(&w);
	return plumb_output_flush(out, "annotation", err);
}
