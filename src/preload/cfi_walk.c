/* A fast stack walk from the binaries' .eh_frame, for the heap tracer's
 * stacks. libgcc's _Unwind_Backtrace reinterprets each frame's CFI program
 * at every walk (about 100 ns a frame): 55% of a cc1plus run traced with
 * --heap went there. Here each return address's frame is reduced once to
 * a recipe -- where the CFA is (rsp or rbp plus an offset), whether the
 * caller's rbp was saved and where -- and kept in a process-wide lock-free
 * table, as libunwind's fast trace (and so heaptrack) does. A walk is then
 * a table probe and two loads per frame.
 *
 * The FDE of an address comes from libgcc (_Unwind_Find_FDE, which knows
 * every loaded object); its CIE and instructions are read here. Anything
 * this does not follow -- no FDE, a signal frame, DWARF expressions, a
 * return address not at CFA-8 -- makes the walk give up, and the caller
 * uses libgcc's walk, so a stack is never guessed. */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "preload/cfi_walk.h"
#include "preload/heap.h"

struct dwarf_eh_bases {
	void *tbase, *dbase, *func;
};
extern const void *_Unwind_Find_FDE(void *pc, struct dwarf_eh_bases *bases);

/* recipe bits */
#define R_VALID 1u
#define R_END 2u           /* the return address is undefined: outermost frame */
#define R_CFA_RBP 4u       /* CFA = rbp + off, else rsp + off */
#define R_RBP_SAVED 8u     /* the caller's rbp at CFA + rbp_off */

#define TAB_BITS 16
#define TAB_PROBES 16

/* key and recipe side by side: a probe is one cache line */
struct slot {
	_Atomic uint64_t key;   /* return address; 0 empty, 1 being written */
	uint64_t val;
};
static struct slot *tab;
static atomic_uint_fast64_t gen = 1;   /* +1 at each forget: the near copies go */

int cfi_walk_init(void)
{
	if (!tab)
		tab = heap_raw_map(((size_t)1 << TAB_BITS) * sizeof *tab);
	return tab ? 0 : -1;
}

void cfi_walk_forget(void)
{
	if (!tab)
		return;
	atomic_fetch_add(&gen, 1);
	for (size_t i = 0; i < ((size_t)1 << TAB_BITS); i++) {
		if (atomic_load_explicit(&tab[i].key, memory_order_relaxed) < 2)
			continue;
		tab[i].val = 0;   /* a walk reading it now gives up */
		atomic_store_explicit(&tab[i].key, 0, memory_order_release);
	}
}

/* ---- reading the CFI --------------------------------------------------------- */

