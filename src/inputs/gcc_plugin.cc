/* plumb-inputs-gcc.so: a gcc plugin that `plumb cc` loads to put the fast
 * paths of plumb's runtime (src/inputs/hooks.c) inline (docs/inputs.md,
 * "Costs"). It runs right after gcc's thread-sanitizer pass and rewrites the
 * calls that pass and -fsanitize-coverage=trace-pc made:
 *
 *   __sanitizer_cov_trace_pc ()  ->  blocks += 1  (a register, added to the
 *                                    thread's __plumb_inp_cost before calls)
 *   __tsan_readN (p), N <= 8     ->  if (miss) { if (!by_ancestor)
 *                                      __tsan_readN (p); }
 *   __tsan_writeN (p), N <= 8    ->  if (miss) __tsan_writeN (p);
 *                                    else cells = aid
 *
 * where, from the thread's state that the runtime keeps (__plumb_inp_tags,
 * _leaves: its shadow's leaf cache; _aid: the top activation's id), a =
 * (uintptr_t) p, slot = (a >> 16) % 256, and the cells are the one or two
 * 4-byte cells at leaves[slot] + (a & 0xfffc) (locate below):
 *
 *   miss = (a >> 16) != tags[slot]              (that leaf is not cached)
 *        | not one cell, or two for N = 8       (unaligned, past the leaf)
 *        | a cell < aid                         (reads: not yet counted by
 *                                                the top activation; a
 *                                                branch per compare)
 *
 * so a read of a cell the activation already counted, and a write of a
 * cached leaf, cost a few instructions and no call. A read the top
 * activation has not counted whose cells have one timestamp, that of the
 * caller's or of the ancestor the runtime found last (by_ancestor, from
 * __plumb_inp_fast), is counted inline too (inp_read_cell's common cases).
 * Everything else takes the runtime's out-of-line hook, which does the
 * whole algorithm and publishes the state again. The results are the same
 * as without the plugin (the runtime's hooks alone), which `plumb cc` falls
 * back to when the plugin is missing (PLUMB_INPUTS_PLUGIN=no, clang, -O0). */
#include "gcc-plugin.h"
#include "plugin-version.h"

#include "tree.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "cfghooks.h"
#include "cfgloop.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "ssa.h"
#include "stringpool.h"
#include "tree-into-ssa.h"
#include "tree-ssanames.h"
#include "tree-ssa.h"
#include "cgraph.h"
#include "attribs.h"
#include "profile-count.h"
#include "gimplify.h"
#include "diagnostic-core.h"

int plugin_is_GPL_compatible;

/* The gcc this plugin was built for, which `plumb cc` reads from the file
 * (src/cli/cc.c) to build without the plugin, and say why, when the
 * compiler is another: gcc would fail to load it, or refuse it. */
#define PLUMB_STR_(x) #x
#define PLUMB_STR(x) PLUMB_STR_(x)
extern "C" __attribute__((used)) const char plumb_inputs_plugin_gcc[] =
	"plumb-inputs-gcc-plugin-for=" PLUMB_STR(GCCPLUGIN_VERSION_MAJOR) "." PLUMB_STR(
		GCCPLUGIN_VERSION_MINOR) "." PLUMB_STR(GCCPLUGIN_VERSION_PATCHLEVEL);

