/* test_oominfo.c - an OOM kill's record made into struct gh_oom and the
 * trigger line (user/oom/oomkill.c): pages to bytes, the kernel's
 * "no limit" as 0, a comm that fills its 16 bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "oom/oomkill.h"

#define PAGE 4096u

static struct gh_ev_oom ev_of(uint64_t limit_pages)
{
	struct gh_ev_oom ev = {
		.h = {.kind = GH_EV_OOM, .tgid = 4321},
		.memcg_usage = 24576,
		.memcg_limit = limit_pages,
		.total_vm = 323489,
		.oom_score_adj = -17,
		.uid = 1000,
	};

	memcpy(ev.comm, "oomgrow", 7);
	return ev;
}

static void test_limited(void **state)
{
	struct gh_ev_oom ev = ev_of(24576);
	struct gh_oom o;
	char line[512];

	(void)state;
	oominfo_from(&ev, 1, PAGE, "/kubepods/pod1", &o);
	assert_int_equal(o.pid, 4321);
	assert_string_equal(o.comm, "oomgrow");
	assert_string_equal(o.cgroup, "/kubepods/pod1");
	assert_int_equal(o.memcg_usage_bytes, 96ull << 20);
	assert_int_equal(o.memcg_limit_bytes, 96ull << 20);
	assert_int_equal(o.total_vm_bytes, 323489ull * PAGE);
	assert_int_equal(o.oom_score_adj, -17);
	assert_int_equal(o.uid, 1000);
	assert_int_equal(o.early_kills, 1);
	oominfo_trigger(&o, line, sizeof(line));
	assert_string_equal(line, "oom-kill: comm oomgrow, memcg usage "
				  "100663296 bytes of limit 100663296 bytes, "
				  "total_vm 1325010944 bytes, oom_score_adj "
				  "-17");
}

/* PAGE_COUNTER_MAX (LONG_MAX / PAGE_SIZE): a cgroup without a limit. */
static void test_unlimited(void **state)
{
	struct gh_ev_oom ev = ev_of((uint64_t)INT64_MAX / PAGE);
	struct gh_oom o;
	char line[512];

	(void)state;
	oominfo_from(&ev, 0, PAGE, "", &o);
	assert_int_equal(o.memcg_limit_bytes, 0);
	oominfo_trigger(&o, line, sizeof(line));
	assert_non_null(strstr(line, "of limit none,"));
	ev = ev_of((uint64_t)INT64_MAX / PAGE - 1);
	oominfo_from(&ev, 0, PAGE, "", &o);
	assert_int_equal(o.memcg_limit_bytes,
			 ((uint64_t)INT64_MAX / PAGE - 1) * PAGE);
}

/* The kernel's comm fills its 16 bytes without a NUL. */
static void test_full_comm(void **state)
{
	struct gh_ev_oom ev = ev_of(1);
	struct gh_oom o;

	(void)state;
	memcpy(ev.comm, "0123456789abcdef", 16);
	oominfo_from(&ev, 0, PAGE, "", &o);
	assert_string_equal(o.comm, "0123456789abcdef");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limited),
		cmocka_unit_test(test_unlimited),
		cmocka_unit_test(test_full_comm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
