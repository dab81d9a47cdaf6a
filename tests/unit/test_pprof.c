/* pprof: reading every message of a crafted profile.proto (events and the
 * default sample type, inlined lines, mappings, functions, thread labels,
 * drop_frames, metadata), damaged files named by byte offset, detection,
 * and write-read round trips (CCT and call graph). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "formats/pprof_internal.h"
#include "formats/pprof_profile.pb-c.h"
#include "plumb/formats.h"

static char dir[] = "/tmp/plumb-pprof-XXXXXX";
static char path[sizeof dir + 32], out[sizeof dir + 32];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/in.pb", dir);
	snprintf(out, sizeof out, "%s/out.pb.gz", dir);
}

static void teardown(void)
{
	unlink(path);
	unlink(out);
	rmdir(dir);
}

TestSuite(pprof, .init = setup, .fini = teardown);

/* ---- a crafted profile ------------------------------------------------- */

static char *strs[] = { "", "samples", "count", "cpu", "nanoseconds", "main", "_Z4mainv",
			"main.c", "helper", "inl", "/bin/app", "abc123", "thread_id", "thread",
			"worker", "drop_me", "a comment", "span", "x" };

typedef struct crafted {
	Perftools__Profiles__Profile pb;
	Perftools__Profiles__ValueType vt[3], *vtp[2];
	Perftools__Profiles__Function fn[4], *fnp[4];
	Perftools__Profiles__Mapping map, *mapp[1];
	Perftools__Profiles__Line ln[5], *lnp[5];
	Perftools__Profiles__Location loc[3], *locp[3];
	Perftools__Profiles__Label lab[5], *labp[5];
	Perftools__Profiles__Sample s[3], *sp[3];
	uint64_t ids[3][3];
	int64_t vals[3][2], comment;
} crafted;

static void vt(Perftools__Profiles__ValueType *v, int64_t type, int64_t unit)
{
	perftools__profiles__value_type__init(v);
	v->type = type;
	v->unit = unit;
}

static void fn(Perftools__Profiles__Function *f, uint64_t id, int64_t name, int64_t sys,
	       int64_t file, int64_t start)
{
	perftools__profiles__function__init(f);
	f->id = id, f->name = name, f->system_name = sys, f->filename = file, f->start_line = start;
}

static void line(Perftools__Profiles__Line *l, uint64_t f, int64_t n)
{
	perftools__profiles__line__init(l);
	l->function_id = f, l->line = n;
}

static void label(Perftools__Profiles__Label *l, int64_t key, int64_t str, int64_t num)
{
	perftools__profiles__label__init(l);
	l->key = key, l->str = str, l->num = num;
}

/* Samples: [inl<-helper (loc 1), main (loc 2)] 3/300 thread 7 "worker";
 * [main] 1/100 no labels; [drop_me, loc 1, main] 2/200 thread 7 and a
 * "span" label. drop_frames "drop_me" cuts the third to loc 1's path. */
