/* test_pprofdiff.c - the pprof reader (user/pprofin/) and the
 * diff (user/profile/diff.c, growthrank.c) against github.com/google/pprof's
 * own answers (tests/unit/fixtures/diff_ref): two heap profiles built to
 * exercise Merge, and the profile go tool pprof -diff_base makes of them,
 * which the diff must equal entry for entry, in Merge's order; the same
 * for two goroutine profiles. Then the
 * reader on hostile input: every prefix and many byte changes of a real
 * profile, and hand-made messages with overlong varints, lengths past
 * the end, bad indexes and IDs, wrong wire types and counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "goheap.h"

/* ---- the fixtures ---- */

static uint8_t *slurp(const char *name, size_t *n)
{
	char path[4096];
	uint8_t *data;
	FILE *f;
	long size;

	snprintf(path, sizeof(path), "%s/diff/%s", fixture_dir(), name);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("no fixture %s: run tests/unit/fixtures/diff.sh",
			 path);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	data = malloc((size_t)size + 1);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	*n = (size_t)size;
	return data;
}

static struct gh_profile *load(const char *name)
{
	char path[4096];
	struct gh_profile *p;
	struct gh_err err;

	snprintf(path, sizeof(path), "%s/diff/%s", fixture_dir(), name);
	if (gh_profile__read_file(path, &p, &err))
		fail_msg("%s: %s", path, err.msg);
	return p;
}

/* ---- equality, entry for entry ---- */

static void same_mappings(const struct gh_profile *a,
			  const struct gh_profile *b)
{
	assert_int_equal(a->nmappings, b->nmappings);
	for (size_t i = 0; i < a->nmappings; i++) {
		const struct gh_mapping *x = &a->mappings[i],
					*y = &b->mappings[i];

		assert_int_equal(x->start, y->start);
		assert_int_equal(x->limit, y->limit);
		assert_int_equal(x->offset, y->offset);
		assert_string_equal(x->file, y->file);
		assert_string_equal(x->build_id, y->build_id);
		assert_int_equal(x->has_functions, y->has_functions);
	}
}

static void same_functions(const struct gh_profile *a,
			   const struct gh_profile *b)
{
	assert_int_equal(a->nfunctions, b->nfunctions);
	for (size_t i = 0; i < a->nfunctions; i++) {
		assert_string_equal(a->functions[i].name, b->functions[i].name);
		assert_string_equal(a->functions[i].filename,
				    b->functions[i].filename);
		assert_int_equal(a->functions[i].start_line,
				 b->functions[i].start_line);
	}
}

static void same_locations(const struct gh_profile *a,
			   const struct gh_profile *b)
{
	assert_int_equal(a->nlocations, b->nlocations);
	for (size_t i = 0; i < a->nlocations; i++) {
		const struct gh_location *x = &a->locations[i],
					 *y = &b->locations[i];

		assert_int_equal(x->address, y->address);
		assert_int_equal(x->mapping, y->mapping);
		assert_int_equal(x->nlines, y->nlines);
		for (uint32_t j = 0; j < x->nlines; j++) {
			assert_int_equal(x->lines[j].function,
					 y->lines[j].function);
			assert_int_equal(x->lines[j].line, y->lines[j].line);
		}
	}
}

static void same_samples(const struct gh_profile *a, const struct gh_profile *b)
{
	assert_int_equal(a->nsamples, b->nsamples);
	for (size_t i = 0; i < a->nsamples; i++) {
		const struct gh_sample *x = &a->samples[i], *y = &b->samples[i];

		assert_int_equal(x->nlocs, y->nlocs);
		assert_memory_equal(x->locs, y->locs,
				    x->nlocs * sizeof(*x->locs));
		assert_memory_equal(x->value, y->value, sizeof(x->value));
		assert_int_equal(x->base, y->base);
		assert_int_equal(x->has_bytes_label, y->has_bytes_label);
		assert_int_equal(x->bytes_label, y->bytes_label);
	}
}

static void same_profile(const struct gh_profile *a, const struct gh_profile *b)
{
	assert_int_equal(a->time_ns, b->time_ns);
	assert_int_equal(a->period, b->period);
	same_mappings(a, b);
	same_functions(a, b);
	same_locations(a, b);
	same_samples(a, b);
}

/* ---- against google/pprof ---- */

