/* target.c - opening a process's Go runtimes: identity from /proc, the
 * executable through /proc/PID/exe (so deleted or namespaced binaries
 * work), and Go libraries (-buildmode=c-shared) through
 * /proc/PID/map_files, parsed once per file by the binary cache); for each
 * runtime the load bias of the file holding it and the runtime addresses
 * of the profile's roots. One process can hold several Go runtimes (a C
 * program loading two Go libraries): each is a target with its own
 * buckets and its own MemProfileRate. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/caps.h"
#include "base/err.h"
#include "gobin/contention.h"
#include "target/target.h"

/* At most this many Go runtimes per process; more is surely not a real
 * program but a broken /proc. */
#define MAX_RUNTIMES 64

/* What every runtime of one process shares. */
struct proc_id {
	int pid;
	uint64_t start_ticks;
	char cgroup[GH_PATH_MAX];
	char comm[32];
	bool seen;		    /* start_ticks read: it existed */
	struct stat exe;	    /* stat of /proc/PID/exe */
	char exe_path[GH_PATH_MAX]; /* its target, " (deleted)" trimmed */
	struct bincache *bc;
};

/* Another user's /proc/PID/exe takes CAP_SYS_PTRACE. */
static int denied(const char *path, struct gh_err *err)
{
	static const int need[] = {CAP_SYS_PTRACE};
	char miss[32];
	bool lacking = caps_missing(need, 1, miss, sizeof(miss));

	return err_set(err, GH_E_PERM,
		       "cannot open %s: permission denied%s%s; run as root, or "
		       "with CAP_SYS_PTRACE (and CAP_BPF + CAP_PERFMON for "
		       "the BPF backends)",
		       path, lacking ? ", missing " : "", miss);
}

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
		return denied(path, err);
	snprintf(dir, sizeof(dir), "/proc/%d", pid);
	if (e == ENOENT && !access(dir, F_OK))
		return err_set(err, GH_E_NOTGO,
			       "PID %d has no executable (a kernel thread?); "
			       "pass the PID of a Go program",
			       pid);
	return err_set(err, GH_E_NOPROC,
		       "cannot open %s: %s; the process may have exited", path,
		       strerror(e));
}

/* A 32-bit process (GOARCH=386 on an x86-64 kernel, GOARCH=arm on an
 * arm64 one) is named as such: its runtime's structures have another
 * layout altogether. */
static int check_class(int pid, const char *exe, struct gh_err *err)
{
	unsigned char ident[EI_NIDENT];
	int fd = open(exe, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, ident, sizeof(ident)) : -1;

	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof(ident) || memcmp(ident, ELFMAG, SELFMAG) ||
	    ident[EI_CLASS] != ELFCLASS32)
		return 0;
	return err_set(err, GH_E_UNSUPPORTED,
		       "PID %d is a 32-bit program (ELFCLASS32, e.g. "
		       "GOARCH=386 or arm): only 64-bit (amd64, arm64) Go "
		       "programs are supported; profile a GOARCH=amd64 or "
		       "arm64 build",
		       pid);
}

static const char deleted_mark[] = " (deleted)";

/* Does a /proc/PID/maps path name a file deleted since it was mapped? */
static bool deleted(const char *path)
{
	size_t n = strlen(path), d = sizeof(deleted_mark) - 1;

	return n >= d && strcmp(path + n - d, deleted_mark) == 0;
}

static void trim_deleted(char *path)
{
	if (deleted(path))
		path[strlen(path) - (sizeof(deleted_mark) - 1)] = '\0';
}

/* A zombie has exited: its memory is gone, only its PID is left until its
 * parent reaps it. One on its way out ('X') is losing its memory. */
static int check_zombie(int pid, char state, struct gh_err *err)
{
	if (state != 'Z' && state != 'X')
		return 0;
	return err_set(err, GH_E_GONE,
		       "process %d has exited (%s): there is no heap left to "
		       "read; take the snapshot while it runs",
		       pid,
		       state == 'Z' ? "a zombie its parent has not reaped"
				    : "it is on its way out");
}