static void craft(crafted *c)
{
	memset(c, 0, sizeof *c);
	Perftools__Profiles__Profile *pb = &c->pb;
	perftools__profiles__profile__init(pb);
	vt(&c->vt[0], 1, 2);
	vt(&c->vt[1], 3, 4);
	vt(&c->vt[2], 3, 4);
	c->vtp[0] = &c->vt[0], c->vtp[1] = &c->vt[1];
	pb->n_sample_type = 2, pb->sample_type = c->vtp;
	fn(&c->fn[0], 1, 5, 6, 7, 10);
	fn(&c->fn[1], 2, 8, 8, 7, 20);
	fn(&c->fn[2], 3, 9, 9, 7, 30);
	fn(&c->fn[3], 4, 15, 15, 0, 0);
	for (int i = 0; i < 4; i++)
		c->fnp[i] = &c->fn[i];
	pb->n_function = 4, pb->function = c->fnp;
	perftools__profiles__mapping__init(&c->map);
	c->map.id = 1, c->map.filename = 10, c->map.build_id = 11;
	c->map.memory_start = 0x400000, c->map.memory_limit = 0x500000;
	c->mapp[0] = &c->map;
	pb->n_mapping = 1, pb->mapping = c->mapp;
	line(&c->ln[0], 3, 31); /* innermost first: inl inlined into helper */
	line(&c->ln[1], 2, 21);
	line(&c->ln[2], 1, 11);
	line(&c->ln[3], 4, 5);
	for (int i = 0; i < 4; i++)
		c->lnp[i] = &c->ln[i];
	for (int i = 0; i < 3; i++) {
		perftools__profiles__location__init(&c->loc[i]);
		c->loc[i].id = (uint64_t)i + 1;
		c->locp[i] = &c->loc[i];
	}
	c->loc[0].mapping_id = 1, c->loc[0].address = 0x401000, c->loc[0].n_line = 2,
	c->loc[0].line = &c->lnp[0];
	c->loc[1].mapping_id = 1, c->loc[1].address = 0x402000, c->loc[1].n_line = 1,
	c->loc[1].line = &c->lnp[2];
	c->loc[2].address = 0x3000, c->loc[2].n_line = 1, c->loc[2].line = &c->lnp[3];
	pb->n_location = 3, pb->location = c->locp;
	label(&c->lab[0], 12, 0, 7);
	label(&c->lab[1], 13, 14, 0);
	label(&c->lab[2], 17, 18, 0);
	for (int i = 0; i < 3; i++)
		c->labp[i] = &c->lab[i];
	uint64_t ids[3][3] = { { 1, 2 }, { 2 }, { 3, 1, 2 } };
	int64_t vals[3][2] = { { 3, 300 }, { 1, 100 }, { 2, 200 } };
	size_t nids[3] = { 2, 1, 3 };
	memcpy(c->ids, ids, sizeof ids);
	memcpy(c->vals, vals, sizeof vals);
	for (int i = 0; i < 3; i++) {
		perftools__profiles__sample__init(&c->s[i]);
		c->s[i].n_location_id = nids[i], c->s[i].location_id = c->ids[i];
		c->s[i].n_value = 2, c->s[i].value = c->vals[i];
		c->sp[i] = &c->s[i];
	}
	c->s[0].n_label = 2, c->s[0].label = c->labp;
	c->s[2].n_label = 3, c->s[2].label = c->labp;
	pb->n_sample = 3, pb->sample = c->sp;
	pb->n_string_table = sizeof strs / sizeof *strs, pb->string_table = strs;
	pb->drop_frames = 15;
	pb->time_nanos = 12345, pb->duration_nanos = 1000000000, pb->period = 100;
	pb->period_type = &c->vt[2];
	c->comment = 16;
	pb->n_comment = 1, pb->comment = &c->comment;
}

static size_t pack(const crafted *c, uint8_t **buf)
{
	size_t n = perftools__profiles__profile__get_packed_size(&c->pb);
	*buf = malloc(n);
	cr_assert_not_null(*buf);
	cr_assert_eq(perftools__profiles__profile__pack(&c->pb, *buf), n);
	return n;
}

static void put_bytes(const char *p, const uint8_t *b, size_t n)
{
	FILE *fp = fopen(p, "wb");
	cr_assert_not_null(fp);
	cr_assert_eq(fwrite(b, 1, n, fp), n);
	cr_assert_eq(fclose(fp), 0);
}

static void put_crafted(const crafted *c)
{
	uint8_t *b;
	size_t n = pack(c, &b);
	put_bytes(path, b, n);
	free(b);
}

static char warned[2048];
static void catch_warn(void *ctx, const char *msg)
{
	(void)ctx;
	snprintf(warned, sizeof warned, "%s", msg);
}

static plumb_profile *read_path(const char *p, int *rc, plumb_error *err)
{
	plumb_profile *prof = plumb_profile_new();
	plumb_read_opts opts = { .warn = catch_warn };
	warned[0] = '\0';
	plumb_error_clear(err);
	*rc = plumb_pprof_read(prof, p, &opts, err);
	return prof;
}

static plumb_profile *read_ok(const char *p)
{
	plumb_error err;
	int rc;
	plumb_profile *prof = read_path(p, &rc, &err);
	cr_assert_eq(rc, 0, "read failed: %s", err.message);
	return prof;
}

static plumb_id function_named(const plumb_profile *p, const char *name)
{
	for (size_t i = 0; i < p->functions.n; i++)
		if (strcmp(plumb_str(p, p->functions.v[i].name), name) == 0)
			return (plumb_id)i;
	cr_assert_fail("no function %s", name);
	return PLUMB_NONE;
}

/* The node of part's path of function names (root first), or PLUMB_NONE. */
static plumb_id node_of(const plumb_profile *p, plumb_id part, const char *const *names, size_t n)
{
	plumb_id node = p->parts.v[part].root;
	for (size_t i = 0; i < n && node != PLUMB_NONE; i++) {
		plumb_id next = PLUMB_NONE;
		for (plumb_id ch = p->cct.v[node].first_child; ch != PLUMB_NONE;
		     ch = p->cct.v[ch].next_sibling) {
			plumb_id f = p->frames.v[p->cct.v[ch].frame].function;
			if (strcmp(plumb_str(p, p->functions.v[f].name), names[i]) == 0)
				next = ch;
		}
		node = next;
	}
	return node;
}

static plumb_id thread_part(const plumb_profile *p)
{
	for (size_t i = 0; i < p->parts.n; i++)
		if (p->parts.v[i].kind == PLUMB_PART_THREAD)
			return (plumb_id)i;
	cr_assert_fail("no thread part");
	return PLUMB_NONE;
}

