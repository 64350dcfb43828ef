/* test_cgmount.c - a cgroup given as the directory a person copies from a
 * shell (user/proc/cgmount.c), over mountinfo texts as kernels write them:
 * a hybrid host (v1 controllers under a tmpfs, v2 at unified), a v2-only
 * host, a container whose mounts show its own cgroup at their top, an
 * escaped mount point and optional fields; lines cut, overlong or of
 * another shape skipped; a path beside the mounts refused with a mount
 * to copy from; cgroup paths left as they are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "proc/cgmount.h"

static const char hybrid[] =
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup "
	"cgroup rw,memory\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 "
	"rw\n";

static const char v2[] = "25 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
			 "30 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 "
			 "master:1 - cgroup2 cgroup2 rw,nsdelegate\n";

/* mounted twice on one directory: the later mount hides the earlier */
static const char container[] =
	"690 650 0:32 / /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n"
	"700 650 0:32 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup "
	"rw,memory\n";

/* What resolve makes of path over text: its status, the cgroup in out
 * and the message in err. */
static int resolve(const char *text, const char *path, char *out, size_t size,
		   struct gh_err *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	assert_non_null(f);
	rc = cgmount_resolve(f, path, out, size, err);
	fclose(f);
	return rc;
}

static void expect(const char *text, const char *path, const char *want)
{
	char out[GH_PATH_MAX];
	struct gh_err err = {0};

	assert_int_equal(resolve(text, path, out, sizeof(out), &err), 0);
	assert_string_equal(out, want);
}

/* The refusal names the cause and a mount to copy from. */
static void expect_refused(const char *text, const char *path,
			   const char *example)
{
	char out[GH_PATH_MAX];
	struct gh_err err = {0};

	assert_int_equal(resolve(text, path, out, sizeof(out), &err), -1);
	assert_int_equal(err.code, GH_E_USAGE);
	assert_non_null(strstr(err.msg, "under no cgroup mount; "));
	assert_non_null(strstr(err.msg, example));
}

/* Directories under a mount become the cgroup at the mount's top joined
 * with the rest, as typed; other paths stay as they are. */
static void test_taken(void **state)
{
	static const struct {
		const char *text, *path, *want;
	} cases[] = {
		{hybrid, "/sys/fs/cgroup/memory/x", "/x"},
		{hybrid, "/sys/fs/cgroup/memory/x/", "/x/"},
		{hybrid, "/sys/fs/cgroup/memory/", "/"},
		{hybrid, "/sys/fs/cgroup/memory", "/"},
		{hybrid, "/sys/fs/cgroup/cpu/a/b", "/a/b"},
		{hybrid, "/sys/fs/cgroup/unified/user.slice", "/user.slice"},
		{hybrid, "/system.slice/x.service", "/system.slice/x.service"},
		{hybrid, "/sys", "/sys"},
		{v2, "/sys/fs/cgroup/x", "/x"},
		{v2, "/sys/fs/cgroup/kubepods.slice/", "/kubepods.slice/"},
		{v2, "/kubepods", "/kubepods"},
		{container, "/sys/fs/cgroup/memory/x", "/docker/abc/x"},
		{container, "/sys/fs/cgroup/memory", "/docker/abc"},
		{container, "/sys/fs/cgroup/memory/", "/docker/abc/"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect(cases[i].text, cases[i].path, cases[i].want);
}

/* Beside the mounts: on a hybrid host the tmpfs above the controllers is
 * no cgroup mount, and the example is the memory controller's, whose
 * paths the filter matches; on a v2 host, the mount's parent. */
static void test_refused(void **state)
{
	(void)state;
	expect_refused(hybrid, "/sys/fs/cgroup/x", "(/sys/fs/cgroup/memory/x)");
	expect_refused(hybrid, "/sys/fs/cgroup/memoryx",
		       "/sys/fs/cgroup/memory");
	expect_refused(hybrid, "/sys/fs/cgroup", "/sys/fs/cgroup/memory");
	expect_refused(v2, "/sys/fs/x", "(/sys/fs/cgroup/x)");
}

/* Escapes are undone; a line of another shape, cut short, with a relative
 * root or longer than any mountinfo line is skipped, and the good line
 * after it still counts. */
static void test_odd_lines(void **state)
{
	char *text = malloc(20000);
	size_t n;

	(void)state;
	assert_non_null(text);
	n = (size_t)sprintf(text, "1 2 0:1 / /mnt/a\\040b rw - cgroup2 x rw\n"
				  "3 4 0:2 / /cut rw - cgroup2\n"
				  "5 6 0:3 / /nodash rw cgroup2 x rw\n"
				  "7 8 0:4 rel /rel rw - cgroup2 x rw\n"
				  "9 10\n\n-\n");
	memset(text + n, 'a', 15000);
	n += 15000;
	n += (size_t)sprintf(text + n, " /long rw - cgroup2 x rw\n"
				       "11 12 0:5 / /last rw - cgroup x "
				       "rw,memory");
	text[n] = '\0';
	expect(text, "/mnt/a b/x", "/x");
	expect(text, "/cut/x", "/cut/x");
	expect(text, "/nodash/x", "/nodash/x");
	expect(text, "/rel/x", "/rel/x");
	expect(text, "/long/x", "/long/x");
	/* the last line has no newline: it may be cut, so it is not read */
	expect(text, "/last/x", "/last/x");
	free(text);
}

/* A path or a joined cgroup that does not fit is refused, never cut. */
static void test_bounds(void **state)
{
	char out[16];
	struct gh_err err;

	(void)state;
	assert_int_equal(resolve(container, "/sys/fs/cgroup/memory/abcdef", out,
				 sizeof(out), &err),
			 -1);
	assert_int_equal(err.code, GH_E_USAGE);
	assert_int_equal(
		resolve(v2, "/sys/fs/cgroup/x", out, sizeof(out), &err), 0);
	assert_string_equal(out, "/x");
	assert_int_equal(
		resolve(v2, "/abcdefghijklmnopq", out, sizeof(out), &err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_taken),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_odd_lines),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
