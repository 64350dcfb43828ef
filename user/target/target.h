/* target.h - one Go runtime of an opened process: who the process is,
 * which file holds the runtime (its executable or a c-shared library),
 * that file parsed (shared with every process that maps it), and where
 * the runtime's heap-profile variables live in this process. */
#ifndef GH_TARGET_H
#define GH_TARGET_H

#include "base/fileid.h"
#include "gobin/bincache.h"
#include "goheap_record.h"
#include "proc/container.h"
#include "proc/proc.h"

struct target {
	int pid;
	uint64_t start_ticks;	 /* identity, with pid */
	struct fileid exe_id;	 /* and /proc/PID/exe's file then */
	struct binary *bin;	 /* the file holding the runtime */
	const struct gobin *go;	 /* bin->gobin */
	uint64_t bias;		 /* load bias of that file */
	uint64_t mbuckets;	 /* runtime address of runtime.mbuckets */
	uint64_t vars[GH_NVARS]; /* runtime addresses, 0 = absent */
	/* The block and mutex profiles ([0] block, [1] mutex): the list
	 * heads (runtime.bbuckets, xbuckets) and rates (blockprofilerate,
	 * mutexprofilerate), and runtime.ticks; runtime addresses, 0 where
	 * the symbol table has none (target__contention says why). */
	uint64_t bm_head[2], bm_rate[2], ticks;
	struct procmaps maps;  /* /proc/PID/maps at open time */
	char *file;	       /* that file, as the process names it */
	size_t index, count;   /* runtime index (from 1) of count */
	char comm[32];	       /* the process's name */
	char exe[GH_PATH_MAX]; /* its executable, as it names it */
	char cgroup[GH_PATH_MAX];
	struct container container; /* what the cgroup path says */
};

/* Every Go runtime in process pid: the executable's when it is a Go
 * program, then one per Go library (-buildmode=c-shared) it maps, in
 * address order; each a target of its own (its own buckets and
 * MemProfileRate). Binaries come from bc. *out is an array of *n >= 1
 * targets. NOPROC, PERM, NOTGO when neither the executable nor a library
 * holds a Go runtime, UNSUPPORTED (-linkshared, 32-bit, the Go release),
 * DISABLED is not known yet (it is read with the buckets). */
int target__open_all(int pid, struct bincache *bc, struct target ***out,
		     size_t *n, struct gh_err *err);
void target__free(struct target *t);

/* Does name mean t: its runtime number ("2", from 1) or the file holding
 * it (full path or file name)? NULL means every runtime. */
bool target__named(const struct target *t, const char *name);
/* *i: the one of ts[0..n) (a process's, n >= 1) that name means (NULL:
 * the first). USAGE, naming the choices, when it means none or several. */
int target__pick(struct target *const *ts, size_t n, const char *name,
		 size_t *i, struct gh_err *err);
void target__free_all(struct target **v, size_t n);

/* What reading kind's list (GH_KIND_BLOCK or GH_KIND_MUTEX) of t needs:
 * its release's row and the addresses above. UNSUPPORTED, naming the
 * cause, for a release not known or a binary whose symbol table does not
 * locate them (a stripped one). */
struct contention_layout;
int target__contention(const struct target *t, enum gh_kind kind,
		       const struct contention_layout **out,
		       struct gh_err *err);

/* GONE when the process exited (a zombie too), its PID now names
 * another, or it exec'd another program, since it was opened. */
int target__check_alive(const struct target *t, struct gh_err *err);

#endif