static void check_crafted(const plumb_profile *p, bool after_write)
{
	/* no default_sample_type: pprof's default is the last type, first here */
	cr_assert_eq(p->events.n, 2);
	cr_assert_str_eq(plumb_str(p, p->events.v[0].name), "cpu");
	cr_assert_str_eq(plumb_str(p, p->events.v[0].unit), "nanoseconds");
	cr_assert_str_eq(plumb_str(p, p->events.v[1].name), "samples");
	cr_assert_str_eq(plumb_str(p, p->events.v[1].unit), "count");
	plumb_id t = thread_part(p);
	cr_assert_eq(p->parts.v[t].tid, 7);
	cr_assert_str_eq(plumb_str(p, p->parts.v[t].name), "worker");
	cr_assert_eq(p->parts.n, 2);
	plumb_id other = t == 0 ? 1 : 0;
	static const char *const inl_path[] = { "main", "helper", "inl" };
	plumb_id n = node_of(p, t, inl_path, 3);
	cr_assert_neq(n, PLUMB_NONE);
	/* 300 + the dropped sample's 200, cut at drop_me */
	cr_assert_eq(plumb_cct_self(p, n)[0], 500);
	cr_assert_eq(plumb_cct_self(p, n)[1], 5);
	const plumb_frame *fr = &p->frames.v[p->cct.v[n].frame];
	cr_assert_eq(fr->line, 31);
	cr_assert_eq(fr->address, 0x401000);
	fr = &p->frames.v[p->cct.v[p->cct.v[n].parent].frame];
	cr_assert_eq(fr->line, 21);
	cr_assert_eq(fr->address, 0x401000);
	n = node_of(p, other, inl_path, 1);
	cr_assert_eq(plumb_cct_self(p, n)[0], 100);
	const plumb_function *m = &p->functions.v[function_named(p, "main")];
	cr_assert_str_eq(plumb_str(p, m->mangled), "_Z4mainv");
	cr_assert_str_eq(plumb_str(p, p->files.v[m->file].path), "main.c");
	cr_assert_eq(m->line, 10);
	cr_assert_str_eq(plumb_str(p, p->modules.v[m->module].path), "/bin/app");
	cr_assert_str_eq(plumb_str(p, p->modules.v[m->module].build_id), "abc123");
	for (size_t i = 0; i < p->cct.n; i++)
		if (p->cct.v[i].frame != PLUMB_NONE)
			cr_assert_str_neq(plumb_function_name(p, p->frames.v[p->cct.v[i].frame].function),
					  "drop_me");
	cr_assert_str_eq(plumb_meta_get(p, "pprof.period"), "100");
	cr_assert_str_eq(plumb_meta_get(p, "pprof.period_type"), "cpu/nanoseconds");
	cr_assert_str_eq(plumb_meta_get(p, "pprof.duration_ns"), "1000000000");
	cr_assert_str_eq(plumb_meta_get(p, "pprof.time_ns"), "12345");
	cr_assert_str_eq(plumb_meta_get(p, "pprof.comments"), "a comment");
	cr_assert_str_eq(plumb_meta_get(p, "pprof.drop_frames"), "drop_me");
	if (!after_write) {
		cr_assert_str_eq(plumb_meta_get(p, "pprof.other_labels"), "span");
		cr_assert(strstr(warned, "labels span are not kept"), "warning: %s", warned);
	}
}

Test(pprof, reads_every_message)
{
	crafted c;
	craft(&c);
	put_crafted(&c);
	plumb_profile *p = read_ok(path);
	check_crafted(p, false);
	plumb_profile_free(p);
}

Test(pprof, default_sample_type_is_the_first_event)
{
	crafted c;
	craft(&c);
	c.pb.default_sample_type = 1; /* "samples" */
	put_crafted(&c);
	plumb_profile *p = read_ok(path);
	cr_assert_str_eq(plumb_str(p, p->events.v[0].name), "samples");
	cr_assert_str_eq(plumb_str(p, p->events.v[1].name), "cpu");
	cr_assert_str_eq(plumb_meta_get(p, "pprof.default_sample_type"), "samples");
	uint64_t tot[2];
	cr_assert_eq(plumb_profile_totals(p, tot, NULL), 0);
	cr_assert_eq(tot[0], 6);
	cr_assert_eq(tot[1], 600);
	plumb_profile_free(p);
}

Test(pprof, gzip_reads_as_raw)
{
	crafted c;
	craft(&c);
	uint8_t *b, *gz;
	size_t n = pack(&c, &b), gn;
	cr_assert_eq(pprof_gzip(b, n, &gz, &gn, NULL), 0);
	put_bytes(path, gz, gn);
	cr_assert(plumb_pprof_detect(gz, gn));
	plumb_profile *p = read_ok(path);
	check_crafted(p, false);
	plumb_profile_free(p);
	free(b);
	free(gz);
}

