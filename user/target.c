/* target.c - opening a Go process: identity from /proc, the executable
 * through /proc/PID/exe (so deleted or namespaced binaries work), the Go
 * version and layout, and the runtime addresses of the profile's roots. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target.h"

/* Opening /proc/PID/exe needs ptrace access; tell that apart from "gone"
 * and "kernel thread" before handing the path to libelf. */
static int check_exe(int pid, const char *path, struct gh_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = errno;
	char dir[32];

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (e == EACCES || e == EPERM)
		return gh_err_set(err, GH_E_PERM,
				  "cannot open %s: permission denied; run as "
				  "root (or with CAP_BPF, CAP_PERFMON and "
				  "CAP_SYS_PTRACE)",
				  path);
	snprintf(dir, sizeof(dir), "/proc/%d", pid);
	if (e == ENOENT && !access(dir, F_OK))
		return gh_err_set(err, GH_E_NOTGO,
				  "PID %d has no executable (a kernel thread?); "
				  "pass the PID of a Go program",
				  pid);
	return gh_err_set(err, GH_E_NOPROC,
			  "cannot open %s: %s; the process may have exited",
			  path, strerror(e));
}

static int need_symbol(const struct gh_target *t, const char *name,
		       uint64_t *addr, struct gh_err *err)
{
	if (!gh_gobin_symbol(t->bin, name, addr)) {
		*addr += t->bias;
		return 0;
	}
	return gh_err_set(err, GH_E_UNSUPPORTED,
			  "%s has no symbol %s (a stripped binary?); stripped "
			  "binaries are not supported yet: profile an "
			  "unstripped build (without -ldflags=-s)",
			  t->bin->version, name);
}

static void optional_symbol(const struct gh_target *t, const char *name,
			    uint64_t *addr)
{
	*addr = gh_gobin_symbol(t->bin, name, addr) ? 0 : *addr + t->bias;
}

static int resolve_addresses(struct gh_target *t, struct gh_err *err)
{
	uint64_t vaddr, offset;

	if (gh_elf_first_load(t->bin->elf, &vaddr, &offset))
		return gh_err_set(err, GH_E_NOTGO,
				  "PID %d's executable has no PT_LOAD segment",
				  t->pid);
	if (gh_proc_maps(t->pid, &t->maps, err) ||
	    gh_proc_exe_bias(t->pid, &t->maps, gh_elf_is_dyn(t->bin->elf),
			     vaddr, offset, &t->bias, err))
		return -1;
	if (need_symbol(t, "runtime.mbuckets", &t->mbuckets, err) ||
	    need_symbol(t, "runtime.MemProfileRate", &t->vars[GH_VAR_RATE],
			err) ||
	    need_symbol(t, t->bin->layout->cycle_sym, &t->vars[GH_VAR_CYCLE],
			err))
		return -1;
	optional_symbol(t, "runtime.disableMemoryProfiling",
			&t->vars[GH_VAR_DISABLE]);
	optional_symbol(t, "math.useFMA", &t->vars[GH_VAR_USEFMA]);
	return 0;
}

int gh_target__open(int pid, struct gh_target **out, struct gh_err *err)
{
	struct gh_target *t;
	char exe[64];

	*out = NULL;
	if (pid <= 0)
		return gh_err_set(err, GH_E_USAGE, "invalid PID %d", pid);
	t = calloc(1, sizeof(*t));
	if (!t)
		return gh_err_set(err, GH_E_FAILED, "out of memory");
	t->pid = pid;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	if (gh_proc_start_time(pid, &t->start_ticks, err) ||
	    gh_proc_is_tgid(pid, err) || check_exe(pid, exe, err) ||
	    gh_gobin_open(exe, &t->bin, err) || resolve_addresses(t, err))
		goto fail;
	*out = t;
	return 0;
fail:
	gh_target__free(t);
	return -1;
}

int gh_target__check_alive(const struct gh_target *t, struct gh_err *err)
{
	struct gh_err e2;
	uint64_t ticks;

	if (gh_proc_start_time(t->pid, &ticks, &e2) || ticks != t->start_ticks)
		return gh_err_set(err, GH_E_GONE,
				  "process %d exited (or its PID was reused) "
				  "during the snapshot; run goheap-bpf again "
				  "while it runs",
				  t->pid);
	return 0;
}

const char *gh_target__go_version(const struct gh_target *t)
{
	return t->bin->version;
}

void gh_target__free(struct gh_target *t)
{
	if (!t)
		return;
	gh_gobin_free(t->bin);
	gh_procmaps_free(&t->maps);
	free(t);
}
