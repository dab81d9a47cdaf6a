/* plumb annotate --disasm: the cost of each instruction of the listed
 * functions, with the source lines they come from. Needs a profile with
 * instruction addresses (callgrind --dump-instr=yes) and the objects. */
#include <stdlib.h>
#include <string.h>

#include "output/annotate_internal.h"
#include "plumb/symbols.h"

/* One address of a listed function that has a self cost. */
typedef struct addr_cost {
	plumb_id fn;
	uint64_t address;
	size_t self;       /* index into cg_self */
} addr_cost;

/* The lines of the source file last shown. */
typedef struct src_cache {
	plumb_id file;
	char **lines;
	size_t n;
} src_cache;

typedef struct dis_state {
	ann_ctx *c;
	addr_cost *v;
	size_t n;
	uint64_t *entry;   /* function id -> lowest address seen (its entry) */
	src_cache src;
} dis_state;

static int cmp_addr(const void *a, const void *b)
{
	const addr_cost *x = a, *y = b;
	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	return (x->address > y->address) - (x->address < y->address);
}

static void src_free(src_cache *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->lines[i]);
	free(s->lines);
	*s = (src_cache){ PLUMB_NONE, NULL, 0 };
}

/* Line n (1-based) of a file without its newline, or NULL. */
static const char *source_line(dis_state *d, plumb_id file, uint32_t n)
{
	if (file != d->src.file) {
		src_free(&d->src);
		d->src.file = file;
		FILE *f = fopen(plumb_str(d->c->p, d->c->p->files.v[file].path), "r");
		char *line = NULL;
		size_t cap = 0, room = 0;
		ssize_t len;
		while (f && (len = getline(&line, &cap, f)) >= 0) {
			if (d->src.n == room) {
				room = room ? room * 2 : 256;
				char **nl = realloc(d->src.lines, room * sizeof *nl);
				if (!nl)
					break;
				d->src.lines = nl;
			}
			if (len && line[len - 1] == '\n')
				line[len - 1] = '\0';
			if (!(d->src.lines[d->src.n] = strdup(line)))
				break;
			d->src.n++;
		}
		free(line);
		if (f)
			fclose(f);
	}
	return n >= 1 && n <= d->src.n ? d->src.lines[n - 1] : NULL;
}

/* Every self cost at an address in a listed function, by function and
 * address, and each function's entry (its lowest address, call targets
 * included). */
static int collect(dis_state *d)
{
	const plumb_profile *p = d->c->p;
	d->v = calloc(p->cg_self.n + 1, sizeof *d->v);
	d->entry = malloc((p->functions.n + 1) * sizeof *d->entry);
	if (!d->v || !d->entry)
		return -1;
	memset(d->entry, 0xff, (p->functions.n + 1) * sizeof *d->entry);
	for (size_t i = 0; i < p->frames.n; i++) {
		const plumb_frame *fr = &p->frames.v[i];
		if (fr->address && d->c->listed[fr->function] && fr->address < d->entry[fr->function])
			d->entry[fr->function] = fr->address;
	}
	for (size_t i = 0; i < p->cg_self.n; i++) {
		const plumb_frame *fr = &p->frames.v[p->cg_self.v[i].frame];
		if (fr->address && d->c->listed[fr->function])
			d->v[d->n++] = (addr_cost){ fr->function, fr->address, i };
	}
	qsort(d->v, d->n, sizeof *d->v, cmp_addr);
	return 0;
}

/* The symbol name for a Callgrind function name: "fib'2" is fib. */
static char *symbol_name(const char *name)
{
	char *s = strdup(name);
	char *q = s ? strrchr(s, '\'') : NULL;
	if (q && q[1] && strspn(q + 1, "0123456789") == strlen(q + 1))
		*q = '\0';
	return s;
}

static void header(const ann_ctx *c, plumb_id fn, const char *extra)
{
	plumb_id m = c->p->functions.v[fn].module;
	fprintf(c->out, ANN_FANCY "-- Disassembly: %s", ann_fn_name((ann_ctx *)c, fn));
	if (m != PLUMB_NONE)
		fprintf(c->out, " [%s]", plumb_str(c->p, c->p->modules.v[m].path));
	fprintf(c->out, "%s\n" ANN_FANCY, extra);
}

