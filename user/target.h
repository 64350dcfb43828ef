/* target.h - an opened Go process (struct gh_target of goheap.h): who it is,
 * which binary it runs, where its runtime variables live. */
#ifndef GH_TARGET_H
#define GH_TARGET_H

#include "gobin.h"
#include "goheap_record.h"
#include "proc.h"

struct gh_target {
	int pid;
	uint64_t start_ticks;       /* identity, with pid */
	struct gh_gobin *bin;
	uint64_t bias;              /* load bias of the executable (PIE) */
	uint64_t mbuckets;          /* runtime address of runtime.mbuckets */
	uint64_t vars[GH_NVARS];    /* runtime addresses, 0 = absent */
	struct gh_procmaps maps;    /* /proc/PID/maps at open time */
};

#endif
