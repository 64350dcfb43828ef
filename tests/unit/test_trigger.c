/* test_trigger.c - the watch's decisions (user/watch/trigger.c), driven
 * by hand: each trigger's edge (once per crossing, again only after it
 * stopped holding), the cooldown (a crossing met within it fires when it
 * ends), cgroup shares and unlimited cgroups, growth within a window and
 * not beyond it, the period, pressure events, at-peak maxima and the
 * goroutine count's edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "watch/trigger.h"

#define MiB (1ULL << 20)

static unsigned at(struct trig_state *s, const struct gh_watch_opts *w,
		   uint64_t ms, uint64_t rss)
{
	struct trig_obs o = {
		.now_ms = ms, .rss = rss, .cgroup_limit = UINT64_MAX};
	char why[256];

	return trig_check(s, w, &o, why, sizeof(why));
}

static void test_rss_edges(void **state)
{
	struct gh_watch_opts w = {.sz = sizeof(struct gh_watch_opts),
				  .rss_above = 100 * MiB};
	struct trig_state s;

	(void)state;
	trig_init(&s);
	assert_int_equal(at(&s, &w, 0, 50 * MiB), 0);
	assert_int_equal(at(&s, &w, 10, 101 * MiB), TRIG_RSS);
	trig_wrote(&s, &w, TRIG_RSS, 10);
	assert_int_equal(at(&s, &w, 20, 150 * MiB), 0); /* still above */
	assert_int_equal(at(&s, &w, 30, 90 * MiB), 0);
	assert_int_equal(at(&s, &w, 40, 120 * MiB), TRIG_RSS); /* again */
	/* not written (the process could not be read): it stays due */
	assert_int_equal(at(&s, &w, 50, 120 * MiB), TRIG_RSS);
}

/* goroutines: count N read (has) or not read (-1) at ms */
static unsigned goroutines_at(struct trig_state *s,
			      const struct gh_watch_opts *w, uint64_t ms,
			      int64_t n, char *why, size_t size)
{
	struct trig_obs o = {.now_ms = ms,
			     .rss = 10 * MiB,
			     .cgroup_limit = UINT64_MAX,
			     .has_goroutines = n >= 0,
			     .goroutines = n >= 0 ? (uint64_t)n : 0};

	return trig_check(s, w, &o, why, size);
}

static void test_goroutines_edges(void **state)
{
	struct gh_watch_opts w = {.sz = sizeof(struct gh_watch_opts),
				  .goroutines_above = 100};
	struct trig_state s;
	char why[256] = "";

	(void)state;
	trig_init(&s);
	assert_int_equal(goroutines_at(&s, &w, 0, 100, why, sizeof(why)), 0);
	assert_int_equal(goroutines_at(&s, &w, 10, 101, why, sizeof(why)),
			 TRIG_GOROUTINES);
	assert_string_equal(why, "goroutines 101 went above 100");
	trig_wrote(&s, &w, TRIG_GOROUTINES, 10);
	assert_int_equal(goroutines_at(&s, &w, 20, 500, why, sizeof(why)), 0);
	/* a count not read is no crossing back */
	assert_int_equal(goroutines_at(&s, &w, 30, -1, why, sizeof(why)), 0);
	assert_int_equal(goroutines_at(&s, &w, 40, 500, why, sizeof(why)), 0);
	assert_int_equal(goroutines_at(&s, &w, 50, 99, why, sizeof(why)), 0);
	assert_int_equal(goroutines_at(&s, &w, 60, 200, why, sizeof(why)),
			 TRIG_GOROUTINES); /* again */
	assert_string_equal(gh_trigger__name(GH_TRIGGER_GOROUTINES),
			    "goroutines-above");
	assert_null(gh_trigger__name(GH_TRIGGER_GOROUTINES + 1));
}

static void test_cooldown(void **state)
{
	struct gh_watch_opts w = {.sz = sizeof(struct gh_watch_opts),
				  .rss_above = 100 * MiB,
				  .cooldown_ms = 1000};
	struct trig_state s;

	(void)state;
	trig_init(&s);
	assert_int_equal(at(&s, &w, 0, 200 * MiB), TRIG_RSS);
	trig_wrote(&s, &w, TRIG_RSS, 0);
	assert_int_equal(at(&s, &w, 100, 50 * MiB), 0);
	assert_false(s.pending);
	assert_int_equal(at(&s, &w, 200, 200 * MiB), 0); /* cooling */
	assert_true(s.pending);				 /* look again */
	assert_int_equal(at(&s, &w, 999, 200 * MiB), 0); /* cooling */
	assert_int_equal(at(&s, &w, 1000, 200 * MiB), TRIG_RSS);
	assert_false(s.pending);
}