static int proc_id__read(int pid, struct proc_id *id, struct gh_err *err)
{
	char exe[64], state;
	ssize_t n;

	id->pid = pid;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	if (proc_state(pid, &state, &id->start_ticks, err))
		return -1;
	id->seen = true;
	if (check_zombie(pid, state, err) || proc_is_tgid(pid, err) ||
	    check_exe(pid, exe, err) || check_class(pid, exe, err) ||
	    proc_cgroup(pid, id->cgroup, sizeof(id->cgroup), err) ||
	    proc_comm(pid, id->comm, sizeof(id->comm), err))
		return -1;
	if (stat(exe, &id->exe))
		return err_set(err, GH_E_NOPROC,
			       "cannot stat %s: %s; the process may have "
			       "exited",
			       exe, strerror(errno));
	n = readlink(exe, id->exe_path, sizeof(id->exe_path) - 1);
	id->exe_path[n > 0 ? n : 0] = '\0';
	trim_deleted(id->exe_path);
	return 0;
}

/* A process that exits while it is being opened fails at whichever step
 * meets its end first (its exe link gone: "not a Go program"; its maps
 * empty; its files gone: "no such process"). Once it was seen, that is
 * the process gone, as a read would find it: the step's error becomes
 * GONE. */
static void exited_meanwhile(const struct proc_id *id, struct gh_err *err)
{
	struct gh_err e2;
	uint64_t ticks;
	char state;

	if (!err || err->code == GH_E_GONE ||
	    (!proc_state(id->pid, &state, &ticks, &e2) &&
	     ticks == id->start_ticks && state != 'Z' && state != 'X'))
		return;
	err_set(err, GH_E_GONE,
		"process %d exited while it was being opened; take the "
		"snapshot while it runs",
		id->pid);
}

static int need_symbol(const struct target *t, const char *name, uint64_t *addr,
		       struct gh_err *err)
{
	if (!gobin__symbol(t->go, name, addr)) {
		*addr += t->bias;
		return 0;
	}
	return err_set(err, GH_E_UNSUPPORTED,
		       "%s (%s): %s cannot be located: %s; a build "
		       "with its symbol table (without -ldflags=-s) can "
		       "be profiled",
		       t->file, t->go->version, name, gobin__why(t->go, name));
}

static void optional_symbol(const struct target *t, const char *name,
			    uint64_t *addr)
{
	*addr = gobin__symbol(t->go, name, addr) ? 0 : *addr + t->bias;
}

static int resolve_vars(struct target *t, struct gh_err *err)
{
	if (need_symbol(t, "runtime.mbuckets", &t->mbuckets, err) ||
	    need_symbol(t, "runtime.MemProfileRate", &t->vars[GH_VAR_RATE],
			err) ||
	    need_symbol(t, t->go->layout->cycle_sym, &t->vars[GH_VAR_CYCLE],
			err))
		return -1;
	optional_symbol(t, "runtime.disableMemoryProfiling",
			&t->vars[GH_VAR_DISABLE]);
	optional_symbol(t, "math.useFMA", &t->vars[GH_VAR_USEFMA]);
	optional_symbol(t, "runtime.bbuckets", &t->bm_head[0]);
	optional_symbol(t, "runtime.xbuckets", &t->bm_head[1]);
	optional_symbol(t, "runtime.blockprofilerate", &t->bm_rate[0]);
	optional_symbol(t, "runtime.mutexprofilerate", &t->bm_rate[1]);
	optional_symbol(t, "runtime.ticks", &t->ticks);
	return 0;
}

int target__contention(const struct target *t, enum gh_kind kind,
		       const struct contention_layout **out, struct gh_err *err)
{
	int i = kind == GH_KIND_MUTEX;

	*out = contention_layout_for(t->go->layout->minor, t->go->version, err);
	if (!*out)
		return -1;
	if (t->bm_head[i] && t->bm_rate[i] && t->ticks)
		return 0;
	/* Stripped binaries: only the heap's variables are recovered from
	 * code (gobin/stripped.c). */
	return err_set(err, GH_E_UNSUPPORTED,
		       "%s (%s): the %s profile cannot be read: %s is "
		       "stripped (no symbol table locates runtime.%s); a "
		       "build without -ldflags=-s can be profiled",
		       t->file, t->go->version, i ? "mutex" : "block", t->file,
		       i ? "xbuckets" : "bbuckets");
}

