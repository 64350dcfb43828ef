/* test_pprofmemo.c - the pprof renderer with a memo of the process's last
 * profile (write/gzmemo.h): its gzip stream, made of pieces compressed
 * afresh or copied from the last profile, inflated by zlib (CRC-32 and
 * length checked) must give exactly the bytes the renderer gives without
 * a memo, and Go's compress/gzip and google/pprof must read it as they
 * read that one (writers_ref, tests/unit/fixtures/writers.sh). Profiles
 * change as a process's do between two snapshots: new buckets in front,
 * a few counters changed, or nothing; the memo must then copy the pieces
 * that did not change and only those, never those holding a labelled
 * sample. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "goheap.h"
#include "oracle.h"
#include "write/gzmemo.h"
#include "write/render.h"

#define NLOCS	 300
#define NFUNCS	 60
#define NSAMPLES 30000

static struct gh_function funcs[NFUNCS];
static struct gh_line lines[NLOCS];
static struct gh_location locs[NLOCS];
static struct gh_mapping map = {0x400000, 0x900000, 0, "/bin/prog", "", true};
static char names[NFUNCS][16];

static void tables(void)
{
	for (size_t i = 0; i < NFUNCS; i++) {
		snprintf(names[i], sizeof(names[i]), "main.f%zu", i);
		funcs[i] = (struct gh_function){.name = names[i],
						.filename = "/src/f.go"};
	}
	for (size_t i = 0; i < NLOCS; i++) {
		lines[i] = (struct gh_line){.function = i % NFUNCS,
					    .line = (int64_t)i};
		locs[i] = (struct gh_location){0x400000 + 16 * i, 1, 1,
					       &lines[i]};
	}
}

static void random_sample(struct gh_sample *s, uint64_t *st)
{
	int64_t size = (int64_t)8 << next_rand(st) % 12;
	int64_t objs = (int64_t)(next_rand(st) % 1000);

	s->nlocs = 3 + next_rand(st) % 10;
	s->locs = calloc(s->nlocs, sizeof(*s->locs));
	assert_non_null(s->locs);
	for (size_t j = 0; j < s->nlocs; j++)
		s->locs[j] = (uint32_t)(next_rand(st) % NLOCS);
	s->value[GH_ALLOC_OBJECTS] = objs + (int64_t)(next_rand(st) % 50);
	s->value[GH_ALLOC_SPACE] = s->value[GH_ALLOC_OBJECTS] * size;
	s->value[GH_INUSE_OBJECTS] = objs;
	s->value[GH_INUSE_SPACE] = objs * size;
	s->bytes_label = size;
	s->has_bytes_label = true;
}

/* A heap profile of n samples; 'fresh' more in front of the same ones
 * (new buckets), and the counters of 'changed' of them changed. */
static void heap_profile(struct gh_profile *p, size_t n, size_t fresh,
			 size_t changed)
{
	uint64_t st = 42, st2 = 7;
	struct gh_sample *s = calloc(n + fresh, sizeof(*s));

	assert_non_null(s);
	for (size_t i = 0; i < fresh; i++)
		random_sample(&s[i], &st2);
	for (size_t i = 0; i < n; i++)
		random_sample(&s[fresh + i], &st);
	for (size_t i = 0; i < changed; i++) {
		struct gh_sample *c = &s[fresh + (i + 1) * n / (changed + 1)];

		c->value[GH_ALLOC_OBJECTS] += 3;
		c->value[GH_ALLOC_SPACE] += 3 * c->bytes_label;
	}
	*p = (struct gh_profile){.period = 524288,
				 .time_ns = 1700000000000000000,
				 .mappings = &map,
				 .nmappings = 1,
				 .locations = locs,
				 .nlocations = NLOCS,
				 .functions = funcs,
				 .nfunctions = NFUNCS,
				 .samples = s,
				 .nsamples = n + fresh};
}

static void free_profile(struct gh_profile *p)
{
	for (size_t i = 0; i < p->nsamples; i++)
		free(p->samples[i].locs);
	free(p->samples);
}

/* p's pprof file, rendered with memo m (NULL: none), sample by sample. */
static struct text render(const struct gh_profile *p, struct gzmemo *m)
{
	struct gh_write_opts o = {.sz = sizeof(o),
				  .format = GH_FORMAT_PPROF,
				  .index = GH_INUSE_SPACE};
	struct gh_profile_x x = {0};
	struct gh_profile w = *p;
	struct gh_err err = {0};
	struct text t = {0};
	struct psink s;
	FILE *f;