/* What profile.Parse gives for new.pb.gz, as its builder wrote it. */
static void test_read(void **state)
{
	struct gh_profile *p = load("new.pb.gz"), *raw = load("new.pb");

	(void)state;
	same_profile(p, raw);
	assert_int_equal(p->nsamples, 7);
	assert_int_equal(p->period, 1048576);
	assert_int_equal(p->time_ns, 1000);
	assert_int_equal(p->samples[0].value[GH_ALLOC_OBJECTS], 30);
	assert_int_equal(p->samples[0].value[GH_INUSE_SPACE], 20480);
	assert_int_equal(p->samples[0].bytes_label, 1024);
	assert_false(p->samples[0].base);
	assert_int_equal(p->nmappings, 3);
	assert_int_equal(p->mappings[0].start, 0x555555554000);
	assert_string_equal(p->mappings[0].build_id, "abc123");
	assert_true(p->mappings[0].has_functions);
	assert_int_equal(p->nlocations, 7);
	assert_int_equal(p->locations[4].nlines, 0);
	assert_int_equal(p->locations[5].mapping, 0);
	assert_string_equal(p->top_site, "main.leak");
	gh_profile__free(p);
	gh_profile__free(raw);
}

/* gh_profile__diff of the fixtures old.pb.gz and new.pb.gz. */
static struct gh_profile *fixture_diff(void)
{
	struct gh_profile *old = load("old.pb.gz"), *now = load("new.pb.gz");
	struct gh_profile *d;
	struct gh_err err;

	if (gh_profile__diff(old, now, &d, &err))
		fail_msg("%s", err.msg);
	gh_profile__free(now);
	gh_profile__free(old);
	return d;
}

/* gh_profile__diff equals Merge's answer, in Merge's order. */
static void test_diff_is_merge(void **state)
{
	struct gh_profile *d = fixture_diff(), *ref = load("ref.pb.gz");

	(void)state;
	same_profile(d, ref);
	gh_profile__free(d);
	gh_profile__free(ref);
}

/* The diff's pprof, read back, is the diff. */
static void test_diff_round_trip(void **state)
{
	const struct gh_write_opts w = {.sz = sizeof(struct gh_write_opts),
					.format = GH_FORMAT_PPROF};
	struct gh_profile *d = fixture_diff(), *back;
	struct gh_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(gh_profile__write(d, f, &w, &err), 0);
	fclose(f);
	if (gh_profile__read(buf, len, &back, &err))
		fail_msg("%s", err.msg);
	same_profile(d, back);
	free(buf);
	gh_profile__free(back);
	gh_profile__free(d);
}

/* The table: go tool pprof's units, deltas signed, the site's file by
 * its base name; --top's cut said in the first line. */
static void table_rows(const struct gh_growth *g)
{
	struct gh_err err;
	char *buf = NULL;
	size_t len = 0, lines = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(gh_growth__write(g, f, 2, &err), 0);
	fclose(f);
	assert_non_null(strstr(buf, "; 2 of 3 changed stacks shown\n"));
	assert_non_null(strstr(buf, "\n       +17kB          +17         21kB  "
				    "main.leak (main.go:12)\n"));
	assert_non_null(strstr(buf, "\n       +256B           +2         256B  "
				    "util.helper (b.go:8)\n"));
	for (char *c = buf; *c; c++) /* two lines of header, two rows */
		lines += *c == '\n';
	assert_int_equal(lines, 4);
	free(buf);
}

/* The stacks ranked: main.leak's grew most (NEW's two samples of it
 * summed, less OLD's); OLD's extreme values wrap as Go's sums do. */
static void test_growth(void **state)
{
	struct gh_profile *d = fixture_diff();
	struct gh_growth *g;
	struct gh_err err;

	(void)state;
	assert_int_equal(gh_profile__growth(d, &g, &err), 0);
	assert_int_equal(g->n, 3);
	assert_string_equal(g->rows[0].site, "main.leak");
	assert_string_equal(g->rows[0].file, "/src/app/main.go");
	assert_int_equal(g->rows[0].line, 12);
	assert_int_equal(g->rows[0].delta[GH_INUSE_SPACE], 20480 + 1024 - 4096);
	assert_int_equal(g->rows[0].delta[GH_INUSE_OBJECTS], 20 + 1 - 4);
	assert_int_equal(g->rows[0].now[GH_INUSE_SPACE], 21504);
	/* util.helper at a location without a mapping: only in NEW */
	assert_string_equal(g->rows[1].site, "util.helper");
	assert_int_equal(g->rows[1].delta[GH_INUSE_SPACE], 256);
	assert_int_equal(g->rows[1].now[GH_INUSE_SPACE], 256);
	/* main.steady's stacks hold the same in both: left out */
	for (size_t i = 0; i < g->n; i++)
		assert_string_not_equal(g->rows[i].site, "main.steady");
	table_rows(g);
	gh_growth__free(g);
	gh_profile__free(d);
}