static int first_load(const struct target *t, uint64_t *vaddr, uint64_t *offset,
		      struct gh_err *err)
{
	if (elffile__first_load(t->go->elf, vaddr, offset))
		return err_set(err, GH_E_NOTGO,
			       "%s (PID %d) has no PT_LOAD segment: it is "
			       "not a loadable Go binary",
			       t->file, t->pid);
	return 0;
}

/* A target for one runtime of the process, with its own copy of maps. */
static int new_target(const struct proc_id *id, const char *file,
		      struct target **out, struct gh_err *err)
{
	struct target *t = calloc(1, sizeof(*t));

	*out = t;
	if (!t || !(t->file = strdup(file)))
		return err_set(err, GH_E_FAILED, "out of memory");
	t->pid = id->pid;
	t->start_ticks = id->start_ticks;
	snprintf(t->cgroup, sizeof(t->cgroup), "%s", id->cgroup);
	container_of(t->cgroup, &t->container);
	snprintf(t->comm, sizeof(t->comm), "%s", id->comm);
	snprintf(t->exe, sizeof(t->exe), "%s", id->exe_path);
	t->exe_id = (struct fileid){
		(uint64_t)id->exe.st_dev, (uint64_t)id->exe.st_ino,
		(uint64_t)id->exe.st_size, id->exe.st_mtim.tv_sec,
		id->exe.st_mtim.tv_nsec};
	return proc_maps(id->pid, &t->maps, err);
}

/* The binary at path, from the cache. */
static int get_binary(const struct proc_id *id, struct target *t,
		      const char *path, struct gh_err *err)
{
	if (bincache__get(id->bc, path, t->file, &t->bin, err))
		return -1;
	t->go = t->bin->gobin;
	return 0;
}

/* The executable's runtime. 1 (and *err NOTGO) when the executable is not
 * a Go program: its runtime, if any, is in a library. */
static int open_exe(const struct proc_id *id, struct target **out,
		    struct gh_err *err)
{
	struct target *t;
	uint64_t vaddr, offset;
	char exe[64];

	snprintf(exe, sizeof(exe), "/proc/%d/exe", id->pid);
	if (new_target(id, id->exe_path, out, err))
		return -1;
	t = *out;
	if (get_binary(id, t, exe, err))
		return err && err->code == GH_E_NOTGO ? 1 : -1;
	if (first_load(t, &vaddr, &offset, err) ||
	    proc_exe_bias(id->pid, &t->maps, elffile__is_dyn(t->go->elf), vaddr,
			  offset, &t->bias, err))
		return -1;
	return resolve_vars(t, err);
}

/* A Go library's runtime, read through the mapping m of its file, which
 * the cache has already parsed as bin (the reference passes to the
 * target). */
static int open_lib(const struct proc_id *id, const struct procmap *m,
		    struct binary *bin, struct target **out, struct gh_err *err)
{
	struct target *t;
	uint64_t vaddr, offset;
	char *file = strdup(m->path);
	int rc;

