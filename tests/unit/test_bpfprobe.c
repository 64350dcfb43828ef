/* test_bpfprobe.c - the feature probes the BPF backends and OOM capture
 * make before they load (read/bpfprobe.c), over kernel BTFs made for the
 * purpose (GOHEAP_SYSFS_BTF): this kernel's with a helper renamed (iter
 * and perf refuse with KERNEL, naming it and the release they need). The
 * atomics probe cannot fail on Linux 6.18: its judgement is tested with
 * the kernel's answer given, and the probe itself must accept.
 *
 * The probes that load something need root; without it they cannot tell,
 * and those cases are skipped.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "btfcopy.h"
#include "read/backend.h"
#include "read/bpfprobe.h"

static char dir[] = "/tmp/gh-unit-bpfprobe-XXXXXX";

/* The file name under dir, for GOHEAP_SYSFS_BTF. */
static const char *in_dir(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void use_btf(const char *path)
{
	assert_int_equal(setenv("GOHEAP_SYSFS_BTF", path, 1), 0);
}

/* err is KERNEL, and its message has each of want[0..n). */
static void assert_refused(const struct gh_err *err, const char *const *want,
			   int n)
{
	assert_int_equal(err->code, GH_E_KERNEL);
	for (int i = 0; i < n; i++)
		if (!strstr(err->msg, want[i]))
			fail_msg("\"%s\" does not say \"%s\"", err->msg,
				 want[i]);
}

static void skip_unless_root(void)
{
	if (geteuid())
		skip();
}

/* Backend b, over this kernel's BTF with BPF_FUNC_<helper> renamed, is
 * refused with KERNEL naming the helper and saying needs. */
static void assert_lacking_refused(const struct backend_ops *b,
				   const char *helper, const char *needs)
{
	const char *const want[] = {helper, needs};
	const char *path = in_dir(b->name);
	struct backend_env env = {0};
	char from[64], to[64];
	struct gh_err err;
	void *state;

	snprintf(from, sizeof(from), "BPF_FUNC_%s", helper);
	snprintf(to, sizeof(to), "BPF_FUNC_%.*sx", (int)strlen(helper) - 1,
		 helper);
	assert_int_equal(btf_copy_renamed(path, from, to), 0);
	use_btf(path);
	assert_int_equal(b->open(&state, &env, &err), -1);
	assert_refused(&err, want, 2);
}

static void test_iter_lacks_copy_from_user_task(void **state)
{
	(void)state;
	assert_lacking_refused(&backend_iter, "copy_from_user_task",
			       "the iter backend needs Linux 5.18+");
}

static void test_perf_lacks_ringbuf(void **state)
{
	(void)state;
	assert_lacking_refused(&backend_perf, "ringbuf_output",
			       "the perf backend needs Linux 5.12+");
}

/* A kernel without BPF atomics (Linux 5.10), as the probe would find it;
 * one whose probe could not tell is left to the load. */
static void test_atomics_judged(void **state)
{
	static const char *const want[] = {
		"atomic", "the perf backend needs Linux 5.12+"};
	struct bpfprobe_kernel k = {.prog_type = 1, .ringbuf = 1};
	struct gh_err err;

	(void)state;
	k.atomics = 0;
	assert_int_equal(bpfprobe_judge(&bpfprobe_perf, NULL, &k, &err), -1);
	assert_refused(&err, want, 2);
	k.atomics = -EPERM;
	assert_int_equal(bpfprobe_judge(&bpfprobe_perf, NULL, &k, &err), 0);
}

/* Linux 6.18 offers everything: the atomics probe's program included. */
static void test_this_kernel_offers_all(void **state)
{
	struct gh_err err;

	(void)state;
	skip_unless_root();
	use_btf("/sys/kernel/btf/vmlinux");
	if (bpfprobe_require(&bpfprobe_perf, &err) ||
	    bpfprobe_require(&bpfprobe_iter, &err) ||
	    bpfprobe_require(&bpfprobe_oom, &err))
		fail_msg("%s", err.msg);
	assert_true(bpfprobe_has_helper(BPF_PROG_TYPE_PERF_EVENT, "loop"));
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	static const char *const files[] = {"iter", "perf"};

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(in_dir(files[i]));
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iter_lacks_copy_from_user_task),
		cmocka_unit_test(test_perf_lacks_ringbuf),
		cmocka_unit_test(test_atomics_judged),
		cmocka_unit_test(test_this_kernel_offers_all),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
