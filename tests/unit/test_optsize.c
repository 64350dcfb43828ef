/* test_optsize.c - options structs read by their sz (user/base/optsize.c)
 * and through the public entry points: an older caller's shorter struct
 * is read as far as it goes, the rest defaults; a newer caller's longer
 * one is taken when its extra bytes are zero and refused (USAGE) when
 * not; an sz below its own field is refused; NULL is the defaults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "base/optsize.h"
#include "goheap.h"

/* A newer header's gh_collector_opts: one more field at the end. */
struct newer_opts {
	struct gh_collector_opts o;
	uint64_t added;
};

static void test_shorter_struct_defaults_the_rest(void **state)
{
	struct gh_collector_opts caller = {.sz = sizeof(caller),
					   .backend = GH_BACKEND_PROCMEM,
					   .workers = 3,
					   .max_kept_bytes = 99};
	struct gh_collector_opts got;
	struct gh_err err;

	(void)state;
	/* Built by a header whose struct ended after workers. */
	caller.sz = offsetof(struct gh_collector_opts, keep_stacks);
	assert_int_equal(OPTS_LOAD(&got, &caller, "gh_collector_opts", &err),
			 0);
	assert_int_equal(got.sz, sizeof(got));
	assert_int_equal(got.backend, GH_BACKEND_PROCMEM);
	assert_int_equal(got.workers, 3);
	assert_int_equal(got.max_kept_bytes, 0); /* past sz: the default */
	assert_int_equal(OPTS_LOAD(&got, NULL, "gh_collector_opts", &err), 0);
	assert_int_equal(got.sz, sizeof(got));
	assert_int_equal(got.workers, 0);
}

static void test_longer_struct_zero_tail_only(void **state)
{
	struct newer_opts n;
	struct gh_collector_opts got;
	struct gh_collector *c;
	struct gh_err err;

	(void)state;
	memset(&n, 0, sizeof(n));
	n.o.sz = sizeof(n);
	n.o.workers = 2;
	assert_int_equal(OPTS_LOAD(&got, &n.o, "gh_collector_opts", &err), 0);
	assert_int_equal(got.workers, 2);
	assert_int_equal(gh_collector__new(&n.o, &c, &err), 0);
	gh_collector__free(c);
	n.added = 1;
	assert_int_equal(gh_collector__new(&n.o, &c, &err), -1);
	assert_null(c);
	assert_int_equal(err.code, GH_E_USAGE);
	assert_non_null(strstr(err.msg, "gh_collector_opts"));
	assert_non_null(strstr(err.msg, "newer goheap.h"));
}

static void test_sz_too_small_refused(void **state)
{
	struct gh_write_opts o = {.format = GH_FORMAT_JSON}; /* sz 0 */
	struct gh_profile p = {.pid = 1};
	struct gh_err err;

	(void)state;
	assert_int_equal(gh_profile__write(&p, stdout, &o, &err), -1);
	assert_int_equal(err.code, GH_E_USAGE);
	assert_non_null(strstr(err.msg, "GH_OPTS"));
}

static void test_gh_opts_sets_sz(void **state)
{
	GH_OPTS(gh_watch_opts, w, .every_ms = 5);

	(void)state;
	assert_int_equal(w.sz, sizeof(struct gh_watch_opts));
	assert_int_equal(w.every_ms, 5);
	assert_null(w.select);
	assert_int_equal(w.oom_ring_bytes, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shorter_struct_defaults_the_rest),
		cmocka_unit_test(test_longer_struct_zero_tail_only),
		cmocka_unit_test(test_sz_too_small_refused),
		cmocka_unit_test(test_gh_opts_sets_sz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
