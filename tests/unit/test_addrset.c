/* test_addrset.c - the set of bucket addresses that notices a cyclic
 * list (user/base/addrset.c), against the obvious answer: a sorted array
 * of the addresses added. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/addrset.h"
#include "oracle.h"

/* Where x is, or would go, in the sorted v[0..n). */
static size_t lower_bound(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Runs of packed addresses (as Go packs buckets, a word or more apart),
 * scattered ones and repeats: the set answers "seen before" exactly when a
 * sorted array of the same addresses does. */
static void test_addrset(void **state)
{
	enum { N = 30000 };
	uint64_t *seen = calloc(N, sizeof(*seen)), seed = 7, addr = 0;
	struct addrset a = {0};
	size_t n = 0, repeats = 0;

	(void)state;
	assert_non_null(seen);
	for (int i = 0; i < N; i++) {
		uint64_t r = next_rand(&seed);
		size_t at;
		bool want;

		if (r % 100 < 80)
			addr = addr ? addr - 8 * (1 + r % 64) : 0x7f0000000000;
		else if (r % 100 < 95 || !n)
			addr = (next_rand(&seed) & 0x7fffffffff8ULL) + 8;
		else
			addr = seen[next_rand(&seed) % n];
		at = lower_bound(seen, n, addr);
		want = at < n && seen[at] == addr;
		assert_int_equal(addrset__add(&a, addr), want);
		if (want) {
			repeats++;
			continue;
		}
		memmove(seen + at + 1, seen + at, (n - at) * sizeof(*seen));
		seen[at] = addr;
		n++;
	}
	assert_true(repeats > 100);
	addrset__free(&a);
	assert_int_equal(addrset__add(&a, seen[0]), 0);
	addrset__free(&a);
	free(seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addrset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
