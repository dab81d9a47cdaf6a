/* fprof: HP Caliper's flat IP-sample report (seed 003, table 26) in one
 * table. One row per thread x function, heaviest first, with the columns
 * of Caliper's table: % of the total, cumulative %, samples, the kernel
 * thread (id and start routine), load module, function and file. Under
 * each function its source statements in line order ("Line" and
 * ">Statement"), and under each statement the instructions sampled in it
 * (their address and, for a recording, the disassembled instruction).
 *
 * Only self (IP) costs count: fprof is a flat profile of where the
 * program counter was. Line marks, judged from the sampled addresses of
 * one function (plumb has no is_stmt or column data):
 *   "~12"  approximate: an address of line 12 maps to another line too, or
 *          another line's code lies between line 12's sampled instructions
 *          (optimised code schedules statements together);
 *   "*>"   out of order: the statement's first address comes after the
 *          code of a later line.
 * docs/plumb-report.1 maps the columns to Caliper's table. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/view_internal.h"
#include "plumb/symbols.h"

typedef struct ip {
	plumb_id part, function, file;
	uint32_t line;
	uint64_t address;
	uint64_t cost;
} ip;

/* A run of ips: one function of one thread, or one line of it. */
typedef struct group {
	size_t lo, hi;
	uint64_t cost;
} group;

typedef struct src_file {
	plumb_id file;
	char **lines;
	size_t n;
} src_file;

typedef struct fprof {
	const plumb_profile *p;
	const plumb_view_opts *o;
	plumb_table *t;
	int ev;
	uint64_t total;
	ip *v;
	size_t n;
	bool disasm;        /* addresses are the objects' own (a recording) */
	plumb_elf **elf;    /* per module, opened once */
	bool *elf_tried;
	src_file src;       /* the source file last read */
	int c_pct, c_cumul, c_cost, c_thread, c_module, c_function, c_file, c_line, c_stmt;
} fprof;

static int cmp_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

static int ip_cmp(const void *va, const void *vb)
{
	const ip *a = va, *b = vb;
	int c = cmp_u64(a->part, b->part);
	if (!c)
		c = cmp_u64(a->function, b->function);
	if (!c)
		c = cmp_u64(a->file, b->file);
	if (!c)
		c = cmp_u64(a->line, b->line);
	return c ? c : cmp_u64(a->address, b->address);
}

static int push(fprof *f, size_t *cap, const plumb_frame *fr, plumb_id part, uint64_t cost)
{
	if (f->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		ip *v = realloc(f->v, nc * sizeof *v);
		if (!v)
			return -1;
		f->v = v;
		*cap = nc;
	}
	f->v[f->n++] = (ip){ part, fr->function, fr->file, fr->line, fr->address, cost };
	return 0;
}

/* Every self cost of the event, by thread, function, file, line and
 * address, equal positions merged. */
static int collect(fprof *f, plumb_error *err)
{
	const plumb_profile *p = f->p;
	size_t cap = 0, nev = p->events.n;
	uint8_t *pass = NULL;
	if (plumb_cct_select(p, f->o->part, f->o->focus, &pass, NULL))
		return plumb_fail_nomem(err);
	for (size_t i = 0; i < p->cct.n; i++) {
		const plumb_cct_node *nd = &p->cct.v[i];
		uint64_t c = plumb_cct_self(p, (plumb_id)i)[f->ev];
		if (pass[i] && c && nd->frame != PLUMB_NONE && push(f, &cap, &p->frames.v[nd->frame], nd->part, c)) {
			free(pass);
			return plumb_fail_nomem(err);
		}
	}
	free(pass);
	/* A call graph's self costs have no stacks for --focus to pass. */
	bool focus = f->o->focus && f->o->focus->n;
	for (size_t i = 0; !focus && i < p->cg_self.n; i++) {
		plumb_id part = p->cg_self.v[i].part;
		uint64_t c = p->cg_self_cost.v[i * nev + f->ev];
		if (c && (f->o->part == PLUMB_NONE || part == f->o->part) &&
		    push(f, &cap, &p->frames.v[p->cg_self.v[i].frame], part, c))
			return plumb_fail_nomem(err);
	}
	if (f->n)
		qsort(f->v, f->n, sizeof *f->v, ip_cmp);
	size_t w = 0;
	for (size_t i = 0; i < f->n; i++) {
		if (w && ip_cmp(&f->v[w - 1], &f->v[i]) == 0) {
			if (f->v[w - 1].cost > UINT64_MAX - f->v[i].cost)
				return plumb_fail(err, PLUMB_ERR_OVERFLOW, "fprof: a cost passes 2^64");
			f->v[w - 1].cost += f->v[i].cost;
		} else {
			f->v[w++] = f->v[i];
		}
		if (f->total > UINT64_MAX - f->v[i].cost)
			return plumb_fail(err, PLUMB_ERR_OVERFLOW, "fprof: the total passes 2^64");
		f->total += f->v[i].cost;
	}
	f->n = w;
	return 0;
}

