/* aprof calling contexts: "x routine context parent" lines at the end of
 * a report define the calling context tree (parent -1: a child of the
 * root) that the q lines above them referred to. Each context becomes the
 * CCT path of its routines in the file's part; each q point is added with
 * that node as its context, its self sum as the node's self cost and its
 * calls as the node's activations. Context ids belong to one file. */
#include <inttypes.h>
#include <string.h>

#include "formats/aprof_read.h"
#include "formats/quote.h"
#include "model/index.h"

static int context_id(aprof_reader *r, const char **s, const char *end, const char *what,
		      bool minus_one, uint64_t *out, bool *is_top)
{
	const char *tok;
	size_t len;
	char q[PLUMB_QUOTE_SIZE];
	if (!aprof_token(s, end, &tok, &len))
		return aprof_bad(r, "expected %s after \"x\", got nothing", what);
	if (minus_one && len == 2 && memcmp(tok, "-1", 2) == 0) {
		*is_top = true;
		return 0;
	}
	if (!aprof_parse_u64(tok, len, out))
		return aprof_bad(r, "expected %s (a decimal number of at most 64 bits%s) after \"x\", "
				 "got %s", what, minus_one ? ", or -1 for the root" : "",
				 plumb_quote_input(q, sizeof q, tok, len));
	return 0;
}

int aprof_context_line(aprof_reader *r, const char *s, const char *end)
{
	aprof_context c = { .node = PLUMB_NONE, .line = r->lineno };
	const char *tok;
	size_t len;
	uint64_t rid;
	bool unused;
	char q[PLUMB_QUOTE_SIZE];
	if (context_id(r, &s, end, "a routine id", false, &rid, &unused) ||
	    context_id(r, &s, end, "a context id", false, &c.id, &unused) ||
	    context_id(r, &s, end, "a parent context id", true, &c.parent, &c.is_top))
		return -1;
	if (aprof_token(&s, end, &tok, &len))
		return aprof_bad(r, "expected only routine, context and parent after \"x\", got also %s",
				 plumb_quote_input(q, sizeof q, tok, len));
	c.routine = aprof_idmap_get(&r->routine_ix, rid);
	if (c.routine == PLUMB_NONE)
		return aprof_bad(r, "routine %" PRIu64 " was not declared (expected an \"r\" line with id %"
				 PRIu64 " before this line)", rid, rid);
	uint32_t old = aprof_idmap_get(&r->context_ix, c.id);
	if (old != PLUMB_NONE)
		return aprof_bad(r, "expected each context id once, got %" PRIu64 " again (first on line %"
				 PRIu64 ")", c.id, r->contexts.v[old].line);
	if (r->contexts.n >= PLUMB_NONE - 1)
		return aprof_bad(r, "expected fewer than 2^32 contexts");
	uint32_t idx = (uint32_t)r->contexts.n;
	if (plumb_vec_push(r->contexts, c) || aprof_idmap_put(&r->context_ix, c.id, idx))
		return plumb_fail_nomem(r->err);
	return 0;
}

/* The CCT node of context i, after those of its ancestors: the chain up
 * to a built one is walked without recursion (a chain may be as long as
 * the file), through the parent links, checking for loops. */
static int build_node(aprof_reader *r, uint32_t i)
{
	aprof_context *cs = r->contexts.v;
	uint32_t top = i;
	/* walk up, marking the chain; state 1 links back down via node */
	uint32_t below = PLUMB_NONE;
	plumb_id parent_node = r->p->parts.v[r->part].root;
	for (;;) {
		aprof_context *c = &cs[top];
		if (c->state == 2) {
			parent_node = c->node;
			top = below;
			break;
		}
		if (c->state == 1)
			return aprof_bad_at(r, PLUMB_ERR_FORMAT, c->line,
					    "expected contexts that form a tree, got context %" PRIu64
					    " among its own ancestors", c->id);
		c->state = 1;
		c->node = below; /* the child on the way down, for now */
		if (c->is_top)
			break;
		uint32_t up = aprof_idmap_get(&r->context_ix, c->parent);
		if (up == PLUMB_NONE)
			return aprof_bad_at(r, PLUMB_ERR_FORMAT, c->line,
					    "context %" PRIu64 "'s parent %" PRIu64 " was not defined "
					    "(expected an \"x\" line with context id %" PRIu64 ")",
					    c->id, c->parent, c->parent);
		below = top;
		top = up;
	}
	/* down again from top, creating the nodes */
	while (top != PLUMB_NONE) {
		aprof_context *c = &cs[top];
		uint32_t next = c->node;
		if (aprof_routine_function(r, c->routine))
			return -1;
		c->node = plumb_cct_child(r->p, parent_node, r->routines.v[c->routine].frame);
		if (c->node == PLUMB_NONE)
			return plumb_fail_nomem(r->err);
		c->state = 2;
		parent_node = c->node;
		top = next;
	}
	return 0;
}

int aprof_resolve_contexts(aprof_reader *r)
{
	for (size_t i = 0; i < r->contexts.n; i++)
		if (r->contexts.v[i].state != 2 && build_node(r, (uint32_t)i))
			return -1;
	plumb_error e2;
	for (size_t i = 0; i < r->qs.n; i++) {
		aprof_pending_q *pq = &r->qs.v[i];
		uint32_t c = aprof_idmap_get(&r->context_ix, pq->context);
		if (c == PLUMB_NONE)
			return aprof_bad_at(r, PLUMB_ERR_FORMAT, pq->line,
					    "context %" PRIu64 " was not defined (expected an \"x\" line "
					    "with context id %" PRIu64 " at the end of the report)",
					    pq->context, pq->context);
		const aprof_context *ctx = &r->contexts.v[c];
		plumb_point *pt = &pq->pt;
		pt->function = r->routines.v[ctx->routine].fn;
		pt->context = ctx->node;
		if (plumb_point_add(r->p, pt, &e2) ||
		    plumb_cct_add_activations(r->p, ctx->node, pt->calls, &e2) ||
		    ((pt->has & PLUMB_PT_SELF) && plumb_cct_add_self(r->p, ctx->node, &pt->self_sum, &e2)))
			return e2.code == PLUMB_ERR_NOMEM
				       ? plumb_fail_nomem(r->err)
				       : aprof_bad_at(r, e2.code, pq->line, "%s", e2.message);
	}
	return 0;
}