/* The crafted profile read (returned) and written by plumb to out. */
static plumb_profile *crafted_written(void)
{
	crafted c;
	craft(&c);
	put_crafted(&c);
	plumb_profile *p = read_ok(path);
	plumb_error err;
	cr_assert_eq(plumb_pprof_write(p, out, &err), 0, "%s", err.message);
	return p;
}

Test(pprof, round_trip_keeps_inlined_locations)
{
	plumb_profile *p = crafted_written();
	plumb_profile *q = read_ok(out);
	check_crafted(q, true);
	/* the written file: one location with helper and inl, innermost first */
	FILE *fp = fopen(out, "rb");
	cr_assert_not_null(fp);
	static uint8_t raw[1 << 16];
	size_t rn = fread(raw, 1, sizeof raw, fp);
	fclose(fp);
	uint8_t *data;
	size_t dn;
	cr_assert_eq(pprof_gunzip(out, raw, rn, &data, &dn, NULL), 0);
	Perftools__Profiles__Profile *pb = perftools__profiles__profile__unpack(NULL, dn, data);
	cr_assert_not_null(pb);
	int two = 0;
	for (size_t i = 0; i < pb->n_location; i++) {
		Perftools__Profiles__Location *l = pb->location[i];
		if (l->n_line != 2)
			continue;
		two++;
		cr_assert_eq(l->address, 0x401000);
		cr_assert_str_eq(pb->string_table[pb->function[l->line[0]->function_id - 1]->name], "inl");
		cr_assert_eq(l->line[0]->line, 31);
		cr_assert_neq(l->mapping_id, 0);
		cr_assert_str_eq(pb->string_table[pb->mapping[l->mapping_id - 1]->build_id], "abc123");
	}
	cr_assert_eq(two, 1);
	cr_assert_str_eq(pb->string_table[pb->default_sample_type], "cpu");
	perftools__profiles__profile__free_unpacked(pb, NULL);
	free(data);
	plumb_profile_free(p);
	plumb_profile_free(q);
}

/* The whole file at p into a malloc'd buffer. */
static uint8_t *slurp(const char *p, size_t *n)
{
	FILE *fp = fopen(p, "rb");
	cr_assert_not_null(fp);
	static uint8_t buf[1 << 16];
	*n = fread(buf, 1, sizeof buf, fp);
	fclose(fp);
	uint8_t *copy = malloc(*n);
	memcpy(copy, buf, *n);
	return copy;
}

/* The number of gzip members of gz[0..n), counted by zlib. */
static int gzip_members(const uint8_t *gz, size_t n)
{
	z_stream zs = { 0 };
	cr_assert_eq(inflateInit2(&zs, 15 + 16), Z_OK);
	static uint8_t sink[1 << 16];
	zs.next_in = (Bytef *)gz;
	zs.avail_in = (uInt)n;
	int members = 0, z = Z_OK;
	while (zs.avail_in > 0 && (z == Z_OK || z == Z_STREAM_END)) {
		zs.next_out = sink;
		zs.avail_out = sizeof sink;
		z = inflate(&zs, Z_NO_FLUSH);
		if (z == Z_STREAM_END) {
			members++;
			inflateReset(&zs);
		}
	}
	inflateEnd(&zs);
	cr_assert_eq(zs.avail_in, 0, "damaged gzip at byte %zu", n - zs.avail_in);
	return members;
}

Test(pprof, small_gzip_members_read_as_one)
{
	plumb_profile *p = crafted_written();
	plumb_error err;
	size_t n1, n2, d1, d2;
	uint8_t *one = slurp(out, &n1), *raw1, *raw2;
	size_t keep = pprof_gzip_member;
	pprof_gzip_member = 16; /* a member every 16 bytes of the message */
	int rc = plumb_pprof_write(p, out, &err);
	pprof_gzip_member = keep;
	cr_assert_eq(rc, 0, "%s", err.message);
	uint8_t *many = slurp(out, &n2);
	cr_assert_eq(gzip_members(one, n1), 1);
	cr_assert_eq(pprof_gunzip(out, one, n1, &raw1, &d1, NULL), 0);
	/* the tail split every 16 bytes: that many members at least */
	cr_assert_geq(gzip_members(many, n2), (int)(d1 / 16) / 2, "%d members", gzip_members(many, n2));
	cr_assert_eq(pprof_gunzip(out, many, n2, &raw2, &d2, NULL), 0);
	cr_assert_eq(d1, d2);
	cr_assert_eq(memcmp(raw1, raw2, d1), 0, "the members hold the message of one member");
	plumb_profile *q = read_ok(out);
	check_crafted(q, true);
	free(one);
	free(many);
	free(raw1);
	free(raw2);
	plumb_profile_free(p);
	plumb_profile_free(q);
}

