/* An object's ELF symbols sorted by address, read once, for the
 * symbolizer: dwfl_module_addrinfo walks the whole symbol table at every
 * call (0.7 ms an address on cc1plus, 96% of recording g++), this answers
 * in a binary search and a short walk back.
 *
 * The choice is libdwfl's (dwfl_module_addrsym.c): of the defined, named
 * symbols at or below the address (no section, file or TLS symbols), the
 * one with the highest value whose size covers it, a stronger binding
 * winning a tie (global, unique, weak, local), the earlier in the table
 * after that; when no sized symbol covers it, the nearest sizeless one (an
 * assembly label) at or above the end of every sized symbol below it. */
#include <stdlib.h>
#include <string.h>

#include "plumb/symbols.h"
#include "symbols/symbol_table.h"

typedef struct table_sym {
	uint64_t start;
	uint64_t size;          /* 0: sizeless (a label) */
	uint64_t max_end;       /* the highest start + size of this and all below it */
	const char *name;       /* in the ELF string table (lives as long as the module) */
	uint32_t index;         /* position in the symbol table: the last tie-break */
	uint32_t shndx;         /* its section (SHN_ABS and the like: >= SHN_LORESERVE) */
	uint8_t binding;        /* higher is preferred */
} table_sym;

typedef struct sym_list {
	table_sym *v;
	size_t n;
} sym_list;

typedef struct section_range {
	uint64_t start, end;
	uint32_t index;
} section_range;

/* libdwfl searches the global symbols first and the local ones only when
 * no sized global covers the address: two lists. */
struct plumb_symbol_table {
	sym_list global, local;
	section_range *sec;     /* allocated sections by address */
	size_t nsec;
};

static uint8_t binding_rank(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

static int by_start(const void *a, const void *b)
{
	const table_sym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int sec_by_start(const void *a, const void *b)
{
	const section_range *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void finish(sym_list *l)
{
	qsort(l->v, l->n, sizeof *l->v, by_start);
	uint64_t hi = 0;
	for (size_t i = 0; i < l->n; i++) {
		uint64_t end = l->v[i].start + l->v[i].size;
		hi = end > hi ? end : hi;
		l->v[i].max_end = hi;
	}
}

static int read_sections(plumb_symbol_table *t, Dwfl_Module *mod)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t n;
	if (!elf || elf_getshdrnum(elf, &n) || n == 0)
		return 0;
	if (!(t->sec = malloc(n * sizeof *t->sec)))
		return -1;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && sh.sh_size)
			t->sec[t->nsec++] = (section_range){ sh.sh_addr + bias, sh.sh_addr + bias + sh.sh_size,
							     (uint32_t)elf_ndxscn(scn) };
	}
	qsort(t->sec, t->nsec, sizeof *t->sec, sec_by_start);
	return 0;
}

plumb_symbol_table *plumb_symbol_table_new(Dwfl_Module *mod)
{
	plumb_symbol_table *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	int n = dwfl_module_getsymtab(mod);
	int first_global = dwfl_module_getsymtab_first_global(mod);
	if (n <= 1 || first_global < 0)
		return t; /* no symbols: every lookup misses */
	if (first_global == 0) /* only the dynamic symbols: no locals pass */
		first_global = 1;
	t->global.v = malloc((size_t)n * sizeof *t->global.v);
	t->local.v = malloc((size_t)n * sizeof *t->local.v);
	if (!t->global.v || !t->local.v || read_sections(t, mod)) {
		plumb_symbol_table_free(t);
		return NULL;
	}
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &value, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
		    type == STT_FILE || type == STT_TLS)
			continue;
		sym_list *l = i < first_global ? &t->local : &t->global;
		l->v[l->n++] = (table_sym){ .start = value, .size = sym.st_size, .name = name,
					    .index = (uint32_t)i, .shndx = shndx,
					    .binding = binding_rank(sym.st_info) };
	}
	finish(&t->global);
	finish(&t->local);
	return t;
}