namespace {

struct tls_vars {
	tree cost, tags, leaves, aid, fast;
};

/* src/inputs/inputs.h: INP_FAST_* (the slots of __plumb_inp_fast), and
 * the shadow stack's frame (hooks.c checks the layout) */
enum { FAST_TOP, FAST_HINT_LO, FAST_HINT_SPAN, FAST_HINT_PARTIAL, FAST_N };
const int frame_size = 56, frame_partial = 48; /* inp_frame: aid at 0 */

/* INP_LEAF_CACHE in src/inputs/inputs.h */
const unsigned leaf_cache = 256;

/* Volatile, like every access below to the runtime's memory: the
 * compiler's summaries of the program's functions (ipa-modref) were made
 * before this pass and say nothing of these variables, so without it a
 * flush before a call to such a function, or a shadow store, could be
 * dropped as dead, and a load reused after the call. */
tree tls_var(const char *name, tree type)
{
	type = build_qualified_type(type, TYPE_QUAL_VOLATILE);
	tree d = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier(name), type);
	TREE_THIS_VOLATILE(d) = 1;
	TREE_SIDE_EFFECTS(d) = 1;
	TREE_PUBLIC(d) = 1;
	DECL_EXTERNAL(d) = 1;
	TREE_STATIC(d) = 1;
	DECL_ARTIFICIAL(d) = 1;
	DECL_IGNORED_P(d) = 1;
	TREE_USED(d) = 1;
	/* an executable holds the runtime: local-exec, one instruction per
	 * access; a shared library finds the program's variables at load */
	set_decl_tls_model(d, flag_shlib ? TLS_MODEL_INITIAL_EXEC : TLS_MODEL_LOCAL_EXEC);
	varpool_node::get_create(d);
	return d;
}

tls_vars &vars()
{
	static tls_vars v;
	if (!v.cost) {
		v.cost = tls_var("__plumb_inp_cost", long_long_unsigned_type_node);
		tree u64v = build_qualified_type(long_long_unsigned_type_node, TYPE_QUAL_VOLATILE);
		tree slots = build_array_type_nelts(u64v, leaf_cache);
		v.tags = tls_var("__plumb_inp_tags", slots);
		v.leaves = tls_var("__plumb_inp_leaves", slots);
		v.aid = tls_var("__plumb_inp_aid", unsigned_type_node);
		v.fast = tls_var("__plumb_inp_fast", build_array_type_nelts(u64v, FAST_N));
	}
	return v;
}

/* Append `lhs = rhs` (a new SSA name of type) before gsi. */
tree emit(gimple_stmt_iterator *gsi, tree type, tree_code code, tree a, tree b = NULL_TREE)
{
	tree lhs = make_ssa_name(type);
	gassign *g = b ? gimple_build_assign(lhs, code, a, b) : gimple_build_assign(lhs, code, a);
	gsi_insert_before(gsi, g, GSI_SAME_STMT);
	return lhs;
}

tree load(gimple_stmt_iterator *gsi, tree var)
{
	tree lhs = make_ssa_name(TYPE_MAIN_VARIANT(TREE_TYPE(var)));
	gsi_insert_before(gsi, gimple_build_assign(lhs, var), GSI_SAME_STMT);
	return lhs;
}

/* __tsan_func_entry (ra) -> __plumb_inp_func_entry (ra, cfa), and
 * __tsan_func_exit () -> __plumb_inp_func_exit (cfa): the function's CFA
 * (its caller's stack pointer at the call) tells the runtime which pending
 * frames a longjmp left, whatever the size of the frames; the hooks alone
 * only have their own frame address. */
void rewrite_frame_hook(gimple_stmt_iterator *gsi, bool entry, tree blocks)
{
	static tree entry_fn, exit_fn;
	if (!entry_fn) {
		tree ptr = ptr_type_node;
		tree u64 = long_long_unsigned_type_node;
		entry_fn = build_fn_decl("__plumb_inp_func_entry",
					 build_function_type_list(void_type_node, ptr, ptr, u64, NULL_TREE));
		exit_fn = build_fn_decl("__plumb_inp_func_exit",
					build_function_type_list(void_type_node, ptr, u64, NULL_TREE));
		for (tree f : { entry_fn, exit_fn }) {
			TREE_PUBLIC(f) = 1;
			DECL_EXTERNAL(f) = 1;
			TREE_NOTHROW(f) = 1;
			DECL_ARTIFICIAL(f) = 1;
		}
	}
	gimple *old = gsi_stmt(*gsi);
	tree cfa = make_ssa_name(ptr_type_node);
	gcall *c = gimple_build_call(builtin_decl_explicit(BUILT_IN_DWARF_CFA), 0);
	gimple_call_set_lhs(c, cfa);
	gsi_insert_before(gsi, c, GSI_SAME_STMT);
	/* the blocks counted since the last flush come along (0 without a local) */
	tree n = build_int_cst(long_long_unsigned_type_node, 0);
	if (blocks) {
		n = load(gsi, blocks);
		gsi_insert_before(gsi, gimple_build_assign(blocks, build_int_cst(TREE_TYPE(n), 0)),
				  GSI_SAME_STMT);
	}
	gcall *hook = entry ? gimple_build_call(entry_fn, 3, gimple_call_arg(old, 0), cfa, n)
			    : gimple_build_call(exit_fn, 2, cfa, n);
	gimple_set_location(hook, gimple_location(old));
	gsi_replace(gsi, hook, false);
}

