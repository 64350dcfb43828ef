/* test_memstat.c - the watch's /proc and cgroup readers
 * (user/watch/memstat.c) against what others say about the same text:
 * smaps_rollup's Rss against /proc/self/status's VmRSS (the kernel's other
 * count), the cgroup mounts against findmnt, a cgroup memory file's values
 * (v1's "no limit", v2's "max") and a v2 hierarchy laid out in files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "watch/memstat.h"

/* VmRSS from /proc/self/status, in bytes. */
static uint64_t vmrss(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

static void test_rollup_against_status(void **state)
{
	uint64_t rss, pss, status, before;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	(void)state;
	assert_non_null(f);
	before = vmrss();
	assert_int_equal(memstat_read_rollup(f, &rss, &pss), 0);
	fclose(f);
	status = vmrss();
	/* read between two reads of VmRSS (which the sanitizers' allocator
	 * may move meanwhile): within them, give or take 1 MiB */
	if (before > status) {
		uint64_t t = before;

		before = status;
		status = t;
	}
	assert_true(rss + (1 << 20) > before && status + (1 << 20) > rss);
	assert_true(pss > 0 && pss <= rss);
}

static void test_rollup_text(void **state)
{
	static const char good[] =
		"00400000-7ffd [rollup]\nRss:                1234 kB\n"
		"Pss:                 100 kB\nPss_Anon: 5 kB\n";
	static const char *const bad[] = {"",
					  "Rss: kB\n",
					  "Rss: 12\n",
					  "Rss: -5 kB\n",
					  "Rss: 99999999999999999999999 kB\n",
					  "Pss: 4 kB\n"};
	uint64_t rss, pss;
	FILE *f = fmemopen((void *)good, sizeof(good) - 1, "r");

	(void)state;
	assert_int_equal(memstat_read_rollup(f, &rss, &pss), 0);
	fclose(f);
	assert_int_equal(rss, 1234 * 1024);
	assert_int_equal(pss, 100 * 1024);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f = fmemopen((void *)bad[i], strlen(bad[i]) + 1, "r");
		assert_int_equal(memstat_read_rollup(f, &rss, &pss), -1);
		fclose(f);
	}
}

/* findmnt's first mount point of type (and option), "" when none. */
static void findmnt(const char *args, char *out, size_t size)
{
	char cmd[256];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "findmnt -n -l -o TARGET %s | head -1",
		 args);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (!fgets(out, (int)size, p))
		out[0] = '\0';
	pclose(p);
	out[strcspn(out, "\n")] = '\0';
}

static void test_mounts_against_findmnt(void **state)
{
	struct memcg_roots r;
	char v1[GH_PATH_MAX], v2[GH_PATH_MAX];

	(void)state;
	memstat_roots(&r);
	findmnt("-t cgroup -O memory", v1, sizeof(v1));
	findmnt("-t cgroup2", v2, sizeof(v2));
	assert_string_equal(r.v1, v1);
	assert_string_equal(r.v2, v2);
}

static void test_mount_escapes(void **state)
{
	static const char text[] =
		"cgroup /sys/fs/cgroup/a\\040b cgroup rw,memory 0 0\n"
		"cgroup2 /x cgroup2 rw 0 0\n"
		"cgroup /y cgroup rw,memory_x 0 0\n";
	struct memcg_roots r;
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	(void)state;
	memstat_read_mounts(f, &r);
	fclose(f);
	assert_string_equal(r.v1, "/sys/fs/cgroup/a b");
	assert_string_equal(r.v2, "/x");
}

static void test_values(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(memstat_parse_value("123\n", &v), 0);
	assert_int_equal(v, 123);
	assert_int_equal(memstat_parse_value("max\n", &v), 0);
	assert_int_equal(v, UINT64_MAX);
	/* v1's "no limit": PAGE_COUNTER_MAX pages */
	assert_int_equal(memstat_parse_value("9223372036854771712\n", &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(memstat_parse_value("", &v), -1);
	assert_int_equal(memstat_parse_value("-1\n", &v), -1);
	assert_int_equal(memstat_parse_value("12a\n", &v), -1);
	assert_int_equal(memstat_parse_value("maximum\n", &v), -1);
}

/* The test's own memory, as the library reads it, against its cgroup's
 * files read here. */
static void test_self(void **state)
{
	struct gh_memstat m;
	struct gh_err err;
	char path[GH_PATH_MAX + 32];
	unsigned long long usage;
	FILE *f;

	(void)state;
	assert_int_equal(gh_memstat__read(getpid(), &m, &err), 0);
	assert_true(m.rss > 0 && m.pss > 0);
	if (!m.cgroup_version)
		return;
	snprintf(path, sizeof(path), "%s/%s", m.cgroup_dir,
		 m.cgroup_version == 1 ? "memory.usage_in_bytes"
				       : "memory.current");
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llu", &usage), 1);
	fclose(f);
	/* other processes share the cgroup: within 64 MiB */
	assert_true(m.cgroup_usage + (64 << 20) > usage &&
		    usage + (64 << 20) > m.cgroup_usage);
	assert_int_equal(gh_memstat__read(0x7ffffffe, &m, &err), -1);
	assert_int_equal(err.code, GH_E_NOPROC);
}

/* A v2 hierarchy laid out in a directory of files: the directory found
 * for a path, "max" as no limit; a path outside, or with "..", none. */
static void test_v2_files(void **state)
{
	char root[] = "/tmp/gh-memcg-XXXXXX", cmd[256], dir[GH_PATH_MAX];
	struct memcg_roots r = {"", ""};
	uint64_t usage, limit;
	struct gh_err err;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/app && echo 1048576 > %s/app/memory.current && "
		 "echo max > %s/app/memory.max",
		 root, root, root);
	assert_int_equal(system(cmd), 0);
	snprintf(r.v2, sizeof(r.v2), "%s", root);
	assert_int_equal(memstat_cgroup_dir(&r, "/app", dir, sizeof(dir)), 2);
	assert_int_equal(memstat_cgroup_usage(dir, 2, &usage, &limit, &err), 0);
	assert_int_equal(usage, 1 << 20);
	assert_int_equal(limit, UINT64_MAX);
	assert_int_equal(memstat_cgroup_dir(&r, "/other", dir, sizeof(dir)), 0);
	assert_int_equal(
		memstat_cgroup_dir(&r, "/app/../app", dir, sizeof(dir)), 0);
	assert_int_equal(memstat_cgroup_dir(&r, "", dir, sizeof(dir)), 0);
	snprintf(cmd, sizeof(cmd), "rm -r %s", root);
	assert_int_equal(system(cmd), 0);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rollup_against_status),
		cmocka_unit_test(test_rollup_text),
		cmocka_unit_test(test_mounts_against_findmnt),
		cmocka_unit_test(test_mount_escapes),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_v2_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
