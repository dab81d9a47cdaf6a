/* plumb annotate --disasm, the writer: each listed function's instructions
 * with their costs and the source lines they come from. */
#include "output/annotate_internal.h"

static void header(const ann_writer *w, const plumb_ann_disasm *d)
{
	fprintf(w->out, ANN_FANCY "-- Disassembly: %s", d->name);
	if (d->object)
		fprintf(w->out, " [%s]", d->object);
	if (d->no_symbol)
		fputs(" (no symbol: from the entry the profile shows)", w->out);
	else if (d->bias)
		fprintf(w->out, " (load bias 0x%llx)", (unsigned long long)d->bias);
	fputs("\n" ANN_FANCY, w->out);
}

static void print_rows(const ann_writer *w, const plumb_ann_disasm *d)
{
	size_t widths[w->a->nevents];
	ann_widths_init(w, widths);
	for (size_t i = 0; i < d->nrows; i++)
		ann_widen(w, d->rows[i].cost, widths);
	ann_events_header(w, widths);
	fputs("\n\n", w->out);
	for (size_t i = 0; i < d->nrows; i++) {
		const plumb_ann_insn *r = &d->rows[i];
		ann_cells(w, r->cost, widths);
		switch (r->kind) {
		case PLUMB_ANN_INSN_SOURCE:
			fprintf(w->out, " %s:%u:  %s\n", r->file, r->line, r->text);
			break;
		case PLUMB_ANN_INSN:
			fprintf(w->out, " 0x%llx:  %s\n", (unsigned long long)r->address, r->text);
			break;
		case PLUMB_ANN_INSN_STRAY:
			fprintf(w->out, " 0x%llx:  <not an instruction of this symbol>\n",
				(unsigned long long)r->address);
			break;
		}
	}
	fputc('\n', w->out);
}

void ann_write_disasm(ann_writer *w)
{
	for (size_t i = 0; i < w->a->ndisasms; i++) {
		const plumb_ann_disasm *d = &w->a->disasms[i];
		header(w, d);
		if (d->problem)
			fprintf(w->out, "  %s\n\n", d->problem);
		else
			print_rows(w, d);
	}
}
