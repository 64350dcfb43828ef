/* test_delta.c - gh_profile__delta held to what net/http/pprof computes
 * for ?seconds=N: the two profiles written as pprof files, and
 * writers_ref's delta of them (github.com/google/pprof/profile: the
 * earlier scaled by -1, merged with the later, as serveDeltaProfile does)
 * dumped next to our delta's pprof file, entry for entry, ids and order
 * included. On a hand-made pair whose answer is also spelled out here
 * (a sample grown, one unchanged and so dropped with the location and
 * function only it used, one vanished, one new, tables in another order)
 * and on random pairs: tables shuffled and padded with duplicates, a
 * library mapped elsewhere, stacks that repeat, vanish, appear, or come
 * to zero. A goroutine profile's pair, whose samples are keyed by their
 * string labels too (as a set: pairs in another order are the same key).
 * And the refusals: profiles of two processes or runtimes, or without
 * their samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "goheap.h"
#include "oracle.h"
#include "profile/sink.h"

/* ---- profiles built by hand, every table the profile's own ---- */

static void *grown(void *v, size_t n, size_t size)
{
	v = realloc(v, (n + 1) * size);
	assert_non_null(v);
	return v;
}

static struct gh_profile *new_profile(int64_t time_ns)
{
	struct gh_profile *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	p->pid = 4242;
	p->runtime = p->nruntimes = 1;
	snprintf(p->build_id, sizeof(p->build_id), "abc123");
	snprintf(p->go_version, sizeof(p->go_version), "go1.22.12");
	p->period = 524288;
	p->time_ns = time_ns;
	return p;
}

static uint32_t add_mapping(struct gh_profile *p, uint64_t start,
			    uint64_t limit, const char *file, const char *id)
{
	struct gh_mapping *m;

	p->mappings = grown(p->mappings, p->nmappings, sizeof(*m));
	m = &p->mappings[p->nmappings];
	*m = (struct gh_mapping){start,	       limit,	   0,
				 strdup(file), strdup(id), true};
	return (uint32_t)++p->nmappings; /* 1-based */
}

static uint32_t add_function(struct gh_profile *p, const char *name,
			     const char *file, int64_t start)
{
	struct gh_function *f;

	p->functions = grown(p->functions, p->nfunctions, sizeof(*f));
	f = &p->functions[p->nfunctions];
	*f = (struct gh_function){strdup(name), strdup(file), start};
	return (uint32_t)p->nfunctions++;
}

/* A location of n lines: functions fn[i] at lines line[i]. */
static uint32_t add_location(struct gh_profile *p, uint64_t addr,
			     uint32_t mapping, size_t n, const uint32_t *fn,
			     const int64_t *line)
{
	struct gh_location *l;

	p->locations = grown(p->locations, p->nlocations, sizeof(*l));
	l = &p->locations[p->nlocations];
	*l = (struct gh_location){addr, mapping, (uint32_t)n,
				  calloc(n ? n : 1, sizeof(*l->lines))};
	assert_non_null(l->lines);
	for (size_t i = 0; i < n; i++)
		l->lines[i] = (struct gh_line){fn[i], line[i]};
	return (uint32_t)p->nlocations++;
}

static void add_sample(struct gh_profile *p, size_t n, const uint32_t *locs,
		       const int64_t *v, bool has_label, int64_t label)
{
	struct gh_sample *s;

	p->samples = grown(p->samples, p->nsamples, sizeof(*s));
	s = &p->samples[p->nsamples++];
	*s = (struct gh_sample){.nlocs = (uint32_t)n,
				.locs = malloc((n ? n : 1) * 4),
				.value = {v[0], v[1], v[2], v[3]},
				.bytes_label = label,
				.has_bytes_label = has_label};
	assert_non_null(s->locs);
	memcpy(s->locs, locs, n * sizeof(*locs));
}

/* ---- against the oracle ---- */

