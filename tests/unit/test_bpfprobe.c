/* test_bpfprobe.c - the feature probes the BPF backends and OOM capture
 * make before they load (read/bpfprobe.c), over kernel BTFs made for the
 * purpose (GOHEAP_SYSFS_BTF): this kernel's with a helper renamed (iter
 * and perf refuse with KERNEL, naming it and the release they need), and
 * small ones written with libbpf's writer API in which oom:mark_victim
 * takes (int pid), (struct task_struct *task, uid_t uid) or neither. The
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

#include <bpf/btf.h>
#include <cmocka.h>

#include "btfcopy.h"
#include "oom/oomreader.h"
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

enum form { NEITHER, PID, TASK_UID };

/* mark_victim's FUNC_PROTO in form: (void *__data, ...). */
static int add_proto(struct btf *btf, enum form f)
{
	int i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int u32 = btf__add_int(btf, "unsigned int", 4, 0);
	int uid = btf__add_typedef(btf, "uid_t", u32);
	int vptr = btf__add_ptr(btf, 0);
	int task = btf__add_struct(btf, "task_struct", 0);
	int tptr = btf__add_ptr(btf, task);
	int proto = btf__add_func_proto(btf, i32);

	assert_true(proto > 0 && uid > 0 && tptr > 0);
	assert_int_equal(btf__add_func_param(btf, "__data", vptr), 0);
	if (f == PID)
		assert_int_equal(btf__add_func_param(btf, "pid", i32), 0);
	if (f == TASK_UID) {
		assert_int_equal(btf__add_func_param(btf, "task", tptr), 0);
		assert_int_equal(btf__add_func_param(btf, "uid", uid), 0);
	}
	if (f == NEITHER) /* (void *, struct task_struct *): no uid */
		assert_int_equal(btf__add_func_param(btf, "task", tptr), 0);
	return btf__add_ptr(btf, proto);
}

/* A BTF with what OOM capture looks for: its helpers in enum
 * bpf_func_id, both tracepoints' typedefs, mark_victim in form f. */
static const char *oom_btf(enum form f)
{
	static const char *const helpers[] = {
		"BPF_FUNC_loop",
		"BPF_FUNC_get_current_task_btf",
		"BPF_FUNC_probe_read_user",
		"BPF_FUNC_ringbuf_output",
		"BPF_FUNC_ringbuf_query",
	};
	const char *path = in_dir(f == PID ? "pid" : f ? "task" : "neither");
	struct btf *btf = btf__new_empty();
	int proto;

	assert_non_null(btf);
	assert_true(btf__add_enum(btf, "bpf_func_id", 4) > 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(btf__add_enum_value(btf, helpers[i], 100 + i),
				 0);
	proto = add_proto(btf, f);
	assert_true(btf__add_typedef(btf, "btf_trace_mark_victim", proto) > 0);
	assert_true(btf__add_typedef(btf, "btf_trace_signal_deliver", proto) >
		    0);
	assert_int_equal(btf_write(btf, path), 0);
	btf__free(btf);
	return path;
}

static enum bpfprobe_mark_victim form_of(const char *path)
{
	enum bpfprobe_mark_victim f = 0;
	struct btf *btf = NULL;
	struct gh_err err;

	use_btf(path);
	if (bpfprobe_open(&bpfprobe_oom, &btf, &err) ||
	    bpfprobe_mark_victim(btf, &f, &err))
		fail_msg("mark_victim: %s", err.msg);
	btf__free(btf);
	return f;
}

static void test_mark_victim_pid(void **state)
{
	(void)state;
	assert_int_equal(form_of(oom_btf(PID)), BPFPROBE_MARK_PID);
}

static void test_mark_victim_task_uid(void **state)
{
	(void)state;
	assert_int_equal(form_of(oom_btf(TASK_UID)), BPFPROBE_MARK_TASK_UID);
}

/* This kernel's BTF made older: the copy test_read_oom walks with. */
static void test_mark_victim_pid_copy(void **state)
{
	(void)state;
	assert_int_equal(btf_copy_mark_victim_pid(in_dir("vmlinux-pid")), 0);
	assert_int_equal(form_of(in_dir("vmlinux-pid")), BPFPROBE_MARK_PID);
	assert_int_equal(form_of("/sys/kernel/btf/vmlinux"),
			 BPFPROBE_MARK_TASK_UID);
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

static void test_mark_victim_neither(void **state)
{
	static const char *const want[] = {"oom:mark_victim"};
	struct backend_env env = {0};
	struct oom_reader *r;
	struct gh_err err;

	(void)state;
	use_btf(oom_btf(NEITHER));
	assert_int_equal(oom_reader__open(&r, 4, 1u << 20, &env, &err), -1);
	assert_null(r);
	assert_refused(&err, want, 1);
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
 * one whose probe could not tell is left to the load; one without the
 * program type. */
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
	k.prog_type = 0;
	assert_int_equal(bpfprobe_judge(&bpfprobe_perf, NULL, &k, &err), -1);
	assert_refused(&err, (const char *const[]){"type perf_event"}, 1);
}

/* Linux 6.18 offers everything: the atomics probe's program included. */
static void test_this_kernel_offers_all(void **state)
{
	struct btf *btf = NULL;
	struct gh_err err;

	(void)state;
	skip_unless_root();
	use_btf("/sys/kernel/btf/vmlinux");
	if (bpfprobe_open(&bpfprobe_oom, &btf, &err) ||
	    bpfprobe_require(&bpfprobe_perf, btf, &err) ||
	    bpfprobe_require(&bpfprobe_iter, btf, &err) ||
	    bpfprobe_require(&bpfprobe_oom, btf, &err))
		fail_msg("%s", err.msg);
	assert_true(bpfprobe_has_helper(btf, BPF_PROG_TYPE_PERF_EVENT, "loop"));
	btf__free(btf);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	static const char *const files[] = {"pid",	   "task", "neither",
					    "vmlinux-pid", "iter", "perf"};

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(in_dir(files[i]));
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mark_victim_pid),
		cmocka_unit_test(test_mark_victim_task_uid),
		cmocka_unit_test(test_mark_victim_pid_copy),
		cmocka_unit_test(test_mark_victim_neither),
		cmocka_unit_test(test_iter_lacks_copy_from_user_task),
		cmocka_unit_test(test_perf_lacks_ringbuf),
		cmocka_unit_test(test_atomics_judged),
		cmocka_unit_test(test_this_kernel_offers_all),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
