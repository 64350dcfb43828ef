/* test_memstat.c - the watch's parsers against what others say about the
 * same text: sizes against coreutils' numfmt --from=iec, durations by
 * hand, smaps_rollup's Rss against /proc/self/status's VmRSS (the
 * kernel's other count), the cgroup mounts against findmnt, a cgroup
 * memory file's values (v1's "no limit", v2's "max"), a v2 hierarchy laid
 * out in files, the pressure
 * trigger spec and the kernel's bounds on it, and the errors of a
 * missing PSI file and of a real trigger. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/units.h"
#include "proc/memevent.h"
#include "proc/memstat.h"

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
	uint64_t rss, pss, status;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	(void)state;
	assert_non_null(f);
	assert_int_equal(memstat_read_rollup(f, &rss, &pss), 0);
	fclose(f);
	status = vmrss();
	/* read a moment apart: within 1 MiB */
	assert_true(rss + (1 << 20) > status && status + (1 << 20) > rss);
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
	assert_int_equal(psi_spec_parse("some:150ms/1s", &s, &err), 0);
	assert_false(s.full);
	assert_int_equal(s.stall_us, 150000);
	assert_int_equal(s.window_us, 1000000);
	assert_int_equal(psi_spec_parse("full:10s/10s", &s, &err), 0);
	assert_true(s.full);
	assert_int_equal(s.window_us, 10000000);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(psi_spec_parse(bad[i], &s, &err), -1);
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
	assert_non_null(strstr(err.msg, "without --pressure"));
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
		cmocka_unit_test(test_sizes_against_numfmt),
		cmocka_unit_test(test_bad_sizes),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_rollup_against_status),
		cmocka_unit_test(test_rollup_text),
		cmocka_unit_test(test_mounts_against_findmnt),
		cmocka_unit_test(test_mount_escapes),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_v2_files),
		cmocka_unit_test(test_pressure_specs),
		cmocka_unit_test(test_pressure_sources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