static struct text pprof_text(const struct gh_profile *p)
{
	const struct gh_write_opts o = {.sz = sizeof(struct gh_write_opts),
					.format = GH_FORMAT_PPROF,
					.index = GH_INUSE_SPACE};
	struct gh_err err = {0};
	struct text t = {0};
	FILE *f = open_memstream(&t.s, &t.len);

	assert_non_null(f);
	if (gh_profile__write(p, f, &o, &err))
		fail_msg("pprof: %s", err.msg);
	assert_int_equal(fclose(f), 0);
	return t;
}

static struct gh_profile *delta(const struct gh_profile *before,
				const struct gh_profile *after)
{
	struct gh_profile *d;
	struct gh_err err = {0};

	if (gh_profile__delta(before, after, &d, &err))
		fail_msg("delta: %s", err.msg);
	return d;
}

/* Our delta of before and after, as google/pprof reads its pprof file,
 * must be what writers_ref computes from their pprof files. */
static void expect_oracle(const char *name, const struct gh_profile *before,
			  const struct gh_profile *after,
			  const struct gh_profile *ours)
{
	char b[] = "/tmp/gh_delta_XXXXXX", a[] = "/tmp/gh_delta_XXXXXX",
	     d[] = "/tmp/gh_delta_XXXXXX";
	char cmd[8192];
	struct text got, want;

	save(b, pprof_text(before));
	save(a, pprof_text(after));
	save(d, pprof_text(ours));
	snprintf(cmd, sizeof(cmd), "'%s' pprof '%s' 2>&1",
		 oracle_tool("writers_ref"), d);
	got = run(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' delta '%s' '%s' 2>&1",
		 oracle_tool("writers_ref"), b, a);
	want = run(cmd);
	expect_text(name, got.s, want.s);
	free(got.s);
	free(want.s);
	unlink(b);
	unlink(a);
	unlink(d);
}

/* ---- a pair by hand ---- */

#define V(a, b, c, d) ((const int64_t[]){a, b, c, d})
#define L(...)	      ((const uint32_t[]){__VA_ARGS__})

/* Functions and locations the hand-made pair shares, each profile
 * numbering them its own way: stack A is [grow, main], B [same, main], C
 * [gone], D [fresh]. */
enum { F_GROW, F_MAIN, F_SAME, F_GONE, F_FRESH, NFUNCS };
enum { L_GROW, L_MAIN, L_SAME, L_GONE, L_FRESH, NLOCS };

static const char *const fnames[NFUNCS] = {
	"main.grow", "main.main", "main.same", "main.gone", "main.fresh"};

/* One profile of the pair: its tables in order[] (a permutation). */
static struct gh_profile *hand_profile(int64_t t, const int *order,
				       uint32_t *loc)
{
	struct gh_profile *p = new_profile(t);
	uint32_t fn[NFUNCS],
		m = add_mapping(p, 0x400000, 0x800000, "/bin/app", "abc123");

	for (int i = 0; i < NFUNCS; i++)
		fn[order[i]] = add_function(p, fnames[order[i]], "/src/app.go",
					    10 * order[i]);
	for (int i = 0; i < NLOCS; i++) {
		int k = order[i];

		loc[k] = add_location(p, 0x401000 + 0x100 * (uint64_t)k, m, 1,
				      &fn[k], (const int64_t[]){100 + k});
	}
	return p;
}

