/* Merging: several input files become one profile (their parts side by side). */
#include <stdio.h>
#include <string.h>

#include "model/index.h"

/* "Ir Dr Dw": the event names, cut with "..." when they do not fit. */
static const char *event_list(const plumb_profile *p, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < p->events.n; i++) {
		const char *name = plumb_str(p, p->events.v[i].name);
		if (len + strlen(name) + 5 >= cap) {
			memcpy(buf + len, " ...", 5);
			break;
		}
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? " " : "", name);
	}
	return buf;
}

static int copy_events(plumb_profile *dst, const plumb_profile *src, plumb_error *err)
{
	for (size_t i = 0; i < src->events.n; i++) {
		const plumb_event *e = &src->events.v[i];
		const char *name = plumb_str(src, e->name), *ln = plumb_str(src, e->long_name);
		int r = e->formula != PLUMB_NONE
				? plumb_event_add_derived(dst, name, ln, plumb_str(src, e->formula), err)
				: plumb_event_add(dst, name, ln, plumb_str(src, e->unit), err);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int check_events(const plumb_profile *dst, const plumb_profile *src, plumb_error *err)
{
	bool same = dst->events.n == src->events.n;
	for (size_t i = 0; same && i < src->events.n; i++)
		same = strcmp(plumb_str(dst, dst->events.v[i].name),
			      plumb_str(src, src->events.v[i].name)) == 0;
	if (!same) {
		char a[400], b[400];
		return plumb_fail(err, PLUMB_ERR_USAGE,
				  "cannot merge profiles with different events ('%s' and '%s')",
				  event_list(dst, a, sizeof a), event_list(src, b, sizeof b));
	}
	return 0;
}


/* Performance points, with ids mapped into dst: points of the same routine
 * (or context path) and input size combine, as aprof merges reports. */
static int merge_points(plumb_profile *dst, const plumb_profile *src, const plumb_id *part,
			const plumb_id *fn, const plumb_id *node, plumb_error *err)
{
	const plumb_points_info *si = &src->points_info;
	if (si->version < 0 && src->points.n == 0)
		return 0;
	plumb_points_info info = *si;
	if (si->input_metric != PLUMB_NONE &&
	    (info.input_metric = plumb_intern(dst, plumb_str(src, si->input_metric))) == PLUMB_NONE)
		return plumb_fail_nomem(err);
	if (plumb_points_info_add(dst, &info, err))
		return -1;
	for (size_t i = 0; i < src->points.n; i++) {
		plumb_point pt = src->points.v[i];
		pt.part = part[pt.part];
		pt.function = fn[pt.function];
		if (pt.context != PLUMB_NONE)
			pt.context = node[pt.context];
		if (plumb_point_add(dst, &pt, err))
			return -1;
	}
	return 0;
}

static int merge(plumb_profile *dst, const plumb_profile *src, const uint8_t *fold, bool piece,
		 plumb_error *err);

/* Is dst's function i the one src's f (in dst's module m and file fl) is?
 * A piece's profile names the functions of the file's start in the order
 * dst does, so most are, and a compare is cheaper than a lookup. (Keys are
 * unique: the same key is the id plumb_function_intern would find.) */
static bool same_function(const plumb_profile *dst, size_t i, const plumb_profile *src,
			  const plumb_function *f, plumb_id m, plumb_id fl)
{
	if (i >= dst->functions.n || f->mangled != PLUMB_NONE)
		return false;
	const plumb_function *d = &dst->functions.v[i];
	return d->module == m && d->file == fl &&
	       strcmp(plumb_str(dst, d->name), plumb_str(src, f->name)) == 0;
}

int plumb_profile_merge(plumb_profile *dst, const plumb_profile *src, plumb_error *err)
{
	return merge(dst, src, NULL, false, err);
}

int plumb_profile_merge_folding(plumb_profile *dst, const plumb_profile *src, const uint8_t *fold,
				 plumb_error *err)
{
	return merge(dst, src, fold, false, err);
}

int plumb_profile_merge_piece(plumb_profile *dst, const plumb_profile *src, plumb_error *err)
{
	return merge(dst, src, NULL, true, err);
}

/* piece: src's first parts are dst's (see plumb_profile_merge_piece). */
static int merge(plumb_profile *dst, const plumb_profile *src, const uint8_t *fold, bool piece,
		 plumb_error *err)
{
	size_t shared = piece ? dst->parts.n : 0;
	if (dst->kept_totals || src->kept_totals) /* read without costs: nothing to add */
		return plumb_fail(err, PLUMB_ERR_USAGE, "a profile read for one view only (the one "
				  "its .plumb store keeps, no costs) cannot be merged");
	if (dst->events.n == 0 && !dst->costs_started) {
		if (copy_events(dst, src, err))
			return -1;
	} else if (check_events(dst, src, err)) {
		return -1;
	}
	size_t nev = src->events.n;
	plumb_id *mod = NULL, *file = NULL, *fn = NULL, *frame = NULL, *part = NULL, *node = NULL;
	int rc = -1;
	mod = malloc((src->modules.n + 1) * sizeof *mod);
	file = malloc((src->files.n + 1) * sizeof *file);
	fn = malloc((src->functions.n + 1) * sizeof *fn);
	frame = malloc((src->frames.n + 1) * sizeof *frame);
	part = malloc((src->parts.n + 1) * sizeof *part);
	node = malloc((src->cct.n + 1) * sizeof *node);
	if (!mod || !file || !fn || !frame || !part || !node)
		goto nomem;
	for (size_t i = 0; i < src->modules.n; i++)
		if ((mod[i] = plumb_module_intern(dst, plumb_str(src, src->modules.v[i].path),
						  plumb_str(src, src->modules.v[i].build_id))) == PLUMB_NONE)
			goto nomem;
	for (size_t i = 0; i < src->files.n; i++)
		if ((file[i] = plumb_file_intern(dst, plumb_str(src, src->files.v[i].path))) == PLUMB_NONE)
			goto nomem;
	for (size_t i = 0; i < src->functions.n; i++) {
		const plumb_function *f = &src->functions.v[i];
		plumb_id m = f->module == PLUMB_NONE ? PLUMB_NONE : mod[f->module];
		plumb_id fl = f->file == PLUMB_NONE ? PLUMB_NONE : file[f->file];
		if (piece && same_function(dst, i, src, f, m, fl)) {
			plumb_function *d = &dst->functions.v[i];
			if (!d->line) /* as plumb_function_intern fills it */
				d->line = f->line;
			fn[i] = (plumb_id)i;
			continue;
		}
		fn[i] = plumb_function_intern(dst, plumb_str(src, f->name), plumb_str(src, f->mangled),
					      m, fl, f->line);
		if (fn[i] == PLUMB_NONE)
			goto nomem;
	}
	for (size_t i = 0; i < src->frames.n; i++) {
		const plumb_frame *f = &src->frames.v[i];
		/* A frame with no file keeps none: PLUMB_NONE would mean "the function's". */
		plumb_id ff = f->file == PLUMB_NONE ? PLUMB_NONE : file[f->file];
		frame[i] = plumb_frame_intern(dst, fn[f->function], ff, f->line, f->address);
		if (frame[i] == PLUMB_NONE)
			goto nomem;
	}
	for (size_t i = 0; i < src->parts.n; i++) {
		const plumb_part *sp = &src->parts.v[i];
		if (i < shared) {
			part[i] = (plumb_id)i;
			continue;
		}
		part[i] = plumb_part_add(dst, sp->kind, plumb_str(src, sp->name), sp->pid, sp->tid);
		if (part[i] == PLUMB_NONE)
			goto nomem;
		if (sp->start_function != PLUMB_NONE)
			dst->parts.v[part[i]].start_function = fn[sp->start_function];
		dst->parts.v[part[i]].arc_costs = sp->arc_costs;
	}
	/* Parents precede children, so one forward pass maps every node. */
	for (size_t i = 0; i < src->cct.n; i++) {
		const plumb_cct_node *n = &src->cct.v[i];
		bool folded = fold && fold[i] && n->parent != PLUMB_NONE;
		node[i] = n->parent == PLUMB_NONE ? dst->parts.v[part[n->part]].root
			  : folded ? node[n->parent]
				   : plumb_cct_child(dst, node[n->parent], frame[n->frame]);
		if (node[i] == PLUMB_NONE)
			goto nomem;
		if (plumb_cct_add_self(dst, node[i], src->cct_self.v + i * nev, err))
			goto out;
		/* a folded node's entries are its parent's own */
		uint64_t act = plumb_cct_activations(src, (plumb_id)i);
		if (!folded && act != PLUMB_COUNT_UNKNOWN &&
		    plumb_cct_add_activations(dst, node[i], act, err))
			goto out;
	}
	for (size_t i = 0; i < src->cg_self.n; i++) {
		plumb_id sp = part[src->cg_self.v[i].part], sf = frame[src->cg_self.v[i].frame];
		uint64_t zeros = i < src->cg_self_zero.n ? src->cg_self_zero.v[i] : 0;
		if (plumb_cg_add_self(dst, sp, sf, src->cg_self_cost.v + i * nev, err) ||
		    (zeros && plumb_cg_note_zeros(dst, sp, sf, zeros, err)))
			goto out;
	}
	for (size_t i = 0; i < src->arcs.n; i++) {
		const plumb_arc *a = &src->arcs.v[i];
		int id = plumb_arc_add(dst, part[a->part], frame[a->caller], fn[a->callee], a->calls,
				       a->has_inclusive ? src->arc_incl.v + i * nev : NULL, err);
		uint64_t zeros = i < src->arc_zero.n ? src->arc_zero.v[i] : 0;
		if (id < 0 || (zeros && plumb_arc_note_zeros(dst, (plumb_id)id, zeros, err)))
			goto out;
	}
	for (size_t i = 0; i < src->jumps.n; i++) {
		const plumb_jump *j = &src->jumps.v[i];
		if (plumb_jump_add(dst, part[j->part], frame[j->from], frame[j->to], j->conditional,
				   j->executed, j->followed, err) < 0)
			goto out;
	}
	for (size_t i = 0; i < src->samples.n; i++) {
		const plumb_sample *s = &src->samples.v[i];
		if (plumb_sample_add(dst, s->time_ns, part[s->part], node[s->node],
				     src->sample_weights.v + i * nev, err))
			goto out;
	}
	if (merge_points(dst, src, part, fn, node, err))
		goto out;
	for (size_t i = 0; i < src->meta.n; i++) {
		const char *k = plumb_str(src, src->meta.v[i].key);
		if (!plumb_meta_get(dst, k) &&
		    plumb_meta_set(dst, k, plumb_str(src, src->meta.v[i].value), err))
			goto out;
	}
	rc = 0;
	goto out;
nomem:
	plumb_fail_nomem(err);
out:
	free(mod);
	free(file);
	free(fn);
	free(frame);
	free(part);
	free(node);
	return rc;
}