	*out = NULL;
	if (!file) {
		binary__put(bin);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	trim_deleted(file);
	rc = new_target(id, file, out, err);
	free(file);
	t = *out;
	if (!t) {
		binary__put(bin);
		return -1;
	}
	t->bin = bin;
	t->go = bin->gobin;
	if (rc || first_load(t, &vaddr, &offset, err) ||
	    proc_file_bias(id->pid, &t->maps, m, vaddr, offset, &t->bias, err))
		return -1;
	return resolve_vars(t, err);
}

static bool same_file(const struct procmap *a, const struct procmap *b)
{
	return a->inode == b->inode && a->dev_major == b->dev_major &&
	       a->dev_minor == b->dev_minor;
}

/* Mapping i is the first executable mapping of a library file (not the
 * executable, not [vdso] or anonymous memory). */
static bool first_lib_mapping(const struct proc_id *id,
			      const struct procmaps *maps, size_t i)
{
	const struct procmap *m = &maps->v[i];
	size_t j;

	if (m->perms[2] != 'x' || !m->inode || m->path[0] != '/')
		return false;
	if (m->inode == id->exe.st_ino &&
	    ((m->dev_major == major(id->exe.st_dev) &&
	      m->dev_minor == minor(id->exe.st_dev)) ||
	     strncmp(m->path, id->exe_path, strlen(id->exe_path)) == 0))
		return false;
	for (j = 0; j < i; j++)
		if (maps->v[j].perms[2] == 'x' && same_file(&maps->v[j], m))
			return false;
	return true;
}

/* The file of mapping m, readable even when it lives in another mount
 * namespace or was deleted: /proc/PID/map_files, else /proc/PID/root.
 * Checked with the effective IDs and capabilities, which open() uses:
 * access() drops a non-root caller's capabilities, and map_files needs
 * them (CAP_CHECKPOINT_RESTORE). */
static void lib_path(int pid, const struct procmap *m, char *buf, size_t size)
{
	snprintf(buf, size, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid,
		 m->start, m->end);
	if (faccessat(AT_FDCWD, buf, R_OK, AT_EACCESS))
		snprintf(buf, size, "/proc/%d/root%s", pid, m->path);
}

struct runtimes {
	struct target **v;
	size_t n;
	/* A deleted library that could not be read ("" if none): it may
	 * hold the runtime, and only map_files could have read it. */
	char unread[GH_PATH_MAX];
};

static int push(struct runtimes *r, struct target *t, struct gh_err *err)
{
	if (r->n == MAX_RUNTIMES) {
		target__free(t);
		return err_set(err, GH_E_FAILED,
			       "more than %d Go runtimes in one process",
			       MAX_RUNTIMES);
	}
	r->v[r->n++] = t;
	return 0;
}

/* The library of mapping m as a runtime of the process, when it is a Go
 * runtime. Files that are not (libc, ld.so) are skipped, and so are those
 * that cannot be read; a Go library that cannot be profiled (a -linkshared
 * program's, an unsupported release) fails the process. */
static int open_lib_mapping(const struct proc_id *id, const struct procmap *m,
			    struct runtimes *r, struct gh_err *err)
{
	struct gh_err e2 = {GH_OK, ""};
	struct binary *bin;
	struct target *t = NULL;
	char path[GH_PATH_MAX + 64];

	lib_path(id->pid, m, path, sizeof(path));
	if (bincache__get(id->bc, path, m->path, &bin, &e2)) {
		if (e2.code == GH_E_UNSUPPORTED) {
			if (err)
				*err = e2;
			return -1;
		}
		if (e2.code != GH_E_NOTGO && deleted(m->path) && !r->unread[0])
			snprintf(r->unread, sizeof(r->unread), "%s", m->path);
		return 0;
	}
	if (open_lib(id, m, bin, &t, err)) {
		target__free(t);
		return -1;
	}
	return push(r, t, err);
}

/* Every Go library the process maps, in address order. */
static int open_libs(const struct proc_id *id, struct runtimes *r,
		     struct gh_err *err)
{
	struct procmaps maps;
	size_t i;
	int rc = 0;

	if (proc_maps(id->pid, &maps, err))
		return -1;
	for (i = 0; i < maps.n && !rc; i++)
		if (first_lib_mapping(id, &maps, i))
			rc = open_lib_mapping(id, &maps.v[i], r, err);
	procmaps__free(&maps);
	return rc;
}

/* No Go runtime was found, but a deleted library could not be read: only
 * /proc/PID/map_files reaches its file, and that takes what the caller
 * may lack. It may hold the runtime: say what is missing (PERM), not
 * "not a Go program". */
static void unread_lib(const struct proc_id *id, const char *lib,
		       struct gh_err *err)
{
	static const int need[] = {CAP_DAC_READ_SEARCH, CAP_CHECKPOINT_RESTORE};
	char miss[64];