struct rd {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t uleb(struct rd *r)
{
	uint64_t v = 0;
	for (unsigned s = 0; r->p < r->end; s += 7) {
		uint8_t b = *r->p++;
		if (s < 64)
			v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return v;
	}
	r->bad = 1;
	return 0;
}

static int64_t sleb(struct rd *r)
{
	int64_t v = 0;
	unsigned s = 0;
	uint8_t b = 0x80;
	while (r->p < r->end && (b & 0x80)) {
		b = *r->p++;
		if (s < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << s);
		s += 7;
	}
	if (b & 0x80)
		r->bad = 1;
	else if (s < 64 && (b & 0x40))
		v |= -((int64_t)1 << s);
	return v;
}

static void skip(struct rd *r, uint64_t n)
{
	if (n > (uint64_t)(r->end - r->p))
		r->bad = 1;
	else
		r->p += n;
}

/* The size of a pointer in encoding enc (DW_EH_PE_*), 0 if unknown. */
static unsigned enc_size(uint8_t enc)
{
	if (enc == 0xff)
		return 0;
	switch (enc & 0x0f) {
	case 0x00: return 8;   /* absptr */
	case 0x02: case 0x0a: return 2;
	case 0x03: case 0x0b: return 4;
	case 0x04: case 0x0c: return 8;
	default: return 0;     /* uleb/sleb pointers: not in practice */
	}
}

struct rule {
	int cfa_rbp;           /* CFA register: rbp, else rsp */
	int64_t cfa_off;
	int rbp_saved;
	int64_t rbp_off;
	int ra_ok, ra_undef;
};

#define STATES 8

/* Run CFI instructions until the location passes pc. 0, or -1 when they
 * do something a recipe cannot say. */
static int run(struct rd *r, uint64_t *loc, uint64_t pc, struct rule *st, const struct rule *init,
	       uint64_t code_align, int64_t data_align)
{
	struct rule saved[STATES];
	int depth = 0;
	while (r->p < r->end && !r->bad) {
		uint8_t op = *r->p++, lo = op & 0x3f;
		uint64_t reg, delta = 0;
		int64_t off;
		switch (op >> 6) {
		case 1:
			delta = lo * code_align;
			goto advance;
		case 2:
			off = (int64_t)uleb(r) * data_align;
			goto offset_lo;
		case 3:
			if (lo == 6) {
				st->rbp_saved = init->rbp_saved;
				st->rbp_off = init->rbp_off;
			} else if (lo == 16) {
				st->ra_ok = init->ra_ok;
				st->ra_undef = init->ra_undef;
			}
			continue;
		}
		switch (op) {
		case 0x00: /* nop */
			continue;
		case 0x02:
			if (r->p + 1 > r->end)
				return -1;
			delta = *r->p++ * code_align;
			goto advance;
		case 0x03:
			if (r->p + 2 > r->end)
				return -1;
			delta = (uint64_t)(r->p[0] | r->p[1] << 8) * code_align;
			r->p += 2;
			goto advance;
		case 0x04: {
			if (r->p + 4 > r->end)
				return -1;
			uint32_t d;
			memcpy(&d, r->p, 4);
			r->p += 4;
			delta = d * code_align;
			goto advance;
		}
		case 0x05: /* offset_extended */
			reg = uleb(r);
			off = (int64_t)uleb(r) * data_align;
			goto offset;
		case 0x11: /* offset_extended_sf */
			reg = uleb(r);
			off = sleb(r) * data_align;
			goto offset;
		case 0x06: /* restore_extended */
			reg = uleb(r);
			if (reg == 6) {
				st->rbp_saved = init->rbp_saved;
				st->rbp_off = init->rbp_off;
			} else if (reg == 16) {
				st->ra_ok = init->ra_ok;
				st->ra_undef = init->ra_undef;
			}
			continue;
		case 0x07: /* undefined */
		case 0x08: /* same_value */
			reg = uleb(r);
			if (reg == 16) {
				if (op == 0x08)
					return -1;
				st->ra_undef = 1;
				st->ra_ok = 0;
			} else if (reg == 6) {
				st->rbp_saved = 0;
			}
			continue;
		case 0x09: /* register */
			reg = uleb(r);
			uleb(r);
			if (reg == 6 || reg == 16 || reg == 7)
				return -1;
			continue;
		case 0x0a:
			if (depth == STATES)
				return -1;
			saved[depth++] = *st;
			continue;
		case 0x0b:
			if (depth == 0)
				return -1;
			*st = saved[--depth];
			continue;
		case 0x0c: /* def_cfa */
			reg = uleb(r);
			st->cfa_off = (int64_t)uleb(r);
			goto cfa_reg;
		case 0x12: /* def_cfa_sf */
			reg = uleb(r);
			st->cfa_off = sleb(r) * data_align;
			goto cfa_reg;
		case 0x0d: /* def_cfa_register */
			reg = uleb(r);
			goto cfa_reg;
		case 0x0e: /* def_cfa_offset */
			st->cfa_off = (int64_t)uleb(r);
			continue;
		case 0x13: /* def_cfa_offset_sf */
			st->cfa_off = sleb(r) * data_align;
			continue;
		case 0x0f: /* def_cfa_expression */
			return -1;
		case 0x10: /* expression */
		case 0x16: /* val_expression */
			reg = uleb(r);
			if (reg == 6 || reg == 7 || reg == 16)
				return -1;
			skip(r, uleb(r));
			continue;
		case 0x14: /* val_offset */
			reg = uleb(r);
			uleb(r);
			if (reg == 6 || reg == 7 || reg == 16)
				return -1;
			continue;
		case 0x15: /* val_offset_sf */
			reg = uleb(r);
			sleb(r);
			if (reg == 6 || reg == 7 || reg == 16)
				return -1;
			continue;
		case 0x2e: /* GNU_args_size */
			uleb(r);
			continue;
		case 0x2f: /* GNU_negative_offset_extended */
			reg = uleb(r);
			off = -(int64_t)uleb(r) * data_align;
			goto offset;
		default:   /* set_loc and the rest */
			return -1;
		}
	advance:
		if (*loc + delta > pc)
			return 0;
		*loc += delta;
		continue;
	offset_lo:
		reg = lo;
	offset:
		if (reg == 6) {
			st->rbp_saved = 1;
			st->rbp_off = off;
		} else if (reg == 16) {
			st->ra_ok = off == -8;
			st->ra_undef = 0;
		} else if (reg == 7) {
			return -1;
		}
		continue;
	cfa_reg:
		if (reg != 6 && reg != 7)
			return -1;
		st->cfa_rbp = reg == 6;
		continue;
	}
	return r->bad ? -1 : 0;
}

/* The recipe of the frame executing at pc (a return address minus one, or
 * a place in our own code); 0 if there is none to be had. */
static uint64_t make_recipe(uint64_t pc)
{
	struct dwarf_eh_bases b;
	const uint8_t *fde = _Unwind_Find_FDE((void *)(uintptr_t)pc, &b);
	if (!fde)
		return 0;
	uint32_t len, cie_off;
	memcpy(&len, fde, 4);
	if (len == 0 || len == 0xffffffffu)
		return 0;
	memcpy(&cie_off, fde + 4, 4);
	const uint8_t *cie = fde + 4 - cie_off;
	uint32_t clen;
	memcpy(&clen, cie, 4);
	if (clen == 0 || clen == 0xffffffffu)
		return 0;
	struct rd r = { cie + 8, cie + 4 + clen, 0 };
	if (r.p >= r.end)
		return 0;
	uint8_t version = *r.p++;
	const char *aug = (const char *)r.p;
	size_t alen = strnlen(aug, (size_t)(r.end - r.p));
	skip(&r, alen + 1);
	uint64_t code_align = uleb(&r);
	int64_t data_align = sleb(&r);
	uint64_t ra_col = version == 1 ? (r.p < r.end ? *r.p++ : 0) : uleb(&r);
	uint8_t fde_enc = 0;
	if (ra_col != 16 || aug[0] != 'z')
		return 0;
	uint64_t aug_len = uleb(&r);
	const uint8_t *aug_end = r.p + aug_len;
	for (size_t i = 1; i < alen && !r.bad; i++) {
		switch (aug[i]) {
		case 'R':
			fde_enc = r.p < r.end ? *r.p++ : 0;
			break;
		case 'L':
			skip(&r, 1);
			break;
		case 'P': {
			uint8_t e = r.p < r.end ? *r.p++ : 0xff;
			unsigned s = enc_size(e);
			if (!s)
				return 0;
			skip(&r, s);
			break;
		}
		default:   /* 'S' (a signal frame) and anything unknown */
			return 0;
		}
	}
	if (r.bad || aug_end > r.end)
		return 0;
	r.p = aug_end;
	struct rule init = { 0, 8, 0, 0, 1, 0 }, st;
	uint64_t loc = 0;   /* relative to the function's start */
	uint64_t rel = pc - (uint64_t)(uintptr_t)b.func;
	/* the CIE's initial instructions apply from the start */
	st = init;
	if (run(&r, &loc, UINT64_MAX, &st, &init, code_align, data_align))
		return 0;
	init = st;
	unsigned ps = enc_size(fde_enc);
	if (!ps)
		return 0;
	struct rd f = { fde + 8 + 2 * ps, fde + 4 + len, 0 };
	skip(&f, uleb(&f));   /* the FDE's augmentation data */
	loc = 0;
	if (f.bad || run(&f, &loc, rel, &st, &init, code_align, data_align))
		return 0;
	if (st.ra_undef)
		return R_VALID | R_END;
	if (!st.ra_ok || st.cfa_off <= 0 || st.cfa_off > INT32_MAX ||
	    (st.rbp_saved && (st.rbp_off < INT16_MIN || st.rbp_off > INT16_MAX)))
		return 0;
	return R_VALID | (st.cfa_rbp ? R_CFA_RBP : 0) | (st.rbp_saved ? R_RBP_SAVED : 0) |
	       (uint64_t)(uint16_t)(int16_t)st.rbp_off << 16 | (uint64_t)st.cfa_off << 32;
}

/* The recipe for the frame whose code address is ip (key), found at pc. */
static uint64_t recipe(uint64_t ip, uint64_t pc)
{
	size_t mask = ((size_t)1 << TAB_BITS) - 1;
	size_t h = (size_t)((ip * 0x9e3779b97f4a7c15u) >> (64 - TAB_BITS));
	for (size_t k = 0, i = h; k < TAB_PROBES; k++, i = (i + 1) & mask) {
		uint64_t key = atomic_load_explicit(&tab[i].key, memory_order_acquire);
		if (key == ip)
			return tab[i].val;
		if (key == 0)
			break;
	}
	uint64_t v = make_recipe(pc);
	/* remember it (also "none": 0 with R_VALID clear is kept as 0) */
	for (size_t k = 0, i = h; k < TAB_PROBES; k++, i = (i + 1) & mask) {
		uint64_t zero = 0;
		if (atomic_compare_exchange_strong(&tab[i].key, &zero, 1)) {
			tab[i].val = v;
			atomic_store_explicit(&tab[i].key, ip, memory_order_release);
			break;
		}
		if (zero == ip)
			break;
	}
	return v;
}

/* The recipe for ip, from the thread's copy when it has it. */
static inline uint64_t near_recipe(struct cfi_near *near, uint64_t ip)
{
	if (!near)
		return recipe(ip, ip - 1);
	size_t i = (size_t)((ip * 0x9e3779b97f4a7c15u) >> 54) & (CFI_NEAR - 1);
	if (near->e[i].key == ip)
		return near->e[i].val;
	uint64_t v = recipe(ip, ip - 1);
	near->e[i].key = ip;
	near->e[i].val = v;
	return v;
}

/* ---- the walk ---------------------------------------------------------------- */

/* One frame out: from the frame executing at *ip with stack pointer *sp
 * (and rbp *bp) to its caller's. 1 stepped, 0 the outermost frame was
 * left (no caller), -1 a frame the recipes cannot follow. */
static inline int step_out(struct cfi_near *near, uint64_t *ip, uint64_t *sp, uint64_t *bp)
{
	uint64_t v = near_recipe(near, *ip);
	if (!(v & R_VALID))
		return -1;    /* libgcc's walk decides */
	if (v & R_END)
		return 0;
	uint64_t cfa = ((v & R_CFA_RBP) ? *bp : *sp) + (v >> 32);
	if (cfa <= *sp || cfa - *sp > ((uint64_t)1 << 24))
		return -1;    /* not a stack: libgcc's walk decides */
	uint64_t next = *(const uint64_t *)(uintptr_t)(cfa - 8);
	if (v & R_RBP_SAVED)
		*bp = *(const uint64_t *)(uintptr_t)(cfa + (int64_t)(int16_t)(uint16_t)(v >> 16));
	*sp = cfa;
	*ip = next;
	return next != 0;
}

static void near_check(struct cfi_near *near)
{
	if (near) {
		uint64_t g = atomic_load_explicit(&gen, memory_order_acquire);
		if (near->gen != g) {
			memset(near->e, 0, sizeof near->e);
			near->gen = g;
		}
	}
}


uint64_t cfi_ret_slot(struct cfi_near *near, uint64_t ra, uint64_t sp, uint64_t bp)
{
	if (!tab)
		return 0;
	near_check(near);
	uint64_t v = near_recipe(near, ra);
	if (!(v & R_VALID) || (v & R_END))
		return 0;
	uint64_t cfa = ((v & R_CFA_RBP) ? bp : sp) + (v >> 32);
	if (cfa <= sp || cfa - sp > ((uint64_t)1 << 24))
		return 0;
	return cfa - 8;
}
__attribute__((noinline)) unsigned cfi_walk(uint64_t ra, uint64_t sp0, uint64_t *ips, uint64_t *sps,
					   unsigned max, int *truncated, struct cfi_near *near)
{
	uint64_t ip, sp, bp;
	/* where we are: our own frame is walked like any other */
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(ip), "=r"(sp), "=r"(bp));
	if (!tab)
		return 0;
	near_check(near);
	unsigned n = 0, own = 0;
	int started = 0;
	*truncated = 0;
	for (;;) {
		if (!started && ip == ra && sp == sp0)
			started = 1;
		if (started) {
			if (n == max) {
				*truncated = 1;
				return n;
			}
			ips[n] = ip;
			sps[n] = sp;
			n++;
		} else if (++own > 16) {
			return 0;
		}
		int r = step_out(near, &ip, &sp, &bp);
		if (r <= 0)
			return r == 0 && started ? n : 0;
	}
}

