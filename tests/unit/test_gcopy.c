/* test_gcopy.c - the copied-block fetch the goroutine iter backend reads
 * through (user/goroutine/gcopy.c): reads inside a block, across adjacent
 * blocks, across a gap and outside every block (failing, never filling),
 * overlapping copies (the newer wins), a truncation back to a mark, and
 * the misses it notes; checked against a plain image of the address
 * range, over random blocks and reads. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "goroutine/gcopy.h"

#define BASE 0x7f0000001000ULL
#define SPAN 65536

static uint64_t next_rand(uint64_t *st)
{
	*st ^= *st >> 12;
	*st ^= *st << 25;
	*st ^= *st >> 27;
	return *st * 0x2545f4914f6cdd1dULL;
}

static void fill(uint8_t *b, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed + i * 7);
}

static void test_gcopy_blocks(void **state)
{
	struct gcopy c = {0};
	uint8_t a[4096], b[4096], out[8192];
	struct gfetch f;
	struct gmiss *m;
	size_t nm;

	(void)state;
	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 99);
	/* [BASE, BASE+4096) and [BASE+4096, BASE+8192): adjacent; a third
	 * after a gap at BASE+12288. */
	assert_int_equal(gcopy__add(&c, BASE + 4096, b, 4096), 0);
	assert_int_equal(gcopy__add(&c, BASE, a, 4096), 0);
	assert_int_equal(gcopy__add(&c, BASE + 12288, a, 16), 0);
	f = gcopy__fetch(&c, false);
	/* Inside one block. */
	assert_int_equal(f.read(f.ctx, BASE + 100, out, 200), 0);
	assert_memory_equal(out, a + 100, 200);
	/* Across the two adjacent ones. */
	assert_int_equal(f.read(f.ctx, BASE + 4000, out, 200), 0);
	assert_memory_equal(out, a + 4000, 96);
	assert_memory_equal(out + 96, b, 104);
	assert_int_equal(f.read(f.ctx, BASE, out, 8192), 0);
	errno = 0;
	assert_int_equal(f.read(f.ctx, BASE + 8000, out, 200), -1);
	assert_int_equal(errno, EFAULT);
	m = gcopy__take_misses(&c, &nm);
	assert_int_equal(nm, 0); /* not noted through this fetch */
	free(m);
	/* Past the second one's end into the gap: fails, noted. */
	f = gcopy__fetch(&c, true);
	assert_int_equal(f.read(f.ctx, BASE + 8000, out, 200), -1);
	assert_int_equal(errno, EFAULT);
	/* Below the first, and wholly outside. */
	assert_int_equal(f.read(f.ctx, BASE - 8, out, 16), -1);
	assert_int_equal(f.read(f.ctx, BASE + 20000, out, 8), -1);
	assert_int_equal(f.read(f.ctx, BASE + 8000, out, 200), -1);
	/* The third block's last byte, and one past it. */
	assert_int_equal(f.read(f.ctx, BASE + 12288 + 15, out, 1), 0);
	assert_int_equal(out[0], a[15]);
	assert_int_equal(f.read(f.ctx, BASE + 12288 + 15, out, 2), -1);
	/* An address range that wraps: refused, not noted. */
	assert_int_equal(f.read(f.ctx, UINT64_MAX - 4, out, 16), -1);
	m = gcopy__take_misses(&c, &nm);
	assert_int_equal(nm, 4); /* the repeated one once */
	assert_true(m[0].addr == BASE - 8 && m[0].len == 16);
	assert_true(m[1].addr == BASE + 8000 && m[1].len == 200);
	free(m);
	/* An overlapping copy: the newer one's bytes. */
	assert_int_equal(gcopy__add(&c, BASE + 10, b, 8), 0);
	assert_int_equal(f.read(f.ctx, BASE + 8, out, 12), 0);
	assert_memory_equal(out, a + 8, 2);
	assert_memory_equal(out + 2, b, 8);
	assert_memory_equal(out + 10, a + 18, 2);
	/* Back to before it. */
	gcopy__truncate(&c, 3);
	assert_int_equal(f.read(f.ctx, BASE + 8, out, 12), 0);
	assert_memory_equal(out, a + 8, 12);
	gcopy__truncate(&c, 1);
	assert_int_equal(f.read(f.ctx, BASE, out, 8), -1);
	assert_int_equal(f.read(f.ctx, BASE + 4096, out, 8), 0);
	/* Two owners' copies at one address: each sees its own. */
	assert_int_equal(gcopy__add_owned(&c, BASE + 4096, a, 64, 7), 0);
	assert_int_equal(gcopy__add_owned(&c, BASE + 4096 + 32, a, 64, 8), 0);
	c.owner = 7;
	assert_int_equal(f.read(f.ctx, BASE + 4096 + 32, out, 64), 0);
	assert_memory_equal(out, a + 32, 32); /* 7's, then owner 0's */
	assert_memory_equal(out + 32, b + 64, 32);
	c.owner = 8;
	assert_int_equal(f.read(f.ctx, BASE + 4096, out, 96), 0);
	assert_memory_equal(out, b, 32);
	assert_memory_equal(out + 32, a, 64);
	c.owner = 0;
	assert_int_equal(f.read(f.ctx, BASE + 4096, out, 96), 0);
	assert_memory_equal(out, b, 96);
	gcopy__free(&c);
}

/* Random blocks over SPAN bytes against an image of what each byte
 * holds (the newest copy), 0 where nothing was copied. */
static void test_gcopy_random(void **state)
{
	static uint8_t img[SPAN], have[SPAN], src[4096], out[8192];
	struct gcopy c = {0};
	uint64_t st = 7;

	(void)state;
	for (int i = 0; i < 300; i++) {
		uint32_t off = next_rand(&st) % SPAN;
		uint32_t n = 1 + next_rand(&st) % 4096;

		if (off + n > SPAN)
			n = SPAN - off;
		fill(src, n, (uint8_t)i);
		assert_int_equal(gcopy__add(&c, BASE + off, src, n), 0);
		memcpy(img + off, src, n);
		memset(have + off, 1, n);
	}
	for (int i = 0; i < 20000; i++) {
		uint32_t off = next_rand(&st) % SPAN;
		uint32_t n = 1 + next_rand(&st) % 8192;
		bool all = true;

		if (off + n > SPAN)
			n = SPAN - off;
		for (uint32_t k = 0; k < n; k++)
			all &= have[off + k];
		if (all) {
			assert_int_equal(gcopy__read(&c, BASE + off, out, n),
					 0);
			assert_memory_equal(out, img + off, n);
		} else {
			assert_int_equal(gcopy__read(&c, BASE + off, out, n),
					 -1);
		}
	}
	gcopy__free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gcopy_blocks),
		cmocka_unit_test(test_gcopy_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