/* Many samples are sorted on two threads: the order is the one thread's
 * (parts, then frames from the root, ties in file order). */
Test(pprof, sort_on_two_threads_gives_the_same_order)
{
	size_t n = PPROF_SORT_PAR * 3, nfr = 0;
	plumb_id *fr = malloc(n * 12 * sizeof *fr);
	sitem *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
	uint64_t x = 88172645463325252u;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift: a fixed mix */
		uint32_t len = (uint32_t)(x % 12), part = (uint32_t)(x >> 60 == 0);
		a[i] = (sitem){ nfr, (uint32_t)i, len, part, UINT32_MAX - 4, { 0, 0, 0, 0 } };
		for (uint32_t k = 0; k < len; k++) /* few frames near the root: deep ties */
			fr[nfr++] = (plumb_id)((x >> (5 * k)) % (k < 3 ? 2 : 7));
	}
	memcpy(b, a, n * sizeof *a);
	pprof_sort_stacks(fr, a, n, 0);
	pprof_sort_stacks_2(fr, b, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(a[i].i, b[i].i, "item %zu: sample %u on one thread, %u on two", i, a[i].i,
			     b[i].i);
	for (size_t i = 1; i < n; i++) { /* and it is sorted */
		const sitem *p = &a[i - 1], *q = &a[i];
		int c = p->part < q->part ? -1 : p->part > q->part;
		for (uint32_t k = 0; c == 0 && (k < p->n || k < q->n); k++) {
			uint32_t u = k < p->n ? fr[p->off + k] + 1 : 0, v = k < q->n ? fr[q->off + k] + 1 : 0;
			c = u < v ? -1 : u > v;
		}
		cr_assert(c < 0 || (c == 0 && p->i < q->i), "items %zu and %zu out of order", i - 1, i);
	}
	free(fr);
	free(a);
	free(b);
}

/* ---- the tree in the file's order, when it is grouped ----------------- */

typedef struct gstacks {
	plumb_id fr[128], part[16];
	size_t off[17], n;
} gstacks;

/* Stacks given as strings of frame letters, "1:ab" for part 1. */
static void gstacks_set(gstacks *g, const char *const *s, size_t n)
{
	size_t nf = 0;
	g->n = n;
	for (size_t i = 0; i < n; i++) {
		const char *t = s[i];
		bool has_part = t[0] && t[1] == ':';
		g->part[i] = has_part ? (plumb_id)(t[0] - '0') : 0;
		t += has_part ? 2 : 0;
		g->off[i] = nf;
		for (; *t; t++)
			g->fr[nf++] = (plumb_id)(*t - 'a');
	}
	g->off[n] = nf;
}

static plumb_profile *tree_profile(plumb_error *err)
{
	plumb_profile *p = plumb_profile_new();
	cr_assert_geq(plumb_event_add(p, "samples", NULL, NULL, err), 0);
	(void)plumb_part_default(p);
	cr_assert_neq(plumb_part_add(p, PLUMB_PART_THREAD, "t1", 1, 2), PLUMB_NONE);
	char name[2] = "a";
	for (int k = 0; k < 26; k++, name[0]++)
		cr_assert_eq(plumb_frame_intern(p, plumb_function_intern(p, name, NULL, PLUMB_NONE,
									  PLUMB_NONE, 0),
					       PLUMB_NONE, 0, 0), (plumb_id)k);
	return p;
}

/* Every node's children have distinct frames, and each sample's node is
 * its stack. */
static void expect_tree_of(const plumb_profile *p, const gstacks *g, const plumb_id *node_of)
{
	for (size_t i = 0; i < p->cct.n; i++)
		for (plumb_id a = p->cct.v[i].first_child; a != PLUMB_NONE; a = p->cct.v[a].next_sibling)
			for (plumb_id b = p->cct.v[a].next_sibling; b != PLUMB_NONE;
			     b = p->cct.v[b].next_sibling)
				cr_assert_neq(p->cct.v[a].frame, p->cct.v[b].frame,
					      "node %zu has two children at frame %u", i, p->cct.v[a].frame);
	for (size_t i = 0; i < g->n; i++) {
		plumb_id x = node_of[i];
		for (size_t k = g->off[i + 1]; k-- > g->off[i]; x = p->cct.v[x].parent)
			cr_assert_eq(p->cct.v[x].frame, g->fr[k], "sample %zu: frame %zu", i, k - g->off[i]);
		cr_assert_eq(x, p->parts.v[g->part[i]].root, "sample %zu: not below its part's root", i);
	}
}

