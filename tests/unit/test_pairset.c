/* test_pairset.c - the containers of the streaming renderers' aggregates:
 * the pair set (user/base/pairset.c) against a plain table of every pair
 * of a small domain, through many growths of its index; and the kernel
 * memory it lives in (user/base/bigmem.c): kept across moves, zero where
 * new. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/bigmem.h"
#include "base/pairset.h"

#define SIDE 1000 /* pairs (a, b) with a, b < SIDE, and a few with NONE */
#define NONE UINT32_MAX

/* xorshift64*: the same draws on every run. */
static uint64_t next_rand(uint64_t *st)
{
	*st ^= *st >> 12;
	*st ^= *st << 25;
	*st ^= *st >> 27;
	return *st * 0x2545f4914f6cdd1dULL;
}

/* Where the plain table keeps (a, b): NONE maps to SIDE. */
static size_t cell(uint32_t a, uint32_t b)
{
	return (size_t)(a == NONE ? SIDE : a) * (SIDE + 1) +
	       (b == NONE ? SIDE : b);
}

static void test_pairset_ids(void **state)
{
	uint32_t *want = malloc((SIDE + 1) * (SIDE + 1) * sizeof(*want));
	struct pairset s = {0};
	uint64_t st = 42;
	uint32_t a, b, id, n = 0;
	size_t i;
	int added;

	(void)state;
	assert_non_null(want);
	memset(want, 0xff, (SIDE + 1) * (SIDE + 1) * sizeof(*want));
	for (i = 0; i < 1500000; i++) {
		a = next_rand(&st) % (SIDE + 1);
		b = next_rand(&st) % (SIDE + 1);
		a = a == SIDE ? NONE : a;
		b = b == SIDE ? NONE : b;
		added = pairset__add(&s, a, b, &id);
		assert_true(added >= 0);
		if (want[cell(a, b)] == NONE) {
			/* new pairs are numbered in order */
			assert_int_equal(added, 1);
			assert_int_equal(id, n);
			want[cell(a, b)] = n++;
		} else {
			assert_int_equal(added, 0);
			assert_int_equal(id, want[cell(a, b)]);
		}
	}
	assert_int_equal(s.n, n);
	/* most of the million pairs, so the index grew many times */
	assert_true(n > 700000);
	pairset__freeze(&s);
	for (id = 0; id < n; id++)
		assert_int_equal(
			want[cell(pairset__a(&s, id), pairset__b(&s, id))], id);
	assert_int_equal(pairset__add(&s, 1, 2, &id), -1);
	pairset__free(&s);
	free(want);
}

static void test_bigmem(void **state)
{
	size_t small = 3 * 4096 + 100, big = 64 << 20, i;
	unsigned char *p = bigmem_grow(NULL, 0, small);

	(void)state;
	assert_non_null(p);
	for (i = 0; i < small; i++)
		assert_int_equal(p[i], 0);
	memset(p, 0xab, small);
	p = bigmem_grow(p, small, big);
	assert_non_null(p);
	for (i = 0; i < small; i++)
		assert_int_equal(p[i], 0xab);
	for (i = small; i < big; i += 4093)
		assert_int_equal(p[i], 0);
	bigmem_free(p, big);
	bigmem_free(NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairset_ids),
		cmocka_unit_test(test_bigmem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