/* The costs of [lo, hi) summed per instruction (costs: n_insn * nev), and
 * those at no instruction's first byte (rest: room for hi - lo rows). */
static size_t spread_costs(const dis_state *d, size_t lo, size_t hi, const plumb_insn *insn,
			   size_t ninsn, uint64_t bias, uint64_t *costs, uint64_t *rest,
			   uint64_t *rest_addr)
{
	const ann_ctx *c = d->c;
	size_t nrest = 0, j = 0;
	for (size_t i = lo; i < hi; i++) {
		uint64_t elf_addr = d->v[i].address - bias;
		while (j < ninsn && insn[j].address < elf_addr)
			j++;
		const uint64_t *self = c->p->cg_self_cost.v + d->v[i].self * c->nev;
		uint64_t *to;
		if (j < ninsn && insn[j].address == elf_addr)
			to = costs + j * c->nev;
		else {
			if (!nrest || rest_addr[nrest - 1] != elf_addr)
				rest_addr[nrest++] = elf_addr;
			to = rest + (nrest - 1) * c->nev;
		}
		for (size_t e = 0; e < c->nev; e++)
			to[e] += self[e];
	}
	return nrest;
}

/* The frame at a run-time address, with *j a cursor into [*j, hi) that only
 * moves forward (instructions come in address order). */
static const plumb_frame *frame_at(const dis_state *d, size_t *j, size_t hi, uint64_t address)
{
	while (*j < hi && d->v[*j].address < address)
		(*j)++;
	if (*j < hi && d->v[*j].address == address)
		return &d->c->p->frames.v[d->c->p->cg_self.v[d->v[*j].self].frame];
	return NULL;
}

static void print_insns(dis_state *d, size_t lo, size_t hi, const plumb_insn *insn, size_t ninsn,
			uint64_t bias, const uint64_t *costs, const size_t *widths)
{
	ann_ctx *c = d->c;
	plumb_id last_file = PLUMB_NONE;
	uint32_t last_line = 0;
	size_t j = lo;
	for (size_t i = 0; i < ninsn; i++) {
		const plumb_frame *fr = frame_at(d, &j, hi, insn[i].address + bias);
		if (fr && fr->line && (fr->file != last_file || fr->line != last_line)) {
			plumb_id file = fr->file != PLUMB_NONE ? fr->file : c->p->functions.v[fr->function].file;
			const char *text = file != PLUMB_NONE ? source_line(d, file, fr->line) : NULL;
			ann_cells(c, NULL, widths);
			fprintf(c->out, " %s:%u:  %s\n", ann_file_name(c, file), fr->line, text ? text : "");
			last_file = fr->file;
			last_line = fr->line;
		}
		ann_cells(c, costs + i * c->nev, widths);
		fprintf(c->out, " 0x%llx:  %s\n", (unsigned long long)insn[i].address, insn[i].text);
	}
}

/* One function: find its symbol and bias, decode it, print each
 * instruction with its cost. */