static plumb_key key_of(const plumb_profile *p, plumb_id fn)
{
	plumb_key k = { fn, PLUMB_NONE, PLUMB_NONE, 0 };
	if (fn != PLUMB_NONE) {
		k.file = p->functions.v[fn].file;
		k.module = p->functions.v[fn].module;
	}
	return k;
}

static bool shown(const fprof *f, const group *g)
{
	const plumb_view_opts *o = f->o;
	plumb_key k = key_of(f->p, f->v[g->lo].function);
	if (o->select && o->select->n && !plumb_symspec_list_match_key(o->select, f->p, PLUMB_LEVEL_FUNCTION, &k))
		return false;
	if (o->hide && o->hide->n && plumb_symspec_list_match_key(o->hide, f->p, PLUMB_LEVEL_FUNCTION, &k))
		return false;
	return !(o->threshold > 0 && view_pct(g->cost, f->total) < o->threshold);
}

static int group_cmp(const void *va, const void *vb)
{
	const group *a = va, *b = vb;
	int c = view_cmp_desc(a->cost, b->cost);
	return c ? c : cmp_u64(a->lo, b->lo);
}

/* Thread x function groups to show, heaviest first, cut to --limit. */
static group *function_groups(fprof *f, size_t *ng)
{
	group *g = malloc((f->n ? f->n : 1) * sizeof *g);
	size_t n = 0;
	if (!g)
		return NULL;
	for (size_t i = 0; i < f->n;) {
		size_t j = i;
		uint64_t cost = 0;
		while (j < f->n && f->v[j].part == f->v[i].part && f->v[j].function == f->v[i].function)
			cost += f->v[j++].cost;
		g[n] = (group){ i, j, cost };
		if (shown(f, &g[n]))
			n++;
		i = j;
	}
	qsort(g, n, sizeof *g, group_cmp);
	if (f->o->limit && n > f->o->limit)
		n = f->o->limit;
	*ng = n;
	return g;
}

/* ---- source and instructions ------------------------------------------- */

static void src_free(src_file *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->lines[i]);
	free(s->lines);
	*s = (src_file){ PLUMB_NONE, NULL, 0 };
}

/* Line n of a source file (the one last asked for is kept), or NULL. */
static const char *source_line(fprof *f, plumb_id file, uint32_t n)
{
	if (file == PLUMB_NONE || n == 0)
		return NULL;
	if (file != f->src.file) {
		src_free(&f->src);
		f->src.file = file;
		FILE *fp = fopen(plumb_str(f->p, f->p->files.v[file].path), "r");
		char *line = NULL;
		size_t cap = 0, room = 0;
		ssize_t len;
		while (fp && (len = getline(&line, &cap, fp)) >= 0) {
			if (f->src.n == room) {
				room = room ? room * 2 : 256;
				char **nl = realloc(f->src.lines, room * sizeof *nl);
				if (!nl)
					break;
				f->src.lines = nl;
			}
			if (len && line[len - 1] == '\n')
				line[len - 1] = '\0';
			if (!(f->src.lines[f->src.n] = strdup(line)))
				break;
			f->src.n++;
		}
		free(line);
		if (fp)
			fclose(fp);
	}
	return n <= f->src.n ? f->src.lines[n - 1] : NULL;
}