/* Blocks are counted in a local of the function (a register once
 * execute_update_addresses_taken has made it one) and added to the
 * thread's counter before each call: the entry and exit hooks, which read
 * the counter, are calls, as is every callee that could. One add to memory
 * per block instead would chain each block to the last through the
 * store-to-load latency. */
void add_one(gimple_stmt_iterator *gsi, tree var)
{
	tree u64 = long_long_unsigned_type_node;
	tree c = load(gsi, var);
	tree c1 = emit(gsi, u64, PLUS_EXPR, c, build_int_cst(u64, 1));
	gsi_insert_before(gsi, gimple_build_assign(var, c1), GSI_SAME_STMT);
}

void flush(gimple_stmt_iterator *gsi, tree local)
{
	tree u64 = long_long_unsigned_type_node;
	tree c = load(gsi, local), t = load(gsi, vars().cost);
	tree sum = emit(gsi, u64, PLUS_EXPR, t, c);
	gsi_insert_before(gsi, gimple_build_assign(vars().cost, sum), GSI_SAME_STMT);
	gsi_insert_before(gsi, gimple_build_assign(local, build_int_cst(u64, 0)), GSI_SAME_STMT);
}

/* The size of a __tsan_{read,write}N hook, and whether it
 * writes; 0 for any other call. */
unsigned access_size(tree fn, bool *write)
{
	static const struct {
		built_in_function code;
		unsigned size;
		bool write;
	} hooks[] = {
		{ BUILT_IN_TSAN_READ1, 1, false }, { BUILT_IN_TSAN_READ2, 2, false },
		{ BUILT_IN_TSAN_READ4, 4, false }, { BUILT_IN_TSAN_READ8, 8, false },
		{ BUILT_IN_TSAN_WRITE1, 1, true },
		{ BUILT_IN_TSAN_WRITE2, 2, true }, { BUILT_IN_TSAN_WRITE4, 4, true },
		{ BUILT_IN_TSAN_WRITE8, 8, true },
	};
	if (!fn || !fndecl_built_in_p(fn, BUILT_IN_NORMAL))
		return 0;
	for (const auto &h : hooks)
		if (DECL_FUNCTION_CODE(fn) == h.code) {
			*write = h.write;
			return h.size;
		}
	return 0;
}

/* var[slot], volatile */
tree slot_ref(tree var, tree slot)
{
	tree r = build4(ARRAY_REF, TREE_TYPE(TREE_TYPE(var)), var, slot, NULL_TREE, NULL_TREE);
	TREE_THIS_VOLATILE(r) = 1;
	TREE_SIDE_EFFECTS(r) = 1;
	return r;
}

/* *(type *) (ptr + off), volatile */
tree mem_at(tree type, tree ptr, int off)
{
	tree ptr_type = build_pointer_type(type);
	tree r = build2(MEM_REF, build_qualified_type(type, TYPE_QUAL_VOLATILE), ptr, build_int_cst(ptr_type, off));
	TREE_THIS_VOLATILE(r) = 1;
	TREE_SIDE_EFFECTS(r) = 1;
	return r;
}

/* The cells of an access of `size` bytes at a, in the cached leaf of its
 * address, and the top activation's id. */
struct cells {
	unsigned n;     /* 1 or 2: the first cell and the next */
	tree ref[2];    /* the cells (volatile u32 lvalues) */
	tree miss;      /* nonzero: not n whole cells of a cached leaf */
	tree off;       /* the first cell's offset in the leaf, in bytes */
	tree aid;
};