int cfi_walk_join(uint64_t ra, uint64_t sp0, uint64_t bp0, uint64_t *ips, uint64_t *sps,
		  unsigned max, int *truncated, struct cfi_near *near, const uint64_t *pips,
		  const uint64_t *psps, unsigned pn, unsigned *join)
{
	if (!tab)
		return -1;
	near_check(near);
	uint64_t ip = ra, sp = sp0, bp = bp0;
	/* q: the innermost frame of the old stack not inside the new one's
	 * frame; below: old frames whose outer slots were found changed */
	unsigned n = 0, q = pn, below = pn;
	*truncated = 0;
	*join = UINT32_MAX;
	for (;;) {
		while (q > 0 && psps[q - 1] < sp)
			q--;
		if (q > 0 && q - 1 < below && psps[q - 1] == sp && pips[q - 1] == ip) {
			/* the same frame at the same place: the same callers, if
			 * their return addresses are all still in their slots */
			unsigned i = q - 1;
			while (i > 0 && *(const uint64_t *)(uintptr_t)(psps[i - 1] - 8) == pips[i - 1])
				i--;
			if (i == 0) {
				*join = q - 1;
				return (int)n;
			}
			below = i - 1;   /* changed from old frame i - 1 out */
		}
		if (n == max) {
			*truncated = 1;
			return (int)n;
		}
		ips[n] = ip;
		sps[n] = sp;
		n++;
		int r = step_out(near, &ip, &sp, &bp);
		if (r < 0)
			return -1;
		if (r == 0)
			return (int)n;
	}
}
