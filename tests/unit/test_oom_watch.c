/* test_oom_watch.c - the public OOM-watch API (gh_oom_watch) on live
 * programs, short of an OOM kill (tests/integration/oom.sh makes real
 * ones): a Go program watched once (a second add refused), a program
 * that is not Go refused, removing what is not watched refused, a watched
 * program that exits without an OOM kill dropped with no victim handed
 * over, and a ring buffer size that cannot be. Needs root (BPF). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "goheap.h"
#include "live.h"

static void on_victim(void *arg, const struct gh_oom *oom, struct gh_result *r)
{
	(void)oom;
	(void)r;
	++*(int *)arg;
}

static void test_watch_and_exit(void **state)
{
	int victims = 0;
	struct gh_oom_watch_opts o = {.sz = sizeof(struct gh_oom_watch_opts),
				      .victim = on_victim,
				      .arg = &victims};
	struct gh_oom_watch *w;
	struct gh_err err;
	pid_t go = live_heapgen(4096), other = live_sleeper();

	(void)state;
	if (gh_oom_watch__new(&o, &w, &err))
		fail_msg("new: %s", err.msg);
	if (gh_oom_watch__add(w, go, &err))
		fail_msg("add: %s", err.msg);
	assert_int_equal(gh_oom_watch__add(w, go, &err), -1);
	assert_int_equal(err.code, GH_E_USAGE);
	assert_int_equal(gh_oom_watch__add(w, other, &err), -1);
	assert_int_equal(err.code, GH_E_NOTGO);
	assert_int_equal(gh_oom_watch__remove(w, other, &err), -1);
	assert_int_equal(err.code, GH_E_USAGE);
	assert_int_equal(gh_oom_watch__count(w), 1);
	assert_int_equal(gh_oom_watch__poll(w, 10, &err), 0);
	assert_int_equal(gh_oom_watch__count(w), 1);
	live_stop(go); /* SIGKILL, no OOM */
	assert_int_equal(gh_oom_watch__poll(w, 10, &err), 0);
	assert_int_equal(gh_oom_watch__count(w), 0);
	assert_int_equal(victims, 0);
	gh_oom_watch__free(w);
	live_stop(other);
}

static void test_remove(void **state)
{
	struct gh_oom_watch *w;
	struct gh_err err;
	pid_t go = live_heapgen(4096);

	(void)state;
	if (gh_oom_watch__new(NULL, &w, &err))
		fail_msg("new: %s", err.msg);
	if (gh_oom_watch__add(w, go, &err))
		fail_msg("add: %s", err.msg);
	assert_int_equal(gh_oom_watch__remove(w, go, &err), 0);
	assert_int_equal(gh_oom_watch__count(w), 0);
	/* Watched again after its removal: its map entry is gone too. */
	if (gh_oom_watch__add(w, go, &err))
		fail_msg("add again: %s", err.msg);
	gh_oom_watch__free(w);
	live_stop(go);
}

static void test_bad_ring(void **state)
{
	const uint32_t bad[] = {4096, 3u << 20, 2u << 30};
	struct gh_oom_watch *w;
	struct gh_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gh_oom_watch_opts o = {
			.sz = sizeof(struct gh_oom_watch_opts),
			.ring_bytes = bad[i]};

		assert_int_equal(gh_oom_watch__new(&o, &w, &err), -1);
		assert_int_equal(err.code, GH_E_USAGE);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watch_and_exit),
		cmocka_unit_test(test_remove),
		cmocka_unit_test(test_bad_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