/* Emitted before gsi. Cells are 4 bytes (memres 4, the default: the
 * runtime keeps the cache empty for another): an access of 1, 2 or 4
 * bytes within one cell is one cell, an 8-byte access at a cell's start
 * not past the leaf's end two; anything else is a miss. The tag is
 * compared with ror (a, 2) >> 14 for accesses of 4 and 8 bytes, which is
 * a >> 16 when a is a cell's start and has bits past 48 set when not. The
 * first cell is masked into the leaf, and a leaf has a spare cell past its
 * end, always 0, so the loads stay in a mapped leaf even when the tag does
 * not match or the access misses. With check_end, an 8-byte access at the
 * leaf's last cell misses; without (a read's first look: the spare cell
 * makes its timestamp 0, below any activation's), the caller checks
 * leaf_end before it takes the cells. */
/* Whether an 8-byte access whose first cell is at off starts in the leaf's
 * last cell. */
tree leaf_end(gimple_stmt_iterator *gsi, tree off)
{
	tree u64 = long_long_unsigned_type_node;
	return emit(gsi, boolean_type_node, EQ_EXPR, off, build_int_cst(u64, 0xfffc));
}

cells locate(gimple_stmt_iterator *gsi, tree a, unsigned size, bool check_end)
{
	tls_vars &v = vars();
	tree u64 = long_long_unsigned_type_node, u32 = unsigned_type_node;
	cells c;
	tree page = size >= 4 ? emit(gsi, u64, RSHIFT_EXPR, emit(gsi, u64, RROTATE_EXPR, a, build_int_cst(u32, 2)),
				     build_int_cst(u32, 14))
			      : emit(gsi, u64, RSHIFT_EXPR, a, build_int_cst(u32, 16));
	tree slot = emit(gsi, u64, BIT_AND_EXPR, page, build_int_cst(u64, leaf_cache - 1));
	tree hi = load(gsi, slot_ref(v.tags, slot)), leaf = load(gsi, slot_ref(v.leaves, slot));
	c.aid = load(gsi, v.aid);
	c.miss = emit(gsi, u64, BIT_XOR_EXPR, page, hi);
	c.n = size == 8 ? 2 : 1;
	tree off = emit(gsi, u64, BIT_AND_EXPR, a, build_int_cst(u64, 0xfffc));
	tree far = NULL_TREE;
	c.off = off;
	if (size == 2) /* the last byte of a cell */
		far = emit(gsi, boolean_type_node, EQ_EXPR, emit(gsi, u64, BIT_AND_EXPR, a, build_int_cst(u64, 3)),
			   build_int_cst(u64, 3));
	else if (size == 8 && check_end)
		far = leaf_end(gsi, off);
	if (far)
		c.miss = emit(gsi, u64, BIT_IOR_EXPR, c.miss, emit(gsi, u64, NOP_EXPR, far));
	tree ptr_type = build_pointer_type(u32);
	tree cell = emit(gsi, ptr_type, NOP_EXPR, emit(gsi, u64, PLUS_EXPR, leaf, off));
	for (unsigned k = 0; k < c.n; k++) {
		c.ref[k] = build2(MEM_REF, build_qualified_type(u32, TYPE_QUAL_VOLATILE), cell,
				  build_int_cst(ptr_type, 4 * k));
		TREE_THIS_VOLATILE(c.ref[k]) = 1;
		TREE_SIDE_EFFECTS(c.ref[k]) = 1;
	}
	return c;
}

/* The cells' timestamps, loaded before gsi. */
void load_cells(gimple_stmt_iterator *gsi, const cells &c, tree olds[2])
{
	for (unsigned k = 0; k < c.n; k++) {
		olds[k] = make_ssa_name(unsigned_type_node);
		gsi_insert_before(gsi, gimple_build_assign(olds[k], unshare_expr(c.ref[k])), GSI_SAME_STMT);
	}
}

/* Put the fast path in front of the hook call at gsi; the call moves to a
 * block of its own taken on a miss. Returns the block after the call. */
