/* test_pipe.c - the byte pipe that lets a snapshot's stages run on two
 * CPUs (user/base/bytepipe.c), handing chunks to a consumer thread, against
 * the obvious single-threaded answer: the bytes the producer wrote, in
 * its order, and the producer told of the consumer's error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/bytepipe.h"

#define CHUNK 4096

/* The consumer: appends what it is given, and fails on chunk fail_at. */
struct sink {
	uint8_t *got;
	size_t n, cap;
	size_t chunks, fail_at;
};

static int take(void *ctx, const void *data, size_t len)
{
	struct sink *k = ctx;

	assert_true(len <= CHUNK);
	if (++k->chunks == k->fail_at)
		return 7;
	if (k->n + len > k->cap)
		return 8;
	memcpy(k->got + k->n, data, len);
	k->n += len;
	return 0;
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Records of 1..CHUNK bytes, each filled from a running counter, come out
 * whole and in order, across many chunk hand-overs and a sync midway. */
static void test_pipe_order(void **state)
{
	struct sink k = {.cap = 64u << 20};
	uint8_t *want = malloc(k.cap);
	uint64_t seed = 42;
	struct bytepipe *p;
	size_t n = 0;

	(void)state;
	k.got = malloc(k.cap);
	assert_non_null(want);
	assert_non_null(k.got);
	assert_int_equal(bytepipe__new(&p, CHUNK, take, &k), 0);
	for (int rec = 0; rec < 20000; rec++) {
		size_t len = 1 + xorshift(&seed) % CHUNK;
		uint8_t *dst = bytepipe__reserve(p, len);

		assert_non_null(dst);
		for (size_t i = 0; i < len; i++)
			dst[i] = want[n + i] = (uint8_t)(n + i);
		bytepipe__commit(p, len);
		n += len;
		if (rec == 10000)
			assert_int_equal(bytepipe__sync(p), 0);
	}
	assert_null(bytepipe__reserve(p, CHUNK + 1));
	assert_int_equal(bytepipe__sync(p), 0);
	assert_int_equal(k.n, n);
	assert_memory_equal(k.got, want, n);
	bytepipe__free(p);
	free(want);
	free(k.got);
}

/* A consumer's failure reaches the producer: reserve fails at a later
 * hand-over, sync returns the error once, and nothing more is consumed. */
static void test_pipe_error(void **state)
{
	struct sink k = {.cap = 1u << 20, .fail_at = 3};
	struct bytepipe *p;
	size_t chunks;
	bool refused = false;

	(void)state;
	k.got = malloc(k.cap);
	assert_non_null(k.got);
	assert_int_equal(bytepipe__new(&p, CHUNK, take, &k), 0);
	for (int rec = 0; rec < 64 && !refused; rec++) {
		void *dst = bytepipe__reserve(p, CHUNK);

		if (!dst) {
			refused = true;
			break;
		}
		memset(dst, rec, CHUNK);
		bytepipe__commit(p, CHUNK);
	}
	assert_true(refused);
	assert_int_equal(bytepipe__sync(p), 7);
	assert_int_equal(bytepipe__sync(p), 0);
	chunks = k.chunks;
	assert_int_equal(k.n, 2 * CHUNK);
	bytepipe__free(p);
	assert_int_equal(k.chunks, chunks);
	free(k.got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe_order),
		cmocka_unit_test(test_pipe_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
