/* bpfenv.c - see bpfenv.h. */
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/caps.h"
#include "base/err.h"
#include "read/bpfenv.h"

const char *bpfenv_kernel_btf(bool *overridden)
{
	const char *path = getenv("GOHEAP_SYSFS_BTF");

	*overridden = path != NULL;
	return path ? path : "/sys/kernel/btf/vmlinux";
}

/* libbpf's print callback is process-wide and takes no context, while
 * each collector has a debug callback of its own, and libbpf prints on
 * the thread that calls it. So one callback is installed once, and it
 * routes each message to the environment of the backend opened last on
 * the calling thread; on threads that opened none, to the callback that
 * was installed before ours (an embedding program's own). */
static _Thread_local struct backend_env print_env;
static _Thread_local bool print_env_set;
static libbpf_print_fn_t print_before;
static pthread_once_t print_once = PTHREAD_ONCE_INIT;

void bpfenv_debug_lines(const struct backend_env *env, char *text)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		env->debug(env->debug_arg, line);
}

static int print_routed(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	char *text;

	if (!print_env_set)
		return print_before ? print_before(level, fmt, ap) : 0;
	if (!print_env.debug || vasprintf(&text, fmt, ap) < 0)
		return 0;
	bpfenv_debug_lines(&print_env, text);
	free(text);
	return 0;
}

static void print_install(void)
{
	print_before = libbpf_set_print(print_routed);
}

void bpfenv_set_print(const struct backend_env *env)
{
	pthread_once(&print_once, print_install);
	print_env = *env;
	print_env_set = true;
}

void bpfenv_clear_print(void)
{
	print_env_set = false;
}

int bpfenv_refused(int rc, bool any_failure, struct gh_err *err)
{
	/* Loading a tracing program takes both (or CAP_SYS_ADMIN). */
	static const int need[] = {CAP_BPF, CAP_PERFMON};
	char miss[64];
	bool lacking = caps_missing(need, 2, miss, sizeof(miss));

	if (rc != -EPERM && !(lacking && (rc == -EACCES || any_failure)))
		return 0;
	return err_set(err, GH_E_PERM,
		       "loading the BPF program was refused (%s%s%s): need "
		       "root, or CAP_BPF + CAP_PERFMON + CAP_SYS_PTRACE",
		       strerror(-rc), lacking ? ", missing " : "", miss);
}

int bpfenv_rejected(int rc, const char *who, struct gh_err *err)
{
	/* What the verifier and map creation answer for what they do not
	 * take (524: the kernel's ENOTSUPP). */
	bool refused = rc == -EINVAL || rc == -EACCES || rc == -E2BIG ||
		       rc == -EOPNOTSUPP || rc == -524;
	struct utsname u;

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	return err_set(err, refused ? GH_E_KERNEL : GH_E_FAILED,
		       "kernel %s rejected %s's BPF program (%s); the "
		       "verifier's log is in the debug output",
		       u.release, who, strerror(-rc));
}

int bpfenv_size_maps(struct bpf_map *events, uint32_t ring_bytes,
		     struct bpf_map *targets, uint32_t ntargets,
		     struct bpf_map *blocks, struct gh_err *err)
{
	if (bpf_map__set_max_entries(events, ring_bytes) ||
	    bpf_map__set_max_entries(targets, ntargets) ||
	    bpf_map__set_max_entries(blocks,
				     (uint32_t)libbpf_num_possible_cpus()))
		return err_set(err, GH_E_FAILED,
			       "sizing the BPF maps failed: %s",
			       strerror(errno));
	return 0;
}

int bpfenv_task_iter_link(int prog_fd, int tid)
{
	union bpf_iter_link_info linfo = {0};
	LIBBPF_OPTS(bpf_link_create_opts, opts);

	if (tid) {
		linfo.task.tid = (uint32_t)tid;
		opts.iter_info = &linfo;
		opts.iter_info_len = sizeof(linfo);
	}
	return bpf_link_create(prog_fd, 0, BPF_TRACE_ITER, &opts);
}