basic_block rewrite_access(gimple_stmt_iterator *gsi, unsigned size, bool write)
{
	tls_vars &v = vars();
	tree u64 = long_long_unsigned_type_node, u32 = unsigned_type_node;
	gimple *call = gsi_stmt(*gsi);
	location_t loc = gimple_location(call);
	tree addr = gimple_call_arg(call, 0);

	tree a = emit(gsi, u64, NOP_EXPR, addr);
	cells c = locate(gsi, a, size, write);
	tree miss = c.miss, aid = c.aid;
	gcond *cond = gimple_build_cond(NE_EXPR, miss, build_int_cst(u64, 0), NULL_TREE, NULL_TREE);
	gimple_set_location(cond, loc);
	gsi_insert_before(gsi, cond, GSI_SAME_STMT);

	/* bb: ... cond | slow: call | join: the rest; the other blocks are
	 * made below, from bb's false edge */
	basic_block bb = gimple_bb(call);
	edge to_miss = split_block(bb, cond);
	basic_block slow = to_miss->dest;
	basic_block join = split_block(slow, call)->dest;
	profile_probability unlikely = profile_probability::unlikely();
	profile_count miss_count = bb->count.apply_probability(unlikely);
	slow->count = miss_count;
	auto block = [&](profile_count count) {
		basic_block b = create_empty_bb(slow);
		b->count = count;
		add_bb_to_loop(b, bb->loop_father);
		return b;
	};
	auto link = [&](basic_block from, basic_block to, int flags, profile_probability p) {
		edge e = make_edge(from, to, flags);
		e->probability = p;
	};
	auto branch = [&](gimple_stmt_iterator *g, tree_code code, tree x, tree y) {
		gcond *b = gimple_build_cond(code, x, y, NULL_TREE, NULL_TREE);
		gimple_set_location(b, loc);
		gsi_insert_before(g, b, GSI_SAME_STMT);
	};
	/* statements appended to an empty block (an iterator at its end) */
	auto put = [&](gimple_stmt_iterator *g, tree lhs, tree rhs) {
		gassign *st = gimple_build_assign(lhs, rhs);
		gimple_set_location(st, loc);
		gsi_insert_before(g, st, GSI_SAME_STMT);
	};
	to_miss->flags = EDGE_TRUE_VALUE;
	to_miss->probability = unlikely;
	if (write) {
		basic_block fast = block(bb->count.apply_probability(unlikely.invert()));
		gimple_stmt_iterator g = gsi_start_bb(fast);
		for (unsigned k = 0; k < c.n; k++)
			put(&g, unshare_expr(c.ref[k]), aid);
		link(bb, fast, EDGE_FALSE_VALUE, unlikely.invert());
		link(fast, join, EDGE_FALLTHRU, profile_probability::always());
		return join;
	}

	/* A read of cells new to the top activation that the caller, or the
	 * deeper ancestor the runtime found last, counted (inp_read_cell), one
	 * timestamp for both cells: stamped, added to the top frame's partial
	 * rms and taken off that ancestor's; anything else takes the hook.
	 * Only the cells' places stay live from the first look (registers for
	 * the program's values). */
	profile_probability half = profile_probability::even();
	profile_count half_count = miss_count.apply_probability(half);
	basic_block same = block(miss_count), by_caller = block(miss_count), by_hint = block(half_count);
	basic_block fast = block(miss_count);

	/* a leaf not cached (or a 2-byte access over a cell): the hook. Else
	 * each cell's timestamp against aid, a branch each (fewer values live
	 * than a min and a flag): below it, the cells are new to the top
	 * activation */
	profile_count hit_count = bb->count.apply_probability(unlikely.invert());
	basic_block look[2] = { block(hit_count), c.n == 2 ? block(hit_count) : NULL };
	link(bb, look[0], EDGE_FALSE_VALUE, unlikely.invert());
	for (unsigned k = 0; k < c.n; k++) {
		gimple_stmt_iterator g = gsi_start_bb(look[k]);
		tree o = make_ssa_name(u32);
		put(&g, o, unshare_expr(c.ref[k]));
		branch(&g, LT_EXPR, o, aid);
		link(look[k], same, EDGE_TRUE_VALUE, unlikely);
		link(look[k], k + 1 < c.n ? look[k + 1] : join, EDGE_FALSE_VALUE, unlikely.invert());
	}

	/* same: one or two cells (of the cached leaf) with one timestamp */
	gimple_stmt_iterator g = gsi_start_bb(same);
	tree olds2[2];
	load_cells(&g, c, olds2);
	tree old = emit(&g, u64, NOP_EXPR, olds2[0]);
	if (c.n == 2) {
		tree bad = emit(&g, u64, NOP_EXPR, leaf_end(&g, c.off));
		bad = emit(&g, u64, BIT_IOR_EXPR, bad, emit(&g, u64, NOP_EXPR, emit(&g, u32, BIT_XOR_EXPR, olds2[0], olds2[1])));
		branch(&g, NE_EXPR, bad, build_int_cst(u64, 0));
		link(same, slow, EDGE_TRUE_VALUE, unlikely);
		link(same, by_caller, EDGE_FALSE_VALUE, unlikely.invert());
	} else
		link(same, by_caller, EDGE_FALLTHRU, profile_probability::always());

	/* by_caller: the caller counted them; its partial is the frame's
	 * below the top's */
	g = gsi_start_bb(by_caller);
	tree top = emit(&g, ptr_type_node, NOP_EXPR, load(&g, slot_ref(v.fast, build_int_cst(u64, FAST_TOP))));
	tree caller_aid = emit(&g, u64, NOP_EXPR, load(&g, mem_at(u32, top, -frame_size)));
	tree caller_partial = emit(&g, ptr_type_node, POINTER_PLUS_EXPR, top, size_int(frame_partial - frame_size));
	branch(&g, GE_EXPR, old, caller_aid);
	edge from_caller = make_edge(by_caller, fast, EDGE_TRUE_VALUE);
	from_caller->probability = half;
	link(by_caller, by_hint, EDGE_FALSE_VALUE, half);

	/* by_hint: hint_lo <= old < hint_lo + hint_span */
	g = gsi_start_bb(by_hint);
	tree lo = load(&g, slot_ref(v.fast, build_int_cst(u64, FAST_HINT_LO)));
	tree span = load(&g, slot_ref(v.fast, build_int_cst(u64, FAST_HINT_SPAN)));
	tree hint_partial = emit(&g, ptr_type_node, NOP_EXPR,
				 load(&g, slot_ref(v.fast, build_int_cst(u64, FAST_HINT_PARTIAL))));
	branch(&g, LT_EXPR, emit(&g, u64, MINUS_EXPR, old, lo), span);
	edge from_hint = make_edge(by_hint, fast, EDGE_TRUE_VALUE);
	from_hint->probability = half;
	link(by_hint, slow, EDGE_FALSE_VALUE, half);

	/* fast: stamp, count for the top, take off the ancestor's partial */
	tree target = make_ssa_name(ptr_type_node);
	gphi *phi = create_phi_node(target, fast);
	add_phi_arg(phi, caller_partial, from_caller, loc);
	add_phi_arg(phi, hint_partial, from_hint, loc);
	auto add_to = [&](gimple_stmt_iterator *gi, tree ref, tree_code code, tree n) {
		tree x = make_ssa_name(u64), y = make_ssa_name(u64);
		put(gi, x, ref);
		put(gi, y, build2(code, u64, x, n));
		put(gi, unshare_expr(ref), y);
	};
	g = gsi_start_bb(fast);
	tree w = build_int_cst(u64, c.n);
	tree now = load(&g, v.aid);
	for (unsigned k = 0; k < c.n; k++)
		put(&g, unshare_expr(c.ref[k]), now);
	add_to(&g, mem_at(u64, top, frame_partial), PLUS_EXPR, w);
	add_to(&g, mem_at(u64, target, 0), MINUS_EXPR, w);
	link(fast, join, EDGE_FALLTHRU, profile_probability::always());
	return join;
}

