/* bpfenv.c - see bpfenv.h. */
#include <linux/capability.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

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

static int print_routed(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	char *text, *line, *save = NULL;

	if (!print_env_set)
		return print_before ? print_before(level, fmt, ap) : 0;
	if (!print_env.debug || vasprintf(&text, fmt, ap) < 0)
		return 0;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		print_env.debug(print_env.debug_arg, line);
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

/* Does the process hold what loading a tracing program needs? CAP_SYS_ADMIN
 * implies both CAP_BPF and CAP_PERFMON. */
bool bpfenv_has_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {0};
	uint64_t eff;

	if (syscall(SYS_capget, &hdr, data))
		return false;
	eff = data[0].effective | (uint64_t)data[1].effective << 32;
	if (eff & (1ULL << CAP_SYS_ADMIN))
		return true;
	return (eff & (1ULL << CAP_BPF)) && (eff & (1ULL << CAP_PERFMON));
}

bool bpfenv_kernel_has_helper(const char *btf_path, const char *name)
{
	struct btf *btf = btf__parse(btf_path, NULL);
	char want[64];
	bool found = false;
	int id;

	snprintf(want, sizeof(want), "BPF_FUNC_%s", name);
	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "bpf_func_id", BTF_KIND_ENUM);
	if (id > 0) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e = btf_enum(t);

		for (int i = 0; i < btf_vlen(t) && !found; i++)
			found = !strcmp(btf__name_by_offset(btf, e[i].name_off),
					want);
	}
	btf__free(btf);
	return found;
}
