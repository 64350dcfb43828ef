/* test_memevent.c - the memory pressure trigger (user/watch/memevent.c):
 * the spec and the kernel's bounds on it, and the errors of a missing PSI
 * file and of a real trigger. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "watch/memevent.h"

static void test_pressure_specs(void **state)
{
	static const char *const bad[] = {"some:1s/100ms", "some:2s/1s",
					  "part:1s/2s",	   "some:150ms",
					  "some:/1s",	   "some:150ms/11s",
					  "some150ms/1s",  "full:0ms/1s",
					  "some:1s/1s/1s", "",
					  "some:-1ms/1s"};
	struct psi_spec s;
	struct gh_err err;

	(void)state;
	assert_int_equal(psi_spec__parse("some:150ms/1s", &s, &err), 0);
	assert_false(s.full);
	assert_int_equal(s.stall_us, 150000);
	assert_int_equal(s.window_us, 1000000);
	assert_int_equal(psi_spec__parse("full:10s/10s", &s, &err), 0);
	assert_true(s.full);
	assert_int_equal(s.window_us, 10000000);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(psi_spec__parse(bad[i], &s, &err), -1);
		assert_int_equal(err.code, GH_E_USAGE);
		assert_non_null(strstr(err.msg, "500ms to 10s"));
	}
}

/* A kernel without PSI has no pressure file: the error says so, and
 * what to do. On this one, a real trigger is taken and has not fired. */
static void test_pressure_sources(void **state)
{
	struct psi_spec s = {false, 150000, 1000000};
	struct gh_err err;
	struct pollfd p;
	int fd;

	(void)state;
	assert_int_equal(
		memevent_pressure("/proc/pressure/nonexistent", &s, &fd, &err),
		-1);
	assert_int_equal(err.code, GH_E_KERNEL);
	assert_non_null(strstr(err.msg, "no pressure stall information"));
	assert_non_null(strstr(err.msg, "without a pressure trigger"));
	if (access("/proc/pressure/memory", F_OK))
		return;
	/* Without CAP_SYS_RESOURCE the kernel takes only windows of whole
	 * 2 s multiples: said so, with the way out. */
	if (memevent_pressure("/proc/pressure/memory", &s, &fd, &err)) {
		assert_int_equal(err.code, GH_E_PERM);
		assert_non_null(strstr(err.msg, "multiple of 2s"));
	} else {
		close(fd);
	}
	/* two whole seconds of stall in two: not here */
	s = (struct psi_spec){false, 2000000, 2000000};
	assert_int_equal(
		memevent_pressure("/proc/pressure/memory", &s, &fd, &err), 0);
	p = (struct pollfd){.fd = fd, .events = POLLPRI};
	assert_int_equal(poll(&p, 1, 0), 0);
	close(fd);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pressure_specs),
		cmocka_unit_test(test_pressure_sources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
