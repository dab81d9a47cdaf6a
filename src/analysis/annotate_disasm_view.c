/* plumb annotate --disasm, the view: the cost of each instruction of the
 * listed functions, with the source lines they come from. Needs a profile
 * with instruction addresses and the objects named by its modules: a
 * Callgrind file of --dump-instr=yes (call-graph self costs, run-time
 * addresses) or a recording (CCT self costs at the objects' own ELF
 * addresses). symbols/ finds the functions' symbols and decodes them. */
#include <stdlib.h>
#include <string.h>

#include "analysis/annotate_view.h"
#include "plumb/elfsym.h"
#include "plumb/symbols.h"

/* One address of a listed function that has a self cost. */
typedef struct addr_cost {
	plumb_id fn;
	uint64_t address;
	plumb_id frame;
	const uint64_t *cost; /* nev values in the profile */
	uint64_t zeros;       /* events written as 0 there (profile.h's cg_self_zero) */
} addr_cost;

/* The lines of the source file last shown. */
typedef struct src_cache {
	plumb_id file;
	char **lines;
	size_t n;
} src_cache;

typedef struct dis_state {
	ann_view *v;
	addr_cost *c;      /* by function and address */
	size_t n;
	uint64_t *entry;   /* function id -> lowest address seen (its entry) */
	src_cache src;
	plumb_ann_disasm *out;
	plumb_exe **exes;     /* module id -> the object, when its symbols were read */
	plumb_symtab **tabs;  /* module id -> its symbols */
	bool *tab_tried;
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
		FILE *f = fopen(plumb_str(d->v->p, d->v->p->files.v[file].path), "r");
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

static bool is_zero(const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i])
			return false;
	return true;
}

/* Every self cost at an address in a listed function, by function and
 * address (the call graph's, and the CCT's where it has any), and each
 * function's entry (its lowest address, call targets included). */