void plumb_symbol_table_free(plumb_symbol_table *t)
{
	if (!t)
		return;
	free(t->global.v);
	free(t->local.v);
	free(t->sec);
	free(t);
}

/* a is preferred to b (both cover the address at the same start): the
 * stronger binding, then the smaller, then the earlier in the table */
static bool better(const table_sym *a, const table_sym *b)
{
	if (a->binding != b->binding)
		return a->binding > b->binding;
	if (a->size != b->size)
		return a->size < b->size;
	return a->index < b->index;
}

/* The covering sized symbol with the highest start, or NULL. */
static const table_sym *sized_at(const sym_list *l, uint64_t addr)
{
	ptrdiff_t i = PLUMB_ADDR_SEARCH(l->v, l->n, start, addr);
	const table_sym *best = NULL;
	/* walk down while some symbol at or below could still cover addr */
	for (ptrdiff_t j = i; j >= 0 && l->v[j].max_end > addr; j--) {
		const table_sym *s = &l->v[j];
		if (best && s->start != best->start)
			break; /* a lower start does not beat the covering one found */
		if (s->size && addr - s->start < s->size && (!best || better(s, best)))
			best = s;
	}
	return best;
}

/* The section holding addr as libdwfl finds it for this choice: the first
 * allocated section, in section order, whose range holds addr, its end
 * included (libdwfl's lookup names .init at the byte just past it). */
static uint32_t section_of(const plumb_symbol_table *t, uint64_t addr)
{
	ptrdiff_t i = PLUMB_ADDR_SEARCH(t->sec, t->nsec, start, addr);
	uint32_t best = SHN_UNDEF;
	/* sections end where the next starts: the one before may hold addr too */
	for (ptrdiff_t j = i; j >= 0 && j >= i - 2; j--)
		if (addr <= t->sec[j].end && (best == SHN_UNDEF || t->sec[j].index < best))
			best = t->sec[j].index;
	return best;
}

/* The nearest label (sizeless symbol) at or below addr in addr's section
 * (an absolute one only at addr itself), the later in the table winning a
 * tie as in libdwfl; *min_label: the end of the symbols below. */
static const table_sym *label_at(const plumb_symbol_table *t, const sym_list *l, uint64_t addr,
				 uint64_t *min_label)
{
	ptrdiff_t i = PLUMB_ADDR_SEARCH(l->v, l->n, start, addr);
	if (i < 0)
		return NULL;
	if (l->v[i].max_end > *min_label)
		*min_label = l->v[i].max_end;
	uint32_t sec = section_of(t, addr);
	for (ptrdiff_t j = i; j >= 0; j--) {
		const table_sym *s = &l->v[j];
		if (s->size)
			return NULL; /* a sized symbol ends above any label below it */
		bool same = s->shndx >= SHN_LORESERVE ? s->start == addr : section_of(t, s->start) == sec;
		if (!same)
			continue;
		/* the last of the labels at this start */
		const table_sym *last = s;
		for (ptrdiff_t k = j - 1; k >= 0 && l->v[k].start == s->start; k--)
			if (!l->v[k].size && l->v[k].index > last->index)
				last = &l->v[k];
		return last;
	}
	return NULL;
}

const char *plumb_symbol_table_find(const plumb_symbol_table *t, uint64_t addr)
{
	const table_sym *s = sized_at(&t->global, addr);
	if (s)
		return s->name;
	uint64_t min_label = 0;
	const table_sym *label = label_at(t, &t->global, addr, &min_label);
	/* locals only when no sized global covers addr and no global label sits on it */
	if (!label || label->start != addr) {
		if ((s = sized_at(&t->local, addr)))
			return s->name;
		const table_sym *local = label_at(t, &t->local, addr, &min_label);
		if (local && (!label || local->start > label->start))
			label = local;
	}
	return label && label->start >= min_label ? label->name : NULL;
}
