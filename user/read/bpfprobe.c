/* bpfprobe.c - see bpfprobe.h. What can be read from the kernel's BTF
 * (helpers, tracepoints, iterator types) is read there, so that a test's
 * BTF copy decides it; what only the kernel can say (program type, ring
 * buffer, atomics) is asked with a tiny load, as libbpf's own probes do. */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "base/caps.h"
#include "read/bpfenv.h"
#include "read/bpfprobe.h"

static const char *const iter_helpers[] = {
	"copy_from_user_task", "loop", "ringbuf_output", "ringbuf_query", NULL,
};
/* libbpf 1.1.2's probe of the tracing program type says 0 on Linux 6.18:
 * the task iterator's context type in the BTF stands for it. */
static const struct bpfprobe_type iter_types[] = {
	{BTF_KIND_STRUCT, "bpf_iter__task", "BPF task iterators"},
	{0, NULL, NULL},
};
const struct bpfprobe_spec bpfprobe_iter = {
	.who = "the iter backend",
	.linux = "5.18",
	.type = BPF_PROG_TYPE_TRACING,
	.needs_btf = true,
	.needs = BPFPROBE_RINGBUF,
	.helpers = iter_helpers,
	.types = iter_types,
};

/* bpf_loop is not needed: the perf backend has a program without it. */
static const char *const perf_helpers[] = {
	"probe_read_user",
	"ringbuf_output",
	"ringbuf_query",
	NULL,
};
static const struct bpfprobe_type no_types[] = {{0, NULL, NULL}};
const struct bpfprobe_spec bpfprobe_perf = {
	.who = "the perf backend",
	.linux = "5.12",
	.type = BPF_PROG_TYPE_PERF_EVENT,
	.needs = BPFPROBE_RINGBUF | BPFPROBE_ATOMICS,
	.helpers = perf_helpers,
	.types = no_types,
};

static const char *const oom_helpers[] = {
	"loop",		  "get_current_task_btf", "probe_read_user",
	"ringbuf_output", "ringbuf_query",	  NULL,
};
static const struct bpfprobe_type oom_types[] = {
	{BTF_KIND_TYPEDEF, "btf_trace_signal_deliver",
	 "the signal:signal_deliver tracepoint"},
	{BTF_KIND_TYPEDEF, "btf_trace_mark_victim",
	 "the oom:mark_victim tracepoint"},
	{0, NULL, NULL},
};
const struct bpfprobe_spec bpfprobe_oom = {
	.who = "OOM-kill capture",
	.linux = "5.17",
	.type = BPF_PROG_TYPE_TRACING,
	.needs_btf = true,
	.needs = BPFPROBE_RINGBUF | BPFPROBE_ATOMICS,
	.helpers = oom_helpers,
	.types = oom_types,
};

/* The value of BPF_FUNC_<name> in btf's enum bpf_func_id, or -1. */
static int helper_id(const struct btf *btf, const char *name)
{
	char want[64];
	int id = btf ? btf__find_by_name_kind(btf, "bpf_func_id", BTF_KIND_ENUM)
		     : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_enum *e = t ? btf_enum(t) : NULL;

	snprintf(want, sizeof(want), "BPF_FUNC_%s", name);
	for (int i = 0; e && i < btf_vlen(t); i++) {
		const char *n = btf__name_by_offset(btf, e[i].name_off);

		if (n && !strcmp(n, want))
			return (int)e[i].val;
	}
	return -1;
}

/* A 32-bit compare-and-exchange and exchange on the stack, as clang
 * emits for __sync_val_compare_and_swap and __sync_fetch_and_and (-mcpu=v3):
 * BPF atomics (Linux 5.12). Linux 5.10 refuses them ("BPF_STX uses
 * reserved fields"): EINVAL. 1, 0, or -errno when it cannot tell. */
static int probe_atomics(void)
{
	const struct bpf_insn insns[] = {
		{.code = BPF_ST | BPF_MEM | BPF_W,
		 .dst_reg = BPF_REG_10,
		 .off = -4,
		 .imm = 0},
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
		{.code = BPF_ALU64 | BPF_MOV | BPF_K,
		 .dst_reg = BPF_REG_1,
		 .imm = 1},
		{.code = BPF_STX | BPF_ATOMIC | BPF_W,
		 .dst_reg = BPF_REG_10,
		 .src_reg = BPF_REG_1,
		 .off = -4,
		 .imm = BPF_CMPXCHG},
		{.code = BPF_STX | BPF_ATOMIC | BPF_W,
		 .dst_reg = BPF_REG_10,
		 .src_reg = BPF_REG_1,
		 .off = -4,
		 .imm = BPF_XCHG},
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return errno == EINVAL ? 0 : -errno;
}

/* Ask the kernel itself; all "cannot tell" without the capabilities a
 * load takes (libbpf's probes would say "not offered"). */
static void probe_kernel(const struct bpfprobe_spec *s, const struct btf *btf,
			 struct bpfprobe_kernel *k)
{
	static const int need[] = {CAP_BPF, CAP_PERFMON};
	char miss[64];

	*k = (struct bpfprobe_kernel){-1, -1, -1, 0};
	if (caps_missing(need, 2, miss, sizeof(miss)))
		return;
	/* libbpf cannot probe tracing programs (see iter_types). */
	if (s->type != BPF_PROG_TYPE_TRACING)
		k->prog_type = libbpf_probe_bpf_prog_type(s->type, NULL);
	if (s->needs & BPFPROBE_RINGBUF)
		k->ringbuf =
			libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);
	if (s->needs & BPFPROBE_ATOMICS)
		k->atomics = probe_atomics();
	for (unsigned i = 0; s->type != BPF_PROG_TYPE_TRACING && s->helpers[i];
	     i++) {
		int id = helper_id(btf, s->helpers[i]);

		if (id >= 0 && !libbpf_probe_bpf_helper(s->type, id, NULL))
			k->helpers_refused |= 1u << i;
	}
}