/* Two goroutine profiles (gold, gnew): read as goroutine/count (labels
 * read, not kept), their diff Merge's answer (gref) entry for entry and of
 * kind goroutine, its pprof read back the same, ranked by the growth in
 * goroutines; a heap profile against one refused. */
static void test_goroutine_diff(void **state)
{
	const struct gh_write_opts w = {.sz = sizeof(struct gh_write_opts),
					.format = GH_FORMAT_PPROF};
	struct gh_profile *old = load("gold.pb.gz"), *now = load("gnew.pb.gz");
	struct gh_profile *ref = load("gref.pb.gz"), *heap = load("old.pb.gz");
	struct gh_profile *d, *back, *self = load("gself.pb.gz");
	struct gh_growth *g;
	struct gh_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(gh_profile__kind(now), GH_KIND_GOROUTINE);
	assert_int_equal(now->nsamples, 4);
	assert_int_equal(now->samples[0].value[0], 250);
	assert_int_equal(now->total[0], 250 + 4 + 7 + 1);
	assert_int_equal(now->period, 1);
	if (gh_profile__diff(old, now, &d, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(gh_profile__kind(d), GH_KIND_GOROUTINE);
	assert_int_equal(gh_profile__kind(ref), GH_KIND_GOROUTINE);
	same_profile(d, ref);
	f = open_memstream(&buf, &len);
	assert_int_equal(gh_profile__write(d, f, &w, &err), 0);
	fclose(f);
	if (gh_profile__read(buf, len, &back, &err))
		fail_msg("%s", err.msg);
	same_profile(d, back);
	gh_profile__free(back);
	assert_int_equal(gh_profile__growth(d, &g, &err), 0);
	assert_int_equal(gh_growth__kind(g), GH_KIND_GOROUTINE);
	assert_int_equal(g->total[0], 262 - 18);
	/* the steady stack (4 in both) left out */
	assert_int_equal(g->n, 4);
	assert_string_equal(g->rows[0].site, "main.leak");
	assert_int_equal(g->rows[0].delta[0], 240);
	assert_int_equal(g->rows[0].now[0], 250);
	assert_string_equal(g->rows[1].site, "util.helper");
	assert_int_equal(g->rows[1].delta[0], 7);
	assert_string_equal(g->rows[2].site, "main.main");
	assert_int_equal(g->rows[2].delta[0], -1);
	assert_int_equal(g->rows[2].now[0], 0);
	assert_string_equal(g->rows[3].site, "main.steady");
	assert_int_equal(g->rows[3].delta[0], -2);
	gh_growth__free(g);
	/* the runtime's own, labelled (pprof.Do): three at one stack */
	assert_int_equal(gh_profile__kind(self), GH_KIND_GOROUTINE);
	assert_true(self->total[0] >= 4);
	assert_int_equal(gh_profile__diff(heap, now, &back, &err), -1);
	assert_int_equal(err.code, GH_E_USAGE);
	assert_non_null(strstr(err.msg, "heap profile and NEW a goroutine"));
	free(buf);
	gh_profile__free(self);
	gh_profile__free(d);
	gh_profile__free(heap);
	gh_profile__free(ref);
	gh_profile__free(now);
	gh_profile__free(old);
}

static void expect_refused(const void *data, size_t n, const char *what)
{
	struct gh_profile *p = (struct gh_profile *)1;
	struct gh_err err = {GH_OK, ""};

	if (!gh_profile__read(data, n, &p, &err))
		fail_msg("%s: read as a profile", what);
	assert_null(p);
	if (err.code != GH_E_UNSUPPORTED || !strstr(err.msg, "not a pprof"))
		fail_msg("%s: status %d, %s", what, err.code, err.msg);
	assert_null(strchr(err.msg, '\n'));
}

static void test_not_heap(void **state)
{
	size_t n;
	uint8_t *cpu = slurp("cpu.pb.gz", &n);
	struct gh_profile *p;
	struct gh_err err;

	(void)state;
	expect_refused(cpu, n, "a CPU profile");
	gh_profile__read(cpu, n, &p, &err);
	assert_non_null(strstr(err.msg, "samples/count, cpu/nanoseconds"));
	free(cpu);
	expect_refused("", 0, "nothing");
	expect_refused("\x1f\x8b\x08\x00garbage", 12, "damaged gzip");
	assert_int_equal(gh_profile__read_file("/nonexistent/x", &p, &err), -1);
	assert_int_equal(err.code, GH_E_USAGE);
}

/* Every prefix, of the plain and of the gzip bytes: a profile or a
 * refusal, nothing read out of bounds (ASan), nothing leaked. */
static void check_any(const uint8_t *data, size_t n)
{
	struct gh_profile *p;
	struct gh_err err;

	if (gh_profile__read(data, n, &p, &err))
		assert_int_equal(err.code, GH_E_UNSUPPORTED);
	else
		gh_profile__free(p);
}

static void test_truncated(void **state)
{
	const char *names[] = {"new.pb", "new.pb.gz"};

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		size_t n;
		uint8_t *data = slurp(names[k], &n);

		for (size_t i = 0; i < n; i++) {
			uint8_t *cut = malloc(i + 1); /* exact size: ASan */

			memcpy(cut, data, i);
			check_any(cut, i);
			free(cut);
		}
		free(data);
	}
}

/* Each byte changed to values that make varints long, lengths large and
 * tags other. */
static void test_mutated(void **state)
{
	static const uint8_t with[] = {0x00, 0x01, 0x7f, 0x80,
				       0xff, 0x0a, 0x12};
	size_t n;
	uint8_t *data = slurp("new.pb", &n);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		uint8_t was = data[i];

		for (size_t k = 0; k < sizeof(with); k++) {
			data[i] = with[k];
			check_any(data, n);
		}
		data[i] = was;
	}
	free(data);
}

