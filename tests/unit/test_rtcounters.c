/* test_rtcounters.c - user/gobin/rtcounters.c: each release's row against
 * what fixtures/structrefs.sh read with Go's own debug/dwarf from a binary
 * that release built: every field the row names at the DWARF's offset
 * with the width the reader takes, every field the row says the release
 * lacks absent from its DWARF, and the bytes read of gcController within
 * the struct. Unknown releases are refused. The goroutines by state:
 * the fields of schedStatsAggregate's reads (1.26+, absent from the rows
 * before), and how a g's status counts before 1.26. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"

#include "base/err.h"
#include "gobin/rtcounters.h"
#include "goroutine/schedstats.h"

/* A field of the row: the struct and dotted path the DWARF names it by,
 * and the width the reader takes there. schedStatsAggregate's (since26)
 * are in every row from 1.26 and left out of the rows before (p.status
 * and others existed then, but those goroutines by state come from the
 * g statuses). */
static const struct {
	const char *type, *path;
	size_t member;
	long width;
	bool since26;
} fields[] = {
#define F(t, p, m, w)                                                          \
	{                                                                      \
		"runtime." t, p, offsetof(struct rtcounters, m), w, false      \
	}
#define S(t, p, m, w)                                                          \
	{                                                                      \
		"runtime." t, p, offsetof(struct rtcounters, m), w, true       \
	}
	F("gcControllerState", "gcPercent", gc_percent, 4),
	F("gcControllerState", "memoryLimit", memory_limit, 8),
	F("gcControllerState", "heapMarked", heap_marked, 8),
	F("gcControllerState", "heapGoal", heap_goal, 8),
	F("gcControllerState", "gcPercentHeapGoal", pct_heap_goal, 8),
	F("gcControllerState", "sweepDistMinTrigger", sweep_dist_min, 8),
	F("gcControllerState", "triggered", triggered, 8),
	F("gcControllerState", "heapFree", heap_free, 8),
	F("gcControllerState", "totalAlloc", total_alloc, 8),
	F("gcControllerState", "totalFree", total_free, 8),
	F("gcControllerState", "mappedReady", mapped_ready, 8),
	F("mstats", "numgc", numgc, 4),
	F("schedt", "ngsys", sched_ngsys, 4),
	F("schedt", "gFree.n", sched_gfree_n, 4),
	F("schedt", "gFree.stack.size", sched_gfree_s1, 4),
	F("schedt", "gFree.noStack.size", sched_gfree_s2, 4),
	S("schedt", "runq.size", sched_runq_size, 4),
	S("schedt", "nGsyscallNoP", sched_nsyscall_nop, 4),
	S("schedt", "goroutinesCreated", sched_created, 8),
	S("p", "status", p_status, 4),
	S("p", "m", p_m, 8),
	S("p", "runqhead", p_runqhead, 4),
	S("p", "runnext", p_runnext, 8),
	S("p", "goroutinesCreated", p_created, 8),
	S("m", "curg", m_curg, 8),
	S("m", "p", m_p, 8),
#undef S
#undef F
};

static uint32_t row_off(const struct rtcounters *R, size_t member)
{
	return *(const uint32_t *)((const char *)R + member);
}