static int try_grouped_deep(const char *const *s, size_t n, size_t maxn)
{
	plumb_error err;
	plumb_profile *p = tree_profile(&err);
	gstacks g;
	gstacks_set(&g, s, n);
	plumb_id node_of[16], nodes[129];
	int rc = pprof_tree_grouped(p, g.fr, g.off, g.part, g.n, maxn, node_of, nodes);
	if (rc == 1)
		expect_tree_of(p, &g, node_of);
	else /* given up: the tree as it was */
		for (size_t k = 0; k < p->parts.n; k++)
			cr_assert_eq(p->cct.v[p->parts.v[k].root].first_child, PLUMB_NONE);
	plumb_profile_free(p);
	return rc;
}

static int try_grouped(const char *const *s, size_t n)
{
	return try_grouped_deep(s, n, 128);
}

/* Each row of cases (up to 8 stacks, NULL after the last) taken or not. */
static void expect_grouped(const char *const (*cases)[8], size_t ncases, int want)
{
	for (size_t k = 0; k < ncases; k++) {
		size_t n = 0;
		while (n < 8 && cases[k][n])
			n++;
		cr_assert_eq(try_grouped(cases[k], n), want, "case %zu: expected %s", k,
			     want ? "grouped (no sort)" : "not grouped (sorted)");
	}
}

Test(pprof, grouped_samples_need_no_sort)
{
	static const char *const grouped[][8] = {
		{ "abc", "abd", "ab", "ae", "f" },        /* a walk of the tree */
		{ "ab", "abc", "abc", "ab" },            /* a stack again right after */
		{ "ab", "0:ac", "1:ab", "1:ac", "1:d" },  /* parts one after the other */
		{ "a", "ab", "abc", "b", "ba" },
	};
	expect_grouped(grouped, sizeof grouped / sizeof *grouped, 1);
	/* a child left and come back to: at a node of one child, of several,
	 * at a part's root, below a stack that ended above it; a part come
	 * back to (its root's children cannot be told from another root's) */
	static const char *const scattered[][8] = {
		{ "ab", "c", "ab" },
		{ "abc", "abd", "abc" },
		{ "ab", "ac", "ad", "ac" },
		{ "0:a", "1:a", "0:a" },
		{ "abc", "a", "abd" },
		{ "abc", "abd", "ae", "abf" },
		{ "0:a", "1:a", "0:b" },
	};
	expect_grouped(scattered, sizeof scattered / sizeof *scattered, 0);
	/* stacks so deep that the check's table (depth x frames) would be
	 * too big: sorted, the tree untouched */
	cr_assert_eq(try_grouped_deep(grouped[0], 5, (size_t)1 << 25), 0);
	cr_assert_eq(try_grouped_deep(grouped[0], 5, ((size_t)1 << 25) / 64), 1);
}

/* Random stacks in random order: whatever is decided, a tree built is
 * right, and one given up leaves none; sorted, they are always taken. */
Test(pprof, grouped_tree_is_right_or_not_built)
{
	uint64_t x = 0x9e3779b97f4a7c15u;
	static char buf[16][10];
	const char *s[16];
	size_t taken = 0;
	for (int round = 0; round < 2000; round++) {
		size_t n = 1 + (size_t)(x % 16);
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			size_t len = (size_t)(x % 7), j = 0;
			if ((x >> 8) & 1) {
				buf[i][j++] = (char)('0' + ((x >> 9) & 1));
				buf[i][j++] = ':';
			}
			/* two letters: many shared prefixes, and a frame at
			 * several depths of one path (its entries stack up) */
			for (size_t k = 0; k < len; k++)
				buf[i][j++] = (char)('a' + ((x >> (12 + 2 * k)) % 2));
			buf[i][j] = 0;
			s[i] = buf[i];
		}
		int rc = try_grouped(s, n);
		cr_assert(rc == 0 || rc == 1);
		taken += rc == 1;
		/* sorted: parts, then frames from the root */
		gstacks g;
		gstacks_set(&g, s, n);
		sitem a[16];
		for (size_t i = 0; i < n; i++)
			a[i] = (sitem){ g.off[i], (uint32_t)i, (uint32_t)(g.off[i + 1] - g.off[i]), g.part[i],
					UINT32_MAX - 4, { 0, 0, 0, 0 } };
		pprof_sort_stacks(g.fr, a, n, 0);
		const char *sorted[16];
		for (size_t i = 0; i < n; i++)
			sorted[i] = s[a[i].i];
		cr_assert_eq(try_grouped(sorted, n), 1, "round %d: sorted stacks not taken", round);
	}
	cr_assert(taken > 0 && taken < 2000, "taken %zu of 2000 random orders", taken);
}

/* ---- damaged files: byte offset and what was expected ---------------------- */