	if (render_open(&o, true, &s, &err))
		fail_msg("render: %s", err.msg);
	render_pprof_memo(&s, m);
	for (size_t i = 0; i < p->nsamples; i++)
		assert_int_equal(s.ops->sample(s.st, p, &p->samples[i]), 0);
	if (s.ops->finish(s.st, p, &err))
		fail_msg("finish: %s", err.msg);
	x = (struct gh_profile_x){.sinks = &s, .nsinks = 1};
	w.samples = NULL;
	w.nsamples = 0;
	w.x = &x;
	f = open_memstream(&t.s, &t.len);
	assert_non_null(f);
	if (gh_profile__write(&w, f, &o, &err))
		fail_msg("write: %s", err.msg);
	assert_int_equal(fclose(f), 0);
	s.ops->free(s.st);
	return t;
}

/* The gzip stream gz inflated by zlib, which checks its CRC and length. */
static struct text inflated(struct text gz)
{
	struct text t = {malloc(64u << 20), 0};
	z_stream zs = {0};

	assert_non_null(t.s);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)gz.s;
	zs.avail_in = (uInt)gz.len;
	zs.next_out = (Bytef *)t.s;
	zs.avail_out = 64u << 20;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	assert_int_equal(zs.avail_in, 0);
	t.len = zs.total_out;
	inflateEnd(&zs);
	return t;
}

/* Go's reading of the file: google/pprof's dump of it (Go's gzip reader
 * checks the CRC and length too). */
static struct text go_reading(struct text gz)
{
	char path[] = "/tmp/gh_pprofmemo_XXXXXX";
	char cmd[512];
	struct text t;

	save(path, (struct text){memcpy(malloc(gz.len), gz.s, gz.len), gz.len});
	snprintf(cmd, sizeof(cmd), "'%s' pprof '%s' 2>&1",
		 oracle_tool("writers_ref"), path);
	t = run(cmd);
	unlink(path);
	return t;
}

/* p rendered with memo m says what p says without one, to zlib and to Go;
 * the memo then holds p's pieces. */
static void expect_same_profile(const struct gh_profile *p, struct gzmemo *m)
{
	struct text with = render(p, m), without = render(p, NULL);
	struct text a = inflated(with), b = inflated(without);
	struct text ga = go_reading(with), gb = go_reading(without);

	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.s, b.s, a.len);
	expect_text("google/pprof's reading of the pieced file", ga.s, gb.s);
	free(with.s);
	free(without.s);
	free(a.s);
	free(b.s);
	free(ga.s);
	free(gb.s);
}

static void test_pieces_copied_when_unchanged(void **state)
{
	struct gzmemo m = {0};
	struct gh_profile p, q;
	size_t pieces;

	(void)state;
	tables();
	heap_profile(&p, NSAMPLES, 0, 0);
	/* A process's first profile keeps nothing. */
	free(render(&p, &m).s);
	assert_true(m.primed);
	assert_int_equal(m.n, 0);
	/* Its second keeps its pieces, copying none. */
	expect_same_profile(&p, &m);
	pieces = m.n;
	assert_true(pieces >= 3);
	assert_int_equal(m.reused, 0);
	/* New buckets in front, three counters changed: the pieces that
	 * hold them are compressed, the others copied. */
	heap_profile(&q, NSAMPLES, 100, 3);
	expect_same_profile(&q, &m);
	assert_true(m.made >= 1 && m.made <= 4);
	assert_true(m.reused >= pieces - 4);
	assert_int_equal(m.reused + m.made, m.n);
	/* Nothing changed: every piece is copied. */
	expect_same_profile(&q, &m);
	assert_int_equal(m.made, 0);
	assert_int_equal(m.reused, m.n);
	/* A labelled sample (a diff's base) among them: the samples waiting
	 * before it are encoded first, and its piece is made, then and in
	 * the next profile (it is never matched). */
	q.samples[NSAMPLES / 2].base = true;
	expect_same_profile(&q, &m);
	assert_int_equal(m.made, 1);
	q.samples[NSAMPLES / 2].base = false;
	expect_same_profile(&q, &m);
	assert_int_equal(m.made, 1);
	expect_same_profile(&q, &m);
	assert_int_equal(m.made, 0);
	free_profile(&p);
	free_profile(&q);
	gzmemo__clear(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces_copied_when_unchanged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