/* ---- hand-made messages ---- */

struct msg {
	uint8_t b[512];
	size_t n;
};

static void put_byte(struct msg *m, uint8_t c)
{
	assert_true(m->n < sizeof(m->b));
	m->b[m->n++] = c;
}

static void put_varint(struct msg *m, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		put_byte(m, (uint8_t)(v | 0x80));
	put_byte(m, (uint8_t)v);
}

static void put_num(struct msg *m, unsigned field, uint64_t v)
{
	put_varint(m, field << 3);
	put_varint(m, v);
}

static void put_bytes(struct msg *m, unsigned field, const void *p, size_t n)
{
	put_varint(m, field << 3 | 2);
	put_varint(m, n);
	for (size_t i = 0; i < n; i++)
		put_byte(m, ((const uint8_t *)p)[i]);
}

static void put_msg(struct msg *m, unsigned field, const struct msg *sub)
{
	put_bytes(m, field, sub->b, sub->n);
}

/* Strings: 0 "", 1-8 the heap types and units, 9 "main.f", 10 "bytes". */
static const char *const strs[] = {
	"",	 "alloc_objects", "count", "alloc_space",
	"bytes", "inuse_objects", "count", "inuse_space",
	"bytes", "main.f",	  "bytes"};

/* A valid heap profile's string table and sample types; the cases add
 * their function, location and sample. */
static void header(struct msg *m)
{
	m->n = 0;
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		put_bytes(m, 6, strs[i], strlen(strs[i]));
	for (unsigned t = 0; t < 4; t++) {
		struct msg vt = {.n = 0};

		put_num(&vt, 1, 1 + 2 * t);
		put_num(&vt, 2, 2 + 2 * t);
		put_msg(m, 1, &vt);
	}
}

/* function ID fid named string name; location ID lid calling it. */
static void function(struct msg *m, uint64_t fid, uint64_t name)
{
	struct msg f = {.n = 0};

	put_num(&f, 1, fid);
	put_num(&f, 2, name);
	put_msg(m, 5, &f);
}