static void check_release(const char *ver)
{
	char path[4096], line[512], type[128], name[128];
	const struct rtcounters *R;
	struct gh_err err;
	bool seen[sizeof(fields) / sizeof(fields[0])] = {0};
	long runqtail = -1;
	bool p_seen = false;
	long off, width, gc_size = -1;
	size_t nvars = 0;
	FILE *f;

	R = rtcounters__for(atoi(ver + 2), &err);
	if (!R)
		fail_msg("%s: %s", ver, err.msg);
	snprintf(path, sizeof(path), "%s/gobin/%s/rtstruct", fixture_dir(),
		 ver);
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: missing (fixtures/structrefs.sh)", path);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "size %127s %ld", type, &off) == 2) {
			if (!strcmp(type, "runtime.gcControllerState"))
				gc_size = off;
			continue;
		}
		if (sscanf(line, "var %127s %ld", name, &off) == 2) {
			nvars++;
			continue;
		}
		if (sscanf(line, "field %127s %127s %ld %ld", type, name, &off,
			   &width) != 4)
			continue;
		/* p.gFree.n (<= 1.24) and p.gFree.size (1.25+) are one
		 * column: the count of a P's free gs. */
		if (!strcmp(type, "runtime.p") &&
		    (!strcmp(name, "gFree.n") || !strcmp(name, "gFree.size"))) {
			if (off != R->p_gfree_n || width != 4)
				fail_msg("go%s: p.%s is at %ld (%ld bytes), "
					 "the row says %u",
					 ver, name, off, width, R->p_gfree_n);
			p_seen = true;
			continue;
		}
		if (!strcmp(type, "runtime.p") && !strcmp(name, "runqtail"))
			runqtail = off;
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]);
		     i++) {
			if (strcmp(type, fields[i].type) ||
			    strcmp(name, fields[i].path) ||
			    (fields[i].since26 && !R->p_status))
				continue;
			if (row_off(R, fields[i].member) != (uint32_t)off ||
			    width != fields[i].width)
				fail_msg("go%s: %s.%s is at %ld (%ld bytes), "
					 "the row says %u (%ld)",
					 ver, type, name, off, width,
					 row_off(R, fields[i].member),
					 fields[i].width);
			seen[i] = true;
		}
	}
	fclose(f);
	assert_true(p_seen);
	assert_int_equal(nvars, 7);
	/* schedStatsAggregate's fields from 1.26 only, the row's runqtail
	 * right after runqhead. */
	assert_int_equal(R->p_status != 0, atoi(ver + 2) >= 26);
	if (R->p_status)
		assert_int_equal(runqtail, R->p_runqhead + 4);
	/* A field the row leaves at 0 is one the release lacks (gcPercent
	 * is the one at 0 in every release). */
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		bool zero = row_off(R, fields[i].member) == 0 && i != 0;

		if (fields[i].since26 && !R->p_status) {
			assert_true(zero);
			continue;
		}
		if (seen[i] == zero)
			fail_msg("go%s: %s.%s is %s the DWARF, the row says "
				 "%s",
				 ver, fields[i].type, fields[i].path,
				 seen[i] ? "in" : "not in",
				 zero ? "absent" : "present");
	}
	assert_true(gc_size >= R->gc_bytes);
	assert_int_equal(R->memory_limit != 0, R->headroom != RT_HEADROOM_NONE);
}

static void test_rows(void **state)
{
	(void)state;
	gobin_each_release(check_release);
}

static void test_unknown(void **state)
{
	struct gh_err err;

	(void)state;
	assert_null(rtcounters__for(17, &err));
	assert_int_equal(err.code, GH_E_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "1.17"));
	assert_null(rtcounters__for(28, &err));
	assert_non_null(rtcounters__for(18, &err));
	assert_non_null(rtcounters__for(27, &err));
}

/* Before 1.26: runtime2.go's statuses, with and without the _Gscan bit,
 * as running, runnable, not in Go (a system or cgo call), or the rest. */
static void test_sched_class(void **state)
{
	static const struct {
		uint32_t st;
		enum sched_class c;
	} v[] = {
		{GST_IDLE, SCHED_REST},
		{GST_RUNNABLE, SCHED_RUNNABLE},
		{GST_RUNNING, SCHED_RUNNING},
		{GST_SYSCALL, SCHED_NOT_IN_GO},
		{GST_WAITING, SCHED_REST},
		{GST_DEAD, SCHED_REST},
		{GST_COPYSTACK, SCHED_REST},
		{GST_PREEMPTED, SCHED_REST},
		{GST_SCAN | GST_RUNNING, SCHED_RUNNING},
		{GST_SCAN | GST_RUNNABLE, SCHED_RUNNABLE},
		{GST_SCAN | GST_SYSCALL, SCHED_NOT_IN_GO},
		{GST_SCAN | GST_WAITING, SCHED_REST},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(sched_class_of(v[i].st), v[i].c);
}

/* waiting: what is left of gcount(true), never below 0 (1.27's rule). */
static void test_sched_waiting(void **state)
{
	(void)state;
	assert_int_equal(sched_waiting(40, 1, 2, 3), 34);
	assert_int_equal(sched_waiting(6, 1, 2, 3), 0);
	assert_int_equal(sched_waiting(5, 1, 2, 3), 0);
	assert_int_equal(sched_waiting(1, 0, 0, 0), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_sched_class),
		cmocka_unit_test(test_sched_waiting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