unsigned int instrument(function *fun)
{
	tree u64 = long_long_unsigned_type_node;
	/* setjmp and nonlocal labels make abnormal edges: count in memory there */
	tree local = NULL_TREE;
	if (!fun->calls_setjmp && !fun->has_nonlocal_label) {
		local = create_tmp_var(u64, "plumb_blocks");
		DECL_NOT_GIMPLE_REG_P(local) = 1;
		gsi_insert_on_edge_immediate(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun)),
					     gimple_build_assign(local, build_int_cst(u64, 0)));
	}
	bool changed = false;
	basic_block bb;
	/* blocks made here are visited too, and have no hook calls */
	FOR_EACH_BB_FN(bb, fun) {
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);) {
			gimple *g = gsi_stmt(gsi);
			if (gimple_code(g) == GIMPLE_RETURN && local) {
				/* the blocks counted after the exit hook (sancov puts
				 * some there) go to the caller, as the hooks alone do */
				flush(&gsi, local);
				gsi_next(&gsi);
				continue;
			}
			if (!is_gimple_call(g) || gimple_call_internal_p(g)) {
				gsi_next(&gsi);
				continue;
			}
			tree fn = gimple_call_fndecl(g);
			bool write = false;
			unsigned size;
			if (fn && fndecl_built_in_p(fn, BUILT_IN_SANITIZER_COV_TRACE_PC)) {
				add_one(&gsi, local ? local : vars().cost);
				unlink_stmt_vdef(g);
				gsi_remove(&gsi, true);
				changed = true;
			} else if (fn && gimple_call_num_args(g) == 1 && (size = access_size(fn, &write))) {
				basic_block join = rewrite_access(&gsi, size, write);
				changed = true;
				/* continue in the block after the call */
				bb = join;
				gsi = gsi_start_bb(bb);
			} else if (fn && (fndecl_built_in_p(fn, BUILT_IN_TSAN_FUNC_ENTRY) ||
					  fndecl_built_in_p(fn, BUILT_IN_TSAN_FUNC_EXIT))) {
				rewrite_frame_hook(&gsi, fndecl_built_in_p(fn, BUILT_IN_TSAN_FUNC_ENTRY), local);
				changed = true;
				gsi_next(&gsi);
			} else {
				/* every call that may run code flushes */
				if (local && !(fn && (fndecl_built_in_p(fn, BUILT_IN_RETURN_ADDRESS) ||
						      fndecl_built_in_p(fn, BUILT_IN_FRAME_ADDRESS) ||
						      fndecl_built_in_p(fn, BUILT_IN_DWARF_CFA))))
					flush(&gsi, local);
				gsi_next(&gsi);
			}
		}
	}
	free_dominance_info(CDI_DOMINATORS);
	free_dominance_info(CDI_POST_DOMINATORS);
	mark_virtual_operands_for_renaming(fun);
	update_ssa(TODO_update_ssa_only_virtuals);
	if (local)
		execute_update_addresses_taken();
	return changed ? TODO_cleanup_cfg : 0;
}