static void location(struct msg *m, uint64_t lid, uint64_t fid)
{
	struct msg l = {.n = 0}, line = {.n = 0};

	put_num(&line, 1, fid);
	put_num(&line, 2, 7);
	put_num(&l, 1, lid);
	put_num(&l, 3, 0x401000);
	put_msg(&l, 4, &line);
	put_msg(m, 4, &l);
}

/* A sample at location lid with nvals values. */
static void sample(struct msg *m, uint64_t lid, int nvals)
{
	struct msg s = {.n = 0}, vals = {.n = 0};

	put_num(&s, 1, lid);
	for (int i = 0; i < nvals; i++)
		put_varint(&vals, (uint64_t)(i + 1));
	put_msg(&s, 2, &vals);
	put_msg(m, 2, &s);
}

/* A profile of one sample: function 1 named by string name, location 1
 * calling function fid, a sample at location lid with nvals values. */
static void profile(struct msg *m, uint64_t name, uint64_t fid, uint64_t lid,
		    int nvals)
{
	header(m);
	function(m, 1, name);
	location(m, 1, fid);
	sample(m, lid, nvals);
}

static void valid(struct msg *m)
{
	profile(m, 9, 1, 1, 4);
}

static void test_hand_made_valid(void **state)
{
	struct gh_profile *p;
	struct gh_err err;
	struct msg m;

	(void)state;
	valid(&m);
	if (gh_profile__read(m.b, m.n, &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(p->nsamples, 1);
	assert_int_equal(p->samples[0].value[GH_INUSE_SPACE], 4);
	assert_string_equal(p->functions[0].name, "main.f");
	gh_profile__free(p);
}

static void test_hostile(void **state)
{
	struct msg m;

	(void)state;
	/* an 11-byte varint as a tag */
	valid(&m);
	for (int i = 0; i < 10; i++)
		put_byte(&m, 0xff);
	put_byte(&m, 0x01);
	expect_refused(m.b, m.n, "overlong varint");
	/* a varint cut at the end */
	valid(&m);
	put_byte(&m, 0x80);
	expect_refused(m.b, m.n, "cut varint");
	/* a string whose length runs past the end */
	valid(&m);
	put_varint(&m, 6 << 3 | 2);
	put_varint(&m, 100);
	put_byte(&m, 'x');
	expect_refused(m.b, m.n, "length past the end");
	/* a huge length */
	valid(&m);
	put_varint(&m, 2 << 3 | 2);
	put_varint(&m, 1ULL << 40);
	expect_refused(m.b, m.n, "huge length");
	/* a group (wire type 3) */
	valid(&m);
	put_varint(&m, 7 << 3 | 3);
	expect_refused(m.b, m.n, "group");
	/* field number 0 */
	valid(&m);
	put_varint(&m, 0);
	put_varint(&m, 1);
	expect_refused(m.b, m.n, "field 0");
	/* a sample at a location that does not exist */
	profile(&m, 9, 1, 2, 4);
	expect_refused(m.b, m.n, "unknown location");
	/* a line naming a function that does not exist */
	profile(&m, 9, 3, 1, 4);
	expect_refused(m.b, m.n, "unknown function");
	/* a name past the string table */
	profile(&m, 1000, 1, 1, 4);
	expect_refused(m.b, m.n, "string index");
	/* two locations with one ID */
	valid(&m);
	location(&m, 1, 1);
	expect_refused(m.b, m.n, "duplicate ID");
	/* ID 0 */
	header(&m);
	function(&m, 0, 9);
	expect_refused(m.b, m.n, "ID 0");
	/* too many and too few values */
	profile(&m, 9, 1, 1, 5);
	expect_refused(m.b, m.n, "five values");
	profile(&m, 9, 1, 1, 3);
	expect_refused(m.b, m.n, "three values");
	/* a string table not starting with "" */
	m.n = 0;
	put_bytes(&m, 6, "x", 1);
	expect_refused(m.b, m.n, "no empty string");
	/* a number field sent as bytes */
	valid(&m);
	put_bytes(&m, 12, "ab", 2);
	expect_refused(m.b, m.n, "period as bytes");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_diff_is_merge),
		cmocka_unit_test(test_diff_round_trip),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_goroutine_diff),
		cmocka_unit_test(test_not_heap),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_mutated),
		cmocka_unit_test(test_hand_made_valid),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
