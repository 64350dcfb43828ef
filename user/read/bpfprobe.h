/* bpfprobe.h - what each BPF object (iter, perf, OOM capture) asks of
 * the kernel, and whether this kernel offers it: a program the kernel
 * cannot take is refused with KERNEL, in one line naming what is missing
 * and the Linux release that has it, not with the verifier's words (they
 * mean nothing to a user, and would end as FAILED). Asked before the load
 * where the load needs an answer, else once a load failed (bpfload.c).
 *
 * The kernel's BTF is bpfenv_kernel_btf's (GOHEAP_SYSFS_BTF stands in for
 * it in tests: a copy lacking a helper makes a refusal testable here). */
#ifndef GH_BPFPROBE_H
#define GH_BPFPROBE_H

#include <stdbool.h>

#include <bpf/bpf.h>

#include "base/err.h"

struct btf;

/* Kernel facilities a spec may need besides helpers and BTF types. */
enum {
	BPFPROBE_RINGBUF = 1u << 0, /* BPF_MAP_TYPE_RINGBUF (Linux 5.8) */
	BPFPROBE_ATOMICS = 1u << 1, /* cmpxchg, xchg (Linux 5.12) */
};

/* A type the kernel's BTF must hold, and what it stands for. */
struct bpfprobe_type {
	int kind; /* BTF_KIND_* */
	const char *name;
	const char *what; /* "the signal:signal_deliver tracepoint" */
};

/* What one BPF object needs. */
struct bpfprobe_spec {
	const char *who;	 /* "the perf backend" */
	const char *linux;	 /* the first release with all of it: "5.12" */
	enum bpf_prog_type type; /* its programs' type */
	bool needs_btf;		 /* tracing programs: no BTF, no load */
	unsigned needs;		 /* BPFPROBE_* */
	const char *const *helpers;	   /* "loop" for bpf_loop; NULL-ended */
	const struct bpfprobe_type *types; /* name NULL ends */
};

extern const struct bpfprobe_spec bpfprobe_iter, bpfprobe_perf, bpfprobe_oom;

/* What the probes that load something into the kernel said: 1 offered,
 * 0 refused, negative when they could not tell (no privileges: then the
 * object's own load says why). */
struct bpfprobe_kernel {
	int prog_type, ringbuf, atomics;
	unsigned helpers_refused; /* bit i: spec->helpers[i] */
};

/* The kernel's BTF into *btf, parsed once for every question a load asks
 * (it is megabytes): NULL when it cannot be read, which is KERNEL for a
 * spec that needs it. The caller frees it (btf__free). */
int bpfprobe_open(const struct bpfprobe_spec *spec, struct btf **btf,
		  struct gh_err *err);

/* Refuse, before loading, what the kernel (btf: bpfprobe_open's) lacks of
 * spec: 0, or KERNEL naming the first thing missing. */
int bpfprobe_require(const struct bpfprobe_spec *spec, const struct btf *btf,
		     struct gh_err *err);

/* Does the kernel offer helper bpf_<name> to programs of type (btf's
 * enum bpf_func_id names it, and the kernel does not refuse it where
 * libbpf can ask)? */
bool bpfprobe_has_helper(const struct btf *btf, enum bpf_prog_type type,
			 const char *name);

/* The judgement bpfprobe_require makes of btf (NULL: none could be read)
 * and of what the kernel said (k). */
int bpfprobe_judge(const struct bpfprobe_spec *spec, const struct btf *btf,
		   const struct bpfprobe_kernel *k, struct gh_err *err);

/* oom:mark_victim's arguments, which changed upstream (commit
 * 72ba14deb40a, backported to several stable series in 2025). */
enum bpfprobe_mark_victim {
	BPFPROBE_MARK_PID = 1,	/* (int pid): the victim thread's TID */
	BPFPROBE_MARK_TASK_UID, /* (struct task_struct *task, uid_t uid) */
};

/* Which form the kernel's BTF gives oom:mark_victim (its typedef
 * btf_trace_mark_victim: a pointer to a FUNC_PROTO whose first parameter
 * is the void *ctx, then the tracepoint's own); KERNEL naming the
 * tracepoint when neither. */
int bpfprobe_mark_victim(const struct btf *btf, enum bpfprobe_mark_victim *form,
			 struct gh_err *err);

#endif