static void test_hand_made(void **state)
{
	static const int fwd[] = {0, 1, 2, 3, 4}, rev[] = {4, 3, 2, 1, 0};
	struct gh_profile *before, *after, *d;
	uint32_t lb[NLOCS], la[NLOCS];

	(void)state;
	before = hand_profile(1000000000, fwd, lb);
	add_sample(before, 2, L(lb[L_GROW], lb[L_MAIN]), V(10, 1000, 5, 500),
		   true, 100);
	add_sample(before, 2, L(lb[L_SAME], lb[L_MAIN]), V(4, 400, 4, 400),
		   true, 100);
	add_sample(before, 1, L(lb[L_GONE]), V(1, 8, 1, 8), true, 8);
	after = hand_profile(31000000000, rev, la);
	after->period = 4096;
	add_sample(after, 1, L(la[L_FRESH]), V(3, 30, 3, 30), false, 0);
	add_sample(after, 2, L(la[L_SAME], la[L_MAIN]), V(4, 400, 4, 400), true,
		   100);
	add_sample(after, 2, L(la[L_GROW], la[L_MAIN]), V(12, 1200, 5, 500),
		   true, 100);
	d = delta(before, after);

	/* grow +2 allocated, gone gone, fresh new; same came to zero and
	 * went with its location and function */
	assert_int_equal(d->nsamples, 3);
	assert_int_equal(d->nlocations, 4);
	assert_int_equal(d->nfunctions, 4);
	assert_memory_equal(d->samples[0].value, V(2, 200, 0, 0), 32);
	assert_memory_equal(d->samples[1].value, V(-1, -8, -1, -8), 32);
	assert_memory_equal(d->samples[2].value, V(3, 30, 3, 30), 32);
	assert_false(d->samples[2].has_bytes_label);
	for (size_t i = 0; i < d->nfunctions; i++)
		assert_string_not_equal(d->functions[i].name, "main.same");
	assert_string_equal(
		d->functions
			[d->locations[d->samples[2].locs[0]].lines[0].function]
				.name,
		"main.fresh");
	assert_int_equal(d->time_ns, 31000000000);
	assert_int_equal(d->duration_ns, 30000000000);
	assert_int_equal(d->period, 524288); /* the larger, as Merge */
	assert_int_equal(d->total[GH_ALLOC_SPACE], 200 - 8 + 30);
	assert_string_equal(d->top_site, "main.fresh");
	expect_oracle("the hand-made delta", before, after, d);
	gh_profile__free(d);
	gh_profile__free(before);
	gh_profile__free(after);
}

/* ---- a goroutine profile's pair: string labels in the key ---- */

/* p as the library makes a goroutine profile: its own x, samples kept. */
static void as_goroutines(struct gh_profile *p)
{
	p->x = calloc(1, sizeof(*p->x));
	assert_non_null(p->x);
	p->x->kind = GH_KIND_GOROUTINE;
	p->x->kept = true;
	p->period = 1;
}

/* One goroutine sample of count goroutines on stack locs[0..n), its
 * labels the pairs kv[0..2 * nkv). */
static void add_goroutines(struct gh_profile *p, size_t n, const uint32_t *locs,
			   int64_t count, const char *const *kv, size_t nkv)
{
	struct gh_profile_x *x = p->x;
	size_t i = p->nsamples;

	add_sample(p, n, locs, V(count, 0, 0, 0), false, 0);
	x->labels = grown(x->labels, i, sizeof(*x->labels));
	x->nlabels = grown(x->nlabels, i, sizeof(*x->nlabels));
	x->labels[i] = nkv ? calloc(2 * nkv, sizeof(char *)) : NULL;
	x->nlabels[i] = nkv;
	for (size_t j = 0; j < 2 * nkv; j++)
		assert_non_null(x->labels[i][j] = strdup(kv[j]));
}

#define KV(...) ((const char *const[]){__VA_ARGS__})