static void test_cgroup_share(void **state)
{
	struct gh_watch_opts w = {.sz = sizeof(struct gh_watch_opts),
				  .cgroup_above = 80};
	struct trig_obs o = {.cgroup_limit = 100 * MiB};
	struct trig_state s;
	char why[256];

	(void)state;
	trig_init(&s);
	o.cgroup_usage = 79 * MiB;
	assert_int_equal(trig_check(&s, &w, &o, why, sizeof(why)), 0);
	o.cgroup_usage = 80 * MiB;
	assert_int_equal(trig_check(&s, &w, &o, why, sizeof(why)), TRIG_CGROUP);
	assert_string_equal(why, "cgroup usage 80.0MiB reached 80% of its "
				 "limit 100.0MiB");
	/* no limit: no share of it */
	trig_init(&s);
	o.cgroup_limit = UINT64_MAX;
	o.cgroup_usage = 1ULL << 40;
	assert_int_equal(trig_check(&s, &w, &o, why, sizeof(why)), 0);
}

static void test_growth_window(void **state)
{
	struct gh_watch_opts w = {.sz = sizeof(struct gh_watch_opts),
				  .growth_bytes = 10 * MiB,
				  .growth_window_ms = 1000};
	struct trig_state s;

	(void)state;
	trig_init(&s);
	assert_int_equal(at(&s, &w, 0, 100 * MiB), 0);
	assert_int_equal(at(&s, &w, 500, 105 * MiB), 0);
	assert_int_equal(at(&s, &w, 900, 110 * MiB), TRIG_GROWTH);
	trig_wrote(&s, &w, TRIG_GROWTH, 900);
	/* counted afresh from the snapshot */
	assert_int_equal(at(&s, &w, 1000, 112 * MiB), 0);
	/* the same growth, slower than the window: never */
	trig_init(&s);
	for (uint64_t t = 0; t <= 10000; t += 500)
		assert_int_equal(at(&s, &w, t, 100 * MiB + t / 500 * 4 * MiB),
				 0);
}

static void test_every_and_pressure(void **state)
{
	struct gh_watch_opts w = {.sz = sizeof(struct gh_watch_opts),
				  .every_ms = 1000};
	struct trig_obs o = {.cgroup_limit = UINT64_MAX};
	struct trig_state s;

	(void)state;
	trig_init(&s);
	assert_int_equal(at(&s, &w, 0, 0), 0);
	assert_int_equal(at(&s, &w, 999, 0), 0);
	assert_int_equal(at(&s, &w, 1000, 0), TRIG_EVERY);
	trig_wrote(&s, &w, TRIG_EVERY, 1000);
	assert_int_equal(at(&s, &w, 1999, 0), 0);
	assert_int_equal(at(&s, &w, 2000, 0), TRIG_EVERY);
	/* each pressure event fires, outside the cooldown */
	w = (struct gh_watch_opts){.sz = sizeof(struct gh_watch_opts),
				   .pressure = "some:150ms/1s",
				   .cooldown_ms = 500};
	trig_init(&s);
	o.pressure = true;
	assert_int_equal(trig_check(&s, &w, &o, NULL, 0), TRIG_PRESSURE);
	trig_wrote(&s, &w, TRIG_PRESSURE, 0);
	o.now_ms = 100;
	assert_int_equal(trig_check(&s, &w, &o, NULL, 0), 0);
	assert_false(s.pending); /* an event held back is dropped */
	o.now_ms = 600;
	assert_int_equal(trig_check(&s, &w, &o, NULL, 0), TRIG_PRESSURE);
	o.pressure = false;
	assert_int_equal(trig_check(&s, &w, &o, NULL, 0), 0);
}

static void test_peak(void **state)
{
	struct trig_state s;

	(void)state;
	trig_init(&s);
	assert_true(trig_peak(&s, 1, 0));
	/* not the maximum until its snapshot is written */
	assert_true(trig_peak(&s, 1, 100));
	assert_true(trig_peak(&s, 1, 50));
	trig_peak_wrote(&s, 1, 100);
	assert_false(trig_peak(&s, 1, 50));
	assert_false(trig_peak(&s, 1, 100));
	assert_true(trig_peak(&s, 1, 150));
	/* a lower value written does not lower the maximum */
	trig_peak_wrote(&s, 1, 60);
	assert_false(trig_peak(&s, 1, 70));
	/* each Go runtime its own; none past the bound, none 0 */
	assert_true(trig_peak(&s, 2, 10));
	trig_peak_wrote(&s, 8, 10);
	assert_false(trig_peak(&s, 8, 10));
	assert_false(trig_peak(&s, 9, 1000));
	assert_false(trig_peak(&s, 0, 1000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rss_edges),
		cmocka_unit_test(test_goroutines_edges),
		cmocka_unit_test(test_cooldown),
		cmocka_unit_test(test_cgroup_share),
		cmocka_unit_test(test_growth_window),
		cmocka_unit_test(test_every_and_pressure),
		cmocka_unit_test(test_peak),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