static int disasm_function(dis_state *d, plumb_id fn, size_t lo, size_t hi, plumb_elf *elf)
{
	ann_ctx *c = d->c;
	plumb_error err;
	plumb_elf_function sym;
	char *name = symbol_name(plumb_str(c->p, c->p->functions.v[fn].name));
	if (!name)
		return -1;
	int found = plumb_elf_find_function(elf, name, d->entry[fn], &sym, &err);
	free(name);
	char extra[96] = "";
	if (found) {
		/* A stripped object (ld.so): Callgrind's addresses are relative to
		 * the object, so decode from the entry it saw, up to the last
		 * costed instruction. */
		sym = (plumb_elf_function){ d->entry[fn], 0, 0 };
		snprintf(extra, sizeof extra, " (no symbol: from the entry the profile shows)");
	} else if (sym.bias)
		snprintf(extra, sizeof extra, " (load bias 0x%llx)", (unsigned long long)sym.bias);
	uint64_t last = d->v[hi - 1].address - sym.bias;
	uint64_t size = sym.size ? sym.size : last - sym.value + 16;
	plumb_insn *insn = NULL;
	size_t ninsn = 0;
	if (plumb_elf_disasm(elf, sym.value, size, &insn, &ninsn, &err)) {
		header(c, fn, extra);
		fprintf(c->out, "  %s\n\n", err.message);
		return err.code == PLUMB_ERR_NOMEM ? -1 : 0;
	}
	while (!sym.size && ninsn && insn[ninsn - 1].address > last)
		ninsn--;
	size_t rows = ninsn + (hi - lo);
	uint64_t *costs = calloc(rows * c->nev + 1, sizeof *costs);
	uint64_t *rest_addr = calloc(hi - lo + 1, sizeof *rest_addr);
	size_t *widths = calloc(c->nev, sizeof *widths);
	if (!costs || !rest_addr || !widths) {
		free(insn);
		free(costs);
		free(rest_addr);
		free(widths);
		return -1;
	}
	uint64_t *rest = costs + ninsn * c->nev;
	size_t nrest = spread_costs(d, lo, hi, insn, ninsn, sym.bias, costs, rest, rest_addr);
	ann_widths(c, costs, ninsn + nrest, widths);
	header(c, fn, extra);
	ann_events_header(c, widths);
	fputs("\n\n", c->out);
	print_insns(d, lo, hi, insn, ninsn, sym.bias, costs, widths);
	for (size_t i = 0; i < nrest; i++) {
		ann_cells(c, rest + i * c->nev, widths);
		fprintf(c->out, " 0x%llx:  <not an instruction of this symbol>\n",
			(unsigned long long)rest_addr[i]);
	}
	fputc('\n', c->out);
	free(insn);
	free(costs);
	free(rest_addr);
	free(widths);
	return 0;
}

/* The object of a function, opened once per module (NULL: cannot). */
static plumb_elf *object_of(dis_state *d, plumb_id module, plumb_elf **cache, bool *tried,
			    plumb_error *err)
{
	if (!tried[module]) {
		tried[module] = true;
		cache[module] = plumb_elf_open(plumb_str(d->c->p, d->c->p->modules.v[module].path), err);
	}
	return cache[module];
}

static int disasm_all(dis_state *d)
{
	ann_ctx *c = d->c;
	size_t nmod = c->p->modules.n + 1;
	plumb_elf **cache = calloc(nmod, sizeof *cache);
	bool *tried = calloc(nmod, sizeof *tried);
	int rc = -1;
	if (!cache || !tried)
		goto out;
	for (size_t k = 0; k < c->norder; k++) {
		plumb_id fn = c->order[k];
		addr_cost key = { fn, 0, 0 };
		size_t lo = 0, hi = d->n;
		while (lo < hi) { /* the first entry of fn */
			size_t mid = lo + (hi - lo) / 2;
			if (cmp_addr(&d->v[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (hi = lo; hi < d->n && d->v[hi].fn == fn; hi++)
			;
		plumb_id module = c->p->functions.v[fn].module;
		plumb_error err = { 0 };
		if (lo == hi) {
			header(c, fn, "");
			fputs("  no instruction addresses (record with valgrind --dump-instr=yes)\n\n", c->out);
			continue;
		}
		plumb_elf *elf = module == PLUMB_NONE ? NULL : object_of(d, module, cache, tried, &err);
		if (!elf) {
			header(c, fn, "");
			fprintf(c->out, "  %s\n\n", module == PLUMB_NONE ? "no object file known" : err.message);
			continue;
		}
		if (disasm_function(d, fn, lo, hi, elf))
			goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; cache && i < nmod; i++)
		plumb_elf_close(cache[i]);
	free(cache);
	free(tried);
	return rc;
}

int ann_disasm(ann_ctx *c, plumb_error *err)
{
	dis_state d = { .c = c, .src = { PLUMB_NONE, NULL, 0 } };
	int rc = collect(&d) || disasm_all(&d) ? plumb_fail_nomem(err) : 0;
	src_free(&d.src);
	free(d.v);
	free(d.entry);
	return rc;
}