static void expect_error(const crafted *c, plumb_status code, const char *text)
{
	put_crafted(c);
	plumb_error err;
	int rc;
	plumb_profile *p = read_path(path, &rc, &err);
	cr_assert_eq(rc, -1);
	cr_assert_eq(err.code, code, "code %d: %s", err.code, err.message);
	cr_assert(strstr(err.message, "byte "), "%s", err.message);
	cr_assert(strstr(err.message, text), "%s", err.message);
	plumb_profile_free(p);
}

Test(pprof, unknown_location_id)
{
	crafted c;
	craft(&c);
	c.ids[1][0] = 99;
	expect_error(&c, PLUMB_ERR_FORMAT, "location_id to be one of the 3 locations' ids, got 99");
}

Test(pprof, string_index_out_of_range)
{
	crafted c;
	craft(&c);
	c.fn[1].name = 500;
	expect_error(&c, PLUMB_ERR_FORMAT, "a function's name to be an index into the string table");
}

Test(pprof, values_per_sample_type)
{
	crafted c;
	craft(&c);
	c.s[2].n_value = 1;
	expect_error(&c, PLUMB_ERR_FORMAT, "expected sample 2 to have 2 values");
}

Test(pprof, negative_values)
{
	crafted c;
	craft(&c);
	c.vals[0][1] = -4;
	expect_error(&c, PLUMB_ERR_UNSUPPORTED, "got -4");
}

Test(pprof, unknown_function_and_mapping_ids)
{
	crafted c;
	craft(&c);
	c.ln[2].function_id = 77;
	expect_error(&c, PLUMB_ERR_FORMAT, "function_id to be one of the 4 functions' ids, got 77");
	craft(&c);
	c.loc[1].mapping_id = 5;
	expect_error(&c, PLUMB_ERR_FORMAT, "mapping_id to be one of the 1 mappings' ids, got 5");
}

Test(pprof, truncated_and_bad_wire_types)
{
	crafted c;
	craft(&c);
	uint8_t *b;
	size_t n = pack(&c, &b);
	put_bytes(path, b, n - 4); /* into period's varint */
	plumb_error err;
	int rc;
	plumb_profile *p = read_path(path, &rc, &err);
	cr_assert_eq(rc, -1);
	cr_assert(strstr(err.message, "in.pb: byte "), "%s", err.message);
	cr_assert(strstr(err.message, "expected"), "%s", err.message);
	plumb_profile_free(p);
	/* drop_frames (7) is a varint: make it length-delimited */
	uint8_t bad[] = { 0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x3a, 0x01, 0x00 };
	put_bytes(path, bad, sizeof bad);
	p = read_path(path, &rc, &err);
	cr_assert_eq(rc, -1);
	cr_assert(strstr(err.message, "byte 6: expected field 7 (drop_frames) of Profile to be a "
			 "varint (wire type 0), got a length-delimited field"), "%s", err.message);
	plumb_profile_free(p);
	free(b);
}

/* ---- wire layouts protobuf-c does not write ------------------------------------ */

typedef struct wbuf {
	uint8_t b[512];
	size_t n;
} wbuf;

static void wv(wbuf *w, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		w->b[w->n++] = (uint8_t)(v | 0x80);
	w->b[w->n++] = (uint8_t)v;
}

static void wfield(wbuf *w, unsigned num, uint64_t v)
{
	wv(w, num << 3);
	wv(w, v);
}

static void wbytes(wbuf *w, unsigned num, const void *b, size_t n)
{
	wv(w, num << 3 | 2);
	wv(w, n);
	memcpy(w->b + w->n, b, n);
	w->n += n;
}

/* Samples and locations are decoded by plumb's own walk of the wire:
 * repeated ids unpacked or packed in several pieces, fields out of order,
 * a field given twice (the last wins) and unknown fields read as
 * protobuf-c reads them. */
