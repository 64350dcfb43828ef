/* test_units.c - the sizes and durations a person types
 * (user/base/units.c): sizes against coreutils' numfmt --from=iec, the
 * spellings numfmt lacks, durations by hand, and what each refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/units.h"
#include "goheap.h"

/* numfmt's answer for s (IEC units), or -1 when it refuses s. */
static int64_t numfmt(const char *s)
{
	char cmd[128], out[64] = "";
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "numfmt --from=iec '%s' 2>/dev/null", s);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (!fgets(out, sizeof(out), p))
		out[0] = '\0';
	st = pclose(p);
	return st || !out[0] ? -1 : strtoll(out, NULL, 10);
}

static void test_sizes_against_numfmt(void **state)
{
	static const char *const ok[] = {"4096", "512K", "64M", "1G",
					 "1.5G", "2T",	 "3K",	"0.5M"};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int64_t want = numfmt(ok[i]);

		assert_true(want > 0);
		assert_int_equal(units_size(ok[i], &v), 0);
		assert_int_equal(v, (uint64_t)want);
	}
	/* the spellings numfmt lacks, as the same sizes */
	assert_int_equal(gh_size__parse("3k", &v), 0);
	assert_int_equal(v, (uint64_t)numfmt("3K"));
	assert_int_equal(gh_size__parse("64MiB", &v), 0);
	assert_int_equal(v, (uint64_t)numfmt("64M"));
	assert_int_equal(gh_size__parse("64MB", &v), 0);
	assert_int_equal(v, (uint64_t)numfmt("64M"));
	assert_int_equal(gh_size__parse("10b", &v), 0);
	assert_int_equal(v, 10);
}

static void test_bad_sizes(void **state)
{
	static const char *const bad[] = {
		"",    "-1",	"0",  "1X", "1 M",   "0x10", "inf",
		"nan", "1e400", "2P", "M",  "1MiBs", "+5",   "0.1"};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(gh_size__parse(bad[i], &v), -1);
	assert_int_equal(gh_size__parse(NULL, &v), -1);
}

static void test_durations(void **state)
{
	static const struct {
		const char *s;
		uint64_t ms;
	} ok[] = {{"500ms", 500},  {"2s", 2000}, {"1.5s", 1500}, {"1m", 60000},
		  {"1h", 3600000}, {"3", 3000},	 {"30d", 0}};
	uint64_t v;

	(void)state;
	for (size_t i = 0; ok[i].ms; i++) {
		assert_int_equal(gh_duration__parse(ok[i].s, &v), 0);
		assert_int_equal(v, ok[i].ms);
	}
	assert_int_equal(units_duration_us("250us", &v), 0);
	assert_int_equal(v, 250);
	/* under a millisecond, negative, unknown units, over 30 days */
	assert_int_equal(gh_duration__parse("250us", &v), -1);
	assert_int_equal(gh_duration__parse("-1s", &v), -1);
	assert_int_equal(gh_duration__parse("1d", &v), -1);
	assert_int_equal(gh_duration__parse("721h", &v), -1);
	assert_int_equal(gh_duration__parse("s", &v), -1);
	assert_int_equal(gh_duration__parse("", &v), -1);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes_against_numfmt),
		cmocka_unit_test(test_bad_sizes),
		cmocka_unit_test(test_durations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
