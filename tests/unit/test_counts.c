/* test_counts.c - the cycle view (user/profile/counts.c): which of a
 * bucket's memRecord cycles runtime.MemProfile publishes, read from the
 * raw cycle variable, in each phase of a GC cycle, for each memRecord
 * shape (go1.18's mProf struct, 1.19-1.26's four-word cycles with the
 * flushed bit, 1.27's two-word cycles). Every slot of a record holds
 * something different, as a busy program's do, so reading any other
 * slot than the runtime's gives another answer. The phases, from
 * runtime/mprof.go: mallocs count into future[(cycle+2)%3], frees into
 * future[(cycle+1)%3]; mark termination advances the cycle
 * (mProf_NextCycle) and then mProf_Flush moves future[cycle%3] into active;
 * MemProfile flushes future[cycle%3] itself, whether flushed or not, and
 * adds every future cycle when no bucket has anything published yet. A
 * bucket read after a boundary the read's start did not see is taken at
 * the cycle read after it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "profile/counts.h"

/* A record's slot s (0 = active, 1 + k = future[k]): distinct counts. */
static uint64_t allocs_in(int s)
{
	return 1000u * (uint64_t)(s + 1) + 7;
}

static uint64_t frees_in(int s)
{
	return 100u * (uint64_t)(s + 1) + 3;
}

#define OBJ 48 /* the bucket's object size */

/* A bucket whose slots hold allocs_in/frees_in, but for zeroed ones. */
static struct bucket bucket_of(const struct layout *L, const bool zero[4])
{
	struct bucket b = {.size = OBJ};
	uint32_t cw = L->cycle_words;

	for (int s = 0; s < 4; s++) {
		uint64_t *w = b.rec + s * cw;

		if (zero[s])
			continue;
		w[0] = allocs_in(s);
		w[1] = frees_in(s);
		if (cw == 4) {
			w[2] = allocs_in(s) * OBJ;
			w[3] = frees_in(s) * OBJ;
		}
	}
	return b;
}

/* The raw 8 bytes at the cycle variable for cycle c, flushed or not. */
static uint64_t raw_cycle(const struct layout *L, uint32_t c, bool flushed)
{
	if (L->cycle_has_flag_bit)
		return (uint64_t)c << 1 | flushed;
	/* go1.18: struct { cycle uint32; flushed bool } */
	return c | (uint64_t)flushed << 32;
}

/* The counters read through the view, as the builder reads them. */
static struct counts view(const struct layout *L, uint64_t raw,
			  bool all_futures, const struct bucket *b)
{
	struct publish pub = {.layout = L, .all_futures = all_futures};

	pub.cycle = counts_cycle(L, raw);
	return counts_of(&pub, b);
}

/* The sum of slots of a record in want[]: what the runtime publishes. */
static void expect(const struct counts *got, const bool want[4])
{
	struct counts w = {0};

	for (int s = 0; s < 4; s++)
		if (want[s]) {
			w.allocs += allocs_in(s);
			w.frees += frees_in(s);
		}
	assert_int_equal(got->allocs, w.allocs);
	assert_int_equal(got->frees, w.frees);
	assert_int_equal(got->alloc_bytes, w.allocs * OBJ);
	assert_int_equal(got->free_bytes, w.frees * OBJ);
}

/* A bucket read after a boundary that the read's start (cycle c) did not
 * see carries the cycle read after it, c + 1: its counters are those
 * published then, never future[c%3], where cycle c + 1's mallocs count. */
static void check_read_later(const struct layout *L, uint32_t c)
{
	bool none[4] = {0}, want[4] = {true};
	struct bucket b = bucket_of(L, none);
	struct counts got;

	b.cycle_raw = raw_cycle(L, c + 1, false);
	b.has_cycle = true;
	want[1 + (c + 1) % 3] = true;
	got = view(L, raw_cycle(L, c, true), false, &b);
	expect(&got, want);
}

static void check_layout(const char *version)
{
	struct gh_err err;
	const struct layout *L = layout__for(version, &err);

	assert_non_null(L);
	for (uint32_t c = 1; c <= 7; c++) {
		int now = 1 + (int)(c % 3);
		bool none[4] = {0}, flushed[4] = {0};
		bool active_and_now[4] = {0}, active[4] = {true};
		struct bucket b;
		struct counts got;

		/* Mark termination has advanced the cycle, the flush has not
		 * come yet: MemProfile flushes future[c%3] itself. */
		b = bucket_of(L, none);
		active_and_now[0] = active_and_now[now] = true;
		got = view(L, raw_cycle(L, c, false), false, &b);
		expect(&got, active_and_now);
		/* The runtime's own flush ran a moment ago; the flushed bit
		 * changes nothing. */
		got = view(L, raw_cycle(L, c, true), false, &b);
		expect(&got, active_and_now);
		/* After the flush, future[c%3] is empty: only active is
		 * published, whatever the other futures hold. */
		flushed[now] = true;
		b = bucket_of(L, flushed);
		got = view(L, raw_cycle(L, c, true), false, &b);
		expect(&got, active);
		check_read_later(L, c);
	}
}

/* Before the first GC, nothing is published in any bucket: MemProfile
 * adds every future cycle. */
static void check_before_first_gc(const char *version)
{
	struct gh_err err;
	const struct layout *L = layout__for(version, &err);
	bool zero[4] = {true, true, false, false}, futures[4] = {0, 0, 1, 1};
	struct bucket b;
	struct counts got;

	assert_non_null(L);
	b = bucket_of(L, zero);
	/* The builder sees nothing published in any bucket ... */
	got = view(L, raw_cycle(L, 0, false), false, &b);
	assert_int_equal(got.allocs, 0);
	assert_int_equal(got.frees, 0);
	/* ... and reads every bucket with all futures. */
	got = view(L, raw_cycle(L, 0, false), true, &b);
	expect(&got, futures);
}

static void test_go118(void **state)
{
	(void)state;
	check_layout("go1.18.10");
	check_before_first_gc("go1.18.10");
}

static void test_go126(void **state)
{
	(void)state;
	check_layout("go1.26.11");
	check_before_first_gc("go1.26.11");
}

static void test_go127(void **state)
{
	(void)state;
	check_layout("go1.27.4");
	check_before_first_gc("go1.27.4");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_go118),
		cmocka_unit_test(test_go126),
		cmocka_unit_test(test_go127),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