static int collect(dis_state *d)
{
	const plumb_profile *p = d->v->p;
	d->c = calloc(p->cg_self.n + p->cct.n + 1, sizeof *d->c);
	d->entry = malloc((p->functions.n + 1) * sizeof *d->entry);
	if (!d->c || !d->entry)
		return -1;
	memset(d->entry, 0xff, (p->functions.n + 1) * sizeof *d->entry);
	for (size_t i = 0; i < p->frames.n; i++) {
		const plumb_frame *fr = &p->frames.v[i];
		if (fr->address && fr->function != PLUMB_NONE && d->v->listed[fr->function] &&
		    fr->address < d->entry[fr->function])
			d->entry[fr->function] = fr->address;
	}
	for (size_t i = 0; i < p->cg_self.n; i++) {
		const plumb_frame *fr = &p->frames.v[p->cg_self.v[i].frame];
		if (fr->address && fr->function != PLUMB_NONE && d->v->listed[fr->function])
			d->c[d->n++] = (addr_cost){ fr->function, fr->address, p->cg_self.v[i].frame,
						    p->cg_self_cost.v + i * d->v->nev,
						    i < p->cg_self_zero.n ? p->cg_self_zero.v[i] : 0 };
	}
	for (size_t i = 0; i < p->cct.n; i++) {
		plumb_id f = p->cct.v[i].frame;
		const plumb_frame *fr = f == PLUMB_NONE ? NULL : &p->frames.v[f];
		const uint64_t *self = plumb_cct_self(p, (plumb_id)i);
		if (fr && fr->address && fr->function != PLUMB_NONE && d->v->listed[fr->function] &&
		    !is_zero(self, d->v->nev))
			d->c[d->n++] = (addr_cost){ fr->function, fr->address, f, self, 0 };
	}
	qsort(d->c, d->n, sizeof *d->c, cmp_addr);
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

/* The section of one function, without rows yet. */
static plumb_ann_disasm *section(dis_state *d, plumb_id fn)
{
	ann_view *v = d->v;
	plumb_ann_disasm *sec = &d->out[v->a->ndisasms++];
	plumb_id m = v->p->functions.v[fn].module;
	sec->name = ann_fn_name(v, fn);
	if (m != PLUMB_NONE && !(sec->object = ann_strdup(v->a, plumb_str(v->p, v->p->modules.v[m].path))))
		return NULL;
	return sec->name ? sec : NULL;
}

static int set_problem(dis_state *d, plumb_ann_disasm *sec, const char *text)
{
	return (sec->problem = ann_strdup(d->v->a, text)) ? 0 : -1;
}

/* The costs of [lo, hi) summed per instruction (costs: n_insn * nev), and
 * those at no instruction's first byte (rest: room for hi - lo rows, right
 * after the instructions' rows); zeros, of the same shape, gets 1 where a
 * cost line wrote a 0. */
static size_t spread_costs(const dis_state *d, size_t lo, size_t hi, const plumb_insn *insn,
			   size_t ninsn, uint64_t bias, uint64_t *costs, uint64_t *zeros,
			   uint64_t *rest_addr)
{
	const ann_view *v = d->v;
	size_t nrest = 0, j = 0;
	for (size_t i = lo; i < hi; i++) {
		uint64_t elf_addr = d->c[i].address - bias;
		while (j < ninsn && insn[j].address < elf_addr)
			j++;
		const uint64_t *self = d->c[i].cost;
		size_t row;
		if (j < ninsn && insn[j].address == elf_addr)
			row = j;
		else {
			if (!nrest || rest_addr[nrest - 1] != elf_addr)
				rest_addr[nrest++] = elf_addr;
			row = ninsn + nrest - 1;
		}
		for (size_t e = 0; e < v->nev; e++) {
			costs[row * v->nev + e] += self[e];
			zeros[row * v->nev + e] |= e < 64 && (d->c[i].zeros >> e & 1);
		}
	}
	return nrest;
}

/* The frame at a run-time address, with *j a cursor into [*j, hi) that only
 * moves forward (instructions come in address order). */
static const plumb_frame *frame_at(const dis_state *d, size_t *j, size_t hi, uint64_t address)
{
	while (*j < hi && d->c[*j].address < address)
		(*j)++;
	if (*j < hi && d->c[*j].address == address)
		return &d->v->p->frames.v[d->c[*j].frame];
	return NULL;
}

/* The rows: each instruction, after the source line it starts (when that
 * changes), then the costed addresses that start no instruction. */
static int add_rows(dis_state *d, plumb_ann_disasm *sec, size_t lo, size_t hi,
		    const plumb_insn *insn, size_t ninsn, uint64_t bias, const uint64_t *costs,
		    const uint64_t *zeros, const uint64_t *rest_addr, size_t nrest)
{
	ann_view *v = d->v;
	const plumb_profile *p = v->p;
	plumb_ann_insn *rows = ann_alloc(v->a, 2 * ninsn + nrest + 1, sizeof *rows);
	if (!rows)
		return -1;
	sec->rows = rows;
	plumb_id last_file = PLUMB_NONE;
	uint32_t last_line = 0;
	size_t j = lo, n = 0;
	for (size_t i = 0; i < ninsn; i++) {
		const plumb_frame *fr = frame_at(d, &j, hi, insn[i].address + bias);
		if (fr && fr->line && (fr->file != last_file || fr->line != last_line)) {
			plumb_id file = fr->file != PLUMB_NONE ? fr->file : p->functions.v[fr->function].file;
			const char *text = file != PLUMB_NONE ? source_line(d, file, fr->line) : NULL;
			rows[n] = (plumb_ann_insn){ PLUMB_ANN_INSN_SOURCE, insn[i].address,
						    ann_strdup(v->a, text ? text : ""),
						    ann_strdup(v->a, ann_file_name(v, file)), fr->line };
			if (!rows[n].text || !rows[n].file)
				return -1;
			n++;
			last_file = fr->file;
			last_line = fr->line;
		}
		rows[n] = (plumb_ann_insn){ PLUMB_ANN_INSN, insn[i].address, ann_strdup(v->a, insn[i].text) };
		if (!rows[n].text || !(rows[n].cost = ann_cost(v, costs + i * v->nev, zeros + i * v->nev)))
			return -1;
		n++;
	}
	for (size_t i = 0; i < nrest; i++) {
		rows[n] = (plumb_ann_insn){ PLUMB_ANN_INSN_STRAY, rest_addr[i] };
		size_t row = ninsn + i;
		if (!(rows[n].cost = ann_cost(v, costs + row * v->nev, zeros + row * v->nev)))
			return -1;
		n++;
	}
	sec->nrows = n;
	return 0;
}

/* The symbols of a module, read once (NULL: none). */
static const plumb_symtab *symtab_of(dis_state *d, plumb_id module)
{
	if (!d->tab_tried[module]) {
		plumb_error err;
		d->tab_tried[module] = true;
		/* the table's names live in the open object */
		plumb_exe *e = plumb_exe_open(plumb_str(d->v->p, d->v->p->modules.v[module].path), &err);
		d->exes[module] = e;
		if (e && plumb_symtab_build(e, PLUMB_SYMTAB_FUNCS_ONLY | PLUMB_SYMTAB_NO_DWARF,
					    &d->tabs[module], &err))
			d->tabs[module] = NULL;
	}
	return d->tabs[module];
}

/* A profile whose addresses are the object's own (a recording: the
 * symbolizer maps file offsets to ELF addresses) need not show a function's
 * entry: the symbol of that name that holds its lowest costed address, with
 * no bias. 0 found, -1 not. */
static int symbol_at(dis_state *d, plumb_id fn, const char *name, plumb_id module,
		     const plumb_elf *elf, plumb_elf_function *out)
{
	const plumb_symtab *st = symtab_of(d, module);
	ptrdiff_t i = st ? plumb_symtab_lookup(st, d->entry[fn]) : -1;
	if (i < 0)
		return -1;
	const plumb_exe_sym *s = &st->syms[i];
	plumb_id mangled = d->v->p->functions.v[fn].mangled;
	const char *mname = mangled == PLUMB_NONE ? NULL : plumb_str(d->v->p, mangled);
	if (strcmp(s->name, name) && strcmp(s->demangled, name) && !(mname && !strcmp(s->name, mname)))
		return -1;
	plumb_error err;
	return plumb_elf_find_function(elf, s->name, s->addr, out, &err) || out->bias ? -1 : 0;
}

/* One function: find its symbol and bias, decode it, cost each
 * instruction. */
static int disasm_function(dis_state *d, plumb_ann_disasm *sec, plumb_id fn, size_t lo, size_t hi,
			   plumb_id module, plumb_elf *elf)
{
	ann_view *v = d->v;
	plumb_error err;
	plumb_elf_function sym;
	char *name = symbol_name(plumb_str(v->p, v->p->functions.v[fn].name));
	if (!name)
		return -1;
	int found = plumb_elf_find_function(elf, name, d->entry[fn], &sym, &err);
	if (found)
		found = symbol_at(d, fn, name, module, elf, &sym);
	free(name);
	if (found) {
		/* A stripped object (ld.so): Callgrind's addresses are relative to
		 * the object, so decode from the entry it saw, up to the last
		 * costed instruction. */
		sym = (plumb_elf_function){ d->entry[fn], 0, 0 };
		sec->no_symbol = true;
	} else
		sec->bias = sym.bias;
	uint64_t last = d->c[hi - 1].address - sym.bias;
	uint64_t size = sym.size ? sym.size : last - sym.value + 16;
	plumb_insn *insn = NULL;
	size_t ninsn = 0;
	if (plumb_elf_disasm(elf, sym.value, size, &insn, &ninsn, &err))
		return err.code == PLUMB_ERR_NOMEM ? -1 : set_problem(d, sec, err.message);
	while (!sym.size && ninsn && insn[ninsn - 1].address > last)
		ninsn--;
	size_t rows = ninsn + (hi - lo);
	uint64_t *costs = calloc(rows * v->nev + 1, sizeof *costs);
	uint64_t *zeros = calloc(rows * v->nev + 1, sizeof *zeros);
	uint64_t *rest_addr = calloc(hi - lo + 1, sizeof *rest_addr);
	int rc = -1;
	if (costs && zeros && rest_addr) {
		size_t nrest = spread_costs(d, lo, hi, insn, ninsn, sym.bias, costs, zeros, rest_addr);
		rc = add_rows(d, sec, lo, hi, insn, ninsn, sym.bias, costs, zeros, rest_addr, nrest);
	}
	free(insn);
	free(costs);
	free(zeros);
	free(rest_addr);
	return rc;
}

/* The object of a function, opened once per module (NULL: cannot). */
static plumb_elf *object_of(dis_state *d, plumb_id module, plumb_elf **cache, bool *tried,
			    plumb_error *err)
{
	if (!tried[module]) {
		tried[module] = true;
		cache[module] = plumb_elf_open(plumb_str(d->v->p, d->v->p->modules.v[module].path), err);
	}
	return cache[module];
}

static int disasm_all(dis_state *d)
{
	ann_view *v = d->v;
	size_t nmod = v->p->modules.n + 1;
	plumb_elf **cache = calloc(nmod, sizeof *cache);
	bool *tried = calloc(nmod, sizeof *tried);
	int rc = -1;
	if (!cache || !tried || !(d->out = ann_alloc(v->a, v->norder + 1, sizeof *d->out)))
		goto out;
	v->a->disasms = d->out;
	for (size_t k = 0; k < v->norder; k++) {
		plumb_id fn = v->order[k];
		addr_cost key = { fn, 0, 0, NULL };
		size_t lo = 0, hi = d->n;
		while (lo < hi) { /* the first entry of fn */
			size_t mid = lo + (hi - lo) / 2;
			if (cmp_addr(&d->c[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (hi = lo; hi < d->n && d->c[hi].fn == fn; hi++)
			;
		plumb_id module = v->p->functions.v[fn].module;
		plumb_error err = { 0 };
		plumb_ann_disasm *sec = section(d, fn);
		if (!sec)
			goto out;
		if (lo == hi) {
			if (set_problem(d, sec, "no instruction addresses (record with valgrind --dump-instr=yes)"))
				goto out;
			continue;
		}
		plumb_elf *elf = module == PLUMB_NONE ? NULL : object_of(d, module, cache, tried, &err);
		if (!elf) {
			if (set_problem(d, sec, module == PLUMB_NONE ? "no object file known" : err.message))
				goto out;
			continue;
		}
		if (disasm_function(d, sec, fn, lo, hi, module, elf))
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

int ann_view_disasm(ann_view *v, plumb_error *err)
{
	dis_state d = { .v = v, .src = { PLUMB_NONE, NULL, 0 } };
	size_t nmod = v->p->modules.n + 1;
	d.tabs = calloc(nmod, sizeof *d.tabs);
	d.tab_tried = calloc(nmod, sizeof *d.tab_tried);
	d.exes = calloc(nmod, sizeof *d.exes);
	int rc = !d.tabs || !d.tab_tried || !d.exes || collect(&d) || disasm_all(&d) ? plumb_fail_nomem(err) : 0;
	for (size_t i = 0; d.tabs && d.exes && i < nmod; i++) {
		plumb_symtab_free(d.tabs[i]);
		plumb_exe_close(d.exes[i]);
	}
	free(d.tabs);
	free(d.exes);
	free(d.tab_tried);
	src_free(&d.src);
	free(d.c);
	free(d.entry);
	return rc;
}
