/* Per-line costs of a plumb cc report: its "c plumb-block CONTEXT OFFSET
 * RUNS" lines (src/inputs/report.c) say how many times each basic block ran
 * in each calling context. Each becomes a node beside its context's node
 * (same parent, frame: the routine at the block's source line and
 * address) holding the block's runs as self cost, taken from the context
 * node's own; the context node keeps the activations and the callees. At
 * the function level nothing changes (the same routine under the same
 * caller); at the line level the costs are exact per line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/symbols.h"
#include "record/inputs_lines.h"

typedef struct routine {
	char *name, *object;
} routine;

typedef struct lines_reader {
	plumb_profile *p;
	plumb_id root;
	routine *routines;       /* by report id */
	size_t nroutines;
	plumb_id *ctx_node;      /* by report context id; PLUMB_NONE unknown */
	size_t nctx;
} lines_reader;

/* The text between the i-th pair of quotes of s (i = 0, 1), malloc'd. */
static char *quoted(const char *s, int i)
{
	const char *q = strchr(s, '"');
	for (int k = 0; q && k < i; k++) {
		q = strchr(q + 1, '"');
		q = q ? strchr(q + 1, '"') : NULL;
	}
	if (!q)
		return NULL;
	const char *e = strchr(q + 1, '"');
	return e ? strndup(q + 1, (size_t)(e - q - 1)) : NULL;
}

static int grow_to(void **v, size_t *n, size_t need, size_t elem, int fill)
{
	if (need <= *n)
		return 0;
	void *nv = realloc(*v, need * elem);
	if (!nv)
		return -1;
	memset((char *)nv + *n * elem, fill, (need - *n) * elem);
	*v = nv;
	*n = need;
	return 0;
}

/* The child of parent whose routine is r (by name and object). */
static plumb_id find_child(const lines_reader *lr, plumb_id parent, const routine *r)
{
	const plumb_profile *p = lr->p;
	for (plumb_id c = p->cct.v[parent].first_child; c != PLUMB_NONE; c = p->cct.v[c].next_sibling) {
		const plumb_frame *fr = &p->frames.v[p->cct.v[c].frame];
		if (fr->line || fr->address || fr->function == PLUMB_NONE)
			continue;
		const plumb_function *fn = &p->functions.v[fr->function];
		const char *name = plumb_str(p, fn->name), *mangled = plumb_str(p, fn->mangled);
		const char *mod = fn->module != PLUMB_NONE ? plumb_str(p, p->modules.v[fn->module].path) : NULL;
		if ((!strcmp(name, r->name) || (mangled && !strcmp(mangled, r->name))) && mod &&
		    !strcmp(mod, r->object))
			return c;
	}
	return PLUMB_NONE;
}

static int add_block(lines_reader *lr, plumb_symbolizer *sym, plumb_id node, uint64_t off, uint64_t runs,
		     plumb_error *err)
{
	plumb_profile *p = lr->p;
	const plumb_cct_node *n = &p->cct.v[node];
	plumb_id fn = p->frames.v[n->frame].function;
	const plumb_function *f = &p->functions.v[fn];
	if (f->module == PLUMB_NONE)
		return 0;
	plumb_sym_frame out[16];
	plumb_error e2;
	const char *path = plumb_str(p, p->modules.v[f->module].path);
	int nf = plumb_symbolize(sym, path, off, out, 16, &e2);
	/* off, the return address of the block's hook call, is in the block;
	 * clang gives some instructions line 0 (no source line): then the
	 * line of the block's next instruction that has one */
	for (uint64_t ahead = 1; nf > 0 && out[nf - 1].line == 0 && out[nf - 1].file && ahead <= 64; ahead++) {
		plumb_sym_frame next[16];
		int k = plumb_symbolize(sym, path, off + ahead, next, 16, &e2);
		if (k <= 0 || !next[k - 1].function || !out[nf - 1].function ||
		    strcmp(next[k - 1].function, out[nf - 1].function))
			break;
		if (next[k - 1].line) {
			out[nf - 1].line = next[k - 1].line;
			out[nf - 1].file = next[k - 1].file;
		}
	}
	/* the routine's own line: the outermost frame of an inline chain */
	const plumb_sym_frame *at = &out[nf - 1];
	plumb_id file = at->file ? plumb_file_intern(p, at->file) : PLUMB_NONE;
	plumb_id frame = plumb_frame_intern(p, fn, file, at->line, at->address ? at->address : off);
	if ((at->file && file == PLUMB_NONE) || frame == PLUMB_NONE)
		return plumb_fail_nomem(err);
	uint64_t *self = &p->cct_self.v[(size_t)node * p->events.n];
	if (runs > *self)
		return 0; /* not this context's own cost: leave it where it is */
	plumb_id parent = n->parent;
	plumb_id beside = plumb_cct_child(p, parent, frame);
	if (beside == PLUMB_NONE)
		return plumb_fail_nomem(err);
	if (plumb_cct_activations(p, beside) == PLUMB_COUNT_UNKNOWN &&
	    plumb_cct_add_activations(p, beside, 0, err))
		return -1;
	uint64_t cost[1] = { runs };
	if (p->events.n != 1 || plumb_cct_add_self(p, beside, cost, err))
		return p->events.n != 1 ? 0 : -1;
	/* moved, not added: the model has no subtraction, so the slot is
	 * lowered in place (the sum over the context stays the same) */
	p->cct_self.v[(size_t)node * p->events.n] -= runs;
	return 0;
}

