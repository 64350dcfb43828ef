/* caps.h - the capabilities a step needs that the process lacks, named,
 * so that a refusal (status 8) says what is missing. */
#ifndef GH_BASE_CAPS_H
#define GH_BASE_CAPS_H

#include <stdbool.h>
#include <stddef.h>

/* Those of caps[0..n) (CAP_* numbers of linux/capability.h: CAP_BPF,
 * CAP_PERFMON, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, CAP_CHECKPOINT_RESTORE)
 * that the process's effective set lacks, into buf as "CAP_BPF, CAP_PERFMON";
 * "" when it has them all, or its set cannot be read.
 * CAP_SYS_ADMIN stands in for CAP_BPF, CAP_PERFMON and
 * CAP_CHECKPOINT_RESTORE, as in the kernel. True when one is missing. */
bool caps_missing(const int *caps, size_t n, char *buf, size_t size);

#endif