static void test_goroutine_labels(void **state)
{
	static const int fwd[] = {0, 1, 2, 3, 4}, rev[] = {4, 3, 2, 1, 0};
	struct gh_profile *before, *after, *d;
	uint32_t lb[NLOCS], la[NLOCS];
	size_t n;
	char *const *kv;

	(void)state;
	before = hand_profile(1000000000, fwd, lb);
	as_goroutines(before);
	add_goroutines(before, 2, L(lb[L_GROW], lb[L_MAIN]), 3, NULL, 0);
	add_goroutines(before, 2, L(lb[L_GROW], lb[L_MAIN]), 2,
		       KV("a", "1", "b", "2"), 2);
	add_goroutines(before, 1, L(lb[L_GONE]), 1, KV("x", "y"), 1);
	after = hand_profile(3000000000, rev, la);
	as_goroutines(after);
	add_goroutines(after, 1, L(la[L_FRESH]), 4, KV("k", "v"), 1);
	add_goroutines(after, 2, L(la[L_GROW], la[L_MAIN]), 2,
		       KV("b", "2", "a", "1"), 2);
	add_goroutines(after, 2, L(la[L_GROW], la[L_MAIN]), 5, NULL, 0);
	d = delta(before, after);

	/* {} +2 on grow; {a,b} (its pairs in another order) came to zero;
	 * gone's {x=y} -1; fresh's {k=v} +4 */
	assert_int_equal(gh_profile__kind(d), GH_KIND_GOROUTINE);
	assert_int_equal(d->nsamples, 3);
	assert_int_equal(d->samples[0].value[0], 2);
	assert_null(profile__labels_of(d, &d->samples[0], &n));
	assert_int_equal(d->samples[1].value[0], -1);
	kv = profile__labels_of(d, &d->samples[1], &n);
	assert_int_equal(n, 1);
	assert_string_equal(kv[0], "x");
	assert_string_equal(kv[1], "y");
	assert_int_equal(d->samples[2].value[0], 4);
	kv = profile__labels_of(d, &d->samples[2], &n);
	assert_int_equal(n, 1);
	assert_string_equal(kv[1], "v");
	assert_int_equal(d->duration_ns, 2000000000);
	assert_int_equal(d->period, 1);
	expect_oracle("the goroutine delta", before, after, d);
	gh_profile__free(d);
	gh_profile__free(before);
	gh_profile__free(after);
}

/* ---- random pairs ---- */

/* What both profiles of a random pair draw from. */
struct universe {
	size_t nfunc, nloc, nstack;
	struct {
		int func[3], nlines;
		int64_t line[3];
		int map; /* 0 none, 1 the program, 2 the library */
	} loc[40];
	struct {
		int loc[8], n;
		bool has_label;
		int64_t label;
	} stack[60];
};

static void draw_universe(struct universe *u, uint64_t *st)
{
	u->nfunc = 2 + next_rand(st) % 12;
	u->nloc = 2 + next_rand(st) % 38;
	u->nstack = 1 + next_rand(st) % 60;
	for (size_t i = 0; i < u->nloc; i++) {
		u->loc[i].nlines = (int)(next_rand(st) % 4);
		for (int j = 0; j < u->loc[i].nlines; j++) {
			u->loc[i].func[j] = (int)(next_rand(st) % u->nfunc);
			u->loc[i].line[j] = (int64_t)(next_rand(st) % 50);
		}
		u->loc[i].map =
			(int)(next_rand(st) % 5 ? 1 + next_rand(st) % 2 : 0);
	}
	for (size_t i = 0; i < u->nstack; i++) {
		u->stack[i].n = (int)(next_rand(st) % 8);
		for (int j = 0; j < u->stack[i].n; j++)
			u->stack[i].loc[j] = (int)(next_rand(st) % u->nloc);
		u->stack[i].has_label = next_rand(st) % 4;
		/* a label of 0 is written as none, and read so */
		u->stack[i].label = next_rand(st) % 6
					    ? (int64_t)(8 << next_rand(st) % 6)
					    : 0;
	}
}

