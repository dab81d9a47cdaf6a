/* plumb annotate, the writer of the annotated sources: each file's ranges
 * of lines with their costs and calls, the warnings about edited files,
 * the files not found and the "events annotated" total, in
 * callgrind_annotate 3.19's layout. */
#include <string.h>

#include "output/annotate_internal.h"
#include "plumb/output.h"

static const char warn_rule[] =
	"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n";
static const char warn_banner[] =
	"@@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@\n";

static void warn_newer(const ann_writer *w, const char *name)
{
	fprintf(w->out, "%s%s%s", warn_rule, warn_banner, warn_rule);
	fprintf(w->out, "@ Source file '%s' is more recent than input file '%s'.\n", name,
		w->a->profile_path);
	fprintf(w->out, "@ Annotations may not be correct.\n%s\n", warn_rule);
}

static void warn_past_end(const ann_writer *w, const char *name, bool newer)
{
	FILE *out = w->out;
	fprintf(out, "%s%s%s@@\n@@ Information recorded about lines past the end of '%s'.\n@@\n"
		     "@@ Probable cause and solution:\n", warn_rule, warn_banner, warn_rule, name);
	size_t len = strlen(name);
	if (newer)
		fprintf(out, "@@ cause:    '%s' has changed since information was gathered.\n"
			     "@@           If so, a warning will have already been issued about this.\n"
			     "@@ solution: Recompile program and rerun under \"valgrind --cachesim=yes\" to \n"
			     "@@           gather new information.\n", name);
	else if (len >= 2 && strcmp(name + len - 2, ".h") == 0)
		fputs("@@ cause:    bug in the Valgrind's debug info reader that screws up with .h\n"
		      "@@           files sometimes\n@@ solution: none, sorry\n", out);
	else
		fputs("@@ cause:    not sure, sorry\n", out);
	fprintf(out, "@@\n%s", warn_rule);
}

static void print_line_calls(const ann_writer *w, const plumb_ann_line *l, const size_t *widths)
{
	char buf[32];
	for (size_t i = 0; i < l->ncalls; i++) {
		const plumb_ann_call *c = &l->calls[i];
		ann_cells(w, c->cost, widths);
		if (c->calls == PLUMB_COUNT_UNKNOWN)
			fprintf(w->out, " => %s (?x)\n", c->name);
		else
			fprintf(w->out, " => %s (%sx)\n", c->name, plumb_format_u64(c->calls, buf, sizeof buf));
	}
}

static void print_ranges(const ann_writer *w, const plumb_ann_file *f, const size_t *widths)
{
	for (size_t i = 0; i < f->nranges; i++) {
		const plumb_ann_range *r = &f->ranges[i];
		if (r->low != 1)
			fprintf(w->out, "-- line %llu ----------------------------------------\n",
				(unsigned long long)r->low);
		for (size_t j = 0; j < r->n; j++) {
			const plumb_ann_line *l = &r->lines[j];
			ann_cells(w, l->cost, widths);
			fputc(' ', w->out);
			fwrite(l->text, 1, l->len, w->out); /* as read: NUL bytes, no newline at EOF */
			print_line_calls(w, l, widths);
		}
		if (r->cut)
			break;
		fprintf(w->out, "-- line %llu ----------------------------------------\n",
			(unsigned long long)r->high);
	}
}

/* Every costed line counts for the widths, those past the end too. */
static void file_widths(const ann_writer *w, const plumb_ann_file *f, size_t *widths)
{
	ann_widths_init(w, widths);
	for (size_t i = 0; i < f->nranges; i++)
		for (size_t j = 0; j < f->ranges[i].n; j++)
			ann_widen(w, f->ranges[i].lines[j].cost, widths);
	for (size_t i = 0; i < f->npast_end; i++)
		ann_widen(w, f->past_end_cost[i], widths);
	ann_widen(w, f->unknown, widths);
}

/* The body of one file with costs: warnings, header, ranges, lines past
 * the end, line 0. */
static void print_costs(const ann_writer *w, const plumb_ann_file *f)
{
	size_t widths[w->a->nevents];
	if (f->newer)
		warn_newer(w, f->name);
	file_widths(w, f, widths);
	ann_events_header(w, widths);
	fputs("\n\n", w->out);
	print_ranges(w, f, widths);
	for (size_t i = 0; i < f->npast_end; i++) {
		ann_cells(w, f->past_end_cost[i], widths);
		fprintf(w->out, " <bogus line %u>\n", f->past_end[i]);
	}
	if (f->npast_end) {
		fputc('\n', w->out);
		warn_past_end(w, f->name, f->newer);
	}
	fputc('\n', w->out);
	if (f->unknown) {
		ann_cells(w, f->unknown, widths);
		fprintf(w->out, " <counts for unidentified lines in %s>\n\n", f->name);
	}
}

static void print_unfound(const ann_writer *w)
{
	const plumb_annotation *a = w->a;
	if (!a->nunfound)
		return;
	fputs(ANN_FANCY "The following files chosen for auto-annotation could not be found:\n" ANN_FANCY,
	      w->out);
	for (size_t i = 0; i < a->nunfound; i++)
		fprintf(w->out, "  %s\n", a->unfound[i]);
	fputc('\n', w->out);
}

static void print_annotated_total(ann_writer *w)
{
	const plumb_annotation *a = w->a;
	size_t widths[a->nevents];
	ann_widths_init(w, widths);
	ann_widen(w, a->annotated, widths);
	w->base = a->late_total;
	fputs(ANN_FANCY, w->out);
	ann_events_header(w, widths);
	fputs("\n" ANN_FANCY, w->out);
	ann_cells(w, a->annotated, widths);
	fputs(" events annotated\n\n", w->out);
}

void ann_write_sources(ann_writer *w)
{
	const plumb_annotation *a = w->a;
	for (size_t i = 0; i < a->nfiles; i++) {
		const plumb_ann_file *f = &a->files[i];
		fprintf(w->out, ANN_FANCY "-- %s-annotated source: %s\n" ANN_FANCY,
			f->user ? "User" : "Auto", f->shown);
		if (f->has_costs)
			print_costs(w, f);
		else
			fprintf(w->out, "  No information has been collected for %s\n\n", f->name);
	}
	print_unfound(w);
	if (a->annotated)
		print_annotated_total(w);
}
