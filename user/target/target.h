/* target.h - one Go runtime of an opened process (struct gh_target of
 * goheap.h): who the process is, which binary holds the runtime (its
 * executable or a c-shared library), where its runtime variables live. */
#ifndef GH_TARGET_H
#define GH_TARGET_H

#include "gobin/gobin.h"
#include "gobin/symcache.h"
#include "goheap_record.h"
#include "proc/proc.h"

struct gh_target {
	int pid;
	uint64_t start_ticks; /* identity, with pid */
	struct gobin *bin;
	uint64_t bias;		 /* load bias of the file holding the runtime */
	uint64_t mbuckets;	 /* runtime address of runtime.mbuckets */
	uint64_t vars[GH_NVARS]; /* runtime addresses, 0 = absent */
	struct procmaps maps;	 /* /proc/PID/maps at open time */
	char *file;		 /* file holding the runtime (goheap.h) */
	char cgroup[GH_ERR_MSG_MAX]; /* the process cgroup path */
	/* PCs resolved so far, kept for every snapshot of this runtime (the
	 * binary never changes under a live process). */
	struct symcache *sc;
};

#endif
