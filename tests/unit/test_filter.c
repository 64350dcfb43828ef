/* test_filter.c - user/collect/filter.c: the sweep's filters on the names
 * and cgroup paths /proc gives. The name filter is an extended regular
 * expression matched anywhere unless anchored, as grep -E does; the
 * cgroup filter a path prefix; the container filter a prefix of the ID
 * read off the path, so that a docker-style short ID selects, and a path
 * that merely contains the text does not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <string.h>

#include "collect/filter.h"

#define ID     "3f4b8c1d2e5a6f7081920a1b2c3d4e5f60718293a4b5c6d7e8f9012345678abc"
#define DOCKER "/system.slice/docker-" ID ".scope"
#define KUBE   "/kubepods/burstable/pod0e1a6d2c-4b4f-4f7c-9a55-3c1d2f8e9b10/" ID

static bool judge(const struct gh_select *sel, const char *comm,
		  const char *cgroup)
{
	struct filter f;
	struct gh_err err;
	bool ok;

	assert_int_equal(filter__init(&f, sel, &err), 0);
	ok = filter__match(&f, comm, cgroup);
	filter__fini(&f);
	return ok;
}

static void test_comm(void **state)
{
	struct gh_select sel = {.sz = sizeof(struct gh_select),
				.comm = "^api(-v[0-9]+)?$"};

	(void)state;
	assert_true(judge(&sel, "api", NULL));
	assert_true(judge(&sel, "api-v2", NULL));
	assert_false(judge(&sel, "api-v", NULL));
	assert_false(judge(&sel, "myapi", NULL));
	sel.comm = "heap";
	assert_true(judge(&sel, "heapgen", NULL));
	assert_false(judge(&sel, "hEap", NULL));
	/* a name that could not be read does not pass */
	assert_false(judge(&sel, NULL, NULL));
}

static void test_bad_regex(void **state)
{
	const struct gh_select sel = {.sz = sizeof(struct gh_select),
				      .comm = "api(["};
	struct gh_err err = {0};
	struct filter f;

	(void)state;
	assert_int_equal(filter__init(&f, &sel, &err), -1);
	assert_int_equal(err.code, GH_E_USAGE);
	assert_non_null(strstr(err.msg, "api(["));
	assert_non_null(strstr(err.msg, "extended regular expression"));
}

/* Repetitions that would compile to more than a 15-byte name could need
 * are refused before regcomp, which copies a repeated part once per
 * count (and nesting multiplies); braces that are not intervals count for
 * nothing. */
static void test_interval_bound(void **state)
{
	static const char *const refused[] = {
		"((a{99}){99}){99}",	  "a{50000}",
		"(x{64}y){650}",	  "(b{,9000}){,900}",
		"x{0,40}{410}{,40}{410}", "!+++++++++++++++++++++++++++++"};
	static const char *const allowed[] = {"^[0-9]{3}-[a-z]{2,8}$",
					      "[{]{9}x{64}", "a\\{99999\\}",
					      "(a|b|c)+x{9}y+", "a{,40}"};
	struct gh_select sel = {.sz = sizeof(struct gh_select)};
	struct gh_err err = {0};
	struct filter f;

	(void)state;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		sel.comm = refused[i];
		assert_int_equal(filter__init(&f, &sel, &err), -1);
		assert_int_equal(err.code, GH_E_USAGE);
		assert_non_null(strstr(err.msg, "nest too deeply or count"));
	}
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		sel.comm = allowed[i];
		if (filter__init(&f, &sel, &err))
			fail_msg("%s refused: %s", allowed[i], err.msg);
		filter__fini(&f);
	}
}

static void test_cgroup_and_container(void **state)
{
	struct gh_select sel = {.sz = sizeof(struct gh_select),
				.cgroup = "/system.slice/"};

	(void)state;
	assert_true(judge(&sel, NULL, DOCKER));
	assert_false(judge(&sel, NULL, KUBE));
	assert_false(judge(&sel, NULL, NULL));
	sel = (struct gh_select){.sz = sizeof(struct gh_select),
				 .container = "3f4b8c1d2e5a"};
	assert_true(judge(&sel, NULL, DOCKER));
	assert_true(judge(&sel, NULL, KUBE));
	assert_false(judge(&sel, NULL, "/user.slice/3f4b8c1d2e5a"));
	sel.container = "4f";
	assert_false(judge(&sel, NULL, DOCKER));
	/* every filter at once must hold */
	sel = (struct gh_select){.sz = sizeof(struct gh_select),
				 .comm = "^api$",
				 .cgroup = "/kubepods/",
				 .container = "3f4b"};
	assert_true(judge(&sel, "api", KUBE));
	assert_false(judge(&sel, "api", DOCKER));
	assert_false(judge(&sel, "worker", KUBE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_bad_regex),
		cmocka_unit_test(test_interval_bound),
		cmocka_unit_test(test_cgroup_and_container),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