/* The instruction at a recording's address, or NULL. */
static const char *instruction(fprof *f, plumb_id fn, uint64_t address, plumb_insn *buf)
{
	if (!f->disasm || fn == PLUMB_NONE || !address)
		return NULL;
	plumb_id m = f->p->functions.v[fn].module;
	if (m == PLUMB_NONE)
		return NULL;
	plumb_error err;
	if (!f->elf_tried[m]) {
		f->elf_tried[m] = true;
		f->elf[m] = plumb_elf_open(plumb_str(f->p, f->p->modules.v[m].path), &err);
	}
	plumb_insn *insn = NULL;
	size_t n = 0;
	if (!f->elf[m] || plumb_elf_disasm(f->elf[m], address, 16, &insn, &n, &err)) {
		free(insn);
		return NULL;
	}
	bool ok = n > 0 && insn[0].address == address;
	if (ok)
		*buf = insn[0];
	free(insn);
	return ok ? buf->text : NULL;
}

/* ---- line marks ---------------------------------------------------------- */

typedef struct line_info {
	size_t lo, hi;        /* its ips */
	uint64_t cost, first, last;  /* lowest and highest address */
	bool approx, out_of_order;
} line_info;

/* Does a line have an address strictly inside the other's range? */
static bool inside(const fprof *f, const line_info *a, const line_info *b)
{
	for (size_t i = a->lo; i < a->hi; i++)
		if (f->v[i].address > b->first && f->v[i].address < b->last)
			return true;
	return false;
}

/* Line a's code is not contiguous: b shares an address with it, or has
 * one between two of a's (optimisers schedule statements together). */
static bool split_by(const fprof *f, const line_info *a, const line_info *b)
{
	for (size_t i = a->lo; i < a->hi; i++)
		for (size_t j = b->lo; j < b->hi; j++)
			if (f->v[i].address && f->v[i].address == f->v[j].address)
				return true;
	return inside(f, b, a);
}

/* The lines of one function group, with their marks (see the top). */
static line_info *lines_of(const fprof *f, const group *g, size_t *nl)
{
	line_info *l = malloc((g->hi - g->lo) * sizeof *l);
	size_t n = 0;
	if (!l)
		return NULL;
	for (size_t i = g->lo; i < g->hi;) {
		size_t j = i;
		line_info li = { i, 0, 0, UINT64_MAX, 0, false, false };
		while (j < g->hi && f->v[j].file == f->v[i].file && f->v[j].line == f->v[i].line) {
			const ip *x = &f->v[j++];
			li.cost += x->cost;
			if (x->address && x->address < li.first)
				li.first = x->address;
			if (x->address > li.last)
				li.last = x->address;
		}
		li.hi = j;
		l[n++] = li;
		i = j;
	}
	for (size_t a = 0; a < n; a++) {
		if (!l[a].last)
			continue;
		for (size_t b = 0; b < n; b++) {
			if (a == b || !l[b].last)
				continue;
			if (split_by(f, &l[a], &l[b]))
				l[a].approx = true;
			if (f->v[l[b].lo].file == f->v[l[a].lo].file && f->v[l[b].lo].line > f->v[l[a].lo].line &&
			    l[b].first < l[a].first)
				l[a].out_of_order = true;
		}
	}
	*nl = n;
	return l;
}

/* ---- rows ----------------------------------------------------------------- */