static void shuffle(int *v, size_t n, uint64_t *st)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (int)i;
	for (size_t i = n; i > 1; i--) {
		size_t j = next_rand(st) % i;
		int t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* One profile of u: its tables shuffled, some entries twice (Merge
 * makes them one), the library at base lib; stack i's values in v[i]
 * (none when all zero), some stacks twice over. */
static struct gh_profile *random_side(const struct universe *u, int64_t t,
				      uint64_t lib, int64_t (*v)[4],
				      uint64_t *st)
{
	struct gh_profile *p = new_profile(t);
	int order[40], fn[14], loc[40];
	uint32_t maps[3] = {0};

	if (next_rand(st) % 4) {
		maps[1] =
			add_mapping(p, 0x400000, 0x900000, "/bin/prog", "b1d");
		maps[2] =
			add_mapping(p, lib, lib + 0x1800, "/lib/libc.so.6", "");
	} else { /* the library first */
		maps[2] =
			add_mapping(p, lib, lib + 0x1800, "/lib/libc.so.6", "");
		maps[1] =
			add_mapping(p, 0x400000, 0x900000, "/bin/prog", "b1d");
	}
	shuffle(order, u->nfunc, st);
	for (size_t i = 0; i < u->nfunc; i++) {
		char name[32];
		int k = order[i];

		snprintf(name, sizeof(name), "%s.f%d",
			 k % 3 ? "main" : "runtime", k);
		fn[k] = (int)add_function(p, name, k % 2 ? "/a.go" : "/b.go",
					  k % 4);
		if (next_rand(st) % 8 == 0)
			fn[k] = (int)add_function(
				p, name, k % 2 ? "/a.go" : "/b.go", k % 4);
	}
	shuffle(order, u->nloc, st);
	for (size_t i = 0; i < u->nloc; i++) {
		int k = order[i], m = u->loc[k].map;
		uint32_t f[3];
		uint64_t addr = m == 2 ? lib + 0x10 * (uint64_t)k
				       : 0x401000 + 0x10 * (uint64_t)k;

		for (int j = 0; j < u->loc[k].nlines; j++)
			f[j] = (uint32_t)fn[u->loc[k].func[j]];
		loc[k] = (int)add_location(p, addr, maps[m],
					   (size_t)u->loc[k].nlines, f,
					   u->loc[k].line);
		if (next_rand(st) % 8 == 0)
			loc[k] = (int)add_location(p, addr, maps[m],
						   (size_t)u->loc[k].nlines, f,
						   u->loc[k].line);
	}
	for (size_t i = 0; i < u->nstack; i++) {
		uint32_t ids[8];

		if (!v[i][0] && !v[i][1] && !v[i][2] && !v[i][3])
			continue;
		for (int j = 0; j < u->stack[i].n; j++)
			ids[j] = (uint32_t)loc[u->stack[i].loc[j]];
		for (int twice = next_rand(st) % 6 ? 1 : 2; twice--;)
			add_sample(p, (size_t)u->stack[i].n, ids, v[i],
				   u->stack[i].has_label, u->stack[i].label);
	}
	return p;
}

/* A random pair: each stack's values before, and after them: the same
 * (a zero delta), grown, gone, or new. */
static void test_random_pairs(void **state)
{
	struct universe u;
	int64_t vb[60][4], va[60][4];
	uint64_t seed, st;
	char name[64];

	(void)state;
	for (seed = 1; seed <= 200; seed++) {
		struct gh_profile *before, *after, *d;

		st = seed * 0x9e3779b97f4a7c15ULL + 7;
		draw_universe(&u, &st);
		for (size_t i = 0; i < u.nstack; i++) {
			uint64_t what = next_rand(&st) % 5;
			int64_t objs = (int64_t)(next_rand(&st) % 100),
				size = 16;

			memset(vb[i], 0, sizeof(vb[i]));
			if (what != 4) /* 4: new in after */
				memcpy(vb[i],
				       (int64_t[]){objs + 3, (objs + 3) * size,
						   objs, objs * size},
				       sizeof(vb[i]));
			memcpy(va[i], vb[i], sizeof(va[i]));
			if (what == 1 || what == 4) {
				va[i][0] += 5;
				va[i][1] += 5 * size;
				va[i][2] += (int64_t)(next_rand(&st) % 5);
			} else if (what == 2) {
				memset(va[i], 0, sizeof(va[i]));
			}
		}
		before = random_side(&u, 1000, 0x7f0000000000, vb, &st);
		/* the library mapped elsewhere now and then */
		after = random_side(&u, 61000,
				    next_rand(&st) % 4 ? 0x7f0000000000
						       : 0x7f0000200000,
				    va, &st);
		d = delta(before, after);
		snprintf(name, sizeof(name),
			 "the delta of random pair %" PRIu64, seed);
		expect_oracle(name, before, after, d);
		gh_profile__free(d);
		gh_profile__free(before);
		gh_profile__free(after);
	}
}

/* ---- refusals ---- */

static void expect_refused(const struct gh_profile *before,
			   const struct gh_profile *after, const char *what)
{
	struct gh_profile *d = (struct gh_profile *)1;
	struct gh_err err = {0};

	assert_int_equal(gh_profile__delta(before, after, &d, &err), -1);
	assert_null(d);
	assert_int_equal(err.code, GH_E_USAGE);
	if (!strstr(err.msg, what))
		fail_msg("refusal says \"%s\", not \"%s\"", err.msg, what);
}

static void test_refusals(void **state)
{
	struct gh_profile *a = new_profile(1), *b = new_profile(2);
	uint32_t f = add_function(a, "main.f", "/f.go", 1);
	struct gh_profile_x nodata = {.nodata = true}, built = {0};

	(void)state;
	add_location(a, 0x401000, 0, 1, &f, (const int64_t[]){3});
	add_sample(a, 1, L(0), V(1, 1, 1, 1), false, 0);
	b->pid = 4243;
	expect_refused(a, b, "one Go runtime");
	b->pid = a->pid;
	b->runtime = 2;
	expect_refused(a, b, "one Go runtime");
	b->runtime = a->runtime;
	snprintf(b->build_id, sizeof(b->build_id), "other");
	expect_refused(b, a, "build ID");
	snprintf(b->build_id, sizeof(b->build_id), "%s", a->build_id);
	b->x = &built; /* built for formats only */
	expect_refused(a, b, "keep_samples");
	b->x = &nodata;
	expect_refused(b, a, "no data");
	b->x = NULL;
	a->samples[0].locs[0] = 7;
	expect_refused(a, b, "missing location");
	a->samples[0].locs[0] = 0;
	a->locations[0].mapping = 3;
	expect_refused(b, a, "missing location");
	gh_profile__free(a);
	gh_profile__free(b);
}

/* The delta writes in the formats of a profile that kept its samples. */
static void test_written(void **state)
{
	static const enum gh_format formats[] = {GH_FORMAT_TOP, GH_FORMAT_PPROF,
						 GH_FORMAT_JSON,
						 GH_FORMAT_JSONL};
	struct gh_profile *a = new_profile(1), *b = new_profile(5), *d;
	uint32_t f = add_function(a, "main.f", "/f.go", 1);
	FILE *out = fopen("/dev/null", "w");
	struct gh_err err = {0};

	(void)state;
	assert_non_null(out);
	add_location(a, 0x401000, 0, 1, &f, (const int64_t[]){3});
	add_sample(a, 1, L(0), V(1, 16, 1, 16), true, 16);
	f = add_function(b, "main.f", "/f.go", 1);
	add_location(b, 0x401000, 0, 1, &f, (const int64_t[]){3});
	add_sample(b, 1, L(0), V(4, 64, 2, 32), true, 16);
	d = delta(a, b);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct gh_write_opts o = {.sz = sizeof(struct gh_write_opts),
					  .format = formats[i],
					  .index = GH_INUSE_SPACE};

		if (gh_profile__write(d, out, &o, &err))
			fail_msg("%s: %s", gh_format__name(formats[i]),
				 err.msg);
	}
	fclose(out);
	gh_profile__free(d);
	gh_profile__free(a);
	gh_profile__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_made),
		cmocka_unit_test(test_goroutine_labels),
		cmocka_unit_test(test_random_pairs),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_written),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
