/* test_goexp.c - user/profile/goexp.c against Go itself: math.Exp on both paths
 * of math/exp_amd64.s and on math/exp_arm64.s, int64(f) on each
 * architecture, and scaleHeapSample, all as printed by the oracle program
 * tests/unit/fixtures/goexp_ref (built and run, natively and as a
 * GOARCH=arm64 build under qemu-aarch64, by fixtures/goexp.sh into
 * $GH_FIXTURES/goexp). Every answer must agree to the bit; libm's exp and
 * the other architecture's or path's must not, or the test would prove
 * nothing. */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/goexp.h"

/* The first few mismatches of a run are printed, the rest only counted. */
#define SHOW_MISMATCHES 5

static FILE *open_fixture(const char *name)
{
	const char *dir = getenv("GH_FIXTURES");
	char path[4096];
	FILE *f;

	if (!dir) {
		fail_msg(
			"GH_FIXTURES is not set: run tests/unit/run.sh, or "
			"tests/unit/fixtures/goexp.sh DIR and GH_FIXTURES=DIR");
	}
	snprintf(path, sizeof(path), "%s/goexp/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: missing: run tests/unit/fixtures/goexp.sh", path);
	return f;
}

static uint64_t f64_bits(double f)
{
	uint64_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static double f64_from_bits(uint64_t u)
{
	double f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* One math.Exp fixture: the code Go ran and its (x, exp(x)) pairs. */
struct exp_table {
	enum gomath m;
	size_t n;
	uint64_t *x, *y;
};

static const char *gomath_name(enum gomath m)
{
	switch (m) {
	case GOMATH_AMD64_SSE2:
		return "amd64 sse2";
	case GOMATH_AMD64_FMA:
		return "amd64 fma";
	default:
		return "arm64";
	}
}

/* The code the oracle of pprof.txt and scale.txt lines ran: fma is its
 * math.useFMA (always 0 on arm64). */
static enum gomath math_of(bool arm64, int fma)
{
	if (arm64)
		return GOMATH_ARM64;
	return fma ? GOMATH_AMD64_FMA : GOMATH_AMD64_SSE2;
}

static void exp_table_load(const char *name, struct exp_table *t)
{
	FILE *f = open_fixture(name);
	uint64_t x, y;
	size_t cap = 0;
	char arch[16];
	int fma;

	memset(t, 0, sizeof(*t));
	if (fscanf(f, "# goexp %*s %15s useFMA=%d", arch, &fma) != 2)
		fail_msg("%s: no '# goexp VERSION GOARCH useFMA=N' header",
			 name);
	t->m = math_of(strcmp(arch, "arm64") == 0, fma);
	while (fscanf(f, "%" SCNx64 " %" SCNx64, &x, &y) == 2) {
		if (t->n == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			t->x = realloc(t->x, cap * sizeof(*t->x));
			t->y = realloc(t->y, cap * sizeof(*t->y));
			assert_non_null(t->x);
			assert_non_null(t->y);
		}
		t->x[t->n] = x;
		t->y[t->n] = y;
		t->n++;
	}
	assert_true(feof(f));
	fclose(f);
	/* The oracle prints about a million arguments; far fewer means the
	 * fixture is truncated. */
	assert_true(t->n > 1000000);
}

static void exp_table_free(struct exp_table *t)
{
	free(t->x);
	free(t->y);
	t->x = t->y = NULL; /* cmocka's skip() may return to the caller */
}

/* How many of t's results goexp(x, m) gets wrong. */
static size_t goexp_mismatches(const struct exp_table *t, enum gomath m,
			       bool show)
{
	size_t i, bad = 0;
	uint64_t got;

	for (i = 0; i < t->n; i++) {
		got = f64_bits(goexp(f64_from_bits(t->x[i]), m));
		if (got == t->y[i])
			continue;
		if (show && bad < SHOW_MISMATCHES)
			print_error("exp(%a) [%016" PRIx64
				    "] %s: go %016" PRIx64 " c %016" PRIx64
				    "\n",
				    f64_from_bits(t->x[i]), t->x[i],
				    gomath_name(m), t->y[i], got);
		bad++;
	}
	return bad;
}

static size_t libm_mismatches(const struct exp_table *t)
{
	size_t i, bad = 0;

	for (i = 0; i < t->n; i++)
		bad += f64_bits(exp(f64_from_bits(t->x[i]))) != t->y[i];
	return bad;
}

/* One fixture of math.Exp, run by the code m. */
static void check_exp(const char *name, enum gomath m)
{
	struct exp_table t;
	size_t bad;

	exp_table_load(name, &t);
	if (t.m != m) {
		exp_table_free(&t);
		if (m == GOMATH_AMD64_FMA) {
			print_message("this CPU lacks AVX+FMA: Go's FMA path "
				      "untested\n");
			skip();
		}
		/* GODEBUG=cpu.fma=off did not take, or the arm64 build
		 * did not run as arm64 */
		fail_msg("%s: Go ran %s, not %s", name, gomath_name(t.m),
			 gomath_name(m));
	}
	bad = goexp_mismatches(&t, m, true);
	print_message("%s: %zu of %zu differ from Go\n", gomath_name(m), bad,
		      t.n);
	assert_int_equal(bad, 0);
	exp_table_free(&t);
}

static void test_exp_sse2(void **state)
{
	(void)state;
	check_exp("nofma.txt", GOMATH_AMD64_SSE2);
}

static void test_exp_fma(void **state)
{
	(void)state;
	check_exp("fma.txt", GOMATH_AMD64_FMA);
}

static void test_exp_arm64(void **state)
{
	(void)state;
	check_exp("arm64-exp.txt", GOMATH_ARM64);
}

/* The comparison has teeth: the host libm's exp, and Go's other code
 * (each other path of each architecture), each disagree with Go on some
 * of these arguments. */
static void test_exp_alternatives_differ(void **state)
{
	static const char *const names[] = {"nofma.txt", "fma.txt",
					    "arm64-exp.txt"};
	static const enum gomath all[] = {GOMATH_AMD64_SSE2, GOMATH_AMD64_FMA,
					  GOMATH_ARM64};
	struct exp_table t;
	size_t i, j, libm, other;

	(void)state;
	for (i = 0; i < 3; i++) {
		exp_table_load(names[i], &t);
		libm = libm_mismatches(&t);
		print_message("%s (%s): libm exp differs on %zu of %zu\n",
			      names[i], gomath_name(t.m), libm, t.n);
		assert_true(libm > 0);
		for (j = 0; j < 3; j++) {
			if (all[j] == t.m)
				continue;
			other = goexp_mismatches(&t, all[j], false);
			print_message("  %s differs on %zu\n",
				      gomath_name(all[j]), other);
			assert_true(other > 0);
		}
		exp_table_free(&t);
	}
}

/* One fixture of int64(f): "f int64(f)" in hex, converted by m. Returns
 * how many lines the other architecture's conversion gets wrong. */
static size_t check_conv(const char *name, enum gomath m, enum gomath other)
{
	FILE *f = open_fixture(name);
	uint64_t x, want;
	size_t n = 0, bad = 0, wrong = 0;
	int64_t got;

	while (fscanf(f, "%" SCNx64 " %" SCNx64, &x, &want) == 2) {
		got = go_f64_to_i64(f64_from_bits(x), m);
		if ((uint64_t)got != want && bad++ < SHOW_MISMATCHES)
			print_error("int64(%a) %s: go %" PRId64 " c %" PRId64
				    "\n",
				    f64_from_bits(x), gomath_name(m),
				    (int64_t)want, got);
		wrong += (uint64_t)go_f64_to_i64(f64_from_bits(x), other) !=
			 want;
		n++;
	}
	assert_true(feof(f));
	fclose(f);
	print_message("int64(f) %s: %zu of %zu differ from Go\n",
		      gomath_name(m), bad, n);
	assert_true(n > 100000);
	assert_int_equal(bad, 0);
	return wrong;
}

/* Both conversions, and they do differ (out of range, NaN). */
static void test_f64_to_i64(void **state)
{
	(void)state;
	assert_true(check_conv("conv.txt", GOMATH_AMD64_SSE2, GOMATH_ARM64) >
		    0);
	assert_true(check_conv("arm64-conv.txt", GOMATH_ARM64,
			       GOMATH_AMD64_SSE2) > 0);
}

/* Whether scale_heap_sample and scale_heap_sample_by_size, run by m,
 * give the oracle's line (want: c126 s126 c127 s127). */
static bool scale_agrees(const int64_t in[4], const int64_t want[4],
			 enum gomath m)
{
	int64_t got[4];

	scale_heap_sample(in[0], in[2], in[3], m, &got[0], &got[1]);
	scale_heap_sample_by_size(in[0], in[1], in[3], m, &got[2], &got[3]);
	return !memcmp(got, want, sizeof(got));
}

/* One scale fixture: "fma count objsize size rate c126 s126 c127 s127"
 * from the oracle's copies of both forms of scaleHeapSample. Some lines
 * must come out differently by each other code (another path of exp,
 * another architecture), or the code would not matter to a profile and
 * the test could not tell them apart. */
static void check_scale(const char *name, bool arm64)
{
	FILE *f = open_fixture(name);
	size_t n = 0, bad = 0, other[3] = {0}, j;
	bool others[3] = {false};
	int64_t in[4], want[4];
	enum gomath m;
	int fma;

	while (fscanf(f,
		      "%d %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64
		      " %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64,
		      &fma, &in[0], &in[1], &in[2], &in[3], &want[0], &want[1],
		      &want[2], &want[3]) == 9) {
		m = math_of(arm64, fma);
		if (!scale_agrees(in, want, m) && bad++ < SHOW_MISMATCHES)
			print_error("scale(count %" PRId64 ", objsize %" PRId64
				    ", size %" PRId64 ", rate %" PRId64
				    ") %s: go %" PRId64 " %" PRId64
				    " / %" PRId64 " %" PRId64 "\n",
				    in[0], in[1], in[2], in[3], gomath_name(m),
				    want[0], want[1], want[2], want[3]);
		for (j = 0; j < 3; j++) {
			if (j == m)
				continue;
			others[j] = true;
			other[j] += !scale_agrees(in, want, (enum gomath)j);
		}
		n++;
	}
	assert_true(feof(f));
	fclose(f);
	print_message("scaleHeapSample %s: %zu of %zu differ from Go; amd64 "
		      "sse2, fma, arm64 differ on %zu, %zu, %zu\n",
		      name, bad, n, other[0], other[1], other[2]);
	assert_true(n > 100000);
	assert_int_equal(bad, 0);
	for (j = 0; j < 3; j++)
		assert_true(!others[j] || other[j] > 0);
}

static void test_scale_heap_sample(void **state)
{
	(void)state;
	check_scale("scale.txt", false);
}

static void test_scale_heap_sample_arm64(void **state)
{
	(void)state;
	check_scale("arm64-scale.txt", true);
}

/* ---- real heap profiles: pprof.txt ---- */

typedef int64_t row[4];

struct rows {
	size_t n, cap;
	row *v;
};

static void rows_add(struct rows *r, const int64_t v[4])
{
	if (!v[0] && !v[1] && !v[2] && !v[3])
		return; /* buckets born after the records were read */
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		assert_non_null(r->v);
	}
	memcpy(r->v[r->n++], v, sizeof(row));
}

static int row_cmp(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	int i;

	for (i = 0; i < 4; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* Compare the samples runtime/pprof wrote at one rate with the raw records
 * scaled by scale_heap_sample, as multisets. */
static void check_profile(const struct rows *recs, struct rows *samples,
			  int64_t rate, enum gomath m)
{
	struct rows want = {0};
	int64_t v[4];
	size_t i;

	for (i = 0; i < recs->n; i++) {
		const int64_t *r = recs->v[i];

		scale_heap_sample(r[0], r[1], rate, m, &v[0], &v[1]);
		scale_heap_sample(r[2], r[3], rate, m, &v[2], &v[3]);
		rows_add(&want, v);
	}
	qsort(want.v, want.n, sizeof(row), row_cmp);
	qsort(samples->v, samples->n, sizeof(row), row_cmp);
	if (want.n != samples->n ||
	    memcmp(want.v, samples->v, want.n * sizeof(row)))
		fail_msg("heap profile at rate %" PRId64 " %s: %zu samples "
			 "from Go, %zu computed, or values differ",
			 rate, gomath_name(m), samples->n, want.n);
	free(want.v);
	samples->n = 0;
}

/* pprof.txt (arm64-pprof.txt), per oracle run: "R ao ab io ib" per
 * runtime.MemProfile record, then blocks "P fma rate" of "S v0 v1 v2 v3",
 * the samples pprof.Lookup("heap") wrote with MemProfileRate = rate. */
static void check_profiles(const char *name, bool arm64)
{
	FILE *f = open_fixture(name);
	struct rows recs = {0}, samples = {0};
	int64_t v[4], rate = 0;
	size_t nprofiles = 0;
	bool in_block = false;
	int fma = 0;
	char tag;

	while (fscanf(f, " %c", &tag) == 1) {
		if (tag == 'P') {
			if (in_block)
				check_profile(&recs, &samples, rate,
					      math_of(arm64, fma));
			assert_int_equal(fscanf(f, "%d %" SCNd64, &fma, &rate),
					 2);
			in_block = true;
			nprofiles++;
			continue;
		}
		assert_int_equal(fscanf(f,
					"%" SCNd64 " %" SCNd64 " %" SCNd64
					" %" SCNd64,
					&v[0], &v[1], &v[2], &v[3]),
				 4);
		if (tag == 'S') {
			assert_true(in_block);
			rows_add(&samples, v);
			continue;
		}
		assert_int_equal(tag, 'R');
		if (in_block) { /* the next oracle run's records */
			check_profile(&recs, &samples, rate,
				      math_of(arm64, fma));
			in_block = false;
			recs.n = 0;
		}
		rows_add(&recs, v);
	}
	assert_true(in_block);
	check_profile(&recs, &samples, rate, math_of(arm64, fma));
	assert_true(feof(f));
	fclose(f);
	print_message("%s: %zu real heap profiles match\n", name, nprofiles);
	assert_true(nprofiles >= 10);
	free(recs.v);
	free(samples.v);
}

static void test_real_heap_profiles(void **state)
{
	(void)state;
	check_profiles("pprof.txt", false);
}

static void test_real_heap_profiles_arm64(void **state)
{
	(void)state;
	check_profiles("arm64-pprof.txt", true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exp_sse2),
		cmocka_unit_test(test_exp_fma),
		cmocka_unit_test(test_exp_arm64),
		cmocka_unit_test(test_exp_alternatives_differ),
		cmocka_unit_test(test_f64_to_i64),
		cmocka_unit_test(test_scale_heap_sample),
		cmocka_unit_test(test_scale_heap_sample_arm64),
		cmocka_unit_test(test_real_heap_profiles),
		cmocka_unit_test(test_real_heap_profiles_arm64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