static int add_columns(fprof *f)
{
	plumb_table *t = f->t;
	f->c_pct = view_add_event_column(t, f->p, "percent", "%", PLUMB_CELL_PCT, f->ev);
	f->c_cumul = plumb_table_add_column(t, "cumulative", "Cumul %", PLUMB_CELL_PCT, f->ev, false);
	f->c_cost = view_add_event_column(t, f->p, "samples", "IP", PLUMB_CELL_U64, f->ev);
	f->c_thread = plumb_table_add_column(t, "thread", "Thread", PLUMB_CELL_STR, -1, false);
	f->c_module = plumb_table_add_column(t, "module", "Load module", PLUMB_CELL_STR, -1, false);
	f->c_function = plumb_table_add_column(t, "function", "Function", PLUMB_CELL_STR, -1, true);
	f->c_file = plumb_table_add_column(t, "file", "File", PLUMB_CELL_STR, -1, false);
	f->c_line = plumb_table_add_column(t, "line", "Line", PLUMB_CELL_STR, -1, false);
	f->c_stmt = plumb_table_add_column(t, "statement", ">Statement | Instruction", PLUMB_CELL_STR, -1, false);
	return f->c_pct < 0 || f->c_cumul < 0 || f->c_cost < 0 || f->c_thread < 0 || f->c_module < 0 ||
	       f->c_function < 0 || f->c_file < 0 || f->c_line < 0 || f->c_stmt < 0 ? -1 : 0;
}

static plumb_row *cost_row(fprof *f, uint32_t depth, uint64_t cost)
{
	plumb_row *r = plumb_table_add_row(f->t, PLUMB_ROW_NORMAL, depth);
	if (r) {
		plumb_cell_pct(&r->cells[f->c_pct], view_pct(cost, f->total));
		plumb_cell_u64(&r->cells[f->c_cost], cost);
	}
	return r;
}

/* Copy s into the table (NULL stays NULL); false on ENOMEM. */
static bool put_str(fprof *f, plumb_row *r, int col, const char *s)
{
	const char *k = s ? plumb_table_strdup(f->t, s) : NULL;
	plumb_cell_str(&r->cells[col], k);
	return !s || k;
}

static int function_row(fprof *f, const group *g, double *cumul)
{
	const plumb_profile *p = f->p;
	const ip *x = &f->v[g->lo];
	plumb_row *r = cost_row(f, 0, g->cost);
	if (!r)
		return -1;
	*cumul += view_pct(g->cost, f->total);
	plumb_cell_pct(&r->cells[f->c_cumul], *cumul > 100.0 ? 100.0 : *cumul);
	char buf[512];
	const plumb_part *part = &p->parts.v[x->part];
	view_part_label(p, part, x->part, buf, sizeof buf);
	if (part->start_function != PLUMB_NONE) {
		size_t len = strlen(buf);
		snprintf(buf + len, sizeof buf - len, " (%s)",
			 plumb_str(p, p->functions.v[part->start_function].name));
	}
	plumb_key k = key_of(p, x->function);
	bool ok = put_str(f, r, f->c_thread, buf);
	ok &= put_str(f, r, f->c_module, view_key_module(p, &k));
	ok &= put_str(f, r, f->c_function, view_key_name(p, &k));
	ok &= put_str(f, r, f->c_file, view_key_file(p, &k));
	return ok ? 0 : -1;
}

static int line_row(fprof *f, const group *g, const line_info *li)
{
	const ip *x = &f->v[li->lo];
	if (!x->line)
		return 0; /* no line known (folded stacks, no debug information) */
	plumb_row *r = cost_row(f, 1, li->cost);
	if (!r)
		return -1;
	bool ok = true;
	/* The statement's file when code was inlined from another one. */
	plumb_id fn_file = key_of(f->p, f->v[g->lo].function).file;
	if (x->file != PLUMB_NONE && x->file != fn_file)
		ok &= put_str(f, r, f->c_file, plumb_str(f->p, f->p->files.v[x->file].path));
	char num[32];
	if (x->line) {
		snprintf(num, sizeof num, "%s%" PRIu32, li->approx ? "~" : "", x->line);
		ok &= put_str(f, r, f->c_line, num);
	}
	const char *text = source_line(f, x->file, x->line);
	while (text && (*text == ' ' || *text == '\t'))
		text++;
	size_t len = text ? strlen(text) : 0;
	char *stmt = malloc(len + 4);
	if (!stmt)
		return -1;
	snprintf(stmt, len + 4, "%s%s%s", li->out_of_order ? "*>" : ">", text ? " " : "", text ? text : "");
	for (char *q = stmt; *q; q++)
		if (*q == '\t')
			*q = ' ';
	ok &= put_str(f, r, f->c_stmt, stmt);
	free(stmt);
	return ok ? 0 : -1;
}

