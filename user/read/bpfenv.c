/* bpfenv.c - see bpfenv.h. */
#include <linux/capability.h>
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

/* libbpf's print callback is process-wide and takes no context, so the
 * verbosity flag lives in exactly one place: which of these two callbacks
 * libbpf holds. The latest iter_reader__open decides it for the process. */
static int print_quiet(enum libbpf_print_level level, const char *fmt,
		       va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int print_stderr(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

void bpfenv_set_print(bool verbose)
{
	libbpf_set_print(verbose ? print_stderr : print_quiet);
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
