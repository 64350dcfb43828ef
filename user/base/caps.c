/* caps.c - see caps.h. */
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/caps.h"

static const char *cap_name(int cap)
{
	switch (cap) {
	case CAP_DAC_READ_SEARCH:
		return "CAP_DAC_READ_SEARCH";
	case CAP_SYS_PTRACE:
		return "CAP_SYS_PTRACE";
	case CAP_PERFMON:
		return "CAP_PERFMON";
	case CAP_BPF:
		return "CAP_BPF";
	case CAP_CHECKPOINT_RESTORE:
		return "CAP_CHECKPOINT_RESTORE";
	default:
		return "a capability";
	}
}

static bool has(uint64_t eff, int cap)
{
	bool admin_will_do = cap == CAP_BPF || cap == CAP_PERFMON ||
			     cap == CAP_CHECKPOINT_RESTORE;

	return (eff >> cap & 1) ||
	       (admin_will_do && (eff >> CAP_SYS_ADMIN & 1));
}

bool caps_missing(const int *caps, size_t n, char *buf, size_t size)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {{0}};
	uint64_t eff;
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	if (syscall(SYS_capget, &hdr, data))
		return false;
	eff = data[0].effective | (uint64_t)data[1].effective << 32;
	for (size_t i = 0; i < n; i++) {
		if (has(eff, caps[i]) || len >= size)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					len ? ", " : "", cap_name(caps[i]));
	}
	return len > 0;
}