static int instruction_rows(fprof *f, const line_info *li)
{
	for (size_t i = li->lo; i < li->hi; i++) {
		const ip *x = &f->v[i];
		if (!x->address)
			continue; /* a source without addresses: the line is all there is */
		plumb_row *r = cost_row(f, 2, x->cost);
		if (!r)
			return -1;
		char addr[32];
		snprintf(addr, sizeof addr, "0x%" PRIx64, x->address);
		plumb_insn insn;
		if (!put_str(f, r, f->c_line, addr) ||
		    !put_str(f, r, f->c_stmt, instruction(f, x->function, x->address, &insn)))
			return -1;
	}
	return 0;
}

static int line_cmp(const void *va, const void *vb, void *ctx)
{
	const fprof *f = ctx;
	const line_info *a = va, *b = vb;
	const ip *x = &f->v[a->lo], *y = &f->v[b->lo];
	/* the function's own file first, then in line order */
	int c = cmp_u64(x->line, y->line);
	return c ? c : cmp_u64(x->file, y->file);
}

static int build(fprof *f, plumb_error *err)
{
	if (collect(f, err))
		return -1;
	if (add_columns(f))
		return plumb_fail_nomem(err);
	size_t ng = 0;
	group *g = function_groups(f, &ng);
	if (!g)
		return plumb_fail_nomem(err);
	double cumul = 0;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < ng; i++) {
		size_t nl = 0;
		line_info *l = lines_of(f, &g[i], &nl);
		if (!l || function_row(f, &g[i], &cumul)) {
			free(l);
			rc = -1;
			break;
		}
		qsort_r(l, nl, sizeof *l, line_cmp, f);
		for (size_t j = 0; rc == 0 && j < nl; j++)
			rc = line_row(f, &g[i], &l[j]) || instruction_rows(f, &l[j]) ? -1 : 0;
		free(l);
	}
	free(g);
	return rc ? plumb_fail_nomem(err) : 0;
}

int view_fprof(const plumb_profile *p, const plumb_view_opts *o, plumb_table **out, plumb_error *err)
{
	view_events ve;
	if (view_events_of(p, o, &ve, err))
		return -1;
	if (o->sort != PLUMB_SORT_DEFAULT && o->sort != PLUMB_SORT_EXCLUSIVE)
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "the fprof view sorts by IP samples (exclusive cost) only");
	const char *creator = plumb_meta_get(p, "creator");
	fprof f = {
		.p = p, .o = o, .ev = ve.primary, .src = { PLUMB_NONE, NULL, 0 },
		.disasm = creator && strcmp(creator, "plumb record") == 0,
		.elf = calloc(p->modules.n + 1, sizeof *f.elf),
		.elf_tried = calloc(p->modules.n + 1, sizeof *f.elf_tried),
		.t = plumb_table_new("fprof", "fprof: IP samples by thread and function, their "
				     "statements and instructions (HP Caliper's table 26)"),
	};
	if (f.t)
		f.t->nested = true;
	int rc = f.elf && f.elf_tried && f.t ? build(&f, err) : plumb_fail_nomem(err);
	if (rc == 0 && plumb_table_add_note(f.t, "~12: an approximate line (other lines' code lies "
					    "between its sampled instructions, as in optimised code); *>: a "
					    "statement out of order (its code follows a later line's). "
					    "Instruction rows: the address, as objdump shows it, and the "
					    "instruction."))
		rc = plumb_fail_nomem(err);
	for (size_t i = 0; f.elf && i < p->modules.n; i++)
		plumb_elf_close(f.elf[i]);
	free(f.elf);
	free(f.elf_tried);
	free(f.v);
	src_free(&f.src);
	if (rc) {
		plumb_table_free(f.t);
		return -1;
	}
	*out = f.t;
	return 0;
}