int plumb_inputs_add_lines(plumb_profile *p, plumb_id part, const char *path, plumb_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	lines_reader lr = { .p = p, .root = p->parts.v[part].root };
	plumb_symbolizer *sym = NULL;
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	while (rc == 0 && getline(&line, &cap, f) > 0) {
		unsigned long long a, b, c;
		long long parent;
		if (line[0] == 'r' && line[1] == ' ') {
			char *name = quoted(line, 0), *obj = quoted(line, 1);
			const char *idp = strrchr(line, ' ');
			unsigned long long id = idp ? strtoull(idp + 1, NULL, 10) : 0;
			if (!name || !obj || id > (1u << 30) ||
			    grow_to((void **)&lr.routines, &lr.nroutines, id + 1, sizeof *lr.routines, 0)) {
				free(name);
				free(obj);
				rc = name && obj && id <= (1u << 30) ? plumb_fail_nomem(err) : 0;
				continue;
			}
			free(lr.routines[id].name);
			free(lr.routines[id].object);
			lr.routines[id] = (routine){ name, obj };
		} else if (sscanf(line, "x %llu %llu %lld", &a, &b, &parent) == 3) {
			if (b > (1u << 30) || a >= lr.nroutines || !lr.routines[a].name)
				continue;
			if (grow_to((void **)&lr.ctx_node, &lr.nctx, b + 1, sizeof *lr.ctx_node, 0xff)) {
				rc = plumb_fail_nomem(err);
				continue;
			}
			plumb_id up = parent < 0 ? lr.root
				      : (unsigned long long)parent < lr.nctx ? lr.ctx_node[parent] : PLUMB_NONE;
			lr.ctx_node[b] = up == PLUMB_NONE ? PLUMB_NONE : find_child(&lr, up, &lr.routines[a]);
		} else if (strncmp(line, "c plumb-blocks unavailable", 26) == 0) {
			if (plumb_meta_set(p, "inputs.lines",
					   "no per-line costs: the program was built with plumb cc's gcc plugin, "
					   "which counts basic blocks inline (build with PLUMB_INPUTS_PLUGIN=no "
					   "plumb cc for them; docs/inputs.md)", err))
				rc = -1;
		} else if (sscanf(line, "c plumb-block %llu %llx %llu", &a, &b, &c) == 3) {
			if (a >= lr.nctx || lr.ctx_node[a] == PLUMB_NONE)
				continue;
			if (!sym && !(sym = plumb_symbolizer_new(NULL, err))) {
				rc = -1;
				continue;
			}
			rc = add_block(&lr, sym, lr.ctx_node[a], b, c, err);
		}
	}
	free(line);
	fclose(f);
	for (size_t i = 0; i < lr.nroutines; i++) {
		free(lr.routines[i].name);
		free(lr.routines[i].object);
	}
	free(lr.routines);
	free(lr.ctx_node);
	if (sym)
		plumb_symbolizer_free(sym);
	return rc;
}
