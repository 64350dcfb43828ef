/* test_gosort.c - profile/gosort.c held to the sorts it copies, run by the
 * releases themselves (gosort_ref, tests/unit/fixtures/gosort.sh): the
 * legacy text's records sorted by go1.18's sort.Slice (quicksort,
 * descending), go1.22's (pdqsort, descending) and the newest release's
 * slices.SortFunc (ascending), each on the same cases, where each equal
 * key must end where Go puts it: lengths from 0 past the insertion-sort,
 * ninther and shifting thresholds to 20000, keys drawn from a few values
 * (many ties) or many, sorted, reversed, all equal, organ pipes, saw
 * teeth, nearly sorted. */
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

#include "fixture.h"
#include "oracle.h"
#include "profile/gosort.h"

struct record {
	int64_t key;
	long id;
};

struct order {
	struct record *v;
	bool ascending;
};

static bool less(void *ctx, long i, long j)
{
	const struct order *o = ctx;

	return o->ascending ? o->v[i].key < o->v[j].key
			    : o->v[i].key > o->v[j].key;
}

static void swap(void *ctx, long i, long j)
{
	struct order *o = ctx;
	struct record t = o->v[i];

	o->v[i] = o->v[j];
	o->v[j] = t;
}

/* Case c's keys: its length and shape from c. */
static long draw(long c, uint64_t *st, int64_t *keys)
{
	static const long lens[] = {0,	 1,   2,   3,	 7,    8,    11,
				    12,	 13,  20,  49,	 50,   51,   64,
				    100, 257, 999, 1000, 4096, 20000};
	long n = lens[c % (long)(sizeof(lens) / sizeof(lens[0]))];
	int shape = (int)(c / 20 % 9);

	for (long i = 0; i < n; i++) {
		switch (shape) {
		case 0: /* few values: many ties */
			keys[i] = (int64_t)(next_rand(st) % 4) * 4096;
			break;
		case 1:
			keys[i] = (int64_t)(next_rand(st) % 1000000);
			break;
		case 2:
			keys[i] = i;
			break;
		case 3:
			keys[i] = n - i;
			break;
		case 4:
			keys[i] = 7;
			break;
		case 5: /* organ pipe */
			keys[i] = i < n / 2 ? i : n - i;
			break;
		case 6: /* saw teeth */
			keys[i] = i % 17;
			break;
		case 7: /* nearly sorted, ascending */
			keys[i] = i + (next_rand(st) % 50 == 0 ? 100 : 0);
			break;
		default: /* nearly sorted, descending, with ties */
			keys[i] =
				(n - i) / 3 - (next_rand(st) % 40 == 0 ? 7 : 0);
		}
	}
	return n;
}

#define NCASES 180

/* The cases sorted by release ver's gosort_ref against ours (x717: its
 * pdqsort's xorshift is go1.24's). */
static void check_release(const char *ver, bool pdq, bool x717, bool ascending)
{
	char path[] = "/tmp/gh_gosort_XXXXXX", cmd[4096];
	int64_t *keys = calloc(20000, sizeof(*keys));
	struct record *v = calloc(20000, sizeof(*v));
	struct order o = {v, ascending};
	const struct gosort d = {less, swap, &o, x717};
	uint64_t st = 17;
	struct text in = {0}, want;
	FILE *f = open_memstream(&in.s, &in.len);
	const char *at;

	assert_non_null(keys);
	assert_non_null(v);
	assert_non_null(f);
	for (long c = 0; c < NCASES; c++) {
		long n = draw(c, &st, keys);

		fprintf(f, "%ld", n);
		for (long i = 0; i < n; i++)
			fprintf(f, " %" PRId64, keys[i]);
		fputc('\n', f);
	}
	assert_int_equal(fclose(f), 0);
	save(path, in);
	snprintf(cmd, sizeof(cmd), "'%s/gosort/%s/gosort_ref' '%s'",
		 fixture_dir(), ver, path);
	want = run(cmd);
	unlink(path);
	at = want.s;
	st = 17;
	for (long c = 0; c < NCASES; c++) {
		long n = draw(c, &st, keys);

		for (long i = 0; i < n; i++)
			v[i] = (struct record){keys[i], i};
		if (pdq)
			go_pdqsort(&d, n);
		else
			go_quicksort(&d, n);
		for (long i = 0; i < n; i++) {
			char *end;
			long id = strtol(at, &end, 10);

			if (end == at || id != v[i].id)
				fail_msg(
					"go%s, case %ld (%ld keys): record %ld "
					"is %ld, Go's %.20s",
					ver, c, n, i, v[i].id, at);
			at = end;
		}
		if (*at != '\n')
			fail_msg("go%s, case %ld: Go has more records", ver, c);
		at++;
	}
	assert_int_equal(*at, '\0');
	free(want.s);
	free(keys);
	free(v);
}

static void test_go118(void **state)
{
	(void)state;
	check_release("1.18", false, false, false);
}

static void test_go122(void **state)
{
	(void)state;
	check_release("1.22", true, false, false);
}

static void test_newest(void **state)
{
	char **vers;
	size_t n = fixture_versions("gosort", "gosort.sh", &vers);

	(void)state;
	assert_int_equal(n, 3);
	check_release(vers[n - 1], true, true, true);
	fixture_versions_free(vers, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_go118),
		cmocka_unit_test(test_go122),
		cmocka_unit_test(test_newest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