Test(pprof, any_wire_layout_of_samples_and_locations)
{
	wbuf pf = { .n = 0 }, m, sub;
	const char *strings[] = { "", "samples", "count", "f", "g" };
	/* sample A: f -> g unpacked (leaf first), value 5, an unknown varint */
	m.n = 0;
	wfield(&m, 1, 2);
	wfield(&m, 1, 1);
	wfield(&m, 2, 5);
	wfield(&m, 9, 1);
	wbytes(&pf, 2, m.b, m.n);
	/* sample B: the same stack packed in two pieces, value 3 packed */
	m.n = 0;
	wbytes(&m, 1, (uint8_t[]){ 2 }, 1);
	wbytes(&m, 1, (uint8_t[]){ 1 }, 1);
	wbytes(&m, 2, (uint8_t[]){ 3 }, 1);
	wbytes(&pf, 2, m.b, m.n);
	/* sample C: f alone, value 4 */
	m.n = 0;
	wbytes(&m, 1, (uint8_t[]){ 1 }, 1);
	wfield(&m, 2, 4);
	wbytes(&pf, 2, m.b, m.n);
	/* location 1: its line first, an unknown fixed32, then its id */
	m.n = 0;
	sub.n = 0;
	wfield(&sub, 2, 7);
	wfield(&sub, 1, 1);
	wbytes(&m, 4, sub.b, sub.n);
	wv(&m, 9 << 3 | 5);
	memcpy(m.b + m.n, "\1\2\3\4", 4);
	m.n += 4;
	wfield(&m, 1, 1);
	wbytes(&pf, 4, m.b, m.n);
	/* location 2: id given twice (9, then 2) */
	m.n = 0;
	wfield(&m, 1, 9);
	sub.n = 0;
	wfield(&sub, 1, 2);
	wbytes(&m, 4, sub.b, sub.n);
	wfield(&m, 1, 2);
	wbytes(&pf, 4, m.b, m.n);
	for (uint64_t id = 1; id <= 2; id++) {
		m.n = 0;
		wfield(&m, 1, id);
		wfield(&m, 2, id + 2);
		wbytes(&pf, 5, m.b, m.n);
	}
	m.n = 0;
	wfield(&m, 1, 1);
	wfield(&m, 2, 2);
	wbytes(&pf, 1, m.b, m.n);
	for (size_t i = 0; i < 5; i++)
		wbytes(&pf, 6, strings[i], strlen(strings[i]));
	put_bytes(path, pf.b, pf.n);
	plumb_profile *p = read_ok(path);
	static const char *const fg[] = { "f", "g" };
	plumb_id n = node_of(p, 0, fg, 2);
	cr_assert_neq(n, PLUMB_NONE);
	cr_assert_eq(plumb_cct_self(p, n)[0], 8);
	n = node_of(p, 0, fg, 1);
	cr_assert_eq(plumb_cct_self(p, n)[0], 4);
	cr_assert_eq(p->frames.v[p->cct.v[n].frame].line, 7);
	cr_assert_eq(p->cct.n, 3, "one node each for the root, f and g");
	plumb_profile_free(p);
}

/* ---- detection ---------------------------------------------------------------- */

Test(pprof, detection)
{
	crafted c;
	craft(&c);
	uint8_t *b;
	size_t n = pack(&c, &b);
	cr_assert(plumb_pprof_detect(b, n));
	cr_assert(plumb_pprof_detect(b, n / 2)); /* a head cut anywhere */
	cr_assert_eq(plumb_detect_buffer(b, n), PLUMB_FMT_PPROF);
	const char *texts[] = { "main;a;b 12\n", "\na;b 1\n", "SQLite format 3", "gmon\0\0\0\1",
				"events: Ir\n", "pH", "" };
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
		cr_assert_not(plumb_pprof_detect((const uint8_t *)texts[i], strlen(texts[i]) + 1),
			      "%s", texts[i]);
	free(b);
}

/* ---- writing a call graph ------------------------------------------------------- */

Test(pprof, call_graph_writes_self_costs)
{
	plumb_profile *p = plumb_profile_new();
	cr_assert_geq(plumb_event_add(p, "Ir", NULL, NULL, NULL), 0);
	plumb_id part = plumb_part_default(p);
	plumb_id fa = plumb_function_intern(p, "a", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_id fb = plumb_function_intern(p, "b", NULL, PLUMB_NONE, PLUMB_NONE, 0);
	plumb_id a = plumb_frame_intern(p, fa, PLUMB_NONE, 3, 0);
	plumb_id b = plumb_frame_intern(p, fb, PLUMB_NONE, 9, 0);
	uint64_t ca = 10, cb = 30;
	cr_assert_eq(plumb_cg_add_self(p, part, a, &ca, NULL), 0);
	cr_assert_eq(plumb_cg_add_self(p, part, b, &cb, NULL), 0);
	cr_assert_geq(plumb_arc_add(p, part, a, fb, 4, &cb, NULL), 0);
	const char *lost = plumb_pprof_losses(p);
	cr_assert_not_null(lost);
	cr_assert(strstr(lost, "1 call arcs are not written"), "%s", lost);
	plumb_error err;
	cr_assert_eq(plumb_pprof_write(p, out, &err), 0, "%s", err.message);
	plumb_profile *q = read_ok(out);
	cr_assert_str_eq(plumb_str(q, q->events.v[0].name), "Ir");
	cr_assert_str_eq(plumb_str(q, q->events.v[0].unit), "count");
	static const char *const pa[] = { "a" }, *const pb[] = { "b" };
	cr_assert_eq(plumb_cct_self(q, node_of(q, 0, pa, 1))[0], 10);
	cr_assert_eq(plumb_cct_self(q, node_of(q, 0, pb, 1))[0], 30);
	plumb_profile_free(p);
	plumb_profile_free(q);
	p = plumb_profile_new();
	cr_assert_null(plumb_pprof_losses(p));
	plumb_profile_free(p);
}