const pass_data inline_pass_data = {
	GIMPLE_PASS, "plumb_inputs", OPTGROUP_NONE, TV_NONE,
	PROP_ssa | PROP_cfg, 0, 0, 0, 0,
};

struct inline_pass : gimple_opt_pass {
	bool at_O0; /* after -O0's tsan pass, which runs only then */
	inline_pass(gcc::context *ctx, bool o0) : gimple_opt_pass(inline_pass_data, ctx), at_O0(o0) {}
	opt_pass *clone() override { return new inline_pass(m_ctxt, at_O0); }
	bool gate(function *) override { return (flag_sanitize & SANITIZE_THREAD) && at_O0 == !optimize; }
	unsigned int execute(function *fun) override { return instrument(fun); }
};

} // namespace

int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version)
{
	if (!plugin_default_version_check(version, &gcc_version)) {
		error("%s: built for gcc %s, not this compiler (%s); %<PLUMB_INPUTS_PLUGIN=no%> builds without it",
		      info->base_name, gcc_version.basever, version->basever);
		return 1;
	}
	/* after every instance of the optimising pipelines' tsan, and -O0's */
	for (const char *ref : { "tsan", "tsan0" }) {
		struct register_pass_info pass;
		pass.pass = new inline_pass(g, !strcmp(ref, "tsan0"));
		pass.reference_pass_name = ref;
		pass.ref_pass_instance_number = 0;
		pass.pos_op = PASS_POS_INSERT_AFTER;
		register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass);
	}
	return 0;
}
