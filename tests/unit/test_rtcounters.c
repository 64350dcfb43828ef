/* test_rtcounters.c - user/gobin/rtcounters.c: each release's row against
 * what fixtures/structrefs.sh read with Go's own debug/dwarf from a binary
 * that release built: every field the row names at the DWARF's offset
 * with the width the reader takes, every field the row says the release
 * lacks absent from its DWARF, and the bytes read of gcController within
 * the struct. Unknown releases are refused. */
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

/* A field of the row: the struct and dotted path the DWARF names it by,
 * and the width the reader takes there. */
static const struct {
	const char *type, *path;
	size_t member;
	long width;
} fields[] = {
#define F(t, p, m, w)                                                          \
	{                                                                      \
		"runtime." t, p, offsetof(struct rtcounters, m), w             \
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
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]);
		     i++) {
			if (strcmp(type, fields[i].type) ||
			    strcmp(name, fields[i].path))
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
	assert_int_equal(nvars, 6);
	/* A field the row leaves at 0 is one the release lacks (gcPercent
	 * is the one at 0 in every release). */
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		bool zero = row_off(R, fields[i].member) == 0 && i != 0;

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