/* KERNEL: the kernel lacks what; spec's user needs a later release. */
static int lacks(const struct bpfprobe_spec *s, const char *what,
		 const char *name, struct gh_err *err)
{
	struct utsname u;

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	return err_set(err, GH_E_KERNEL,
		       "kernel %s lacks %s%s; %s needs Linux %s+", u.release,
		       what, name, s->who, s->linux);
}

int bpfprobe_judge(const struct bpfprobe_spec *s, const struct btf *btf,
		   const struct bpfprobe_kernel *k, struct gh_err *err)
{
	for (unsigned i = 0; s->helpers[i]; i++)
		if ((btf && helper_id(btf, s->helpers[i]) < 0) ||
		    (k->helpers_refused >> i & 1))
			return lacks(s, "the BPF helper bpf_", s->helpers[i],
				     err);
	for (const struct bpfprobe_type *t = s->types; btf && t->name; t++)
		if (btf__find_by_name_kind(btf, t->name, t->kind) < 0)
			return lacks(s, t->what, " in its BTF", err);
	if (!k->prog_type)
		return lacks(s, "BPF programs of type ",
			     libbpf_bpf_prog_type_str(s->type), err);
	if (!k->ringbuf)
		return lacks(s, "BPF ring buffers", "", err);
	if (!k->atomics)
		return lacks(s,
			     "BPF atomic instructions (compare-and-exchange)",
			     "", err);
	return 0;
}

int bpfprobe_open(const struct bpfprobe_spec *s, struct btf **btf,
		  struct gh_err *err)
{
	bool overridden;
	const char *path = bpfenv_kernel_btf(&overridden);

	*btf = btf__parse(path, NULL);
	if (!*btf && s->needs_btf)
		return err_set(err, GH_E_KERNEL,
			       "%s: %s: the kernel has no BTF; %s needs Linux "
			       "%s+ built with CONFIG_DEBUG_INFO_BTF=y",
			       path, strerror(errno), s->who, s->linux);
	return 0;
}

int bpfprobe_require(const struct bpfprobe_spec *s, const struct btf *btf,
		     struct gh_err *err)
{
	struct bpfprobe_kernel k;

	probe_kernel(s, btf, &k);
	return bpfprobe_judge(s, btf, &k, err);
}

bool bpfprobe_has_helper(const struct btf *btf, enum bpf_prog_type type,
			 const char *name)
{
	int id = helper_id(btf, name);

	return id >= 0 && (type == BPF_PROG_TYPE_TRACING ||
			   libbpf_probe_bpf_helper(type, id, NULL) != 0);
}

/* t with typedefs and modifiers (const, volatile) skipped. */
static const struct btf_type *skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

static bool is_task_ptr(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = skip_mods(btf, id);
	const char *name;

	if (!t || !btf_is_ptr(t) || !(t = skip_mods(btf, t->type)))
		return false;
	name = btf__name_by_offset(btf, t->name_off);
	return btf_is_struct(t) && name && !strcmp(name, "task_struct");
}

static bool is_int(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = skip_mods(btf, id);

	return t && btf_is_int(t) && t->size == 4;
}

/* The form of the FUNC_PROTO p (void *ctx, then the tracepoint's). */
static int proto_form(const struct btf *btf, const struct btf_type *p)
{
	const struct btf_param *a = btf_params(p);
	int n = btf_vlen(p);

	if (n == 2 && is_int(btf, a[1].type))
		return BPFPROBE_MARK_PID;
	if (n == 3 && is_task_ptr(btf, a[1].type) && is_int(btf, a[2].type))
		return BPFPROBE_MARK_TASK_UID;
	return 0;
}

int bpfprobe_mark_victim(const struct btf *btf, enum bpfprobe_mark_victim *form,
			 struct gh_err *err)
{
	const struct btf_type *t = NULL;
	int id = -1, f = 0;

	if (btf)
		id = btf__find_by_name_kind(btf, "btf_trace_mark_victim",
					    BTF_KIND_TYPEDEF);
	if (id > 0)
		t = skip_mods(btf, (__u32)id);
	if (t && btf_is_ptr(t))
		t = btf__type_by_id(btf, t->type);
	if (t && btf_is_func_proto(t))
		f = proto_form(btf, t);
	if (!f)
		return err_set(err, GH_E_KERNEL,
			       "the kernel's oom:mark_victim tracepoint takes "
			       "neither (int pid) nor (struct task_struct "
			       "*task, uid_t uid) in its BTF; OOM-kill capture "
			       "knows only those two");
	*form = (enum bpfprobe_mark_victim)f;
	return 0;
}