	if (!caps_missing(need, 2, miss, sizeof(miss)))
		return;
	err_set(err, GH_E_PERM,
		"process %d maps %s, which may hold its Go runtime, but only "
		"/proc/%d/map_files can read it, missing %s; run as root, or "
		"with CAP_DAC_READ_SEARCH and CAP_CHECKPOINT_RESTORE as well",
		id->pid, lib, id->pid, miss);
}

/* Number the runtimes: index of count, as messages and titles say. */
static void number(struct runtimes *r)
{
	for (size_t i = 0; i < r->n; i++) {
		r->v[i]->index = i + 1;
		r->v[i]->count = r->n;
	}
}

int target__open_all(int pid, struct bincache *bc, struct target ***out,
		     size_t *n, struct gh_err *err)
{
	struct runtimes r = {NULL, 0, ""};
	struct target *exe = NULL;
	struct gh_err exe_err = {GH_OK, ""};
	struct proc_id *id;
	int rc = -1, st;

	*out = NULL;
	*n = 0;
	if (pid <= 0)
		return err_set(err, GH_E_USAGE, "invalid PID %d", pid);
	id = calloc(1, sizeof(*id));
	r.v = calloc(MAX_RUNTIMES, sizeof(*r.v));
	if (!id || !r.v) {
		err_set(err, GH_E_FAILED, "out of memory");
		goto done;
	}
	id->bc = bc;
	if (proc_id__read(pid, id, err))
		goto done;
	/* Libraries first: a -linkshared program's executable is Go but
	 * keeps its runtime in a Go shared library, and is refused for it. */
	if (open_libs(id, &r, err))
		goto done;
	st = open_exe(id, &exe, &exe_err);
	if (st < 0 || (st > 0 && !r.n)) {
		if (err)
			*err = exe_err;
		if (st > 0 && r.unread[0])
			unread_lib(id, r.unread, err);
		goto done;
	}
	if (st == 0) {
		if (r.n == MAX_RUNTIMES) {
			err_set(err, GH_E_FAILED,
				"more than %d Go runtimes in one process",
				MAX_RUNTIMES);
			goto done;
		}
		memmove(r.v + 1, r.v, r.n * sizeof(*r.v));
		r.v[0] = exe;
		r.n++;
		exe = NULL;
	}
	number(&r);
	*out = r.v;
	*n = r.n;
	r.v = NULL;
	r.n = 0;
	rc = 0;
done:
	if (rc && id && id->seen)
		exited_meanwhile(id, err);
	target__free(exe);
	target__free_all(r.v, r.n);
	free(id);
	return rc;
}

void target__free_all(struct target **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		target__free(v[i]);
	free(v);
}

/* How process t->pid is not the one opened any more: NULL when it is. */
static const char *changed(const struct target *t)
{
	struct fileid exe;
	struct gh_err e2;
	uint64_t ticks;
	char path[64], state;

	if (proc_state(t->pid, &state, &ticks, &e2))
		return "exited";
	if (ticks != t->start_ticks)
		return "exited, and its PID now names another process,";
	if (state == 'Z')
		return "exited (a zombie its parent has not reaped)";
	if (state == 'X')
		return "exited";
	snprintf(path, sizeof(path), "/proc/%d/exe", t->pid);
	if (fileid__of(path, &exe) || !fileid__eq(&exe, &t->exe_id))
		return "replaced its program (exec)";
	return NULL;
}

int target__check_alive(const struct target *t, struct gh_err *err)
{
	const char *how = changed(t);

	if (!how)
		return 0;
	return err_set(err, GH_E_GONE,
		       "process %d %s during the snapshot; take it again "
		       "while it runs",
		       t->pid, how);
}

void target__free(struct target *t)
{
	if (!t)
		return;
	binary__put(t->bin);
	procmaps__free(&t->maps);
	free(t->file);
	free(t);
}
